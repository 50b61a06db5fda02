"""Follow-through marking ("error carried forward"): a right answer is not marked down
for the mistake of a graded function it calls.

A spec declares which graded answers call which (``Question.calls``: ``predict`` calls
``joint_scores``, which calls ``likelihood``).  When the grading worker has read every
answer the ordinary way, it runs one more probe per calling answer (``plan``): the
functions it calls, directly or not, are replaced in the student's namespace by the
instructor's solutions of them, taken from the source notebook, and the answer is
evaluated again on the same cases (a value: its cell is run again).  Nothing it does
then can change an answer already read.

Scoring (``credit``) uses that second reading wherever a function the answer calls
failed, whether the answer itself passed or failed the ordinary way.  A failed answer
right on every case with the solutions in place earns ``Question.follow_through`` of its
points (all of them by default, and always when the functions it calls directly are
right given theirs: ``_share``) and its feedback names the function to blame; still
wrong, it has a mistake of its own and is marked on that second reading, its own logic
alone (so a second mistake in a callee can neither raise nor lower its mark), where its
mistake is also diagnosed.  An answer that passed with a wrong callee but fails with
the solutions in place passed only because its own mistake makes up for the callee's
(``predict`` taking the smallest of scores that ``joint_scores`` negates): it is marked
on its own logic too, and its feedback says so.  One that passes both ways while a
function it calls directly is wrong earns the same share as a failed one (05's
``test_accuracy`` from a wrong recipe that lands on the right number by a coincidence
of the corpus): otherwise its mark would depend on that coincidence.  A function
flagged for a forbidden helper counts as wrong here, whatever its values.  Every
message this adds is fixed text made of the spec's names: what the kernel sends back in
this phase is never shown.

What the kernel receives: the solutions of the called functions only (never the
calling answer's own, never an expected value), each defined in a namespace of its own
holding the source notebook's imports, so the calling answer cannot reach any other
solution through them.  The probes run callees first: an answer is evaluated before
any probe that brings its own solution into the kernel.

Callee sets need not nest (04's ``agreement`` swaps ``linear_weights`` and ``decide``,
``free_shift`` only ``linear_weights``), so a probe must leave nothing for the next one:
the kernel's probe binds every name back to what it was after each probe (a replayed
cell rebinds values computed with the solutions) and retires the solutions it lent
(``probe_source._follow_through``), and empties the notebook's ``lru_cache``s.  What one
kernel cannot undo, a result the student's code memoised its own way or a change made
inside an object that existed before, can only shape a later second reading, never an
ordinary answer (exercises/README.md says so).
"""
from __future__ import annotations

import ast
import json
from fractions import Fraction

from .diagnosis import CHANGED_IN_PLACE, LOOKS_ROUNDED, STILL_THE_STUB
from .execution.cells import parse_cell
from .statuses import AnswerStatus

HIDDEN_MARK = "BEGIN HIDDEN TESTS"


def _source_cells(exercise) -> list[ast.Module]:
    """The instructor notebook's code cells (hidden tests left out), parsed."""
    path = getattr(exercise, "source", None)
    try:
        notebook = json.loads(path.read_text(encoding="utf-8")) if path else None
    except (OSError, ValueError):
        return []
    cells = []
    for cell in (notebook or {}).get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        text = cell.get("source", "")
        text = "".join(text) if isinstance(text, list) else str(text)
        if HIDDEN_MARK not in text:
            tree = parse_cell(text)
            if tree is not None:
                cells.append(tree)
    return cells


