"""Issue 34, a fifth student's probes: two mistakes that cancel, and three smaller findings.

- A caller was read again with the solutions of the functions it calls only when it failed
  with the student's own.  A wrong caller that makes up for a wrong callee (``predict``
  taking the smallest of the scores ``joint_scores`` negates) passed with it and kept full
  marks.  It is now read again whenever a function it calls failed, and marked on its own
  logic when it fails that way; ``check()`` says that the grader will do so.
- A public case's own hint is shown only when the answer passes some other case.
- A DataFrame where rows are asked (06 q1, q5) is read as its rows.
- 03 q6 is computed: numbers typed in are flagged, and a swap of ``class_priors`` judges it.
"""
from __future__ import annotations

import pytest

from nbcourse.grading import specs
from nbcourse.grading.execution.report import RunReport
from nbcourse.grading.scoring import score, second_readings
from nbcourse.grading.statuses import AnswerStatus
from submission_support import lost_marks, perfect_probes, perfect_swaps
from test_grading_marks_probes import SOURCE, grade_probes

#: {exercise: (the caller's id, the wrong callee's id, a cell defining both wrong functions)}
#: 01 q2's case where every score is 0 (a value no row shows): negated scores pass it
ALL_ZERO = "a query value the table never shows"

CANCELLING = {
    "01_weather": ("q3", "q2", '''def joint_scores(table, query, target):
    out = {}
    for label in table[target].unique():
        s = Fraction(int((table[target] == label).sum()), len(table))
        for f, v in query.items():
            s *= likelihood(table, f, v, target, label)
        out[label] = -s
    return out

def predict(table, query, target):
    scores = joint_scores(table, query, target)
    return min(scores, key=scores.get)
'''),
    "02_smoothing": ("q2", "q1", '''def posterior_parameters(a, b, heads, tails):
    return (b + tails, a + heads)

def map_estimate(a, b, heads, tails):
    a2, b2 = posterior_parameters(a, b, heads, tails)
    return Fraction(b2 - 1) / (a2 + b2 - 2)
'''),
    "05_spam": ("q3", "q2", '''def fraction_correct(y_true, y_pred):
    return float(np.mean(np.asarray(y_true) != np.asarray(y_pred)))

def choose_alpha(X_train, y_train, X_validation, y_validation, alphas):
    best, smallest = None, 2.0
    for a in alphas:
        m = MultinomialNB(alpha=a).fit(X_train, y_train)
        error = fraction_correct(y_validation, m.predict(X_validation))
        if error < smallest:
            best, smallest = a, error
    return best
'''),
    "06_gaussian": ("q6", "q5", '''def reliability_bins(is_positive, p, n_bins):
    pos = np.asarray(is_positive, dtype=bool)
    p = np.asarray(p, dtype=float)
    b = np.minimum(np.floor(p * n_bins).astype(int), n_bins - 1)
    rows = []
    for j in range(n_bins):
        m = b == j
        if m.any():
            rows.append([j, int(m.sum()), float(p[m].mean()), float(pos[m].mean())])
    return rows

def calibration_error(is_positive, p, n_bins):
    rows = reliability_bins(is_positive, p, n_bins)
    N = sum(r[1] for r in rows)
    return float(sum(r[1] / N * abs(r[3] - r[2]) for r in rows))
'''),
}
MADE_UP_FOR = "it only passed because it makes up for"


DATAFRAMES = '''def class_means_variances(X, y, var_smoothing):
    df = pd.DataFrame(np.asarray(X, dtype=float))
    g = df.groupby(np.asarray(y))
    eps = var_smoothing * df.var(ddof=0).max()
    return g.mean(), g.var(ddof=0) + eps
'''


def _typed_p_ham(call: bool = False) -> str:
    """03 q6's right numbers, typed in (as a dict literal, or through ``dict(a=...)``, which
    the source rule does not see: the swap of ``class_priors`` catches it)."""
    value = specs.load("03_mle", SOURCE).question("q6").reference()
    if call:
        return "p_ham_documents = dict(" + ", ".join(f"{k}={float(v)!r}"
                                                     for k, v in value.items()) + ")"
    return "p_ham_documents = {" + ", ".join(f"{k!r}: {float(v)!r}" for k, v in value.items()) \
        + "}"


#: {exercise: {probe: its cell}} graded next to the cancelling pair (if any)
OTHERS = {"06_gaussian": {"dataframes": DATAFRAMES},
          "03_mle": {"typed": None, "typed_dict_call": None}}
_GRADED: dict = {}


def _graded(name, tmp_path_factory):
    """The solution, the cancelling pair and the other probes of exercise ``name``,
    graded once."""
    if name not in _GRADED:
        caller, callee, code = CANCELLING.get(name, (None, None, None))
        probes = {"solution": ""}
        if code:
            probes["cancelling"] = code
        for probe, cell in OTHERS.get(name, {}).items():
            probes[probe] = cell if cell is not None else _typed_p_ham(probe != "typed")
        rows, pages = grade_probes(name, probes, tmp_path_factory.mktemp(name))
        _GRADED[name] = name, caller, callee, rows, pages
    return _GRADED[name]


