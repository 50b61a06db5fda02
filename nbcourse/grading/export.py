"""Gradebooks an LMS imports, written from a batch's ``results.json``.

- ``canvas.csv``: Canvas's gradebook import (Grades > Import).  The columns Canvas
  exports and reads back: ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``,
  ``Section``, then one column per assignment named ``Name (assignment id)``; the row
  under the header is ``Points Possible``.  Canvas matches a row by ``ID`` (the Canvas
  user id, which a Canvas submissions zip puts in every file name), the SIS ids or the
  name.  An assignment column without ``(id)`` makes a new assignment.
- ``moodle.csv``: Moodle's assignment grading worksheet (Assignment > View all
  submissions > Upload grading worksheet, with "Offline grading worksheet" feedback on).
  Moodle's importer finds its columns by name: ``Identifier`` (``Participant N``, the
  same N a Moodle submissions download puts in every folder name), ``Grade`` and
  ``Last modified (grade)``; ``Full name``, ``Maximum grade`` and ``Feedback comments``
  are read or shown.
- ``questions.csv``: one row per student and question (student, question, points,
  possible, status, mistake): a long table for a spreadsheet or pandas.

A row the instructor must look at before it counts (``several notebooks``, ``grader
error``, a link out of the folder) is left blank in the LMS files: a blank cell changes
nothing in Canvas or Moodle, where a 0 would overwrite a grade.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from .scoring import points_text
from .statuses import NOT_A_MARK

FORMATS = ("canvas", "moodle", "questions")

CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_COLUMNS = ["Identifier", "Full name", "Grade", "Maximum grade", "Last modified (grade)",
                  "Feedback comments"]
QUESTION_COLUMNS = ["student", "question", "points", "possible", "status", "mistake"]


def _csv(rows: list[list]) -> str:
    from .gradebook import csv_text
    return csv_text(rows)


def _mark(row: dict) -> str:
    return "" if row["status"] in NOT_A_MARK else points_text(row["total"])


def canvas_csv(results: dict, assignment: str | None = None) -> str:
    """Canvas's import format; ``assignment`` is the column, e.g. ``Weather (12345)``."""
    column = assignment or results["exercise"]
    rows = [CANVAS_COLUMNS + [column],
            ["Points Possible", "", "", "", "", points_text(results["maximum"])]]
    for row in results["submissions"]:
        source = row.get("source", {})
        canvas_id = source.get("lms_id", "") if source.get("lms") == "canvas" else ""
        rows.append([row["submission"], canvas_id, "", "", "", _mark(row)])
    return _csv(rows)


def moodle_csv(results: dict, modified: float | None = None) -> str:
    """Moodle's grading worksheet; ``modified`` (a Unix time, default now) must be later
    than a grade already in Moodle for the upload to replace it."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(modified or time.time()))
    rows = [MOODLE_COLUMNS]
    for row in results["submissions"]:
        source = row.get("source", {})
        ident = f"Participant {source['lms_id']}" if source.get("lms") == "moodle" else ""
        comment = f"{row['status']}: {points_text(row['total'])} / {points_text(row['maximum'])}; " \
                  f"details in {row.get('feedback', 'the feedback page')}"
        rows.append([ident, row["submission"], _mark(row), points_text(row["maximum"]), stamp,
                     comment])
    return _csv(rows)


def questions_csv(results: dict) -> str:
    rows = [QUESTION_COLUMNS]
    for row in results["submissions"]:
        for question in row["questions"]:
            rows.append([row["submission"], question["id"], points_text(question["score"]),
                         points_text(question["points"]), question["status"],
                         "; ".join(question.get("mistakes", []))])
    return _csv(rows)


def write_exports(out_dir: str | Path, formats=FORMATS, *, canvas_assignment: str | None = None,
                  results: dict | None = None) -> list[Path]:
    """Write the requested files beside ``grades.csv`` in ``out_dir``; return their paths."""
    from .gradebook import write_atomic
    out_dir = Path(out_dir)
    if results is None:
        source = out_dir / "results.json"
        if not source.is_file():
            raise FileNotFoundError(f"{source} not found: grade the batch first (nbcourse grade)")
        results = json.loads(source.read_text(encoding="utf-8"))
    unknown = set(formats) - set(FORMATS)
    if unknown:
        raise ValueError(f"unknown format(s) {', '.join(sorted(unknown))}; "
                         f"choose from {', '.join(FORMATS)}")
    written = []
    for name in formats:
        if name == "canvas":
            text = canvas_csv(results, canvas_assignment)
        elif name == "moodle":
            text = moodle_csv(results)
        else:
            text = questions_csv(results)
        path = out_dir / f"{name}.csv"
        write_atomic(path, text)
        written.append(path)
    return written
