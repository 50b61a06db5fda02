"""Gradebooks an LMS imports as they are, written from one or more batches' ``results.json``.

- ``canvas.csv``: Canvas's gradebook import (Grades > Import), one file for every exercise
  exported together.  Columns ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``,
  ``Section``, then one column per exercise named ``Name (assignment id)``; the row under
  the header is ``Points Possible``.  Canvas's importer matches a row by ``ID`` (the
  Canvas user id), then ``SIS User ID``, then ``SIS Login ID``, then the exact display
  name, so with a roster (``roster``) every row carries the roster's own ids.  A column
  without ``(id)`` is matched by title or made a new assignment.  Canvas's import has no
  comment column: feedback goes back through Moodle's routes or the feedback pages.
- ``moodle.csv``: Moodle's assignment grading worksheet (Upload grading worksheet, with
  "Offline grading worksheet" feedback on).  Moodle finds its columns by their names in
  the site's language (``Identifier``, ``Grade``, ``Last modified (grade)`` and the
  comments plugin's ``Feedback comments``), and reads the participant number from
  ``Identifier`` after skipping as many characters as its word "Participant" has; the
  number is the assignment's own, from a Moodle submissions zip or the assignment's
  downloaded worksheet given as the roster.
- ``moodle-grades.csv``: Moodle's gradebook import (Grades > Import > CSV file): the
  user columns a roster has (``Email address``, ``ID number``, ``Username``), then for
  every exercise a grade column and a feedback column, mapped in Moodle's import form.
- ``moodle-feedback.zip``: each student's feedback page for Moodle's "Upload multiple
  feedback files in a zip" (File feedback on).  Moodle reads a name
  ``Full name_<participant number>_assignfeedback_file_<file>``: the second part,
  split at ``_``, is the participant number, the third and fourth name the plugin, the
  rest is the file's name as the student sees it.
- ``questions.csv``: one row per student and question (student, question, points,
  possible, status, mistake): a long table for a spreadsheet or pandas.

A row with no mark of the student's work (``not submitted``, ``several notebooks``,
``grader error``, a link out of the folder) is blank in the LMS files, where a 0 would be
a mark: Moodle's worksheet upload skips a blank grade, Moodle's gradebook import reads it
as "no grade" and Canvas's as no score.
"""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

from .roster import ROSTER_ROW, Roster, Student, match, read_roster
from .scoring import points_text
from .statuses import NO_MARK, Status

FORMATS = ("canvas", "moodle", "moodle-grades", "moodle-feedback", "questions")
DEFAULT_FORMATS = ("canvas", "moodle", "questions")
#: What ``grade --roster`` and ``export --roster`` write when no ``--format`` is given: a
#: roster gives every student's LMS ids, so Moodle's gradebook import too.
ROSTER_FORMATS = ("canvas", "moodle", "moodle-grades", "questions")

CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
QUESTION_COLUMNS = ["student", "question", "points", "possible", "status", "mistake"]

#: The worksheet's headers as Moodle names them in each language (Moodle 4.5's language
#: strings: core ``gradenoun``; assign ``recordid``, ``maxgrade``, ``lastmodifiedgrade``,
#: ``hiddenuser``; core ``fullnameuser``, ``email``; assignfeedback_comments
#: ``pluginname``).  The importer needs Identifier, Grade, Last modified (grade) and reads
#: Feedback comments; the others are for the person reading the file.
MOODLE_HEADERS = {
    "en": {"id": "Identifier", "name": "Full name", "email": "Email address", "grade": "Grade",
           "max": "Maximum grade", "modified": "Last modified (grade)",
           "comments": "Feedback comments", "participant": "Participant"},
    "fr": {"id": "Identifiant", "name": "Nom complet de l\u2019utilisateur",
           "email": "Adresse de courriel", "grade": "Note", "max": "Note maximale",
           "modified": "Derni\u00e8re modification (note)",
           "comments": "Feedback par commentaires", "participant": "Participant"},
    "de": {"id": "ID", "name": "Vollst\u00e4ndiger Name", "email": "E-Mail-Adresse",
           "grade": "Bewertung", "max": "Bestwertung",
           "modified": "Zuletzt ge\u00e4ndert (Bewertung)",
           "comments": "Feedback als Kommentar", "participant": "Teilnehmer/in"},
}
LANGUAGES = tuple(MOODLE_HEADERS)
MOODLE_COLUMNS = [MOODLE_HEADERS["en"][k] for k in
                  ("id", "name", "email", "grade", "max", "modified", "comments")]

