"""Issue 34, second round: answers a fresh student tried, through ``check()`` and the grader.

The sandboxed tests grade the instructor's solution with one probe cell run last (the
student's answer); the others put an answer to ``check()`` (the released checks file)
and to ``hidden.grade_answer`` (every case, as the grader scores them).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nbcourse.grading import specs
from nbcourse.grading.batch import grade_batch
from nbcourse.grading.gradebook import feedback_name
from nbcourse.grading.hidden import grade_answer
from nbcourse.grading.selfcheck import Checker
from submission_support import lost_marks, solved, with_cell

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "exercises" / "source"


def check(name: str, question: str, answer):
    return Checker(name, REPO / "exercises" / f"{name}.checks.json").run(question, answer,
                                                                          sources=[])


def graded(name: str, question: str, answer):
    return grade_answer(specs.load(name, SOURCE), question, answer)


def grade_probes(name: str, probes: dict, folder: Path):
    """{probe: {question id: its result}} and {probe: feedback page}, from the real grader."""
    notebooks = {}
    for who, code in probes.items():
        notebook = solved(name, SOURCE)
        notebooks[who] = with_cell(notebook, "probe", code) if code else notebook
    return grade_notebooks(name, notebooks, folder)


def grade_notebooks(name: str, notebooks: dict, folder: Path):
    """``grade_probes`` for whole notebooks: {who: notebook}."""
    submitted = folder / "submitted"
    submitted.mkdir()
    for who, notebook in notebooks.items():
        (submitted / f"{who}.ipynb").write_text(json.dumps(notebook))
    grade_batch(name, [submitted], folder / "out", jobs=2, progress=None, source_dir=SOURCE)
    results = json.loads((folder / "out" / "results.json").read_text())
    rows = {row["submission"]: {q["id"]: q for q in row["questions"]}
            for row in results["submissions"]}
    pages = {who: (folder / "out" / "feedback" / f"{feedback_name(who)}.html").read_text()
             for who in notebooks}
    return rows, pages


# ------------------------------------------- 04: agreement is 1.0 for every right answer
AGREEMENT_FAKES = {
    "rows_over_rows": "agreement = X.shape[0] / X.shape[0]",
    "model_with_itself": "agreement = float(np.mean(model.predict(X) == model.predict(X)))",
    "decide_with_itself": "agreement = float(np.mean(decide(w0, w, X) == decide(w0, w, X)))",
    "typed_in": "agreement = 1.0",
    # red team 4: no ``decide`` at all (deleted), so no swap was judged and a disguised 1.0
    # kept the mark that the same value loses next to a ``decide`` still the stub
    "decide_deleted": "del decide\nagreement = float(len('x'))",
}


AGREEMENT_RIGHT = {
    "labels": "agreement = float(np.mean(np.where(decide(w0, w, X) == 1, model.classes_[1], "
              "model.classes_[0]) == model.predict(X)))",
    "one_message_at_a_time": "dense = X.toarray()\n"
                             "said = [decide(w0, w, dense[i])[0] for i in range(dense.shape[0])]\n"
                             "agreement = sum(int(s == (p == model.classes_[1])) for s, p in "
                             "zip(said, model.predict(X))) / len(said)",
}


#: a value 1 by construction, whose cell ends the kernel when the grader runs it again with
#: another ``decide`` in place (the swap's functions come from ``<reference>``, called
#: through a wrapper that fills in the student's defaults: its code is not named decide)
AGREEMENT_STOPS_THE_SWAP = (
    "import os\n"
    "if decide.__code__.co_name != 'decide' or '<reference>' in decide.__code__.co_filename:\n"
    "    os._exit(0)\n"
    "agreement = X.shape[0] / X.shape[0]")


@pytest.fixture(scope="module")
def exercise_4(tmp_path_factory):
    probes = {"solution": "", **AGREEMENT_FAKES, **AGREEMENT_RIGHT,
              "stops_the_swap": AGREEMENT_STOPS_THE_SWAP,
              "decide_series": "def decide(w0, w, X):\n"
                               "    s = w0 + np.asarray(X @ np.asarray(w, dtype=float)).ravel()\n"
                               "    return pd.Series((s > 0).astype(int))\n"}
    return grade_probes("04_linearity", probes, tmp_path_factory.mktemp("ex04"))


def test_the_solution_keeps_every_mark_of_exercise_4(exercise_4):
    rows, _ = exercise_4
    assert not lost_marks(rows["solution"].values()), lost_marks(rows["solution"].values())


@pytest.mark.parametrize("probe", list(AGREEMENT_FAKES))
def test_an_agreement_of_1_that_does_not_come_from_decide_earns_nothing(exercise_4, probe):
    rows, pages = exercise_4
    assert rows[probe]["q4"]["score"] == 0, rows[probe]["q4"]
    assert "does not follow your `decide`" in pages[probe].replace("&#x27;", "'")
    assert rows[probe]["q1"]["score"] == rows[probe]["q1"]["points"]
    assert rows[probe]["q2"]["score"] == (0 if probe == "decide_deleted" else
                                          rows[probe]["q2"]["points"])


def test_an_agreement_whose_cell_stops_the_swap_earns_nothing(exercise_4):
    """Red team 3: the swap that did not run left the ordinary grade, so a cell that ends
    the kernel on seeing the swapped ``decide`` kept the mark of a value 1 by construction."""
    rows, pages = exercise_4
    assert rows["stops_the_swap"]["q4"]["score"] == 0, rows["stops_the_swap"]["q4"]
    assert "`agreement` could not be checked" in pages["stops_the_swap"].replace("&#x27;", "'")
    # the kernel it ended is gone for the swaps after it too: q7's has no reading either
    assert rows["stops_the_swap"]["q7"]["score"] == 0
    others = [q for qid, q in rows["stops_the_swap"].items() if qid not in ("q4", "q7")]
    assert not lost_marks(others), lost_marks(others)


@pytest.mark.parametrize("reply", [None, {"not_run": "stopped"}, {"timed_out": 30.0}])
def test_a_swap_without_a_reading_fails_the_value(reply):
    """However the swap's reading went missing, a value right the ordinary way fails."""
    from nbcourse.grading.execution.report import RunReport
    from nbcourse.grading.scoring import CaseResult, QuestionResult, score_question
    from nbcourse.grading.statuses import AnswerStatus
    from nbcourse.grading.swaps import judge_swaps, key
    exercise = specs.load("04_linearity", SOURCE)
    question = exercise.question("q4")
    results = [QuestionResult(q.id, q.name, "", q.points, q.points, AnswerStatus.PASSED,
                              cases=[CaseResult(case.name, case.hidden, True)
                                     for case in q.cases]) for q in exercise.questions]
    result = next(r for r in results if r.id == "q4")
    report = RunReport()
    if reply is not None:
        report.follow_through[key(question, question.swaps[0])] = reply
    judge_swaps(exercise, report, results, score_question)
    assert (result.score, result.status) == (0.0, AnswerStatus.FAILED)
    assert any("could not be checked" in note for note in result.notes)