@pytest.fixture(scope="module", params=sorted(CANCELLING))
def cancelling(request, tmp_path_factory):
    return _graded(request.param, tmp_path_factory)


def test_a_caller_right_only_with_its_wrong_callee_loses_its_points(cancelling):
    name, caller, callee, rows, pages = cancelling
    row = rows["cancelling"]
    assert row[callee]["score"] < row[callee]["points"], row[callee]
    assert row[caller]["score"] < row[caller]["points"], (name, row[caller])
    assert row[caller]["status"] != "passed"
    page = pages["cancelling"].replace("&#x27;", "'").replace("&#39;", "'")
    assert MADE_UP_FOR + f" {callee}'s mistake" in page, name


def test_the_solutions_keep_every_mark_next_to_the_cancelling_pairs(cancelling):
    _, _, _, rows, _ = cancelling
    assert not lost_marks(rows["solution"].values()), lost_marks(rows["solution"].values())


# ----------------------------------------------------- the rule, without a kernel
def _report(ordinary, second=None) -> RunReport:
    return RunReport.from_json({"notebook": "ok", "problems": [], "kernel": "ok",
                                "memory_error": False, "probes": ordinary, "forbidden": {},
                                "output_bytes": 0, "follow_through": second or {}})


def _wrong(question):
    return {"question": question.id, "name": question.name,
            "cases": [{"error": "ZeroDivisionError: division by zero"}] * len(question.cases)}


def test_a_passing_caller_of_a_failed_callee_is_read_again():
    exercise = specs.load("01_weather", SOURCE)
    ordinary = perfect_probes(exercise)
    ordinary["q2"] = _wrong(exercise.question("q2"))
    wanted = second_readings(exercise, exercise.expected(), _report(ordinary))
    assert {"q3", "q4"} <= set(wanted), wanted  # predict and p_no both call joint_scores
    # what the batch answers a worker, local or on Dask (``dask_asks.Answers``): the same
    from nbcourse.grading.scheduling import Rows
    rows = Rows(exercise, exercise.expected(), [], None, None)
    assert rows.second_readings(_report(ordinary).to_json()) == wanted


def test_a_passing_caller_wrong_with_the_solutions_is_marked_on_that_reading():
    exercise = specs.load("01_weather", SOURCE)
    expected = exercise.expected()
    ordinary = perfect_probes(exercise)
    ordinary["q2"] = _wrong(exercise.question("q2"))
    second = dict(perfect_swaps(exercise), q3=_wrong(exercise.question("q3")),
                  q4=perfect_probes(exercise)["q4"])
    result = score(exercise, expected, _report(ordinary, second), "s", "s.ipynb")
    q = {r.id: r for r in result.questions}
    assert q["q3"].score == 0 and q["q3"].status == AnswerStatus.FAILED
    assert any(MADE_UP_FOR + " q2's mistake" in note for note in q["q3"].notes), q["q3"].notes
    assert all(not case.passed for case in q["q3"].cases)
    assert "ZeroDivisionError" not in repr(q["q3"])  # the second reading's words: not shown
    assert q["q4"].score == q["q4"].points and q["q4"].status == AnswerStatus.PASSED
    assert q["q4"].notes == []  # right both ways: nothing to say


# ------------------------------------------- a case's own hint only where it can be the cause
LABELS_HINT = "take the labels from the target column"
RIGHT_LIKELIHOOD = '''def likelihood(table, feature, value, target, label):
    rows = table[table[target] == label]
    return Fraction(int((rows[feature] == value).sum()), len(rows))
'''
FIXED_LABELS = '''def joint_scores(table, query, target):
    out = {}
    for label in ["yes", "no"]:
        s = Fraction(int((table[target] == label).sum()), len(table))
        for f, v in query.items():
            s *= likelihood(table, f, v, target, label)
        out[label] = s
    return out
'''


def _defined(code: str, name: str):
    from fractions import Fraction

    namespace = {"__name__": "__main__", "Fraction": Fraction}
    exec(compile(RIGHT_LIKELIHOOD + code, "<cell>", "exec"), namespace)  # noqa: S102
    return namespace[name]


def test_check_shows_a_cases_hint_only_where_it_can_be_the_cause():
    from test_grading_marks_probes import check

    negated = _defined(CANCELLING["01_weather"][2], "joint_scores")
    report = str(check("01_weather", "q2", negated))
    assert "✘ a table with four labels" in report and LABELS_HINT not in report, report
    report = str(check("01_weather", "q2", _defined(FIXED_LABELS, "joint_scores")))
    assert LABELS_HINT in report, report  # right on the yes/no tables: the hint fits


def test_grading_shows_a_cases_hint_only_where_it_can_be_the_cause():
    from nbcourse.grading.hidden import grade_answer

    exercise = specs.load("01_weather", SOURCE)
    negated = grade_answer(exercise, "q2", _defined(CANCELLING["01_weather"][2], "joint_scores"))
    # every case fails but the one where every score is 0 (and -0 == 0)
    assert [case.name for case in negated.cases if case.passed] == [ALL_ZERO], negated.cases
    assert not any(LABELS_HINT in case.hint for case in negated.cases), negated.cases
    fixed = grade_answer(exercise, "q2", _defined(FIXED_LABELS, "joint_scores"))
    assert any(LABELS_HINT in case.hint for case in fixed.cases), fixed.cases


