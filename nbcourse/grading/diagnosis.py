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

from typing import Callable, Sequence

NO_VALUE = object()  # the answer raised or could not be read on that case


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
        for result in results:
            for answer in result.questions:
                if answer.id == question.id:
                    for name in answer.mistakes:
                        counts[name] = counts.get(name, 0) + 1
        summary[question.id] = {name: n for name, n in counts.items() if n}
    return summary


def summary_lines(results, exercise) -> list[str]:
    """``q2: 11 of 40 left out the class prior`` lines for the end of ``nbcourse grade``."""
    total = len(results)
    lines = []
    for question_id, counts in batch_summary(results, exercise).items():
        for name, n in sorted(counts.items(), key=lambda item: -item[1]):
            lines.append(f"{question_id}: {n} of {total} made the known mistake '{name}'")
    return lines