@pytest.mark.parametrize("probe", list(AGREEMENT_RIGHT))
def test_an_agreement_computed_another_right_way_keeps_its_mark(exercise_4, probe):
    rows, _ = exercise_4
    assert rows[probe]["q4"]["score"] == rows[probe]["q4"]["points"], rows[probe]["q4"]


def test_decisions_as_a_series_earn_the_marks_of_decide(exercise_4):
    rows, _ = exercise_4
    assert rows["decide_series"]["q2"]["score"] == rows["decide_series"]["q2"]["points"]
    assert rows["decide_series"]["q4"]["score"] == rows["decide_series"]["q4"]["points"]


# ------------------------------------------- one rule for a Series, a column, and hints
def _scores(w0, w, X):
    return w0 + np.asarray(X @ np.asarray(w, dtype=float)).ravel()


def decide_series(w0, w, X):
    return pd.Series((_scores(w0, w, X) > 0).astype(int))


def decide_column(w0, w, X):
    return (_scores(w0, w, X) > 0).astype(int).reshape(-1, 1)


def test_a_series_of_decisions_is_accepted_as_a_list_is():
    assert check("04_linearity", "q2", decide_series).all_passed
    result = graded("04_linearity", "q2", decide_series)
    assert result.score == result.points, [c.message for c in result.cases]


