"""Issue 34: marks that are right to the point.

Each probe is an answer a student could write, put to the student's ``check()`` (the
public cases, read from the spec as the released checks file holds them) and to the
grader (``hidden.grade_answer``, every case, as the sandboxed grader scores them). A
wrong answer must not get full marks; a right answer in another form must not be refused.
"""
from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nbcourse.grading import specs
from nbcourse.grading.hidden import grade_answer
from nbcourse.grading.selfcheck import Checker
from nbcourse.grading.values import encode_input
from submission_support import lost_marks, solved, with_cell

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "exercises" / "source"
NAMES = specs.available(SOURCE)
_LOADED: dict[str, specs.Exercise] = {}


def exercise(name: str) -> specs.Exercise:
    if name not in _LOADED:
        _LOADED[name] = specs.load(name, SOURCE)
    return _LOADED[name]


def module(name: str):
    """The spec's own functions and tables."""
    import importlib.util
    module_spec = importlib.util.spec_from_file_location(f"marks_{name}",
                                                         SOURCE / f"{name}.grading.py")
    loaded = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(loaded)
    return loaded


def check(name: str, question: str, answer):
    """What the student's ``check()`` says, from the checks file the release writes."""
    return Checker(name, REPO / "exercises" / f"{name}.checks.json").run(question, answer,
                                                                          sources=[])


def graded(name: str, question: str, answer):
    return grade_answer(exercise(name), question, answer)


# ------------------------------------------------------------ item 1: wrong answers
def _counted(table, feature, value, target, label, alpha=0):
    rows = table[table[target] == label]
    values = table[feature].nunique()
    return Fraction(int((rows[feature] == value).sum()) + alpha, len(rows) + alpha * values)


def predict_laplace(table, query, target):
    """Laplace-smoothed likelihoods where the exercise asks for none."""
    scores = {}
    for label in table[target].unique():
        score = Fraction(int((table[target] == label).sum()), len(table))
        for feature, value in query.items():
            score *= _counted(table, feature, value, target, label, alpha=1)
        scores[label] = score
    return str(max(scores, key=scores.get))


def predict_first_feature(table, query, target):
    """Only the query's first feature weighs in."""
    feature, value = next(iter(query.items()))
    scores = {label: Fraction(int((table[target] == label).sum()), len(table))
              * _counted(table, feature, value, target, label)
              for label in table[target].unique()}
    return str(max(scores, key=scores.get))


def mle_hard_coded(counts):
    return [2 / 9, 4 / 9, 3 / 9]


def priors_yes_no(labels):
    labels = list(labels)
    return {label: labels.count(label) / len(labels) for label in ("yes", "no")}


