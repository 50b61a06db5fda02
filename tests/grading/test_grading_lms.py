"""The LMS files, checked the way each LMS reads them.

Each test replays, in a few lines of Python, the matching rules of the importer that
reads the file (read from the LMSs' own code):

- Canvas, app/models/gradebook_importer.rb: the header must start ``Student``, ``ID`` and
  name ``Section`` after the SIS columns; a ``Points Possible`` row sets the maximum; a row
  is matched by ``ID`` (the Canvas user id), then ``SIS User ID``, then ``SIS Login ID``,
  then the exact name or sortable name; an assignment column ``Title (id)`` is found by
  its id, else by exact title, else it becomes a new assignment.
- Moodle's grading worksheet, mod/assign/feedback/offline/importgradeslib.php: the
  columns are found by their names in the site's language; the identifier loses as many
  characters as the word for "Participant" has and the rest is looked up as the
  assignment's participant number; a blank grade, or one above the maximum, is skipped.
- Moodle's gradebook import, grade/import/csv/classes/load_data.php: the column the
  instructor maps to a user field (email, idnumber, username) must equal that field
  exactly; a blank or ``-`` grade is "no grade"; grades above 100 are refused.

The class has messy names: accents, a name in NFD, other case, a folder not on the roster
and a student with no submission.  The files are read as written, never edited.
"""
from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from nbcourse.grading import export
from nbcourse.grading.export import MOODLE_HEADERS, STUDENT_WORDS, write_exports
from nbcourse.grading.roster import match, read_roster

REPO = Path(__file__).resolve().parents[2]
NFD = lambda text: unicodedata.normalize("NFD", text)  # noqa: E731

# The LMS's own users: Canvas id, display name, sortable name, SIS id, login, e-mail,
# Moodle id number and the Moodle assignment's participant number.  José's Canvas login
# is his e-mail address.
USERS = [
    (1001, "José Núñez", "Núñez, José", "S-1", "jose.nunez@uni.example",
     "jose.nunez@uni.example", "N1", 5001),
    (1002, "Åsa Ørsted", "Ørsted, Åsa", "S-2", "aorsted", "asa.orsted@uni.example", "N2", 5002),
    (1003, "Ana Lee", "Lee, Ana", "S-3", "alee", "ana.lee@uni.example", "N3", 5003),
    (1004, "Bob Brown", "Brown, Bob", "S-4", "bbrown", "bob.brown@uni.example", "N4", 5004),
    (1005, "Zoë Smith", "Smith, Zoë", "S-5", "zsmith", "zoe.smith@uni.example", "N5", 5005),
]
# The folders the instructor collected: a login's local part in capitals, a full name in
# NFD, a sortable name in other case, a name in other case, and a stranger.  Bob handed in
# nothing.
FOLDERS = {"JOSE.NUNEZ": 1001, NFD("Åsa Ørsted"): 1002, "LEE, Ana": 1003,
           "zoë SMITH": 1005, "mallory": None}


def _question(qid, points, score, diagnosis=""):
    return {"id": qid, "name": qid.lower(), "title": f"question {qid}", "points": points,
            "score": score, "status": "passed" if score == points else "failed",
            "mistakes": ["counts"] if diagnosis else [], "diagnosis": diagnosis}


def _results(exercise="01_weather", title="Weather", shift=0.0) -> dict:
    rows = []
    for n, name in enumerate(FOLDERS):
        score = 3.5 + n % 2 - shift
        rows.append({"submission": name, "status": "graded", "total": score + 5,
                     "maximum": 10, "feedback": f"feedback/{name}.html",
                     "questions": [_question("Q1", 5, 5), _question(
                         "Q2", 5, score, "Known mistake (counts): divide by the class total")]})
    rows[2]["status"] = "cell error"
    return {"exercise": exercise, "title": title, "maximum": 10, "submissions": rows}


def _write(path: Path, rows: list[list[str]], delimiter=",") -> Path:
    with path.open("w", encoding="utf-8", newline="") as out:
        csv.writer(out, delimiter=delimiter).writerows(rows)
    return path


def _canvas_roster(tmp_path) -> Path:
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Weather (4321)",
             "Smoothing (4322)", "Current Score"],
            ["    Points Possible", "", "", "", "", "100", "50", "(read only)"]]
    rows += [[u[2], str(u[0]), u[3], u[4], "Sec A", "", "", ""] for u in USERS]
    return _write(tmp_path / "canvas-export.csv", rows)