def test_a_column_of_decisions_is_told_its_shape_and_no_unrelated_hint():
    report = check("04_linearity", "q2", decide_column)
    text = str(report)
    assert "got shape (7, 1)" in text and ".ravel()" in text
    assert "should be 0 or 1" not in text
    assert "w0 is added once" not in text  # the case's hint is about a wrong value
    result = graded("04_linearity", "q2", decide_column)
    assert result.score == 0
    assert "got shape (4, 1)" in " ".join(c.message for c in result.cases)
    assert not any(c.hint for c in result.cases)


def test_a_public_cases_hint_is_not_shown_for_a_wrong_form():
    def decide_w0_in_every_weight(w0, w, X):
        X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
        return (X @ (np.asarray(w, dtype=float) + w0) > 0).astype(int)

    def decide_labels(w0, w, X):
        return pd.Series((_scores(w0, w, X) > 0).astype(int), index=[f"doc {i}" for i in
                                                                     range(X.shape[0])])

    assert "w0 is added once" in str(check("04_linearity", "q2", decide_w0_in_every_weight))
    labelled = str(check("04_linearity", "q2", decide_labels))
    assert "series.tolist()" in labelled and "w0 is added once" not in labelled


# ----------------------------------------------------------------- one rule for rounding
def _module(name: str):
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"probes_{name}", SOURCE / f"{name}.grading.py")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


ROUNDED_NOTE = "decimal places: if you rounded it, store it unrounded"


@pytest.mark.parametrize("name, question, value", [
    ("04_linearity", "q5", {"majority": 0.57, "best_linear": 0.6875, "best_any": 0.7125}),
    ("02_smoothing", "q9", {"a": 0.0, "b": 0.125, "c": 1.0, "d": 0.2727}),
    ("02_smoothing", "q9", {"a": 0.0, "b": 0.125, "c": 1.0, "d": 0.273}),
])
def test_a_rounded_value_in_a_dict_is_told_so_in_check_and_at_grading(name, question, value):
    assert "if you rounded it, store it unrounded" in str(check(name, question, value))
    result = graded(name, question, value)
    assert result.score == 0
    assert ROUNDED_NOTE in " ".join(c.message for c in result.cases)


def test_a_rounding_within_the_questions_tolerance_gets_no_note():
    # a question that accepts four decimals (rel 1e-4) earns a rounded answer its marks, so
    # it is not told it rounded (the course's value questions all use the default now)
    from nbcourse.grading.values import Tolerance, rounded_places
    exact = float(_module("04_linearity").free_shift(lambda t: float(t[1] - t[0])))
    assert rounded_places(round(exact, 4), Tolerance(rel=1e-4, abs_=1e-6)) is None
    assert rounded_places(round(exact, 4), Tolerance()) == 4


def test_a_rounded_function_answer_is_told_so_in_check_and_at_grading():
    gaussian = _module("06_gaussian")

    def ece_rounded(is_positive, p, n_bins):
        return round(float(gaussian.ref_calibration_error(is_positive, p, n_bins)), 3)

    report = check("06_gaussian", "q6", ece_rounded)
    assert not report.all_passed and "equals the right one rounded to 3 decimal places" in str(report)
    result = graded("06_gaussian", "q6", ece_rounded)
    assert result.score < 0.5
    assert ROUNDED_NOTE in " ".join(c.message for c in result.cases if c.hidden)

    merging = _module("07_merging")

    def merge_rounded(a, b):
        n, mean, var = merging.ref_merge_gaussian(a, b)
        return [n, np.round(mean, 2).tolist(), np.round(var, 2).tolist()]

    report = check("07_merging", "q2", merge_rounded)
    assert not report.all_passed and "equals the right one rounded to 2 decimal places" in str(report)


