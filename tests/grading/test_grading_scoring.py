"""From run reports to statuses, points, gradebook rows and feedback pages."""
from __future__ import annotations

import csv
import io
from html import escape
from pathlib import Path

import pytest

from nbcourse.grading import forbidden, specs
from nbcourse.grading.collection import collect_submissions
from nbcourse.grading.gradebook import BatchResult, feedback_name, gradebook_csv
from nbcourse.grading.summary import summary
from nbcourse.grading.feedback import render_html
from nbcourse.grading.execution.probe_source import STUB_RAISED
from nbcourse.grading.execution.report import RunReport, first_code_line
from nbcourse.grading.scoring import score

from submission_support import encoded_value, perfect_probes, perfect_swaps

EXERCISE = specs.load("01_weather")
EXPECTED = EXERCISE.expected()


def _perfect_probes():
    return perfect_probes(EXERCISE)


def _report(**changes):
    report = {"notebook": "ok", "problems": [], "kernel": "ok", "memory_error": False,
              "probes": _perfect_probes(), "forbidden": {}, "output_bytes": 0,
              "follow_through": perfect_swaps(EXERCISE)}
    report.update(changes)
    return RunReport.from_json(report)


def test_a_perfect_run_is_graded_full_marks():
    result = score(EXERCISE, EXPECTED, _report(), "alice", "alice.ipynb")
    full = EXERCISE.maximum
    assert (result.status, result.total, result.maximum) == ("graded", full, full)
    assert all(q.status == "passed" for q in result.questions)


def test_partial_credit_is_per_case_and_rounded():
    probes = _perfect_probes()
    probes["q1"]["cases"][1] = {"error": "ZeroDivisionError: division by zero"}
    result = score(EXERCISE, EXPECTED, _report(probes=probes), "bob", "bob.ipynb")
    q1 = result.questions[0]
    n = len(EXERCISE.question("q1").cases)
    assert q1.status == "partly passed" and q1.score == round(2 * (n - 1) / n, 2)
    assert "raised ZeroDivisionError" in q1.cases[1].message
    assert result.total == round(EXERCISE.maximum - 2 + 2 * (n - 1) / n, 2)


@pytest.mark.parametrize("changes, status", [
    ({"notebook": "not a notebook", "notebook_reason": "x"}, "not a notebook"),
    ({"notebook": "empty", "notebook_reason": "x"}, "empty notebook"),
    ({"grader_error": "boom"}, "grader error"),
    ({"kernel": "died", "kernel_reason": "the kernel died", "memory_error": True}, "memory limit"),
    ({"kernel": "died", "kernel_reason": "the kernel died"}, "kernel died"),
    ({"kernel": "stuck", "kernel_reason": "stuck"}, "timed out"),
    ({"problems": [{"cell": 3, "error": "ValueError: no", "timed_out": False}]}, "cell error"),
    ({"problems": [{"cell": 3, "error": "NotImplementedError: ", "timed_out": False,
                    "not_implemented": True}]}, "graded"),
])
def test_status_precedence(changes, status):
    assert score(EXERCISE, EXPECTED, _report(**changes), "s", "s.ipynb").status == status


def test_missing_and_unreadable_answers_have_their_own_status():
    probes = _perfect_probes()
    probes["q3"] = {"question": "q3", "name": "predict", "missing": True}
    result = score(EXERCISE, EXPECTED, _report(probes=probes), "s", "s.ipynb")
    q3_points = EXERCISE.question("q3").points
    assert result.status == "answer missing" and result.total == EXERCISE.maximum - q3_points
    assert "predict" in result.reasons[0]
    probes["q3"] = {"unreadable_report": "the probe's output was tampered with"}
    result = score(EXERCISE, EXPECTED, _report(probes=probes), "s", "s.ipynb")
    assert result.status == "answers unreadable" and "tampered" in result.reasons[0]


def test_a_report_from_another_question_is_not_accepted():
    probes = _perfect_probes()
    probes["q1"] = dict(probes["q2"])  # a forged blob that answers for the wrong question
    result = score(EXERCISE, EXPECTED, _report(probes=probes), "s", "s.ipynb")
    assert result.questions[0].status == "unreadable" and result.questions[0].score == 0


