"""Late work: when a notebook was handed in, how late that is, and what it costs.

nbgrader's ``timestamp.txt`` (beside the notebook, or in the student's folder) gives the
time of hand-in; a Canvas download only says ``_LATE_``, which counts as one day late.
``--due`` is the deadline (ISO 8601, UTC unless it says otherwise); ``--late`` the policy:

- ``none`` (the default): lateness is recorded, nothing is taken off;
- ``zero``: a late submission scores 0;
- ``per-day:P``: P percent of the exercise's maximum off per day or part of a day late
  (never below 0).

The penalty comes after the grader's marks and any overrides: ``raw`` is the points
earned, ``penalty`` what lateness took, ``total`` what is left.

With ``--due``, a notebook from a plain folder with no ``timestamp.txt`` (or a Moodle
zip, which says nothing of time) has no known hand-in time: it is counted as on time,
never guessed late, and marked ``time_unknown`` in results.json, listed in the class
report and named in a warning, so the instructor can check it.  A Canvas zip's row is
known: without ``_LATE_`` it was on time.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from fractions import Fraction
from pathlib import Path

from .statuses import Status

TIMESTAMP_FILE = "timestamp.txt"
#: Rows with nothing handed in, which have no hand-in time to know.
UNTIMED = (Status.NOT_SUBMITTED,)
UNKNOWN_TIME_WARNING = "no hand-in time known"


def unknown_time_warning(results: list) -> list[str]:
    """The warning that names the rows counted as on time for want of a time."""
    names = [r.submission for r in results if r.time_unknown]
    if not names:
        return []
    return [f"{UNKNOWN_TIME_WARNING} (no {TIMESTAMP_FILE}) for {len(names)} submission(s), "
            f"counted as on time: {', '.join(names[:20])}{' ...' if len(names) > 20 else ''}"]


def parse_time(text: str) -> datetime:
    """A time as nbgrader writes it (``2026-11-20 15:04:05.123456 UTC``) or ISO 8601;
    UTC when it names no zone.  ValueError otherwise."""
    cleaned = text.strip()
    cleaned = re.sub(r"\s*(UTC|GMT|Z)$", "+00:00", cleaned)
    try:
        when = datetime.fromisoformat(cleaned)
    except ValueError:
        raise ValueError(f"not a date and time: {text.strip()[:60]!r} (expected e.g. "
                         "2026-11-20T23:59 or 2026-11-20 23:59:00 UTC)") from None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def read_timestamp(folder: Path) -> str:
    """The hand-in time of ``folder/timestamp.txt`` in ISO form (UTC), or "" when there
    is none or it cannot be read (a link is never followed)."""
    path = folder / TIMESTAMP_FILE
    try:
        if path.is_symlink() or not path.is_file():
            return ""
        with open(path, "rb") as handle:
            text = handle.read(200).decode("utf-8", "replace")
        return parse_time(text).astimezone(timezone.utc).isoformat()
    except (OSError, ValueError, OverflowError):  # 9999-12-31T23:59-23:59 overflows
        return ""


def latest_timestamp(notebook_folder: Path, student_folder: Path) -> str:
    """The latest hand-in time among the timestamp.txt files from the notebook's folder up
    to the student's: a student who adds an earlier one next to a subfolder's notebook
    does not hide nbgrader's own (ISO texts in UTC compare as times)."""
    folder, found = notebook_folder, []
    while True:
        found.append(read_timestamp(folder))
        if folder == student_folder or folder.parent == folder:
            break
        folder = folder.parent
    return max(found)


@dataclass(frozen=True)
class LatePolicy:
    kind: str = "none"      # none, zero or per-day
    percent: Fraction = Fraction(0)

    @classmethod
    def parse(cls, text: str) -> "LatePolicy":
        text = (text or "none").strip().lower()
        if text in ("none", "zero"):
            return cls(text)
        match = re.fullmatch(r"per-day:(\d+(?:\.\d+)?)%?", text)
        if match and 0 < Fraction(match.group(1)) <= 100:
            return cls("per-day", Fraction(match.group(1)))
        raise ValueError(f"--late must be none, zero or per-day:P (P percent of the maximum "
                         f"off per day late, 0 < P <= 100), got {text!r}")

    def __str__(self) -> str:
        return f"per-day:{float(self.percent):g}" if self.kind == "per-day" else self.kind


def days_late(submitted_at: str, flagged_late: bool, due: datetime | None) -> int:
    """Days (or parts of a day) after ``due``; a late flag with no time is one day."""
    if due is not None and submitted_at:
        seconds = (datetime.fromisoformat(submitted_at) - due).total_seconds()
        return max(0, math.ceil(seconds / 86400))
    return 1 if flagged_late else 0


def penalty(raw: float, maximum: float, days: int, policy: LatePolicy) -> float:
    """The points taken off ``raw`` for ``days`` late (never more than ``raw``)."""
    if days <= 0 or policy.kind == "none":
        return 0.0
    if policy.kind == "zero":
        return float(raw)
    off = Fraction(str(maximum)) * policy.percent / 100 * days
    return float(round(min(Fraction(str(raw)), off), 2))


def settings(due: str | None, policy: str | None, before: dict | None) -> dict:
    """The deadline and policy of a run: those given, else the gradebook's own."""
    before = before or {}
    try:
        due_text = before.get("due", "") if due is None else (
            parse_time(due).astimezone(timezone.utc).isoformat() if due else "")
    except ValueError as error:
        raise ValueError(f"--due: {error}") from None
    return {"due": due_text, "policy": str(LatePolicy.parse(
        before.get("policy", "none") if policy is None else policy))}


def apply_late(results: list, sources: dict, late: dict, maximum: float) -> None:
    """Days late, penalty and total of every row, by the deadline and policy ``late``."""
    due = parse_time(late["due"]) if late.get("due") else None
    policy = LatePolicy.parse(late.get("policy", "none"))
    for result in results:
        source = sources.get(result.submission)
        result.submitted_at = result.submitted_at or getattr(source, "submitted_at", "")
        days = days_late(result.submitted_at, bool(getattr(source, "late", False)), due)
        result.time_unknown = (due is not None and not result.submitted_at and not days
                               and getattr(source, "lms", "") != "canvas"
                               and result.status not in UNTIMED)
        raw = sum(Fraction(str(q.score)) for q in result.questions)
        off = penalty(raw, maximum, days, policy)
        if (days, off) != (result.late_days, result.penalty):
            result.late_days, result.penalty = days, off
            result.total = float(round(raw - Fraction(str(off)), 2))
