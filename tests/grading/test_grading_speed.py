"""What keeps grading near the notebooks' own time (issue 38), checked without timing
anything: a grading worker imports no numerical library, every kernel starts with the
modules an exercise imports already in memory, the grader's sockets do not wait out
ZeroMQ's reconnection interval, a kernel's shutdown does not sleep on jupyter_client's
polls, and a submission's cells are parsed once for the forbidden-name scan."""
from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from nbcourse.grading import forbidden, specs
from nbcourse.grading.course_folders import course_folders
from nbcourse.grading.execution import kernel_server, runner
from nbcourse.grading.execution.connection import bounded_context
from nbcourse.grading.execution.limits import GradingLimits
from nbcourse.grading.forbidden import flagged_answers

REPO = Path(__file__).resolve().parents[2]
NUMERICAL = ("numpy", "pandas", "scipy", "matplotlib", "ipywidgets")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport json, sys\n"
                          "print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True, cwd=REPO)
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_a_grading_worker_imports_no_numerical_library():
    loaded = _modules_after("import nbcourse.grading.worker_main")
    assert not [name for name in loaded if name.split(".")[0] in NUMERICAL]


def test_the_top_level_names_still_import_on_first_use():
    loaded = _modules_after(
        "import nbcourse\nfrom nbcourse import *\n"
        "assert CategoricalNB.__module__.startswith('nbcourse.naive_bayes')\n"
        "assert load_weather().shape == (14, 5), load_weather().shape\n"
        "assert set(nbcourse.__all__) <= set(dir(nbcourse))\n"
        "from nbcourse.grading import check_for\n"
        "try:\n    nbcourse.not_a_name\nexcept AttributeError as error:\n"
        "    assert 'not_a_name' in str(error)\nelse:\n    raise AssertionError('no error')")
    assert {"pandas", "nbcourse.naive_bayes", "nbcourse.grading.selfcheck"} <= loaded


def _exercise_imports() -> set[str]:
    """Every module the released exercises import (``import x.y``, ``from x.y import z``)."""
    found = set()
    for path in (REPO / "exercises").glob("*.ipynb"):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code":
                found |= set(re.findall(r"^\s*(?:from|import)\s+([\w.]+)",
                                        "".join(cell["source"]), re.M))
    return found


def test_every_kernel_starts_with_what_the_exercises_import():
    """The kernel server imports them once; without that each submission's kernel did
    (``nbcourse.grading``'s self-check, ``scipy.optimize``, ``nbcourse.text`` ...)."""
    preloaded = set(kernel_server.PRELOADED)
    covered = preloaded | {name.rsplit(".", 1)[0] for name in preloaded}
    wanted = {name for name in _exercise_imports()
              if name.split(".")[0] in {"nbcourse", "numpy", "pandas", "scipy"}}
    assert wanted and not wanted - covered, wanted - covered
    # the server skips a module it cannot import: each must be importable
    loaded = _modules_after("import " + ", ".join(kernel_server.PRELOADED))
    assert preloaded <= loaded, preloaded - loaded


def test_the_graders_sockets_reconnect_within_a_few_milliseconds():
    """The grader connects before a fresh kernel has bound its sockets; at ZeroMQ's
    default (100 ms between attempts) every kernel start waited that long."""
    import zmq

    context = bounded_context(GradingLimits())
    try:
        assert context.getsockopt(zmq.RECONNECT_IVL) <= 10
    finally:
        context.destroy(linger=0)


def test_a_kernels_shutdown_neither_polls_nor_lingers(tmp_path, monkeypatch):
    """Ending a kernel: it is killed and found gone at once, so jupyter_client's shutdown
    never sleeps its 0.1 s poll, and the control socket keeps nothing to deliver."""
    from nbcourse.grading.execution.sandbox import make_config, release, remove_tree
    from nbcourse.grading.execution.worker import KernelServers

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    path = tmp_path / "small.ipynb"
    path.write_text(nbformat.writes(notebook))
    seen = {"sleeps": [], "lingers": []}
    closing = runner.KernelSession.close
    sleep = asyncio.sleep

    async def watched_close(self):
        async def recorded(delay, *args, **kwargs):
            seen["sleeps"].append(delay)
            return await sleep(delay, *args, **kwargs)
        shutdown = self.km.shutdown_kernel

        async def recorded_shutdown(*args, **kwargs):
            control = getattr(self.km, "_control_socket", None)
            seen["lingers"].append(None if control is None else control.linger)
            return await shutdown(*args, **kwargs)
        monkeypatch.setattr(asyncio, "sleep", recorded)
        self.km.shutdown_kernel = recorded_shutdown
        try:
            await closing(self)
        finally:
            monkeypatch.setattr(asyncio, "sleep", sleep)

    monkeypatch.setattr(runner.KernelSession, "close", watched_close)
    limits = GradingLimits()
    config = make_config("off", limits, course_folders())
    base = Path(tempfile.mkdtemp(prefix="nbcourse-grading-"))
    kernels = KernelServers(config, base, "token")
    try:
        exercise = specs.load("01_weather")
        report = runner.run_submission(path, exercise.probe_plan(), limits, kernels.take,
                                       scan_source=flagged_answers)
        server = kernels.server
    finally:
        kernels.close()
        release(config)
        remove_tree(base)
    assert report.kernel.value == "ok" and report.code_cells == 1, report
    assert server.kernel is None
    assert seen["lingers"] == [0], seen
    assert all(delay < 0.1 for delay in seen["sleeps"]), seen


