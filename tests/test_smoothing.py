"""Beta/Dirichlet pseudo-counts: hand values, special cases, scikit-learn's formulas."""

from fractions import Fraction

import numpy as np
import pytest
import scipy.stats
from scipy.integrate import trapezoid
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.naive_bayes import BernoulliNB, CategoricalNB, MultinomialNB

from nbcourse.mle import multinomial_mle
from nbcourse.smoothing import (
    BetaSummary,
    beta_logpdf,
    beta_mean,
    beta_mode,
    beta_pdf,
    beta_posterior,
    beta_summary,
    laplace,
    lidstone,
    m_estimate,
    mle_bernoulli,
)

counts_st = st.integers(min_value=0, max_value=60)
positive_fraction = st.fractions(min_value=Fraction(1, 10), max_value=20, max_denominator=20)


# ----- the coin notebook's hand values ------------------------------------------------------


def test_three_heads_under_flat_prior_hand_values():
    assert mle_bernoulli(3, 0, exact=True) == 1  # too confident: tails "impossible"
    assert beta_posterior(1, 1, 3, 0, exact=True) == (4, 1)
    assert beta_mean(4, 1, exact=True) == Fraction(4, 5)
    assert beta_mode(4, 1, exact=True) == 1  # MAP under a flat prior is the MLE
    assert laplace([3, 0], exact=True) == [Fraction(4, 5), Fraction(1, 5)]


def test_exact_results_are_fractions_and_float_results_are_floats():
    assert isinstance(beta_mean(4, 1, exact=True), Fraction)
    assert isinstance(beta_mean(4, 1), float)
    assert all(isinstance(p, Fraction) for p in lidstone([2, 0, 7], 1, exact=True))
    assert isinstance(lidstone([2, 0, 7], 1), np.ndarray)
    # a float is read as the decimal it prints as
    assert beta_mean(0.5, 1.5, exact=True) == Fraction(1, 4)
    assert m_estimate(0, 0, 2, 0.1, exact=True) == Fraction(1, 10)


def test_prior_mean_is_default_guess_and_strength_counts_pseudo_tosses():
    summary = beta_summary(2, 8, 0, 0, exact=True)
    assert summary.prior_mean == Fraction(1, 5)
    assert summary.prior_strength == 10
    assert summary.posterior_mean == summary.prior_mean  # no data: the prior's guess stands
    assert summary.prior_weight == 1


@settings(max_examples=200, deadline=None)
@given(heads=counts_st, tails=counts_st)
def test_laplace_is_flat_posterior_mean_and_beta22_map(heads, tails):
    """(n+1)/(N+2) = mean of Beta(1,1)'s posterior = mode of Beta(2,2)'s posterior."""
    expected = Fraction(heads + 1, heads + tails + 2)
    assert beta_mean(*beta_posterior(1, 1, heads, tails, exact=True), exact=True) == expected
    assert beta_mode(*beta_posterior(2, 2, heads, tails, exact=True), exact=True) == expected
    assert laplace([heads, tails], exact=True)[0] == expected


def test_laplace_is_not_the_flat_prior_map():
    # the MAP under Beta(1, 1) is the unsmoothed MLE; only the posterior mean smooths
    assert beta_mode(*beta_posterior(1, 1, 3, 1, exact=True), exact=True) == Fraction(3, 4)
    assert laplace([3, 1], exact=True)[0] == Fraction(4, 6)


@settings(max_examples=150, deadline=None)
@given(heads=counts_st, tails=counts_st, beta=positive_fraction)
def test_lidstone_is_dirichlet_posterior_mean_and_shifted_map(heads, tails, beta):
    smoothed = lidstone([heads, tails], beta, exact=True)
    assert smoothed[0] == beta_mean(*beta_posterior(beta, beta, heads, tails, exact=True), exact=True)
    assert smoothed[0] == beta_mode(*beta_posterior(beta + 1, beta + 1, heads, tails, exact=True), exact=True)
    assert sum(smoothed) == 1


def test_lidstone_special_cases():
    counts = [[4, 0, 1], [0, 2, 2]]
    assert lidstone(counts, 0, exact=True) == multinomial_mle(counts, exact=True)
    assert lidstone(counts, 1, exact=True) == laplace(counts, exact=True)
    assert lidstone(counts, 1, exact=True)[0] == [Fraction(5, 8), Fraction(1, 8), Fraction(2, 8)]
    # rows (classes) are smoothed separately
    assert lidstone(counts, 0.5, exact=True)[1] == [Fraction(1, 11), Fraction(5, 11), Fraction(5, 11)]