#: What a student reads about each status (never a file path or a grader option).
STUDENT_WORDS = {
    Status.NOT_SUBMITTED: "No notebook was received for this exercise.",
    Status.SEVERAL_NOTEBOOKS: "More than one notebook was handed in; your instructor will "
                              "grade the right one.",
    Status.LINK_OUTSIDE: "What was handed in is a link, not a notebook; your instructor will "
                         "look at it.",
    Status.DANGLING_LINK: "What was handed in is a link, not a notebook; your instructor will "
                          "look at it.",
    Status.NOT_A_NOTEBOOK: "The file handed in could not be opened as a Jupyter notebook.",
    Status.EMPTY_NOTEBOOK: "The notebook handed in has no code in it.",
    Status.GRADER_ERROR: "Your notebook could not be graded automatically; your instructor "
                         "will look at it.",
    Status.MEMORY_LIMIT: "Your notebook ran out of memory when it was run; the answers "
                         "defined before that were graded.",
    Status.KERNEL_DIED: "Python stopped while your notebook ran; the answers defined before "
                        "that were graded.",
    Status.TIMED_OUT: "A cell ran longer than the time allowed; the answers defined before "
                      "that were graded.",
    Status.CELL_ERROR: "A cell raised an error when the notebook was run from the top; the "
                       "answers it still defined were graded.",
    Status.ANSWER_MISSING: "An answer was not defined after the notebook ran: check its name.",
    Status.ANSWERS_UNREADABLE: "Your answers could not be read back; your instructor will "
                               "look at it.",
}


def _csv(rows: list[list]) -> str:
    from .gradebook import csv_text
    return csv_text(rows)


def _scaled(points, results: dict, scale: float | None) -> float:
    if scale is None:
        return float(points)
    return float(points) * scale / float(results["maximum"]) if results["maximum"] else 0.0


def _blank(row: dict | None) -> bool:
    """A row that is no mark of the student's work, and that no override gave points."""
    return row is None or (row["status"] in NO_MARK and not row.get("overrides"))


def _mark(row: dict | None, results: dict | None = None, scale: float | None = None) -> str:
    """The LMS's grade: blank for a row that is no mark, else the total (scaled); a row
    with overrides is a mark the instructor set, whatever its status."""
    if _blank(row):
        return ""
    return points_text(_scaled(row["total"], results or {"maximum": 1}, scale))


def _maximum(results: dict, scale: float | None) -> str:
    return points_text(scale if scale is not None else results["maximum"])


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "\u2026"


def comment(row: dict | None) -> str:
    """A short text for the student: the points of each question and the main mistake."""
    if row is None:
        return STUDENT_WORDS[Status.NOT_SUBMITTED]
    parts = []
    if row["status"] != Status.GRADED:
        parts.append(STUDENT_WORDS.get(row["status"], ""))
    if row["status"] in NO_MARK and row.get("overrides"):  # no run: only the marks set by hand
        parts.append(f"{points_text(row['total'])} of {points_text(row['maximum'])} points, "
                     "set by your instructor: " + "; ".join(
                         f"{o['question']} {points_text(o['points'])} ({_short(o['reason'], 80)})"
                         for o in row["overrides"]) + ".")
    elif not _blank(row):
        questions = row.get("questions", [])
        parts.append(f"{points_text(row['total'])} of {points_text(row['maximum'])} points: "
                     + "; ".join(f"{q['id']} {points_text(q['score'])}/{points_text(q['points'])}"
                                 for q in questions) + ".")
        mistaken = [q for q in questions if q.get("diagnosis")]
        if mistaken:
            worst = max(mistaken, key=lambda q: float(q["points"]) - float(q["score"]))
            parts.append(f"Main mistake ({worst['id']}): {_short(worst['diagnosis'])}")
        else:
            lost = [q for q in questions if float(q["score"]) < float(q["points"])]
            if lost:
                worst = max(lost, key=lambda q: float(q["points"]) - float(q["score"]))
                parts.append(f"Most points lost on {worst['id']} ({_short(worst['title'], 80)}): "
                             f"{worst['status']}.")
    return " ".join(p for p in parts if p)