def _moodle_participants(tmp_path) -> Path:
    rows = [["First name", "Last name", "ID number", "Email address", "Roles", "Status"]]
    rows += [[u[1].split()[0], u[1].split()[1], u[6], u[5], "Student", "Active"] for u in USERS]
    return _write(tmp_path / "participants.csv", rows)


def _moodle_worksheet(tmp_path) -> Path:
    rows = [["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum grade",
             "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
             "Feedback comments"]]
    rows += [[f"Participant {u[7]}", u[1], u[5], "No submission", "", "10.00", "Yes", "-", "-", ""]
             for u in USERS]
    return _write(tmp_path / "worksheet.csv", rows)


# ---------------------------------------------------------------- Canvas's importer rules

def canvas_import(text: str) -> dict:
    """{Canvas user id: {assignment id or title: grade}} as Canvas's importer reads it;
    a row it cannot match raises (Canvas would send it to manual pairing)."""
    by_id = {u[0]: u for u in USERS}
    by_sis = {u[3]: u for u in USERS}
    by_login = {u[4]: u for u in USERS}
    assignments = {4321: "Weather", 4322: "Smoothing"}
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1]
    assert re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3])
    assert "Section" in header[4]
    columns = {}
    for index, name in enumerate(header[5:], start=5):
        found = re.fullmatch(r"(.*)\s\((\d+)\)", name, re.S)  # Assignment.title_and_id
        if found and int(found.group(2)) in assignments:
            columns[index] = int(found.group(2))
        else:
            title = [k for k, v in assignments.items() if v == name]
            columns[index] = title[0] if title else f"new: {name}"
    imported = {}
    for row in rows[1:]:
        if "Points Possible" in row[0]:
            continue
        user = by_id.get(int(row[1])) if row[1].strip().isdigit() else None
        user = user or by_sis.get(row[2]) or by_login.get(row[3])
        user = user or next((u for u in USERS if row[0] in (u[1], u[2])), None)
        if user is None:
            raise AssertionError(f"Canvas cannot match the row {row[:5]}")
        imported[user[0]] = {columns[i]: row[i].strip() for i in columns}
    return imported


def test_canvas_file_matches_every_roster_student_by_canvas_id(tmp_path):
    roster = _canvas_roster(tmp_path)
    out = tmp_path / "weather"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(_results()))
    warnings = []
    write_exports(out, ["canvas"], roster=roster, scale=100, warnings=warnings)
    text = (out / "canvas.csv").read_text(encoding="utf-8")
    imported = canvas_import(text)
    assert sorted(imported) == [u[0] for u in USERS]  # every roster student, Bob included
    # the roster's own "Weather (4321)" column was found by the exercise's title
    assert imported[1001] == {4321: "85"}            # 8.5 of 10 scaled to 100
    assert imported[1004] == {4321: ""}              # not submitted: blank, not 0
    assert imported[1002] == {4321: "95"}
    assert list(csv.reader(io.StringIO(text)))[1][5] == "100"  # Points Possible
    assert any("'mallory' is not on the roster" in w for w in warnings)
    report = list(csv.DictReader((out / "roster.csv").open(encoding="utf-8")))
    assert {r["submission"]: r["note"] for r in report if "not on the roster" in r["note"]} \
        == {"mallory": "not on the roster: left out of the LMS files"}
    assert [r["student"] for r in report if r["note"].startswith("no submission")] == \
        ["Brown, Bob"]


