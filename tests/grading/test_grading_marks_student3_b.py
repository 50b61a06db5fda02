"""Issue 34, a third student's probes of exercises 05-08, through ``check()`` and the
sandboxed grader.

- 07 q4: ``lost_occurrences`` is computed with the student's ``merge_vocabularies``: a right
  cell with a wrong q3 is credited by follow-through, and a number typed in (even as a
  dict of per-word counts summed) earns nothing (a swap of ``merge_vocabularies``).
- Value questions compare at the default tolerance unless the spec writes a reason, and a
  rounded value fails with the rounding note in ``check()`` and on the feedback page
  (08 q5 took 0.008 for 0.0084; 06 q9's 0.88 for 0.875 had no note anywhere).
- 06 q8 is also asked about numpy arrays, so an answer that overwrites its argument fails.
- 08 q1 is also asked about filtered pandas columns, whose index is not 0..N-1.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from nbcourse.grading import specs
from submission_support import lost_marks, solved
from test_grading_marks_probes import REPO, SOURCE, check, grade_notebooks, graded


def _page(text: str) -> str:
    return text.replace("&#x27;", "'").replace("&quot;", '"').replace("&amp;", "&")


def _run_as_a_cell(code: str):
    """The answer defined as a student's harness runs a cell: ``exec``, no IPython, no file
    ``inspect`` could read it back from."""
    namespace = {"__name__": "__main__", "np": np}
    exec(compile(code, "<cell 7>", "exec"), namespace)  # noqa: S102 - the probe's own text
    return [v for k, v in namespace.items() if callable(v) and k != "helper"][-1]


def _replaced(notebook: dict, marker: str, source: str) -> dict:
    """``notebook`` with the code cell that holds ``marker`` replaced by ``source``."""
    cells = [c for c in notebook["cells"]
             if c["cell_type"] == "code" and marker in "".join(c["source"])]
    assert len(cells) == 1, marker
    cells[0]["source"] = source
    return notebook


# --------------------------------------------------------------------------- 07 q4
#: a wrong q3 that keeps only the words both tables have: the spec's swap of q4 is one
COMMON_WORDS_ONLY = specs.load("07_merging", SOURCE).question("q4").swaps[0].source

MONTHS = '''may = ["win cash now", "cash prize now", "lunch at noon", "lunch today", "call me today",
       "win prize draw", "see you at noon"]
june = ["cash offer now", "call now", "lunch at home", "home today", "win cash win",
        "prize offer today", "see you soon", "call home"]
'''

#: the student's own cell, right: each month's table, merged with merge_vocabularies
LOST_BY_MERGING = MONTHS + '''from nbcourse.text import BagOfWords

def month_table(msgs):
    bow = BagOfWords(min_df=2)
    X = bow.fit_transform(msgs)
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    return {"classes": ["all"], "class_count": [len(msgs)],
            "words": list(bow.get_feature_names_out()),
            "feature_count": [X.sum(axis=0).astype(int).tolist()]}

merged = merge_vocabularies(month_table(may), month_table(june))
whole = month_table(may + june)
got = dict(zip(merged["words"], merged["feature_count"][0]))
lost_occurrences = int(sum(n - got.get(w, 0) for w, n in zip(whole["words"], whole["feature_count"][0])))
'''

#: the answer typed in as a dict of per-word counts, summed
LOST_TYPED_AS_A_DICT = MONTHS + '''lost = {"see": 2, "you": 2, "win": 2, "prize": 1, "lunch": 1, "at": 1, "call": 1}
lost_occurrences = sum(lost.values())
'''


@pytest.fixture(scope="module")
def exercise_7(tmp_path_factory):
    def notebook(merge=None, lost=None):
        submission = solved("07_merging", SOURCE)
        if merge:
            _replaced(submission, "def merge_vocabularies", merge)
        if lost:
            _replaced(submission, "lost_occurrences =", lost)
        return submission
    notebooks = {"solution": notebook(),
                 "own_cell": notebook(lost=LOST_BY_MERGING),
                 "wrong_q3_own_cell": notebook(COMMON_WORDS_ONLY, LOST_BY_MERGING),
                 "typed_dict": notebook(lost=LOST_TYPED_AS_A_DICT)}
    return grade_notebooks("07_merging", notebooks, tmp_path_factory.mktemp("ex07"))


def test_the_solution_and_a_right_cell_keep_every_mark_of_exercise_7(exercise_7):
    rows, _ = exercise_7
    for who in ("solution", "own_cell"):
        assert not lost_marks(rows[who].values()), (who, lost_marks(rows[who].values()))


def test_a_right_lost_occurrences_cell_is_credited_when_merge_vocabularies_is_wrong(exercise_7):
    rows, pages = exercise_7
    row = rows["wrong_q3_own_cell"]
    assert row["q3"]["score"] < row["q3"]["points"]
    assert row["q4"]["score"] == 1, row["q4"]
    assert row["q4"]["follow_through"] == ["q3"]
    assert not any(n.startswith("hint: ") for n in row["q4"]["notes"]), row["q4"]["notes"]
    assert "Your `lost_occurrences` is right" in _page(pages["wrong_q3_own_cell"])


def test_lost_occurrences_typed_in_as_a_dict_earns_nothing(exercise_7):
    rows, pages = exercise_7
    assert rows["typed_dict"]["q4"]["score"] == 0, rows["typed_dict"]["q4"]
    assert "does not follow your `merge_vocabularies`" in _page(pages["typed_dict"])


def test_lost_occurrences_follows_merge_vocabularies_in_the_spec():
    question = specs.load("07_merging", SOURCE).question("q4")
    assert question.calls == ("merge_vocabularies",)
    assert question.swaps and question.swaps[0].reference() != question.reference()


# ------------------------------------------------------------- tolerances and rounding
@pytest.mark.parametrize("name", ["05_spam", "06_gaussian", "07_merging", "08_beyond_naive"])
def test_a_value_compared_more_loosely_than_the_default_says_why(name):
    for question in specs.load(name, SOURCE).questions:
        if question.kind == "value" and question.tolerance.looser:
            assert question.tolerance.reason.strip(), (name, question.id, question.tolerance)


FOLDS_A = np.array([0.817, 0.792, 0.850, 0.808, 0.783])
FOLDS_B = np.array([0.825, 0.800, 0.842, 0.825, 0.800])


def _habits(**change):
    habits = {"baseline": 270 / 600, "spread_a": float(np.std(FOLDS_A)),
              "mean_difference": float(np.mean(FOLDS_B - FOLDS_A)),
              "b_wins": int(np.sum(FOLDS_B > FOLDS_A))}
    return {**habits, **change}


@pytest.mark.parametrize("answer", [
    _habits(mean_difference=float(np.median(FOLDS_B - FOLDS_A))),  # 0.008: another statistic
    _habits(mean_difference=round(float(np.mean(FOLDS_B - FOLDS_A)), 3)),
    _habits(spread_a=round(float(np.std(FOLDS_A)), 3)),
])
def test_fold_habits_off_in_the_fourth_decimal_earns_nothing(answer):
    assert graded("08_beyond_naive", "q5", answer).score == 0
    assert graded("08_beyond_naive", "q5", _habits()).score == 1


def test_fold_habits_rounded_to_3_decimals_gets_the_rounding_note_in_check():
    report = check("08_beyond_naive", "q5", _habits(spread_a=round(float(np.std(FOLDS_A)), 3)))
    assert "has only 3 decimal places" in str(report)
    assert "decimal places" not in str(check("08_beyond_naive", "q5", _habits()))


def test_a_threshold_rounded_to_a_simple_share_gets_the_rounding_note():
    assert "has only 2 decimal places" in str(check("06_gaussian", "q9", 0.88))
    assert "decimal places" not in str(check("06_gaussian", "q9", 0.875))
    result = graded("06_gaussian", "q9", 0.88)
    assert result.score == 0
    assert any("only 2 decimal places" in case.message for case in result.cases if case.hidden)


FOLDS = '''acc_a = np.array([0.817, 0.792, 0.850, 0.808, 0.783])
acc_b = np.array([0.825, 0.800, 0.842, 0.825, 0.800])
'''
HABITS_ROUNDED = FOLDS + '''fold_habits = {"baseline": 270 / 600, "spread_a": round(float(np.std(acc_a)), 3),
               "mean_difference": float(np.mean(acc_b - acc_a)),
               "b_wins": int(np.sum(acc_b > acc_a))}
'''
HABITS_MEDIAN = FOLDS + '''fold_habits = {"baseline": 270 / 600, "spread_a": float(np.std(acc_a)),
               "mean_difference": float(np.median(acc_b - acc_a)),
               "b_wins": int(np.sum(acc_b > acc_a))}
'''

#: 06 q8: writes the posterior over the array it is given
OVERWRITES = '''def stable_posterior(log_scores):
    s = log_scores if isinstance(log_scores, np.ndarray) else np.asarray(log_scores, float)
    s -= s.max(axis=1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=1, keepdims=True)
    return s
'''

#: 08 q1: reads the rows by position, y[i]
BY_POSITION = '''import math
from collections import Counter

def conditional_mi(x_k, x_l, y):
    N = len(y)
    total = 0.0
    for c in set(y):
        rows = [i for i in range(N) if y[i] == c]
        Nc = len(rows)
        pairs = Counter((x_k[i], x_l[i]) for i in rows)
        cu = Counter(x_k[i] for i in rows); cv = Counter(x_l[i] for i in rows)
        for (u, v), n in pairs.items():
            total += n / N * math.log(n * Nc / (cu[u] * cv[v]))
    return float(total)
'''


def _probe_notebooks(name: str, probes: dict) -> dict:
    notebooks = {}
    for who, code in probes.items():
        notebook = solved(name, SOURCE)
        if code:
            notebook["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [],
                                      "execution_count": None, "id": "probe", "source": code})
        notebooks[who] = notebook
    return notebooks


@pytest.fixture(scope="module")
def exercise_8(tmp_path_factory):
    notebooks = _probe_notebooks("08_beyond_naive", {
        "solution": "", "rounded": HABITS_ROUNDED, "median": HABITS_MEDIAN,
        "by_position": BY_POSITION})
    return grade_notebooks("08_beyond_naive", notebooks, tmp_path_factory.mktemp("ex08"))


def test_the_grader_refuses_fold_habits_rounded_or_with_the_median(exercise_8):
    rows, pages = exercise_8
    assert not lost_marks(rows["solution"].values()), lost_marks(rows["solution"].values())
    for who in ("rounded", "median"):
        assert rows[who]["q5"]["score"] == 0, rows[who]["q5"]
    assert "your value has only 3 decimal places" in _page(pages["rounded"])


@pytest.fixture(scope="module")
def exercise_6(tmp_path_factory):
    notebooks = _probe_notebooks("06_gaussian", {
        "solution": "", "rounded": "spam_threshold = 0.88\n", "overwrites": OVERWRITES})
    return grade_notebooks("06_gaussian", notebooks, tmp_path_factory.mktemp("ex06"))


def test_the_feedback_page_says_a_threshold_of_0_88_is_rounded(exercise_6):
    rows, pages = exercise_6
    assert not lost_marks(rows["solution"].values()), lost_marks(rows["solution"].values())
    assert rows["rounded"]["q9"]["score"] == 0
    assert "your value has only 2 decimal places" in _page(pages["rounded"])


# ---------------- 06 q8: an array overwritten; 08 q1: filtered pandas columns read by position
@pytest.mark.parametrize("name, question, code, probe, words", [
    ("06_gaussian", "q8", OVERWRITES, "overwrites", "in place"),
    ("08_beyond_naive", "q1", BY_POSITION, "by_position", "zip(x_k, x_l, y)"),
])
def test_an_answer_right_only_on_fresh_lists_fails_in_check_and_at_grading(
        request, name, question, code, probe, words):
    answer = _run_as_a_cell(code)
    report = check(name, question, answer)
    assert not report.all_passed
    assert words in str(report)
    assert graded(name, question, answer).score < 2
    rows, pages = request.getfixturevalue("exercise_" + name[1])
    assert rows[probe][question]["score"] < rows[probe][question]["points"]
    assert words in _page(pages[probe])


# ------------------------------------------------ 07 q1: whole-valued floats, said so
def test_merge_counts_says_that_whole_valued_floats_are_counts():
    notebook = json.loads((REPO / "exercises" / "07_merging.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    assert "return them as whole numbers" not in text
    assert "floats with a whole value such as `9.0`" in text


# ------------------------------------- check() names a forbidden helper, outside IPython
FORBIDDEN_HELPERS = [
    ("02_smoothing", "q2", "beta_mode", '''def map_estimate(a, b, heads, tails):
    from nbcourse.smoothing import beta_mode
    return beta_mode(a + heads, b + tails, exact=True)
'''),
    ("05_spam", "q2", "accuracy_score", '''def fraction_correct(predicted, actual):
    from sklearn.metrics import accuracy_score
    return float(accuracy_score(list(actual), list(predicted)))
'''),
    ("06_gaussian", "q8", "logsumexp", '''def helper(s):
    from scipy.special import logsumexp
    return np.exp(s - logsumexp(s, axis=1, keepdims=True))

def stable_posterior(log_scores):
    return helper(np.array(log_scores, dtype=float))
'''),
    ("08_beyond_naive", "q3", "TfidfTransformer", '''def tfidf(counts):
    from sklearn.feature_extraction.text import TfidfTransformer
    return TfidfTransformer().fit_transform(counts).toarray()
'''),
]


@pytest.mark.parametrize("name, question, helper, code", FORBIDDEN_HELPERS)
def test_check_warns_about_a_forbidden_helper_it_can_only_see_compiled(name, question, helper,
                                                                       code):
    from nbcourse.grading.selfcheck import Checker
    answer = _run_as_a_cell(code)
    report = str(Checker(name, REPO / "exercises" / f"{name}.checks.json").run(question, answer))
    assert f"uses {helper} (itself or through a function or variable it uses)" in report
    assert "earn no points" in report


def test_check_does_not_flag_a_helper_of_the_students_own_that_shares_a_forbidden_name():
    from nbcourse.grading.selfcheck import Checker
    answer = _run_as_a_cell('''def logsumexp(s):
    m = s.max(axis=1, keepdims=True)
    return m + np.log(np.exp(s - m).sum(axis=1, keepdims=True))

def stable_posterior(log_scores):
    s = np.array(log_scores, dtype=float)
    return np.exp(s - logsumexp(s))
''')
    report = Checker("06_gaussian", REPO / "exercises" / "06_gaussian.checks.json").run(
        "q8", answer)
    assert report.flags == [] and report.all_passed, str(report)


# ------------------------- 05: a flag's note on the callers, case hints that fit the failure
ACCURACY_BY_SKLEARN = '''def fraction_correct(y_true, y_pred):
    from sklearn.metrics import accuracy_score
    return float(accuracy_score(list(y_true), list(y_pred)))
'''

CHOSEN_ON_TRAINING = '''def choose_alpha(X_train, y_train, X_validation, y_validation, alphas):
    best_alpha, best_accuracy = None, -1.0
    for alpha in alphas:
        candidate = MultinomialNB(alpha=alpha).fit(X_train, y_train)
        accuracy = fraction_correct(y_train, candidate.predict(X_train))
        if accuracy > best_accuracy:
            best_alpha, best_accuracy = alpha, accuracy
    return best_alpha
'''

REFIT_ON_TRAIN_AND_VALIDATION = '''def spam_experiment(texts, labels, alphas, seed):
    import scipy.sparse as sp
    texts, labels = list(texts), np.asarray(labels)
    train, validation, test = split_indices(len(texts), seed)
    vectorizer = BagOfWords()
    X_train = vectorizer.fit_transform([texts[i] for i in train])
    X_validation = vectorizer.transform([texts[i] for i in validation])
    X_test = vectorizer.transform([texts[i] for i in test])
    best = choose_alpha(X_train, labels[train], X_validation, labels[validation], alphas)
    stack = sp.vstack if sp.issparse(X_train) else np.vstack
    final_model = MultinomialNB(alpha=best).fit(stack([X_train, X_validation]),
                                                np.concatenate([labels[train], labels[validation]]))
    return best, fraction_correct(labels[test], final_model.predict(X_test))
'''


@pytest.fixture(scope="module")
def exercise_5(tmp_path_factory):
    def notebook(marker, source):
        return _replaced(solved("05_spam", SOURCE), marker, source)
    notebooks = {"flagged_q2": notebook("def fraction_correct", ACCURACY_BY_SKLEARN),
                 "wrong_q3": notebook("def choose_alpha", CHOSEN_ON_TRAINING),
                 "refit": notebook("def spam_experiment", REFIT_ON_TRAIN_AND_VALIDATION)}
    return grade_notebooks("05_spam", notebooks, tmp_path_factory.mktemp("ex05"))


def test_a_flag_costs_the_flagged_function_alone(exercise_5):
    """A forbidden helper in q2 flags q2; q3-q6, right with the right q2 in place, keep
    their points (follow-through), as the callers of a wrong q2 do (issue 34: one forbidden
    call cost every caller's points)."""
    rows, pages = exercise_5
    row = rows["flagged_q2"]
    assert row["q2"]["score"] == 0 and row["q2"]["flags"]
    for qid in ("q3", "q4", "q5", "q6"):
        assert row[qid]["score"] == row[qid]["points"] and not row[qid]["flags"], row[qid]
    assert "flagged for the same name" not in _page(pages["flagged_q2"])
    assert "fraction_correct" in _page(pages["flagged_q2"])


def test_case_hints_are_not_shown_for_a_known_mistake_or_a_follow_through_credit(exercise_5):
    rows, pages = exercise_5
    refit = rows["refit"]["q4"]
    assert refit["score"] < refit["points"] and refit["notes"]
    assert "Known mistake (the final model fitted on training + validation)" in \
        _page(pages["refit"])
    assert "split with the seed you are given" not in _page(pages["refit"])
    assert not any(case.get("hint") for case in refit["cases"] if not case["passed"]), refit
    credited = rows["wrong_q3"]["q4"]
    assert credited["follow_through"] == ["q3"], credited
    assert not any(case.get("hint") for case in credited["cases"]), credited
    assert "fit the final model on the training part only" not in _page(pages["wrong_q3"])