class _Class:
    """Who is in the class and their row in each exercise's results."""

    def __init__(self, batches: list[dict], roster: Roster | None, column: str | None):
        self.batches, self.roster, self.warnings = batches, roster, []
        if roster is None:  # one line per submission name, in first-seen order
            names: dict[str, Student] = {}
            lines: dict[str, int] = {}
            self.rows: list[list[dict | None]] = []
            for number, results in enumerate(batches):
                for row in results["submissions"]:
                    name = row["submission"]
                    if name not in names:
                        names[name] = Student(name=name, full_name=name)
                        lines[name] = len(self.rows)
                        self.rows.append([None] * len(batches))
                    self.rows[lines[name]][number] = row
                    source = dict(row.get("source") or {})
                    if source.get("lms") == ROSTER_ROW:  # "canvas:1004\n...", "moodle:12\n..."
                        first = str(source.get("lms_id", "")).split("\n")[0]
                        source["lms"], _, source["lms_id"] = first.partition(":")
                    if source.get("lms") == "canvas":
                        names[name].lms_id = str(source.get("lms_id", ""))
                    elif source.get("lms") == "moodle":
                        names[name].participant = str(source.get("lms_id", ""))
            self.students = list(names.values())
            self.participants = [{i: s.participant for i, s in enumerate(self.students)}
                                 for _ in batches]
            return
        self.students = roster.students
        self.rows = [[None] * len(batches) for _ in self.students]
        self.participants = []
        for number, results in enumerate(batches):
            found, unmatched, warnings = match(roster, results["submissions"], column)
            label = f"{results['exercise']}: " if len(batches) > 1 else ""
            self.warnings += [label + w for w in warnings]
            for index, row in found.items():
                self.rows[index][number] = row
            ids = {}
            for index, student in enumerate(self.students):
                source = (found.get(index) or {}).get("source") or {}
                ids[index] = (str(source["lms_id"]) if source.get("lms") == "moodle"
                              else student.participant)
            self.participants.append(ids)
        used = {id(row) for line in self.rows for row in line if row is not None}
        self.unmatched = [(results["exercise"], row) for results in self.batches
                          for row in results["submissions"] if id(row) not in used
                          and (row.get("source") or {}).get("lms") != ROSTER_ROW]


def canvas_csv(results: dict | list[dict], assignment: str | list | None = None, *,
               roster: Roster | None = None, roster_column: str | None = None,
               scale=None, _class: _Class | None = None) -> str:
    """Canvas's import format for one or several exercises; ``assignment`` is each
    exercise's column, e.g. ``Weather (12345)``."""
    batches = results if isinstance(results, list) else [results]
    columns = _per_exercise(assignment, batches, "--canvas-assignment")
    scales = _per_exercise(scale, batches, "--scale")
    everyone = _class or _Class(batches, roster, roster_column)
    names = [column or _canvas_column(b, roster) for column, b in zip(columns, batches)]
    rows = [CANVAS_COLUMNS + names,
            ["Points Possible", "", "", "", ""] + [_maximum(b, s) for b, s in zip(batches, scales)]]
    for student, line in zip(everyone.students, everyone.rows):
        rows.append([student.name, student.lms_id, student.sis_user_id, student.login,
                     student.section] + [_mark(r, b, s) for r, b, s in zip(line, batches, scales)])
    return _csv(rows)


