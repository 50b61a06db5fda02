"""What a second cold review of the grader (issue 36) found after this round's fixes.

Each test fails on the code the review read (2026-11-29, main at 18527e5)."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from nbcourse.grading import batch as batch_module
from nbcourse.grading.execution import cgroups, sandbox
from nbcourse.grading.execution.cells import parse_cell
from nbcourse.grading.execution.launcher import process_limit
from nbcourse.grading.execution.limits import GradingLimits
from nbcourse.grading.feedback import GRADER_FAILED, render_html
from nbcourse.grading.scoring import SubmissionResult
from nbcourse.grading.site import GradingSite
from nbcourse.grading.statuses import Status
from nbcourse.grading.validate import defined_names

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "submissions"


def test_a_cgroup_without_a_pids_controller_keeps_the_process_limit():
    """G1: any cgroup used to drop RLIMIT_NPROC, though on cgroup v1 without a pids
    controller nothing else bounds the tasks (and results.json said RLIMIT_NPROC)."""
    def config(kind, pids):
        return SimpleNamespace(kind=kind, cgroups={"version": 1, "memory": "/m", "pids": pids})

    assert process_limit(config("bwrap", ""), ["/m/box"], 256) == 256
    assert process_limit(config("bwrap", "/p"), ["/m/box", "/p/box"], 256) == -1
    assert process_limit(config("bwrap", "/p"), [], 256) == 256     # no cgroup made
    assert process_limit(config("off", ""), [], 256) == -1          # the grader's own user
    v2 = SimpleNamespace(kind="bwrap", cgroups={"version": 2, "memory": "/u", "pids": "/u"})
    assert process_limit(v2, ["/u/box"], 256) == -1
    limits = GradingLimits.from_options()
    words = cgroups.describe({"version": 1, "memory": "/m", "pids": ""}, limits,
                             kind="bwrap")["tasks"]
    assert "RLIMIT_NPROC" in words                   # the record says what is in force


def test_a_grader_errors_text_stays_off_the_students_page():
    """G2: an exception's message (which may quote what the grader held) was printed on
    the feedback page; the student now reads a fixed sentence, the instructor the text."""
    secret = "ValueError: hidden input [3, 1, 4] (at runner.py:412, run_submission)"
    row = SubmissionResult("alice", "alice.ipynb", Status.GRADER_ERROR, [secret], 0.0, 10.0, [])
    page = render_html(row, "Exercise 1")
    assert GRADER_FAILED in page and "hidden input" not in page and "runner.py" not in page
    other = SubmissionResult("bob", "bob.ipynb", Status.CELL_ERROR, ["cell 3 raised KeyError"],
                             5.0, 10.0, [])
    assert "cell 3 raised KeyError" in render_html(other, "Exercise 1")


@pytest.mark.parametrize("where", ["hints", "plan"])
def test_a_failure_before_grading_leaves_no_site_behind(tmp_path, monkeypatch, where):
    """G3: an error (or Ctrl-C) in the integrity hints, or in reading the probe plan (the
    reference solutions' files; a third review found it outside the guard), after the site
    was started, left its scratch folder (copies of every submission) and cgroup parents
    behind."""
    closed = []
    close = GradingSite.close
    monkeypatch.setattr(GradingSite, "close", lambda self: closed.append(self.scratch)
                        or close(self))

    def broken(*args):
        raise RuntimeError("the hints broke")

    if where == "hints":
        monkeypatch.setattr(batch_module, "check_batch", broken)
    else:
        monkeypatch.setattr(batch_module.specs.Exercise, "probe_plan", broken)
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "alice.ipynb").write_bytes((FIXTURES / "correct.ipynb").read_bytes())
    with pytest.raises(RuntimeError, match="the hints broke"):
        batch_module.grade_batch("01_weather", [folder], tmp_path / "out", jobs=1,
                                 sandbox="off", progress=None)
    assert len(closed) == 1 and not Path(closed[0]).exists()


def test_validate_reads_cells_as_the_grader_does():
    """G4: validate parsed cells itself: ``x = !ls`` was a syntax error there (its names
    lost) and a NUL byte raised ValueError, which stopped validate and release."""
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("files = !ls\ndef answer():\n    return files"),
        nbformat.v4.new_code_cell("x = 1\x00"),
        nbformat.v4.new_code_cell("%%time\ny = 2"),
    ])
    names = defined_names(notebook)
    assert "answer" in names       # the old rule lost the whole cell
    assert parse_cell("x = 1\x00") is None
    assert ("y" in names) == (parse_cell("%%time\ny = 2") is not None)


def test_the_self_test_wants_the_sandbox_user_it_asked_for_and_a_full_answer():
    """G5: any owner but root passed, and a missing answer raised KeyError instead of
    counting as failed."""
    clean = {"planted_visible": False, "network": False, "processes": [1, 2], "cap_eff": 0,
             "remount": False, "user_namespace": False, "seccomp": "2", "owner": 65534}
    assert sandbox.isolation_problems(clean, "/usr", 65534) == []
    assert sandbox.isolation_problems(dict(clean, owner=1000), "/usr", 65534) == [
        "the sandbox's user is uid 1000 on the host, not 65534"]
    problems = sandbox.isolation_problems({"owner": 65534}, "/usr", 65534)
    assert "a file planted outside is visible inside" in problems
    assert "the host's loopback network is reachable" in problems
    assert any(p.startswith("processes outside are visible") for p in problems)


def test_a_reply_without_a_report_ends_the_worker_and_what_it_started(tmp_path):
    """G7: a reply with the job's id but no report raised KeyError; then (third review)
    only the worker was killed, not the kernel server it starts in a session of its own."""
    import subprocess
    import sys

    from nbcourse.grading.execution.report import RunReport
    from nbcourse.grading.workers import Worker

    fake = ("import json, subprocess, sys\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],"
            " start_new_session=True)\n"
            "print(child.pid, file=sys.stderr, flush=True)\n"
            "job = json.loads(sys.stdin.readline())\n"
            "print(json.dumps({'id': job['id']}), flush=True)\n"
            "import time; time.sleep(60)\n")

    class FakeWorker(Worker):
        def start(self):
            self.log_path = tmp_path / "worker.log"
            self._log = open(self.log_path, "wb")
            self.process = subprocess.Popen([sys.executable, "-c", fake], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=self._log, text=True)

    config = sandbox.SandboxConfig("off", limits=GradingLimits.from_options())
    worker = FakeWorker(tmp_path, "token", config)
    report = RunReport.from_json(worker.grade({"id": 7, "path": "x", "plan": {}}, deadline=30))
    assert "stopped unexpectedly" in report.grader_error and worker.process is None
    child = int((tmp_path / "worker.log").read_text().split()[0])
    assert _ends_within(child, 5), "the worker's own child outlived it"


def _ends_within(pid: int, seconds: float) -> bool:
    """Whether ``pid`` is gone (or a zombie nobody reaps) within ``seconds``."""
    import time

    import psutil

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False