def test_one_canvas_file_for_several_exercises_from_the_command_line(tmp_path):
    roster = _canvas_roster(tmp_path)
    folders = []
    for name, title, shift in (("01_weather", "Weather", 0), ("02_smoothing", "Smoothing", 1)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "results.json").write_text(json.dumps(_results(name, title, shift)))
        folders.append(str(folder))
    run = subprocess.run([sys.executable, "-m", "nbcourse.cli", "export", *folders,
                          "--to", str(tmp_path / "lms"), "--roster", str(roster),
                          "--canvas-assignment", "Weather (4321)",
                          "--canvas-assignment", "Smoothing (4322)",
                          "--scale", "100", "--scale", "50"],
                         capture_output=True, text=True, cwd=REPO, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "mallory" in run.stderr and "not on the roster" in run.stderr
    imported = canvas_import((tmp_path / "lms" / "canvas.csv").read_text(encoding="utf-8"))
    assert imported[1001] == {4321: "85", 4322: "37.5"}  # 7.5 of 10 scaled to 50
    assert imported[1004] == {4321: "", 4322: ""}
    assert (tmp_path / "lms" / "moodle-grades.csv").is_file()


def test_without_a_roster_canvas_cannot_match_folder_names():
    """What the roster fixes: a folder's name is not a Canvas name or id."""
    text = export.canvas_csv(_results(), "Weather (4321)")
    with pytest.raises(AssertionError, match="Canvas cannot match"):
        canvas_import(text)


# ------------------------------------------------------ Moodle's worksheet importer rules

def moodle_worksheet_import(text: str, language: str, hiddenuser: str) -> dict:
    """{participant number: (grade, comment)} as Moodle's worksheet upload applies it."""
    words = MOODLE_HEADERS[language]
    mapping = {u[7]: u for u in USERS}  # the assignment's participant numbers
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    index = {key: header.index(words[key]) for key in ("id", "grade", "modified")}
    comments = header.index(words["comments"]) if words["comments"] in header else None
    applied = {}
    for row in rows[1:]:
        number = row[index["id"]][len(hiddenuser):].strip()  # the database casts " 12" to 12
        if not number.isdigit() or int(number) not in mapping:
            continue
        grade = row[index["grade"]]
        if grade == "" or float(grade) < 0 or float(grade) > 10:
            continue
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", row[index["modified"]])
        applied[int(number)] = (grade, row[comments] if comments else None)
    return applied


@pytest.mark.parametrize("language,hiddenuser", [
    ("en", "Participant "), ("fr", "Participant"), ("fr", "Participant "),
    ("de", "Teilnehmer/in")])
def test_moodle_worksheet_matches_every_participant(tmp_path, language, hiddenuser):
    out = tmp_path / "weather"
    out.mkdir()
    results = _results()
    results["submissions"][2]["submission"] = "ana LEE"  # the worksheet has no "Last, First"
    (out / "results.json").write_text(json.dumps(results))
    write_exports(out, ["moodle"], roster=_moodle_worksheet(tmp_path), language=language)
    text = (out / "moodle.csv").read_text(encoding="utf-8")
    applied = moodle_worksheet_import(text, language, hiddenuser)
    submitted = {u[7] for u in USERS if u[0] != 1004}
    assert set(applied) == submitted  # Bob's blank grade is skipped, nobody else
    grade, comment = applied[5001]
    assert grade == "8.5"
    assert comment.startswith("8.5 of 10 points: Q1 5/5; Q2 3.5/5.")
    assert "Main mistake (Q2): Known mistake (counts): divide by the class total" in comment
    assert "feedback/" not in text and ".html" not in text


def test_moodle_submissions_zip_numbers_are_used_without_a_worksheet(tmp_path):
    results = _results()
    for n, row in enumerate(results["submissions"]):
        row["source"] = {"lms": "moodle", "lms_id": str(5001 + n), "late": False}
    text = export.moodle_csv(results, modified=0)
    applied = moodle_worksheet_import(text, "en", "Participant ")
    assert set(applied) == {5001, 5002, 5003, 5004, 5005}


def test_a_participants_export_cannot_number_the_worksheet_and_says_so(tmp_path):
    out = tmp_path / "weather"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(_results()))
    warnings = []
    write_exports(out, ["moodle"], roster=_moodle_participants(tmp_path), warnings=warnings)
    assert any("no Moodle participant number" in w and "moodle-grades.csv" in w
               for w in warnings)


# ------------------------------------------------------- Moodle's gradebook import rules

def moodle_gradebook_import(text: str, column: str, field: int, item: str) -> dict:
    """{user: (grade, feedback)}: the instructor maps ``column`` to a user field and
    ``item`` (and its feedback column) to the grade item."""
    rows = list(csv.DictReader(io.StringIO(text)))
    applied = {}
    for row in rows:
        value = row[column]
        if not value:
            continue  # Moodle skips a row whose user field is blank
        (user,) = [u for u in USERS if u[field] == value]  # an exact database lookup
        grade = row[item]
        grade = None if grade in ("", "-") else float(grade)
        assert grade is None or grade <= 100
        applied[user[0]] = (grade, row[f"{item} (feedback)"])
    return applied


