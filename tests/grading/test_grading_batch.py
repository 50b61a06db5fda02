"""The grader against broken and hostile submissions, graded together in one batch.

One ``nbcourse grade`` run (a real subprocess, two jobs) grades every fixture in
``tests/fixtures/submissions`` plus the unanswered student release.  Each submission
must end with the right status and score, the others must be unaffected, the output
folder must be complete and genuine, and no process may survive the batch.
"""
from __future__ import annotations

import csv
import hashlib
import importlib.util
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from fractions import Fraction
from pathlib import Path

import psutil
import pytest
from nobody_support import as_nobody

from nbcourse.grading import specs
from nbcourse.grading import forbidden
from nbcourse.grading.batch import grade_batch
from nbcourse.grading.course_folders import course_folders

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "submissions"
RELEASED = REPO / "exercises" / "01_weather.ipynb"
# Seconds per cell.  Whether a fixture times out is decided by its input, never by
# this clock: every honest cell takes milliseconds (imports happen before the clock
# starts, in the warm sandbox), the looping ones never end.
TIMEOUT = 8

_spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)

# submission -> (status, total); 10 points in all.  "wrong" earns 3 of 16 likelihood cases
# (3/16 of 2 points), 1 of 11 joint-score cases (the query value no row shows, where every
# score is 0: 1/11 of 3 points), 12 of 24 predict cases (12/24 of 2 points) and q5, which it
# leaves as the solution has it (2 points): 0.375 + 0.273 + 1 + 2 = 3.65.
EXPECTED = {
    "correct": ("graded", 10.0),
    "wrong": ("graded", 3.65),
    "not_json": ("not a notebook", 0.0),
    "not_a_notebook": ("not a notebook", 0.0),
    "empty": ("empty notebook", 0.0),
    "answer_deleted": ("answer missing", 8.0),
    "answer_renamed": ("answer missing", 6.0),  # q4 too: its swap runs without joint_scores
    "early_exception": ("cell error", 9.0),
    "infinite_loop": ("timed out", 10.0),
    "ignores_sigint": ("timed out", 0.0),
    # q3 loops on a public case too (the picnic table, public since student 11): the probe
    # of its public cases times out, and none of them is read
    "answer_loops": ("timed out", 8.0),
    "kernel_killed": ("kernel died", 0.0),
    "memory_bomb": ("memory limit", 10.0),
    "megabytes_printed": ("graded", 10.0),
    "monkeypatch": ("graded", 3.65),
    "snoop_disk": ("graded", 3.65),
    "writes_output": ("graded", 3.65),
    "orphan_child": ("graded", 10.0),
    # the student release exercises/01_weather.ipynb, named by its folder as a student's
    # submitted/<student>/01_weather.ipynb is: every question "not answered"
    "exercises": ("graded", 0.0),
}


