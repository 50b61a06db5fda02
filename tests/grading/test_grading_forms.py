"""Issue 34, left open: one rule for whole numbers as floats, and inputs changed in place.

Every probe goes to the student's ``check()`` (the released checks file) and to the
grader's own path (``hidden.grade_answer``: the probe, its JSON and the scoring).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from nbcourse.grading import specs
from nbcourse.grading.hidden import grade_answer
from nbcourse.grading.selfcheck import Checker, PublicQuestion

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "exercises" / "source"
NAMES = specs.available(SOURCE)


def check(name: str, question: str, answer):
    return Checker(name, REPO / "exercises" / f"{name}.checks.json").run(question, answer,
                                                                          sources=[])


def _floated(value):
    """``value`` with every int (not bool) turned into the same float."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [_floated(item) for item in value]
    if isinstance(value, dict):
        return {key: _floated(item) for key, item in value.items()}
    return value


def _leaves(value):
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    return [value]


def _integer_cases():
    """(exercise, question, case index) for every function case whose answer holds an int."""
    found = []
    for name in NAMES:
        for question in specs.load(name, SOURCE).questions:
            if question.kind != "function":
                continue
            for index, want in enumerate(question.expected()):
                if any(type(leaf) is int for leaf in _leaves(want)):
                    found.append((name, question.id, index))
    return found


INTEGER_CASES = _integer_cases()


def test_there_are_counts_in_several_exercises():
    assert len({name for name, _, _ in INTEGER_CASES}) >= 3
    assert ("07_merging", "q1", 0) in INTEGER_CASES  # the exact one that refused 9.0


@pytest.mark.parametrize("name, question_id, index", INTEGER_CASES,
                         ids=lambda v: str(v))
def test_a_whole_number_as_a_float_is_that_number_everywhere(name, question_id, index):
    """The grader and check() take 9.0 for 9 in every case that asks for a whole number."""
    exercise = specs.load(name, SOURCE)
    question = exercise.question(question_id)
    case, want = question.cases[index], question.expected()[index]
    assert question.judge_case(_floated(want), want, case) is None
    if not case.hidden:
        public = PublicQuestion.from_json(exercise.publish()["questions"][
            [q.id for q in exercise.questions].index(question_id)])
        assert public.compare(_floated(want), want, case.judge) is None

