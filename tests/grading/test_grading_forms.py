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
from submission_support import solved, with_cell

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
    """(exercise, question, case index) for every function case whose answer holds an int
    that a float holds exactly (02 q8's 2 * 3**40 - 1 is not one: as a float it is another
    number, and the question asks for exact counts)."""
    found = []
    for name in NAMES:
        for question in specs.load(name, SOURCE).questions:
            if question.kind != "function":
                continue
            for index, want in enumerate(question.expected()):
                ints = [leaf for leaf in _leaves(want) if type(leaf) is int]
                if ints and all(int(float(leaf)) == leaf for leaf in ints):
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



# ------------------------------------------------------------ inputs changed in place
def _mutate(value) -> bool:
    """Change the first mutable thing in ``value`` in place (a list, dict, DataFrame,
    Series, array or sparse matrix, looked for depth first); whether there was one."""
    import numpy as np
    import pandas as pd
    import scipy.sparse as sp
    if isinstance(value, pd.Series):
        value.index = [f"{label}'" for label in value.index]  # relabelled in place
        return len(value) > 0
    if isinstance(value, (pd.DataFrame, dict)):
        value["__added__"] = 0
        return True
    if isinstance(value, list):
        value.append(0)
        return True
    if isinstance(value, np.ndarray) and value.size and value.dtype.kind in "biuf":
        value.flat[0] = not value.flat[0] if value.dtype.kind == "b" else value.flat[0] + 1
        return True
    if sp.issparse(value) and value.nnz:
        value.data[0] += 1
        return True
    if isinstance(value, tuple):
        return any(_mutate(item) for item in value)
    return False


def _mutating(reference, calls: list):
    """The reference's answer, after which the call changes one of its inputs in place;
    ``calls`` records, call by call, whether it found one to change."""
    def answer(*args, **kwargs):
        returned = reference(*args, **kwargs)
        calls.append(_mutate(args) or _mutate(tuple(kwargs.values())))
        return returned
    return answer


def _reference_answers():
    """(exercise, question) for each graded function whose spec reference answers the
    probe's rebuilt inputs (a few look their inputs up by identity, so cannot)."""
    found = []
    for name in NAMES:
        for question in specs.load(name, SOURCE).questions:
            if question.kind == "function" and grade_answer(
                    name, question.id, question.reference, SOURCE).score == question.points:
                found.append((name, question.id))
    return found


FUNCTIONS = _reference_answers()


@pytest.mark.parametrize("name, question_id", FUNCTIONS, ids=lambda v: str(v))
def test_a_right_value_from_a_call_that_changes_its_input_fails_that_case(name, question_id):
    """The grader and check() fail every case whose call changed an input in place, with
    the same words, whatever the value it returned (issue 34)."""
    question = specs.load(name, SOURCE).question(question_id)
    calls: list[bool] = []
    result = grade_answer(name, question_id, _mutating(question.reference, calls), SOURCE)
    assert len(calls) == len(question.cases)
    for changed, case in zip(calls, result.cases):
        assert case.passed is not changed, (case.name, case.message)
        if changed:
            assert case.message.startswith("the function changed its argument "), case.message
    calls.clear()
    report = check(name, question_id, _mutating(question.reference, calls))
    for changed, outcome in zip(calls, report.outcomes):
        assert outcome.passed is not changed, (outcome.name, outcome.message)
        if changed:
            assert outcome.message.startswith("the function changed its argument ")


def test_most_graded_functions_are_given_something_they_could_change():
    every = [(name, q.id) for name in NAMES for q in specs.load(name, SOURCE).questions
             if q.kind == "function"]
    assert len(FUNCTIONS) >= len(every) * 3 // 4
    changeable = 0
    for name, question_id in FUNCTIONS:
        question = specs.load(name, SOURCE).question(question_id)
        calls: list[bool] = []
        grade_answer(name, question_id, _mutating(question.reference, calls), SOURCE)
        changeable += any(calls)
    assert changeable >= len(FUNCTIONS) * 3 // 4


MERGE_INTO_THE_FIRST = '''
def merge_counts(a, b):
    classes = sorted(set(a["classes"]) | set(b["classes"]))
    width = max([len(row) for t in (a, b) for row in t["feature_count"]], default=0)
    counts = {c: [0, [0] * width] for c in classes}
    for table in (a, b):
        for c, n, row in zip(table["classes"], table["class_count"], table["feature_count"]):
            counts[c][0] += n
            counts[c][1] = [x + y for x, y in zip(counts[c][1], row)]
    a["classes"] = classes  # the first table now lists every class (it is changed)
    return {"classes": classes, "class_count": [counts[c][0] for c in classes],
            "feature_count": [counts[c][1] for c in classes]}
'''