# issue 10's table, one fixture per row (rows 11, 13, 17 and 18 are built by
# make_fixtures.add_uncommittable, since such files cannot be committed)
EXPECTED.update({
    "attack_01_pipe_hijack": ("graded", 3.65),
    "attack_02_kill_grader": ("graded", 3.65),
    "attack_03_daemon_rewrites": ("graded", 10.0),
    "attack_04_course_snoop": ("graded", 0.0),  # its questions all "not answered"
    "attack_05_input_transformer": ("graded", 0.0),
    "attack_06_loopback": ("graded", 3.65),
    "attack_07_overwrite_classmate": ("graded", 3.65),
    "attack_08_corpus_rewrite": ("graded", 10.0),
    "attack_09_memory_children": ("graded", 10.0),
    "attack_10_fill_tmp": ("graded", 10.0),
    # q5, and q4 by follow-through: its cell is right, given a right joint_scores
    "attack_14_revealing_errors": ("cell error", 3.0),
    "attack_15_quit_at_end": ("graded", 10.0),
    "attack_16_fraction_zero": ("graded", 9.0),
    # round two (issue 23): each keeps its 8 points only where the sandbox held
    "sandbox_01_escape": ("graded", 10.0),
    "sandbox_02_memory_forks": ("graded", 10.0),  # 1.2 GB in all: under the 2 GB default
    "sandbox_03_fill_channel": ("graded", 10.0),
    "sandbox_04_locked_folders": ("graded", 10.0),
    # one sandbox serves one submission after another: what these plant for the next
    # kernel (or do to the kernel server) costs nobody a point
    "sandbox_05_poison_next": ("graded", 10.0),
    "sandbox_06_stop_server": ("graded", 10.0),
    # red team (one sandbox, one submission after another): what a secure grader gives them
    "sandbox_07_copy_previous": ("answer missing", 0.0),  # no answer of its own
    "sandbox_08_plant_metadata": ("graded", 10.0),
    "sandbox_08_find_metadata": ("graded", 10.0),  # 9 when it found what 08_plant left
    "sandbox_09_fork_chain": ("graded", 10.0),
    "sandbox_10_deep_folders": ("graded", 10.0),
    "sandbox_11_limit_server": ("graded", 10.0),
    "sandbox_12_nice_server": ("graded", 10.0),
    "sandbox_12_find_priority": ("graded", 10.0),  # 9 when it starts with a lower priority
    # issue 33: the channel folder itself changed (mode, default ACL, attribute, flags)
    "sandbox_13_chmod_channel": ("graded", 10.0),
    "sandbox_13_acl_channel": ("graded", 10.0),
    "sandbox_13_xattr_channel": ("graded", 10.0),
    "sandbox_13_find_channel": ("graded", 10.0),  # 9 when it found what 13_xattr left
    # issue 23: what comes back from the kernel is untrusted
    "attack_18_class_name_leak": ("graded", 8.0),
    # predict's 2 points by follow-through: it fails only through joint_scores
    "attack_19_later_public_case": ("graded", 7.82),
    # it wrote its own text into every case (its exec runs code built at run time, which
    # the scan does not read: nothing is flagged)
    "attack_20_own_exec": ("graded", 3.0),
    # predict is marked on its own logic (the follow-through reading, q1 being unreadable),
    # where the forged report spoils 2 of its 24 cases
    "attack_21_forged_report": ("answers unreadable", 7.83),
    # a 1.5 GB message: refused at the grading worker's own memory limit, the kernel stopped
    "attack_22_worker_flood": ("kernel died", 0.0),
    "M\\xfcller": ("graded", 10.0),
    "attack_13_solution_link": ("link outside submissions", 0.0),
    "attack_13_link_inside": ("link outside submissions", 0.0),  # a classmate's notebook
    "attack_17_dangling": ("dangling link", 0.0),
    "attack_17_folder": ("not a notebook", 0.0),
    "alice": ("graded", 3.65),
    " alice": ("graded", 10.0),
    '=HYPERLINK("evil.example","y")': ("graded", 10.0),
})
HONEST = {"correct", "wrong", "megabytes_printed", "exercises", "alice", " alice",
          "M\\xfcller", '=HYPERLINK("evil.example","y")'}