def _canvas_column(results: dict, roster: Roster | None) -> str:
    """The roster's own ``Name (id)`` column for this exercise, when its title or name
    is the assignment's name; else the exercise's name (a new assignment in Canvas)."""
    if roster is not None:
        wanted = {results["exercise"].casefold(), str(results.get("title", "")).casefold()}
        for column in roster.assignments:
            title = re.sub(r"\s+\(\d+\)$", "", column).strip().casefold()
            if title in wanted:
                return column
    return results["exercise"]


def _per_exercise(value, batches: list[dict], option: str) -> list:
    """One value per exercise from None, one value, or a list with one per exercise."""
    if isinstance(value, (list, tuple)):
        return _one_each(list(value), batches, option)
    if value is None:
        return [None] * len(batches)
    if isinstance(value, str) and len(batches) > 1:
        raise ValueError(f"{option} is given once for {len(batches)} exercises: give it once "
                         "per graded folder, in the same order")
    return [value] * len(batches)


def _one_each(values: list, batches: list[dict], option: str) -> list:
    if not values:
        return [None] * len(batches)
    if len(values) == 1 and not isinstance(values[0], str):
        return values * len(batches)
    if len(values) != len(batches):
        raise ValueError(f"{option} is given {len(values)} time(s) for {len(batches)} "
                         "exercise(s): give it once per graded folder, in the same order")
    return values


def moodle_csv(results: dict, modified: float | None = None, *, roster: Roster | None = None,
               roster_column: str | None = None, scale: float | None = None,
               language: str = "en", _class: _Class | None = None, _number: int = 0) -> str:
    """Moodle's grading worksheet; ``modified`` (a Unix time, default now) must be later
    than a grade already in Moodle for the upload to replace it."""
    if language not in MOODLE_HEADERS:
        raise ValueError(f"--lms-language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    words = MOODLE_HEADERS[language]
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(modified or time.time()))
    everyone = _class or _Class([results], roster, roster_column)
    rows = [[words[k] for k in ("id", "name", "email", "grade", "max", "modified", "comments")]]
    for index, (student, line) in enumerate(zip(everyone.students, everyone.rows)):
        row = line[_number]
        number = everyone.participants[_number].get(index, "")
        # Moodle skips len(its word) characters, then looks the number up as an integer:
        # "Participant 12" reads as 12 whether the word is stored with its blank or not.
        ident = f"{words['participant']} {number}" if number else ""
        rows.append([ident, student.full_name, student.email, _mark(row, results, scale),
                     _maximum(results, scale), stamp, comment(row)])
    return _csv(rows)


def moodle_grades_csv(batches: list[dict], *, roster: Roster | None = None,
                      roster_column: str | None = None, scale=None,
                      _class: _Class | None = None) -> str:
    """Moodle's gradebook import (grade/import/csv): user columns, then a grade and a
    feedback column per exercise."""
    scales = _per_exercise(scale, batches, "--scale")
    everyone = _class or _Class(batches, roster, roster_column)
    users = [("Email address", "email"), ("ID number", "idnumber"), ("Username", "login")]
    users = [(h, a) for h, a in users if any(getattr(s, a) for s in everyone.students)]
    if not users:
        users = [("Student", "name")]
    header = ["Full name"] + [h for h, _ in users]
    for results in batches:
        title = results.get("title") or results["exercise"]
        header += [title, f"{title} (feedback)"]
    rows = [header]
    for student, line in zip(everyone.students, everyone.rows):
        cells = [student.full_name] + [getattr(student, a) for _, a in users]
        for row, results, s in zip(line, batches, scales):
            cells += [_mark(row, results, s), comment(row)]
        rows.append(cells)
    return _csv(rows)


