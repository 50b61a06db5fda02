"""Everything that comes back from a student's kernel is untrusted (issue 23, points 2-4, 8).

The hostile notebooks (``attack_18`` to ``attack_21``) are graded in the sandboxed batch
of ``test_grading_batch.py``; these tests hold the pieces one by one: replies bounded
before they are parsed, checked field by field, hidden cases in fixed words, and the
probes inside the notebook's time.
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
from pathlib import Path

import nbformat
import pytest

from nbcourse.grading import specs
from nbcourse.grading.course_folders import course_folders
from nbcourse.grading.execution.report import KernelOutcome, RunReport
from nbcourse.grading.execution.limits import MB, GradingLimits
from nbcourse.grading.execution.connection import bounded_context
from nbcourse.grading.execution.runner import (_notebook_client_class, checked_reply,
                                               parse_probe_result, run_submission)
from nbcourse.grading.forbidden import flagged_answers
from nbcourse.grading.scoring import HIDDEN_RAISED, score

from submission_support import perfect_probes, perfect_swaps

EXERCISE = specs.load("01_weather")
EXPECTED = EXERCISE.expected()
MARK = "@@nbcourse-test@@"
REPLY_CHARS = GradingLimits().reply_mb * MB


def _reply_text(report: dict) -> dict:
    """A user expression's result as an honest probe's reply would arrive."""
    body = base64.b64encode(json.dumps(report).encode()).decode()
    return {"status": "ok", "data": {"text/plain": repr(MARK + body + MARK)}}


def _perfect_probes():
    return perfect_probes(EXERCISE)


def _score(probes):
    report = RunReport.from_json({"notebook": "ok", "probes": probes,
                                  "follow_through": perfect_swaps(EXERCISE)})
    return score(EXERCISE, EXPECTED, report, "s", "s.ipynb")


# ----------------------------------------------------------------- point 4: bounded
def test_an_oversized_reply_is_refused_before_it_is_parsed():
    text = "'" + MARK + "A" * REPLY_CHARS + MARK + "'"
    reply = parse_probe_result({"status": "ok", "data": {"text/plain": text}}, MARK, REPLY_CHARS)
    assert "larger than" in reply["unreadable_report"]


def test_a_reply_cannot_speak_in_the_graders_words():
    forged = _reply_text({"unreadable_report": "made by the kernel"})
    assert parse_probe_result(forged, MARK, REPLY_CHARS) == {"unreadable_report": "the probe's reply is malformed"}


def test_a_reply_is_read_with_json_not_a_python_parser():
    report = {"question": "q4", "name": "p_no", "value": [[1, 2]] * 1000}
    assert parse_probe_result(_reply_text(report), MARK, REPLY_CHARS) == report
    # a Python literal that is not base64 JSON between the markers is not read at all
    literal = {"status": "ok", "data": {"text/plain": repr(MARK + repr([[1, 2]] * 10) + MARK)}}
    assert "unreadable_report" in parse_probe_result(literal, MARK, REPLY_CHARS)


def test_zeromq_drops_a_message_above_the_bound_before_the_grader_reads_it(tmp_path):
    """The grader's sockets refuse what no reply needs: the kernel cannot fill its memory."""
    import asyncio

    import zmq

    async def receive() -> list[int]:
        kernel = zmq.Context()
        grader = bounded_context(GradingLimits())
        sender = kernel.socket(zmq.PUSH)
        sender.linger = 0
        url = f"ipc://{tmp_path}/channel"
        sender.bind(url)
        receiver = grader.socket(zmq.PULL)
        receiver.connect(url)
        sizes = []
        try:
            sender.send(b"small")
            sender.send(b"x" * (GradingLimits().message_mb * MB + 1))
            while await receiver.poll(1500):
                sizes.append(len(await receiver.recv()))
        finally:
            receiver.close(linger=0)
            sender.close()
            grader.destroy(linger=0)
            kernel.destroy(linger=0)
        return sizes

    assert asyncio.run(receive()) == [5]


