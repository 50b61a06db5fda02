"""Naming the student's mistake: the same rule in ``check()`` and in the grader.

A question's spec lists known mistakes, each with a reference that computes the
mistaken answer.  An answer is said to make a mistake when it fails at least one case
and, on every case where both have a value, equals the mistake's value there (with
the question's own comparison and tolerance).  So a correct answer is never named (it
fails nothing), an unrelated wrong answer is not named (it would have to agree with
the mistake everywhere), and when two mistakes fit equally well both are named and
the feedback says it cannot tell them apart.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from numbers import Integral, Real
from typing import Callable, Sequence

from .statuses import AnswerStatus

NO_VALUE = object()  # the answer raised or could not be read on that case
#: What the grader and ``check()`` say of an answer (or a cell) that is still the stub,
#: around the words of its status (``AnswerStatus.NOT_ANSWERED``).
STILL_THE_STUB = f"{AnswerStatus.NOT_ANSWERED.value} yet (it still raises NotImplementedError)"


def _leaves(actual, expected):
    """Pairs of (actual, expected) numbers at the same place in two nested values, or
    None when the two do not have the same shape."""
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return None
        pairs = []
        for a, e in zip(actual, expected):
            inner = _leaves(a, e)
            if inner is None:
                return None
            pairs += inner
        return pairs
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            return None
        return _leaves([actual[k] for k in expected], list(expected.values()))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return None
    if isinstance(expected, (Real, Fraction)) and isinstance(actual, (Real, Fraction)):
        return [(actual, expected)]
    return [] if actual == expected else None


#: How every ``form_note`` begins: a message that starts so already says what is wrong
#: (no hint is added to it, and ``check()`` shows it as it is).  (A float that is a whole
#: number needs no note: ``values.compare`` takes 9.0 for 9 everywhere.)
#: How the note on a call that changed its input in place begins (``input_changed``)
CHANGED_IN_PLACE = "the function changed"
#: How the note on a value that looks rounded begins (``form_note``)
LOOKS_ROUNDED = "the value equals the right one rounded"
FORM_NOTES = ("the numbers are right but", LOOKS_ROUNDED, CHANGED_IN_PLACE,
              "the text is right but")


def input_changed(where: str, positions: int = 0, keywords=()) -> str:
    """What the grader and ``check()`` say of a call that changed an input in place.

    ``where`` is the probe's ``"argument N"`` or ``"keyword K"``, used only when it names
    one of the case's ``positions`` arguments or ``keywords``: the words are the grader's
    own, whatever the kernel sent.
    """
    words = "one of its inputs"
    kind, _, name = str(where).partition(" ")
    if kind == "argument" and name.isdigit() and 1 <= int(name) <= positions:
        words = f"its argument {name} (of {positions})"
    elif kind == "keyword" and name in keywords:
        words = f"its argument {name}="
    return (f"{CHANGED_IN_PLACE} {words} in place: this question does not ask for that, "
            "and whatever calls it (a later question too) would then work on the changed "
            "input. Work on a copy (table.copy(), list(values), dict(counts), "
            "np.array(x, copy=True)) and leave what you are given as it was.")


def case_hint_applies(message: str) -> bool:
    """Whether a public case's own hint fits its failure: a wrong value, or an error its
    input raises (an empty shard), not a wrong form (a list where a dict is asked, a
    column, rounding), where the message itself says what to change."""
    return bool(message) and not message.startswith(
        FORM_NOTES + ("expected ", "the result ", AnswerStatus.NOT_ANSWERED.value))


def case_hints_apply(verdicts, hinted=()) -> bool:
    """Whether the public cases' own hints may be shown, from their verdicts (``hinted``:
    whether each case has a hint of its own): a case's hint says what sets that case
    apart, so it can be the cause only when the answer passes a plain case, one without a
    hint (or, with no plain case, some other case; or has no other case).  An answer that
    fails the plain ones has a mistake the hints do not name (a sign, a missing step; 01
    q1's count not divided by the class size passed only the case whose count is 0, and
    was told to use `target` and `feature`, student 13)."""
    verdicts = list(verdicts)
    hinted = list(hinted) or [False] * len(verdicts)
    plain = [ok for ok, has_hint in zip(verdicts, hinted) if not has_hint]
    return len(verdicts) < 2 or (any(plain) if plain else any(verdicts))


#: numpy's words when an in-place operation (``z *= idf``) would write floats into integers
_FLOATS_INTO_INTEGERS = re.compile(
    r"Cannot cast ufunc '\w+' output from dtype\('(?:float|complex)\d*'\) to "
    r"dtype\('u?int\d*'\)")

#: The hint for that error, whatever the case's own hint says (the case may be about a
#: sparse matrix or an empty row: the cause here is the integer array)
FLOATS_INTO_INTEGERS = ("an in-place operation (such as z *= idf) tried to store floats in an "
                        "array of integers, which numpy refuses: make the array float first "
                        "(np.asarray(counts, dtype=float), or counts.toarray().astype(float) "
                        "for a sparse matrix), or write z = z * idf")


def raised_hint(message: str, hint: str) -> str:
    """The hint for a public case that failed with ``message``: ``hint``, unless the
    message is an error whose cause is known whatever the case tests."""
    return FLOATS_INTO_INTEGERS if _FLOATS_INTO_INTEGERS.search(message) else hint


def form_note(actual, expected, tolerance, *, rounded: bool = True) -> str | None:
    """Why a wrong-looking answer may be right in substance: the right numbers rounded.
    None when that does not explain the failure.

    ``tolerance`` is the question's (``rel``, ``abs_``); ``rounded=False`` for a hidden
    case, where "rounded" would say that the answer is near the expected one.
    """
    pairs = _leaves(actual, expected) if rounded else None
    if not pairs or all(isinstance(e, Integral) for _, e in pairs):
        return None
    for places in range(2, 7):  # one place: too easily a wrong answer by chance
        if all(isinstance(a, (Real, Fraction)) and
               (math.isclose(float(a), float(e), rel_tol=tolerance.rel, abs_tol=tolerance.abs_)
                or (not math.isinf(float(e)) and round(float(e), places) == float(a)))
               for a, e in pairs) and any(
                not math.isclose(float(a), float(e), rel_tol=tolerance.rel, abs_tol=tolerance.abs_)
                for a, e in pairs):
            return (f"{LOOKS_ROUNDED} to {places} decimal place"
                    f"{'s' if places > 1 else ''}: if you rounded it, return it unrounded "
                    "(round only what you print)")
    return None


def diagnose(passed: Sequence[bool], actual: Sequence, mistaken: dict[str, Sequence],
             same: Callable[[object, object, int], bool], skip=()) -> list[str]:
    """Names of the mistakes the answer behaves like (usually none or one).

    ``passed[i]`` and ``actual[i]`` are the answer's verdict and value on case i
    (``NO_VALUE`` when it has none); ``mistaken[name][i]`` the mistake's value (an
    object in ``skip`` when the mistake's reference raised); ``same(a, b, i)`` the
    question's comparison on case i.
    """
    if all(passed):
        return []
    found = []
    for name, values in mistaken.items():
        matched_a_failure = False
        consistent = True
        for i, (ok, value, wrong) in enumerate(zip(passed, actual, values)):
            if any(wrong is s for s in skip):
                continue
            if value is NO_VALUE or not same(value, wrong, i):
                consistent = False
                break
            matched_a_failure |= not ok
        if consistent and matched_a_failure:
            found.append(name)
    return found


def diagnose_in_part(passed: Sequence[bool], actual: Sequence, mistaken: dict[str, Sequence],
                     same: Callable[[object, object, int], bool], public: Sequence[bool],
                     skip=()) -> list[str]:
    """When ``diagnose`` names nothing: the mistakes the answer makes on the public cases.

    An answer that makes two mistakes at once equals neither everywhere, but on the
    public cases, where only one of them shows, ``check()`` named that one; the grader
    keeps the name.  A mistake qualifies when it matches a failed case and agrees with
    the answer on every public case where both have a value.
    """
    found = []
    for name, values in mistaken.items():
        matched = False
        consistent = True
        for i, (ok, value, wrong) in enumerate(zip(passed, actual, values)):
            if any(wrong is s for s in skip) or value is NO_VALUE:
                continue
            agrees = same(value, wrong, i)
            if public[i] and not agrees:
                consistent = False
                break
            matched |= agrees and not ok
        if consistent and matched:
            found.append(name)
    return found


def explain(names: Sequence[str], feedback: dict[str, str]) -> str:
    """The words shown to the student for the mistakes ``diagnose`` found."""
    if not names:
        return ""
    if len(names) == 1:
        return f"Known mistake ({names[0]}): {feedback.get(names[0], '')}".strip()
    parts = " ".join(f"({i}) {name}: {feedback.get(name, '')}" for i, name in
                     enumerate(names, start=1))
    return (f"Your answer matches {len(names)} known mistakes, which give the same values on "
            f"these tests, so it cannot tell which one you made: {parts}")


def batch_summary(results, exercise) -> dict[str, dict[str, int]]:
    """{question id: {mistake name: how many submissions made it}}, in spec order.

    A submission whose answer matches two mistakes that cannot be told apart counts
    for both.
    """
    summary: dict[str, dict[str, int]] = {}
    for question in exercise.questions:
        counts = {m.name: 0 for m in question.mistakes}
        answers = [a for result in results for a in result.questions if a.id == question.id]
        counts.update(mistake_counts(answers))
        summary[question.id] = {name: n for name, n in counts.items() if n}
    return summary


def mistake_counts(answers) -> dict[str, int]:
    """{mistake name: how many of ``answers`` made it}, in the order they are met."""
    counts: dict[str, int] = {}
    for answer in answers:
        for name in answer.mistakes:
            counts[name] = counts.get(name, 0) + 1
    return counts


IN_PART = ("Some tests match a known mistake and others go wrong in another way too, so "
           "your answer may make more than one mistake. ")
#: ... when every failed test matches it, and the answer only passes some it would fail
IN_SOME = ("Every test that fails matches a known mistake, though your answer passes some "
           "tests that this mistake fails. ")


def in_part_preface(passed: Sequence[bool], actual: Sequence, mistaken: dict[str, Sequence],
                    names: Sequence[str], same: Callable[[object, object, int], bool]) -> str:
    """How a diagnosis made in part begins (``diagnose_in_part``): ``IN_PART`` when some
    failed test goes wrong in another way, ``IN_SOME`` when none does (08 q4's
    ``s // gain + 1`` passes the balanced message its mistake fails, and fails nothing
    else: "others go wrong" was untrue, student 12)."""
    other = any(not ok and (value is NO_VALUE or not any(
        same(value, mistaken[name][i], i) for name in names))
        for i, (ok, value) in enumerate(zip(passed, actual)))
    return IN_PART if other else IN_SOME


def summary_lines(results, exercise) -> list[str]:
    """``q2: 11 of 40 left out the class prior`` lines for the end of ``nbcourse grade``."""
    total = len(results)
    lines = []
    for question_id, counts in batch_summary(results, exercise).items():
        for name, n in sorted(counts.items(), key=lambda item: -item[1]):
            lines.append(f"{question_id}: {n} of {total} made the known mistake '{name}'")
    return lines
