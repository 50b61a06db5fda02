"""Issue 34, a third student's probes (marks-fix-a): each answer through ``check()`` (the
released checks file) and through the grader's own scoring of every case.

Bins made by dividing by the width, an empty shard that holds old numbers, the rounding
note, ex03 q6's tolerance and follow-through, public cases for mistakes only hidden cases
caught, and ex08 q3's hint for an in-place multiply on integers.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from nbcourse.grading.diagnosis import FLOATS_INTO_INTEGERS
from submission_support import solved
from test_grading_marks_probes import SOURCE, _module as _spec, check, grade_notebooks, graded


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


# ----------------------------------------- the rounding note: only of a rounded value
ROUNDED_NOTE = "decimal places: if you rounded it, store it unrounded"


def _notes(result) -> str:
    return " ".join(c.message for c in result.cases)


def variances_as_standard_deviations(X, y, var_smoothing=1e-9):
    """ex06 q1 with the standard deviation where the variance is asked: wrong, not rounded."""
    X, y = np.asarray(X, float), np.asarray(y)
    classes = np.unique(y)
    eps = var_smoothing * X.var(axis=0).max()
    means = [X[y == c].mean(axis=0).tolist() for c in classes]
    spreads = [(X[y == c].std(axis=0) + eps).tolist() for c in classes]
    return [classes.tolist(), means, spreads]


@pytest.mark.parametrize("name, question, answer", [
    ("05_spam", "q5", 0.01),  # an alpha of the list, the wrong one: nobody rounded it
    ("05_spam", "q5", 3.0),
    ("01_weather", "q5", 0.917),  # as few decimals as a rounded answer, far from it
])
def test_a_wrong_value_with_few_decimals_gets_no_rounding_note(name, question, answer):
    result = graded(name, question, answer)
    assert result.score < result.points
    assert ROUNDED_NOTE not in _notes(result)


def test_a_wrong_function_whose_values_have_few_decimals_gets_no_rounding_note():
    result = graded("06_gaussian", "q1", variances_as_standard_deviations)
    assert result.score < result.points
    assert ROUNDED_NOTE not in _notes(result)


@pytest.mark.parametrize("places", [2, 3])  # (four decimals are within its tolerance)
def test_the_expected_value_rounded_still_gets_the_note(places):
    exact = 401 / 1050  # 01 q5: P(win | free)
    result = graded("01_weather", "q5", round(exact, places))
    assert result.score == 0
    assert f"only {places} {ROUNDED_NOTE}" in _notes(result)


# ------------------------------------- 07 q2: an empty shard whatever numbers it holds
def merge_summing_an_empty_shard(a, b):
    """Right where an empty shard's numbers are zeros: its means and variances are added."""
    (n_a, mean_a, var_a), (n_b, mean_b, var_b) = a, b
    mean_a, mean_b = np.asarray(mean_a, float), np.asarray(mean_b, float)
    var_a, var_b = np.asarray(var_a, float), np.asarray(var_b, float)
    n = n_a + n_b
    if n_a == 0 or n_b == 0:
        return [n, (mean_a + mean_b).tolist(), (var_a + var_b).tolist()]
    delta = mean_b - mean_a
    return [n, (mean_a + delta * n_b / n).tolist(),
            ((n_a * var_a + n_b * var_b + delta ** 2 * n_a * n_b / n) / n).tolist()]


def test_an_empty_shard_holding_old_numbers_is_a_public_case_the_text_names():
    """The question says an empty shard's numbers carry nothing, whatever they are, and a
    public case shows it; the answer that adds them up (right only for zeros) and the one
    that averages them in both lose marks."""
    text = (SOURCE / "07_merging.ipynb").read_text(encoding="utf-8")
    assert "whatever numbers they hold" in text and "are then zeros" not in text
    report = check("07_merging", "q2", merge_summing_an_empty_shard)
    assert not report.all_passed and "numbers from an earlier run" in str(report)
    assert graded("07_merging", "q2", merge_summing_an_empty_shard).score < 3
    averaged = _spec("07_merging").gaussian_empty_shard_averaged
    assert not check("07_merging", "q2", averaged).all_passed
    result = graded("07_merging", "q2", averaged)
    assert result.score < 3 and "a shard with no rows averaged in" in result.mistakes


# --------------------- 03 q6: four decimals refused; follow-through on q4 and q5
def test_p_ham_documents_rounded_to_four_decimals_is_refused():
    exact = _spec("03_mle").p_ham_documents()
    assert graded("03_mle", "q6", exact).score == 2
    rounded = {letter: round(value, 4) for letter, value in exact.items()}
    assert rounded != exact
    result = graded("03_mle", "q6", rounded)
    assert result.score == 0
    assert ROUNDED_NOTE in _notes(result)


def _with_cell_replaced(name: str, function: str, code: str) -> dict:
    """The solved notebook with the cell defining ``function`` replaced by ``code``."""
    notebook = solved(name, SOURCE)
    cell = next(c for c in notebook["cells"]
                if "".join(c["source"]).startswith(f"def {function}("))
    cell["source"] = code
    return notebook


