"""Issue 34, a third student's probes of exercises 01-04, through ``check()`` and the grader.

- 01 q1: a ``likelihood`` reading the table's first column (not ``feature``) or its last
  column as the class (not ``target``) passed every public case, and was told a hint about
  the denominator.
- Follow-through: a value whose cell failed through a wrong function was also told it is
  "not defined"; 04's note said "its cell calls" of a function an earlier cell called.
- The summary ``nbcourse grade`` prints called every flag "a forbidden estimator".
- 02 q5: a value the table never shows; 02 q8: counts past 32 and 64 bits.
- Tolerances: one rule for 01-04, and a rounded value always fails with the rounding note.
- 03 q4: priors as a pandas Series broke the student's own q6 cell.
- 01 q3: a label with spaces around it kept full marks.
- 01 q3: a second mistake (in ``likelihood``) raised the marks of a wrong ``predict``.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from nbcourse.grading import specs
from nbcourse.grading.gradebook import BatchResult
from nbcourse.grading.scoring import QuestionResult, SubmissionResult
from nbcourse.grading.statuses import AnswerStatus, Status
from nbcourse.grading.summary import summary
from nbcourse.grading.values import compare
from submission_support import lost_marks, solved
from test_grading_marks_probes import SOURCE, _module, check, grade_notebooks, graded


def _page(page: str) -> str:
    return page.replace("&#x27;", "'").replace("&quot;", '"')


def _replaced(notebook: dict, function: str, code: str, start: str = "") -> dict:
    """``notebook`` with the cell that defines ``function`` (or the first cell starting
    with ``start``) replaced by ``code``."""
    start = start or f"def {function}("
    for cell in notebook["cells"]:
        if "".join(cell["source"]).startswith(start):
            cell["source"] = code
            return notebook
    raise AssertionError(f"no cell starts with {start}")


def _with_cell(notebook: dict, code: str) -> dict:
    notebook["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [],
                              "execution_count": None, "id": f"probe{len(notebook['cells'])}",
                              "source": code})
    return notebook


# --------------------------------------------------- 01 q1: the wrong column, both ways
def likelihood_first_column(table, feature, value, target, label):
    in_class = table[table[target] == label]
    return Fraction(int((in_class.iloc[:, 0] == value).sum()), len(in_class))


def likelihood_last_column_as_class(table, feature, value, target, label):
    in_class = table[table[table.columns[-1]] == label]
    return Fraction(int((in_class[feature] == value).sum()), len(in_class))


DENOMINATOR_HINT = "count only the rows of the class"


@pytest.mark.parametrize("answer, argument", [(likelihood_first_column, "`feature`"),
                                              (likelihood_last_column_as_class, "`target`")])
def test_a_likelihood_reading_the_wrong_column_fails_a_public_case(answer, argument):
    report = check("01_weather", "q1", answer)
    assert not report.all_passed
    said = str(report)
    assert argument in said and DENOMINATOR_HINT not in said
    result = graded("01_weather", "q1", answer)
    assert result.score < result.points
    assert any(not c.passed and c.hidden for c in result.cases)
    assert not any(DENOMINATOR_HINT in note for note in result.notes), result.notes
    assert any(argument in note for note in result.notes), result.notes


def test_the_reference_likelihood_passes_the_new_cases():
    reference = _module("01_weather").ref_likelihood
    assert check("01_weather", "q1", reference).all_passed
    assert graded("01_weather", "q1", reference).score == 2


# ----------------------------------------- 02 q5: a value the table never shows; q8: big
def smoothed_unseen_in_j(table, feature, value, target, label, alpha):
    rows = table[table[target] == label]
    values = table[feature].nunique() + (value not in set(table[feature]))
    return (int((rows[feature] == value).sum()) + alpha) / (len(rows) + alpha * values)


def smoothed_right(table, feature, value, target, label, alpha):
    rows = table[table[target] == label]
    return (int((rows[feature] == value).sum()) + alpha) / \
        (len(rows) + alpha * table[feature].nunique())


def test_a_value_the_table_never_shows_keeps_j():
    report = check("02_smoothing", "q5", smoothed_unseen_in_j)
    assert not report.all_passed and "never shows" in str(report)
    assert graded("02_smoothing", "q5", smoothed_unseen_in_j).score < 2
    assert check("02_smoothing", "q5", smoothed_right).all_passed
    assert graded("02_smoothing", "q5", smoothed_right).score == 2


def counts_int32(values, K):
    import numpy as np
    v = np.asarray(values, dtype=np.int32)
    with np.errstate(over="ignore"):
        return int(K - 1 + K * (v - 1).sum()), int(K * np.prod(v) - 1)


def counts_int64(values, K):
    import numpy as np
    v = np.asarray(values, dtype=np.int64)
    with np.errstate(over="ignore"):
        return int(K - 1 + K * (v - 1).sum()), int(K * np.prod(v) - 1)


def counts_exact(values, K):
    cells = K
    for v in values:
        cells *= v
    return (K - 1) + K * sum(v - 1 for v in values), cells - 1


@pytest.mark.parametrize("answer", [counts_int32, counts_int64])
def test_parameter_counts_in_fixed_size_integers_lose_marks(answer):
    report = check("02_smoothing", "q8", answer)
    assert not report.all_passed and "exact counts" in str(report)
    result = graded("02_smoothing", "q8", answer)
    assert result.score < result.points
    assert check("02_smoothing", "q8", counts_exact).all_passed
    assert graded("02_smoothing", "q8", counts_exact).score == 2


# ------------------------------------------------------------------------ tolerances
@pytest.mark.parametrize("name", ["01_weather", "02_smoothing", "03_mle", "04_linearity"])
def test_every_looser_tolerance_of_a_value_question_has_a_reason(name):
    """The rule 05-08 follow (``Tolerance.reason``), for 01-04."""
    for question in specs.load(name, SOURCE).questions:
        if question.kind == "value" and question.tolerance.looser:
            assert question.tolerance.reason.strip(), (name, question.id, question.tolerance)


def _rounded(name: str, question: str, places: int):
    value = _module(name).EXERCISE.question(question).reference()
    if isinstance(value, dict):
        return {k: round(float(v), places) if float(v) != round(float(v), places) else v
                for k, v in value.items()}
    return round(float(value), places)


ROUNDED = [("01_weather", "q5", 4), ("02_smoothing", "q9", 4), ("04_linearity", "q5", 2),
           ("04_linearity", "q7", 4)]


@pytest.mark.parametrize("name, question, places", ROUNDED)
def test_a_rounded_value_fails_with_the_rounding_note(name, question, places):
    value = _rounded(name, question, places)
    assert f"has only {places} decimal places" in str(check(name, question, value))
    result = graded(name, question, value)
    assert result.score == 0
    assert any(f"only {places} decimal places" in c.message for c in result.cases)
    assert not any(note.startswith("hint: ") for note in result.notes), result.notes


def test_a_half_rounded_up_by_hand_counts_as_rounded():
    """04 q5's majority is 0.575: a person writes 0.58, Python's round gives 0.57."""
    for majority in (0.58, 0.57):
        value = {"majority": majority, "best_linear": 0.7, "best_any": 0.75}
        result = graded("04_linearity", "q5", value)
        assert result.score == 0
        assert any("only 2 decimal places" in c.message for c in result.cases), majority


# ------------------------------------------------------------- 03 q4: priors as a Series
def priors_series(labels):
    import pandas as pd
    return pd.Series(labels).value_counts(normalize=True)


def test_priors_as_a_series_are_refused_with_the_conversion():
    said = str(check("03_mle", "q4", priors_series))
    assert "series.to_dict()" in said and "`p_ham_documents`" in said
    assert graded("03_mle", "q4", priors_series).score == 0

    def priors_dict(labels):
        return priors_series(labels).to_dict()
    assert check("03_mle", "q4", priors_dict).all_passed
    assert graded("03_mle", "q4", priors_dict).score == 1


# ------------------------------------------------- 01 q3: a label with spaces around it
def predict_padded(table, query, target):
    return " " + _module("01_weather").ref_predict(table, query, target) + " "


def test_a_predicted_label_with_spaces_around_it_is_wrong():
    report = check("01_weather", "q3", predict_padded)
    assert not report.all_passed and "spaces around it" in str(report)
    assert graded("01_weather", "q3", predict_padded).score == 0
    # a typed value keeps the rule issue 34 asked for
    assert compare(" b ", "b") is None
    assert compare(" b ", "b", strip=False) is not None


# ---------------------------------------------------- the summary's flagged submissions
def test_the_summary_says_what_each_submission_was_flagged_for(tmp_path):
    exercise = specs.load("01_weather", SOURCE)

    def row(name, flag):
        question = QuestionResult("q4", "p_no", "", 1.0, 0.0, AnswerStatus.PASSED,
                                  flags=[flag])
        return SubmissionResult(name, f"{name}.ipynb", Status.GRADED, [], 0.0,
                                exercise.maximum, [question])

    batch = BatchResult(exercise, [row("typed", "uses a number typed in"),
                                   row("estimator", "uses CategoricalNB")], [], 1.0, tmp_path)
    text = summary(batch)
    assert "forbidden estimator" not in text
    assert "typed (q4: uses a number typed in)" in text
    assert "estimator (q4: uses CategoricalNB)" in text


# ----------------------------------------------------------- through the real grader
FIRST_COLUMN = '''def likelihood(table, feature, value, target, label):
    in_class = table[table[target] == label]
    return Fraction(int((in_class.iloc[:, 0] == value).sum()), len(in_class))
'''
LAST_COLUMN = '''def likelihood(table, feature, value, target, label):
    in_class = table[table[table.columns[-1]] == label]
    return Fraction(int((in_class[feature] == value).sum()), len(in_class))
'''
WHOLE_TABLE = '''def likelihood(table, feature, value, target, label):
    hits = ((table[target] == label) & (table[feature] == value)).sum()
    return Fraction(int(hits), len(table))
'''
SMALLEST = '''def predict(table, query, target):
    scores = joint_scores(table, query, target)
    return min(scores, key=scores.get)
'''
PADDED = '''def predict(table, query, target):
    scores = joint_scores(table, query, target)
    return " " + max(scores, key=scores.get) + " "
'''


@pytest.fixture(scope="module")
def exercise_1(tmp_path_factory):
    notebooks = {
        "solution": solved("01_weather", SOURCE),
        "first_column": _replaced(solved("01_weather", SOURCE), "likelihood", FIRST_COLUMN),
        "last_column": _replaced(solved("01_weather", SOURCE), "likelihood", LAST_COLUMN),
        "smallest": _replaced(solved("01_weather", SOURCE), "predict", SMALLEST),
        "smallest_and_whole_table": _replaced(
            _replaced(solved("01_weather", SOURCE), "predict", SMALLEST),
            "likelihood", WHOLE_TABLE),
        "padded": _replaced(solved("01_weather", SOURCE), "predict", PADDED),
        "rounded": _with_cell(solved("01_weather", SOURCE), "p_win_given_free = 0.3819\n"),
    }
    return grade_notebooks("01_weather", notebooks, tmp_path_factory.mktemp("s3ex01"))


def test_the_solution_keeps_every_mark_of_exercise_1(exercise_1):
    rows, _ = exercise_1
    assert not lost_marks(rows["solution"].values()), lost_marks(rows["solution"].values())


@pytest.mark.parametrize("probe, argument", [("first_column", "`feature`"),
                                             ("last_column", "`target`")])
def test_the_grader_marks_down_a_likelihood_reading_the_wrong_column(exercise_1, probe,
                                                                     argument):
    rows, pages = exercise_1
    q1 = rows[probe]["q1"]
    assert q1["score"] < q1["points"], q1
    assert not any(DENOMINATOR_HINT in note for note in q1["notes"]), q1["notes"]
    assert argument in _page(pages[probe])


def test_a_value_whose_cell_failed_through_a_wrong_function_gets_one_message(exercise_1):
    rows, pages = exercise_1
    q4 = rows["first_column"]["q4"]
    assert q4["score"] == 1 and q4["follow_through"] == ["q1"], q4
    assert not any("is not defined" in note for note in q4["notes"]), q4["notes"]
    page = _page(pages["first_column"])
    assert "Your `p_no` is right: its cell failed only because it is computed with your " \
           "`likelihood` (q1)" in page
    assert "`p_no` is not defined" not in page


def test_a_second_mistake_does_not_raise_the_marks_of_a_wrong_predict(exercise_1):
    rows, pages = exercise_1
    alone, both = rows["smallest"]["q3"], rows["smallest_and_whole_table"]["q3"]
    assert alone["score"] == 0, alone
    assert both["score"] == alone["score"], both
    assert both["mistakes"] == ["the smallest score"], both
    assert "marked on its own logic" in _page(pages["smallest_and_whole_table"])


def test_the_grader_marks_down_padded_labels_and_rounded_values(exercise_1):
    rows, pages = exercise_1
    assert rows["padded"]["q3"]["score"] == 0, rows["padded"]["q3"]
    assert "spaces around it" in _page(pages["padded"])
    assert rows["rounded"]["q5"]["score"] == 0, rows["rounded"]["q5"]
    assert "only 4 decimal places" in _page(pages["rounded"])


REVERSED_WEIGHTS = '''def linear_weights(class_log_prior, feature_log_prob):
    class_log_prior = np.asarray(class_log_prior, dtype=float)
    feature_log_prob = np.asarray(feature_log_prob, dtype=float)
    return float(class_log_prior[0] - class_log_prior[1]), feature_log_prob[0] - feature_log_prob[1]
'''


# 03 q6 written for the dict q4 asks for: a Series' loop walks its values (KeyError)
PRIORS_AS_A_DICT = """new_X = [[3, 0, 1, 0], [1, 0, 2, 1], [0, 2, 0, 1], [0, 1, 1, 0], [0, 3, 0, 2]]
new_y = ["spam", "spam", "ham", "ham", "ham"]
priors = class_priors(new_y)
theta = word_probabilities(new_X, new_y)
p_ham_documents = {}
for letter, z in {"a": [1, 0, 0, 1], "b": [0, 0, 2, 1], "c": [0, 1, 1, 0]}.items():
    score = {label: priors[label] * np.prod(np.asarray(theta[label], dtype=float) ** np.asarray(z))
             for label in priors}
    p_ham_documents[letter] = float(score["ham"] / (score["ham"] + score["spam"]))
