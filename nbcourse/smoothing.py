"""Smoothing as pseudo-counts: Beta and Dirichlet priors.

Three heads in three tosses give a maximum-likelihood estimate of 1: the data
say tails is impossible.  A Beta(a, b) prior fixes this by acting as if we had
already seen `a` heads and `b` tails before the real tosses.  Because the Beta
is conjugate to the Bernoulli, the posterior is again a Beta with the real
counts added: Beta(N1 + a, N0 + b).  Its mode (the MAP estimate) and its mean
are both "count ratios with pseudo-counts", and the familiar smoothing rules
are special cases:

* Laplace (add-one), (N1 + 1) / (N + 2), is the posterior *mean* under the flat
  Beta(1, 1) prior, and equally the *MAP* under Beta(2, 2).
* Lidstone, (n_j + beta) / (N + J beta), is the posterior mean under a symmetric
  Dirichlet(beta, ..., beta) prior (= the MAP under Dirichlet(beta + 1, ...)).
  beta = 1 is Laplace and beta = 0 is the maximum-likelihood estimate.
* The m-estimate, (N1 + m Q) / (N + m), is the posterior mean under
  Beta(m Q, m (1 - Q)): a prior guess Q worth m virtual examples.

Every estimator accepts exact=True, which returns `fractions.Fraction` values
(4/5 rather than 0.8) for integer or Fraction inputs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.special import betaln

from nbcourse._checks import (_as_counts, _as_numbers, _as_scalar, _beta_shape, _nonnegative_count,
                              check_finite)
from nbcourse._numerics import log, times_log
from nbcourse.mle import _output

__all__ = [
    "BetaSummary",
    "beta_logpdf",
    "beta_mean",
    "beta_mode",
    "beta_pdf",
    "beta_posterior",
    "beta_summary",
    "laplace",
    "lidstone",
    "lidstone_log",
    "m_estimate",
    "mle_bernoulli",
]


# ---------------------------------------------------------------------------
# Coin tosses: Bernoulli likelihood, Beta prior
# ---------------------------------------------------------------------------


def mle_bernoulli(heads, tails, *, exact: bool = False):
    """Maximum-likelihood P(heads) = N1 / (N1 + N0); ValueError with no tosses."""
    n1 = _nonnegative_count(heads, "heads", exact)
    n0 = _nonnegative_count(tails, "tails", exact)
    if n1 + n0 == 0:
        raise ValueError("no tosses (heads + tails = 0): the maximum-likelihood estimate 0/0 is undefined")
    return n1 / (n1 + n0)


def beta_posterior(a, b, heads, tails, *, exact: bool = False) -> tuple:
    """Conjugate update: prior Beta(a, b) and N1 heads, N0 tails give Beta(N1 + a, N0 + b)."""
    a = _beta_shape(a, "a", exact)
    b = _beta_shape(b, "b", exact)
    return a + _nonnegative_count(heads, "heads", exact), b + _nonnegative_count(tails, "tails", exact)


def beta_mean(a, b, *, exact: bool = False):
    """Mean a / (a + b) of Beta(a, b): the prior's default guess for P(heads).

    Applied to a posterior Beta(N1 + a, N0 + b) it is the posterior-mean
    estimate (N1 + a) / (N + a + b).
    """
    a = _beta_shape(a, "a", exact)
    b = _beta_shape(b, "b", exact)
    return a / (a + b)


def beta_mode(a, b, *, exact: bool = False):
    """Mode of Beta(a, b), i.e. the MAP estimate when (a, b) is a posterior.

    For a >= 1 and b >= 1 (not both 1) this is (a - 1) / (a + b - 2); it may sit on
    the boundary: Beta(4, 1), the posterior after three heads under a flat prior,
    has its mode at 1.  When a < 1 <= b the density rises without bound at 0,
    so the mode is 0 (and 1 when b < 1 <= a).  Beta(1, 1) is flat and a, b < 1
    has two peaks, at 0 and 1: both raise ValueError, because no single mode exists.
    """
    a = _beta_shape(a, "a", exact)
    b = _beta_shape(b, "b", exact)
    if a == 1 and b == 1:
        raise ValueError("Beta(1, 1) is flat on [0, 1]: every point is a mode, so the MAP is undefined")
    if a < 1 and b < 1:
        raise ValueError(f"Beta({a}, {b}) with a < 1 and b < 1 has two modes, at 0 and 1; the MAP is undefined")
    zero, one = (Fraction(0), Fraction(1)) if exact else (0.0, 1.0)
    if a < 1:
        return zero
    if b < 1:
        return one
    return (a - 1) / (a + b - 2)


def beta_logpdf(theta, a, b):
    """log Beta(theta; a, b), vectorised over theta; -inf outside [0, 1].

    Computed as (a - 1) log theta + (b - 1) log(1 - theta) - log B(a, b), with
    0 * log 0 taken as 0 so that the edges theta = 0 and 1 are exact: the
    density there is 0 (a > 1), finite (a = 1) or +inf (a < 1).
    """
    t = _as_numbers(theta, "theta")
    a = _beta_shape(a, "a", False)
    b = _beta_shape(b, "b", False)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_density = times_log(a - 1, np.log(t)) + times_log(b - 1, np.log1p(-t)) \
            - betaln(a, b)
    inside = (t >= 0) & (t <= 1)
    result = np.where(inside, log_density, -np.inf)
    return float(result) if result.ndim == 0 else result


def beta_pdf(theta, a, b):
    """Beta(theta; a, b) density, vectorised over theta (see `beta_logpdf`)."""
    result = np.exp(beta_logpdf(theta, a, b))
    return float(result) if np.ndim(result) == 0 else result


@dataclass(frozen=True)
class BetaSummary:
    """Everything a coin-toss slider prints, for prior Beta(a, b) and the observed tosses.

    `mle` is None when there are no tosses (0/0), and `map` is None when the
    posterior has no single mode (see `beta_mode`).  `prior_weight` is
    (a + b) / (a + b + N): the posterior mean equals
    prior_weight * prior_mean + (1 - prior_weight) * mle, so the prior washes
    out as N grows.
    """

    a: float | Fraction
    b: float | Fraction
    heads: float | Fraction
    tails: float | Fraction
    prior_mean: float | Fraction
    prior_strength: float | Fraction
    posterior_a: float | Fraction
    posterior_b: float | Fraction
    mle: float | Fraction | None
    map: float | Fraction | None
    posterior_mean: float | Fraction
    prior_weight: float | Fraction

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        def show(value) -> str:
            if value is None:
                return "undefined"
            return str(value) if isinstance(value, Fraction) else f"{value:.4g}"

        return "\n".join(
            [
                f"prior Beta({show(self.a)}, {show(self.b)}): mean {show(self.prior_mean)}, "
                f"strength {show(self.prior_strength)} pseudo-tosses",
                f"data: {show(self.heads)} heads, {show(self.tails)} tails",
                f"posterior Beta({show(self.posterior_a)}, {show(self.posterior_b)})",
                f"MLE {show(self.mle)} | MAP {show(self.map)} | posterior mean {show(self.posterior_mean)}",
            ]
        )


def beta_summary(a, b, heads, tails, *, exact: bool = False) -> BetaSummary:
    """Prior, posterior and the three point estimates (MLE, MAP, posterior mean)."""
    a = _beta_shape(a, "a", exact)
    b = _beta_shape(b, "b", exact)
    heads = _nonnegative_count(heads, "heads", exact)
    tails = _nonnegative_count(tails, "tails", exact)
    post_a, post_b = beta_posterior(a, b, heads, tails, exact=exact)
    try:
        map_estimate = beta_mode(post_a, post_b, exact=exact)
    except ValueError:
        map_estimate = None
    n = heads + tails
    return BetaSummary(
        a=a,
        b=b,
        heads=heads,
        tails=tails,
        prior_mean=beta_mean(a, b, exact=exact),
        prior_strength=a + b,
        posterior_a=post_a,
        posterior_b=post_b,
        mle=mle_bernoulli(heads, tails, exact=exact) if n > 0 else None,
        map=map_estimate,
        posterior_mean=beta_mean(post_a, post_b, exact=exact),
        prior_weight=(a + b) / (a + b + n),
    )


# ---------------------------------------------------------------------------
# K outcomes: Dirichlet pseudo-counts
# ---------------------------------------------------------------------------


def _pseudo_counted(counts, beta, totals=None, n_outcomes=None):
    """Numerators n_k + beta and denominators N + K beta of the Lidstone estimate.

    Without ``totals`` the last axis of ``counts`` holds the K outcomes of one
    distribution, and the denominator is sum_k (n_k + beta_k). With ``totals``, every
    entry of ``counts`` is one outcome of its own ``n_outcomes``-way distribution with
    ``totals`` observations (BernoulliNB: a word is present or absent, K = 2, among the
    documents of a class), and the denominator is totals + K beta.
    """
    smoothed = counts + beta
    if totals is None:
        return smoothed, smoothed.sum(axis=-1, keepdims=True)
    return smoothed, totals + n_outcomes * beta


def lidstone(counts, beta=1.0, *, exact: bool = False):
    """(n_j + beta) / (N + J beta): add `beta` pseudo-counts to each of the J outcomes.

    `counts` holds one count per outcome on its last axis; several rows (one per
    class, say) are smoothed independently, as naive Bayes does.  beta = 1 is
    Laplace, beta = 0 the maximum-likelihood estimate.  This is the formula
    scikit-learn's MultinomialNB and CategoricalNB use with alpha = beta.
    """
    n = _as_counts(counts, exact=exact)
    pseudo = _as_scalar(beta, "beta", exact=exact)
    if pseudo < 0:
        raise ValueError(f"beta (pseudo-count) must be >= 0, got {pseudo}")
    smoothed, totals = _pseudo_counted(n, pseudo)
    if np.any(totals == 0):
        raise ValueError("all counts are zero and beta = 0: the estimate is 0/0; use beta > 0")
    return _output(smoothed / totals, exact)


def lidstone_log(counts, beta, *, totals=None, n_outcomes=None) -> np.ndarray:
    """log of `lidstone`'s estimate, for the estimators (arrays of floats).

    ``beta`` may hold one pseudo-count per outcome (scikit-learn's per-feature alpha).
    A zero count with beta = 0 gives log 0 = -inf on purpose, and 0/0 gives NaN only
    for a class with no data and no smoothing, which the estimators never predict from.
    With ``totals`` and ``n_outcomes`` every count is one outcome of its own K-way
    distribution (see `_pseudo_counted`); BernoulliNB uses K = 2.
    A NaN or an infinity among ``counts``, ``beta`` or ``totals`` raises ValueError, and
    so does a negative ``beta``.
    """
    for values, name in ((counts, "counts"), (beta, "beta"), (totals, "totals")):
        if values is not None:
            check_finite(values, name)
    if np.any(np.asarray(beta) < 0):
        raise ValueError(f"beta (pseudo-count) must be >= 0, got {beta}")
    smoothed, denominator = _pseudo_counted(counts, beta, totals, n_outcomes)
    with np.errstate(invalid="ignore"):
        if (isinstance(smoothed, np.ndarray) and smoothed.dtype == np.float64
                and np.broadcast_shapes(smoothed.shape, np.shape(denominator)) == smoothed.shape):
            # Memory, not maths: the logarithm is taken in place. `smoothed` is a fresh
            # array, and on 20 Newsgroups this classes x words table is the largest thing
            # a streaming fit holds (lesson 07); log(smoothed) would briefly hold two.
            log(smoothed, out=smoothed)
            smoothed -= log(denominator)
            return smoothed
        return log(smoothed) - log(denominator)


def laplace(counts, *, exact: bool = False):
    """Add-one smoothing (n_j + 1) / (N + J); for a coin, (N1 + 1) / (N + 2)."""
    return lidstone(counts, 1, exact=exact)


def m_estimate(n, N, m, prior, *, exact: bool = False):
    """(n + m * prior) / (N + m): a prior guess `prior` worth `m` virtual examples.

    n counts the examples with the value of interest among N examples.  m = 0
    gives the maximum-likelihood n / N; as m grows the estimate moves to `prior`.
    Arguments broadcast like numpy arrays.
    """
    hits = _as_numbers(n, "n", exact=exact)
    total = _as_numbers(N, "N", exact=exact)
    weight = _as_numbers(m, "m", exact=exact)
    guess = _as_numbers(prior, "prior", exact=exact)
    if np.any(hits < 0):
        raise ValueError("n must be a non-negative count")
    try:
        too_many = np.broadcast_arrays(hits, total)
    except ValueError:
        raise ValueError(f"n and N must have matching shapes, got {hits.shape} and {total.shape}") from None
    if np.any(too_many[0] > too_many[1]):
        raise ValueError("n cannot exceed N (n counts a subset of the N examples)")
    if np.any(weight < 0):
        raise ValueError("m (number of virtual examples) must be >= 0")
    if np.any((guess < 0) | (guess > 1)):
        raise ValueError("prior must be a probability between 0 and 1")
    denominator = total + weight
    if np.any(denominator == 0):
        raise ValueError("N + m is zero: no real and no virtual examples, so the estimate is 0/0")
    try:
        result = (hits + weight * guess) / denominator
    except ValueError:
        raise ValueError("n, N, m and prior must have shapes that broadcast together") from None
    return _output(np.asarray(result), exact)