def test_feedback_escapes_everything_the_student_controls():
    probes = _perfect_probes()
    probes["q1"]["cases"][0] = {"error": "ValueError: <script>alert(1)</script>"}
    result = score(EXERCISE, EXPECTED, _report(probes=probes), "<b>eve</b>", "eve.ipynb")
    page = render_html(result, EXERCISE.title)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<b>eve</b>" not in page
    assert escape("public test: P(outlook = sunny | play = yes) in the lesson's table") in page


def test_feedback_says_a_flagged_answer_was_flagged_and_why_it_scored_zero():
    """Its tests pass, but it calls CategoricalNB: the page must not just say "passed"."""
    result = score(EXERCISE, EXPECTED, _report(forbidden={"q3": ["CategoricalNB"]}), "s", "s.ipynb")
    predict = result.questions[2]
    assert (predict.status, predict.score, predict.withheld) == ("passed", 0.0, 2.0)
    page = render_html(result, EXERCISE.title)
    section = page.split("<h2>q3")[1].split("<h2>")[0]
    assert "(0 / 2)" in section
    assert "<code>predict</code> &mdash; passed" not in section
    assert '<span class="fail">flagged</span>: it uses CategoricalNB' in section
    assert "so it scores 0 of 2 points. Its tests on their own: passed." in section
    assert section.count("CategoricalNB") == 1  # said once, not again as a note
    # results.json keeps the note with the points withheld
    assert any("2 points withheld" in note for note in predict.notes)


def test_a_failing_cell_is_named_by_its_first_line_of_code():
    """Jupyter shows no cell numbers (and counting Markdown cells matches nothing)."""
    problems = [{"cell": 7, "error": "ValueError: no", "timed_out": False,
                 "code": "x = int('a')"},
                {"cell": 9, "error": "still running after 5 s", "timed_out": True,
                 "code": "while True:"}]
    result = score(EXERCISE, EXPECTED, _report(problems=problems), "s", "s.ipynb")
    assert result.reasons == [
        "the cell starting `x = int('a')` raised ValueError: no",
        "the cell starting `while True:` was still running after 5 s and was interrupted"]
    assert not any("cell 7" in r or "cell 9" in r for r in result.reasons)


@pytest.mark.parametrize("source, line", [
    ("weather = load_wether()\nweather", "weather = load_wether()"),
    ("\n# waiting for something\n\nwhile True:\n    pass", "while True:"),
    ("# only a comment", "# only a comment"),
    ("x = " + "1 + " * 40 + "1", "x = " + "1 + " * 13 + "1 +…"),
    ("", ""),
])
def test_a_cell_is_quoted_by_its_first_line_of_code(source, line):
    assert first_code_line(source) == line
    assert len(first_code_line(source)) <= 60


def test_gradebook_has_one_column_per_question_and_a_summary(tmp_path):
    results = [score(EXERCISE, EXPECTED, _report(), "alice", "a.ipynb"),
               score(EXERCISE, EXPECTED, _report(notebook="empty", notebook_reason="no code"),
                     "bob", "b.ipynb")]
    batch = BatchResult(EXERCISE, results, ["a warning"], 2.0, tmp_path)
    rows = list(csv.DictReader(io.StringIO(gradebook_csv(batch))))
    full = f"{EXERCISE.maximum:g}"
    assert rows[0] == {"submission": "alice", "status": "graded", "q1": "2", "q2": "3", "q3": "2",
                       "q4": "1", "q5": "2", "total": full, "maximum": full, "flags": "",
                       "reason": "", "overrides": "", "raw": full, "penalty": "0",
                       "days late": "0"}
    assert rows[1]["status"] == "empty notebook" and rows[1]["reason"] == "no code"
    text = summary(batch)
    assert "1 empty notebook, 1 graded" in text or "1 graded, 1 empty notebook" in text
    assert f"mean score {EXERCISE.maximum / 2:.2f} / {EXERCISE.maximum:g}" in text and "warning: a warning" in text


