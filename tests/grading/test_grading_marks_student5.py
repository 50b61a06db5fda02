"""Issue 34, a fifth student's probes, through ``check()`` and the sandboxed grader.

- 02 q8: counts computed in floats kept full marks (2**71 is exact in a float); a case
  with 2 * 3**40 - 1, compared exactly, tells them apart.
- 01 q1: a ``likelihood`` matching by prefix (``str.startswith``) kept full marks.
- 03 q4: priors as ``decimal.Decimal`` were accepted and broke the q6 cell, which got 0
  with no word of why; a right value as a Decimal is refused with ``float(d)`` wherever
  later questions call the function (01 q1 already refused it, for Fractions).
- 05 q5/q6: one call of a right ``spam_experiment`` kept only half its points when a
  function under it was wrong (tested in test_grading_follow_through).
- 05 q7/q8: precision and recall typed in kept full marks.
- Feedback: a value whose callee empties its input in place, 03 q3's floor added but not
  scaled, 05 q4's rounding lines when ``fraction_correct`` rounds, and the generic hint
  next to a Decimal refusal.
"""
from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from nbcourse.grading import specs
from nbcourse.grading.forbidden import TYPED_IN
from nbcourse.grading.selfcheck import Checker
from submission_support import lost_marks, solved
from test_grading_marks_probes import REPO, SOURCE, _module, check, grade_notebooks, graded
from test_grading_marks_student3_a import _page, _replaced, _with_cell


# ------------------------------------------------------------ 02 q8: counts in floats
def counts_in_floats(values, K):
    full = float(K)
    for j in values:
        full *= j
    return (K - 1) + K * sum(j - 1 for j in values), int(full) - 1


def counts_exact(values, K):
    cells = K
    for v in values:
        cells *= v
    return (K - 1) + K * sum(v - 1 for v in values), cells - 1


def test_parameter_counts_computed_in_floats_lose_marks():
    report = check("02_smoothing", "q8", counts_in_floats)
    assert not report.all_passed
    assert "never floats" in str(report), str(report)
    assert graded("02_smoothing", "q8", counts_in_floats).score < 2
    assert check("02_smoothing", "q8", counts_exact).all_passed
    assert graded("02_smoothing", "q8", counts_exact).score == 2


# ---------------------------------------------------------- 01 q1: matching by prefix
def likelihood_by_prefix(table, feature, value, target, label):
    rows = table[table[target].astype(str).str.startswith(str(label))]
    hits = rows[feature].astype(str).str.startswith(str(value)).sum()
    return Fraction(int(hits), len(rows))


def test_a_likelihood_matching_by_prefix_loses_marks():
    result = graded("01_weather", "q1", likelihood_by_prefix)
    assert result.score < result.points
    assert [c.name for c in result.cases if not c.passed] == [
        "a table with other column names, and a value whose name begins another value's name",
        "another feature and class, whose name begins another label's name"]
    assert graded("01_weather", "q1", _module("01_weather").ref_likelihood).score == 2


# ------------------------------------------------------------------- Decimal answers
def priors_decimal(labels):
    labels = list(labels)
    return {k: Decimal(labels.count(k)) / Decimal(len(labels)) for k in set(labels)}


def likelihood_decimal(*args):
    value = _module("01_weather").ref_likelihood(*args)
    return Decimal(value.numerator) / Decimal(value.denominator)


def test_priors_as_decimals_are_refused_with_the_conversion():
    said = str(check("03_mle", "q4", priors_decimal))
    assert "decimal.Decimal" in said and "float(d)" in said, said
    assert "hint:" not in said
    result = graded("03_mle", "q4", priors_decimal)
    assert result.score == 0
    assert all("float(d)" in case.message for case in result.cases)  # hidden ones too
    assert not any(note.startswith("hint: ") for note in result.notes), result.notes


def test_a_decimal_is_still_accepted_where_nothing_uses_it():
    """A value question (01 q4), or a function no other question calls (03 q2), keeps
    taking a right Decimal: nothing mixes it with floats."""
    p_no = _module("01_weather").ref_p_no()
    assert graded("01_weather", "q4", Decimal(p_no.numerator) / Decimal(p_no.denominator)
                  ).score == 1

    def mle_decimal(counts):
        return [Decimal(c) / Decimal(sum(counts)) for c in counts]
    assert not specs.load("03_mle", SOURCE).question("q2").used_by
    assert graded("03_mle", "q2", mle_decimal).score == 2