def test_an_error_a_cell_raises_is_kept_cut_and_without_its_traceback():
    client = _notebook_client_class()(nbformat.v4.new_notebook())
    client.reset_execution_trackers()  # what nbclient does before running a notebook
    client.clear_before_next_output = False  # and before running a cell
    outs = []
    huge = "x" * 2**20
    msg = {"msg_type": "error", "header": {"msg_type": "error"}, "parent_header": {},
           "metadata": {}, "content": {"ename": "ValueError", "evalue": huge,
                                       "traceback": [huge] * 5}}
    for _ in range(10):
        client.output(outs, msg, None, 0)
    assert len(outs) == 3  # a flood of errors is not kept
    assert all(len(o["evalue"]) <= 2000 and o["traceback"] == [] for o in outs)


# ----------------------------------------------------------------- point 3: checked
FORGED = [
    {"timed_out": "never"},
    {"not_run": 5},
    {"unreadable_report": ["x"]},
    {"question": "q1", "name": "likelihood", "timed_out": "never"},
    {"question": "q1", "name": "likelihood", "cases": "abc"},
    {"question": "q1", "name": "likelihood", "not_callable": {"a": 1}},
    {"question": "q1", "name": "likelihood", "missing": "yes", "cases": [5] * 6},
    {"question": "q1", "name": "likelihood",
     "cases": [5, {"value": {"$fraction": "x"}}, {"error": 5}, {"value": {"$dict": 3}},
               {"value": 1, "error": "two keys"}, {"not_run": ["timeout"]}]},
    ["not", "a", "dict"],
]


@pytest.mark.parametrize("forged", FORGED, ids=range(len(FORGED)))
def test_a_forged_field_fails_its_question_only(forged):
    probes = _perfect_probes()
    probes["q1"] = forged
    result = _score(probes)
    assert result.status != "grader error"
    assert result.questions[0].score == 0.0
    assert [q.score for q in result.questions[1:]] == [q.points for q in EXERCISE.questions[1:]]


@pytest.mark.parametrize("forged", FORGED, ids=range(len(FORGED)))
def test_the_runner_keeps_only_fields_of_the_right_type(forged):
    request = {"question": "q1", "name": "likelihood", "kind": "function",
               "cases": [{"args": [], "kwargs": {"$dict": []}}] * 6}
    checked = checked_reply(forged if isinstance(forged, dict) else {}, request)
    allowed = {"question", "name", "missing", "not_callable", "cases", "unreadable_report"}
    assert set(checked) <= allowed
    for outcome in checked.get("cases", []):
        (key, body), = outcome.items()
        assert key in ("value", "error", "unreadable", "grader_error", "malformed")
        assert key == "value" or key == "malformed" or isinstance(body, str)


# ----------------------------------------------------------------- point 2: fixed words
def test_a_hidden_case_shows_no_text_the_kernel_made():
    secret = "banana cherry lemon"
    probes = _perfect_probes()
    q1 = EXERCISE.question("q1")
    q3 = EXERCISE.question("q3")
    hidden1 = [i for i, c in enumerate(q1.cases) if c.hidden]
    hidden3 = [i for i, c in enumerate(q3.cases) if c.hidden]
    forms = [{"value": {"$unsupported": secret}}, {"grader_error": secret},
             {"unreadable": secret}, {"error": f"{secret}: x"}]
    for index, form in zip(hidden1, forms):
        probes["q1"]["cases"][index] = form
    probes["q3"]["cases"][hidden3[0]] = {"value": secret}  # a string where a label is due
    probes["q3"]["cases"][hidden3[1]] = {"value": [secret]}
    result = _score(probes)
    messages = [c.message for q in result.questions for c in q.cases if c.hidden]
    assert messages and not any("banana" in m for m in messages), messages
    public = next(i for i, c in enumerate(q1.cases) if not c.hidden)
    probes["q1"]["cases"][public] = {"value": {"$unsupported": "x" * 10_000}}
    assert len(_score(probes).questions[0].cases[public].message) < 300