def test_the_forbidden_name_scan_parses_each_cell_once(monkeypatch):
    cells = ["from nbcourse import CategoricalNB", "def a():\n    return CategoricalNB()",
             "b = a()", "c = 0.5"]
    plan = {"questions": [
        {"question": "q1", "name": "a", "kind": "function", "forbidden": ["CategoricalNB"]},
        {"question": "q2", "name": "b", "kind": "value", "forbidden": ["CategoricalNB"],
         "computed": True},
        {"question": "q3", "name": "c", "kind": "value", "forbidden": ["CategoricalNB"],
         "computed": True}]}
    from nbcourse.grading import name_scopes  # where the scan parses a cell (cell_trees)
    parsed = []
    parse = name_scopes.parse_cell
    monkeypatch.setattr(name_scopes, "parse_cell", lambda source: parsed.append(source)
                        or parse(source))
    # b reaches CategoricalNB only through the graded a, flagged for it (the flag stays there)
    assert flagged_answers(cells, plan) == {"q1": ["CategoricalNB"], "q3": [forbidden.TYPED_IN]}
    assert sorted(parsed) == sorted(cells)


def test_nbcourse_grade_skips_jsonschemas_iri_grammar():
    """``nbcourse grade`` reads notebooks in its own process too (the class report's
    templates): like every grading worker, it does not compile the IRI grammar that
    ``import jsonschema`` builds when rfc3987-syntax is installed (seconds of CPU)."""
    loaded = _modules_after(
        "import sys\nfrom nbcourse.cli import main\n"
        "main(['grade', '01_weather', '/nonexistent-submissions', '--out', '/nonexistent-out'])\n"
        "assert sys.modules['rfc3987_syntax'] is None")
    assert "rfc3987_syntax" in loaded


def test_a_worker_gets_its_next_submission_while_the_last_one_is_scored(tmp_path, monkeypatch):
    """Scoring runs in the grader's process: it must not keep an idle worker waiting.
    With one worker, the first row's scoring waits until the second submission has
    reached the worker (at most 30 s, so that the test ends either way)."""
    import threading

    from nbcourse.grading import scheduling
    from nbcourse.grading.collection import Submission
    from nbcourse.grading.execution.report import RunReport

    handed = threading.Event()
    order = []

    class FakeWorker:
        def grade(self, job, ask=None):
            order.append(("run", job["id"]))
            if job["id"] == 1:
                handed.set()
            return RunReport.failed("not run in this test").to_json()

    config = type("Config", (), {"limits": GradingLimits()})()
    site = type("Site", (), {"inbox": tmp_path, "config": config,
                             "new_worker": lambda self: FakeWorker()})()
    scoring = scheduling.score_row

    def slow_score(exercise, expected, submission, report):
        if submission.id == "a":
            order.append(("handed before a was scored", handed.wait(timeout=30)))
        return scoring(exercise, expected, submission, report)

    monkeypatch.setattr(scheduling, "score_row", slow_score)
    exercise = specs.load("01_weather")
    paths = [tmp_path / f"{name}.ipynb" for name in ("a", "b")]
    for path in paths:
        path.write_text("{}")
    rows = scheduling.Rows(exercise, exercise.expected(),
                           [Submission(path.stem, path) for path in paths], None, None)
    scheduling.grade_locally(rows, exercise.probe_plan(), site, jobs=1)
    assert ("handed before a was scored", True) in order, order
    assert [r.submission for r in rows.sorted()] == ["a", "b"]
