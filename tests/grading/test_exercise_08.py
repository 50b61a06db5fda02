"""Exercise 08 (beyond naive Bayes): its expected values are scikit-learn's and nbcourse's,
and its public checks tell a right answer from the wrong ones students write.

What a student would notice if it broke: a check mark for a wrong answer, a right answer
rejected, an expected value that differs from what scikit-learn computes for the same
thing, or a count of good words after which the filter still says spam.
"""
from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import nbformat
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfTransformer as SkTfidf
from sklearn.metrics import mutual_info_score
from sklearn.naive_bayes import ComplementNB as SkComplementNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from nbcourse.grading import check_for, specs
from nbcourse.grading.hidden import grade_question
from nbcourse.naive_bayes import ComplementNB
from nbcourse.text import TfidfTransformer

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "exercises" / "source"
NAME = "08_beyond_naive"
EXERCISE = specs.load(NAME, SOURCE)


def _cases(question_id):
    question = EXERCISE.question(question_id)
    return [pytest.param(case, expected, id=case.name)
            for case, expected in zip(question.cases, question.expected())]


def _spec_module():
    import importlib.util
    path = SOURCE / f"{NAME}{specs.SPEC_SUFFIX}"
    module_spec = importlib.util.spec_from_file_location("spec_08", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------ the expected values are right
@pytest.mark.parametrize("case, expected", _cases("q1"))
def test_q1_is_sklearns_mutual_information_per_class_weighted_by_its_share(case, expected):
    x_k, x_l, y = (np.asarray(column, dtype=object).astype(str) for column in case.args)
    classes, sizes = np.unique(y, return_counts=True)
    weighted = sum(size / len(y) * mutual_info_score(x_k[y == c], x_l[y == c])
                   for c, size in zip(classes, sizes))
    assert expected == pytest.approx(weighted, rel=1e-12, abs=1e-12)


def test_q1_tells_conditional_from_marginal_dependence():
    """The two public cases the lesson's point rests on: XOR is dependent only given the
    class, the other pair only without it."""
    xor, _, independent = [case.args for case in EXERCISE.question("q1").cases[:3]]
    assert mutual_info_score(xor[0], xor[1]) == pytest.approx(0, abs=1e-12)
    assert EXERCISE.question("q1").reference(*xor) == pytest.approx(math.log(2))
    assert mutual_info_score(independent[0], independent[1]) > 0.01
    assert EXERCISE.question("q1").reference(*independent) == pytest.approx(0, abs=1e-12)


@pytest.mark.parametrize("case, expected", _cases("q2"))
def test_q2_is_complement_nbs_feature_log_prob_in_sklearn_and_nbcourse(case, expected):
    table, alpha = case.args
    table = np.asarray(table, dtype=float)
    y = np.arange(table.shape[0])  # one "document" per class, holding that class's counts
    ours = ComplementNB(alpha=alpha, norm=False).fit(table, y).feature_log_prob_
    theirs = SkComplementNB(alpha=alpha, norm=False).fit(table, y).feature_log_prob_
    np.testing.assert_allclose(expected, theirs, rtol=1e-12)
    np.testing.assert_allclose(expected, ours, rtol=1e-12)


@pytest.mark.parametrize("case, expected", _cases("q3"))
def test_q3_is_tfidf_with_sklearns_defaults_in_sklearn_and_nbcourse(case, expected):
    counts, = case.args
    theirs = SkTfidf().fit_transform(counts).toarray()
    ours = TfidfTransformer().fit_transform(counts).toarray()
    np.testing.assert_allclose(expected, theirs, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(expected, ours, rtol=1e-12, atol=1e-15)


def _predict(x, log_prior, table):
    """The decision of a two-class multinomial naive Bayes: argmax, ties to ham (row 0)."""
    scores = np.asarray(log_prior) + np.asarray(table) @ np.asarray(x, dtype=float)
    return ["ham", "spam"][int(np.argmax(scores))]


@pytest.mark.parametrize("case, expected", _cases("q4"))
def test_q4_the_count_flips_the_message_and_one_fewer_does_not(case, expected):
    x, log_prior, table = case.args
    table = np.asarray(table, dtype=float)
    word = int(np.argmax(table[0] - table[1]))
    attacked = np.array(x, dtype=float)  # a copy: x may be the case's own float array
    attacked[word] += expected
    assert _predict(attacked, log_prior, table) == "ham"
    if expected > 0:
        attacked[word] -= 1
        assert _predict(attacked, log_prior, table) == "spam"
    # exact, or far from a tie, so no processor's last digit can change the count
    spec = _spec_module()
    ratio = spec._spam_margin(x, log_prior, table) / spec._gain(table)
    if not _exact(x, log_prior, table):
        assert abs(ratio - round(ratio)) > 1e-3, case.name


def _exact(x, log_prior, table):
    """Whether s and the gain are computed without rounding: whole counts and logarithms
    on the spec's 2**-14 grid, small enough that every sum and product of them is exact."""
    spec = _spec_module()
    grid = [Fraction(v) / Fraction(spec.TIE_GRID) for v in [*log_prior, *np.ravel(table)]]
    return all(isinstance(n, int) and 0 <= n < 1000 for n in x) and \
        all(g.denominator == 1 and abs(g) < 2 ** 20 for g in grid)


def _exact_ratio(x, log_prior, table):
    """s / gain in exact rational arithmetic."""
    table = [[Fraction(v) for v in row] for row in table]
    s = Fraction(log_prior[1]) - Fraction(log_prior[0]) + sum(
        n * (spam - ham) for n, ham, spam in zip(x, *table))
    return s / max(ham - spam for ham, spam in zip(*table))


def test_q4_has_exact_ties_public_and_hidden_and_floats_agree_with_exact_arithmetic():
    """The prose says a tie goes to ham: a public and a hidden case end in an exact tie
    (s = 3 gain, s = 0), built from numbers whose arithmetic no CPU rounds."""
    spec = _spec_module()
    question = EXERCISE.question("q4")
    ties = {}
    for case, expected in zip(question.cases, question.expected()):
        if not _exact(*case.args):
            continue
        ratio = _exact_ratio(*case.args)
        x, log_prior, table = case.args
        # the float computation of the spec (and of a student) gives the exact values
        assert Fraction(spec._spam_margin(x, log_prior, table)) == \
            ratio * Fraction(spec._gain(table)), case.name
        assert ratio.denominator == 1 and expected == max(0, int(ratio)), case.name
        ties[case.hidden] = ties.get(case.hidden, set()) | {int(ratio)}
    assert ties == {False: {3}, True: {0}}


def test_q4_the_toy_filter_is_sklearns_and_nbcourses_model_and_the_attack_works_on_it():
    from nbcourse import MultinomialNB
    from nbcourse.text import BagOfWords
    spec = _spec_module()
    words = BagOfWords().fit(spec.SPAM_TEXTS)
    X = words.transform(spec.SPAM_TEXTS)
    ours = MultinomialNB(alpha=1.0).fit(X, spec.SPAM_LABELS)
    theirs = SkMultinomialNB(alpha=1.0).fit(X, spec.SPAM_LABELS)
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, rtol=1e-12)
    case = EXERCISE.question("q4").cases[0]
    x, log_prior, table = case.args
    np.testing.assert_allclose(table, theirs.feature_log_prob_, atol=5e-5)  # rounded inputs
    needed = EXERCISE.question("q4").reference(*case.args)
    best = int(np.argmax(theirs.feature_log_prob_[0] - theirs.feature_log_prob_[1]))
    assert words.get_feature_names_out()[best] == "at"
    for copies, says in ((needed - 1, "spam"), (needed, "ham")):
        attacked = np.asarray(x).copy()
        attacked[best] += copies
        assert theirs.predict(attacked[None, :])[0] == says
        assert ours.predict(attacked[None, :])[0] == says


# ------------------------------------------------------------ check() tells right from wrong
# Answers as students write them (not the spec's own references).
def _cmi(x_k, x_l, y, log=math.log, weight=True, within_class=True):
    x_k, x_l, y = (list(np.asarray(v, dtype=object)) for v in (x_k, x_l, y))
    if not within_class:
        y = [0] * len(y)
    total = 0.0
    for c in sorted(set(y), key=str):
        rows = [i for i in range(len(y)) if y[i] == c]
        n = len(rows)
        value = 0.0
        for a in set(x_k[i] for i in rows):
            for b in set(x_l[i] for i in rows):
                both = sum(1 for i in rows if x_k[i] == a and x_l[i] == b)
                if both:
                    p_a = sum(1 for i in rows if x_k[i] == a) / n
                    p_b = sum(1 for i in rows if x_l[i] == b) / n
                    value += both / n * log(both / n / (p_a * p_b))
        total += value * (n / len(y) if weight else 1)
    return total


def _complement(table, alpha, own=False, sign=-1, alpha_below=True, norm=False):
    table = np.asarray(table, dtype=float)
    rows = []
    for c in range(table.shape[0]):
        counts = table[c] if own else table.sum(axis=0) - table[c]
        below = counts.sum() + (alpha * table.shape[1] if alpha_below else 0)
        rows.append(sign * np.log((counts + alpha) / below))
    weights = np.array(rows)
    return weights / weights.sum(axis=1, keepdims=True) if norm else weights


def _tfidf(counts, smooth=True, plus_one=True, df_occurrences=False, norm="l2"):
    z = counts.toarray() if sp.issparse(counts) else np.array(counts, dtype=float)
    n = z.shape[0]
    df = z.sum(axis=0) if df_occurrences else (z > 0).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        idf = np.log((n + smooth) / (df + smooth)) + (1 if plus_one else 0)
        t = z * idf
        if norm is None:
            return t
        length = np.sqrt((t ** 2).sum(axis=1)) if norm == "l2" else t.sum(axis=1)
        return t / np.where(length == 0, 1, length)[:, None]


def _good_words(x, log_prior, table, choose="difference", prior=True, counts=True,
                rounding=math.ceil):
    table = np.asarray(table)
    x = np.asarray(x) if counts else (np.asarray(x) > 0).astype(int)
    s = (log_prior[1] - log_prior[0] if prior else 0) + x @ (table[1] - table[0])
    word = {"difference": np.argmax(table[0] - table[1]), "ham": np.argmax(table[0]),
            "spam": np.argmin(table[1])}[choose]
    return max(0, rounding(s / (table[0, word] - table[1, word]))) if s > 0 else 0


def _score(x, log_prior, table):
    table = np.asarray(table, dtype=float)
    return log_prior[1] - log_prior[0] + np.asarray(x, dtype=float) @ (table[1] - table[0])


def _best_gain(table):
    return float(np.max(np.asarray(table)[0] - np.asarray(table)[1]))


def _good_words_loop(x, log_prior, table, stop_at_tie=True):
    s, gain, copies = _score(x, log_prior, table), _best_gain(table), 0
    while s > 0 if stop_at_tie else s >= 0:
        s -= gain
        copies += 1
    return copies


WRONG = [  # question, a student's wrong answer, the mistake check() must name
    ("q1", lambda *a: _cmi(*a, log=math.log2), "in bits, not nats"),
    ("q1", lambda *a: _cmi(*a, within_class=False), "the class left out"),
    ("q1", lambda *a: _cmi(*a, weight=False), "per-class values summed, not weighted"),
    ("q1", lambda *a: _cmi(*a, weight=False) / len(set(map(str, a[2]))),
     "per-class values averaged, not weighted"),
    ("q2", lambda t, a: _complement(t, a, own=True), "counts taken from the class itself"),
    ("q2", lambda t, a: _complement(t, a, sign=1), "the minus sign left out"),
    ("q2", lambda t, a: _complement(t, a, alpha_below=False), "alpha only above the bar"),
    ("q2", lambda t, a: _complement(t, a, norm=True), "weights normalised (norm=True)"),
    ("q2", lambda t, a: np.tile(-np.log((np.sum(t, axis=0) + a) /
                                        (np.sum(t) + a * np.shape(t)[1])), (len(t), 1)),
     "every class's counts, the class's own included"),
    ("q3", lambda z: _tfidf(z, smooth=False), "idf without smoothing"),
    ("q3", lambda z: _tfidf(z, plus_one=False), "idf without the + 1"),
    ("q3", lambda z: _tfidf(z, smooth=False, plus_one=False), "the textbook idf ln(N / df)"),
    ("q3", lambda z: _tfidf(z, df_occurrences=True), "occurrences counted for df"),
    ("q3", lambda z: _tfidf(z, norm=None), "rows not normalised"),
    ("q3", lambda z: _tfidf(z, norm="l1"), "l1 instead of l2"),
    ("q4", lambda *a: _good_words(*a, rounding=math.floor), "one word short"),
    ("q4", lambda *a: _good_words(*a, choose="ham"), "the word ham uses most"),
    ("q4", lambda *a: _good_words(*a, choose="spam"), "the word spam uses least"),
    ("q4", lambda *a: _good_words(*a, prior=False), "the class prior left out"),
    ("q4", lambda *a: _good_words(*a, counts=False), "each word counted once"),
    # the student's report: each passed check() before the tie, the message already ham
    # and the fraction below 0.5 had public cases
    ("q4", lambda *a: _good_words_loop(*a, stop_at_tie=False),
     "a tie counted as spam (s >= 0 instead of s > 0)"),
    ("q4", lambda *a: max(0, int(_score(*a) // _best_gain(a[2])) + 1),
     "a tie counted as spam (s >= 0 instead of s > 0)"),
    ("q4", lambda *a: int(_score(*a) / _best_gain(a[2])) + 1,
     "a tie counted as spam (s >= 0 instead of s > 0)"),
    ("q4", lambda *a: int(round(_score(*a) / _best_gain(a[2]))),
     "rounded to the nearest whole number"),
    ("q4", lambda *a: max(0, int(round(_score(*a) / _best_gain(a[2])))),
     "rounded to the nearest whole number"),
    ("q4", lambda *a: math.ceil(_score(*a) / _best_gain(a[2])),
     "a negative count for a message already ham"),
]


@pytest.mark.parametrize("question, wrong, says", WRONG, ids=[w[2] for w in WRONG])
def test_a_common_mistake_fails_the_public_check_and_is_named(question, wrong, says):
    report = check_for(NAME).run(question, wrong, sources=[])
    assert not report.all_passed, str(report)
    assert report.mistakes == [says], str(report)
    feedback = next(m.feedback for m in EXERCISE.question(question).mistakes if m.name == says)
    assert feedback in str(report)


@pytest.mark.parametrize("question, wrong, says", WRONG, ids=[w[2] for w in WRONG])
def test_a_common_mistake_loses_points_at_grading(question, wrong, says):
    result = grade_question(EXERCISE.question(question), wrong)
    assert result.score < result.points and says in result.mistakes, str(result)


def test_every_known_mistake_of_the_spec_is_among_those_a_student_wrote():
    written = {(question, says) for question, _, says in WRONG}
    spec = {(q.id, m.name) for q in EXERCISE.questions if q.kind == "function"
            for m in q.mistakes}
    assert spec == written


RIGHT = [  # right answers in other forms than the solution's
    ("q1", lambda *a: _cmi(*a)),
    ("q1", lambda x_k, x_l, y: sum(
        np.mean(np.asarray(y) == c) * mutual_info_score(np.asarray(x_k)[np.asarray(y) == c],
                                                        np.asarray(x_l)[np.asarray(y) == c])
        for c in set(y))),
    ("q2", lambda t, a: _complement(t, a).tolist()),
    ("q3", lambda z: sp.csr_matrix(_tfidf(z))),  # a sparse answer, as scikit-learn gives
    ("q3", lambda z: _tfidf(z).tolist()),
    ("q4", lambda *a: np.int64(_good_words(*a))),
    ("q4", _good_words_loop),  # the loop of the prose, ties to ham
]


@pytest.mark.parametrize("question, right", RIGHT)
def test_a_right_answer_in_another_form_passes(question, right):
    report = check_for(NAME).run(question, right, sources=[])
    assert report.all_passed, str(report)


def test_a_count_of_good_words_as_a_whole_float_is_right():
    """np.ceil gives 5.0: a whole number as a float is that count (one rule, issue 34)."""
    as_float = lambda *a: float(_good_words(*a))  # noqa: E731
    assert check_for(NAME).run("q4", as_float, sources=[]).all_passed
    question = EXERCISE.question("q4")
    assert grade_question(question, as_float).score == question.points


def test_tfidf_dividing_an_empty_document_by_zero_fails_the_public_check_with_the_hint():
    def nan_row(z):
        z = z.toarray() if sp.issparse(z) else np.array(z, dtype=float)
        t = z * (np.log((1 + len(z)) / (1 + (z > 0).sum(axis=0))) + 1)
        with np.errstate(invalid="ignore"):
            return t / np.sqrt((t ** 2).sum(axis=1))[:, None]
    report = str(check_for(NAME).run("q3", nan_row, sources=[]))
    assert "✘ a document with no words at all" in report
    assert "0 / 0 is NaN" in report


def test_dense_only_tfidf_fails_on_the_sparse_public_case_with_the_hint():
    report = str(check_for(NAME).run("q3", lambda z: _tfidf(np.asarray(z)), sources=[]))
    assert "✘ a sparse matrix, as BagOfWords gives" in report
    assert "counts.toarray()" in report


def test_an_answer_using_the_library_is_flagged_by_check():
    cells = ["from nbcourse.naive_bayes import ComplementNB",
             "def complement_weights(feature_count, alpha):\n"
             "    y = list(range(len(feature_count)))\n"
             "    return ComplementNB(alpha=alpha).fit(feature_count, y).feature_log_prob_"]
    namespace: dict = {}
    for cell in cells:
        exec(cell, namespace)  # noqa: S102 - the student's cells
    report = check_for(NAME).run("q2", namespace["complement_weights"], sources=cells)
    assert report.flags == ["ComplementNB"]


# ------------------------------------------------------------ the notebook
def test_the_exercise_says_what_it_practises_links_its_lesson_and_grades_a_choice():
    student = nbformat.read(REPO / "exercises" / f"{NAME}.ipynb", as_version=4)
    first = student.cells[0].source
    assert "**What you will practise** (about 50 minutes)" in first
    assert "](../notebooks/08_where_naive_bayes_breaks.ipynb)" in first
    text = "\n".join(cell.source for cell in student.cells)
    assert text.count("raise NotImplementedError()") == 5
    assert "## Recap" in student.cells[-1].source
    assert EXERCISE.question("q5").graded_later