@pytest.mark.parametrize("column,field", [("Email address", 5), ("ID number", 6)])
def test_moodle_gradebook_csv_maps_every_student_by_a_user_field(tmp_path, column, field):
    out = tmp_path / "weather"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(_results()))
    write_exports(out, ["moodle-grades"], roster=_moodle_participants(tmp_path), scale=100)
    text = (out / "moodle-grades.csv").read_text(encoding="utf-8")
    applied = moodle_gradebook_import(text, column, field, "Weather")
    assert sorted(applied) == [u[0] for u in USERS]
    assert applied[1001][0] == 85 and applied[1004] == (None, "No notebook was received "
                                                               "for this exercise.")
    assert applied[1003][1].startswith("A cell raised an error")


# ------------------------------------------------------------------------ the roster

def test_messy_names_match_by_login_email_or_name_in_any_normal_form(tmp_path):
    roster = read_roster(_moodle_participants(tmp_path))
    rows = [{"submission": name} for name in
            ["JOSE.NUNEZ", NFD("åsa ørsted"), "Ana  Lee", "bob.brown@UNI.example", "eve"]]
    matched, unmatched, warnings = match(roster, rows)
    assert {roster.students[i].email: r["submission"] for i, r in matched.items()} == {
        "jose.nunez@uni.example": "JOSE.NUNEZ", "asa.orsted@uni.example": NFD("åsa ørsted"),
        "ana.lee@uni.example": "Ana  Lee", "bob.brown@uni.example": "bob.brown@UNI.example"}
    assert [r["submission"] for r in unmatched] == ["eve"] and len(warnings) == 1


def test_a_name_two_students_share_matches_neither(tmp_path):
    path = _write(tmp_path / "p.csv", [["First name", "Last name", "Email address"],
                                       ["Ana", "Lee", "a1@x.example"],
                                       ["Ana", "Lee", "a2@x.example"]])
    matched, unmatched, warnings = match(read_roster(path), [{"submission": "ana lee"}])
    assert not matched and "fits several students" in warnings[0]


def test_roster_column_says_which_column_holds_the_folder_names(tmp_path):
    roster = read_roster(_moodle_participants(tmp_path))
    matched, _, _ = match(roster, [{"submission": "n3"}], column="ID number")
    assert [roster.students[i].full_name for i in matched] == ["Ana Lee"]
    with pytest.raises(ValueError, match="is not a column"):
        match(roster, [], column="Matrikel")


def test_a_file_that_is_no_roster_is_refused(tmp_path):
    path = _write(tmp_path / "x.csv", [["name", "mark"], ["ana", "3"]])
    with pytest.raises(ValueError, match="not a Canvas gradebook export"):
        read_roster(path)


def test_grade_and_export_take_the_same_lms_options():
    from nbcourse.cli import build_parser
    parser = build_parser()
    for argv in (["grade", "01_weather", "x", "--out", "o", "--format", "canvas"], ["export", "o"]):
        args = parser.parse_args(argv + ["--canvas-assignment", "Weather (4321)", "--scale", "20",
                                         "--roster", "r.csv", "--lms-language", "fr"])
        assert args.canvas_assignment == ["Weather (4321)"] and args.scale == [20.0]


