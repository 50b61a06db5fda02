"""`merge`: two models fitted on disjoint data give the model of their union.

Fitting is counting, so a fitted model is a table of sums; this module lines up the
classes of the two models and lets each variant add its statistics
(``_merge_statistics``).
"""
from __future__ import annotations

import copy

import numpy as np

from ._base import _BaseNB


def _expand_classes(model, classes: np.ndarray) -> None:
    """Give ``model`` rows of zero statistics for the labels of ``classes`` it lacks."""
    rows = np.searchsorted(classes, model.classes_)
    for name in model._per_class_statistics:
        value = getattr(model, name)
        if isinstance(value, list):
            setattr(model, name, [_expand_rows(v, rows, len(classes)) for v in value])
        else:
            setattr(model, name, _expand_rows(value, rows, len(classes)))
    model.classes_ = classes


def _expand_rows(array: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros((n,) + array.shape[1:])
    out[rows] = array
    return out


def merge(first, second):
    """The model fitted on the union of two disjoint data sets, from the two fitted models.

    Naive Bayes is a table of sums: counts add up, and Gaussian means and variances
    combine with the pooled-variance update (Chan et al.). So ``merge(a, b)`` equals one
    fit on the data of ``a`` and ``b`` together (counts exactly; Gaussian moments to
    rounding). Both models must be of the same class, with the same hyper-parameters
    and features; their classes may differ (the result has the union). Neither model
    is changed.
    """
    if type(first) is not type(second) or not isinstance(first, _BaseNB):
        raise TypeError(
            "merge needs two naive Bayes models of the same kind, got "
            f"{type(first).__name__} and {type(second).__name__}")
    first._check_fitted()
    second._check_fitted()
    if repr(first.get_params()) != repr(second.get_params()):
        raise ValueError(
            f"the two models have different hyper-parameters ({first!r} and {second!r}); "
            "merge models fitted with the same settings")
    if first.n_features_in_ != second.n_features_in_ or \
            not np.array_equal(getattr(first, "feature_names_in_", None),
                               getattr(second, "feature_names_in_", None)):
        raise ValueError("the two models were fitted on different features")
    merged, other = copy.deepcopy(first), copy.deepcopy(second)
    classes = np.union1d(merged.classes_, other.classes_)
    for model in (merged, other):
        if not np.array_equal(model.classes_, classes):
            _expand_classes(model, classes)
    merged._merge_statistics(other)
    merged._update_parameters(merged._check_params(len(classes), merged.n_features_in_))
    return merged
