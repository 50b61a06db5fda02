"""Maximum likelihood: the Lagrangian closed form, checked by an independent optimiser."""

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.naive_bayes import GaussianNB, MultinomialNB

import nbcourse.mle as mle
from nbcourse.mle import (
    barycentric_to_cartesian,
    categorical_log_likelihood,
    class_prior_mle,
    gaussian_log_likelihood,
    gaussian_mle,
    lagrange_multiplier,
    lagrangian_gradient,
    multinomial_mle,
    numeric_simplex_mle,
    simplex_grid,
)

count_vectors = st.lists(st.integers(0, 500), min_size=1, max_size=8).filter(lambda c: sum(c) > 0)


# ----- closed form --------------------------------------------------------------------------


def test_multinomial_mle_hand_values():
    assert multinomial_mle([2, 3, 4], exact=True) == [Fraction(2, 9), Fraction(1, 3), Fraction(4, 9)]
    np.testing.assert_allclose(multinomial_mle([[2, 3, 4], [0, 5, 0]]), [[2 / 9, 3 / 9, 4 / 9], [0, 1, 0]])
    # exact=True reads a decimal count as written: 1.5 is 3/2
    assert multinomial_mle([1.5, 2], exact=True) == [Fraction(3, 7), Fraction(4, 7)]


def test_class_prior_of_weather_table():
    play = ["no", "no", "yes", "yes", "yes", "no", "yes", "no", "yes", "yes", "yes", "yes", "yes", "no"]
    prior = class_prior_mle(play, exact=True)
    assert list(prior.index) == ["no", "yes"]
    assert prior["yes"] == Fraction(9, 14) and prior["no"] == Fraction(5, 14)
    X = np.ones((len(play), 1))
    np.testing.assert_allclose(class_prior_mle(play).to_numpy(), np.exp(MultinomialNB().fit(X, play).class_log_prior_))


@settings(max_examples=100, deadline=None)
@given(counts=count_vectors, seed=st.integers(0, 2**32 - 1))
def test_closed_form_beats_random_simplex_points(counts, seed):
    best = categorical_log_likelihood(counts, multinomial_mle(counts))
    others = np.random.default_rng(seed).dirichlet(np.ones(len(counts)), size=50)
    assert np.all(categorical_log_likelihood(counts, others) <= best + 1e-9)


def test_log_likelihood_hand_values_and_zero_conventions():
    assert categorical_log_likelihood([2, 1], [0.5, 0.5]) == pytest.approx(3 * math.log(0.5))
    # an outcome never seen may get probability 0: 0 * log 0 = 0
    assert categorical_log_likelihood([2, 0], [1.0, 0.0]) == 0.0
    # an outcome seen but given probability 0 makes the data impossible
    assert categorical_log_likelihood([2, 1], [1.0, 0.0]) == -math.inf


def test_log_likelihood_on_a_grid_peaks_at_the_closed_form():
    counts = [2, 1, 1]
    grid = simplex_grid(4)
    values = categorical_log_likelihood(counts, grid)
    assert values.shape == (len(grid),)
    np.testing.assert_allclose(grid[np.argmax(values)], multinomial_mle(counts))
    assert np.isneginf(values).sum() == np.sum(grid.min(axis=1) == 0)  # every edge point is impossible


# ----- the Lagrangian -----------------------------------------------------------------------


def test_lagrange_multiplier_is_total_count():
    assert lagrange_multiplier([2, 3, 4], exact=True) == 9
    assert lagrange_multiplier([0.5, 1.5]) == 2.0


@settings(max_examples=60, deadline=None)
@given(counts=count_vectors)
def test_lagrangian_is_stationary_exactly_at_the_closed_form(counts):
    theta = np.asarray(multinomial_mle(counts))
    lam = lagrange_multiplier(counts)
    d_theta, d_lambda = lagrangian_gradient(counts, theta, lam)
    seen = np.asarray(counts) > 0
    np.testing.assert_allclose(d_theta[seen], 0.0, atol=1e-9 * lam)
    assert d_lambda == pytest.approx(0.0, abs=1e-12)
    # the other sign convention's multiplier (-N) is not stationary for this Lagrangian
    assert np.abs(lagrangian_gradient(counts, theta, -lam)[0][seen]).min() > 0


def test_lagrangian_gradient_is_not_zero_away_from_the_optimum():
    d_theta, d_lambda = lagrangian_gradient([2, 3, 4], [1 / 3, 1 / 3, 1 / 3], 9)
    np.testing.assert_allclose(d_theta, [-3, 0, 3])
    d_theta, d_lambda = lagrangian_gradient([2, 3, 4], [0.2, 0.3, 0.4], 10)
    assert d_lambda == pytest.approx(0.1)


# ----- the independent numeric optimiser ----------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(counts=count_vectors)
def test_numeric_optimiser_recovers_closed_form(counts):
    result = numeric_simplex_mle(counts)
    assert result.converged
    np.testing.assert_allclose(result.theta, multinomial_mle(counts), atol=1e-6)
    assert result.theta.sum() == pytest.approx(1.0, abs=1e-12)
    assert result.log_likelihood == pytest.approx(
        categorical_log_likelihood(counts, multinomial_mle(counts)), abs=1e-6
    )


