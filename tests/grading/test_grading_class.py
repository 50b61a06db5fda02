"""Grading a real class: the README's recipe on each layout, the LMS gradebooks, the class
report and reproducible marks.  Each batch runs sandboxed through the command line, as
an instructor would."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import zipfile
from fractions import Fraction
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "submissions"
CORRECT = (FIXTURES / "correct.ipynb").read_bytes()
WRONG = (FIXTURES / "wrong.ipynb").read_bytes()
OTHER = (REPO / "exercises" / "02_smoothing.ipynb").read_bytes()



def _grade(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path / "grades"
    run = subprocess.run([sys.executable, "-m", "nbcourse.cli", "grade", "01_weather", *args,
                          "--out", str(out), "--jobs", "2", "--timeout", "10"],
                         capture_output=True, text=True, cwd=REPO, timeout=600)
    assert run.returncode == 0, run.stderr
    return run, out


def _rows(out: Path) -> dict[str, dict]:
    return {row["submission"]: row for row in csv.DictReader(
        (out / "grades.csv").open(encoding="utf-8"))}


LAYOUTS = ["readme", "nbgrader", "flat", "glob", "canvas", "moodle"]


def _class(root: Path, layout: str) -> list[str]:
    """A class of three in ``layout``; returns what to pass to ``nbcourse grade``.  The
    students' names end with the layout's name, so that six classes share one batch."""
    root = root / layout
    students = {f"alice{layout}": CORRECT, f"bob{layout}": WRONG, f"carol{layout}": CORRECT}
    if layout == "readme":
        for name, data in students.items():
            (root / "submitted" / name).mkdir(parents=True)
            (root / "submitted" / name / "01_weather.ipynb").write_bytes(data)
            (root / "submitted" / name / "02_smoothing.ipynb").write_bytes(OTHER)
        return [str(root / "submitted")]
    if layout == "nbgrader":
        for name, data in students.items():
            (root / "submitted" / name / "ps1").mkdir(parents=True)
            (root / "submitted" / name / "ps1" / "01_weather.ipynb").write_bytes(data)
        return [str(root / "submitted")]
    if layout == "flat":
        (root / "flat").mkdir(parents=True)
        for name, data in students.items():
            (root / "flat" / f"{name}.ipynb").write_bytes(data)
        return [str(root / "flat")]
    if layout == "glob":
        for name, data in students.items():
            (root / "submitted" / name).mkdir(parents=True)
            (root / "submitted" / name / "01_weather.ipynb").write_bytes(data)
        return [str(p) for p in sorted((root / "submitted").glob("*/01_weather.ipynb"))]
    root.mkdir(parents=True)
    if layout == "canvas":
        with zipfile.ZipFile(root / "submissions.zip", "w") as archive:
            for n, (name, data) in enumerate(students.items()):
                late = "_LATE" if name.startswith("bob") else ""
                archive.writestr(f"{name}{late}_{100 + n}_{900 + n}_01_weather.ipynb", data)
        return [str(root / "submissions.zip")]
    if layout == "moodle":
        with zipfile.ZipFile(root / "moodle.zip", "w") as archive:
            for n, (name, data) in enumerate(students.items()):
                archive.writestr(f"{name}_{500 + n}_assignsubmission_file_/01_weather.ipynb", data)
        return [str(root / "moodle.zip")]
    raise ValueError(layout)


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    """The README's recipe, `nbcourse grade 01_weather <what you have> --out ...`, on a class
    of three in each layout (one command for all six, to keep the suite short)."""
    root = tmp_path_factory.mktemp("layouts")
    given = [path for layout in LAYOUTS for path in _class(root, layout)]
    run, out = _grade(root, *given)
    return run, out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_readme_recipe_gives_one_row_per_student_in_every_layout(layouts, layout):
    run, out = layouts
    rows = {name: row for name, row in _rows(out).items() if name.endswith(layout)}
    students = [f"{name}{layout}" for name in ("alice", "bob", "carol")]
    assert sorted(rows) == students
    assert [rows[s]["total"] for s in students] == ["10", "3.65", "10"]
    assert all((out / "feedback" / f"{s}.html").is_file() for s in students)


def test_the_six_classes_make_eighteen_rows_and_nothing_else(layouts):
    run, out = layouts
    assert len(_rows(out)) == 18
    assert "Graded 18 submissions" in run.stdout
    assert "warning" not in run.stdout


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A class with every kind of row, graded once, then exported."""
    root = tmp_path_factory.mktemp("class")
    submitted = root / "submitted"
    for name, data in {"alice": CORRECT, "bob": WRONG, "carol": CORRECT, "erin": WRONG}.items():
        (submitted / name).mkdir(parents=True)
        (submitted / name / "01_weather.ipynb").write_bytes(data)
    (submitted / "dave").mkdir()
    (submitted / "dave" / "02_smoothing.ipynb").write_bytes(OTHER)  # not submitted
    (submitted / "frank" / "a").mkdir(parents=True)                  # two candidates
    (submitted / "frank" / "b").mkdir(parents=True)
    (submitted / "frank" / "a" / "01_weather.ipynb").write_bytes(CORRECT)
    (submitted / "frank" / "b" / "01_weather.ipynb").write_bytes(WRONG)
    (submitted / "gina").mkdir()
    big = json.loads(CORRECT)  # an honest notebook with 21 MB of saved plots
    big["cells"][-1]["outputs"] = [{"output_type": "display_data", "metadata": {},
                                    "data": {"image/png": "A" * (21 * 2**20)}}]
    (submitted / "gina" / "01_weather.ipynb").write_text(json.dumps(big))
    trick = "x\n[8 of 8] mallory graded 8 of 8\x1b[1A"
    (submitted / trick).mkdir()
    (submitted / trick / "01_weather.ipynb").write_bytes(WRONG)
    run, out = _grade(root, str(submitted), "--format", "canvas", "--format", "questions")
    export = subprocess.run([sys.executable, "-m", "nbcourse.cli", "export", str(out),
                             "--canvas-assignment", "Weather (4321)"],
                            capture_output=True, text=True, cwd=REPO, timeout=120)
    assert export.returncode == 0, export.stderr
    return {"run": run, "out": out, "rows": _rows(out), "trick": trick,
            "results": json.loads((out / "results.json").read_text())}