def words_ham_spam(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    return {label: (X[y == label].sum(axis=0) / X[y == label].sum()).tolist()
            for label in ("ham", "spam")}


def decide_w0_in_every_weight(w0, w, X):
    return (np.asarray(X @ (np.asarray(w) + w0)).ravel() > 0).astype(int)


def accuracy_rounded(places):
    def fraction_correct(y_true, y_pred):
        return round(float(np.mean(np.asarray(y_true) == np.asarray(y_pred))), places)
    return fraction_correct


def ece_rounded(is_positive, p, n_bins):
    return round(module_06.ref_calibration_error(is_positive, p, n_bins), 2)


def merge_counts_second_table_classes(a, b):
    """A class only the first table has is dropped (the loop runs over b's classes)."""
    merged = module_07.ref_merge_counts(a, b)
    keep = [i for i, label in enumerate(merged["classes"]) if label in list(b["classes"])]
    return {key: [value[i] for i in keep] if key in ("classes", "class_count",
                                                     "feature_count") else value
            for key, value in merged.items()}


def merge_gaussian_empty_averaged(a, b):
    """A shard with no rows averaged in as if it were data."""
    if a[0] and b[0]:
        return module_07.ref_merge_gaussian(a, b)
    return [a[0] + b[0], ((np.asarray(a[1]) + b[1]) / 2).tolist(),
            ((np.asarray(a[2]) + b[2]) / 2).tolist()]


def experiment_refit_on_train_and_validation(texts, labels, alphas, seed):
    """The final model fitted on training + validation messages, not the training part."""
    from nbcourse import MultinomialNB
    from nbcourse.text import BagOfWords
    spam = module_05
    texts, labels = list(texts), np.asarray(labels)
    train, validation, test = spam.ref_split(len(texts), seed)
    vectorizer = BagOfWords().fit([texts[i] for i in train])
    X = {name: vectorizer.transform([texts[i] for i in rows])
         for name, rows in (("train", train), ("validation", validation), ("test", test))}
    best = spam.ref_choose_alpha(X["train"], labels[train], X["validation"], labels[validation],
                                 alphas)
    both = list(train) + list(validation)
    model = MultinomialNB(alpha=best).fit(vectorizer.transform([texts[i] for i in both]),
                                          labels[both])
    return best, spam.ref_fraction_correct(labels[test], model.predict(X["test"]))


def experiment_rounded(texts, labels, alphas, seed):
    best, accuracy = module_05.ref_experiment(texts, labels, alphas, seed)
    return best, round(accuracy, 2)


module_05 = module("05_spam")
module_06 = module("06_gaussian")
module_07 = module("07_merging")


WRONG = [
    ("01_weather", "q3", predict_laplace), ("01_weather", "q3", predict_first_feature),
    ("03_mle", "q2", mle_hard_coded), ("03_mle", "q4", priors_yes_no),
    ("03_mle", "q5", words_ham_spam), ("04_linearity", "q2", decide_w0_in_every_weight),
    ("05_spam", "q2", accuracy_rounded(2)), ("05_spam", "q2", accuracy_rounded(3)),
    ("05_spam", "q4", experiment_refit_on_train_and_validation),
    ("05_spam", "q4", experiment_rounded), ("06_gaussian", "q6", ece_rounded),
    ("07_merging", "q1", merge_counts_second_table_classes),
    ("07_merging", "q2", merge_gaussian_empty_averaged),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, question, answer", WRONG,
                         ids=[f"{n}-{q}-{a.__name__}-{i}" for i, (n, q, a) in enumerate(WRONG)])
def test_a_wrong_answer_fails_a_public_check_and_loses_marks_at_grading(name, question, answer):
    said = check(name, question, answer)
    assert not said.all_passed, str(said)
    result = graded(name, question, answer)
    assert result.score < result.points
    # the hidden cases catch it too: hard-coding the public cases does not pay
    assert any(not case.passed for case in result.cases if case.hidden)


def test_a_rounded_answer_is_told_so_in_check_and_at_grading():
    said = str(check("06_gaussian", "q6", ece_rounded))
    assert "equals the right one rounded to 2 decimal places" in said
    said = str(check("05_spam", "q2", accuracy_rounded(3)))
    assert "equals the right one rounded to 3 decimal places" in said
    # a form-only value: check() cannot judge it, but it can see the rounding
    said = str(check("01_weather", "q5", 0.382))
    assert "has only 3 decimal places: if you rounded it" in said
    result = graded("01_weather", "q5", 0.382)
    assert result.score == 0
    assert any("has only 3 decimal places: if you rounded it" in case.message
               for case in result.cases)
    # the note is said only of the expected value rounded (a far answer with as few
    # decimals was not rounded: issue 34, a third student), in fixed words that give no
    # digit the student's value does not already hold
    far = graded("01_weather", "q5", 0.917)
    assert not any("decimal places" in c.message for c in far.cases)
    assert not any("looks rounded" in c.message for c in result.cases + far.cases)
    exact = str(check("01_weather", "q5", float(module("01_weather").p_win_given_free())))
    assert "decimal places" not in exact


SOLUTION_P_NO = ["lesson_scores = joint_scores(weather, lesson_day, 'play')\n"
                 "p_no = lesson_scores['no'] / sum(lesson_scores.values())"]


@pytest.mark.parametrize("typed", ["p_no = Fraction(486, 611)", "p_no = 486 / 611",
                                   "p_no = 0.7954173486088379"])
def test_a_value_typed_in_where_it_must_be_computed_earns_nothing(typed):
    from nbcourse.grading import forbidden
    from nbcourse.grading.scoring import score_question
    from nbcourse.grading.hidden import nbcourse_probe
    q = exercise("01_weather").question("q4")
    value = module("01_weather").ref_p_no()
    plan = exercise("01_weather").probe_plan()
    flags = forbidden.flagged_answers([typed], plan)
    assert flags == {"q4": [forbidden.TYPED_IN]}
    assert forbidden.flagged_answers(SOLUTION_P_NO, plan) == {}
    captured = []
    nbcourse_probe({"p_no": value}, "", json.dumps(q.probe_request()), emit=captured.append)
    result = score_question(q, json.loads(captured[0]), q.expected(),
                            exercise("01_weather").forbidden_penalty, flags["q4"])
    assert result.score == 0 and "typed in" in " ".join(result.notes)
    said = Checker("01_weather", REPO / "exercises" / "01_weather.checks.json").run(
        "q4", value, sources=[typed])
    assert "p_no is a number typed in" in str(said)
    assert "typed in" not in str(Checker(
        "01_weather", REPO / "exercises" / "01_weather.checks.json").run(
        "q4", value, sources=SOLUTION_P_NO))
    agreement = forbidden.flagged_answers(["agreement = 1.0"],
                                          exercise("04_linearity").probe_plan())
    assert agreement == {"q4": [forbidden.TYPED_IN]}


# ------------------------------------------------------- item 3: no graded value shipped
def _values(value):
    """Every leaf of a value, for looking it up in a checks file."""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _values(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _values(v)]
    return [value]


@pytest.mark.parametrize("name", NAMES)
def test_no_checks_file_holds_the_graded_value_of_a_value_question(name):
    shipped = json.loads((REPO / "exercises" / f"{name}.checks.json").read_text())
    for question in exercise(name).questions:
        if question.kind != "value":
            continue
        entry = next(q for q in shipped["questions"] if q["id"] == question.id)
        assert entry["graded_later"] and entry["mistakes"] == []
        assert all(case["expected"] is None and case["mistakes"] == {}
                   for case in entry["cases"]), question.id
        assert any(case.hidden for case in question.cases), question.id
        # no public judge carries an exact number either (a choice is among its options)
        text = json.dumps(entry)
        for leaf in _values(question.expected()[0]):
            if isinstance(leaf, Fraction) and leaf.denominator > 1:
                assert json.dumps(encode_input(leaf)) not in text, question.id


def test_a_value_question_with_only_public_cases_is_refused():
    with pytest.raises(ValueError, match="graded on a hidden case"):
        specs.Question("q1", "x", points=1, title="x", kind="value", reference=lambda: 1.0,
                       cases=[specs.Case("the value", hidden=False)])


def test_the_table_judge_gives_no_count_to_climb():
    """Issue 34: 04 q5's table judge said "k of 8 cells are not right" (a hill to climb).
    That question is now computed (issue 35), but the judge stays for instructors' specs."""
    from nbcourse.grading.judges import Table
    expected = {"naive Bayes": {"models": "p(x, y)", "assumes": "yes"},
                "logistic regression": {"models": "p(y | x)", "assumes": "no"}}
    one_wrong = {"naive Bayes": {"models": "p(x, y)", "assumes": "yes"},
                 "logistic regression": {"models": "p(y | x)", "assumes": "yes"}}
    three_wrong = {"naive Bayes": {"models": "p(y | x)", "assumes": "no"},
                   "logistic regression": {"models": "p(y | x)", "assumes": "yes"}}
    judge = Table(options=["p(x, y)", "p(y | x)", "yes", "no"])
    said = judge(one_wrong, expected)
    assert said == judge(three_wrong, expected)  # the same words, whatever the count
    assert not any(ch.isdigit() for ch in said)
    assert judge(expected, expected) is None
    form = Table(options=judge.options, shape={c: list(r) for c, r in expected.items()})
    assert form(three_wrong, None) is None  # check() sees the form only
    assert form({"naive Bayes": {}}, None) is not None


# ---------------------------------------------------------- item 2: right forms accepted
def _decimal(value: Fraction) -> Decimal:
    return Decimal(value.numerator) / Decimal(value.denominator)


_mle = module("03_mle")
# (01 q2's joint scores as joint_proba's one-row DataFrame broke the student's own predict
# and p_no, which use them as a dict: refused with the conversion, test_grading_marks_last)
RIGHT_FORMS = {
    "01 q4 a decimal.Decimal": ("01_weather", "q4", _decimal(Fraction(486, 611))),
    "03 q2 a pd.Series": ("03_mle", "q2",
                          lambda counts: pd.Series(np.asarray(counts) / np.sum(counts))),
    "03 q5 a dict of Series": ("03_mle", "q5", lambda X, y: {
        k: pd.Series(v) for k, v in _mle.ref_word_probabilities(X, y).items()}),
    "03 q5 a DataFrame with a column per class": (
        "03_mle", "q5", lambda X, y: pd.DataFrame(_mle.ref_word_probabilities(X, y))),
    "04 q1 w as a pd.Series": ("04_linearity", "q1", lambda prior, theta: (
        float(np.asarray(prior)[1] - np.asarray(prior)[0]),
        pd.Series(np.asarray(theta)[1] - np.asarray(theta)[0]))),
}


@pytest.mark.parametrize("probe", list(RIGHT_FORMS))
def test_a_right_answer_in_another_form_is_accepted(probe):
    name, question, answer = RIGHT_FORMS[probe]
    said = check(name, question, answer)
    assert said.all_passed and not getattr(said, "note", ""), str(said)
    result = graded(name, question, answer)
    assert result.score == result.points, [c.message for c in result.cases]


def test_a_series_with_labels_where_a_list_is_asked_says_how_to_convert():
    mle = module("03_mle")
    answer = lambda counts: pd.Series(mle.EXERCISE.question("q2").reference(counts),
                                      index=[f"o{i}" for i in range(len(counts))])
    said = str(check("03_mle", "q2", answer))
    assert ".tolist()" in said


# ------------------------------------------------- item 4: a public case's own hint
def merge_gaussian_by_ratio(a, b):
    """Weights from the ratio of the counts: fails on an empty first shard."""
    share_a = 1 / (1 + b[0] / a[0])
    merged = module_07.ref_merge_gaussian(a, b)
    assert abs(share_a - a[0] / (a[0] + b[0])) < 1e-12
    return merged


def test_the_feedback_page_shows_a_public_cases_own_hint():
    from nbcourse.grading.feedback import render_html
    from nbcourse.grading.scoring import SubmissionResult
    said = check("07_merging", "q2", merge_gaussian_by_ratio)
    own = "a shard with N = 0 rows has no weight"
    assert own in str(said) and not said.mistakes
    result = graded("07_merging", "q2", merge_gaussian_by_ratio)
    public = {c.name: c for c in result.cases if not c.hidden and not c.passed}
    assert own in public["one shard with no rows"].hint
    assert all(c.hint for c in public.values())  # each its own case's hint
    assert all(c.hint == "" for c in result.cases if c.hidden)
    page = render_html(SubmissionResult("s", "s.ipynb", "graded", [], result.score,
                                        result.points, [result]), "Exercise 7")
    assert "hint: a shard with N = 0 rows has no weight" in page


# --------------------------------------------------- the same, through the real grader
def _solution_with(name: str, code: str) -> dict:
    """The instructor's solution, hidden-test cells removed, with ``code`` run last."""
    notebook = solved(name, SOURCE)
    return with_cell(notebook, "probe", code) if code else notebook


LAPLACE_PREDICT = '''
def predict(table, query, target):
    scores = {}
    for label in table[target].unique():
        rows = table[table[target] == label]
        score = Fraction(len(rows), len(table))
        for feature, value in query.items():
            score *= Fraction(int((rows[feature] == value).sum()) + 1,
                              len(rows) + table[feature].nunique())
        scores[label] = score
    return max(scores, key=scores.get)
'''


def test_the_grader_flags_a_typed_in_value_and_names_rounding_and_smoothing(tmp_path):
    """Sandboxed grading of exercise 1: the solution, p_no typed in, p_win_given_free
    rounded to 0.382, and a Laplace-smoothed predict."""
    from html import escape
    from nbcourse.grading.batch import grade_batch
    from nbcourse.grading.gradebook import feedback_name
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    probes = {"solution": "", "typed": "from fractions import Fraction\n"
                                       "p_no = Fraction(486, 611)",
              "rounded": "p_win_given_free = 0.382",
              "laplace": "from fractions import Fraction\n" + LAPLACE_PREDICT}
    for who, code in probes.items():
        (submitted / f"{who}.ipynb").write_text(json.dumps(_solution_with("01_weather", code)))
    grade_batch("01_weather", [submitted], tmp_path / "out", jobs=2, progress=None,
                source_dir=SOURCE)
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    rows = {row["submission"]: {q["id"]: q for q in row["questions"]}
            for row in results["submissions"]}
    page = {who: (tmp_path / "out" / "feedback" / f"{feedback_name(who)}.html").read_text()
            for who in probes}
    assert not lost_marks(rows["solution"].values()), lost_marks(rows["solution"].values())
    assert rows["typed"]["q4"]["score"] == 0 and rows["typed"]["q4"]["flags"]
    assert "it is a number typed in" in page["typed"]
    assert rows["rounded"]["q5"]["score"] == 0
    assert "has only 3 decimal places: if you rounded it" in page["rounded"]
    assert rows["laplace"]["q3"]["score"] < rows["laplace"]["q3"]["points"]
    assert escape("smoothed likelihoods") in page["laplace"]


def test_spaces_around_a_word_are_not_part_of_the_answer():
    """Issue 34: " b " was refused where "b" was asked (07 q4, since replaced by a number)."""
    from nbcourse.grading.values import compare
    assert compare(" b ", "b") is None
    assert compare("b\n", "b") is None
    assert compare("a b", "ab") is not None  # inner spaces still count


# ------------------------------------------- issue 34, second probe: what still got through
SKLEARN_ACCURACY = ("from sklearn.metrics import accuracy_score\n"
                    "def fraction_correct(y_true, y_pred):\n"
                    "    return float(accuracy_score(y_true, y_pred))")


@pytest.mark.parametrize("code, flags", [
    (SKLEARN_ACCURACY, {"q2": ["accuracy_score"]}),
    ("from sklearn.metrics import balanced_accuracy_score as score\n"
     "def fraction_correct(y_true, y_pred):\n    return score(y_true, y_pred)",
     {"q2": ["balanced_accuracy_score"]}),
    ("from sklearn.metrics import precision_score, recall_score\n"
     "spam_precision = precision_score(y_test, predicted, pos_label='spam')\n"
     "spam_recall = recall_score(y_test, predicted, pos_label='spam')",
     {"q7": ["precision_score"], "q8": ["recall_score"]}),
    ("import sklearn.metrics as metrics\n"
     "table = metrics.confusion_matrix(y_test, predicted, labels=['ham', 'spam'])\n"
     "spam_precision = table[1, 1] / table[:, 1].sum()\n"
     "spam_recall = metrics.precision_recall_fscore_support(y_test, predicted)[1][1]",
     {"q7": ["confusion_matrix"], "q8": ["precision_recall_fscore_support"]}),
])
def test_scikit_learn_metrics_are_flagged_where_exercise_5_asks_to_count(code, flags):
    """Issue 34: sklearn's accuracy_score, precision_score, ... earned full marks unflagged."""
    from nbcourse.grading import forbidden
    plan = exercise("05_spam").probe_plan()
    assert forbidden.flagged_answers([code], plan) == flags
    solution = ["".join(c["source"]) for c in _solution_with("05_spam", "")["cells"]
                if c["cell_type"] == "code"]
    assert forbidden.flagged_answers(solution, plan) == {}


def test_check_warns_about_scikit_learns_accuracy_score():
    from sklearn.metrics import accuracy_score

    def fraction_correct(y_true, y_pred):
        return float(accuracy_score(y_true, y_pred))
    said = Checker("05_spam", REPO / "exercises" / "05_spam.checks.json").run(
        "q2", fraction_correct, sources=[SKLEARN_ACCURACY])
    assert "accuracy_score" in str(said)


@pytest.mark.parametrize("name, code, flagged", [
    ("05_spam", "best_alpha, test_accuracy = 0.3, 0.9838709677419355", {"q5", "q6"}),
    ("05_spam", "[best_alpha, test_accuracy] = [0.3, 0.98]", {"q5", "q6"}),
    ("05_spam", "best_alpha, test_accuracy = 0.3, spam_experiment(texts, labels, ALPHAS, 0)[1]",
     {"q5"}),
    ("05_spam", "best_alpha, test_accuracy = spam_experiment(texts, labels, ALPHAS, 0)", set()),
    ("05_spam", "best_alpha, test_accuracy = result", set()),
    ("04_linearity", "free_shift = 1.3845", {"q7"}),
    ("04_linearity", "free_shift = float(w[column])", set()),
])
def test_a_typed_in_value_is_flagged_also_in_a_tuple_assignment(name, code, flagged):
    """Issue 34: typed-in values earned 05 q5, q6 and 04 q7 in full."""
    from nbcourse.grading import forbidden
    flags = forbidden.flagged_answers([code], exercise(name).probe_plan())
    assert flags == {q: [forbidden.TYPED_IN] for q in flagged}


def test_typed_in_pairs_the_items_of_a_tuple_assignment():
    from nbcourse.grading.forbidden import typed_in
    assert typed_in(["(a, b), c = (1, 2), x"], "b")
    assert not typed_in(["(a, b), c = (1, 2), x"], "c")
    assert not typed_in(["a, b = 1, 2", "a, b = f()"], "a")  # the last assignment counts
    assert not typed_in(["a, *b = 1, 2, 3"], "b")
    assert typed_in(["x = y = 0.5"], "y")


def test_a_typed_in_test_accuracy_earns_nothing():
    from nbcourse.grading import forbidden
    from nbcourse.grading.scoring import score_question
    from nbcourse.grading.hidden import nbcourse_probe
    spec = exercise("05_spam")
    q = spec.question("q6")
    flags = forbidden.flagged_answers(["best_alpha, test_accuracy = 0.3, 0.98"],
                                      spec.probe_plan())
    captured = []
    nbcourse_probe({"test_accuracy": module_05.sms_result("test_accuracy")}, "",
                   json.dumps(q.probe_request()), emit=captured.append)
    result = score_question(q, json.loads(captured[0]), q.expected(),
                            spec.forbidden_penalty, flags["q6"])
    assert result.score == 0 and "typed in" in " ".join(result.notes)


def _markdown(name: str, heading: str) -> str:
    notebook = json.loads((SOURCE / f"{name}.ipynb").read_text(encoding="utf-8"))
    return next("".join(c["source"]) for c in notebook["cells"]
                if c["cell_type"] == "markdown" and "".join(c["source"]).startswith(heading))


def test_the_questions_say_what_is_flagged():
    """Issue 34: 04's intro let students use the model freely outside their functions, yet
    q7 (a value computed outside any function) is flagged for to_linear."""
    q7 = _markdown("04_linearity", "## Question 7")
    assert "to_linear" in q7 and "typed in earns no point" in q7
    assert exercise("04_linearity").question("q7").computed
    assert "use the model freely to compare.)" not in _markdown("04_linearity", "# Exercise 4")
    assert "typed in earns no point" in _markdown("05_spam", "## Questions 5 and 6")
    assert all(exercise("05_spam").question(q).computed for q in ("q5", "q6"))
    assert "nothing from scikit-learn" in _markdown("05_spam", "## Questions 7 and 8")


def test_no_case_name_of_04_q4_gives_the_agreement_away():
    names = " ".join(case.name for case in exercise("04_linearity").question("q4").cases)
    assert "every message" not in names and "decides like" not in names


def merge_counts_width_of_first_row(a, b):
    """Right, except that it reads the width off a's first row."""
    n_words = len(a["feature_count"][0])
    classes = sorted(set(a["classes"]) | set(b["classes"]))
    out = {c: [0, [0] * n_words] for c in classes}
    for table in (a, b):
        for c, n, row in zip(table["classes"], table["class_count"], table["feature_count"]):
            out[c][0] += n
            out[c][1] = [x + y for x, y in zip(out[c][1], row)]
    return {"classes": classes, "class_count": [out[c][0] for c in classes],
            "feature_count": [out[c][1] for c in classes]}


def merge_gaussian_without_guard(a, b):
    """Right, except for two empty shards (0 / 0)."""
    (n_a, mean_a, var_a), (n_b, mean_b, var_b) = a, b
    n = n_a + n_b
    mean_a, mean_b = np.asarray(mean_a, dtype=float), np.asarray(mean_b, dtype=float)
    delta = mean_b - mean_a
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = mean_a + delta * np.float64(n_b) / n
        squares = n_a * np.asarray(var_a, dtype=float) + n_b * np.asarray(var_b, dtype=float) \
            + delta ** 2 * n_a * np.float64(n_b) / n
        return [n, mean.tolist(), (squares / n).tolist()]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("question, answer, cases", [
    ("q1", merge_counts_width_of_first_row, {"an office that received no messages",
                                             "the first office received no messages",
                                             "two offices that received no messages"}),
    # and, since student 28, an empty shard holding NaN (its delta form weighs a huge
    # leftover mean by 0, and passes that case)
    ("q2", merge_gaussian_without_guard, {"two shards with no rows",
                                          "two shards with no rows at all",
                                          "two empty shards, both holding numbers from an "
                                          "earlier run",
                                          "an empty shard whose summary is NaN, as numpy "
                                          "gives for no rows"}),
])
def test_exercise_7_edge_cases_are_graded(question, answer, cases):
    """Issue 34: an office with no messages, and two empty shards, were never tried (each
    has a public case too)."""
    result = graded("07_merging", question, answer)
    assert result.score < result.points
    assert {c.name for c in result.cases if not c.passed} == cases
    reference = {"q1": module_07.ref_merge_counts, "q2": module_07.ref_merge_gaussian}
    assert graded("07_merging", question, reference[question]).score == result.points