def test_which_exception_a_hidden_case_raised_is_not_shown():
    """Issue 33, item 5: a builtin exception chosen per hidden input carried ~6 bits a case."""
    from nbcourse.grading.hidden import grade_answer
    kinds = [KeyError, ValueError, ZeroDivisionError, OSError, LookupError, IndexError,
             TypeError, MemoryError, RecursionError, UnicodeError]

    def likelihood(table, feature, value, target, label):  # the class chosen by the input
        raise kinds[(len(table) * 7 + len(str(value)) * 3 + len(str(label))) % len(kinds)]()

    result = grade_answer(EXERCISE, "q1", likelihood)
    hidden = [case.message for case in result.cases if case.hidden]
    assert len(hidden) > 1 and set(hidden) == {HIDDEN_RAISED}, hidden
    assert not any(kind.__name__ in message for kind in kinds for message in hidden)
    public = [case.message for case in result.cases if not case.hidden]
    assert any("Error" in message for message in public)  # the student's own cases still say


# ----------------------------------------------------------------- point 8: in time
SLOW = """
import time

def likelihood(table, feature, value, target, label):
    time.sleep(3.5)
    return 0

def joint_scores(table, query, target):
    time.sleep(3.5)
    return {}

def predict(table, query, target):
    time.sleep(3.5)
    return ""

p_no = 0
time.sleep(2)
"""


def test_a_slow_notebook_is_timed_out_within_its_time_sandboxed(tmp_path):
    """Probes fit in the notebook's own time: a slow notebook's row says timed out, and
    the run ends near its limit (the batch kills a worker 120 s after it: a grader error)."""
    from nbcourse.grading.execution.sandbox import make_config, release, remove_tree
    from nbcourse.grading.execution.worker import KernelServers

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SLOW)])
    path = tmp_path / "slow.ipynb"
    path.write_text(nbformat.writes(notebook))
    limits = GradingLimits(cell_timeout=4.0, total_timeout=8.0, interrupt_grace=1.0)
    config = make_config("bwrap", limits, course_folders())
    base = Path(tempfile.mkdtemp(prefix="nbcourse-grading-"))
    os.chmod(base, 0o711)  # the sandbox's user reaches its channel through it
    kernels = KernelServers(config, base, "token")
    try:
        ready = kernels.take()  # started now: only the notebook's own time is measured
        report = run_submission(path, EXERCISE.probe_plan(), limits, lambda: ready,
                                scan_source=flagged_answers)
    finally:
        kernels.close()
        release(config)
        remove_tree(base)
    assert report.kernel is KernelOutcome.TOO_SLOW, report.kernel_reason
    # every probe would time out: without a budget they took 4 x (4 + 1 + 1) s more
    assert report.seconds < limits.total_timeout + 3 * limits.interrupt_grace + 8, report.seconds
    result = score(EXERCISE, EXPECTED, report, "slow", "slow.ipynb")
    assert result.status == "timed out" and "8 s in total" in " ".join(result.reasons)


# ----------------------------------------------------------------- point 4: the worker's memory
def test_a_kernel_that_floods_its_worker_loses_its_own_row_only(tmp_path):
    """Row 4, last item: one message of 100 parts of 15 MB (each under ZeroMQ's size limit)
    would take the grading worker to 1.5 GB.  The worker has a memory limit of its own
    (from ``GradingLimits``, recorded in results.json): the message is refused there,
    the row says why, and the classmates graded next by the same worker keep 10 of 10."""
    from nbcourse.grading.batch import grade_batch

    folder = tmp_path / "submitted"
    folder.mkdir()
    fixtures = Path(__file__).parents[1] / "fixtures" / "submissions"
    shutil.copyfile(fixtures / "attack_22_worker_flood.ipynb", folder / "a_flood.ipynb")
    for name in ("b_classmate", "c_classmate"):
        shutil.copyfile(fixtures / "correct.ipynb", folder / f"{name}.ipynb")
    batch = grade_batch("01_weather", [folder], tmp_path / "out", jobs=1, sandbox="bwrap",
                        progress=None)
    rows = {r.submission: r for r in batch.results}
    flood = rows["a_flood"]
    assert flood.status == "kernel died", (flood.status, flood.reasons)
    assert "more than it reads" in " ".join(flood.reasons)
    assert f"{GradingLimits().worker_memory_mb} MB the grading worker may hold" in \
        " ".join(flood.reasons)
    assert [(rows[n].status, rows[n].total) for n in ("b_classmate", "c_classmate")] == \
        [("graded", 10.0)] * 2
    limits = json.loads((tmp_path / "out" / "results.json").read_text())["limits"]
    assert limits["worker_memory_mb"] == GradingLimits().worker_memory_mb
    assert "RLIMIT_DATA" in limits["enforced"]["worker_memory"]


