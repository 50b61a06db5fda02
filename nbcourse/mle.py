"""Maximum likelihood for categorical and Gaussian data.

Naive Bayes is "fit by counting" because the maximum-likelihood estimate of a
categorical distribution has a closed form, theta_k = n_k / N.  This module
states the log-likelihood, derives that closed form with a Lagrange
multiplier, and confirms it with an independent numeric optimiser that never
looks at the formula.  The Gaussian case (mean and *biased* variance) is here
too, because Gaussian naive Bayes is fit by the same argument.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from nbcourse._checks import (_as_count_vector, _as_counts, _as_numbers, _as_samples, _as_scalar,
                              _as_simplex_points, check_labels, check_positive, check_positive_int)
from nbcourse._numerics import gaussian_log_density, log, logsumexp, moments, times_log

__all__ = [
    "SimplexMLEResult",
    "barycentric_to_cartesian",
    "categorical_log_likelihood",
    "class_prior_mle",
    "gaussian_log_likelihood",
    "gaussian_mle",
    "lagrange_multiplier",
    "lagrangian_gradient",
    "multinomial_mle",
    "numeric_simplex_mle",
    "simplex_grid",
]


# Input checks (_as_numbers, _as_scalar, _as_counts) live in nbcourse._checks
# with every other check of the library.


def _output(array: np.ndarray, exact: bool):
    """Scalars stay scalars; exact results become (nested) lists of Fractions."""
    if array.ndim == 0:
        return array.item() if exact else float(array)
    return array.tolist() if exact else array


# ---------------------------------------------------------------------------
# Categorical / multinomial
# ---------------------------------------------------------------------------


def categorical_log_likelihood(counts, theta, *, atol: float = 1e-9):
    """log P(data | theta) = sum_k n_k log theta_k for i.i.d. categorical draws.

    The multinomial coefficient is left out: it does not depend on theta, so it
    does not move the maximum.  An outcome never seen (n_k = 0) contributes
    0 * log theta_k = 0 even when theta_k = 0; an outcome seen but given
    probability 0 makes the whole data impossible, so the result is -inf.

    `theta` may hold many candidate points at once (shape (..., K)), e.g. a
    `simplex_grid`; the result then has shape theta.shape[:-1].
    """
    n = _as_count_vector(counts)
    points = _as_simplex_points(theta, n.shape[0], atol)
    total = times_log(n, log(points)).sum(axis=-1)
    return float(total) if total.ndim == 0 else total


def multinomial_mle(counts, *, exact: bool = False):
    """The closed-form maximiser theta_k = n_k / N (see `lagrange_multiplier`).

    `counts` has the outcomes on its last axis; several rows (e.g. one per
    class) are normalised separately.  With exact=True, integer counts give
    `fractions.Fraction` results such as 2/9.
    """
    n = _as_counts(counts, exact=exact)
    totals = n.sum(axis=-1, keepdims=True)
    if np.any(totals == 0):
        raise ValueError(
            "counts sum to zero: with no observations the maximum-likelihood estimate is 0/0 "
            "(add pseudo-counts, see nbcourse.smoothing.lidstone)"
        )
    return _output(n / totals, exact)


def class_prior_mle(y, *, exact: bool = False) -> pd.Series:
    """P(y = c) estimated as (# examples labelled c) / (# examples).

    Returns a pandas Series indexed by the sorted class labels, the same order
    scikit-learn uses for `classes_`.
    """
    # a list's labels stay Python objects (the keys a reader sees), as they were given
    labels = check_labels(y if isinstance(y, np.ndarray) else np.asarray(y, dtype=object), None)
    try:
        classes, counts = np.unique(labels, return_counts=True)
    except TypeError:
        raise TypeError("y mixes label types that cannot be sorted (e.g. strings and numbers)") from None
    if exact:
        total = int(counts.sum())
        values = [Fraction(int(c), total) for c in counts]
        return pd.Series(values, index=pd.Index(classes, name="class"), name="P(y)", dtype=object)
    return pd.Series(counts / counts.sum(), index=pd.Index(classes, name="class"), name="P(y)")


def lagrange_multiplier(counts, *, exact: bool = False):
    """The multiplier lambda at the stationary point of the Lagrangian.

    Sign convention used here:

        L(theta, lambda) = sum_k n_k log theta_k - lambda * (sum_k theta_k - 1)

    dL/dtheta_k = n_k / theta_k - lambda = 0 gives theta_k = n_k / lambda, and the
    constraint sum_k theta_k = 1 then forces lambda = N = sum_k n_k, the total
    count (so theta_k = n_k / N).  Writing the constraint term with a plus sign,
    + lambda * (sum_k theta_k - 1), as some lecture notes do, gives lambda = -N
    instead; the estimate is the same.
    """
    n = _as_count_vector(counts, exact=exact)
    total = n.sum()
    if total == 0:
        raise ValueError("counts sum to zero: the Lagrangian has no stationary point without data")
    return total if exact else float(total)


def lagrangian_gradient(counts, theta, lam):
    """Gradient of L(theta, lambda) (sign convention of `lagrange_multiplier`).

    Returns (dL/dtheta, dL/dlambda).  Both vanish exactly at the maximum-likelihood
    point theta = counts / N with lambda = N, which is how a notebook can check
    the derivation numerically.  theta must be strictly positive where counts are.
    """
    n = _as_count_vector(counts)
    point = _as_numbers(theta, "theta")
    if point.shape != n.shape:
        raise ValueError(f"theta must have shape {n.shape} like counts, got {point.shape}")
    if np.any((point <= 0) & (n > 0)):
        raise ValueError("theta must be positive wherever counts are positive (log 0 is -inf)")
    lam = _as_scalar(lam, "lam")
    with np.errstate(divide="ignore", invalid="ignore"):
        d_theta = np.where(n > 0, n / point, 0.0) - lam
    d_lambda = -(point.sum() - 1.0)
    return d_theta, float(d_lambda)


@dataclass(frozen=True)
class SimplexMLEResult:
    """What `numeric_simplex_mle` found and how it got there."""

    theta: np.ndarray
    log_likelihood: float
    n_iter: int
    converged: bool
    last_step: float  # max |theta_new - theta_old| of the final iteration


def numeric_simplex_mle(counts, *, tol: float = 1e-10, max_iter: int = 10_000, start=None) -> SimplexMLEResult:
    """Maximise sum_k n_k log theta_k over the simplex by exponentiated gradient.

    This is an independent check of the closed form, so it uses only the
    gradient g_k = n_k / theta_k, never n_k / N.  Each step is mirror ascent
    with the entropy mirror map,

        log theta_k  <-  log theta_k + eta * g_k / N  - (normaliser),

    which keeps theta strictly inside the simplex without projections.  The step
    eta starts at 1 and is halved until the log-likelihood rises enough (Armijo),
    then allowed to grow again.  Iteration stops when no coordinate moves by
    more than `tol`.  Outcomes with zero counts shrink geometrically towards 0.
    """
    n = _as_count_vector(counts)
    total = n.sum()
    if total == 0:
        raise ValueError("counts sum to zero: every point of the simplex is equally likely")
    check_positive(tol, "tol")
    check_positive_int(max_iter, "max_iter")

    objective = _ScaledLogLikelihood(n)
    log_theta = _starting_log_theta(start, n.shape[0])
    value, eta, step = objective(log_theta), 1.0, math.inf
    for iteration in range(1, max_iter + 1):
        log_theta, value, eta, step = _armijo_step(objective, log_theta, value, eta)
        eta = min(1.0, 2.0 * eta)  # let the step grow again after a success
        if step <= tol:
            return SimplexMLEResult(np.exp(log_theta), float(value * objective.total), iteration,
                                    True, step)
    return SimplexMLEResult(np.exp(log_theta), float(value * objective.total), max_iter, False, step)


class _ScaledLogLikelihood:
    """sum_k n_k log theta_k divided by N, as a function of log theta.

    Dividing by N lets one step size suit any sample size; only the gradient
    n_k / (N theta_k) of this objective drives the iteration, never n_k / N itself.
    """

    def __init__(self, n: np.ndarray):
        self.seen = n > 0
        self.total = n.sum()
        self.weights = n[self.seen] / self.total

    def __call__(self, log_theta: np.ndarray) -> float:
        return float(self.weights @ log_theta[self.seen])

    def gradient(self, theta: np.ndarray) -> np.ndarray:
        gradient = np.zeros(theta.shape[0])
        gradient[self.seen] = self.weights / theta[self.seen]
        return gradient


def _starting_log_theta(start, k: int) -> np.ndarray:
    """log theta of the starting point: the centre of the simplex, or ``start``."""
    if start is None:
        return np.full(k, -math.log(k))
    start_point = _as_simplex_points(start, k, 1e-9, name="start")
    if start_point.ndim != 1 or np.any(start_point <= 0):
        raise ValueError("start must be a single point strictly inside the simplex (all entries > 0)")
    return np.log(start_point / start_point.sum())


def _normalised(log_theta: np.ndarray) -> np.ndarray:
    """Subtract log sum exp, so that exp(log_theta) sums to one."""
    return log_theta - logsumexp(log_theta, axis=0)


def _armijo_step(objective, log_theta, value, eta):
    """One mirror-ascent step from ``log_theta``, halving ``eta`` until the objective rises
    by at least a small share of what the gradient promises (Armijo's rule).

    Returns the new log theta, its objective value, the step size used and the largest
    change of any theta_k.
    """
    theta = np.exp(log_theta)
    gradient = objective.gradient(theta)
    while True:
        candidate = _normalised(log_theta + eta * gradient)
        new_theta = np.exp(candidate)
        new_value = objective(candidate)
        rise = float(gradient @ (new_theta - theta))
        if new_value >= value + 1e-4 * rise - 1e-15 * abs(value) or eta < 1e-12:
            return candidate, new_value, eta, float(np.abs(new_theta - theta).max())
        eta /= 2.0


def simplex_grid(n: int, k: int = 3, *, include_boundary: bool = True) -> np.ndarray:
    """All points (i_1/n, ..., i_k/n) with non-negative integers summing to n.

    Shape (M, k) with M = C(n + k - 1, k - 1), in a fixed order.  With
    include_boundary=False only points with every coordinate > 0 are kept, which
    avoids the -inf a log-likelihood takes on the edges of the triangle.
    """
    check_positive_int(n, "n (grid resolution)")
    check_positive_int(k, "k (number of outcomes)")
    if not include_boundary and n < k:
        raise ValueError(f"an interior grid needs n >= k, got n={n}, k={k}")
    offset = 0 if include_boundary else 1
    parts_total = n - k * offset
    rows = []
    # stars and bars: k - 1 bars among parts_total + k - 1 slots
    for bars in itertools.combinations(range(parts_total + k - 1), k - 1):
        edges = (-1, *bars, parts_total + k - 1)
        rows.append([edges[i + 1] - edges[i] - 1 + offset for i in range(k)])
    return np.asarray(rows, dtype=float) / n


def barycentric_to_cartesian(points) -> np.ndarray:
    """Map points of the 3-outcome simplex to (x, y) in an equilateral triangle.

    Corners: outcome 1 -> (0, 0), outcome 2 -> (1, 0), outcome 3 -> (1/2, sqrt(3)/2).
    """
    p = _as_simplex_points(points, 3, 1e-9, name="points")
    corners = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, math.sqrt(3.0) / 2.0]])
    return p @ corners


# ---------------------------------------------------------------------------
# Gaussian
# ---------------------------------------------------------------------------


def gaussian_mle(x):
    """Maximum-likelihood (mean, variance) of i.i.d. Gaussian samples.

    The variance divides by N, not N - 1: it is the biased estimator that
    maximises the likelihood (and the one naive Bayes uses).  For 2-D x, each
    column (feature) gets its own mean and variance.  A single sample gives
    variance 0, for which the likelihood is unbounded.
    """
    samples = _as_samples(x)
    n, mean, m2 = moments(samples)
    var = m2 / n
    if samples.ndim == 1:
        return float(mean), float(var)
    return mean, var


def gaussian_log_likelihood(x, mean, var):
    """sum_i log N(x_i; mean, var) = -N/2 log(2 pi var) - sum_i (x_i - mean)^2 / (2 var).

    For 2-D x the sum runs over samples, giving one value per feature.
    """
    samples = _as_samples(x)
    mu = _as_numbers(mean, "mean")
    sigma2 = _as_numbers(var, "var")
    expected = () if samples.ndim == 1 else (samples.shape[1],)
    for name, value in (("mean", mu), ("var", sigma2)):
        if value.shape not in ((), expected):
            raise ValueError(f"{name} must be a number or have shape {expected}, got {value.shape}")
    if np.any(sigma2 <= 0):
        raise ValueError(f"var must be positive, got {sigma2.tolist()}")
    terms = gaussian_log_density(samples, mu, sigma2)
    total = terms.sum(axis=0)
    return float(total) if np.ndim(total) == 0 else total