def test_merging_into_the_first_table_is_caught_by_check_and_the_grader():
    merge = _merge_into_the_first()
    report = check("07_merging", "q1", merge)
    says = {o.name: o.message for o in report.outcomes if not o.passed}
    assert "the same classes listed in another order" not in says  # MONDAY kept as it was
    assert says["a class only the second table has"].startswith(
        "the function changed its argument 1 (of 2) in place")
    assert "hint:" not in str(report)  # the message says what is wrong
    result = grade_answer("07_merging", "q1", merge, SOURCE)
    assert 0 < result.score < result.points
    hidden = [c for c in result.cases if c.hidden and not c.passed]
    assert hidden and all(c.message == says["a class only the second table has"]
                          for c in hidden)
    assert not any(note.startswith("hint: ") for note in result.notes)


def test_the_sandboxed_grader_fails_the_cases_whose_call_changed_its_input(tmp_path):
    """The whole path: the flag reaches the kernel's probe, the reply crosses the boundary
    as fixed text, and the page shows the grader's words."""
    import json
    from nbcourse.grading.batch import grade_batch
    path = tmp_path / "merged_into_a.ipynb"
    path.write_text(json.dumps(with_cell(solved("07_merging"), "merge-into-a",
                                         MERGE_INTO_THE_FIRST)), encoding="utf-8")
    batch = grade_batch("07_merging", [path], tmp_path / "out", jobs=1, progress=None)
    (result,) = batch.results
    answer = next(q for q in result.questions if q.id == "q1")
    expected = grade_answer("07_merging", "q1", _merge_into_the_first(), SOURCE)
    assert [c.passed for c in answer.cases] == [c.passed for c in expected.cases]
    assert answer.score == expected.score < answer.points
    assert all(q.score == q.points for q in result.questions if q.id != "q1")
    page = (tmp_path / "out" / "feedback" / "merged_into_a.html").read_text(encoding="utf-8")
    assert "changed its argument 1 (of 2) in place" in page


def _merge_into_the_first():
    namespace: dict = {}
    exec(MERGE_INTO_THE_FIRST, namespace)  # noqa: S102 - the student's code
    return namespace["merge_counts"]


def test_the_words_for_a_changed_input_are_the_graders_whatever_the_kernel_sent():
    """The kernel says where ("argument 2"); the page names it only when it is one of the
    case's own arguments, else "one of its inputs": nothing of the kernel's text shows."""
    from nbcourse.grading.execution.probe_source import INPUT_CHANGED
    from nbcourse.grading.scoring import score_question
    question = specs.load("07_merging", SOURCE).question("q1")
    for where, words in (("argument 2", "its argument 2 (of 2)"),
                         ("argument 3", "one of its inputs"),
                         ("keyword a", "one of its inputs"),
                         ("argument <b>2</b>", "one of its inputs")):
        reply = {"question": "q1", "name": "merge_counts",
                 "cases": [{"error": f"{INPUT_CHANGED}: {where}"}] * len(question.cases)}
        result = score_question(question, reply, question.expected(), 0.0, [])
        assert result.score == 0
        assert {case.message for case in result.cases} == {
            f"the function changed {words} in place: this question does not ask for that, "
            "and whatever calls it (a later question too) would then work on the changed "
            "input. Work on a copy (table.copy(), list(values), dict(counts), "
            "np.array(x, copy=True)) and leave what you are given as it was."}


def test_a_spec_that_asks_for_the_change_lets_it_pass(tmp_path):
    import json
    from nbcourse.grading.hidden import grade_question
    from nbcourse.grading.specs import Case, Exercise, Question

    def append_and_count(values):
        values.append(0)  # the notebook asks for it here
        return len(values)

    for changes, right in ((True, True), (False, False)):
        question = Question("q1", "fill", points=1, title="fill", changes_inputs=changes,
                            reference=lambda values: len(values) + 1,
                            cases=[Case("two values", ([1, 2],), hidden=False),
                                   Case("three values", ([1, 2, 3],))])
        assert (grade_question(question, append_and_count).score == 1) is right
        checks = tmp_path / f"{changes}.checks.json"
        published = Exercise("fill", [question], name="fill").publish()
        checks.write_text(json.dumps(published), encoding="utf-8")
        assert Checker("fill", checks).run("q1", append_and_count,
                                           sources=[]).all_passed is right