"""


@pytest.fixture(scope="module")
def exercises_3_and_4(tmp_path_factory):
    four = {"reversed_weights": _replaced(solved("04_linearity", SOURCE), "linear_weights",
                                          REVERSED_WEIGHTS),
            "rounded_switches": _with_cell(
                solved("04_linearity", SOURCE),
                'switch_accuracies = {"majority": 0.58, "best_linear": 0.7, "best_any": 0.75}\n')}
    three = {"priors_series": _replaced(_replaced(
        solved("03_mle", SOURCE), "class_priors",
        "def class_priors(labels):\n    import pandas as pd\n"
        "    return pd.Series(labels).value_counts(normalize=True)\n"),
        "", PRIORS_AS_A_DICT, start="### BEGIN SOLUTION\nnew_X")}
    return (grade_notebooks("04_linearity", four, tmp_path_factory.mktemp("s3ex04")),
            grade_notebooks("03_mle", three, tmp_path_factory.mktemp("s3ex03")))


def test_a_value_computed_from_a_name_an_earlier_cell_computed_is_told_so(exercises_3_and_4):
    (rows, pages), _ = exercises_3_and_4
    q4 = rows["reversed_weights"]["q4"]
    assert q4["score"] == 1 and q4["follow_through"] == ["q1"], q4
    page = _page(pages["reversed_weights"])
    assert "it is computed with your `linear_weights` (q1)" in page
    assert "its cell calls" not in page


def test_rounded_switch_accuracies_are_told_they_are_rounded(exercises_3_and_4):
    (rows, pages), _ = exercises_3_and_4
    q5 = rows["rounded_switches"]["q5"]
    assert q5["score"] == 0, q5
    page = _page(pages["rounded_switches"])
    assert "only 2 decimal places" in page
    assert not any(note.startswith("hint: ") for note in q5["notes"]), q5["notes"]


def test_priors_as_a_series_lose_q4_and_keep_q6(exercises_3_and_4):
    _, (rows, pages) = exercises_3_and_4
    q4, q6 = rows["priors_series"]["q4"], rows["priors_series"]["q6"]
    assert q4["score"] == 0, q4
    assert q6["score"] == q6["points"] and "q4" in q6["follow_through"], q6
    assert "series.to_dict()" in _page(pages["priors_series"])


def test_the_exercises_checks_files_hold_the_new_public_cases():
    data = json.loads((SOURCE.parent / "01_weather.checks.json").read_text())
    names = [case["name"] for q in data["questions"] if q["id"] == "q1" for case in q["cases"]]
    assert any("not the table's first column" in name for name in names)
    assert any("not the table's last" in name for name in names)


def test_a_class_mean_on_a_half_rounds_as_the_totals_are_written():
    """The class report's mean of 3 x 10 and 3 x 3.15 is exactly 6.575: 6.58, where
    summing the floats gives 6.574999... (this was tested on the fixtures' totals, which
    the new cases of 01 q1 changed)."""
    from nbcourse.grading.scoring import mean_text
    assert mean_text([10, 10, 10, 3.15, 3.15, 3.15]) == "6.58"


def test_a_smoothed_predict_loses_more_of_its_marks():
    """A Laplace-smoothed ``predict`` (no smoothing is asked) kept 1.57 of 2: more hidden
    cases are days where smoothing changes the answer."""
    weather = _module("01_weather")
    assert graded("01_weather", "q3", weather.predict_smoothed).score < 1.5
    assert graded("01_weather", "q3", weather.ref_predict).score == 2


def test_the_right_switch_accuracies_are_not_told_they_look_rounded():
    """04 q5 compares at the default now: its right majority 0.575 (23 of 40) is a share,
    not a rounding, while 0.58 is told it looks rounded."""
    right = _module("04_linearity").ref_switches()
    assert right["majority"] == 0.575
    assert "decimal places" not in str(check("04_linearity", "q5", right))
    assert graded("04_linearity", "q5", right).score == 2