def test_lidstone_matches_multinomialnb():
    rng = np.random.default_rng(0)
    X = rng.poisson(0.7, size=(40, 12))
    y = rng.integers(0, 3, size=40)
    for alpha in (0.01, 0.5, 1.0, 3.0):
        model = MultinomialNB(alpha=alpha).fit(X, y)
        np.testing.assert_allclose(np.log(lidstone(model.feature_count_, alpha)), model.feature_log_prob_, rtol=1e-12)


def test_lidstone_matches_categoricalnb():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(30, 3))
    y = rng.integers(0, 2, size=30)
    for alpha in (0.3, 1.0):
        model = CategoricalNB(alpha=alpha).fit(X, y)
        for feature_counts, log_prob in zip(model.category_count_, model.feature_log_prob_):
            np.testing.assert_allclose(np.log(lidstone(feature_counts, alpha)), log_prob, rtol=1e-12)


def test_two_outcome_lidstone_matches_bernoullinb():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(25, 6))
    y = rng.integers(0, 2, size=25)
    model = BernoulliNB(alpha=2.0).fit(X, y)
    present = model.feature_count_
    absent = model.class_count_[:, None] - present
    smoothed = lidstone(np.stack([present, absent], axis=-1), 2.0)[..., 0]
    np.testing.assert_allclose(np.log(smoothed), model.feature_log_prob_, rtol=1e-12)


# ----- m-estimate ---------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(heads=counts_st, tails=counts_st, a=positive_fraction, b=positive_fraction)
def test_m_estimate_is_beta_posterior_mean(heads, tails, a, b):
    n = heads + tails
    estimate = m_estimate(heads, n, a + b, a / (a + b), exact=True)
    assert estimate == beta_mean(*beta_posterior(a, b, heads, tails, exact=True), exact=True)


def test_m_estimate_limits_and_lidstone_case():
    assert m_estimate(3, 4, 0, Fraction(1, 2), exact=True) == Fraction(3, 4)  # m = 0: MLE
    assert m_estimate(3, 4, 1e9, 0.2) == pytest.approx(0.2, abs=1e-8)  # huge m: the prior
    # Lidstone with K outcomes is an m-estimate with m = K beta and prior 1/K
    counts = np.array([5, 0, 2, 1])
    expected = lidstone(counts, 0.5)
    np.testing.assert_allclose(m_estimate(counts, counts.sum(), 4 * 0.5, 1 / 4), expected)


# ----- MAP vs posterior mean vs MLE; the prior washes out -----------------------------------


@pytest.mark.parametrize(
    ("a", "b", "mode"),
    [(4, 1, 1), (1, 4, 0), (3, 3, Fraction(1, 2)), (5, 2, Fraction(4, 5)), (0.5, 2, 0), (2, 0.5, 1)],
)
def test_beta_mode_values(a, b, mode):
    assert beta_mode(a, b, exact=True) == mode


@pytest.mark.parametrize(("a", "b"), [(1, 1), (0.5, 0.5), (0.2, 0.9)])
def test_beta_mode_undefined_raises(a, b):
    with pytest.raises(ValueError, match="MAP is undefined"):
        beta_mode(a, b)


@settings(max_examples=60, deadline=None)
@given(a=st.floats(1.05, 30), b=st.floats(1.05, 30))
def test_beta_mode_is_argmax_of_density(a, b):
    grid = np.linspace(0, 1, 20001)
    assert beta_mode(a, b) == pytest.approx(grid[np.argmax(beta_pdf(grid, a, b))], abs=1e-4)


@settings(max_examples=150, deadline=None)
@given(a=positive_fraction, b=positive_fraction, heads=counts_st, tails=counts_st)
def test_posterior_mean_is_weighted_average_of_prior_mean_and_mle(a, b, heads, tails):
    s = beta_summary(a, b, heads, tails, exact=True)
    if heads + tails == 0:
        assert s.mle is None and s.posterior_mean == s.prior_mean
        return
    assert s.posterior_mean == s.prior_weight * s.prior_mean + (1 - s.prior_weight) * s.mle
    assert min(s.prior_mean, s.mle) <= s.posterior_mean <= max(s.prior_mean, s.mle)


def test_prior_washes_out_as_data_grows():
    gaps = []
    for scale in (1, 10, 100, 1000, 10000):
        s = beta_summary(50, 5, 3 * scale, 7 * scale)  # a strong, wrong prior (mean 0.91)
        gaps.append(abs(s.posterior_mean - s.mle) + abs(s.map - s.mle))
    assert all(later < earlier for earlier, later in zip(gaps, gaps[1:]))
    assert gaps[0] > 0.3 and gaps[-1] < 1e-2


