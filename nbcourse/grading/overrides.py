"""Marks an instructor sets by hand: ``overrides.csv``, applied on top of the grader's.

The file has a header and one row per change::

    student,question,points,reason
    farah,q2,3,answered in a markdown cell; checked by hand

``points`` replace what the grader gave that question (between 0 and the question's
points); ``reason`` is required, since the student reads it on the feedback page.  The
grader's own score is kept beside the override (``results.json``), so an override can be
changed or removed and applied again without regrading.  A bad row (an unknown student or
question, points out of range, no reason, a question set twice) stops with a ValueError
naming its line.
"""
from __future__ import annotations

import csv
import unicodedata
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

OVERRIDES_FILE = "overrides.csv"
COLUMNS = ("student", "question", "points", "reason")


@dataclass(frozen=True)
class Override:
    student: str
    question: str
    points: float
    reason: str
    line: int


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text.strip())


def read_overrides(path: str | Path, exercise, students: list[str]) -> list[Override]:
    """The overrides of ``path``, checked against the exercise's questions and the
    gradebook's students."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"overrides file {path}: cannot be read ({error})") from None
    rows = list(csv.reader(text.splitlines()))
    if not rows or [c.strip().lower() for c in rows[0]][:4] != list(COLUMNS):
        raise ValueError(f"overrides file {path}: the first line must be "
                         f"'{','.join(COLUMNS)}'")
    questions = {q.id: q for q in exercise.questions}
    known = {_nfc(s): s for s in students}
    found: list[Override] = []
    seen: set[tuple[str, str]] = set()
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        where = f"overrides file {path}, line {number}"
        if len(row) < 4:
            raise ValueError(f"{where}: expected {len(COLUMNS)} columns "
                             f"({', '.join(COLUMNS)}), got {len(row)}")
        student, question, points_text, reason = (cell.strip() for cell in row[:3] + [
            ",".join(row[3:])])
        if _nfc(student) not in known:
            raise ValueError(f"{where}: no student {student!r} in this gradebook")
        if question not in questions:
            raise ValueError(f"{where}: no question {question!r} in {exercise.name} "
                             f"(its questions: {', '.join(questions)})")
        try:
            points = Fraction(points_text)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{where}: points must be a number, got {points_text!r}") from None
        maximum = Fraction(str(questions[question].points))
        if not 0 <= points <= maximum:
            raise ValueError(f"{where}: {question} is worth 0 to "
                             f"{float(maximum):g} points, got {points_text}")
        if not reason:
            raise ValueError(f"{where}: give a reason (the student reads it)")
        key = (known[_nfc(student)], question)
        if key in seen:
            raise ValueError(f"{where}: {student} {question} is overridden twice")
        seen.add(key)
        found.append(Override(key[0], question, float(round(points, 2)), reason, number))
    return found


def undo_overrides(result) -> None:
    """Give ``result`` back the grader's own scores (as read from results.json)."""
    for change in result.overrides:
        for question in result.questions:
            if question.id == change["question"]:
                question.score = change["graded"]
    if result.overrides:
        result.total = _total(result)
    result.overrides = []


def apply_overrides(results: list, overrides: list[Override]) -> list[str]:
    """Set each overridden question's score and the total; the students changed."""
    by_name = {r.submission: r for r in results}
    changed = []
    for change in overrides:
        result = by_name[change.student]
        question = next((q for q in result.questions if q.id == change.question), None)
        if question is None:
            raise ValueError(f"overrides line {change.line}: {change.student} has no graded "
                             f"answers ({result.status}); grade a notebook first")
        result.overrides.append({"question": question.id, "points": change.points,
                                 "graded": question.score, "reason": change.reason})
        question.score = change.points
        result.total = _total(result)
        changed.append(change.student)
    return changed


def _total(result) -> float:
    raw = sum(Fraction(str(q.score)) for q in result.questions)
    return float(round(max(Fraction(0), raw - Fraction(str(result.penalty))), 2))


def describe(change: dict) -> str:
    """One override in words, for the gradebook and the report."""
    from .scoring import points_text
    return (f"{change['question']} set to {points_text(change['points'])} (graded "
            f"{points_text(change['graded'])}): {change['reason']}")