def test_grade_with_a_roster_writes_files_canvas_matches(tmp_path):
    """The whole route, sandboxed: folders with messy names, `nbcourse grade --roster`."""
    fixtures = REPO / "tests" / "fixtures" / "submissions"
    folders = {NFD("Åsa Ørsted"): "correct", "JOSE.NUNEZ": "wrong", "mallory": "correct"}
    for name, kind in folders.items():
        (tmp_path / "submitted" / name).mkdir(parents=True)
        (tmp_path / "submitted" / name / "01_weather.ipynb").write_bytes(
            (fixtures / f"{kind}.ipynb").read_bytes())
    roster = _write(tmp_path / "canvas-export.csv", [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Weather (4321)"],
        ["Points Possible", "", "", "", "", "20"]] + [
        [u[2], str(u[0]), u[3], u[4], "A", ""] for u in USERS if u[0] in (1001, 1002, 1004)])
    run = subprocess.run([sys.executable, "-m", "nbcourse.cli", "grade", "01_weather",
                          str(tmp_path / "submitted"), "--out", str(tmp_path / "out"),
                          "--timeout", "10", "--roster", str(roster), "--format", "canvas",
                          "--canvas-assignment", "Weather (4321)", "--scale", "20"],
                         capture_output=True, text=True, cwd=REPO, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "'mallory' is not on the roster" in run.stderr
    imported = canvas_import((tmp_path / "out" / "canvas.csv").read_text(encoding="utf-8"))
    grades = {row["submission"]: row for row in
              csv.DictReader((tmp_path / "out" / "grades.csv").open(encoding="utf-8"))}
    wrong = float(grades["JOSE.NUNEZ"]["total"])
    assert imported == {1001: {4321: export.points_text(wrong * 2)}, 1002: {4321: "20"},
                        1004: {4321: ""}}


def moodle_feedback_zip_import(names: list[str]) -> dict:
    """{participant number: file name} as Moodle's feedback zip upload reads the names
    (mod/assign/feedback/file/importziplib.php)."""
    imported = {}
    for name in names:
        if name.endswith("/") or name.split("/")[-1][:1] in (".", "~"):
            continue
        parts = name.split("/")
        while parts:
            info = parts.pop(0).split("_", 4)  # PHP's explode('_', $part, 5)
            if len(info) < 4 or not info[1].isdigit() or int(info[1]) not in \
                    {u[7] for u in USERS}:
                continue
            if (info[2], info[3]) != ("assignfeedback", "file"):
                continue
            imported[int(info[1])] = "/".join([info[4] if len(info) > 4 else ""] + parts)
            break
    return imported


def test_moodle_feedback_zip_names_reach_each_participant(tmp_path):
    import zipfile
    out = tmp_path / "weather"
    (out / "feedback").mkdir(parents=True)
    results = _results()
    results["submissions"][2]["submission"] = "ana LEE"
    results["submissions"][1]["feedback"] = "feedback/odd_name__x.html"
    # Åsa's notebook came in Moodle's own zip: matched by its participant number, not
    # by a name (the roster spells hers with a "_", which must not split Moodle's name)
    results["submissions"][1]["source"] = {"lms": "moodle", "lms_id": "5002", "late": False}
    for row in results["submissions"]:
        (out / row["feedback"]).write_text(f"<p>page of {row['submission']}</p>")
    (out / "results.json").write_text(json.dumps(results))
    roster = _write(tmp_path / "w.csv", [["Identifier", "Full name", "Email address"]] + [
        [f"Participant {u[7]}", u[1].replace("Ø", "_Ø"), u[5]] for u in USERS])  # "_" in a name
    write_exports(out, ["moodle-feedback"], roster=roster)
    with zipfile.ZipFile(out / "moodle-feedback.zip") as archive:
        names = archive.namelist()
        imported = moodle_feedback_zip_import(names)
        assert imported == {n: "01_weather-feedback.html" for n in (5001, 5002, 5003, 5005)}
        assert all(archive.read(name).startswith(b"<p>page of ") for name in names)


def test_without_scale_marks_take_the_roster_items_maximum(tmp_path):
    """Canvas's Points Possible (100 for "Weather (4321)") and the worksheet's Maximum grade
    say what the LMS item is out of; --scale still wins."""
    out = tmp_path / "weather"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(_results()))
    warnings = []
    write_exports(out, ["canvas"], roster=_canvas_roster(tmp_path), warnings=warnings)
    assert canvas_import((out / "canvas.csv").read_text(encoding="utf-8"))[1001] == {4321: "85"}
    assert any("out of 100 points" in w for w in warnings)
    write_exports(out, ["canvas"], roster=_canvas_roster(tmp_path), scale=10)
    assert canvas_import((out / "canvas.csv").read_text(encoding="utf-8"))[1001] == {4321: "8.5"}
    sheet = _write(tmp_path / "w.csv", [["Identifier", "Full name", "Maximum grade"]] + [
        [f"Participant {u[7]}", u[1], "20,00"] for u in USERS])
    write_exports(out, ["moodle"], roster=sheet)
    rows = list(csv.DictReader((out / "moodle.csv").open(encoding="utf-8")))
    assert (rows[1]["Grade"], rows[1]["Maximum grade"]) == ("19", "20")  # Åsa: 9.5 of 10


def test_an_lms_option_that_would_change_nothing_is_an_error(tmp_path):
    run = subprocess.run([sys.executable, "-m", "nbcourse.cli", "grade", "01_weather",
                          str(tmp_path), "--out", str(tmp_path / "out"), "--scale", "100"],
                         capture_output=True, text=True, cwd=REPO, timeout=120)
    assert run.returncode == 2 and "--scale: these change only the LMS files" in run.stderr
    assert not (tmp_path / "out").exists()  # refused before anything was graded