def test_the_feedback_page_leaves_out_the_hint_of_a_case_that_is_not_the_cause(
        tmp_path_factory):
    _, _, _, rows, pages = _graded("01_weather", tmp_path_factory)
    assert [case["name"] for case in rows["cancelling"]["q2"]["cases"] if case["passed"]] \
        == [ALL_ZERO]
    assert LABELS_HINT not in pages["cancelling"]


# --------------------------------------- 06 q1: DataFrames (a row per class) are accepted
def _function(code: str, name: str):
    import numpy as np
    import pandas as pd

    namespace = {"__name__": "__main__", "np": np, "pd": pd}
    exec(compile(code, "<cell>", "exec"), namespace)  # noqa: S102 - the probe's own text
    return namespace[name]


BINS_AS_A_FRAME = """def reliability_bins(is_positive, p, n_bins):
    pos = np.asarray(is_positive, dtype=bool)
    p = np.asarray(p, dtype=float)
    b = np.minimum(np.floor(p * n_bins).astype(int), n_bins - 1)
    rows = [[j, float(p[b == j].mean()), float(pos[b == j].mean()), int((b == j).sum())]
            for j in range(n_bins) if (b == j).any()]
    return pd.DataFrame(rows, columns=["bin", "mean p", "observed", "count"])
"""


@pytest.mark.parametrize("question, code, name", [
    ("q1", DATAFRAMES, "class_means_variances"),
    ("q5", BINS_AS_A_FRAME, "reliability_bins")])
def test_check_and_grading_accept_a_dataframe_where_rows_are_asked(question, code, name):
    from nbcourse.grading.hidden import grade_answer
    from test_grading_marks_probes import check

    answer = _function(code, name)
    report = check("06_gaussian", question, answer)
    assert report.all_passed, str(report)
    result = grade_answer(specs.load("06_gaussian", SOURCE), question, answer)
    assert result.score == result.points, result.cases


def test_a_wrong_dataframe_still_fails():
    from test_grading_marks_probes import check

    ddof1 = DATAFRAMES.replace("g.var(ddof=0)", "g.var()")
    report = check("06_gaussian", "q1", _function(ddof1, "class_means_variances"))
    assert not report.all_passed and report.mistakes, str(report)


def test_the_grader_gives_dataframes_of_the_right_numbers_full_marks(tmp_path_factory):
    _, _, _, rows, _ = _graded("06_gaussian", tmp_path_factory)
    q1 = rows["dataframes"]["q1"]
    assert q1["score"] == q1["points"], q1


# ------------------------------------------- 03 q6: the posteriors are computed, not typed
def test_check_and_grading_flag_03_q6_typed_in():
    from nbcourse.grading import forbidden
    from nbcourse.grading.selfcheck import Checker
    from test_grading_marks_probes import REPO

    exercise = specs.load("03_mle", SOURCE)
    assert exercise.question("q6").computed
    flags = forbidden.flagged_answers([_typed_p_ham()], exercise.probe_plan())
    assert flags == {"q6": [forbidden.TYPED_IN]}
    value = exercise.question("q6").reference()
    checker = Checker("03_mle", REPO / "exercises" / "03_mle.checks.json")
    assert "typed in" in str(checker.run("q6", value, sources=[_typed_p_ham()]))
    solution = [next(c for c in _cells("03_mle") if "p_ham_documents = {}" in c)]
    assert forbidden.flagged_answers(solution, exercise.probe_plan()) == {}
    assert "typed in" not in str(checker.run("q6", value, sources=solution))


def _cells(name):
    import json

    notebook = json.loads((SOURCE / f"{name}.ipynb").read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]


def test_the_grader_gives_03_q6_typed_in_nothing(tmp_path_factory):
    _, _, _, rows, _ = _graded("03_mle", tmp_path_factory)
    assert rows["typed"]["q6"]["score"] == 0, rows["typed"]["q6"]
    q6 = rows["typed_dict_call"]["q6"]
    assert q6["score"] == 0 and "does not follow your `class_priors`" in " ".join(q6["notes"])
    assert not lost_marks(rows["solution"].values()), lost_marks(rows["solution"].values())


def test_check_says_a_pass_over_a_failing_callee_is_judged_again_when_graded():
    """``check()`` has no solutions to put in place, but it can say that the pass may not hold."""
    from test_grading_marks_probes import check

    predict = _defined(CANCELLING["01_weather"][2], "predict")
    report = check("01_weather", "q3", predict)
    assert report.all_passed
    assert "passes with your `joint_scores` (q2), which fails its own public tests" in \
        str(report) and "makes up for" in str(report), str(report)
    right = _defined(CANCELLING["01_weather"][2].replace("out[label] = -s", "out[label] = s")
                     .replace("min(scores", "max(scores"), "predict")
    assert "makes up for" not in str(check("01_weather", "q3", right))