def reference_source(exercise, names: list[str]) -> str | None:
    """Python source defining the solutions of ``names`` (graded functions) after the
    source notebook's imports, with the notebook's own helper functions they use; None
    when the notebook lacks one of them."""
    imports, functions = [], {}
    for tree in _source_cells(exercise):
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                module = getattr(node, "module", None) or ""
                if not module.startswith("nbcourse.grading"):
                    imports.append(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                functions[node.name] = node
    graded = {q.name for q in exercise.questions}
    wanted, todo = [], list(names)
    while todo:  # the helpers a solution uses, never another graded answer's solution
        name = todo.pop(0)
        if name in wanted:
            continue
        if name not in functions:
            return None
        wanted.append(name)
        used = {n.id for n in ast.walk(functions[name]) if isinstance(n, ast.Name)}
        todo += sorted(n for n in used if n in functions and n not in graded)
    module = ast.Module(body=imports + [functions[name] for name in wanted], type_ignores=[])
    return ast.unparse(module)


def _order(exercise) -> list:
    """The exercise's questions, every called function before its callers."""
    done, ordered = set(), []

    def visit(question):
        if question.id in done:
            return
        done.add(question.id)
        for callee in exercise.callees(question):
            visit(callee)
        ordered.append(question)

    for question in exercise.questions:
        visit(question)
    return ordered


def plan(exercise) -> list[dict]:
    """The follow-through probes, in the order they must run (see the module's notes)."""
    graded = [q.name for q in exercise.questions if q.kind == "function"]
    probes = []
    for question in _order(exercise):
        callees = [q.name for q in exercise.callees(question)]
        if not callees:
            continue
        source = reference_source(exercise, callees)
        if source is None:  # no solution to put in place: ordinary marking only
            continue
        request = question.probe_request()
        request.pop("forbidden", None)
        request.update(replace=callees, reference=source, graded=graded)
        probes.append(request)
    return probes


# ------------------------------------------------------------------------ scoring
#: The ordinary readings follow-through may raise: a wrong answer, or a value whose cell
#: failed (through the function it calls, if it is right that way).  An answer that timed
#: out, could not be read or is still the stub keeps its reading.
_WRONG = (AnswerStatus.FAILED, AnswerStatus.PARTLY_PASSED, AnswerStatus.MISSING)
#: ... and the ordinary readings it may lower: a right answer, if it is right only with
#: the student's wrong callee.
_READ_AGAIN = _WRONG + (AnswerStatus.PASSED,)


def _failed(result) -> bool:
    """Not right: wrong, or flagged for a forbidden name (a flag stays with the function
    that uses the name, and its callers are marked as callers of a wrong function)."""
    return result.status not in (AnswerStatus.PASSED, AnswerStatus.FOLLOW_THROUGH) or \
        bool(result.flags)


def _right(result) -> bool:
    return result.status == AnswerStatus.PASSED and not result.flags


def _named(questions) -> str:
    names = [f"`{q.name}` ({q.id})" for q in questions]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _may_credit(exercise, question, by_id: dict) -> bool:
    """Whether ``credit`` reads ``question``'s second reading: its ordinary reading is
    wrong or right (not stopped, unreadable or the stub) and a function it calls is not
    right.  A value read as "not answered" counts as wrong: its cell may have raised the
    stub's NotImplementedError of a function it calls (run again with that function's
    solution, a cell that is still the stub raises again and keeps its reading).
    ``credit`` decides this on the ordinary readings alone (``read_again``), as the batch
    does before asking the worker for the second readings."""
    callees = exercise.callees(question)
    status = by_id[question.id].status
    return bool(callees) and (status in _READ_AGAIN or (
        question.kind == "value" and status == AnswerStatus.NOT_ANSWERED)) and \
        any(not _right(by_id[c.id]) for c in callees)


def read_again(exercise, results: list) -> set[str]:
    """The questions whose second reading ``credit`` reads, from the ordinary ``results``."""
    by_id = {r.id: r for r in results}
    return {q.id for q in exercise.questions if _may_credit(exercise, q, by_id)}


def credit(exercise, expected: dict, report, results: list, penalty: float,
           score_question, points_text) -> None:
    """Follow-through credit and diagnosis, in place, for the ``results`` of one run.

    ``score_question`` is ``scoring.score_question``, which judges the second reading
    the way it judges the first; ``points_text`` is ``scoring.points_text`` (scoring
    calls this module, not the other way round).
    """
    replies = report.follow_through if isinstance(report.follow_through, dict) else {}
    by_id = {r.id: r for r in results}
    wanted = read_again(exercise, results)  # on the ordinary readings, before any change
    for question in _order(exercise):
        result = by_id[question.id]
        if question.id not in wanted:
            continue
        callees = exercise.callees(question)
        reply = replies.get(question.id)
        if not isinstance(reply, dict):
            continue  # no second reading: ordinary marking
        if result.status == AnswerStatus.NOT_ANSWERED and "value" not in reply:
            continue  # its own cell is still the stub (or assigns nothing): not answered
        again = score_question(question, reply, expected[question.id], 0.0, [])
        if again.status not in (AnswerStatus.PASSED, AnswerStatus.FAILED,
                                AnswerStatus.PARTLY_PASSED):
            continue  # not judged the second time (stopped, unreadable): ordinary marking
        blamed = [c for c in callees if _failed(by_id[c.id])] or \
            [c for c in callees if not _right(by_id[c.id])]
        changed = [c for c in blamed if _changed_an_input(by_id[c.id])]
        if result.status == AnswerStatus.PASSED:
            share = _share(exercise, question, by_id)
            if again.status != AnswerStatus.PASSED:  # right only with the wrong callee
                _own_logic(question, result, again, blamed, penalty, points_text,
                           share, changed, made_up=True)
            elif share < 1:  # right by a chance of the data, or over a flagged function:
                result.score = 0.0  # still a call of a wrong one
                flagged_only = all(by_id[c.id].status in (AnswerStatus.PASSED,
                                                          AnswerStatus.FOLLOW_THROUGH)
                                   for c in blamed)
                _right_given_callees(question, result, again, blamed, penalty, points_text,
                                     share, by_chance=not flagged_only)
            continue
        ordinary_words = {result.diagnosis, *(n for n in result.notes if n.startswith("hint: "))}
        result.notes = [n for n in result.notes if n not in ordinary_words]
        for case, other in zip(result.cases, again.cases):
            # a case's hint from the first reading may describe the callee's mistake: keep
            # the second reading's (none, when the answer is right with the solutions)
            case.mistakes, case.hint = [], other.hint
        share = _share(exercise, question, by_id)
        if again.status == AnswerStatus.PASSED:
            _right_given_callees(question, result, again, blamed, penalty, points_text, share)
        else:
            _own_logic(question, result, again, blamed, penalty, points_text, share, changed)


def _share(exercise, question, by_id: dict) -> Fraction:
    """The share of its points a follow-through reading may earn: ``follow_through`` when a
    function the answer calls itself (its ``calls``) is wrong, all of them when those are
    right, or right given the functions they call (the mistake is deeper down: 05's
    `test_accuracy` with a wrong `fraction_correct` under a right `spam_experiment` is
    marked as that `spam_experiment` is)."""
    direct = [q for q in exercise.questions if q.name in question.calls]
    if not any(_failed(by_id[q.id]) for q in direct):
        return Fraction(1)
    return Fraction(str(question.follow_through))


def missing_note(question) -> str:
    """What the page says of an answer the notebook does not define."""
    return (f"`{question.name}` is not defined after running your notebook "
            "(was the cell deleted, renamed, or did it fail?)")


def stub_note(question) -> str:
    """What the page says of a value whose cell raised the stub's NotImplementedError."""
    return f"`{question.name}` is not defined: {STILL_THE_STUB}"


def _earned(question, result, share: Fraction, penalty: float) -> float:
    """``share`` of the question's points, less the penalty of a forbidden name."""
    earned = Fraction(str(question.points)) * share
    if result.flags:  # a forbidden name costs the same as in ordinary marking
        earned -= earned * Fraction(str(penalty))
    return float(round(earned, 2))


#: Part of what a hidden case says of a value that looks rounded (``scoring.HIDDEN_ROUNDED``)
ROUNDED_IN_HIDDEN = "if you rounded it"
#: A failed case's message, in place of "looks rounded", when the answer is right with the
#: right functions it calls: the rounding is theirs, not this answer's
THROUGH_A_CALLEE = ("the value is not the expected one, because of a function it calls (see "
                    "the note on follow-through marking)")


def _right_given_callees(question, result, again, blamed, penalty, points_text,
                         share: Fraction, by_chance: bool = False) -> None:
    """Right with the solutions of the functions it calls: its ``share`` of the points.
    ``by_chance``: right with the student's wrong callee too, by a coincidence of the data
    (05's wrong recipe landing on the right accuracy); an answer whose share is below 1
    is then marked as if it were wrong, or its mark would depend on that coincidence."""
    was_missing = result.status in (AnswerStatus.MISSING, AnswerStatus.NOT_ANSWERED)
    if was_missing:  # its cell failed: said once, in the note below
        result.notes = [n for n in result.notes
                        if n not in (missing_note(question), stub_note(question))]
    result.score = max(result.score, _earned(question, result, share, penalty))
    result.status = AnswerStatus.FOLLOW_THROUGH
    result.mistakes, result.diagnosis = [], ""
    for case in result.cases:  # the rounding is the called function's (said below)
        if LOOKS_ROUNDED in case.message or ROUNDED_IN_HIDDEN in case.message:
            case.message = THROUGH_A_CALLEE
    result.follow_through = [c.id for c in blamed]
    # a value is computed with the function, in its own cell or from a name an earlier
    # cell computed with it (04's w0, w): the words hold for both
    how = "it fails only because it calls" if question.kind == "function" else \
        "its cell failed only because it is computed with" if was_missing else \
        "it is wrong only because it is computed with"
    function = 'function' if len(blamed) == 1 else 'functions'
    earns = (f"it earns {points_text(result.score)} of its {points_text(question.points)} "
             f"point{'' if question.points == 1 else 's'} (follow-through marking)")
    if share < 1:  # not simply "right": say why part of the points stays out
        result.notes.append(
            f"Your `{question.name}` follows from your {_named(blamed)}: with the right "
            f"{function} in place it passes every test. But the function it calls directly "
            "is wrong itself (or flagged for a helper this exercise forbids), and this answer "
            "is little more than a call of it, so the exercise gives it only part of its "
            f"points: {earns}; fix "
            f"{'that function' if len(blamed) == 1 else 'those functions'} to earn them all."
            + (" (Its value is the expected one here only by a coincidence of this data: "
               "the same mistake gives another value on other data.)" if by_chance else ""))
        return
    result.notes.append(
        f"Your `{question.name}` is right: {how} your {_named(blamed)}. With the right "
        f"{function} in place it passes every test, so {earns}; fix "
        f"{'that function' if len(blamed) == 1 else 'those functions'} instead.")


def _changed_an_input(result) -> bool:
    """Whether a graded function was seen changing an input it was given, in place."""
    return any(case.message.startswith(CHANGED_IN_PLACE) for case in result.cases)


def _own_logic(question, result, again, blamed, penalty, points_text,
               share: Fraction, changed=(), made_up: bool = False) -> None:
    """Still wrong with the solutions in place: a mistake of its own, marked and named on
    that reading (a second mistake in a function it calls can neither raise nor lower it).
    Unless a function it calls, ``changed``, changes its input in place: an earlier cell
    that called it may have changed what this answer works on, so the page says that this
    can be the cause, and gives no hint that would blame this answer's own method.
    ``made_up``: the answer passed with the student's wrong callees, so its own mistake
    makes up for theirs; each case that fails the second way says so in fixed words."""
    cases = len(again.cases) or 1
    right = sum(case.passed for case in again.cases)
    share *= Fraction(str(again.score)) / Fraction(str(question.points))
    result.score = _earned(question, result, share, penalty)
    if result.status == AnswerStatus.NOT_ANSWERED:  # its cell ran: it is answered
        result.notes = [n for n in result.notes if n != stub_note(question)]
    if result.status != AnswerStatus.MISSING:  # a value whose cell failed stays missing
        result.status = again.status
    result.mistakes, result.diagnosis = again.mistakes, again.diagnosis
    one = len(blamed) == 1
    for case, other in zip(result.cases, again.cases):
        case.mistakes = list(other.mistakes)
        if made_up and not other.passed:  # (what the kernel sent is not shown)
            case.passed, case.hint = False, other.hint
            case.message = (f"passes only with your {_named(blamed)}: with the right "
                            f"{'one' if one else 'ones'} in place it fails")
    function = 'function' if one else 'functions'
    if changed:
        result.notes.append(
            f"With the right {_named(blamed)} in place, `{question.name}` still fails some "
            f"tests ({right} of {cases} passed that way), and it is marked so. That need not "
            f"be a mistake of its own: your {_named(changed)} changes an input in place (see "
            "that question), so a cell that called it earlier may have changed what "
            f"`{question.name}` works on (a table, a query). Fix that first, then run "
            "the notebook again from the top.")
        result.notes += [n for n in again.notes if n == again.diagnosis]
        return
    if made_up:
        result.notes.append(
            f"With the right {_named(blamed)} in place your `{question.name}` fails: it only "
            f"passed because it makes up for {' and '.join(c.id for c in blamed)}'s "
            f"mistake. It is marked on its own logic, with the right {function} in place "
            f"({right} of {cases} tests passed that way), and earns "
            f"{points_text(result.score)} of its {points_text(question.points)} "
            f"point{'' if question.points == 1 else 's'}.")
    else:
        result.notes.append(
            f"With the right {_named(blamed)} in place, `{question.name}` still fails "
            "some tests, so it has a mistake of its own as well: it is marked on its own "
            f"logic, with the right {function} in place ({right} of {cases} tests passed "
            "that way).")
    result.notes += [n for n in again.notes if n == again.diagnosis or
                     n.startswith("hint: ")]

