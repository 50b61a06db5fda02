"""Every exercise's spec: it validates, and its known mistakes lose points and are named.

The exercises are discovered from the specs in exercises/source (an instructor's added
exercise is checked like the course's own), and so are the known mistakes: each
question's ``Mistake`` list in its spec is the one list, used by the grader's
diagnosis, by the student's ``check()`` and by these tests.
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from nbcourse.grading import specs
from nbcourse.grading.hidden import grade_answer, grade_question
from nbcourse.grading.selfcheck import Checker
from nbcourse.grading.validate import errors, validate
from submission_support import making_mistake, solved

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "exercises" / "source"
RELEASE = REPO / "exercises"
NAMES = specs.available(SOURCE)
EXERCISES: dict[str, specs.Exercise] = {}


def exercise(name: str) -> specs.Exercise:
    if name not in EXERCISES:
        EXERCISES[name] = specs.load(name, SOURCE)
    return EXERCISES[name]


def _mistakes():
    return [pytest.param(name, question.id, mistake.name, id=f"{name}-{question.id}-{mistake.name}")
            for name in NAMES for question in exercise(name).questions
            for mistake in question.mistakes]


def _answer(question, mistake):
    return mistake.reference() if question.kind == "value" else mistake.reference


@pytest.mark.parametrize("name", NAMES)
def test_every_exercise_validates(name):
    """What `nbcourse validate` and `nbcourse release` check, for every exercise."""
    problems = validate(name, SOURCE)
    assert not errors(problems), "\n".join(map(str, problems))


@pytest.mark.parametrize("name", NAMES)
def test_every_graded_question_has_at_least_two_named_mistakes(name):
    for question in exercise(name).questions:
        assert len(question.mistakes) >= 2, f"{name} {question.id}"
        for mistake in question.mistakes:
            assert len(mistake.feedback) > 40, f"{name} {question.id} {mistake.name}"


@pytest.mark.parametrize("name, question_id, mistake_name", _mistakes())
def test_a_known_mistake_loses_points_and_is_named(name, question_id, mistake_name):
    question = exercise(name).question(question_id)
    mistake = next(m for m in question.mistakes if m.name == mistake_name)
    result = grade_question(question, _answer(question, mistake))
    assert result.score < result.points
    if question.kind == "function":
        assert any(c.hidden and not c.passed for c in result.cases), "only public cases catch it"
    assert mistake_name in result.mistakes
    assert mistake.feedback in result.diagnosis
    # and check() names it too when a public case shows it
    report = Checker(name, path=RELEASE / f"{name}{specs.CHECKS_SUFFIX}").run(
        question_id, _answer(question, mistake), sources=[])
    if not report.all_passed and not report.graded_later:  # a value's mistakes never ship
        assert mistake_name in report.mistakes and mistake.feedback in str(report)


def _perturbed(value, rng):
    """An unrelated wrong answer of the right shape: every number moved, every word replaced."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float, Fraction)):
        return float(value) * rng.uniform(1.3, 2.0) + rng.uniform(0.01, 0.5)
    if isinstance(value, str):
        return "zzz-" + value
    if isinstance(value, list):
        return [_perturbed(item, rng) for item in value]
    if isinstance(value, dict):
        return {key: _perturbed(item, rng) for key, item in value.items()}
    return value


@pytest.mark.parametrize("name", NAMES)
def test_right_and_random_answers_are_never_given_a_mistakes_name(name):
    rng = np.random.default_rng(7)
    checker = Checker(name, path=RELEASE / f"{name}{specs.CHECKS_SUFFIX}")
    for question in exercise(name).questions:
        if question.kind == "value":
            right = question.reference()
            wrong = _perturbed(question.expected()[0], rng)
        else:
            table = {id(case): question.expected()[i] for i, case in enumerate(question.cases)}

            def right(*args, _q=question, _t=table, **kwargs):  # the expected values themselves
                return _t[id(next(c for c in _q.cases if _same_inputs(c, args, kwargs)))]

            def wrong(*args, _q=question, _t=table, **kwargs):
                case = next(c for c in _q.cases if _same_inputs(c, args, kwargs))
                return _perturbed(_t[id(case)], rng)
        graded = grade_question(question, right)
        assert graded.score == graded.points and not graded.mistakes, (question.id, graded)
        assert not checker.run(question.id, right, sources=[]).mistakes
        graded = grade_question(question, wrong)
        assert graded.score < graded.points and not graded.mistakes, (question.id, graded)
        assert not checker.run(question.id, wrong, sources=[]).mistakes


def _same_inputs(case, args, kwargs):
    from nbcourse.grading.values import encode_input
    return json.dumps(encode_input(tuple(case.args)), sort_keys=True) == \
        json.dumps(encode_input(tuple(args)), sort_keys=True) and \
        json.dumps(encode_input(dict(case.kwargs)), sort_keys=True) == \
        json.dumps(encode_input(dict(kwargs)), sort_keys=True)


