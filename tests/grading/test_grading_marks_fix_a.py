"""Issue 34, a third student's probes (marks-fix-a): each answer through ``check()`` (the
released checks file) and through the grader's own scoring of every case.

Bins made by dividing by the width, an empty shard that holds old numbers, the rounding
note, ex03 q6's tolerance and follow-through, public cases for mistakes only hidden cases
caught, and ex08 q3's hint for an in-place multiply on integers.
"""
from __future__ import annotations

import numpy as np
import pytest

from test_grading_marks_probes import check, grade_probes, graded


# ---------------------------------------- 06 q5/q6: the bin as floor(p / (1 / n_bins))
def bins_by_width_division(is_positive, p, n_bins):
    """Right but for the bin: p / (1 / n_bins) is 2.9999999999999996 for p = 0.3, n = 10."""
    pos, p = np.asarray(is_positive, float), np.asarray(p, float)
    b = np.minimum(np.floor(p / (1 / n_bins)).astype(int), n_bins - 1)
    return [[int(j), float(p[b == j].mean()), float(pos[b == j].mean()), int((b == j).sum())]
            for j in np.unique(b)]


def ece_by_width_division(is_positive, p, n_bins):
    pos, p = np.asarray(is_positive, float), np.asarray(p, float)
    b = np.minimum(np.floor(p / (1 / n_bins)).astype(int), n_bins - 1)
    return float(sum(abs(pos[b == j].sum() - p[b == j].sum()) for j in np.unique(b)) / len(p))


@pytest.mark.parametrize("question, answer", [("q5", bins_by_width_division),
                                              ("q6", ece_by_width_division)])
def test_bins_found_by_dividing_by_the_width_fail_check_and_lose_marks(question, answer):
    said = check("06_gaussian", question, answer)
    assert not said.all_passed
    assert any("edges" in o.name and not o.passed for o in said.outcomes)
    result = graded("06_gaussian", question, answer)
    assert result.score < result.points
    assert any("edges" in c.name and not c.passed and c.hidden for c in result.cases)


# ----------------------------------------- the rounding note: only of a rounded value
ROUNDED_NOTE = "decimal places: if you rounded it, store it unrounded"


def _notes(result) -> str:
    return " ".join(c.message for c in result.cases)


def variances_as_standard_deviations(X, y, var_smoothing=1e-9):
    """ex06 q1 with the standard deviation where the variance is asked: wrong, not rounded."""
    X, y = np.asarray(X, float), np.asarray(y)
    classes = np.unique(y)
    eps = var_smoothing * X.var(axis=0).max()
    means = [X[y == c].mean(axis=0).tolist() for c in classes]
    spreads = [(X[y == c].std(axis=0) + eps).tolist() for c in classes]
    return [classes.tolist(), means, spreads]


@pytest.mark.parametrize("name, question, answer", [
    ("05_spam", "q5", 0.01),  # an alpha of the list, the wrong one: nobody rounded it
    ("05_spam", "q5", 3.0),
    ("01_weather", "q5", 0.917),  # as few decimals as a rounded answer, far from it
])
def test_a_wrong_value_with_few_decimals_gets_no_rounding_note(name, question, answer):
    result = graded(name, question, answer)
    assert result.score < result.points
    assert ROUNDED_NOTE not in _notes(result)


def test_a_wrong_function_whose_values_have_few_decimals_gets_no_rounding_note():
    result = graded("06_gaussian", "q1", variances_as_standard_deviations)
    assert result.score < result.points
    assert ROUNDED_NOTE not in _notes(result)


@pytest.mark.parametrize("places", [2, 3])  # (four decimals are within its tolerance)
def test_the_expected_value_rounded_still_gets_the_note(places):
    exact = 401 / 1050  # 01 q5: P(win | free)
    result = graded("01_weather", "q5", round(exact, places))
    assert result.score == 0
    assert f"only {places} {ROUNDED_NOTE}" in _notes(result)