def test_numeric_optimiser_does_not_call_the_closed_form(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("numeric_simplex_mle must not use the closed form")

    monkeypatch.setattr(mle, "multinomial_mle", forbidden)
    monkeypatch.setattr(mle, "lagrange_multiplier", forbidden)
    result = mle.numeric_simplex_mle([7, 0, 2, 1], start=[0.1, 0.6, 0.2, 0.1])
    np.testing.assert_allclose(result.theta, [0.7, 0.0, 0.2, 0.1], atol=1e-8)
    assert 1 < result.n_iter < 200


def test_numeric_optimiser_reports_non_convergence():
    result = numeric_simplex_mle([5, 0, 1], max_iter=2)
    assert not result.converged and result.n_iter == 2
    assert result.last_step > 1e-10


# ----- simplex grid -------------------------------------------------------------------------


def test_simplex_grid_points():
    grid = simplex_grid(10)
    assert grid.shape == (math.comb(12, 2), 3)
    np.testing.assert_allclose(grid.sum(axis=1), 1.0)
    assert len({tuple(row) for row in grid}) == len(grid)
    interior = simplex_grid(10, include_boundary=False)
    assert interior.shape == (math.comb(9, 2), 3) and interior.min() > 0
    assert simplex_grid(3, k=4).shape == (math.comb(6, 3), 4)


def test_barycentric_corners_map_to_triangle_corners():
    xy = barycentric_to_cartesian(np.eye(3))
    np.testing.assert_allclose(xy, [[0, 0], [1, 0], [0.5, math.sqrt(3) / 2]])
    np.testing.assert_allclose(barycentric_to_cartesian([[1 / 3, 1 / 3, 1 / 3]]), [[0.5, math.sqrt(3) / 6]])


# ----- Gaussian -----------------------------------------------------------------------------


def test_gaussian_mle_uses_biased_variance_and_matches_gaussiannb():
    x = [64.0, 68, 69, 70, 72, 75, 80, 81, 83, 85]
    mean, var = gaussian_mle(x)
    assert mean == pytest.approx(np.mean(x))
    assert var == pytest.approx(np.var(x, ddof=0))
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 4)) * [1, 2, 3, 4]
    y = rng.integers(0, 2, size=50)
    model = GaussianNB(var_smoothing=0.0).fit(X, y)
    for index, label in enumerate(model.classes_):
        means, variances = gaussian_mle(X[y == label])
        np.testing.assert_allclose(means, model.theta_[index])
        np.testing.assert_allclose(variances, model.var_[index])


def test_gaussian_log_likelihood_matches_scipy_and_peaks_at_mle():
    x = np.random.default_rng(4).normal(3.0, 2.0, size=200)
    mean, var = gaussian_mle(x)
    best = gaussian_log_likelihood(x, mean, var)
    assert best == pytest.approx(scipy.stats.norm.logpdf(x, mean, math.sqrt(var)).sum())
    for d_mean, d_var in [(0.01, 0), (-0.01, 0), (0, 0.01), (0, -0.01)]:
        assert gaussian_log_likelihood(x, mean + d_mean, var + d_var) < best
    columns = np.column_stack([x, 2 * x])
    np.testing.assert_allclose(
        gaussian_log_likelihood(columns, *gaussian_mle(columns)),
        [best, gaussian_log_likelihood(2 * x, 2 * mean, 4 * var)],
    )


# ----- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: categorical_log_likelihood([1, 2], [0.5, 0.4]), ValueError, "sum to 1"),
        (lambda: categorical_log_likelihood([1, 2], [1.5, -0.5]), ValueError, "non-negative"),
        (lambda: categorical_log_likelihood([1, 2], [0.2, 0.3, 0.5]), ValueError, "last axis of length 2"),
        (lambda: categorical_log_likelihood([1, -2], [0.5, 0.5]), ValueError, "counts must be non-negative"),
        (lambda: categorical_log_likelihood([1, 2], [float("nan"), 1.0]), ValueError, "theta contains NaN"),
        (lambda: multinomial_mle([0, 0]), ValueError, "sum to zero"),
        (lambda: multinomial_mle([]), ValueError, "empty"),
        (lambda: class_prior_mle([]), ValueError, "empty"),
        (lambda: class_prior_mle(["a", None, "b"]), ValueError, "missing label"),
        (lambda: class_prior_mle(["a", 1]), TypeError, "cannot be sorted"),
        (lambda: class_prior_mle("yes"), ValueError, "1-D"),
        (lambda: lagrange_multiplier([0, 0]), ValueError, "sum to zero"),
        (lambda: numeric_simplex_mle([0, 0, 0]), ValueError, "sum to zero"),
        (lambda: numeric_simplex_mle([1, 2], start=[1.0, 0.0]), ValueError, "strictly inside"),
        (lambda: numeric_simplex_mle([1, 2], tol=0), ValueError, "tol"),
        (lambda: gaussian_mle([]), ValueError, "empty"),
        (lambda: gaussian_mle([1.0, float("inf")]), ValueError, "x contains infinity"),
        (lambda: gaussian_log_likelihood([1.0, 2.0], 0.0, 0.0), ValueError, "var must be positive"),
        (lambda: gaussian_log_likelihood([[1.0, 2.0]], [0.0, 1.0, 2.0], 1.0), ValueError, "mean must"),
        (lambda: simplex_grid(0), ValueError, "positive integer"),
        (lambda: simplex_grid(2, include_boundary=False), ValueError, "n >= k"),
    ],
)
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()
