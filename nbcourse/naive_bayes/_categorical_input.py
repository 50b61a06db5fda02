"""CategoricalNB's input: a table of labels or category codes, checked column by column.

Only `CategoricalNB` (and `TreeAugmentedNB`, which reads X through it) needs these
checks, so they live next to it; they follow `nbcourse._checks`' rule (a wrong type is a
TypeError, a wrong value a ValueError) and its wording.
"""
from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._checks import _check_not_empty, check_finite, plain

__all__ = ["CategoricalColumns", "check_categorical_column", "check_categorical_frame",
           "check_min_categories"]


class CategoricalColumns:
    """Checked categorical input: one 1-D array per feature."""

    def __init__(self, columns, keys, cat_dtypes, index):
        self.columns, self.keys, self.cat_dtypes, self.index = columns, keys, cat_dtypes, index
        self.shape = (len(columns[0]), len(columns))

    def __len__(self):
        return self.shape[0]


def check_categorical_frame(X, first: bool) -> pd.DataFrame:
    """Accept a DataFrame, an array or list of rows, or (for queries) a dict or Series."""
    if not first and isinstance(X, dict):
        X = pd.DataFrame([X])
    elif not first and isinstance(X, pd.Series):
        X = X.to_frame().T
    if isinstance(X, pd.DataFrame):
        frame = X
    elif sp.issparse(X):
        raise TypeError(
            "CategoricalNB needs dense data (sparse data was passed, but dense data is "
            "required): a DataFrame, or an array of category codes")
    elif isinstance(X, (np.ndarray, list, tuple)) or hasattr(X, "__array__"):
        if not isinstance(X, (np.ndarray, list, tuple)):
            X = np.asarray(X)
        array = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
        if array.ndim < 2:
            raise ValueError(
                "X must be 2-D (samples x features). Reshape your data either using "
                "X.reshape(-1, 1) if your data has a single feature or X.reshape(1, -1) if "
                "it contains a single sample.")
        if array.ndim > 2:
            raise ValueError(f"X must be 2-D (samples x features), got {array.ndim} dimensions")
        frame = pd.DataFrame(X if isinstance(X, np.ndarray) else list(map(list, X)))
    else:
        raise TypeError(f"X must be a pandas DataFrame of categories, got {type(X).__name__}")
    _check_not_empty(frame.shape, "X")
    return frame


def check_categorical_column(column: pd.Series, key, expect_codes) -> np.ndarray:
    """Category codes (whole numbers >= 0) as int64, or labels as an object array."""
    if column.isna().any():
        raise ValueError(
            f"X has missing values (NaN) in column(s) {[plain(key)]}; fill or drop them")
    values = column.to_numpy()
    numeric = values.dtype.kind in "iuf" or (
        values.dtype.kind == "O" and all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                                         for v in values))
    if values.dtype.kind == "c":
        raise ValueError("Complex data not supported: CategoricalNB needs labels or codes")
    if not isinstance(column.dtype, pd.CategoricalDtype) and numeric \
            and expect_codes is not False:
        numbers_ = values.astype(np.float64)
        check_finite(numbers_, "X", where=f" in column {plain(key)!r}")
        if (numbers_ < 0).any():
            raise ValueError(
                "Negative values in data passed to CategoricalNB (input X): numbers are "
                f"category codes 0, 1, 2, ..., found {plain(numbers_.min())!r} in column "
                f"{plain(key)!r}")
        if not np.array_equal(numbers_, np.round(numbers_)):
            example = numbers_[numbers_ != np.round(numbers_)][0]
            raise ValueError(
                f"CategoricalNB reads numbers as category codes 0, 1, 2, ..., but column "
                f"{plain(key)!r} holds {plain(example)!r}; give whole numbers, or labels "
                "(strings), or use GaussianNB for continuous features")
        return numbers_.astype(np.int64)
    if expect_codes:
        raise ValueError(
            f"feature {plain(key)!r} was fitted with category codes (numbers), got "
            f"{plain(values[0])!r}")
    for value in values:
        try:
            hash(value)
        except TypeError:
            raise TypeError(
                f"a category argument must be a string or a number (a label), got "
                f"{type(value).__name__} {value!r} in column {plain(key)!r}") from None
    return values.astype(object)


def check_min_categories(min_categories, n_features: int):
    if min_categories is None:
        return None
    values = np.asarray(min_categories)
    if not np.issubdtype(values.dtype, np.integer):
        raise TypeError(
            f"'min_categories' should have integral type. Got {values.dtype} instead.")
    if values.ndim == 0:
        values = np.full(n_features, int(values))
    if values.shape != (n_features,):
        raise ValueError(
            f"'min_categories' should have shape ({n_features},) when an array-like is "
            f"provided. Got {values.shape} instead.")
    if (values < 1).any():
        raise ValueError(f"'min_categories' must be >= 1, got {values.tolist()}")
    return values

