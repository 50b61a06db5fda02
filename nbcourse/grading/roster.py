"""The class list an LMS exports, and which graded folder belongs to which student.

``read_roster`` reads one of:

- a Canvas gradebook export (Grades > Export): ``Student`` (``Last, First``), ``ID`` (the
  Canvas user id), ``SIS User ID``, ``SIS Login ID``, optionally ``Integration ID``,
  ``Section``, then the assignments as ``Name (id)``; a ``Points Possible`` row (and a
  ``Manual Posting`` row) under the header are not students;
- a Moodle participants or gradebook export: ``First name``, ``Last name`` (or ``Full
  name``), and whichever identity fields the site shows: ``ID number``, ``Email
  address``, ``Username`` (or the field names ``firstname``, ``lastname``, ``idnumber``,
  ``email``, ``username`` of Moodle's user download);
- a Moodle assignment's grading worksheet (Download grading worksheet): ``Identifier``
  (``Participant N``, that assignment's own number for the student), ``Full name``,
  ``Email address``.

``match`` pairs each graded submission (a folder's or file's name) with a student.  By
default a name matches a student's login (``SIS Login ID``, ``Username``), e-mail address
(the login's or the e-mail's part before ``@`` too), or full name (``First Last`` or
``Last, First``), compared after Unicode NFC normalisation and case folding, so
``José``, ``Jose\u0301`` and ``JOSÉ`` are one name.  ``column`` names the one roster
column to use instead.  A submission from an LMS zip is matched by the LMS's own id
first.  A name that fits two students matches neither: that is reported, never guessed.

``absent`` names the roster students no submission can be: ``nbcourse grade --roster``
gives each a ``not submitted`` row (a *roster row*) whose source is ``lms: "roster"``
and ``lms_id: identity(student)``, so that it is matched by that identity, and only
when no submission is the student's (a folder that comes later wins).
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Student", "Roster", "read_roster", "match", "normalise", "identity", "absent",
           "students_of", "still_absent", "row_name", "ROSTER_ROW"]

ROSTER_ROW = "roster"  # the ``lms`` of a row made for a roster student with no submission


@dataclass
class Student:
    name: str                     # as the LMS shows it (Canvas: "Last, First")
    full_name: str                # "First Last"
    lms_id: str = ""              # Canvas user id
    sis_user_id: str = ""
    login: str = ""               # Canvas SIS Login ID, Moodle username
    email: str = ""
    idnumber: str = ""            # Moodle ID number
    section: str = ""
    participant: str = ""         # Moodle worksheet: the N of "Participant N"
    sortable_name: str = ""       # "Last, First"
    fields: dict = field(default_factory=dict)  # every column of the roster row


@dataclass
class Roster:
    kind: str                     # "canvas", "moodle" or "moodle-worksheet"
    students: list[Student]
    path: str = ""
    assignments: list[str] = field(default_factory=list)  # Canvas: "Name (id)" columns
    points: dict[str, float] = field(default_factory=dict)  # an item's maximum, by column


def normalise(text: str) -> str:
    """How names are compared: NFC, case folded, inner blanks made single."""
    text = unicodedata.normalize("NFC", str(text)).casefold()
    return " ".join(text.split())


def _cell(row: dict, *names: str) -> str:
    for name in names:
        if row.get(name):
            return row[name].strip()
    return ""


_CANVAS_INFO = {"Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Section",
                "Root Account"}
_CANVAS_TOTALS = re.compile(r"(Current|Final|Unposted|Override) (Score|Points|Grade|Status)")


def _number(text: str) -> float | None:
    try:
        value = float(str(text).strip().replace(",", "."))
    except ValueError:
        return None
    return value if value > 0 else None


def _from_canvas(header: list[str], rows: list[dict]) -> Roster:
    students, points = [], {}
    for row in rows:
        name = _cell(row, "Student")
        if "Points Possible" in name:
            points = {k: _number(v) for k, v in row.items() if _number(v) is not None}
            continue
        if not any(v.strip() for v in row.values() if v):
            continue
        if all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", v or "", re.I)
               for v in row.values()):
            continue
        last, _, first = name.partition(",")
        full = f"{first.strip()} {last.strip()}".strip() if first else name
        students.append(Student(name=name, full_name=full, lms_id=_cell(row, "ID"),
                                sis_user_id=_cell(row, "SIS User ID"),
                                login=_cell(row, "SIS Login ID"), section=_cell(row, "Section"),
                                sortable_name=name, fields=dict(row)))
    assignments = [h for h in header if h not in _CANVAS_INFO and not _CANVAS_TOTALS.search(h)]
    return Roster("canvas", students, assignments=assignments,
                  points={k: v for k, v in points.items() if k in assignments})


def _from_moodle(header: list[str], rows: list[dict]) -> Roster:
    worksheet = "Identifier" in header
    students = []
    for row in rows:
        first, last = _cell(row, "First name"), _cell(row, "Last name")
        full = _cell(row, "Full name") or f"{first} {last}".strip()
        if not full and not _cell(row, "Email address", "Username", "ID number"):
            continue
        participant = ""
        if worksheet:
            found = re.search(r"(\d+)\s*$", _cell(row, "Identifier"))
            participant = found.group(1) if found else ""
        students.append(Student(name=full, full_name=full, login=_cell(row, "Username"),
                                email=_cell(row, "Email address"),
                                idnumber=_cell(row, "ID number"), participant=participant,
                                sortable_name=f"{last}, {first}" if first and last else "",
                                fields=dict(row)))
    maxima = {_number(s.fields.get("Maximum grade", "")) for s in students} - {None}
    points = {"": maxima.pop()} if len(maxima) == 1 else {}
    return Roster("moodle-worksheet" if worksheet else "moodle", students, points=points)


# Moodle's site-level user download names its columns by field (``firstname``, ...)
_ALIASES = {"firstname": "First name", "lastname": "Last name", "idnumber": "ID number",
            "email": "Email address", "username": "Username"}


def read_roster(path: str | Path) -> Roster:
    """Read a Canvas gradebook export, a Moodle participants or gradebook export, or a
    Moodle grading worksheet (see the module's description)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"--roster {path}: no such file")
    raw = path.read_bytes()
    text = raw.decode("utf-8-sig", errors="replace")
    sample = text.split("\n", 1)[0]
    delimiter = ";" if sample.count(";") > sample.count(",") else ","
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    header = [_ALIASES.get(h.strip().casefold(), h.strip()) for h in (reader.fieldnames or [])]
    reader.fieldnames = header
    rows = [{k: (v or "") for k, v in row.items() if k is not None} for row in reader]
    if len(header) > 1 and "Student" in header[0] and header[1].strip() == "ID":
        roster = _from_canvas(header, rows)
    elif {"First name", "Last name"} <= set(header) or "Identifier" in header \
            or ("Full name" in header and ({"Email address", "Username", "ID number"}
                                           & set(header))):
        roster = _from_moodle(header, rows)
    else:
        raise ValueError(
            f"--roster {path}: not a Canvas gradebook export (Student, ID, SIS User ID, ...) "
            "nor a Moodle participants export (First name, Last name, Email address, ...) "
            f"nor a Moodle grading worksheet (Identifier, Full name, ...); its columns are "
            f"{', '.join(header[:8]) or 'none'}")
    if not roster.students:
        raise ValueError(f"--roster {path}: no students in it")
    roster.path = str(path)
    return roster


def _keys(student: Student, column: str | None) -> set[str]:
    if column is not None:
        value = student.fields.get(column, "")
        return {normalise(value)} if value.strip() else set()
    keys = {student.login, student.email, student.full_name, student.name, student.sortable_name}
    keys |= {k.partition("@")[0] for k in (student.login, student.email) if "@" in k}
    return {normalise(k) for k in keys if k and k.strip()}


def _candidates(roster: Roster, by_key: dict, row: dict) -> tuple[set[int], bool]:
    """The roster students a results.json row may be, and whether by the LMS's own id
    (from the LMS's zip) rather than by a name."""
    source = row.get("source") or {}
    if source.get("lms") == ROSTER_ROW:
        return students_of(roster, str(source.get("lms_id", ""))), True
    if source.get("lms_id"):
        attribute = {"canvas": "lms_id", "moodle": "participant"}.get(source.get("lms"))
        if attribute:
            found = {i for i, s in enumerate(roster.students)
                     if getattr(s, attribute) == str(source["lms_id"])}
            if found:
                return found, True
    return by_key.get(normalise(row["submission"]), set()), False


def match(roster: Roster, submissions: list[dict], column: str | None = None
          ) -> tuple[dict[int, dict], list[dict], list[str]]:
    """Pair results.json rows with roster students.

    Returns ({index of the student in roster.students: submission row}, the rows that
    match no student, warnings).  A row from an LMS zip is matched by the LMS's id
    (Canvas user id, Moodle participant number) before its name.
    """
    by_key = _by_key(roster, column)
    placeholders = [r for r in submissions if _is_roster_row(r)]
    submissions = [r for r in submissions if not _is_roster_row(r)]
    matched: dict[int, dict] = {}
    by_id: dict[int, bool] = {}  # matched by the LMS's own id (from its zip), not by a name
    contested: dict[int, list] = {}  # students two submissions claim: neither is exported
    unmatched, left_out, warnings = [], [], []
    for row in submissions:
        found, strong = _candidates(roster, by_key, row)
        if len(found) > 1:
            names = ", ".join(roster.students[i].name for i in sorted(found))
            warnings.append(f"{row['submission']!r} fits several students on the roster "
                            f"({names}); it is left out of the LMS files")
            unmatched.append(row)
        elif not found:
            unmatched.append(row)
        else:
            (index,) = found
            if index in contested:
                contested[index].append(row)
            elif index in matched and by_id[index] != strong:  # the LMS's id wins over a name
                loser = row if by_id[index] else matched[index]
                if strong:
                    matched[index], by_id[index] = row, strong
                warnings.append(f"{loser['submission']!r} is named like "
                                f"{roster.students[index].name!r}, whose LMS id came with "
                                "another submission: it is left out of the LMS files")
                left_out.append(loser)
            elif index in matched:
                # two folders that differ only in case, accents' encoding or an id both
                # claim one student: exporting either could put one student's mark in
                # another's name, so neither is exported
                contested[index] = [matched.pop(index), row]
            else:
                matched[index], by_id[index] = row, strong
    for index, rows in contested.items():
        claims = " and ".join(repr(r["submission"]) for r in rows)
        warnings.append(f"{roster.students[index].name!r} is claimed by {claims}: neither is "
                        "exported to the LMS files (a name can be made to look like a "
                        "classmate's); rename the folders or use --roster-column, then export again")
    left_out += [row for rows in contested.values() for row in rows]
    for row in placeholders:  # a roster row stands in only for a student nobody claims
        found, _ = _candidates(roster, by_key, row)
        if len(found) == 1 and not found & (set(matched) | set(contested)):
            matched[found.pop()] = row
    for row in unmatched:
        warnings.append(f"{row['submission']!r} is not on the roster {roster.path}; it is "
                        "left out of the LMS files (rename the folder or use --roster-column)")
    return matched, unmatched + left_out, warnings


def _is_roster_row(row: dict) -> bool:
    return (row.get("source") or {}).get("lms") == ROSTER_ROW


def _by_key(roster: Roster, column: str | None) -> dict[str, set[int]]:
    """{normalised name: the students it may be}; a ValueError for an unknown column."""
    if column is not None:
        columns = set().union(*(s.fields for s in roster.students))
        if column not in columns:
            raise ValueError(f"--roster-column {column!r} is not a column of {roster.path}; "
                             f"its columns are {', '.join(sorted(columns))}")
    by_key: dict[str, set[int]] = {}
    for index, student in enumerate(roster.students):
        for key in _keys(student, column):
            by_key.setdefault(key, set()).add(index)
    return by_key


def _identities(student: Student) -> list[str]:
    """Every name the LMS knows the student by, the surest first: its ids, a login, an
    e-mail address, then the full name."""
    pairs = (("canvas", student.lms_id), ("moodle", student.participant),
             ("sis", student.sis_user_id), ("idnumber", student.idnumber),
             ("login", student.login), ("email", student.email),
             ("name", student.full_name or student.name))
    return [f"{kind}:{normalise(value)}" for kind, value in pairs if normalise(value)]


def identity(student: Student) -> str:
    """What a roster row carries as its ``lms_id``: every name of ``_identities``, one a
    line, so that the row is found again by a roster of another kind (a Canvas export at
    grading, the Moodle worksheet at export) by the surest name both share."""
    return "\n".join(_identities(student))


def students_of(roster: Roster, ident: str) -> set[int]:
    """The students of a roster row's ``identity``, by its surest name that fits any."""
    for key in ident.split("\n"):
        found = {i for i, s in enumerate(roster.students) if key in _identities(s)}
        if found:
            return found
    return set()


def still_absent(roster: Roster, ident: str, missing: dict) -> str:
    """The student's ``identity`` today when a roster row's ``ident`` finds one student of
    ``missing`` (``absent``'s), else ""."""
    found = students_of(roster, ident)
    now = identity(roster.students[found.pop()]) if len(found) == 1 else ""
    return now if now in missing else ""


def absent(roster: Roster, rows: list[dict], column: str | None = None) -> dict[str, Student]:
    """{identity: student} of the roster students that none of ``rows`` (results.json
    rows: ``submission`` and ``source``; roster rows aside) can be.  A name that fits
    several students counts for each of them: none is said to have handed in nothing."""
    by_key = _by_key(roster, column)
    claimed: set[int] = set()
    for row in rows:
        if not _is_roster_row(row):
            claimed |= _candidates(roster, by_key, row)[0]
    return {identity(s): s for i, s in enumerate(roster.students) if i not in claimed}


def row_name(student: Student, column: str | None, taken: set[str]) -> str:
    """The submission name of a roster row: the folder name the student would have had
    (the ``column``'s value, a login, an e-mail address or the full name), made unique."""
    value = student.fields.get(column, "").strip() if column is not None else ""
    name = value or student.login or student.email or student.full_name or student.name
    unique, number = name, 1
    while normalise(unique) in taken:
        number += 1
        unique = f"{name} (roster {number})"
    return unique
