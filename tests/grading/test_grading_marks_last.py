"""Issue 34, last leftovers: probes through ``check()`` and through the sandboxed grader.

- 03 q5: ``X`` may be a list of lists, as the question says; an answer that empties that
  list after use, or that only indexes numpy arrays, kept full marks when every case was
  an array.
- 01 q2: joint scores as a Series or as ``joint_proba``'s one-row DataFrame passed q2 and
  then broke the student's own ``predict`` and ``p_no``; q2 now refuses them with the
  conversion, and follow-through marking keeps q3 and q4.
- 01 q1-q3 and 02 q5: an answer that reads the class from "play" whenever the table has
  that column kept full marks (every case on the weather table asked about "play").
- A sweep of wrong answers a student could write for the questions with the fewest hidden
  cases: none gets full marks.
"""
from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from submission_support import lost_marks
from test_grading_marks_probes import SOURCE, _module, check, grade_probes, graded


# ------------------------------------------------------------------ 03 q5: lists of lists
def _word_shares(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    return {label: (X[y == label].sum(axis=0) / X[y == label].sum()).tolist()
            for label in np.unique(y)}


def words_then_clear_a_list(X, y):
    result = _word_shares(X, y)
    if isinstance(X, list):
        X.clear()  # "done with it"
    return result


def words_for_arrays_only(X, y):
    y = np.asarray(y)
    result = {}
    for label in np.unique(y):
        counts = X[y == label].sum(axis=0)  # a list of lists cannot be indexed by a mask
        result[label] = (counts / counts.sum()).tolist()
    return result


@pytest.mark.parametrize("answer", [words_then_clear_a_list, words_for_arrays_only])
def test_word_probabilities_are_also_asked_of_a_list_of_lists(answer):
    report = check("03_mle", "q5", answer)
    assert not report.all_passed
    assert "counts as a list of lists" in str(report)
    result = graded("03_mle", "q5", answer)
    assert result.score < result.points
    assert any(not c.passed for c in result.cases if c.hidden)


def test_word_probabilities_from_lists_or_arrays_keep_every_mark():
    assert check("03_mle", "q5", _word_shares).all_passed
    assert graded("03_mle", "q5", _word_shares).score == 2


CLEAR_A_LIST = '''
def word_probabilities(X, y):
    Xa, ya = np.asarray(X, dtype=float), np.asarray(y)
    result = {label: (Xa[ya == label].sum(axis=0) / Xa[ya == label].sum()).tolist()
              for label in np.unique(ya)}
    if isinstance(X, list):
        X.clear()
    return result
'''


def test_the_grader_marks_down_an_answer_that_empties_a_list_it_is_given(tmp_path):
    rows, pages = grade_probes("03_mle", {"solution": "", "clears": CLEAR_A_LIST}, tmp_path)
    assert not lost_marks(rows["solution"].values()), lost_marks(rows["solution"].values())
    assert rows["clears"]["q5"]["score"] < rows["clears"]["q5"]["points"]
    assert "changed its argument 1 (of 2) in place" in pages["clears"]


# ---------------------------------------------------- 01 q2: a Series or a one-row frame
def _scores_series(table, query, target):
    return pd.Series(_module("01_weather").ref_joint_scores(table, query, target))


def _scores_frame(table, query, target):
    return pd.DataFrame([_scores_series(table, query, target)])


@pytest.mark.parametrize("answer, conversion", [(_scores_series, "series.to_dict()"),
                                                (_scores_frame, "frame.iloc[0].to_dict()")])
def test_joint_scores_in_pandas_are_refused_with_the_conversion(answer, conversion):
    said = str(check("01_weather", "q2", answer))
    assert conversion in said and "`predict` (q3) and `p_no` (q4)" in said
    assert "start from the prior" not in said  # a form, not a wrong computation
    assert graded("01_weather", "q2", answer).score == 0


def test_joint_scores_as_a_dict_of_floats_or_fractions_keep_every_mark():
    weather = _module("01_weather")

    def floats(table, query, target):
        return {k: float(v) for k, v in weather.ref_joint_scores(table, query, target).items()}

    for answer in (weather.ref_joint_scores, floats):
        assert check("01_weather", "q2", answer).all_passed
        assert graded("01_weather", "q2", answer).score == 3


def _solution_of(name: str, function: str) -> str:
    """The instructor's code of ``function`` in exercise ``name``'s source notebook."""
    notebook = json.loads((SOURCE / f"{name}.ipynb").read_text(encoding="utf-8"))
    text = next("".join(cell["source"]) for cell in notebook["cells"]
                if "".join(cell["source"]).startswith(f"def {function}("))
    return "\n".join(line for line in text.splitlines() if "### " not in line) + "\n"


# the solution's joint_scores, returning a Series; the solution's predict (which calls it)
# is kept, and p_no is computed again from it, as the student's own cell would be (it
# raises there, and p_no is left undefined)
SCORES_AS_SERIES = _solution_of("01_weather", "joint_scores").replace(
    "    return scores\n", "    return pd.Series(scores)\n") + \
    'del p_no\nlesson_scores = joint_scores(weather, lesson_day, "play")\n' \
    'p_no = lesson_scores["no"] / sum(lesson_scores.values())\n'

SCORES_AS_FRAME = SCORES_AS_SERIES.replace("return pd.Series(scores)",
                                           "return pd.DataFrame([scores])")


def test_the_grader_refuses_pandas_scores_and_keeps_the_questions_that_use_them(tmp_path):
    """q3 and q4 are written for a dict, as q2 asks: with q2's form refused they are
    marked with the right joint_scores in place (follow-through).  And the answers that
    read "play" whenever the table has it lose marks at grading too."""
    rows, pages = grade_probes("01_weather", {"series": SCORES_AS_SERIES,
                                              "frame": SCORES_AS_FRAME,
                                              "play": PLAY_IF_PRESENT}, tmp_path)
    for question in ("q1", "q2"):
        assert rows["play"][question]["score"] < rows["play"][question]["points"], \
            rows["play"][question]
    # predict itself only takes the largest score: right with the right joint_scores
    assert "q2" in rows["play"]["q3"]["follow_through"], rows["play"]["q3"]
    for probe, conversion in (("series", "series.to_dict()"),
                              ("frame", "frame.iloc[0].to_dict()")):
        assert rows[probe]["q2"]["score"] == 0, rows[probe]["q2"]
        for question in ("q1", "q3", "q4", "q5"):
            assert rows[probe][question]["score"] == rows[probe][question]["points"], \
                (probe, rows[probe][question])
        assert conversion in pages[probe]


# ------------------------------------------- 01: the class column read as "play" if present
PLAY_IF_PRESENT = '''
def _class_column(table, target):
    return "play" if "play" in table else target  # "the weather's class is play"


def likelihood(table, feature, value, target, label):
    rows = table[table[_class_column(table, target)] == label]
    return Fraction(int((rows[feature] == value).sum()), len(rows))


def joint_scores(table, query, target):
    target = _class_column(table, target)
    scores = {}
    for label in table[target].unique():
        rows = table[table[target] == label]
        score = Fraction(len(rows), len(table))
        for feature, value in query.items():
            score *= Fraction(int((rows[feature] == value).sum()), len(rows))
        scores[label] = score
    return scores


def predict(table, query, target):
    scores = joint_scores(table, query, target)
    return max(scores, key=scores.get)
'''


def _play_if_present():
    namespace: dict = {"Fraction": Fraction}
    exec(PLAY_IF_PRESENT, namespace)  # noqa: S102 - the student's code
    return namespace


@pytest.mark.parametrize("question, name", [("q1", "likelihood"), ("q2", "joint_scores"),
                                            ("q3", "predict")])
def test_a_class_column_read_as_play_whenever_the_table_has_one_loses_marks(question, name):
    result = graded("01_weather", question, _play_if_present()[name])
    assert result.score < result.points, (question, result.score)
    assert any(not c.passed and "as the class" in c.name for c in result.cases)


def test_a_smoothed_likelihood_that_reads_play_whenever_the_table_has_it_loses_marks():
    def smoothed_play_if_present(table, feature, value, target, label, alpha):
        rows = table[table["play" if "play" in table else target] == label]
        return (int((rows[feature] == value).sum()) + alpha) / \
            (len(rows) + alpha * table[feature].nunique())

    result = graded("02_smoothing", "q5", smoothed_play_if_present)
    assert result.score < result.points
    assert [c.name for c in result.cases if not c.passed] == [
        "the weather table with windy as the class"]


# ------------------------------------------------------ the sweep: none gets full marks
def _split(n, seed, first=lambda n: int(0.8 * n)):
    order = np.random.default_rng(seed).permutation(n)
    cut = first(n)
    return [order[:cut].tolist(), order[cut:cut + int(0.1 * n)].tolist(),
            order[cut + int(0.1 * n):].tolist()]


def _quadratic(variances):
    v0, v1 = np.asarray(variances[0], dtype=float), np.asarray(variances[1], dtype=float)
    return 1 / (2 * v0) - 1 / (2 * v1)


def _sweep():
    merging, beyond = _module("07_merging"), _module("08_beyond_naive")
    spam = _module("05_spam")

    def merged_with_first_counts(a, b):
        merged = merging.ref_merge_vocabularies(a, b)
        merged["class_count"] = list(a["class_count"])
        return merged

    def complement_normalised(feature_count, alpha):
        w = np.asarray(beyond.ref_complement_weights(feature_count, alpha))
        return (w / np.abs(w).sum(axis=1, keepdims=True)).tolist()

    def complement_alpha_once(feature_count, alpha):
        counts = np.asarray(feature_count, dtype=float)
        other = counts.sum(axis=0) - counts
        return (-np.log((other + alpha) / (other.sum(axis=1, keepdims=True) + alpha))).tolist()

    def complement_averaged(feature_count, alpha):
        counts = np.asarray(feature_count, dtype=float)
        other = (counts.sum(axis=0) - counts) / (len(counts) - 1)  # the others' mean
        return (-np.log((other + alpha) / (other + alpha).sum(axis=1, keepdims=True))).tolist()

    def merged_two_classes(a, b):
        merged = merging.ref_merge_vocabularies(a, b)
        return {key: (value[:2] if key != "words" else value) for key, value in merged.items()}

    def merged_in_order_met(a, b):
        words = list(a["words"]) + [w for w in b["words"] if w not in a["words"]]
        merged = merging.ref_merge_vocabularies(a, b)
        keep = [merged["words"].index(w) for w in words]
        return {**merged, "words": words,
                "feature_count": [[row[j] for j in keep] for row in merged["feature_count"]]}

    def first_two_labels(table, query, target):
        scores = weather.ref_joint_scores(table, query, target)
        return {label: scores[label] for label in sorted(scores)[:2]}

    def means_variances(epsilon):
        def answer(X, y, var_smoothing):
            X, y = np.asarray(X, dtype=float), np.asarray(y)
            X = X[:, None] if X.ndim == 1 else X
            extra = epsilon(X, var_smoothing)
            return ([X[y == c].mean(axis=0).tolist() for c in np.unique(y)],
                    [(X[y == c].var(axis=0) + extra).tolist() for c in np.unique(y)])
        return answer

    def log_scores_without_2_pi(means, variances, priors, x):
        m, v, x = (np.asarray(a, dtype=float) for a in (means, variances, x))
        return (np.log(np.asarray(priors, dtype=float))
                + (-0.5 * np.log(v) - (x - m) ** 2 / (2 * v)).sum(axis=1)).tolist()

    def bernoulli(present_only=False, classes=None):
        def answer(class_prior, p, b):
            prior, p, b = (np.asarray(a, dtype=float) for a in (class_prior, p, b))
            absent = 0 if present_only else (1 - b) * np.log(1 - p)
            return (np.log(prior) + (b * np.log(p) + absent).sum(axis=1))[:classes].tolist()
        return answer

    def weights_w0_absolute(class_log_prior, feature_log_prob):
        c, f = np.asarray(class_log_prior), np.asarray(feature_log_prob)
        return [float(abs(c[1] - c[0])), (f[1] - f[0]).tolist()]

    weather = _module("01_weather")
    return [
        ("01_weather", "q1", lambda *args: round(float(weather.ref_likelihood(*args)), 3)),
        ("01_weather", "q2", first_two_labels),
        ("01_weather", "q2", lambda *args: {k: round(float(v), 4) for k, v in
                                            weather.ref_joint_scores(*args).items()}),
        ("02_smoothing", "q1", lambda a, b, h, t: [int(a) + h, int(b) + t]),
        ("02_smoothing", "q7", lambda n, c, m, q: (n + m * q) / (c + m) if c else 0),
        ("02_smoothing", "q8", lambda v, k: [1 + 2 * sum(x - 1 for x in v),
                                             int(np.prod(v)) * 2 - 1]),
        ("02_smoothing", "q2", lambda a, b, h, t: round(float(Fraction(a + h - 1,
                                                                        a + b + h + t - 2)), 4)),
        ("03_mle", "q4", lambda labels: {str(k): labels.count(k) / len(labels)
                                          for k in set(labels)}),
        ("03_mle", "q4", lambda labels: {k: round(labels.count(k) / len(labels), 2)
                                          for k in set(labels)}),
        ("05_spam", "q1", lambda n, seed: _split(n, seed, lambda n: int(np.ceil(0.8 * n)))),
        ("05_spam", "q1", lambda n, seed: _split(n, seed, lambda n: n - 2 * int(0.1 * n))),
        ("05_spam", "q3", lambda *args: args[-1][-1]),
        ("05_spam", "q3", lambda *args: 1.0),
        ("05_spam", "q3", lambda *args: spam.ref_choose_alpha(*args[:4], sorted(args[4])[:2])),
        ("04_linearity", "q1", weights_w0_absolute),
        ("04_linearity", "q6", bernoulli(present_only=True)),
        ("04_linearity", "q6", bernoulli(classes=2)),
        ("05_spam", "q2", lambda t, p: round(float(np.mean(np.asarray(t) == np.asarray(p))), 2)),
        ("06_gaussian", "q1", means_variances(lambda X, s: s)),
        ("06_gaussian", "q1", means_variances(lambda X, s: s * X.var())),
        ("06_gaussian", "q1", means_variances(lambda X, s: s * X.std(axis=0).max())),
        ("06_gaussian", "q2", log_scores_without_2_pi),
        ("06_gaussian", "q4", lambda v: np.abs(_quadratic(v)).tolist()),
        ("06_gaussian", "q4", lambda v: _quadratic(v)[:2].tolist()),
        ("06_gaussian", "q4", lambda v: _quadratic(v).round(3).tolist()),
        ("07_merging", "q3", merged_with_first_counts),
        ("07_merging", "q3", merged_two_classes),
        ("07_merging", "q3", merged_in_order_met),
        ("08_beyond_naive", "q2", complement_normalised),
        ("08_beyond_naive", "q2", complement_alpha_once),
        ("08_beyond_naive", "q2", complement_averaged),
    ]


SWEEP = _sweep()


@pytest.mark.parametrize("index", range(len(SWEEP)),
                         ids=[f"{name}-{question}-{i}" for i, (name, question, _) in
                              enumerate(SWEEP)])
def test_no_wrong_answer_of_the_sweep_gets_full_marks(index):
    name, question, answer = SWEEP[index]
    result = graded(name, question, answer)
    assert result.score < result.points, (name, question, result.score)
