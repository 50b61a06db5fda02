"""Issue 34 (students 4, 7 and 8): one forbidden helper cost every answer that calls the
function using it, while a wrong function cost its callers nothing.  The flag now stays
with the function that uses the helper; its callers are marked by follow-through, as the
callers of a wrong function are (run again with the right function in place).

A flagged function is not "right" for follow-through even when its values are: a caller
that reaches the helper through a back door of the flagged function (a call the
reference function does not answer) fails with the right function in place and loses
its points.
"""
from __future__ import annotations

import pytest

from submission_support import lost_marks
from test_grading_marks_probes import grade_probes

LIKELIHOOD_WITH_SKLEARN = '''
from fractions import Fraction
from sklearn.naive_bayes import CategoricalNB

def likelihood(table, feature, value, target, label):
    CategoricalNB()  # the flag: the values below are right
    in_class = table[table[target] == label]
    return Fraction(int((in_class[feature] == value).sum()), len(in_class))
'''

#: the flagged likelihood answers predict's question too, through a call the right
#: likelihood does not answer (feature None): predict is right only with this likelihood
BACK_DOOR = LIKELIHOOD_WITH_SKLEARN.replace(
    "    CategoricalNB()  # the flag: the values below are right\n",
    "    CategoricalNB()\n"
    "    if feature is None:\n"
    "        scores = {}\n"
    "        for c in table[target].unique():\n"
    "            scores[c] = Fraction(int((table[target] == c).sum()), len(table))\n"
    "            for f, v in value.items():\n"
    "                scores[c] *= likelihood(table, f, v, target, c)\n"
    "        return max(scores, key=scores.get)\n") + '''
def predict(table, query, target):
    return likelihood(table, None, query, target, None)
'''


@pytest.fixture(scope="module")
def exercise_1(tmp_path_factory):
    probes = {"solution": "", "flagged_q1": LIKELIHOOD_WITH_SKLEARN, "back_door": BACK_DOOR}
    return grade_probes("01_weather", probes, tmp_path_factory.mktemp("ex01_flags"))


def test_a_flagged_likelihood_costs_its_own_points_only(exercise_1):
    rows, pages = exercise_1
    assert not lost_marks(rows["solution"].values())
    row = rows["flagged_q1"]
    assert row["q1"]["score"] == 0 and row["q1"]["flags"], row["q1"]
    callers = [q for qid, q in row.items() if qid != "q1"]
    assert not lost_marks(callers), lost_marks(callers)
    assert not any(q["flags"] for q in callers)
    page = pages["flagged_q1"].replace("&#x27;", "'")
    assert "CategoricalNB" in page and "flagged for the same name" not in page


def test_a_caller_that_uses_a_back_door_of_a_flagged_function_loses_its_points(exercise_1):
    rows, pages = exercise_1
    row = rows["back_door"]
    assert row["q1"]["score"] == 0 and row["q1"]["flags"], row["q1"]
    assert row["q3"]["score"] < row["q3"]["points"], row["q3"]
    page = pages["back_door"].replace("&#x27;", "'")
    assert "it only passed because it makes up for q1's mistake" in page