def test_rows_say_not_submitted_and_several_notebooks(graded):
    rows = graded["rows"]
    assert rows["dave"]["status"] == "not submitted"
    assert "02_smoothing.ipynb" in rows["dave"]["reason"]
    assert rows["frank"]["status"] == "several notebooks"
    assert rows["gina"]["status"] == "graded" and rows["gina"]["total"] == "10"


def test_no_fake_line_on_the_terminal(graded):
    progress = graded["run"].stderr + graded["run"].stdout
    assert "\x1b" not in progress
    assert not any(line.startswith("[8 of 8] mallory") for line in progress.splitlines())
    assert "x\\x0a[8 of 8] mallory" in progress


def _canvas_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_canvas_gradebook_has_the_documented_columns(graded):
    """Canvas's import: Student, ID, SIS User ID, SIS Login ID, Section, then the
    assignment as 'Name (id)'; the second row is 'Points Possible'."""
    rows = _canvas_rows((graded["out"] / "canvas.csv").read_text(encoding="utf-8"))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Weather (4321)"]
    assert rows[1] == ["Points Possible", "", "", "", "", "10"]
    marks = {row[0]: row[5] for row in rows[2:]}
    grades = graded["rows"]
    assert set(marks) == set(grades)
    for student, mark in marks.items():
        if grades[student]["status"] in ("several notebooks", "not submitted"):
            assert mark == ""  # blank: no mark of the student's work, not a 0
        else:
            assert mark == grades[student]["total"]


def test_moodle_worksheet_has_the_columns_its_importer_looks_for(graded):
    rows = list(csv.DictReader((graded["out"] / "moodle.csv").open(encoding="utf-8")))
    assert {"Identifier", "Grade", "Last modified (grade)"} <= set(rows[0])
    grades = graded["rows"]
    assert {r["Full name"]: r["Grade"] for r in rows if r["Grade"]} == \
        {s: g["total"] for s, g in grades.items()
         if g["status"] not in ("several notebooks", "not submitted")}
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", r["Last modified (grade)"])
               for r in rows)