def test_two_mistakes_with_the_same_value_are_both_named_honestly():
    """On the SMS corpus, a leaky vocabulary with alpha scored on the training part and the
    largest alpha on a tie give the same test accuracy: the feedback says it cannot tell."""
    question = exercise("05_spam").question("q6")
    values = question.mistaken()
    tied = [name for name in values
            if question.same_as(values[name][0], values["the largest alpha kept on a tie"][0],
                                question.cases[0])]
    assert len(tied) == 2, "the two mistakes no longer tie on this corpus"
    result = grade_question(question, values[tied[0]][0])
    assert sorted(result.mistakes) == sorted(tied)
    assert "matches 2 known mistakes" in result.diagnosis and "cannot tell" in result.diagnosis
    for name in tied:
        assert name in result.diagnosis


def test_forgetting_the_prior_costs_points_in_predict():
    """The review's case: likelihoods alone say 'no', the prior-weighted scores say 'yes'."""
    question = exercise("01_weather").question("q3")
    mistake = next(m for m in question.mistakes if m.name == "the class prior left out")
    result = grade_answer(exercise("01_weather"), "q3", mistake.reference)
    assert "a day where the class prior tips the balance" in \
        [case.name for case in result.cases if not case.passed]


# ------------------------------------------------------------------ through the real grader
@pytest.mark.parametrize("name", NAMES)
def test_each_known_mistake_is_named_in_the_feedback_page_and_results_json(tmp_path, name):
    """One batch per exercise: the solution, and one submission per known mistake."""
    from nbcourse.grading.batch import grade_batch
    from nbcourse.grading.gradebook import feedback_name
    from nbcourse.grading.summary import summary
    spec = exercise(name)
    submissions = tmp_path / "submitted"
    submissions.mkdir()
    (submissions / "solution.ipynb").write_text(json.dumps(solved(name, SOURCE)))
    made = {}
    for question in spec.questions:
        for index, mistake in enumerate(question.mistakes):
            ident = f"{question.id}-{index}"
            made[ident] = (question, mistake)
            (submissions / f"{ident}.ipynb").write_text(
                json.dumps(making_mistake(name, question, index, SOURCE)))
    batch = grade_batch(name, [submissions], tmp_path / "out", jobs=2, progress=None)
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    rows = {row["submission"]: row for row in results["submissions"]}
    solution = rows["solution"]
    assert solution["total"] == spec.maximum and not any(q["mistakes"]
                                                         for q in solution["questions"])
    for ident, (question, mistake) in made.items():
        row = rows[ident]
        answer = next(q for q in row["questions"] if q["id"] == question.id)
        assert answer["score"] < answer["points"]
        if mistake.made_in:  # made in a function that is right here: not named (by chance)
            assert mistake.name not in answer["mistakes"], (ident, answer)
            continue
        assert mistake.name in answer["mistakes"], (ident, answer)
        page = (tmp_path / "out" / "feedback" / f"{feedback_name(ident)}.html").read_text()
        from html import escape
        assert escape(mistake.name) in page and escape(mistake.feedback) in page
        # the diagnosis adds the mistake's name and explanation, and nothing else
        assert answer["diagnosis"].count(mistake.feedback) == 1
        assert results["mistakes"][question.id].get(mistake.name, 0) >= 1
    printed = summary(batch)
    first = spec.questions[0]
    assert f"{first.id}: " in printed and "made the known mistake" in printed


def test_an_answer_making_two_mistakes_keeps_the_name_check_gave_it():
    """Issue 25: the public case shows only one of the two mistakes, and check() names it;
    the hidden cases show both, so the answer equals neither everywhere.  The grade, the
    feedback page and the batch summary keep the name instead of dropping it."""
    from nbcourse.grading.diagnosis import summary_lines
    from nbcourse.grading.feedback import render_html
    from nbcourse.grading.scoring import SubmissionResult

    question = specs.Question(
        "q1", "scaled", points=2, title="x times c",
        reference=lambda x, c: x * c,
        mistakes=[specs.Mistake("one added", lambda x, c: x * c + 1, "Do not add one."),
                  specs.Mistake("c squared", lambda x, c: x * c * c, "Multiply by c once.")],
        cases=[specs.Case("c = 1", (3, 1), hidden=False), specs.Case("c = 2", (3, 2)),
               specs.Case("c = 3", (5, 3))])
    spec = specs.Exercise("two mistakes", [question])
    spec.name = "demo"
    both = lambda x, c: x * c * c + 1  # noqa: E731 - one added, and c squared

    checked = Checker("demo", path=None)
    checked.missing = ""
    from nbcourse.grading.selfcheck import PublicQuestion
    checked.questions = {"q1": PublicQuestion.from_json(
        json.loads(json.dumps(spec.publish()))["questions"][0])}
    assert checked.run("q1", both).mistakes == ["one added"]

    graded = grade_question(question, both)
    assert graded.mistakes == ["one added"]
    assert "more than one mistake" in graded.diagnosis and "Do not add one." in graded.diagnosis
    assert graded.score == 0
    row = SubmissionResult("ann", "ann.ipynb", "graded", [], graded.score, 2.0, [graded])
    page = render_html(row, spec.title)
    assert "one added" in page and "Do not add one." in page
    assert summary_lines([row], spec) == ["q1: 1 of 1 made the known mistake 'one added'"]