def test_collect_submissions_keeps_students_with_the_same_file_name_apart(tmp_path):
    for student in ("alice", "bob"):
        (tmp_path / "submitted" / student / "ex1").mkdir(parents=True)
        (tmp_path / "submitted" / student / "ex1" / "01_weather.ipynb").write_text("{}")
    (tmp_path / "submitted" / "bob" / ".ipynb_checkpoints").mkdir()
    (tmp_path / "submitted" / "bob" / ".ipynb_checkpoints" / "x-checkpoint.ipynb").write_text("{}")
    (tmp_path / "late.pdf").write_bytes(b"%PDF")
    (tmp_path / "nothing").mkdir()
    found, warnings = collect_submissions([tmp_path / "submitted", tmp_path / "late.pdf",
                                           tmp_path / "nothing", tmp_path / "late.pdf"],
                                          "01_weather")
    assert [s.id for s in found] == ["alice", "bob", "late.pdf", "late.pdf~2"]
    assert found[3].refused == "several notebooks"  # the same file twice: flagged, not merged
    assert warnings[0] == f"no submissions found in {tmp_path / 'nothing'}"
    # a readable name, with a short hash when characters had to be replaced, so that two
    # ids never share a page
    assert feedback_name("alice/ex1/01_weather").startswith("alice__ex1__01_weather-")
    assert feedback_name("alice") == "alice" != feedback_name(" alice")
    assert "/" not in feedback_name("../../etc/passwd")
    assert not feedback_name("../../etc/passwd").startswith(".")


@pytest.mark.parametrize("sources, expected", [
    (["from nbcourse import CategoricalNB",
      "def joint_scores(t, q, y):\n    return CategoricalNB().fit(t, t[y])"], ["CategoricalNB"]),
    (["from nbcourse.naive_bayes import CategoricalNB as C\nNB = C",
      "def helper(t):\n    return NB()",
      "def joint_scores(t, q, y):\n    return helper(t)"], ["CategoricalNB"]),
    (["import nbcourse", "def joint_scores(t, q, y):\n    return nbcourse.CategoricalNB()"],
     ["CategoricalNB"]),
    (["from nbcourse import CategoricalNB\nMODEL = CategoricalNB()",
      "def joint_scores(t, q, y):\n    return MODEL.fit(t)"], ["CategoricalNB"]),
    (["%time x = 1\n!pip list\nfrom nbcourse import CategoricalNB",
      "def joint_scores(t, q, y):\n    return CategoricalNB()"], ["CategoricalNB"]),
    (["from nbcourse.naive_bayes import *", "def joint_scores(t, q, y):\n    return CategoricalNB()"],
     ["CategoricalNB"]),
    # not flagged: the estimator used elsewhere, a local variable with a library name
    (["from nbcourse import CategoricalNB\ncheck_model = CategoricalNB()",
      "def joint_scores(t, q, y):\n    accuracy = 1\n    return accuracy"], []),
    (["def joint_scores(t, q, y):\n    return 1", "this is not python ((("], []),
])
def test_forbidden_names_are_found_through_imports_aliases_and_helpers(sources, expected):
    assert forbidden.find(sources, "joint_scores", ["CategoricalNB", "accuracy"]) == expected


def test_a_value_answer_is_traced_through_notebook_variables():
    sources = ["from nbcourse import CategoricalNB",
               "model = CategoricalNB().fit(X, y)\nscores = model.predict_proba(q)",
               "p_no = scores[0][0]"]
    assert forbidden.find(sources, "p_no", ["CategoricalNB"]) == ["CategoricalNB"]


def test_the_worker_flags_each_question_whose_answer_uses_a_forbidden_name():
    """What the grading worker stores as ``RunReport.forbidden``: only flagged questions,
    by question id, in the plan's order (the scan it is handed by ``worker_main``)."""
    sources = ["from nbcourse import CategoricalNB",
               "def likelihood(t, f, v, y, c):\n    return 0.5",
               "def joint_scores(t, q, y):\n    return CategoricalNB().fit(t, t[y])",
               "def predict(t, q, y):\n    return max(joint_scores(t, q, y))",
               "p_no = likelihood(None, None, None, None, None)"]  # computed, not typed in
    # predict reaches it only through joint_scores, a graded function flagged for it: the
    # flag stays there (predict is marked by follow-through)
    assert forbidden.flagged_answers(sources, EXERCISE.probe_plan()) == {"q2": ["CategoricalNB"]}
    sources[3] = "def predict(t, q, y):\n    return CategoricalNB() or joint_scores(t, q, y)"
    assert list(forbidden.flagged_answers(sources, EXERCISE.probe_plan())) == ["q2", "q3"]
    assert forbidden.flagged_answers(sources[1:], EXERCISE.probe_plan()) == {}


