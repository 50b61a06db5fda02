"""Issue 34, a sixth student's probes, through ``check()`` and the grader.

- 03 q1, 04 q6, 06 q2: a log score computed as the log of a product kept full marks, since
  no case was large enough for the product to underflow; a hidden case now is, and the
  feedback names the mistake.
- 04 q5 (and the other form-only dicts of shares): accuracies in percent passed the form
  check of ``check()`` and got 0 at grading; the form check now says shares lie in [0, 1].
- 01 q4: outside IPython (cells run by ``exec``), ``check()`` did not warn about a value
  the grader flagged through the graded functions it calls.  Since then the grader flags
  the function that uses the helper only (its callers are marked by follow-through), and
  check() agrees with it.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from nbcourse.datasets import load_weather
from nbcourse.grading import specs
from nbcourse.grading.forbidden import flagged_answers
from nbcourse.grading.selfcheck import Checker
from submission_support import lost_marks, solved
from test_grading_marks_probes import REPO, SOURCE, check, grade_probes, graded

# ------------------------------------------------------- log scores as the log of a product
LOG_OF_PRODUCT = {
    "03_mle": ("q1", "log_likelihood", '''
def log_likelihood(counts, theta):
    return float(np.log(np.prod(np.power(np.asarray(theta, float), np.asarray(counts, float)))))
'''),
    "04_linearity": ("q6", "bernoulli_log_scores", '''
def bernoulli_log_scores(class_prior, p, b):
    p = np.asarray(p, float); b = np.asarray(b, float)
    return np.log(np.asarray(class_prior, float) * np.prod(np.where(b == 1, p, 1 - p), axis=1))
'''),
    "06_gaussian": ("q2", "joint_log_scores", '''
def joint_log_scores(means, variances, priors, x):
    m = np.asarray(means, float); v = np.asarray(variances, float); x = np.asarray(x, float)
    dens = np.exp(-(x - m) ** 2 / (2 * v)) / np.sqrt(2 * np.pi * v)
    return np.log(np.asarray(priors) * np.prod(dens, axis=1))
'''),
}
#: the same functions adding logs: right, and full marks
RIGHT = {
    "03_mle": lambda counts, theta: float(sum(
        n * np.log(t) if n else 0.0 for n, t in zip(counts, theta))),
    "04_linearity": lambda class_prior, p, b: (
        np.log(class_prior) + np.log(p) @ np.asarray(b, float)
        + np.log(1 - np.asarray(p)) @ (1 - np.asarray(b, float))),
    "06_gaussian": lambda means, variances, priors, x: np.log(priors) + (
        -0.5 * np.log(2 * np.pi * np.asarray(variances))
        - (np.asarray(x) - np.asarray(means)) ** 2 / (2 * np.asarray(variances))).sum(axis=1),
}
#: the student's examples: the product underflows, the sum of logs does not
UNDERFLOWS = {
    "03_mle": (([400, 300, 300], [0.4, 0.3, 0.3]), [-1088.90]),
    "06_gaussian": (([[0, 0], [1, 1]], [[1, 1], [1, 1]], [0.5, 0.5], [40, 40]),
                    [-1602.53, -1523.53]),
}


def _function(code: str, name: str):
    namespace = {"np": np}
    exec(compile(code, "<probe>", "exec"), namespace)  # noqa: S102 - the probe's own text
    return namespace[name]


@pytest.mark.parametrize("name", sorted(LOG_OF_PRODUCT))
def test_a_log_score_taken_as_the_log_of_a_product_loses_marks(name):
    question, function, code = LOG_OF_PRODUCT[name]
    answer = _function(code, function)
    with np.errstate(divide="ignore", under="ignore"):
        assert check(name, question, answer).all_passed  # the public cases are small
        result = graded(name, question, answer)
    assert result.score < result.points, (name, result.score)
    assert [c.name for c in result.cases if not c.passed] and \
        all("underflow" in c.name for c in result.cases if not c.passed)
    assert "the log of a product" in result.diagnosis
    assert "underflows" in result.diagnosis and "instead of multiplying" in result.diagnosis
    with np.errstate(divide="ignore", invalid="ignore"):
        assert graded(name, question, RIGHT[name]).score == result.points


@pytest.mark.parametrize("name", sorted(UNDERFLOWS))
def test_the_students_underflowing_examples_are_what_the_case_stands_for(name):
    question, function, code = LOG_OF_PRODUCT[name]
    args, right = UNDERFLOWS[name]
    with np.errstate(divide="ignore", under="ignore"):
        assert np.all(np.isneginf(_function(code, function)(*args)))
    reference = specs.load(name, SOURCE).question(question).reference
    assert np.allclose(reference(*args), right, atol=0.01)


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory):
    """The solution and each exercise's log-of-a-product probe, graded in the sandbox
    (04 also with its accuracies in percent)."""
    graded_rows = {}
    for name, (_, _, code) in LOG_OF_PRODUCT.items():
        probes = {"solution": "", "product": code}
        if name == "04_linearity":
            probes["percent"] = PERCENT
        graded_rows[name] = grade_probes(name, probes, tmp_path_factory.mktemp(name))
    return graded_rows


def test_the_grader_withholds_points_from_a_log_of_a_product(sandboxed):
    for name, (question, _, _) in LOG_OF_PRODUCT.items():
        rows, pages = sandboxed[name]
        assert not lost_marks(rows["solution"].values()), (name, rows["solution"])
        row = rows["product"][question]
        assert row["score"] < row["points"], (name, row)
        assert "instead of multiplying" in pages["product"], name


# ------------------------------------------------------------- shares given in percent
PERCENT = "switch_accuracies = {'majority': 57.5, 'best_linear': 70.0, 'best_any': 75.0}\n"


def test_accuracies_in_percent_fail_the_form_check_and_the_grader(sandboxed):
    report = check("04_linearity", "q5", {"majority": 57.5, "best_linear": 70.0,
                                          "best_any": 75.0})
    assert not report.all_passed
    assert "between 0 and 1 (a percentage? divide it by 100)" in str(report), str(report)
    rows, _ = sandboxed["04_linearity"]
    assert rows["percent"]["q5"]["score"] == 0


@pytest.mark.parametrize("name, question, value", [
    ("04_linearity", "q5", {"majority": 0.575, "best_linear": 0.7, "best_any": 0.75}),
    ("03_mle", "q6", {"a": 0.2, "b": Fraction(1, 3), "c": 1.0}),
    ("02_smoothing", "q9", {"a": 0.0, "b": 0.5, "c": 1.0, "d": 0.25}),
    ("08_beyond_naive", "q5", {"baseline": 0.45, "spread_a": 2.5, "mean_difference": -3.0,
                               "b_wins": 4}),
])
def test_form_checks_of_shares_take_any_share_and_refuse_more_than_one(name, question, value):
    assert check(name, question, value).all_passed, str(check(name, question, value))
    key = next(iter(value))
    too_large = dict(value, **{key: 45.0})
    report = check(name, question, too_large)
    assert not report.all_passed and f"[{key!r}] is 45" in str(report), str(report)
    negative = dict(value, **{key: -0.1})
    assert not check(name, question, negative).all_passed
    assert "should be a number" in str(check(name, question, dict(value, **{key: "0.5"})))


# ------------------------------------------ 01 q4: a flag reached through joint_scores
def _solution_cell(name: str, start: str) -> str:
    """The instructor's cell of exercise ``name`` that starts with ``start``, as run."""
    for cell in solved(name, SOURCE)["cells"]:
        text = "".join(cell["source"])
        if text.startswith(start):
            return "".join(line for line in text.splitlines(True) if "SOLUTION" not in line)
    raise AssertionError(start)