def test_a_decimal_refusal_gets_no_unrelated_hint():
    """01 q1's refusal says what to change; "count only the rows of the class" did not fit."""
    result = graded("01_weather", "q1", likelihood_decimal)
    assert result.score == 0
    assert all("Fraction(str(d))" in case.message for case in result.cases)
    assert not any(note.startswith("hint: ") for note in result.notes), result.notes


def test_the_questions_called_by_others_are_published_so():
    data = json.loads((REPO / "exercises" / "03_mle.checks.json").read_text())
    used_by = {q["id"]: q.get("used_by") for q in data["questions"]}
    assert used_by["q4"] == ["q6"] and used_by["q5"] == ["q6"] and used_by["q2"] is None


# -------------------------------------------------------- 03 q3: a floor not scaled
def numeric_floor_not_scaled(counts, smallest=0.0):
    from scipy.optimize import minimize
    n = np.asarray(counts, dtype=float)

    def shares(z):
        e = np.exp(z - z.max())
        return e / e.sum()

    z = minimize(lambda z: -np.sum(n * np.log(smallest + shares(z) + 1e-300)),
                 np.zeros(len(n))).x
    return (smallest + shares(z)).tolist()


SCALING = "scale those shares by (1 - J * smallest)"


def test_a_floor_added_but_not_scaled_is_told_the_missing_scaling():
    said = str(check("03_mle", "q3", numeric_floor_not_scaled))
    assert SCALING in said, said
    result = graded("03_mle", "q3", numeric_floor_not_scaled)
    public = [c.message for c in result.cases if not c.hidden and not c.passed]
    assert public and all(SCALING in message for message in public), public
    # without a floor the message stays the one about exp(z) / sum(exp(z))
    from nbcourse.grading.judges import Optimum
    message = Optimum(floor_at=1)([0.5, 0.7], [0.4, 0.6], None)
    assert message.endswith("map the scores with exp(z) / sum(exp(z))"), message


# ------------------------------------------------------- 05 q7/q8: numbers typed in
TYPED_SCORES = "spam_precision = 0.9850746268656716\nspam_recall = 0.88\n"


def _solution_cells(name: str) -> list[str]:
    notebook = json.loads((SOURCE / f"{name}.ipynb").read_text(encoding="utf-8"))
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]


@pytest.mark.parametrize("question_id", ["q7", "q8"])
def test_check_warns_about_precision_and_recall_typed_in(question_id):
    checker = Checker("05_spam", REPO / "exercises" / "05_spam.checks.json")
    question = specs.load("05_spam", SOURCE).question(question_id)
    typed = checker.run(question_id, question.reference(),
                        sources=_solution_cells("05_spam") + [TYPED_SCORES])
    assert f"{question.name} is {TYPED_IN}" in str(typed), str(typed)
    right = checker.run(question_id, question.reference(), sources=_solution_cells("05_spam"))
    assert TYPED_IN not in str(right)


# ------------------------------------------------------------ through the real grader
#: 01 q2 right but for emptying its query: the notebook's display cell runs it on
#: ``lesson_day`` before the p_no cell does
JOINT_EMPTIES_QUERY = '''def joint_scores(table, query, target):
    items = list(query.items())
    query.clear()
    scores = {}
    for label in table[target].unique():
        score = Fraction(int((table[target] == label).sum()), len(table))
        for feature, value in items:
            score *= likelihood(table, feature, value, target, label)
        scores[label] = score
    return scores
'''
LIKELIHOOD_DECIMAL = '''from decimal import Decimal


def likelihood(table, feature, value, target, label):
    rows = table[table[target] == label]
    return Decimal(int((rows[feature] == value).sum())) / Decimal(len(rows))
'''
LIKELIHOOD_PREFIX = '''def likelihood(table, feature, value, target, label):
    rows = table[table[target].astype(str).str.startswith(str(label))]
    return Fraction(int(rows[feature].astype(str).str.startswith(str(value)).sum()), len(rows))
'''
COUNTS_IN_FLOATS = '''def parameter_counts(values, K):
    full = float(K)
    for j in values:
        full *= j
    return (K - 1) + K * sum(j - 1 for j in values), int(full) - 1
'''
PRIORS_DECIMAL = '''from collections import Counter
from decimal import Decimal


def class_priors(labels):
    return {k: Decimal(v) / Decimal(len(labels)) for k, v in Counter(labels).items()}
'''
ROUNDED_ACCURACY = '''def fraction_correct(y_true, y_pred):
    return round(float(np.mean(np.asarray(y_true) == np.asarray(y_pred))), 2)
'''


