"""Numerics shared by the estimators: logarithms that accept zero, and log-sum-exp."""
from __future__ import annotations

import numpy as np

__all__ = ["log", "logsumexp"]


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