def test_questions_table_adds_up_to_the_gradebook(graded):
    rows = list(csv.DictReader((graded["out"] / "questions.csv").open(encoding="utf-8")))
    assert list(rows[0]) == ["student", "question", "points", "possible", "status", "mistake"]
    totals: dict[str, float] = {}
    for row in rows:
        totals[row["student"]] = totals.get(row["student"], 0) + float(row["points"])
    for student, row in graded["rows"].items():
        assert round(totals[student], 2) == pytest.approx(float(row["total"]), abs=0.011)
    assert any(row["mistake"] for row in rows)  # wrong.ipynb makes known mistakes


def test_exports_from_lms_zips_carry_the_lms_ids(tmp_path):
    from nbcourse.grading.export import canvas_csv, moodle_csv
    results = {"exercise": "01_weather", "maximum": 8, "submissions": [
        {"submission": "smithbob", "status": "graded", "total": 7.5, "maximum": 8,
         "questions": [], "source": {"lms": "canvas", "lms_id": "340934", "late": False}},
        {"submission": "Bo Chen", "status": "graded", "total": 8.0, "maximum": 8,
         "questions": [], "source": {"lms": "moodle", "lms_id": "1002", "late": False}}]}
    canvas = _canvas_rows(canvas_csv(results))
    assert canvas[2][:2] == ["smithbob", "340934"] and canvas[2][5] == "7.5"
    moodle = list(csv.DictReader(io.StringIO(moodle_csv(results, modified=0))))
    assert moodle[1]["Identifier"] == "Participant 1002"  # what Moodle's importer strips
    assert moodle[1]["Grade"] == "8"


def test_class_report_numbers_equal_the_gradebook(graded):
    page = (graded["out"] / "report.html").read_text(encoding="utf-8")
    rows = graded["rows"]
    statuses: dict[str, int] = {}
    for row in rows.values():
        statuses[row["status"]] = statuses.get(row["status"], 0) + 1
    for status, count in statuses.items():
        assert f'<tr><td>{status}</td><td class="n">{count}</td></tr>' in page
    # means and pass rates over the submissions with a mark: dave (nothing handed in)
    # and frank (two notebooks) are counted apart, not as zeros
    marked = {s: r for s, r in rows.items()
              if r["status"] not in ("not submitted", "several notebooks")}
    assert len(marked) == len(rows) - 2
    # worked out on the totals as written: (3 x 10 + 3 x 3.65) / 6 = 6.83 (halves, which
    # round to even, are tested on mean_text itself: 6.575)
    mean = round(sum(Fraction(r["total"]) for r in marked.values()) / len(marked), 2)
    assert f'<span id="mean">{float(mean):.2f}</span>' in page
    assert '<span id="not-submitted">1</span> not submitted' in page
    assert '<span id="unmarked">1</span> without a mark' in page
    n = len(marked)
    for question in graded["results"]["questions"]:
        full = sum(1 for r in marked.values() if r[question["id"]] == f"{question['points']:g}")
        assert f">{full} of {n}</td>" in page  # passed every test = full points
    assert page.count('src="data:image/png;base64,') == 2
    assert "failed with no recognised mistake" in page
    assert "http://" not in page and "https://" not in page  # opens offline


def test_results_json_records_what_a_regrade_must_match(graded):
    results = graded["results"]
    spec = REPO / "exercises" / "source" / "01_weather.grading.py"
    assert results["spec_sha256"] == hashlib.sha256(spec.read_bytes()).hexdigest()
    from nbcourse import __version__
    assert results["nbcourse_version"] == __version__
    assert results["limits"]["cell_timeout"] == 10
    assert results["isolation"]["sandbox"] == "bwrap"


