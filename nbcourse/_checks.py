"""Input checks shared by the estimators.

Students feed these functions hand-made lists, DataFrames and sparse matrices. A
numpy traceback from deep inside a matrix product teaches nothing, so every public
entry point validates its arguments here and raises an error that names the
argument and says what was expected.
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp


class NotFittedError(ValueError, AttributeError):
    """Raised when a model is used before ``fit``.

    A subclass of ValueError and AttributeError, like scikit-learn's, so that code written
    for scikit-learn (``except NotFittedError``, ``hasattr`` probes) behaves the same.
    """


def check_alpha(alpha, name: str = "alpha") -> float:
    """Return ``alpha`` as a float after checking it is a finite number >= 0."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"{name} must be a real number >= 0, got {alpha!r}")
    if not np.isfinite(float(alpha)) or alpha < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {alpha!r}")
    return float(alpha)


def check_matrix(X, name: str = "X", *, allow_sparse: bool = True,
                 non_negative: bool = False, whole_numbers: bool = False,
                 n_features: int | None = None):
    """Return ``X`` as a 2-D float array or CSR matrix, or raise a clear error.

    Sparse input stays sparse: a 20 Newsgroups count matrix is 11,314 x 130,107
    and would need 11 GB as a dense array.
    """
    if sp.issparse(X):
        if not allow_sparse:
            raise TypeError(f"{name} must be a dense array here; call {name}.toarray() first")
        X = sp.csr_matrix(X, dtype=np.float64)
        values = X.data
    else:
        if hasattr(X, "to_numpy"):  # pandas DataFrame
            X = X.to_numpy()
        try:
            X = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must contain numbers only ({exc})") from None
        if X.ndim == 1:
            raise ValueError(
                f"{name} must be 2-D (samples x features), got a 1-D array of length "
                f"{X.shape[0]}; use {name}.reshape(1, -1) for a single sample")
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D (samples x features), got {X.ndim} dimensions")
        values = X
    if X.shape[0] == 0:
        raise ValueError(f"{name} is empty: it needs at least one sample")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if non_negative and values.size and values.min() < 0:
        raise ValueError(f"{name} must hold non-negative counts, found {values.min()!r}")
    if whole_numbers and values.size and not np.array_equal(values, np.round(values)):
        example = values[values != np.round(values)][0]
        raise ValueError(
            f"{name} must hold whole-number counts (how often each word occurs), found "
            f"{example!r}; for continuous features use GaussianNB")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(
            f"{name} has {X.shape[1]} features but the model was fitted with {n_features}")
    return X


def check_labels(y, n_samples: int, name: str = "y") -> np.ndarray:
    """Return the class labels as a 1-D array of length ``n_samples``."""
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one label per sample), got shape {y.shape}")
    if y.shape[0] != n_samples:
        raise ValueError(f"{name} has {y.shape[0]} labels but X has {n_samples} samples")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"{name} contains NaN labels")
    if y.dtype.kind == "O" and any(v is None or (isinstance(v, float) and v != v) for v in y):
        raise ValueError(f"{name} contains missing labels")
    return y


def logsumexp(a: np.ndarray, axis: int = 1) -> np.ndarray:
    """log(sum(exp(a))) without underflow: shift by the maximum first.

    Rows that are entirely -inf (every class impossible) give -inf, not NaN.
    """
    top = np.max(a, axis=axis, keepdims=True)
    safe_top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - safe_top), axis=axis, keepdims=True)) + safe_top
    return np.squeeze(out, axis=axis)
