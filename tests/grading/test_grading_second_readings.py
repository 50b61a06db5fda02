"""Second readings made only where they can change a mark (issue 38, exercise 05's speed).

The follow-through and swap probes are a run's most expensive part on exercise 05 (its
cells run again on the SMS messages).  The batch now tells the worker, from the run's
ordinary readings, which of them ``credit`` and ``judge_swaps`` would read
(``scoring.second_readings``); the others are not made.  These tests show that leaving
them out changes no mark, no status and no word of feedback, on every kind of reading,
and that the worker makes exactly the second readings it is told.
"""
from __future__ import annotations

import asyncio
import copy
import dataclasses
import functools

import pytest

from nbcourse.grading import specs
from nbcourse.grading.execution.report import RunReport
from nbcourse.grading.scoring import score, second_readings
from nbcourse.grading.swaps import key

from submission_support import encoded_value, perfect_probes, perfect_swaps

#: the exercises whose plan has second readings, and so a question for the batch
WITH_SECOND_READINGS = [name for name in specs.available()
                        if specs.load(name).probe_plan()["follow_through"]]


def _mistaken(question):
    """The question's reply as its first known mistake gives it, or None."""
    for mistake in question.mistakes:
        try:
            values = [mistake.reference(*c.args, **c.kwargs) for c in question.cases]
        except Exception:  # noqa: BLE001 - a mistake that predicts nothing on some case
            continue
        reply = {"question": question.id, "name": question.name}
        if question.kind == "value":
            return dict(reply, **encoded_value(values[0]))
        return dict(reply, cases=[encoded_value(v) for v in values])
    return None


def _broken(question, how):
    reply = {"question": question.id, "name": question.name}
    if how == "missing":
        return dict(reply, missing=True)
    if question.kind == "value":
        return dict(reply, value="not a number")
    error = {"error": "ZeroDivisionError: division by zero"}
    return dict(reply, cases=[error] * len(question.cases))


def _readings(exercise):
    """Ordinary readings: right, each question wrong in each way, two wrong at once."""
    perfect = perfect_probes(exercise)
    yield "all right", perfect
    for question in exercise.questions:
        for how in ("mistake", "missing", "wrong"):
            reply = _mistaken(question) if how == "mistake" else _broken(question, how)
            if reply is not None:
                yield f"{question.id} {how}", dict(perfect, **{question.id: reply})
    for question in exercise.questions:  # wrong, or missing, through a wrong callee
        for callee in exercise.callees(question):
            for how in ("wrong", "missing"):
                yield f"{callee.id} wrong, {question.id} {how}", dict(
                    perfect, **{callee.id: _broken(callee, "wrong"),
                                question.id: _broken(question, how)})
    yield "every answer wrong", {q.id: _broken(q, "wrong") for q in exercise.questions}


#: how a follow-through reading comes back: right (the answer as the solutions give it),
#: as the ordinary one, or wrong whatever the ordinary one was (a right answer that made up
#: for a wrong callee's mistake)
SECOND = ("right", "as ordinary", "wrong")


@functools.lru_cache(maxsize=None)
def _perfect_and_plan(name: str):
    """The right readings and the plan of an exercise, worked out once (they are the same
    for every combination the test tries)."""
    exercise = specs.load(name)
    return perfect_probes(exercise), exercise.probe_plan(), perfect_swaps(exercise)


def _second(exercise, ordinary, right: str, swapped_right: bool) -> dict:
    """Every second reading a run could make: the follow-through readings as ``right``
    says (``SECOND``); the swaps followed or not."""
    replies = {}
    perfect, plan, swaps = _perfect_and_plan(exercise.name)
    for request in plan["follow_through"]:
        if "key" not in request:  # a follow-through reading (a swap's has a key)
            qid = request["question"]
            replies[qid] = perfect[qid] if right == "right" else ordinary[qid] \
                if right == "as ordinary" else _broken(exercise.question(qid), "wrong")
    swaps = copy.deepcopy(swaps)
    if not swapped_right:  # a value typed in: the same whatever the functions
        for reply in swaps.values():
            if "value" in ordinary[reply["question"]]:
                reply["value"] = ordinary[reply["question"]]["value"]
    replies.update(swaps)
    return replies


def _report(ordinary, second=None) -> RunReport:
    return RunReport.from_json({"notebook": "ok", "problems": [], "kernel": "ok",
                                "memory_error": False, "probes": ordinary, "forbidden": {},
                                "output_bytes": 0, "follow_through": second or {}})