def moodle_feedback_zip(results: dict, folder: Path, everyone: _Class, number: int = 0) -> bytes:
    """The feedback pages of the students with a participant number, named for Moodle."""
    import io as _io
    import zipfile
    buffer = _io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for index, (student, line) in enumerate(zip(everyone.students, everyone.rows)):
            row, participant = line[number], everyone.participants[number].get(index, "")
            if row is None or not participant or not row.get("feedback"):
                continue
            page = folder / "feedback" / Path(row["feedback"]).name
            if not page.is_file():
                continue
            # "_" splits Moodle's name into its parts and "/" is a folder: neither may come
            # from the student's name, nor a control character (a line break in a file name);
            # a leading "." or "~" would make Moodle skip the file
            printable = "".join(c if c.isprintable() else " " for c in student.full_name)
            who = re.sub(r"[_/\\]+", " ", printable).lstrip(".~ ") or "student"
            name = f"{who}_{participant}_assignfeedback_file_{results['exercise']}-feedback.html"
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, page.read_bytes())
    return buffer.getvalue()


def questions_csv(results: dict) -> str:
    rows = [QUESTION_COLUMNS]
    for row in results["submissions"]:
        for question in row["questions"]:
            rows.append([row["submission"], question["id"], points_text(question["score"]),
                         points_text(question["points"]), question["status"],
                         "; ".join(question.get("mistakes", []))])
    return _csv(rows)


def roster_csv(everyone: _Class) -> str:
    """Who matched what: every roster student, then every submission not on the roster."""
    rows = [["student", "exercise", "submission", "status", "total", "note"]]
    for student, line in zip(everyone.students, everyone.rows):
        for results, row in zip(everyone.batches, line):
            rows.append([student.name, results["exercise"], row["submission"] if row else "",
                         row["status"] if row else Status.NOT_SUBMITTED,
                         points_text(row["total"]) if row else "",
                         "" if row else "no submission matched this student"])
    for exercise, row in getattr(everyone, "unmatched", []):
        rows.append(["", exercise, row["submission"], row["status"], points_text(row["total"]),
                     "not on the roster: left out of the LMS files"])
    return _csv(rows)


def _load(out_dir: Path) -> dict:
    source = out_dir / "results.json"
    if not source.is_file():
        raise FileNotFoundError(f"{source} not found: grade the batch first (nbcourse grade)")
    return json.loads(source.read_text(encoding="utf-8"))


