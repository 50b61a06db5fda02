"""No reasoning item can be passed by guessing (issue 35).

The reasoning items are the answers only the grader judges (a number, a letter, a dict of
numbers that `check` tests for its form alone). For each one the grader itself scores
every value a guesser could try, one part of the answer at a time with the other parts
right:

* a fine grid over the part's plausible range (a share between 0 and 1, an integer count,
  a difference of scores), which catches a tolerance too wide and a choice among few options;
* the values a guesser tries first: 0, 1/2 and 1 for a share (an answer "0 or 1" is guessed
  half the time), 0 and 1 for a count.

A part is guessed right with the larger of the two shares; the parts are independent, so a
guesser earns the product of the per-part shares of the item's points. That must not
exceed 10 %. The expected answers must not ship either: the checks file holds no expected
value for these items, and the student notebook has no solution text.
"""
from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from nbcourse.grading import specs
from nbcourse.grading.hidden import grade_question

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "exercises" / "source"
RELEASE = REPO / "exercises"
LIMIT = 0.1


def _grid(low, high, step):
    return [float(x) for x in np.round(np.arange(low, high + step / 2, step), 10)]


SHARE = {"grid": _grid(0.0, 1.0, 0.001), "first": [0.0, 0.5, 1.0]}


def _count(high):
    return {"grid": list(range(0, high + 1)), "first": [0, 1]}


# (exercise, question): {part: values a guesser tries}; a part None is the whole answer.
REASONING = {
    ("01_weather", "q5"): {None: SHARE},
    ("02_smoothing", "q9"): {key: SHARE for key in "abcd"},
    ("03_mle", "q6"): {key: SHARE for key in "abc"},
    ("04_linearity", "q5"): {key: SHARE for key in ("majority", "best_linear", "best_any")},
    ("04_linearity", "q7"): {None: {"grid": _grid(-5.0, 5.0, 0.001), "first": [-1.0, 0.0, 1.0]}},
    ("05_spam", "q7"): {None: SHARE},
    ("05_spam", "q8"): {None: SHARE},
    ("06_gaussian", "q9"): {None: SHARE},
    ("07_merging", "q4"): {None: _count(38)},  # the fifteen messages hold 38 kept occurrences
    ("08_beyond_naive", "q5"): {
        "baseline": SHARE,
        "spread_a": {"grid": _grid(0.0, 0.1, 0.0001), "first": [0.0]},
        "mean_difference": {"grid": _grid(-0.05, 0.05, 0.0001), "first": [0.0]},
        "b_wins": _count(5),
    },
}
EXERCISES = {name: specs.load(name, SOURCE) for name in {name for name, _ in REASONING}}


def _question(name, question_id):
    return EXERCISES[name].question(question_id)


def _share_right(question, right, part, values):
    """The mean share of the points the grader gives when ``part`` takes each of ``values``
    and every other part is right."""
    earned = []
    for value in values:
        answer = value if part is None else {**right, part: value}
        result = grade_question(question, answer)
        earned.append(float(Fraction(result.score) / Fraction(result.points)))
    return sum(earned) / len(earned)


@pytest.mark.parametrize("name, question_id", sorted(REASONING), ids=lambda v: str(v))
def test_no_reasoning_item_can_be_passed_by_guessing(name, question_id):
    question = _question(name, question_id)
    right = question.reference()
    assert grade_question(question, right).score == question.points  # the sweep can pass
    chance = 1.0
    for part, guesses in REASONING[(name, question_id)].items():
        chance *= max(_share_right(question, right, part, guesses["grid"]),
                      _share_right(question, right, part, guesses["first"]))
    assert chance <= LIMIT, f"{name} {question_id}: a guesser earns {chance:.0%} of the points"


# Values graded only by the grader that are not reasoning items, each with its reason.
NOT_REASONING = {
    ("04_linearity", "q4"): "computed=True: a number typed in is flagged and earns nothing, so "
                            "a guess cannot score; the value comes from running both rules",
}


