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