def test_two_long_equal_names_do_not_crash_the_output(tmp_path):
    """Issue 23 point 9: two explicit files with the same 249-character name."""
    name = "n" * 243 + ".ipynb"
    paths = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_bytes(CORRECT)
        paths.append(str(tmp_path / folder / name))
    run, out = _grade(tmp_path, *paths)
    rows = _rows(out)
    assert len(rows) == 2 and "n" * 243 in rows
    assert len(list((out / "feedback").iterdir())) == 2
    assert not list(out.rglob(".tmp-*"))


def test_the_no_submissions_error_draws_nothing_on_the_terminal(tmp_path):
    """Issue 33, item 10: the error quotes the class folder's names, escapes included."""
    folder = tmp_path / "class\x1b[31m"
    folder.mkdir()
    (folder / "notes\x1b[2J\x1b]0;owned\x07\r[1 of 1] alice graded 10 of 10.txt").write_text("x")
    run = subprocess.run([sys.executable, "-m", "nbcourse.cli", "grade", "01_weather",
                          str(folder), "--out", str(tmp_path / "out")],
                         capture_output=True, cwd=REPO, timeout=600)  # bytes: CRs kept
    printed = (run.stderr + run.stdout).decode("utf-8")
    assert run.returncode == 2 and "no submissions to grade" in printed
    assert not any(c in printed for c in "\x1b\x07\r")
    assert "\\x1b[2J" in printed and "\\x0d[1 of 1] alice" in printed


def test_a_deep_folder_chain_or_a_long_name_leaves_every_student_a_row(tmp_path):
    """Issue 33, item 8: these ended the batch (RecursionError, exit 2) or dropped a zip."""
    with zipfile.ZipFile(tmp_path / "moodle.zip", "w") as archive:
        archive.writestr("Ana Lee_1001_assignsubmission_file_/01_weather.ipynb", CORRECT)
        archive.writestr("Eve Deep_1002_assignsubmission_file_/" + "d/" * 1200 + "x.ipynb", CORRECT)
        archive.writestr("L" * 280 + "_1003_assignsubmission_file_/01_weather.ipynb", CORRECT)
    folder = tmp_path / "submitted"
    (folder / "bob").mkdir(parents=True)
    (folder / "bob" / "01_weather.ipynb").write_bytes(CORRECT)
    deep = folder / "mallory"
    deep.mkdir()
    for _ in range(1200):  # os.makedirs would hit Python's recursion limit itself
        deep = deep / "d"
        os.mkdir(deep)
    (deep / "01_weather.ipynb").write_bytes(CORRECT)
    try:
        _, out = _grade(tmp_path, str(tmp_path / "moodle.zip"), str(folder))
    finally:  # pytest's clean-up would hit the recursion limit too
        os.unlink(deep / "01_weather.ipynb")
        for level in range(1200, 0, -1):
            os.rmdir(folder / "mallory" / Path(*["d"] * level))
    rows = _rows(out)
    assert len(rows) == 5
    assert rows["bob"]["status"] == rows["Ana Lee"]["status"] == "graded"
    assert rows["mallory"]["status"] == rows["Eve Deep"]["status"] == "not submitted"
    (long,) = [row for name, row in rows.items() if name.startswith("LLLL")]
    assert long["status"] == "graded" and long["total"] == rows["bob"]["total"]


def _state(out: Path) -> dict:
    """Each student's gradebook line, results.json row and feedback page, as bytes."""
    lines = (out / "grades.csv").read_text(encoding="utf-8").splitlines()
    results = json.loads((out / "results.json").read_text())
    return {"lines": {line.split(",")[0].strip('"'): line for line in lines[1:]},
            "header": lines[0],
            "json": {r["submission"]: json.dumps(r) for r in results["submissions"]},
            "pages": {p.stem: p.read_bytes() for p in (out / "feedback").glob("*.html")},
            "history": (out / "history.jsonl").read_text().splitlines()}


def _unchanged_but(before: dict, after: dict, student: str) -> None:
    for part in ("lines", "json", "pages"):
        assert sorted(after[part]) == sorted(before[part]) == ["alice", "bob", "carol"]
        assert {k: v for k, v in after[part].items() if k != student} == \
               {k: v for k, v in before[part].items() if k != student}, part
    assert len(after["history"]) == len(before["history"]) + 1