# ---------------------------------------- wrong answers that passed check() (item 5)
def test_merging_two_empty_shards_without_a_guard_fails_a_public_check():
    def merge_without_guard(a, b):
        (n_a, mean_a, var_a), (n_b, mean_b, var_b) = a, b
        n = n_a + n_b
        mean_a, mean_b = np.asarray(mean_a, float), np.asarray(mean_b, float)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (n_a * mean_a + n_b * mean_b) / n
            delta = mean_b - mean_a
            var = (n_a * np.asarray(var_a) + n_b * np.asarray(var_b)
                   + delta ** 2 * n_a * n_b / n) / n
        return [n, mean.tolist(), var.tolist()]

    report = check("07_merging", "q2", merge_without_guard)
    assert not report.all_passed and "two shards with no rows at all" in str(report)


def test_a_width_read_from_the_first_rows_fails_a_public_check():
    merging = _module("07_merging")

    def merge_width_from_first(a, b):
        width = len(a["feature_count"][0])  # an office with no messages has no row 0
        merged = merging.ref_merge_counts(a, b)
        assert width == len(merged["feature_count"][0])
        return merged

    report = check("07_merging", "q1", merge_width_from_first)
    assert not report.all_passed and "the first office received no messages" in str(report)


def test_subtracting_the_row_mean_fails_a_public_check():
    def posterior_minus_mean(log_scores):
        s = np.asarray(log_scores, dtype=float)
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(s - s.mean(axis=1, keepdims=True))
            return (e / e.sum(axis=1, keepdims=True)).tolist()

    report = check("06_gaussian", "q8", posterior_minus_mean)
    assert not report.all_passed and "scores 2000 apart" in str(report)


# ------------------------------------------- a Decimal where later functions need a Fraction
DECIMAL_LIKELIHOOD = '''
from decimal import Decimal


def likelihood(table, feature, value, target, label):
    rows = table[table[target] == label]
    return Decimal(int((rows[feature] == value).sum())) / Decimal(len(rows))
'''


def test_a_decimal_likelihood_is_refused_with_the_conversion_and_costs_no_other_marks(
        tmp_path):
    from decimal import Decimal
    weather = _module("01_weather")

    def likelihood(*args):
        value = weather.ref_likelihood(*args)
        return Decimal(value.numerator) / Decimal(value.denominator)

    said = str(check("01_weather", "q1", likelihood))
    assert "decimal.Decimal" in said and "Fraction(str(d))" in said
    assert "count only the rows of the class" not in said  # a form, not a wrong count
    assert graded("01_weather", "q1", likelihood).score == 0
    rows, pages = grade_probes("01_weather", {"decimal": DECIMAL_LIKELIHOOD}, tmp_path)
    assert rows["decimal"]["q1"]["score"] == 0
    for question in ("q2", "q3", "q4"):  # they call it: follow-through marking
        assert rows["decimal"][question]["score"] == rows["decimal"][question]["points"], \
            rows["decimal"][question]
    assert "Fraction(str(d))" in pages["decimal"]


def test_alpha_chosen_on_the_test_part_is_not_blamed_on_the_training_part():
    spam = _module("05_spam")
    chosen_on_test = spam.ref_experiment(*spam._sms_texts_and_labels(), spam.ALPHAS, 0,
                                         choose_on="test")[0]
    result = graded("05_spam", "q5", chosen_on_test)
    assert result.score == 0
    assert "alpha chosen on the test part" in result.mistakes
    assert not result.diagnosis.startswith("Known mistake (alpha scored on the training part)")
