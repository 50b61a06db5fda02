"""The formulas every other module reuses, each written once.

- `log`: a logarithm where log(0) = -inf without a warning;
- `logsumexp`: log(sum(exp(a))) without underflow (the posterior's normaliser);
- `moments` and `combine_moments`: count, mean and sum of squared deviations of a block
  of rows, and the pooled update that merges two blocks (Chan, Golub and LeVeque);
- `gaussian_log_density`: log N(x; mean, var), term by term;
- `times_log` and `log_dot`: count x log-probability where 0 * log 0 counts as 0, term by
  term and inside a (sparse) matrix product;
- `sigmoid` and `softplus`: 1 / (1 + exp(-z)) and log(1 + exp(z)) without overflow (the
  logistic regression of `linear` and Platt scaling in `calibration`).

The estimators, `mle` and `scale` call these; none of them writes the formulas again.
"""
from __future__ import annotations

import numpy as np

__all__ = ["log", "logsumexp", "moments", "combine_moments", "gaussian_log_density",
           "times_log", "log_dot", "sigmoid", "softplus"]


def log(values, out=None) -> np.ndarray:
    """Natural logarithm where log(0) = -inf without a RuntimeWarning.

    With alpha = 0 a zero count is a probability of zero; its logarithm is -inf on
    purpose, and the estimators handle -inf explicitly. ``out`` (a float64 array, maybe
    ``values`` itself) saves a copy of a large table.
    """
    with np.errstate(divide="ignore"):
        return np.log(values, out=out)


def logsumexp(a: np.ndarray, axis: int = 1) -> np.ndarray:
    """log(sum(exp(a))) without underflow: shift by the maximum first.

    Rows that are entirely -inf (every class impossible) give -inf, not NaN.
    """
    top = np.max(a, axis=axis, keepdims=True)
    safe_top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - safe_top), axis=axis, keepdims=True)) + safe_top
    return np.squeeze(out, axis=axis)


def moments(X: np.ndarray, weights=None) -> tuple:
    """``(n, mean, m2)`` of the rows of ``X``, column by column.

    ``n`` is the number of rows (or the sum of ``weights``), ``mean`` the (weighted)
    mean and ``m2`` the (weighted) sum of squared deviations from it; the biased,
    maximum-likelihood variance is ``m2 / n``. Keeping m2 rather than the variance is
    what lets two blocks be merged by `combine_moments`.
    """
    if weights is None:
        n = X.shape[0]
        mean = np.mean(X, axis=0)
        return n, mean, ((X - mean) ** 2).sum(axis=0)
    n = float(np.sum(weights))
    mean = np.average(X, axis=0, weights=weights)
    weights = np.broadcast_to(np.asarray(weights, dtype=np.float64)[:, None], X.shape)
    return n, mean, np.multiply((X - mean) ** 2, weights).sum(axis=0)


def combine_moments(n_a, mean_a, m2_a, n_b, mean_b, m2_b) -> tuple:
    """``(n, mean, m2)`` of two blocks together, from each block's `moments`.

    The pooled update of Chan, Golub and LeVeque, as lesson 07 writes it:
    mean = mean_a + delta n_b / n and m2 = m2_a + m2_b + delta^2 n_a n_b / n, with
    delta = mean_b - mean_a: the spread within each block plus the spread between the
    two means. It is what lets shards be fitted separately and merged into the model of
    all the data.
    """
    if n_b == 0:
        return n_a, mean_a, m2_a
    if n_a == 0:
        return n_b, mean_b, m2_b
    n = n_a + n_b
    delta = mean_b - mean_a
    return n, mean_a + delta * n_b / n, m2_a + m2_b + delta ** 2 * n_a * n_b / n


def gaussian_log_density(x, mean, var) -> np.ndarray:
    """log N(x; mean, var) = -1/2 log(2 pi var) - (x - mean)^2 / (2 var), elementwise."""
    return -0.5 * np.log(2.0 * np.pi * var) - (x - mean) ** 2 / (2.0 * var)


def times_log(x, log_y) -> np.ndarray:
    """``x * log_y`` term by term, where ``x == 0`` gives 0: the rule 0 * log 0 = 0.

    A zero count (or exponent) contributes nothing even where ``log_y`` is -inf (a
    probability of 0) or NaN (the log of 0/0); `log_dot` is the same rule inside a
    matrix product.
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(x == 0, 0.0, x * log_y)


def log_dot(X, log_params) -> np.ndarray:
    """``X @ log_params.T`` where 0 times log 0 counts as 0: `times_log`, summed, as a
    product that keeps a sparse ``X`` sparse.

    ``X`` (dense or sparse, non-negative: counts, frequencies, presence) has one row per
    sample; ``log_params`` one row per class, in the same columns. With alpha = 0 a
    log-probability may be -inf; a sample whose entry is 0 there gets no contribution
    from it (the word is absent), a sample with a positive entry gets -inf. A NaN (the
    log of 0/0) or +inf is treated alike: it matters only where ``X`` is positive, and
    -inf and +inf together give NaN.
    """
    log_params = np.asarray(log_params, dtype=np.float64)
    finite = np.isfinite(log_params)
    if finite.all():  # the usual case, alpha > 0: one product, no mask
        return np.asarray(X @ log_params.T)
    out = np.asarray(X @ np.where(finite, log_params, 0.0).T, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        for value, where in ((-np.inf, np.isneginf(log_params)),
                             (np.inf, np.isposinf(log_params)),
                             (np.nan, np.isnan(log_params))):
            if where.any():
                out[np.asarray(X @ where.T.astype(np.float64)) > 0] += value
    return out


def sigmoid(z) -> np.ndarray:
    """1 / (1 + exp(-z)) without overflow for large |z|.

    Written with exp(-|z|) only, which is at most 1: for z < 0 the same value is
    exp(z) / (1 + exp(z)), so a very negative z gives a tiny positive number, not 0 / inf.
    """
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def softplus(z) -> np.ndarray:
    """log(1 + exp(z)) without overflow: ``np.logaddexp(0, z)``.

    -softplus(-z) is log sigmoid(z), the log-likelihood of one logistic prediction.
    """
    return np.logaddexp(0.0, z)