@pytest.fixture(scope="module")
def regraded(tmp_path_factory):
    """Issue 37: a class in nbgrader's layout (one file named by Colab), graded; then bob
    regraded with --only, alice with the path of her notebook, and carol's q2 overridden."""
    root = tmp_path_factory.mktemp("regrade")
    submitted = root / "submitted"
    files = {"alice": "Copy of 01_weather.ipynb", "bob": "01_weather.ipynb", "carol": "hw.ipynb"}
    for name, data in {"alice": CORRECT, "bob": WRONG, "carol": CORRECT}.items():
        (submitted / name / "01_weather").mkdir(parents=True)
        (submitted / name / "01_weather" / files[name]).write_bytes(data)
    (submitted / "carol" / "01_weather" / "timestamp.txt").write_text(
        "2026-11-22 09:30:00.000001 UTC\n")  # nbgrader's: a day and a half late
    states = {}
    _, out = _grade(root, str(submitted), "--due", "2026-11-20T23:59", "--late", "per-day:10")
    states["class"] = _state(out)
    (submitted / "bob" / "01_weather" / files["bob"]).write_bytes(CORRECT)
    states["only_run"], _ = _grade(root, str(submitted), "--only", "bob", "--reason", "resubmitted")
    states["only"] = _state(out)
    (submitted / "alice" / "01_weather" / files["alice"]).write_bytes(WRONG)
    _grade(root, str(submitted / "alice" / "01_weather" / files["alice"]))
    states["path"] = _state(out)
    (out / "overrides.csv").write_text("student,question,points,reason\n"
                                       "carol,q2,1.5,\"explained in words, not code\"\n")
    export = subprocess.run([sys.executable, "-m", "nbcourse.cli", "export", str(out),
                             "--format", "questions"],
                            capture_output=True, text=True, cwd=REPO, timeout=120)
    assert export.returncode == 0, export.stderr
    states["override"] = _state(out)
    states["out"] = out
    return states


def test_a_colab_copy_and_any_name_in_the_assignment_folder_are_graded(regraded):
    rows = regraded["class"]["lines"]
    assert [rows[s].split(",")[1] for s in ("alice", "bob", "carol")] == ['"graded"'] * 3
    assert '"10","10"' in rows["alice"] and '"3.65","10"' in rows["bob"]


def test_a_late_penalty_comes_from_nbgraders_timestamp_and_is_remembered(regraded):
    carol = next(csv.DictReader(io.StringIO("\n".join([regraded["class"]["header"],
                                                       regraded["class"]["lines"]["carol"]]))))
    assert (carol["total"], carol["raw"], carol["penalty"], carol["days late"]) == \
           ("8", "10", "2", "2")
    row = json.loads(regraded["class"]["json"]["carol"])
    assert row["submitted_at"].startswith("2026-11-22T09:30") and row["penalty"] == 2.0
    assert "2 days late" in regraded["class"]["pages"]["carol"].decode()
    assert json.loads((regraded["out"] / "results.json").read_text())["late"] == \
           {"due": "2026-11-20T23:59:00+00:00", "policy": "per-day:10"}


def test_regrading_one_student_with_only_keeps_every_other_row(regraded):
    before, after = regraded["class"], regraded["only"]
    _unchanged_but(before, after, "bob")
    assert after["lines"]["bob"] != before["lines"]["bob"] and '"10","10"' in after["lines"]["bob"]
    entry = json.loads(after["history"][-1])
    assert entry["graded"] == ["bob"] and entry["reason"] == "resubmitted"
    assert "--only bob" in entry["command"] and len(entry["spec_sha256"]) == 64
    assert "Graded 1 submission " in regraded["only_run"].stdout
    assert "2 rows kept" in regraded["only_run"].stdout


def test_regrading_one_notebook_by_its_path_keeps_every_other_row(regraded):
    before, after = regraded["only"], regraded["path"]
    _unchanged_but(before, after, "alice")
    assert '"3.65","10"' in after["lines"]["alice"]
    assert json.loads(after["history"][-1])["graded"] == ["alice"]