@pytest.mark.parametrize("name", WITH_SECOND_READINGS)
def test_leaving_out_the_second_readings_the_batch_does_not_ask_for_changes_nothing(name):
    exercise = specs.load(name)
    expected = exercise.expected()
    compared = 0
    for label, ordinary in _readings(exercise):
        wanted = set(second_readings(exercise, expected, _report(ordinary)))
        for right in SECOND:
            for swapped_right in (True, False):
                every = _second(exercise, ordinary, right, swapped_right)
                asked = {k: v for k, v in every.items() if k in wanted}
                full = score(exercise, expected, _report(ordinary, every), "s", "s.ipynb")
                fewer = score(exercise, expected, _report(ordinary, asked), "s", "s.ipynb")
                assert dataclasses.asdict(fewer) == dataclasses.asdict(full), (label, right,
                                                                                 swapped_right)
                compared += 1
    assert compared > 20


def test_a_right_run_of_exercise_05_needs_only_its_swaps():
    exercise = specs.load("05_spam")
    wanted = second_readings(exercise, exercise.expected(), _report(perfect_probes(exercise)))
    assert sorted(wanted) == sorted(key(q, s) for q in exercise.questions for s in q.swaps)


def test_a_wrong_fraction_correct_asks_for_every_caller_of_it_in_exercise_05():
    exercise = specs.load("05_spam")
    ordinary = perfect_probes(exercise)
    ordinary["q2"] = _broken(exercise.question("q2"), "wrong")
    for qid in ("q3", "q4", "q5", "q6"):  # each wrong through it
        ordinary[qid] = _broken(exercise.question(qid), "wrong")
    wanted = set(second_readings(exercise, exercise.expected(), _report(ordinary)))
    # the values are wrong: their swaps matter only if follow-through makes them right
    assert {"q3", "q4", "q5", "q6"} | {key(q, s) for q in exercise.questions
                                          for s in q.swaps} == wanted


# ------------------------------------------------------------------ the worker's side
def _run(requests, ask):
    from nbcourse.grading.execution.follow_through import run_follow_through
    from nbcourse.grading.execution.replies import checked_reply

    sent, asked = [], []

    async def probe(session, request, indices, limits, report, deadline, extra):
        full = dict(request, **extra)
        sent.append(full.get("key", full["question"]))
        return checked_reply({"question": full["question"], "name": full["name"], "value": 1},
                             full)

    def asking(report):
        asked.append(report)
        return ask

    report = RunReport()
    asyncio.run(run_follow_through(None, {"follow_through": requests}, [("code", "x = f(1)")],
                                   None, report, 0.0, probe, ask=asking))
    return sent, asked, report.follow_through


def _request(qid, name="x", swap=None):
    request = {"question": qid, "name": name, "kind": "value", "replace": ["f"],
               "reference": "def f(n):\n    return n\n", "graded": ["f"]}
    if swap:
        request.update(key=f"{qid}/swap/{swap}", reference="def f(n):\n    return 2\n")
    return request


def test_the_worker_makes_only_the_second_readings_it_is_asked_for():
    requests = [_request("q2"), _request("q2", swap="other")]
    sent, asked, replies = _run(requests, {"q2/swap/other"})
    assert len(asked) == 1 and sent == ["q2/swap/other"] and list(replies) == ["q2/swap/other"]
    sent, _, replies = _run(requests, None)  # no answer: every second reading, as before
    assert sent == ["q2", "q2/swap/other"] and list(replies) == sent


def test_the_worker_asks_about_its_own_job_and_reads_only_a_well_formed_answer():
    import io
    import json

    from nbcourse.grading.execution.worker import asking

    out = io.StringIO()
    ask = asking(4, out, io.StringIO(json.dumps({"id": 4, "follow_through": ["q3"]}) + "\n"))
    assert ask(RunReport()) == {"q3"}
    sent = json.loads(out.getvalue())
    assert sent["id"] == 4 and sent["interim"]["kernel"] == "ok"
    for answer in ('{"id": 5, "follow_through": ["q3"]}', '{"id": 4, "follow_through": [1]}',
                   '{"id": 4, "follow_through": null}', "not json", ""):
        assert asking(4, io.StringIO(), io.StringIO(answer + "\n"))(RunReport()) is None


def test_the_batch_answers_only_the_ordinary_readings_of_the_job_it_sent():
    from nbcourse.grading.scheduling import Rows
    from nbcourse.grading.workers import _interim

    assert _interim('{"id": 2, "interim": {"kernel": "ok"}}\n', 2) == {"kernel": "ok"}
    for line in ('{"id": 3, "interim": {}}', '{"id": 2, "report": {}}', "garbage", ""):
        assert _interim(line, 2) is None
    exercise = specs.load("05_spam")
    rows = Rows(exercise, exercise.expected(), [], None, None)
    assert rows.second_readings(["not", "a", "report"]) is None  # then: every one