def test_a_canvas_zip_row_is_matched_by_its_canvas_id_before_its_name(tmp_path):
    roster = read_roster(_canvas_roster(tmp_path))
    rows = [{"submission": "leeana", "source": {"lms": "canvas", "lms_id": "1003"}},
            {"submission": "Bob Brown", "source": {"lms": "canvas", "lms_id": "1005"}}]
    matched, unmatched, _ = match(roster, rows)
    assert {roster.students[i].lms_id: r["submission"] for i, r in matched.items()} == \
        {"1003": "leeana", "1005": "Bob Brown"}  # the id wins over a name that fits Bob


def test_two_submissions_that_claim_one_student_are_both_left_out(tmp_path):
    """Red team: `alice` and `Alice` (or NFC and NFD `José Garcia`) both matched one roster
    student, and whichever sorted first (the attacker's) was exported in her name."""
    path = _write(tmp_path / "p.csv", [["First name", "Last name", "Email address"],
                                       ["Alice", "Smith", "alice@x.example"],
                                       ["José", "Garcia", "jose@x.example"]])
    roster = read_roster(path)
    rows = [{"submission": "Alice"}, {"submission": "alice"},
            {"submission": NFD("José Garcia")}, {"submission": "José Garcia"}]
    matched, unmatched, warnings = match(roster, rows)
    assert matched == {}
    assert len(unmatched) == 4
    assert sum("neither is exported" in w for w in warnings) == 2
    assert not any("is not on the roster" in w for w in warnings)


def test_the_lms_id_from_its_own_zip_wins_over_a_look_alike_name(tmp_path):
    roster = read_roster(_canvas_roster(tmp_path))
    student = roster.students[0]
    real = {"submission": "someone", "source": {"lms": "canvas", "lms_id": student.lms_id}}
    fake = {"submission": student.name}
    for rows in ([fake, real], [real, fake]):
        matched, unmatched, warnings = match(roster, rows)
        assert matched[0] is real and unmatched == [fake]


# ------------------------------------- every roster student has a row (issue 37, the rest)

TITLE = "Exercise 1: the weather example by hand"  # 01_weather's, the Moodle item's name


def _run(*args: str) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, "-m", "nbcourse.cli", *args],
                         capture_output=True, text=True, cwd=REPO, timeout=600)
    assert run.returncode == 0, run.stderr
    return run


def _grade_term(root: Path, out: str, *more: str) -> subprocess.CompletedProcess:
    return _run("grade", "01_weather", str(root / "submitted"), "--out", str(root / out),
                "--timeout", "10", "--roster", str(root / "canvas-export.csv"),
                "--due", "2026-11-20T23:59", "--canvas-assignment", "Weather (4321)", *more)


def _lms_files(out: Path) -> dict[str, bytes]:
    files = {name: (out / name).read_bytes()
             for name in ("grades.csv", "canvas.csv", "moodle-grades.csv")}
    # the worksheet's "Last modified (grade)" is the export's time, by Moodle's rule (an
    # upload older than the grade in Moodle is skipped): every other cell must be equal
    rows = list(csv.reader(io.StringIO((out / "moodle.csv").read_text(encoding="utf-8"))))
    files["moodle.csv"] = repr([row[:5] + row[6:] for row in rows]).encode()
    return files


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """José (a wrong notebook, no timestamp.txt) and Åsa (correct, on time) handed in;
    Bob, on the roster, has no folder.  Graded twice into two folders, then Bob's q2
    overridden and everything exported again."""
    root = tmp_path_factory.mktemp("term")
    fixtures = REPO / "tests" / "fixtures" / "submissions"
    for name, kind in {"JOSE.NUNEZ": "wrong", NFD("Åsa Ørsted"): "correct"}.items():
        (root / "submitted" / name).mkdir(parents=True)
        (root / "submitted" / name / "01_weather.ipynb").write_bytes(
            (fixtures / f"{kind}.ipynb").read_bytes())
    (root / "submitted" / NFD("Åsa Ørsted") / "timestamp.txt").write_text(
        "2026-11-20 10:00:00.000001 UTC\n")
    _write(root / "canvas-export.csv", [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Weather (4321)"],
        ["Points Possible", "", "", "", "", "10"]] + [
        [u[2], str(u[0]), u[3], u[4], "A", ""] for u in USERS if u[0] in (1001, 1002, 1004)])
    _moodle_worksheet(root)
    state = {"run": _grade_term(root, "out"), "out": root / "out"}
    state["first"] = _lms_files(root / "out")
    state["results"] = json.loads((root / "out" / "results.json").read_text())
    state["report"] = (root / "out" / "report.html").read_text(encoding="utf-8")
    _grade_term(root, "again")
    state["again"] = _lms_files(root / "again")
    _run("export", str(root / "out"), "--roster", str(root / "worksheet.csv"),
         "--format", "moodle", "--to", str(root / "before"))
    state["moodle-before"] = (root / "before" / "moodle.csv").read_text(encoding="utf-8")
    (root / "out" / "overrides.csv").write_text(
        "student,question,points,reason\nbbrown,q2,1.5,handed in on paper\n")
    _run("export", str(root / "out"), "--roster", str(root / "canvas-export.csv"),
         "--canvas-assignment", "Weather (4321)")
    state["canvas"] = (root / "out" / "canvas.csv").read_text(encoding="utf-8")
    state["moodle-grades"] = (root / "out" / "moodle-grades.csv").read_text(encoding="utf-8")
    _run("export", str(root / "out"), "--roster", str(root / "worksheet.csv"),
         "--format", "moodle")
    state["moodle"] = (root / "out" / "moodle.csv").read_text(encoding="utf-8")
    state["root"] = root
    return state