UNIFORM_PRIORS = ("def class_priors(labels):\n"
                  "    labels = sorted(set(labels))\n"
                  "    return {label: 1 / len(labels) for label in labels}\n")

LAPLACE_WORDS = ("def word_probabilities(X, y):\n"
                 "    X, y = np.asarray(X, dtype=float), np.asarray(y)\n"
                 "    out = {}\n"
                 "    for label in sorted(set(y.tolist())):\n"
                 "        counts = X[y == label].sum(axis=0) + 1\n"
                 "        out[label] = (counts / counts.sum()).tolist()\n"
                 "    return out\n")


def test_p_ham_documents_follows_through_a_wrong_q4_or_q5(tmp_path):
    rows, pages = grade_notebooks("03_mle", {
        "priors": _with_cell_replaced("03_mle", "class_priors", UNIFORM_PRIORS),
        "laplace": _with_cell_replaced("03_mle", "word_probabilities", LAPLACE_WORDS),
    }, tmp_path)
    for who, blamed, name in (("priors", "q4", "class_priors"),
                              ("laplace", "q5", "word_probabilities")):
        assert rows[who][blamed]["score"] < rows[who][blamed]["points"], rows[who][blamed]
        q6 = rows[who]["q6"]
        assert q6["score"] == q6["points"] and q6["follow_through"] == [blamed], q6
        assert f"computed with your `{name}` ({blamed})" in pages[who]
    # the smoothing is word_probabilities' mistake: q6 is not told it smoothed
    assert "Laplace smoothing added" not in pages["laplace"].split("p_ham_documents", 1)[1]


# ------------------ public cases for mistakes only hidden cases caught (issue 34 (b))
def means_variances_centring_in_place(X, y, var_smoothing=1e-9):
    """Right values, but a float array X is centred in place (lists are copied)."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    centre = X.mean(axis=0)
    X -= centre
    classes = np.unique(y)
    eps = var_smoothing * X.var(axis=0).max()
    means = [(X[y == c].mean(axis=0) + centre).tolist() for c in classes]
    return [classes.tolist(), means, [(X[y == c].var(axis=0) + eps).tolist() for c in classes]]


def complement_in_place(feature_count, alpha):
    counts = np.asarray(feature_count, dtype=float)
    total = counts.sum(axis=0)
    for c in range(len(counts)):
        counts[c] = total - counts[c]
    return (-np.log((counts + alpha) / (counts.sum(axis=1, keepdims=True)
                                        + alpha * counts.shape[1]))).tolist()


def complement_of_whole_counts(feature_count, alpha):
    return complement_in_place(np.asarray(feature_count).astype(int).tolist(), alpha)


def _experiment_with_seed_zero(texts, labels, alphas, seed):
    return _spec("05_spam").EXERCISE.question("q4").reference(texts, labels, alphas, 0)


@pytest.mark.parametrize("name, question, answer", [
    ("06_gaussian", "q1", means_variances_centring_in_place),
    ("08_beyond_naive", "q2", complement_in_place),
    ("08_beyond_naive", "q2", complement_of_whole_counts),
    ("05_spam", "q4", _experiment_with_seed_zero),
])
def test_a_mistake_only_hidden_cases_caught_now_fails_a_public_case(name, question, answer):
    report = check(name, question, answer)
    assert not report.all_passed, str(report)
    result = graded(name, question, answer)
    assert result.score < result.points
    assert any(not c.passed and not c.hidden for c in result.cases)


# ------------------------------ 08 q3: an in-place multiply on integers is named as such
def tfidf_multiplying_integers_in_place(counts):
    z = counts.toarray() if sp.issparse(counts) else np.asarray(counts, dtype=float)
    idf = np.log((1 + z.shape[0]) / (1 + (z > 0).sum(axis=0))) + 1
    z *= idf
    norm = np.sqrt((z ** 2).sum(axis=1, keepdims=True))
    return np.divide(z, norm, out=np.zeros_like(z), where=norm > 0).tolist()


#: the public case where the same answer changes a float array in place (student 10)
FLOAT_INPUT = "counts in a numpy array of floats, which must come back unchanged"


def test_an_in_place_multiply_on_integers_is_not_blamed_on_sparse_handling():
    report = check("08_beyond_naive", "q3", tfidf_multiplying_integers_in_place)
    failed = [o for o in report.outcomes if not o.passed and o.name != FLOAT_INPUT]
    assert failed and all(o.hint == FLOATS_INTO_INTEGERS for o in failed)
    assert "np.asarray does not unpack it" not in str(report)
    assert "in place" in next(o.message for o in report.outcomes if o.name == FLOAT_INPUT)
    result = graded("08_beyond_naive", "q3", tfidf_multiplying_integers_in_place)
    public = [c for c in result.cases if not c.passed and not c.hidden and c.name != FLOAT_INPUT]
    assert public and all(c.hint == FLOATS_INTO_INTEGERS for c in public)


@pytest.mark.parametrize("alpha", [0.01, 0.03])
def test_an_alpha_of_the_list_is_not_told_it_looks_rounded_in_check(alpha):
    assert "decimal places" not in str(check("05_spam", "q5", alpha))