def test_exercise_names_resolve_loosely_but_not_ambiguously(tmp_path):
    assert specs.resolve_name("weather") == "01_weather"
    assert specs.resolve_name("1") == specs.resolve_name("01") == "01_weather"
    assert specs.resolve_name("05_spam.ipynb") == "05_spam"
    with pytest.raises(ValueError, match="unknown exercise"):
        specs.resolve_name("quantum")
    for name in ("01_weather", "11_weather_extra"):
        (tmp_path / f"{name}.grading.py").write_text("")
    assert specs.resolve_name("weather", tmp_path) == "01_weather"
    with pytest.raises(ValueError, match="ambiguous"):
        specs.resolve_name("eat", tmp_path)


def test_specs_are_validated():
    with pytest.raises(ValueError, match="points must be positive"):
        specs.Question("q1", "f", 0, "t", reference=len, cases=[specs.Case("c", (1,))])
    with pytest.raises(ValueError, match="needs at least one case"):
        specs.Question("q1", "f", 1, "t", reference=len)
    with pytest.raises(ValueError, match="unique"):
        q = specs.Question("q1", "f", 1, "t", kind="value", reference=lambda: 1)
        specs.Exercise("x", [q, q])
    assert Path(specs.default_source_dir()).name == "source"


# ------------------------------------------------------------------ clean messages (issue 18)
def test_a_blank_notebook_is_not_answered_rather_than_missing():
    """Stubs raise NotImplementedError, so the value questions were never assigned."""
    probes = _perfect_probes()
    for question in EXERCISE.questions:
        if question.kind == "value":
            probes[question.id] = {"question": question.id, "name": question.name,
                                   "missing": True}
        else:
            probes[question.id]["cases"] = [{"error": STUB_RAISED}] * len(question.cases)
    stub = {"cell": 3, "code": "raise NotImplementedError()", "error": "NotImplementedError: ",
            "timed_out": False, "not_implemented": True}
    result = score(EXERCISE, EXPECTED, _report(probes=probes, problems=[stub]), "s", "s.ipynb")
    assert result.status == "graded" and result.total == 0
    assert {q.status for q in result.questions} == {"not answered"}
    page = render_html(result, EXERCISE.title)
    assert "answer missing" not in page and "not answered" in page
    assert "NotImplementedError:" not in page  # no empty exception text


def test_messages_carry_no_kernel_file_names_or_empty_exception_text():
    from nbcourse.grading.scoring import student_message
    assert student_message("SyntaxError: invalid syntax (836573701.py, line 3)") == \
        "SyntaxError: invalid syntax (line 3 of the cell)"
    assert "ipykernel" not in student_message(
        "File /tmp/ipykernel_4242/836573701.py:3, in f") and "836573701" not in student_message(
        "File /tmp/ipykernel_4242/836573701.py:3, in f")
    assert student_message("NotImplementedError: ") == "NotImplementedError"
    probes = _perfect_probes()
    probes["q1"]["cases"][0] = {"error": "NameError: name 'x' is not defined (12345678.py, line 2)"}
    page = render_html(score(EXERCISE, EXPECTED, _report(probes=probes), "s", "s.ipynb"),
                       EXERCISE.title)
    assert "12345678.py" not in page and "line 2 of the cell" in page


def test_a_forbidden_name_equal_to_the_answer_name_is_said_clearly():
    sources = ["from nbcourse import smoothing",
               "def laplace(count, total, k):\n    return (count + 1) / (total + k)",
               "def lazy(count, total, k):\n    return smoothing.laplace(count, total, k)"]
    # the student's own laplace is not the library's
    assert forbidden.find(sources, "laplace", ["laplace"]) == []
    assert forbidden.find(sources[:1] + ["def laplace(c, t, k):\n    return smoothing.laplace(c, t, k)"],
                          "laplace", ["laplace"]) == ["laplace"]
    from nbcourse.grading.scoring import flag_note
    note = flag_note("laplace", "laplace", 1)
    assert "calls the library's own laplace" in note and "`laplace` uses laplace" not in note