def test_a_roster_student_with_no_folder_has_a_row_everywhere(term):
    grades = {r["submission"]: r for r in csv.DictReader(
        io.StringIO(term["first"]["grades.csv"].decode()))}
    assert set(grades) == {"JOSE.NUNEZ", "bbrown", NFD("Åsa Ørsted")}
    assert grades["bbrown"]["status"] == "not submitted"
    (bob,) = [r for r in term["results"]["submissions"] if r["submission"] == "bbrown"]
    assert bob["status"] == "not submitted" and bob["source"]["lms"] == "roster"
    assert bob["source"]["lms_id"].split("\n")[0] == "canvas:1004" and bob["source"]["path"] == ""
    attention = term["report"].split('id="attention"')[1].split("</table>")[0]
    assert "bbrown" in attention and "not submitted" in attention
    assert "mallory" not in term["run"].stderr and "not on the roster" not in term["run"].stderr
    first = canvas_import(term["first"]["canvas.csv"].decode())
    assert set(first) == {1001, 1002, 1004} and first[1004] == {4321: ""}  # blank, not 0
    graded = moodle_gradebook_import(term["first"]["moodle-grades.csv"].decode(), "Username",
                                     4, TITLE)
    assert graded[1004] == (None, "No notebook was received for this exercise.")
    assert set(moodle_worksheet_import(term["moodle-before"], "en", "Participant ")) == {
        5001, 5002}  # Bob's blank grade is skipped by the upload
    (bob,) = [r for r in csv.DictReader(io.StringIO(term["moodle-before"]))
              if r["Identifier"] == "Participant 5004"]
    assert bob["Grade"] == "" and bob["Feedback comments"] == STUDENT_WORDS["not submitted"]


def test_an_override_on_a_not_submitted_row_reaches_the_lms_files(term):
    assert canvas_import(term["canvas"])[1004] == {4321: "1.5"}
    assert moodle_gradebook_import(term["moodle-grades"], "Username", 4,
                                   TITLE)[1004][0] == 1.5
    applied = moodle_worksheet_import(term["moodle"], "en", "Participant ")
    assert applied[5004] == ("1.5", "No notebook was received for this exercise. 1.5 of 10 "
                                    "points, set by your instructor: q2 1.5 (handed in on paper).")
    assert set(applied) == {5001, 5002, 5004}  # Ana and Zoë are not on this roster's class
    grades = (term["out"] / "grades.csv").read_text(encoding="utf-8")
    assert "handed in on paper" in grades


def test_with_a_deadline_an_unknown_hand_in_time_is_on_time_and_said(term):
    rows = {r["submission"]: r for r in term["results"]["submissions"]}
    jose, asa = rows["JOSE.NUNEZ"], rows[NFD("Åsa Ørsted")]
    assert jose["time_unknown"] is True and jose["late_days"] == 0 and jose["penalty"] == 0
    assert "time_unknown" not in asa and asa["submitted_at"].startswith("2026-11-20T10:00")
    assert "time_unknown" not in rows["bbrown"]  # nothing handed in: no time to know
    unknown = term["report"].split('id="time-unknown"')[1].split("</p>")[0]
    assert "JOSE.NUNEZ" in unknown and "rsted" not in unknown and "bbrown" not in unknown
    assert any("no hand-in time known" in w and "JOSE.NUNEZ" in w
               for w in term["results"]["warnings"])
    again = json.loads((term["out"] / "results.json").read_text())  # after two exports
    assert sum("no hand-in time known" in w for w in again["warnings"]) == 1