@pytest.fixture(scope="module")
def graded_probes(tmp_path_factory):
    one = {"solution": solved("01_weather", SOURCE),
           "empties_query": _replaced(solved("01_weather", SOURCE), "joint_scores",
                                      JOINT_EMPTIES_QUERY),
           "decimal": _replaced(solved("01_weather", SOURCE), "likelihood", LIKELIHOOD_DECIMAL),
           "prefix": _replaced(solved("01_weather", SOURCE), "likelihood", LIKELIHOOD_PREFIX)}
    two = {"floats": _replaced(solved("02_smoothing", SOURCE), "parameter_counts",
                               COUNTS_IN_FLOATS)}
    three = {"decimal": _replaced(solved("03_mle", SOURCE), "class_priors", PRIORS_DECIMAL)}
    five = {"solution": solved("05_spam", SOURCE),
            "typed": _with_cell(solved("05_spam", SOURCE), TYPED_SCORES),
            "rounded": _replaced(solved("05_spam", SOURCE), "fraction_correct",
                                 ROUNDED_ACCURACY)}
    return {name: grade_notebooks(name, notebooks, tmp_path_factory.mktemp(name))
            for name, notebooks in (("01_weather", one), ("02_smoothing", two),
                                    ("03_mle", three), ("05_spam", five))}


@pytest.mark.parametrize("name", ["01_weather", "05_spam"])
def test_the_solutions_keep_every_mark(graded_probes, name):
    rows, _ = graded_probes[name]
    assert not lost_marks(rows["solution"].values()), lost_marks(rows["solution"].values())


def test_the_grader_marks_down_floats_and_prefixes(graded_probes):
    rows, _ = graded_probes["02_smoothing"]
    assert rows["floats"]["q8"]["score"] < rows["floats"]["q8"]["points"], rows["floats"]["q8"]
    rows, _ = graded_probes["01_weather"]
    assert rows["prefix"]["q1"]["score"] < rows["prefix"]["q1"]["points"], rows["prefix"]["q1"]


def test_decimal_priors_lose_q4_with_the_conversion_and_q6_keeps_its_points(graded_probes):
    rows, pages = graded_probes["03_mle"]
    q4, q6 = rows["decimal"]["q4"], rows["decimal"]["q6"]
    assert q4["score"] == 0, q4
    assert q6["score"] == q6["points"] and q6["follow_through"] == ["q4"], q6
    assert "float(d)" in _page(pages["decimal"])
    others = [q for qid, q in rows["decimal"].items() if qid not in ("q4", "q6")]
    assert not lost_marks(others), lost_marks(others)


def test_a_decimal_likelihood_gets_no_counting_hint_at_grading(graded_probes):
    rows, pages = graded_probes["01_weather"]
    q1 = rows["decimal"]["q1"]
    assert q1["score"] == 0 and not any(n.startswith("hint: ") for n in q1["notes"]), q1
    assert "count only the rows of the class" not in _page(pages["decimal"])


def test_a_value_whose_callee_emptied_its_input_keeps_its_point(graded_probes):
    """The replay makes the emptied query again before the value's cell (student 9), so
    the right ``p_no`` keeps its point; it was told "changes an input in place" before."""
    rows, pages = graded_probes["01_weather"]
    q2, q4 = rows["empties_query"]["q2"], rows["empties_query"]["q4"]
    assert q2["score"] < q2["points"]
    assert q4["score"] == q4["points"], q4["notes"]
    assert any("computed with your `joint_scores` (q2)" in note for note in q4["notes"])
    assert not any(note.startswith("hint: ") for note in q4["notes"]), q4["notes"]
    page = _page(pages["empties_query"])
    assert "a posterior is a joint score divided by the sum" not in page


@pytest.mark.parametrize("question", ["q7", "q8"])
def test_precision_and_recall_typed_in_earn_nothing(graded_probes, question):
    rows, _ = graded_probes["05_spam"]
    row = rows["typed"][question]
    assert row["score"] == 0 and row["flags"] == [f"uses {TYPED_IN}"], row


def test_a_rounding_in_fraction_correct_is_not_blamed_on_spam_experiment(graded_probes):
    rows, pages = graded_probes["05_spam"]
    q4 = rows["rounded"]["q4"]
    assert q4["score"] == q4["points"] and q4["follow_through"] == ["q2"], q4
    assert not any("rounded" in case["message"] for case in q4["cases"]), q4["cases"]
    for value in ("q5", "q6"):  # a right recipe under them: all their points
        row = rows["rounded"][value]
        assert row["score"] == row["points"], row
    assert rows["rounded"]["q2"]["score"] < rows["rounded"]["q2"]["points"]