def test_every_value_graded_only_by_the_grader_is_swept():
    """A new reasoning item (a value question graded later) must be added above."""
    for name in specs.available(SOURCE):
        for question in specs.load(name, SOURCE).questions:
            if question.kind == "value" and question.graded_later and not question.calls:
                assert (name, question.id) in REASONING or (name, question.id) in NOT_REASONING, \
                    f"{name} {question.id} is not swept"
    for (name, question_id) in NOT_REASONING:  # the exemptions name real questions
        assert any(q.id == question_id for q in specs.load(name, SOURCE).questions)
    assert specs.load("04_linearity", SOURCE).questions[3].computed


def test_the_sweep_catches_an_answer_a_guesser_tries_first():
    """The old MAP-at-the-edge item (answer 0) and a choice among four letters both fail."""
    from nbcourse.grading.judges import OneOf, Within
    from nbcourse.grading.specs import Case, Mistake, Question
    edge = Question("q9", "map_edge", points=2, kind="value", title="edge",
                    reference=lambda: 0.0,
                    mistakes=[Mistake("a", lambda: 0.5, "x" * 50),
                              Mistake("b", lambda: 1.0, "y" * 50)],
                    cases=[Case("a number", hidden=False, judge=Within(0, 1)),
                           Case("the MAP")])
    assert _share_right(edge, 0.0, None, SHARE["first"]) > LIMIT
    letter = Question("q4", "why", points=1, kind="value", title="why", exact=True,
                      reference=lambda: "b",
                      mistakes=[Mistake("a", lambda: "a", "x" * 50),
                                Mistake("c", lambda: "c", "y" * 50)],
                      cases=[Case("a letter", hidden=False, judge=OneOf(["a", "b", "c", "d"])),
                             Case("the reason")])
    assert _share_right(letter, "b", None, ["a", "b", "c", "d"]) > LIMIT


@pytest.mark.parametrize("name, question_id", sorted(REASONING), ids=lambda v: str(v))
def test_the_expected_answer_of_a_reasoning_item_does_not_ship(name, question_id):
    question = _question(name, question_id)
    checks = json.loads((RELEASE / f"{name}{specs.CHECKS_SUFFIX}").read_text())
    published = next(q for q in checks["questions"] if q["id"] == question_id)
    assert published["graded_later"] and not published["mistakes"]
    assert all(case["expected"] is None and not case["mistakes"] for case in published["cases"])
    student = json.loads((RELEASE / f"{name}.ipynb").read_text())
    assigned = re.compile(rf"^\s*{re.escape(question.name)}\s*(\[.*\])?\s*=[^=]", re.MULTILINE)
    assert not any(assigned.search("".join(cell["source"])) for cell in student["cells"])


def test_the_prior_behind_a_smoothing_rule_cannot_be_guessed():
    """02 q4 was one pair to recall (Beta(1, 1), the first thing a guesser tries) and stood
    exempt above. It is now a function of the rule, graded on hidden rules: a pair returned
    whatever the rule, the MAP's pair or the rule's own numbers earn at most a tenth."""
    from nbcourse.grading.selfcheck import Checker
    question = specs.load("02_smoothing", SOURCE).question("q4")
    assert question.kind == "function" and not question.graded_later
    checker = Checker("02_smoothing", RELEASE / f"02_smoothing{specs.CHECKS_SUFFIX}")
    halves = [x / 2 for x in range(0, 21)]
    for a in halves:
        for b in halves:
            guess = lambda k, n, a=a, b=b: (a, b)  # noqa: E731
            result = grade_question(question, guess)
            assert result.score <= LIMIT * question.points, (a, b, result.score)
            assert not checker.run("q4", guess, sources=[]).all_passed
    for rule in (lambda k, n: (k, n), lambda k, n: (k + 1, n - k + 1), lambda k, n: (n, k)):
        assert grade_question(question, rule).score <= LIMIT * question.points
    assert grade_question(question, lambda k, n: (k, n - k)).score == question.points