def test_grading_the_same_class_twice_gives_the_same_gradebooks(term):
    assert term["again"] == term["first"]


def test_a_roster_row_gives_way_when_the_students_folder_comes(term, tmp_path):
    root = term["root"]
    (root / "submitted" / "Bob Brown").mkdir()
    (root / "submitted" / "Bob Brown" / "01_weather.ipynb").write_bytes(
        (REPO / "tests" / "fixtures" / "submissions" / "correct.ipynb").read_bytes())
    _grade_term(root, "again", "--only", "Bob Brown")
    rows = json.loads((root / "again" / "results.json").read_text())["submissions"]
    assert {r["submission"] for r in rows} == {"Bob Brown", "JOSE.NUNEZ", NFD("Åsa Ørsted")}
    assert canvas_import((root / "again" / "canvas.csv").read_text())[1004] == {4321: "10"}


def test_a_roster_row_is_kept_with_its_overrides_when_the_roster_changes_kind(tmp_path):
    """Graded with a Canvas export, then with Moodle's participants: Bob's row is found
    again by the name both rosters share, and kept as it was."""
    from types import SimpleNamespace

    from nbcourse.grading import specs
    from nbcourse.grading.merge import roster_rows
    batch = SimpleNamespace(exercise=specs.load("01_weather"), results=[], sources={})
    roster_rows(batch, read_roster(_canvas_roster(tmp_path)))
    assert sorted(r.submission for r in batch.results) == sorted(u[4] for u in USERS)
    (bob,) = [r for r in batch.results if r.submission == "bbrown"]
    bob.overrides = [{"question": "q1", "points": 1.0, "graded": 0.0, "reason": "on paper"}]
    roster_rows(batch, read_roster(_moodle_participants(tmp_path)))
    assert len(batch.results) == len(USERS) and bob in batch.results
    assert batch.sources["bbrown"].lms_id.split("\n")[0] == "idnumber:n4"
    found, _, _ = match(read_roster(_moodle_participants(tmp_path)), [
        {"submission": "bbrown", "source": {"lms": "roster",
                                            "lms_id": batch.sources["bbrown"].lms_id}}])
    assert list(found) == [3]  # Bob, by his ID number


def test_the_rows_without_a_mark_are_one_set_for_the_lms_and_the_class_report():
    """Issue 36: ``NOT_A_MARK`` left out ``not submitted``, and the LMS export and the class
    report each added it back themselves.  ``statuses.NO_MARK`` is that set, once: a row
    with one of its statuses is blank in an LMS file and left out of the class's numbers."""
    from types import SimpleNamespace

    from nbcourse.grading import class_report
    from nbcourse.grading.statuses import NO_MARK, NOT_A_MARK, Status

    assert NO_MARK == NOT_A_MARK | {Status.NOT_SUBMITTED}
    for status in Status:
        row = {"status": str(status), "total": 3, "maximum": 5}
        assert (export._mark(row) == "") is (status in NO_MARK), status
        assert (class_report.marked([SimpleNamespace(status=status)]) == []) is (
            status in NO_MARK), status
    for module in (export, class_report):
        assert not any(isinstance(value, frozenset) and value is not NO_MARK
                       and Status.NOT_SUBMITTED in value
                       for value in vars(module).values()), "a second copy of NO_MARK"


def test_grade_and_export_with_a_roster_write_the_same_files(tmp_path, monkeypatch):
    """Issue 36: ``grade --roster`` wrote canvas, moodle and moodle-grades, ``export
    --roster`` those and questions.csv.  Both now write ``export.ROSTER_FORMATS``."""
    from nbcourse import cli
    from nbcourse.grading import batch, summary

    written = []
    monkeypatch.setattr(cli, "_write_lms_files",
                        lambda out, formats, args: written.append(tuple(formats)) or [])
    monkeypatch.setattr(batch, "grade_batch", lambda *args, **kwargs: None)
    monkeypatch.setattr(summary, "summary", lambda result: "")
    roster = str(_canvas_roster(tmp_path))
    out = tmp_path / "out"
    out.mkdir()
    assert cli.main(["grade", "01_weather", str(tmp_path), "--out", str(out),
                     "--roster", roster]) == 0
    assert cli.main(["export", str(out), "--roster", roster]) == 0
    assert written == [export.ROSTER_FORMATS] * 2
    assert set(export.ROSTER_FORMATS) == {"canvas", "moodle", "moodle-grades", "questions"}