# ----- the slider's summary -----------------------------------------------------------------


def test_beta_summary_three_heads():
    s = beta_summary(1, 1, 3, 0, exact=True)
    assert isinstance(s, BetaSummary)
    assert (s.posterior_a, s.posterior_b) == (4, 1)
    assert (s.mle, s.map, s.posterior_mean) == (1, 1, Fraction(4, 5))
    assert "4/5" in str(s) and "Beta(4, 1)" in str(s)
    assert s.as_dict()["posterior_mean"] == Fraction(4, 5)


def test_beta_summary_without_tosses_uses_none_not_nan():
    s = beta_summary(1, 1, 0, 0)
    assert s.mle is None and s.map is None
    assert s.posterior_mean == 0.5
    assert "undefined" in str(s)


def test_beta_summary_never_nan_over_slider_range():
    for a in (0.1, 0.5, 1, 2, 10):
        for b in (0.1, 0.5, 1, 2, 10):
            for heads in range(4):
                for tails in range(4):
                    values = beta_summary(a, b, heads, tails).as_dict().values()
                    assert all(v is None or np.isfinite(v) for v in values)


# ----- the Beta density ---------------------------------------------------------------------


def test_beta_pdf_matches_scipy_and_integrates_to_one():
    theta = np.linspace(0.001, 0.999, 999)
    for a, b in [(1, 1), (2, 5), (0.5, 0.5), (30, 4), (2000, 3000)]:
        np.testing.assert_allclose(beta_pdf(theta, a, b), scipy.stats.beta.pdf(theta, a, b), rtol=1e-9, atol=1e-300)
    for a, b in [(1, 1), (2, 5), (4, 1)]:
        grid = np.linspace(0, 1, 100001)
        assert trapezoid(beta_pdf(grid, a, b), grid) == pytest.approx(1.0, abs=1e-6)


def test_beta_pdf_edges_and_outside():
    np.testing.assert_array_equal(beta_pdf([0.0, 1.0], 1, 1), [1.0, 1.0])
    np.testing.assert_array_equal(beta_pdf([0.0, 1.0], 2, 1), [0.0, 2.0])
    assert beta_pdf(0.0, 0.5, 2) == np.inf
    assert beta_pdf(1.0, 3, 0.5) == np.inf
    np.testing.assert_array_equal(beta_pdf([-0.1, 1.5], 2, 2), [0.0, 0.0])
    assert beta_logpdf(0.0, 3, 2) == -np.inf
    assert beta_pdf(np.zeros((2, 3)) + 0.5, 2, 2).shape == (2, 3)
    assert isinstance(beta_pdf(0.5, 2, 2), float)


# ----- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: beta_posterior(0, 1, 3, 0), ValueError, "a must be positive"),
        (lambda: beta_posterior(1, -2, 3, 0), ValueError, "b must be positive"),
        (lambda: beta_posterior(1, 1, -1, 0), ValueError, "heads must be a non-negative"),
        (lambda: beta_mean(float("nan"), 1), ValueError, "a contains NaN"),
        (lambda: beta_pdf([0.5, float("nan")], 2, 2), ValueError, "theta contains NaN"),
        (lambda: mle_bernoulli(0, 0), ValueError, "no tosses"),
        (lambda: lidstone([3, -1], 1), ValueError, "non-negative"),
        (lambda: lidstone([], 1), ValueError, "empty"),
        (lambda: lidstone([1, 2], -0.5), ValueError, "beta"),
        (lambda: lidstone([0, 0], 0), ValueError, "0/0"),
        (lambda: lidstone(5, 1), ValueError, "one count per outcome"),
        (lambda: lidstone(["a", "b"], 1), TypeError, "counts"),
        (lambda: lidstone([True, False], 1, exact=True), TypeError, "booleans"),
        (lambda: m_estimate(5, 3, 2, 0.5), ValueError, "cannot exceed N"),
        (lambda: m_estimate(1, 3, 2, 1.5), ValueError, "prior must be a probability"),
        (lambda: m_estimate(1, 3, -2, 0.5), ValueError, "m "),
        (lambda: m_estimate(0, 0, 0, 0.5), ValueError, "0/0"),
        (lambda: beta_summary(1, 1, [1, 2], 0), ValueError, "single number"),
    ],
)
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()