def write_exports(out_dir: str | Path | list, formats=DEFAULT_FORMATS, *,
                  canvas_assignment=None, results: dict | None = None,
                  roster: str | Path | Roster | None = None, roster_column: str | None = None,
                  scale=None, language: str = "en", to: str | Path | None = None,
                  warnings: list | None = None) -> list[Path]:
    """Write the requested files and return their paths.

    ``out_dir``: one graded folder (the files go beside its ``grades.csv``) or a list of
    them (one Canvas and one Moodle gradebook file for all; ``to`` is then required).
    ``canvas_assignment`` and ``scale``: one value, or one per folder.  ``roster``: a
    roster file (see ``roster``); ``warnings`` collects what the instructor must see.
    """
    from .gradebook import write_atomic
    folders = [Path(p) for p in out_dir] if isinstance(out_dir, (list, tuple)) else [Path(out_dir)]
    unknown = set(formats) - set(FORMATS)
    if unknown:
        raise ValueError(f"unknown format(s) {', '.join(sorted(unknown))}; "
                         f"choose from {', '.join(FORMATS)}")
    if language not in MOODLE_HEADERS:
        raise ValueError(f"--lms-language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    if len(folders) > 1 and to is None:
        raise ValueError("several graded folders: say where the files go with --to DIR")
    batches = [results] if results is not None and len(folders) == 1 else \
        [_load(folder) for folder in folders]
    scales = _per_exercise(scale, batches, "--scale")
    if any(value is not None and not float(value) > 0 for value in scales):
        raise ValueError(f"--scale must be a positive number of points, got {scales}")
    if isinstance(roster, (str, Path)):
        roster = read_roster(roster)
    if roster is not None and roster.kind == "moodle-worksheet" and len(batches) > 1 \
            and "moodle" in formats:
        raise ValueError("a Moodle grading worksheet numbers the participants of one "
                         "assignment: export each exercise with its own worksheet as --roster")
    columns = _per_exercise(canvas_assignment, batches, "--canvas-assignment")
    notes = _roster_scales(roster, batches, columns, scales)
    job = _Job(batches, folders, _Class(batches, roster, roster_column), roster, scales,
               columns, language)
    job.notes += notes
    target = Path(to) if to is not None else folders[0]
    written = []
    for name in list(formats) + (["roster"] if roster is not None else []):
        for file, data in job.files(name):
            path = target / file
            write_atomic(path, data)
            written.append(path)
    if warnings is not None:
        warnings.extend(job.notes)
    return written


def _roster_scales(roster: Roster | None, batches: list[dict], columns: list,
                   scales: list) -> list[str]:
    """Without --scale, an exercise's marks are written out of the roster's maximum for its
    item (Canvas's Points Possible, the worksheet's Maximum grade); say so."""
    notes = []
    for number, results in enumerate(batches):
        if roster is None or scales[number] is not None:
            continue
        column = ""
        if roster.kind == "canvas":
            column = columns[number] or _canvas_column(results, roster)
        maximum = roster.points.get(column)
        if maximum is not None and maximum != float(results["maximum"]):
            scales[number] = maximum
            notes.append(f"{results['exercise']}: marks written out of {points_text(maximum)} "
                         f"points, the maximum the roster gives{f' {column!r}' if column else ''}"
                         " (--scale changes it)")
    return notes


class _Job:
    """What one export writes: each format's files and the warnings they raise."""

    def __init__(self, batches, folders, everyone, roster, scales, columns, language):
        self.batches, self.folders, self.everyone, self.roster = batches, folders, everyone, roster
        self.scales, self.columns, self.language = scales, columns, language
        self.notes = list(everyone.warnings)

    def _name(self, stem: str, number: int, suffix: str = ".csv") -> str:
        if len(self.batches) == 1:
            return stem + suffix
        return f"{stem}-{self.batches[number]['exercise']}{suffix}"

    def files(self, name: str):
        batches, everyone = self.batches, self.everyone
        if name == "canvas":
            if self.roster is not None and self.roster.kind != "canvas":
                self.notes.append("canvas.csv: the roster is not a Canvas gradebook export, so "
                                  "its rows carry no Canvas ids and Canvas matches them by "
                                  "name only")
            for number, column in enumerate(self.columns):
                if column and not re.fullmatch(r".*\s\(\d+\)", column, re.S):
                    self.notes.append(f"canvas.csv: {column!r} has no assignment id "
                                      "('Name (12345)'): Canvas uses the assignment of exactly "
                                      "that name, or makes a new one")
            yield "canvas.csv", canvas_csv(batches, self.columns, roster=self.roster,
                                           scale=self.scales, _class=everyone)
        elif name == "moodle":
            for number, results in enumerate(batches):
                self._check_participants(number)
                yield self._name("moodle", number), moodle_csv(
                    results, roster=self.roster, scale=self.scales[number],
                    language=self.language, _class=everyone, _number=number)
        elif name == "moodle-feedback":
            for number, results in enumerate(batches):
                yield self._name("moodle-feedback", number, ".zip"), moodle_feedback_zip(
                    results, self.folders[number], everyone, number)
        elif name == "moodle-grades":
            yield "moodle-grades.csv", moodle_grades_csv(batches, roster=self.roster,
                                                         scale=self.scales, _class=everyone)
        elif name == "roster":
            yield "roster.csv", roster_csv(everyone)
        else:
            for number, results in enumerate(batches):
                yield self._name("questions", number), questions_csv(results)

    def _check_participants(self, number: int) -> None:
        everyone = self.everyone
        missing = [s.name for i, s in enumerate(everyone.students)
                   if not everyone.participants[number].get(i)]
        if missing:
            self.notes.append(
                f"{self.batches[number]['exercise']}: {len(missing)} student(s) have no Moodle "
                f"participant number (e.g. {missing[0]!r}), so Moodle's worksheet upload skips "
                "them: give the assignment's downloaded grading worksheet as --roster, grade "
                "Moodle's submissions zip, or import moodle-grades.csv instead")