def test_an_override_reaches_every_output_with_its_reason(regraded):
    before, after, out = regraded["path"], regraded["override"], regraded["out"]
    _unchanged_but(before, after, "carol")
    carol = next(csv.DictReader(io.StringIO("\n".join([after["header"],
                                                       after["lines"]["carol"]]))))
    assert carol["q2"] == "1.5" and (carol["raw"], carol["penalty"], carol["total"]) == \
           ("8.5", "2", "6.5")  # the override, then the late penalty
    assert carol["overrides"] == "q2 set to 1.5 (graded 3): explained in words, not code"
    row = json.loads(after["json"]["carol"])
    assert row["total"] == 6.5 and row["overrides"][0]["graded"] == 3.0
    page = after["pages"]["carol"].decode()
    assert "explained in words, not code" in page and "1.5 / 3" in page
    assert "explained in words, not code" in (out / "report.html").read_text()
    questions = (out / "questions.csv").read_text()
    assert re.search(r'"carol".*"q2".*"1\.5"', questions), questions
    assert json.loads(after["history"][-1])["overrides_changed"] == ["carol"]


def test_a_bad_override_or_another_exercise_changes_nothing(regraded, tmp_path):
    out = regraded["out"]
    before = _state(out)
    bad = tmp_path / "bad.csv"
    for text, message in [("student,question,points,reason\nzoe,q2,1,x\n", "no student 'zoe'"),
                          ("student,question,points,reason\nbob,q9,1,x\n", "no question 'q9'"),
                          ("student,question,points,reason\nbob,q2,7,x\n", "0 to 3 points"),
                          ("student,question,points,reason\nbob,q2,1,\n", "give a reason")]:
        bad.write_text(text)
        run = subprocess.run([sys.executable, "-m", "nbcourse.cli", "export", str(out),
                              "--overrides", str(bad)],
                             capture_output=True, text=True, cwd=REPO, timeout=120)
        assert run.returncode == 2 and message in run.stderr and "line 2" in run.stderr
    other = subprocess.run([sys.executable, "-m", "nbcourse.cli", "grade", "02_smoothing",
                            str(FIXTURES / "correct.ipynb"), "--out", str(out)],
                           capture_output=True, text=True, cwd=REPO, timeout=120)
    assert other.returncode == 2 and "not of 02_smoothing" in other.stderr
    assert _state(out) == before


def test_a_subfolder_named_like_a_classmate_cannot_replace_their_row_on_a_regrade(tmp_path):
    """Red team: mallory hands in submitted/mallory/alice/01_weather.ipynb. The class run
    names her row mallory; regrading her by that path named it alice and replaced alice's
    10 with mallory's marks. The earlier row stays and the instructor is told."""
    from nbcourse.grading.batch import grade_batch
    submitted = tmp_path / "submitted"
    (submitted / "alice").mkdir(parents=True)
    (submitted / "mallory" / "alice").mkdir(parents=True)
    (submitted / "alice" / "01_weather.ipynb").write_bytes(
        (FIXTURES / "correct.ipynb").read_bytes())
    (submitted / "mallory" / "alice" / "01_weather.ipynb").write_bytes(
        (FIXTURES / "wrong.ipynb").read_bytes())
    out = tmp_path / "out"
    first = grade_batch("01_weather", [submitted], out, jobs=1, progress=None, sandbox="off")
    assert {r.submission: r.total for r in first.results}["alice"] == 10
    alice_page = next((out / "feedback").glob("alice*.html")).read_bytes()
    again = grade_batch("01_weather", [submitted / "mallory" / "alice" / "01_weather.ipynb"],
                        out, jobs=1, progress=None, sandbox="off")
    assert {r.submission: r.total for r in again.results}["alice"] == 10
    assert any("alice: not regraded" in w for w in again.warnings)
    assert next((out / "feedback").glob("alice*.html")).read_bytes() == alice_page
    rows = {row["submission"]: row for row in
            csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
    assert rows["alice"]["total"] == "10"