def _tree_digest(*folders: Path) -> dict[str, str]:
    """Every file under ``folders`` (links not followed) with a hash of its bytes."""
    digest = {}
    for folder in folders:
        for root, _, files in os.walk(folder):
            for name in files:
                path = Path(root, name)
                if path.is_symlink() or not path.is_file():
                    continue
                digest[os.fsdecode(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


def _changed(before: dict, after: dict) -> set[str]:
    return {name for name in set(before) | set(after) if before.get(name) != after.get(name)}


def _ours(session: int, token: str) -> list[str]:
    """Processes this test started, still alive: in the grade command's session, or
    carrying this run's token on their command line.  Nothing else on the host is looked at
    beyond those two facts."""
    found = []
    for process in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            if process.info["status"] == psutil.STATUS_ZOMBIE:
                continue
            cmdline = " ".join(process.info["cmdline"] or [])
            if token in cmdline or os.getsid(process.pid) == session:
                found.append(f"{process.pid}: {cmdline[:120]}")
        except (psutil.Error, OSError):
            continue
    return found


class _Listener(threading.Thread):
    """A TCP server on the host's 127.0.0.1 that records every connection it gets."""

    def __init__(self):
        super().__init__(daemon=True)
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections = 0
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            self.connections += 1
            connection.close()

    def stop(self):
        self.stopped.set()
        self.join()
        self.server.close()


def _words(value) -> set[str]:
    """The strings inside a case's inputs (tables, dicts, lists), as they could be printed."""
    import pandas as pd
    if isinstance(value, pd.DataFrame):
        return {str(x) for x in value.columns} | {str(x) for x in value.to_numpy().ravel()}
    if isinstance(value, dict):
        return set().union(set(), *(_words(k) | _words(v) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return set().union(set(), *(_words(v) for v in value))
    return {value} if isinstance(value, str) else set()


def _hidden_input_words() -> set[str]:
    """Words in exercise 01's hidden inputs.  Its public cases use the same tables (the
    fruit table is public since issue 25), so a page may show these words for a public
    case; a hidden case's message never contains one."""
    exercise = specs.load("01_weather")
    words = set()
    for question in exercise.questions:
        for case in question.cases:
            if case.hidden:
                words |= _words(case.args) | _words(case.kwargs)
    return {w for w in words if len(w) >= 4 and w.isalpha()}


HIDDEN_INPUT_WORDS = _hidden_input_words()


@pytest.fixture(scope="session")
def batch(tmp_path_factory):
    """Grade every fixture once, sandboxed, through the command line, as an instructor would."""
    from nbcourse.datasets import shipped_data_dir

    token = f"nbcourse-test-{secrets.token_hex(6)}"
    folder = tmp_path_factory.mktemp("submissions")
    for source in FIXTURES.glob("*.ipynb"):
        text = source.read_text(encoding="utf-8").replace(make_fixtures.ORPHAN_MARKER, token)
        (folder / source.name).write_text(text, encoding="utf-8")
    listener = _Listener()
    listener.start()
    loopback = folder / "attack_06_loopback.ipynb"
    loopback.write_text(loopback.read_text().replace(make_fixtures.PORT_PLACEHOLDER,
                                                     str(listener.port)))
    make_fixtures.add_uncommittable(folder, REPO / "exercises" / "source" / "01_weather.ipynb")
    watched = [folder, REPO / "exercises", shipped_data_dir()]
    if os.environ.get("NBCOURSE_DATA"):
        watched.append(Path(os.environ["NBCOURSE_DATA"]))
    before = _tree_digest(*watched)
    out = tmp_path_factory.mktemp("grading") / "out"
    command = [sys.executable, "-m", "nbcourse.cli", "grade", "01_weather", str(folder),
               str(RELEASED), "--out", str(out), "--jobs", "2", "--timeout", str(TIMEOUT),
               "--sandbox", "bwrap"]
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=REPO, start_new_session=True)
    stdout, stderr = process.communicate(timeout=900)
    seconds = time.monotonic() - started
    run = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    grades = (out / "grades.csv").read_bytes()
    survivors = _ours(process.pid, token)
    time.sleep(5)
    listener.stop()
    leftovers = [p for p in (Path("/tmp") / f"{token}-filler", Path("/dev/shm") / f"{token}-filler")
                 if p.exists()]
    return {"run": run, "out": out, "seconds": seconds, "survivors": survivors,
            "after_5s": _ours(process.pid, token), "grades": grades,
            "grades_5s": (out / "grades.csv").read_bytes(), "connections": listener.connections,
            "changed": _changed(before, _tree_digest(*watched)),
            "leftovers": leftovers,
            "results": json.loads((out / "results.json").read_text()),
            "rows": list(csv.DictReader((out / "grades.csv").open(encoding="utf-8")))}


def _result(batch, name):
    return next(s for s in batch["results"]["submissions"] if s["submission"] == name)


def test_the_batch_finishes_and_exits_zero(batch):
    assert batch["run"].returncode == 0, batch["run"].stderr[-2000:]
    assert len(batch["results"]["submissions"]) == len(EXPECTED)
    assert batch["results"]["isolation"]["sandbox"] == "bwrap"


#: Rows whose status depends on the machine's speed, and what else they may get.
#: sandbox_07 reads every page of its kernel's memory: on a loaded machine that outlasts
#: this batch's 8 s cell limit; either way it gets none of a classmate's answers.
ALSO_ACCEPTED = {"sandbox_07_copy_previous": {("timed out", 0.0)}}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_submission_gets_its_status_and_score(batch, name):
    status, total = EXPECTED[name]
    result = _result(batch, name)
    found = (result["status"], result["total"])
    assert found == (status, total) or found in ALSO_ACCEPTED.get(name, ()), result["reasons"]
    assert result["maximum"] == 10.0
    if status != "graded":
        assert result["reasons"], "a status other than graded must say why"


def test_honest_rows_are_intact(batch):
    """Graded in the same batch as every attack, the honest rows keep their exact scores."""
    for name in HONEST:
        result = _result(batch, name)
        assert (result["status"], result["total"]) == EXPECTED[name], (name, result["reasons"])


def test_no_file_outside_the_sandboxes_changed(batch):
    """Submissions (row 7), the course folder, the corpora (row 8): all byte for byte."""
    assert batch["changed"] == set()
    assert batch["leftovers"] == []  # row 10: nothing left in the host's /tmp or /dev/shm


def test_nothing_of_any_submission_runs_afterwards(batch):
    assert batch["survivors"] == [] and batch["after_5s"] == []


def test_the_gradebook_is_the_same_five_seconds_later(batch):
    assert batch["grades"] == batch["grades_5s"]  # row 3's daemon cannot rewrite it


def test_no_submission_reached_the_hosts_loopback(batch):
    assert batch["connections"] == 0  # row 6


def test_the_probe_bypasses_ipython_hooks(batch):
    """Row 5: transformers rewrote every probe; the answers are still the stubs'."""
    result = _result(batch, "attack_05_input_transformer")
    # its exec'd text (a literal) binds the four answers: each is flagged as defined where
    # the grader cannot read it (red team 5), and none was answered anyway
    assert result["flags"] and set(result["flags"]) <= {f"q{n}: uses {forbidden.UNREAD}"
                                                        for n in range(1, 5)}
    assert {q["status"] for q in result["questions"]} <= {"not answered", "missing"}


def test_names_links_and_folders_each_get_their_row(batch):
    rows = {row["submission"]: row for row in batch["rows"]}
    assert "M\\xfcller" in rows  # row 11: undecodable bytes shown escaped
    assert "'=HYPERLINK(\"evil.example\",\"y\")" in rows  # neutralised formula
    assert "outside the submissions folder" in rows["attack_13_solution_link"]["reason"]
    assert "another student's file" in rows["attack_13_link_inside"]["reason"]
    assert rows["attack_17_dangling"]["status"] == "dangling link"
    assert "folder" in rows["attack_17_folder"]["reason"]
    feedback = {s["submission"]: s["feedback"] for s in batch["results"]["submissions"]}
    assert feedback["alice"] != feedback[" alice"]  # row 18
    assert len(set(feedback.values())) == len(feedback)
    for page in feedback.values():
        assert (batch["out"] / page).is_file()


def test_hidden_cases_show_no_text_made_from_hidden_inputs(batch):
    """Row 14: exception messages made of the hidden inputs never reach a hidden case."""
    result = _result(batch, "attack_14_revealing_errors")
    hidden = [c for q in result["questions"] for c in q["cases"] if c["hidden"]]
    assert hidden and all(":" not in c["message"] for c in hidden), hidden
    assert "banana" in HIDDEN_INPUT_WORDS
    for case in hidden:
        assert not any(word in case["message"] for word in HIDDEN_INPUT_WORDS), case


@pytest.mark.parametrize("name", ["attack_14_revealing_errors", "attack_18_class_name_leak",
                                  "attack_19_later_public_case", "attack_20_own_exec",
                                  "attack_21_forged_report"])
def test_no_channel_brings_a_hidden_input_to_the_page(batch, name):
    """Issue 23, point 2: error text, class names, a later public case, the student's own
    exec or a patched probe: a hidden case's message is fixed text, never the inputs."""
    result = _result(batch, name)
    page = (batch["out"] / result["feedback"]).read_text()
    assert result["feedback"] and page  # (a public case may quote public inputs, capped)
    for case in (c for q in result["questions"] for c in q["cases"] if c["hidden"]):
        assert "HIDDEN" not in case["message"] and ":" not in case["message"]
        assert not any(word in case["message"] for word in HIDDEN_INPUT_WORDS), case


def test_public_values_come_from_a_kernel_that_has_seen_no_hidden_input(batch):
    """attack_19 answers q2 with what q1's hidden calls saw: its public case ran first."""
    q2 = _result(batch, "attack_19_later_public_case")["questions"][1]
    public = [c["passed"] for c in q2["cases"] if not c["hidden"]]
    assert public and all(public)
    assert not any(c["passed"] for c in q2["cases"] if c["hidden"])


def test_a_forged_reply_fails_only_its_own_questions(batch):
    """Issue 23, point 3: a forged "timed_out": "never" used to make the row a grader error."""
    result = _result(batch, "attack_21_forged_report")
    q1, q2, q3, q4, q5 = result["questions"]
    assert q1["status"] == "unreadable" and (q2["score"], q4["score"], q5["score"]) == (3.0, 1.0, 2.0)
    assert 0 < q3["score"] < 2


def test_a_value_the_comparison_cannot_handle_fails_only_that_case(batch):
    result = _result(batch, "attack_16_fraction_zero")
    p_no = result["questions"][3]
    assert p_no["score"] == 0.0 and "cannot be read" in p_no["cases"][0]["message"]


def test_reasons_name_what_went_wrong(batch):
    assert "not valid JSON" in _result(batch, "not_json")["reasons"][0]
    assert "not a Jupyter notebook" in _result(batch, "not_a_notebook")["reasons"][0]
    assert "predict" in " ".join(_result(batch, "answer_deleted")["reasons"])
    assert "joint_scores" in " ".join(_result(batch, "answer_renamed")["reasons"])
    # a cell is named by its first line of code, as the student sees it in Jupyter
    assert ("the cell starting `from fractions import Fraction` raised NameError: name "
            "'load_wether' is not defined") in _result(batch, "early_exception")["reasons"]
    assert "the cell starting `import signal` did not stop when interrupted" in \
        " ".join(_result(batch, "ignores_sigint")["reasons"])
    assert "predict" in " ".join(_result(batch, "answer_loops")["reasons"])
    assert "kernel died while running the cell starting `import os`" in \
        " ".join(_result(batch, "kernel_killed")["reasons"])
    assert "out of memory" in " ".join(_result(batch, "memory_bomb")["reasons"])
    assert "MB of output" in " ".join(_result(batch, "megabytes_printed")["notes"])
    released = _result(batch, "exercises")
    assert {q["status"] for q in released["questions"]} == {"not answered"}


def test_a_monkeypatched_kernel_does_not_fool_the_grade(batch):
    """It patched numpy, math, Fraction, builtins and nbcourse; its answers are still wrong."""
    monkeypatch, wrong = _result(batch, "monkeypatch"), _result(batch, "wrong")
    assert [q["score"] for q in monkeypatch["questions"]] == \
           [q["score"] for q in wrong["questions"]]
    p_no = monkeypatch["questions"][3]
    # (its value is judged on a hidden case only, issue 34: the message is fixed text)
    assert p_no["status"] == "failed" and p_no["score"] == 0


def test_the_output_folder_is_complete_and_genuine(batch):
    out = batch["out"]
    rows = {row["submission"].lstrip("'"): row for row in batch["rows"]}
    assert set(rows) == set(EXPECTED)
    assert list(batch["rows"][0]) == ["submission", "status", "q1", "q2", "q3", "q4", "q5", "total",
                                      "maximum", "flags", "reason", "overrides", "raw",
                                      "penalty", "days late"]
    assert rows["writes_output"]["total"] == "3.65"  # not the 8 it tried to write
    assert rows["correct"]["total"] == "10"
    assert len(list((out / "feedback").glob("*.html"))) == len(EXPECTED)
    assert "8 / 8" not in (out / "feedback" / "writes_output.html").read_text()
    assert sorted(p.name for p in out.iterdir()) == ["feedback", "grades.csv", "history.jsonl",
                                                     "report.html", "results.json"]


def test_progress_and_summary_are_shown(batch):
    progress = [line for line in batch["run"].stderr.splitlines() if line.startswith("[")]
    assert len(progress) == len(EXPECTED)
    assert progress[-1].startswith(f"[{len(EXPECTED)}/{len(EXPECTED)}]")
    summary = batch["run"].stdout
    assert f"Graded {len(EXPECTED)} submissions of 01_weather" in summary
    assert "gradebook:" in summary and "sandbox: bwrap" in summary


def test_feedback_reveals_no_hidden_expected_value(batch):
    """Wrong answers get reasons, but never the hidden cases' expected values."""
    exercise = specs.load("01_weather")
    page = (batch["out"] / "feedback" / "wrong.html").read_text()
    assert "hidden test: a table with three classes" in page
    for question in exercise.questions:
        for case, expected in zip(question.cases, question.expected()):
            if not case.hidden:
                continue
            values = expected.values() if isinstance(expected, dict) else [expected]
            for value in values:
                if isinstance(value, Fraction) and value not in (0, 1):
                    assert f"{value.numerator}/{value.denominator}" not in page
                    assert f"{float(value):.4f}" not in page
    for code in ("run_hidden_tests", "BEGIN HIDDEN", "FRUIT", "ref_joint_scores"):
        assert code not in page


def test_grading_twice_gives_the_same_result(tmp_path):
    paths = [FIXTURES / "correct.ipynb", FIXTURES / "wrong.ipynb", FIXTURES / "early_exception.ipynb"]
    first = grade_batch("01_weather", paths, tmp_path / "a", jobs=2, timeout=30, progress=None)
    second = grade_batch("weather", paths, tmp_path / "b", jobs=1, timeout=30, progress=None)
    assert [r.to_json() for r in first.results] == [r.to_json() for r in second.results]
    assert (tmp_path / "a" / "grades.csv").read_bytes() == (tmp_path / "b" / "grades.csv").read_bytes()


def test_the_committed_fixtures_are_what_the_script_writes():
    for name, text in make_fixtures.build().items():
        assert (FIXTURES / name).read_text(encoding="utf-8") == text, \
            f"{name} is stale: run python tests/fixtures/submissions/make_fixtures.py"


def test_flagged_answers_lose_their_points(tmp_path):
    """An answer that calls CategoricalNB is right, but flagged and worth nothing."""
    path = tmp_path / "uses_the_estimator.ipynb"
    path.write_text(make_fixtures.render(make_fixtures.uses_the_estimator()), encoding="utf-8")
    batch = grade_batch("01_weather", [path], tmp_path / "out", jobs=1, progress=None)
    (result,) = batch.results
    likelihood, joint, predict, p_no, *others = result.questions
    assert likelihood.score == 2.0 and not likelihood.flags
    # CategoricalNB raises for a query value it never saw, which gives 0 (the case since
    # red team 5's student 19): its one failing case
    assert [case.name for case in joint.cases if not case.passed] == \
        ["a query value the table never shows"]
    assert joint.score == 0.0 and joint.flags == ["uses CategoricalNB"]
    # predict and p_no reach CategoricalNB through joint_scores, flagged for it: the flag
    # stays there, and they keep their points (follow-through, right with the right
    # joint_scores in place)
    assert predict.flags == p_no.flags == [] and predict.score == 2.0 and p_no.score == 1.0
    assert result.total == 2.0 + 0.0 + 2.0 + 1.0 + sum(q.score for q in others) \
        and result.status == "graded"
    assert (joint.withheld, predict.withheld) == (2.73, 0.0)  # 10 of its 11 cases
    row = (tmp_path / "out" / "grades.csv").read_text().splitlines()[1]
    assert "q2: uses CategoricalNB" in row
    page = (tmp_path / "out" / "feedback" / "uses_the_estimator.html").read_text()
    assert "<code>joint_scores</code> &mdash; " \
        '<span class="fail">flagged</span>: it uses CategoricalNB' in page
    assert "so it scores 0 of 3 points. Its tests on their own: partly passed." in page
    assert "&mdash; passed" not in page.split("<h2>q2")[1].split("<h2>")[0]


@pytest.mark.parametrize("exercise", ["02_smoothing", "03_mle", "04_linearity", "05_spam",
                                      "08_beyond_naive"])
def test_every_solution_scores_full_marks_and_every_release_zero(tmp_path, exercise):
    """The grader agrees with the instructor's solution, and gives nothing for the stubs."""
    source = REPO / "exercises" / "source" / f"{exercise}.ipynb"
    notebook = json.loads(source.read_text())
    notebook["cells"] = [c for c in notebook["cells"]
                         if "BEGIN HIDDEN TESTS" not in "".join(c["source"])]
    solved = tmp_path / "solved.ipynb"
    solved.write_text(json.dumps(notebook))
    released = REPO / "exercises" / f"{exercise}.ipynb"
    batch = grade_batch(exercise, [solved, released], tmp_path / "out", jobs=1, progress=None)
    by_name = {r.submission: r for r in batch.results}
    assert by_name["solved"].status == "graded", by_name["solved"].reasons
    assert by_name["solved"].total == batch.exercise.maximum
    assert by_name["exercises"].total == 0.0  # named by its folder
    assert by_name["exercises"].status in ("answer missing", "graded")


def test_a_worker_that_dies_becomes_a_grader_error_row_and_is_replaced(tmp_path):
    """The machinery itself failing must still give a row, never a crash or a gap."""
    from nbcourse.grading.workers import Worker
    from nbcourse.grading.execution.limits import GradingLimits
    from nbcourse.grading.execution.sandbox import SandboxConfig

    exercise = specs.load("01_weather")
    token = f"nbcourse-test-{secrets.token_hex(6)}"  # only this test's processes carry it
    job = {"id": 1, "path": str(FIXTURES / "correct.ipynb"), "plan": exercise.probe_plan()}
    worker = Worker(tmp_path, token, SandboxConfig("off", limits=GradingLimits(cell_timeout=30)))
    worker.start()
    try:
        killed = worker.grade(job, deadline=0.01)  # the watchdog kills it mid-job
        assert "stopped unexpectedly" in killed["grader_error"]
        again = worker.grade(dict(job, id=2), deadline=120)  # a fresh worker takes over
        assert again["kernel"] == "ok" and not again["problems"]
        broken = worker.grade(dict(job, id=3, plan={"no": "questions"}), deadline=120)
        assert "KeyError" in broken["grader_error"]
    finally:
        worker.close()
    from nbcourse.grading.execution.processes import kill_processes_with_token
    kill_processes_with_token(token)  # an unsandboxed kernel may outlive its killed worker



def test_a_failure_of_the_grader_says_where_and_logs_its_traceback(capsys):
    """Review of issue 36: the worker added a ``traceback`` to the report, which
    ``RunReport.from_json`` drops: where the grader failed was lost.  The row's grader error
    now names the place, and the worker's log (its stderr) holds the traceback."""
    from types import SimpleNamespace

    from nbcourse.grading.execution import worker
    from nbcourse.grading.execution.limits import GradingLimits
    from nbcourse.grading.execution.report import RunReport
    from nbcourse.grading.execution.sandbox import SandboxConfig

    def broken_scan(cells, plan):
        raise ValueError("the scan broke")

    after = []
    kernels = SimpleNamespace(take=None, after_submission=lambda: after.append(True))
    job = {"id": 1, "path": str(FIXTURES / "correct.ipynb"),
           "plan": specs.load("01_weather").probe_plan()}
    config = SandboxConfig("off", limits=GradingLimits.from_options())
    reply = worker.grade_job(job, config, kernels, broken_scan)
    error = RunReport.from_json(reply).grader_error
    assert error.startswith("ValueError: the scan broke (at test_grading_batch.py:"), error
    assert error.endswith(", broken_scan)") and after == [True]
    log = capsys.readouterr().err
    assert "Traceback (most recent call last)" in log and "the scan broke" in log

# ------------------------------------------------------------------ round two (issues 23, 26)
#: Fixtures whose code touches nothing outside its own kernel, so they may be graded with
#: ``--sandbox off`` on a shared machine.  The others attack the machine itself (they kill
#: every process named nbcourse or ipykernel, overwrite every notebook and gradebook they
#: can reach, rewrite the corpora, plant a .pth in the environment): graded unconfined
#: they would do exactly that, so they are graded only in the sandbox.
SAFE_UNCONFINED = {
    "correct", "wrong", "not_json", "not_a_notebook", "empty", "answer_deleted",
    "answer_renamed", "early_exception", "infinite_loop", "ignores_sigint", "answer_loops",
    "kernel_killed", "memory_bomb", "megabytes_printed", "monkeypatch", "orphan_child",
    "attack_05_input_transformer", "attack_09_memory_children", "attack_14_revealing_errors",
    "attack_15_quit_at_end", "attack_16_fraction_zero", "sandbox_02_memory_forks",
    "sandbox_05_poison_next", "sandbox_06_stop_server",
}


def test_sandbox_off_grades_every_safe_fixture_as_the_sandbox_does(batch, tmp_path):
    """Issue 26: one launcher and one kernel environment for every mode, so a submission
    gets the same status and points with and without bubblewrap (quit() at the end was
    "kernel died", 7 points, without a sandbox and "graded", 8, with one)."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    for name in SAFE_UNCONFINED:
        text = (FIXTURES / f"{name}.ipynb").read_bytes()
        (folder / f"{name}.ipynb").write_bytes(text)
    unconfined = grade_batch("01_weather", [folder], tmp_path / "out", jobs=2,
                             timeout=TIMEOUT, sandbox="off", progress=None)
    got = {r.submission: (r.status, r.total) for r in unconfined.results}
    sandboxed = {name: (_result(batch, name)["status"], _result(batch, name)["total"])
                 for name in SAFE_UNCONFINED}
    assert got == sandboxed
    assert got == {name: EXPECTED[name] for name in SAFE_UNCONFINED}


def test_four_forks_over_the_limit_meet_the_oom_killer_and_classmates_keep_full_marks(tmp_path):
    """Row 5: 4 x 300 MB held at once passes a per-process limit of 1 GB; the sandbox's
    memory cgroup counts the sum, its OOM killer picks the attacker's own processes, and
    the classmates graded alongside keep their 8 points.

    Where the machine offers no memory cgroup (an ordinary user's grader here), memory is
    limited per process only, as the README says: results.json says so ("rlimit only"),
    the attacker's sum is not bounded, and the classmates still keep full marks."""
    from nbcourse.grading.execution import cgroups

    offered = cgroups.find_parents()  # what this machine offers whoever runs the tests
    cgroups.remove_parents(offered)
    folder = tmp_path / "submissions"
    folder.mkdir()
    (folder / "attacker.ipynb").write_bytes((FIXTURES / "sandbox_02_memory_forks.ipynb").read_bytes())
    for number in range(3):
        (folder / f"classmate{number}.ipynb").write_bytes((FIXTURES / "correct.ipynb").read_bytes())
    result = grade_batch("01_weather", [folder], tmp_path / "out", jobs=2, timeout=30,
                         memory_mb=1024, sandbox="bwrap", progress=None)
    rows = {r.submission: (r.status, r.total) for r in result.results}
    assert all(rows[f"classmate{n}"] == ("graded", 10.0) for n in range(3)), rows
    recorded = json.loads((tmp_path / "out" / "results.json").read_text())["limits"]["enforced"]
    if offered.get("memory"):
        assert rows["attacker"][0] == "memory limit", rows
        assert recorded["mechanism"].startswith("cgroup")
    else:
        assert os.geteuid() != 0, "root has memory cgroups on this machine"
        assert recorded["mechanism"].startswith("rlimit only"), recorded
        assert "attacker" in rows


def _new_entries(before: set[str]) -> set[str]:
    return {name for name in os.listdir(tempfile.gettempdir())
            if name.startswith("nbcourse-")} - before


def test_a_worker_killed_at_its_deadline_leaves_no_process_and_no_folder(tmp_path, monkeypatch):
    """Rows 6 and 7: the batch kills a worker whose sandbox is still busy.  Every process
    of that sandbox dies with it (nothing relies on the inside: not its environment, not
    its death signal), and the worker's folder (connection file with the HMAC key,
    sockets) goes with the batch's.  In a temporary folder of its own, so that another
    grading run on the machine meanwhile cannot be taken for a leftover of this one."""
    from nbcourse.grading.workers import Worker
    from nbcourse.grading.execution.limits import GradingLimits
    from nbcourse.grading.execution.sandbox import make_config, release, remove_tree

    private = Path(tempfile.mkdtemp(prefix="nbcourse-deadline-"))
    os.chmod(private, 0o711)  # the sandbox's user (nobody, as root) reaches its channel
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    monkeypatch.setenv("TMPDIR", str(private))
    before = {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("nbcourse-")}
    limits = GradingLimits(cell_timeout=60, total_timeout=300)
    config = make_config("bwrap", limits, course_folders())
    scratch = Path(tempfile.mkdtemp(prefix="nbcourse-batch-"))
    os.chmod(scratch, 0o711)
    token = f"nbcourse-test-{secrets.token_hex(6)}"
    exercise = specs.load("01_weather")
    worker = Worker(scratch, token, config)
    worker.start()
    try:
        job = {"id": 1, "path": str(FIXTURES / "infinite_loop.ipynb"),
               "plan": exercise.probe_plan()}
        started = time.monotonic()
        killed = worker.grade(job, deadline=8)  # the watchdog kills it mid-notebook
        assert "stopped unexpectedly" in killed["grader_error"]
        assert time.monotonic() - started < 60
        time.sleep(0.5)
        members = [Path(root, "cgroup.procs").read_text().split()
                   for key in ("memory", "pids") if config.cgroups.get(key)
                   for root, _, _ in os.walk(config.cgroups[key])]
        assert all(m == [] for m in members), members  # nothing left in any sandbox's cgroup
    finally:
        worker.close()
        left = release(config)
        remove_tree(scratch)
    assert left == 0
    assert not scratch.exists()
    assert _new_entries(before) == set() and os.listdir(private) == []
    private.rmdir()


LOCKED_TREE = r"""
import json, os, shutil, sys, tempfile
from nbcourse.grading.execution.sandbox import remove_tree

def locked_tree():
    root = tempfile.mkdtemp(prefix="channel-", dir=sys.argv[1])
    inner = os.path.join(root, "locked", "inner")
    os.makedirs(inner)
    with open(os.path.join(inner, "kept.txt"), "w") as handle:
        handle.write("still here")
    os.chmod(inner, 0)
    os.chmod(os.path.join(root, "locked"), 0)
    return root

plain = locked_tree()
shutil.rmtree(plain, ignore_errors=True)  # what the grader did before
ours = locked_tree()
remove_tree(ours)
print(json.dumps({"uid": os.getuid(), "plain_left": os.path.exists(plain),
                  "ours_left": os.path.exists(ours)}))
"""


def test_an_ordinary_user_grader_removes_folders_of_mode_000(tmp_path):
    """Row 7, as an ordinary user (nobody when the tests run as root, else their own
    user): folders of mode 000 that a kernel made in its channel survive
    ``rmtree(ignore_errors=True)``; the grader's removal takes them too."""
    folder = Path(tempfile.mkdtemp(prefix="nbcourse-nobody-"))
    try:
        command = [sys.executable, "-c", LOCKED_TREE, str(folder)]
        if os.geteuid() == 0:
            os.chown(folder, 65534, 65534)
            command = as_nobody(command, tmp_path)
        run = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr[-2000:]
        found = json.loads(run.stdout.strip().splitlines()[-1])
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)
    assert found["uid"] == (65534 if os.geteuid() == 0 else os.geteuid()) != 0
    assert found["plain_left"]  # the finding: the old removal left it behind
    assert not found["ours_left"]


def test_a_linked_or_swapped_student_folder_gets_no_marks_from_the_solution(tmp_path):
    """Issue 33, item 4, with the README's glob: carol's folder is a link to the solutions
    from the start; bob swaps his for one after collection, while alice is being graded.
    Neither scores the solution's marks: carol's row says why, bob's is his blank copy."""
    solutions = tmp_path / "source"
    solutions.mkdir()
    (solutions / "01_weather.ipynb").write_bytes((FIXTURES / "correct.ipynb").read_bytes())
    submitted = tmp_path / "submitted"
    for student in ("alice", "bob"):
        (submitted / student).mkdir(parents=True)
        (submitted / student / "01_weather.ipynb").write_bytes(RELEASED.read_bytes())
    (submitted / "carol").symlink_to(solutions, target_is_directory=True)

    def swap(result):
        if result.submission == "alice":
            (submitted / "bob").rename(submitted / "bob.old")
            (submitted / "bob").symlink_to(solutions, target_is_directory=True)

    paths = sorted(submitted.glob("*/01_weather.ipynb"))
    batch = grade_batch("01_weather", paths, tmp_path / "out", jobs=1, timeout=TIMEOUT,
                        progress=None, on_result=swap)
    rows = {r.submission: r for r in batch.results}
    assert (submitted / "bob").is_symlink()  # the swap did happen during the batch
    assert rows["carol"].status == "link outside submissions" and rows["carol"].total == 0
    assert "symbolic link" in rows["carol"].reasons[0]
    assert rows["bob"].total == rows["alice"].total == 0
    assert rows["bob"].status == rows["alice"].status != "link outside submissions"
