"""Swaps: a hidden judgement that a computed value follows the functions it is computed
from (``specs.Swap``).

Some values are the same for every right answer (the share of messages where ``decide``
and the model agree is 1.0), so a value typed in or true by construction
(``len(X) / len(X)``) would earn the marks.  A swap runs the value's cell again, after
every answer is read and after the follow-through probes, with a deliberately
different function in place of the student's (the follow-through probe's machinery:
the cell and the earlier cells it reads run again, and the student's functions are
put back afterwards).  The value must then be the swap's reference; one that does not
move with the function fails the question.  The message is the spec's fixed text.

A swap that was planned but gave no reading (its cell stopped the kernel or ran out of
time, or the kernel had stopped before it) fails the question too, with fixed text:
otherwise a cell that ends the kernel only when it sees the swapped function would keep
marks for a value true by construction.  A swap of a function the notebook does not
define at all (deleted or renamed) is judged like any other: the swapped function is put
in under the spec's name, and a value that does not move with it fails.  Exempting it
let a student who deletes a function they could not write keep a value typed in (04's
``agreement`` is 1.0 for everyone); a renamed function looks the same from here, since
any value can be wrapped in a function of another name.
"""
from __future__ import annotations

from .follow_through import ROUNDED_IN_HIDDEN, reference_source
from .statuses import AnswerStatus
from .values import normalise


def key(question, swap) -> str:
    """Where the swap's reply is kept in the run's report."""
    return f"{question.id}/swap/{swap.name}"


def swap_plan(exercise) -> list[dict]:
    """The swap probes, run after the follow-through probes."""
    graded = [q.name for q in exercise.questions if q.kind == "function"]
    probes = []
    for question in exercise.questions:
        for swap in question.swaps:
            others = [q.name for q in exercise.callees(question) if q.name not in swap.replace]
            source = reference_source(exercise, others) if others else ""
            if source is None:
                continue  # no solution to put in place of the other functions
            request = question.probe_request()
            request.pop("forbidden", None)
            request.update(replace=list(swap.replace) + list(swap.rebinds) + others,
                           reference=source + "\n" + swap.source, graded=graded,
                           key=key(question, swap))
            probes.append(request)
    return probes


def swaps_read(exercise, results: list, credited: set[str]) -> set[str]:
    """The swap replies ``judge_swaps`` may read, from the ordinary ``results``: those of a
    value right the ordinary way, or one that follow-through may make right (its question
    in ``credited``, see ``follow_through.read_again``)."""
    by_id = {r.id: r for r in results}
    return {key(q, swap) for q in exercise.questions for swap in q.swaps
            if by_id[q.id].status == AnswerStatus.PASSED or q.id in credited}


def unchecked(question) -> str:
    """The fixed feedback of a value whose swap gave no reading."""
    return (f"`{question.name}` could not be checked against the functions it is computed "
            "from: when the grader ran its cell again with other functions in place, the "
            "kernel stopped or ran out of time, so the value earns no marks.")


def judge_swaps(exercise, report, results: list, score_question) -> None:
    """Fail, in place, a value right the ordinary way that does not follow a swap, or
    whose planned swap gave no reading (see the module's notes).

    ``score_question`` is ``scoring.score_question`` (the swapped reading is judged as
    the ordinary one).
    """
    replies = report.follow_through if isinstance(report.follow_through, dict) else {}
    by_id = {r.id: r for r in results}
    planned = None
    for question in exercise.questions:
        result = by_id[question.id]
        if not question.swaps or \
                result.status not in (AnswerStatus.PASSED, AnswerStatus.FOLLOW_THROUGH):
            continue
        if planned is None:
            planned = {request["key"] for request in swap_plan(exercise)}
        for swap in question.swaps:
            if key(question, swap) not in planned:
                continue  # no solution to put in place of the other functions
            reply = replies.get(key(question, swap))
            if not isinstance(reply, dict) or "not_run" in reply or "timed_out" in reply:
                _fail(result, unchecked(question), swap.name)
                break
            if reply.get("unreadable") not in (None, "no cell assigns this value"):
                # the cell raised: it did not "give the same value" (student 22)
                _fail(result, RAISED_SWAP.format(
                    question.name, "`, `".join([*swap.replace, *swap.rebinds])), swap.name)
                break
            expected = [normalise(swap.reference())] * len(question.cases)
            again = score_question(question, reply, expected, 0.0, [])
            if again.status != AnswerStatus.PASSED:
                rounded = any(ROUNDED_IN_HIDDEN in case.message for case in again.cases)
                _fail(result, ROUNDED_SWAP.format(question.name) if rounded else swap.feedback,
                      swap.name)
                break


#: A value whose cell raised when run again with another function (student 22): what it
#: raised is not shown (the replay's inputs are the grader's)
RAISED_SWAP = ("Your `{}` could not be computed again with another `{}` in place: its cell "
               "raised an error there. Compute it from what the functions and values the "
               "question names give, using only what the question says they hold.")


#: A value that follows the swap but rounded (04 q4's ``round(agreement, 2)`` is the exact
#: 1.0 on the course's data, and the swapped share rounded): not "does not follow"
ROUNDED_SWAP = ("Your `{}` is computed from the right functions but rounded: run again with "
                "another function in place, your cell gives the new value rounded, and the "
                "grader compares it unrounded. Store it unrounded (round only what you print).")


def _fail(result, feedback: str, case_message: str) -> None:
    result.score, result.status = 0.0, AnswerStatus.FAILED
    result.follow_through = []
    result.notes = [n for n in result.notes if not n.startswith("Your `")]
    result.notes.append(feedback)
    for case in result.cases:
        if case.hidden:
            case.passed, case.message = False, case_message