# ----------------------------------------------------------------- the stub's NotImplementedError
STUB_CELLS = [
    "raise NotImplementedError()",                        # a value question's stub
    "def likelihood(table, feature, value, target, label):\n    raise NotImplementedError()",
    "likelihood(None, 'a', 'b', 'c', 'd')",               # the stub, called from a cell
    "import logging\nlogging.Handler().emit(None)",       # a library's, with a message
    "import asyncio\nasyncio.AbstractEventLoop().run_forever()",  # a library's bare one
]


def test_only_the_exercise_stub_is_not_answered_yet_in_a_cell_or_a_probe(tmp_path):
    """One rule (probe_source.is_stub_raise): the stub's bare raise from the student's own
    code is "not answered yet"; a library's NotImplementedError is a cell error."""
    from nbcourse.grading.execution.sandbox import make_config, release, remove_tree
    from nbcourse.grading.execution.worker import KernelServers

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in STUB_CELLS])
    path = tmp_path / "stubs.ipynb"
    path.write_text(nbformat.writes(notebook))
    limits = GradingLimits()
    config = make_config("off", limits, course_folders())
    base = Path(tempfile.mkdtemp(prefix="nbcourse-grading-"))
    kernels = KernelServers(config, base, "token")
    try:
        report = run_submission(path, EXERCISE.probe_plan(), limits, kernels.take,
                                scan_source=flagged_answers)
    finally:
        kernels.close()
        release(config)
        remove_tree(base)
    assert [(p.cell, p.not_implemented) for p in report.problems] == \
        [(1, True), (3, True), (4, False), (5, False)], report.problems
    result = score(EXERCISE, EXPECTED, report, "s", "s.ipynb")
    assert "cell error" in result.status, result.status
    text = " ".join(result.reasons + result.notes)
    assert "emit must be implemented" in text and text.count("not answered yet") == 2, text
    q1 = next(q for q in result.questions if q.name == "likelihood")
    assert q1.status == "not answered", q1


def _library_refusal(*args):
    raise NotImplementedError  # stands for a library's abstract method: not the student's


def test_the_stub_rule_in_the_kernel_holds_only_for_the_answers_own_bare_raise():
    from nbcourse.grading.execution.probe_source import (STUB_RAISED, _call_case,
                                                         raised_by_stub)

    def stub(*args):
        raise NotImplementedError()

    def calls_a_library(*args):
        return _library_refusal(*args)

    def says_why(*args):
        raise NotImplementedError("sparse matrices are not supported")

    class Own(NotImplementedError):
        pass

    def raises_a_subclass(*args):
        raise Own()

    class Prickly:  # a callable whose attributes raise: still an error, never a crash
        def __getattr__(self, name):
            raise RuntimeError(name)

        def __call__(self, *args):
            raise NotImplementedError()

    case = {"args": {"$tuple": []}}
    assert _call_case(stub, case) == {"error": STUB_RAISED}
    assert _call_case(Prickly(), case) == {"error": "NotImplementedError: "}
    for answer in (calls_a_library, says_why, raises_a_subclass):
        outcome = _call_case(answer, case)
        assert set(outcome) == {"error"} and outcome["error"] != STUB_RAISED
        try:
            answer()
        except Exception as error:  # noqa: BLE001
            assert not raised_by_stub(error, answer)


def test_a_library_bare_not_implemented_error_is_an_error_in_scoring_and_check():
    from nbcourse.grading.selfcheck import Checker

    probes = _perfect_probes()
    probes["q1"]["cases"] = [{"error": "NotImplementedError: "}] * len(probes["q1"]["cases"])
    q1 = next(q for q in _score(probes).questions if q.id == "q1")
    assert q1.status != "not answered" and "not answered yet" not in str(q1), q1

    def calls_a_library(*args):
        return _library_refusal(*args)

    said = str(Checker("01_weather").run("q1", calls_a_library))
    assert "not answered yet" not in said and "raised NotImplementedError" in said, said