def test_a_hidden_case_never_shows_the_value_the_answer_made_from_its_inputs():
    probes = _perfect_probes()
    cases = probes["q1"]["cases"]
    hidden = [i for i, case in enumerate(EXERCISE.question("q1").cases) if case.hidden]
    public = EXERCISE.question("q1").cases.index(
        next(c for c in EXERCISE.question("q1").cases if not c.hidden))
    for i in hidden + [public]:
        cases[i] = encoded_value(0.123456)
    q1 = score(EXERCISE, EXPECTED, _report(probes=probes), "s", "s.ipynb").questions[0]
    assert "0.123456" in q1.cases[public].message  # the public case keeps the full message
    for i in hidden:
        assert q1.cases[i].message == "the value is not the expected one"
    probes["q2"]["cases"][-1] = encoded_value({"cherry": 1.5, "banana": 0.5, "apple": 0.0,
                                               "lemon": 2.0})
    q2 = score(EXERCISE, EXPECTED, _report(probes=probes), "s", "s.ipynb").questions[1]
    assert q2.cases[-1].message == "the value is not the expected one"  # no "at ['cherry']"


def test_each_form_note_starts_as_FORM_NOTES_says():
    """The grader adds no hint, and check() no second message, to a note that already says
    what is wrong: both recognise it by FORM_NOTES, so a reworded note must keep its start."""
    from nbcourse.grading.diagnosis import FORM_NOTES, form_note
    from nbcourse.grading.values import Tolerance
    rounded = form_note(0.333, 1 / 3, Tolerance())
    assert rounded.startswith(FORM_NOTES)
    assert form_note([5.0, 2.0], [5, 2], Tolerance()) is None  # 5.0 is right: no note


def test_no_csv_cell_can_end_a_record_or_start_a_formula(tmp_path):
    """Issue 33, item 6: a lone CR in a cell error or a file name started a record with `=`."""
    import pandas as pd
    from nbcourse.grading.collection import Submission, collect
    from nbcourse.grading.export import FORMATS, write_exports
    from nbcourse.grading.gradebook import write_outputs

    folder = tmp_path / "flat"
    folder.mkdir()
    (folder / "eve\r=HYPERLINK(A1).ipynb").write_text("{}", encoding="utf-8")
    (eve,) = collect([folder], "01_weather").submissions
    problems = [{"cell": 3, "error": "RuntimeError: \r=1+1+cmd|' /C calc'!A0",
                 "timed_out": False, "code": "raise RuntimeError(x)"}]
    results = [score(EXERCISE, EXPECTED, _report(problems=problems), eve.id, eve.shown),
               score(EXERCISE, EXPECTED, _report(problems=problems), "mallory\n=1+1", "m")]
    sources = {eve.id: Submission(eve.id, eve.path, lms="moodle", lms_id="7")}
    write_outputs(BatchResult(EXERCISE, results, [], 1.0, tmp_path / "out", sources=sources),
                  tmp_path / "out")
    write_exports(tmp_path / "out", FORMATS)
    for name in ["grades", *(f for f in FORMATS if f != "moodle-feedback")]:  # that one: a zip
        raw = (tmp_path / "out" / f"{name}.csv").read_bytes()
        assert b"\r" not in raw, name
        lines = raw.decode("utf-8").split("\n")[:-1]
        assert all(line.startswith('"') and line.endswith('"') for line in lines), name
        records = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
        assert len(records) == len(lines), name  # one record a line: nothing split a record
        cells = [cell for record in records for cell in record]
        table = pd.read_csv(io.BytesIO(raw), dtype=str, keep_default_na=False)
        cells += [str(cell) for cell in table.to_numpy().ravel()]
        assert not any(cell.startswith(("=", "+", "@", "|", "\r", "\n")) for cell in cells), name
        assert any("=HYPERLINK(A1)" in cell for cell in cells), name  # shown, as text
    grades = list(csv.DictReader((tmp_path / "out" / "grades.csv").open(encoding="utf-8")))
    assert len(grades) == 2 and "calc" in grades[0]["reason"] + grades[1]["reason"]
    import zipfile
    with zipfile.ZipFile(tmp_path / "out" / "moodle-feedback.zip") as archive:
        assert not any(ch in name for name in archive.namelist() for ch in "\r\n/")