CELLS = """
from fractions import Fraction
from sklearn.naive_bayes import CategoricalNB

def likelihood(table, feature, value, target, label):
    {use}
    in_class = table[table[target] == label]
    return Fraction(int((in_class[feature] == value).sum()), len(in_class))
"""
P_NO = """
lesson_scores = joint_scores(weather, {"outlook": "sunny"}, "play")
p_no = lesson_scores["no"] / sum(lesson_scores.values())
check("q4", p_no)
"""


@pytest.mark.parametrize("use, flagged", [("CategoricalNB()", True), ("pass", False)])
def test_a_value_over_a_flagged_callee_is_not_flagged_by_check_or_the_grader(capsys, use,
                                                                             flagged):
    """The flag stays with the function that uses the helper (q1): ``p_no`` is marked by
    follow-through, so neither the grader nor check() (outside IPython too) flags it."""
    code = CELLS.format(use=use) + _solution_cell("01_weather", "def joint_scores(") + P_NO
    spec = specs.load("01_weather", SOURCE)
    found = flagged_answers([code], spec.probe_plan())
    assert "q4" not in found and bool(found.get("q1")) is flagged, found  # the grader
    checker = Checker("01_weather", REPO / "exercises" / "01_weather.checks.json")
    namespace = {"__name__": "__main__", "weather": load_weather(), "check": checker}
    exec(compile(code, "<cell>", "exec"), namespace)  # noqa: S102 - the probe's own text
    out = capsys.readouterr().out
    assert "⚠" not in out and "✔ a probability between 0 and 1" in out, out
    report = checker.run("q1", namespace["likelihood"], sources=[])
    assert bool(report.flags) is flagged, str(report)


#: the student's other instances: (exercise, value question, value, the flagged callee's
#: question and name, the cells before it)
THROUGH_CALLEES = [
    ("02_smoothing", "q6", 0.5, ("q5", "smoothed_likelihood"),
     "from nbcourse.smoothing import lidstone\n"
     "def smoothed_likelihood(table, feature, value, target, label, alpha):\n"
     "    return lidstone(1, 2, 3, alpha)\n"),
    ("04_linearity", "q4", 1.0, ("q1", "linear_weights"),
     "def linear_weights(model):\n    return model.to_linear()\n"),
    ("05_spam", "q6", 0.98, ("q2", "fraction_correct"),
     "from sklearn.metrics import accuracy_score\n"
     "def fraction_correct(y_true, y_pred):\n"
     "    return accuracy_score(y_true, y_pred)\n"
     "def spam_experiment(texts, labels, alphas, seed):\n"
     "    return 0.1, fraction_correct([1], [1])\n"),
]


@pytest.mark.parametrize("name, question, value, callee, code", THROUGH_CALLEES,
                         ids=lambda v: str(v)[:20])
def test_check_outside_ipython_flags_the_callee_not_the_value(name, question, value, callee,
                                                              code):
    namespace = {"__name__": "__main__"}
    exec(compile(code, "<cell>", "exec"), namespace)  # noqa: S102 - the probe's own text
    checker = Checker(name, REPO / "exercises" / f"{name}.checks.json")
    report = checker.run(question, value, sources=[], namespace=namespace)
    assert report.flags == [] and "the grader will flag it" not in str(report), str(report)
    flagged = checker.run(callee[0], namespace[callee[1]], sources=[])
    assert flagged.flags and "the grader will flag it" in str(flagged), str(flagged)
