"""`merge`: two models fitted on disjoint data give the model of their union.

Fitting is counting, so a fitted model is a table of sums; this module lines up the
classes of the two models and lets each variant add its statistics
(``_merge_statistics``).
"""
from __future__ import annotations

import copy

import numpy as np

from ._base import _BaseNB
from .tree_augmented import TreeAugmentedNB


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


def _same_setting(a, b) -> bool:
    """Whether two hyper-parameter values are the same setting: numbers by value
    (``1`` is ``1.0``), arrays and sequences element by element (``repr`` would shorten a
    long array to its ends), mappings key by key."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys()
                and all(_same_setting(a[key], b[key]) for key in a))
    if isinstance(a, (np.ndarray, list, tuple)) or isinstance(b, (np.ndarray, list, tuple)):
        try:
            return np.array_equal(np.asarray(a), np.asarray(b))
        except (TypeError, ValueError):  # ragged sequences: compare item by item
            return (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))
                    and len(a) == len(b) and all(map(_same_setting, a, b)))
    flags = isinstance(a, (bool, np.bool_)), isinstance(b, (bool, np.bool_))
    if any(flags):  # True is a flag here, not the number 1
        return all(flags) and bool(a) == bool(b)
    numbers = (int, float, np.integer, np.floating)
    if isinstance(a, numbers) and isinstance(b, numbers):
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


def merge(first, second):
    """The model fitted on the union of two disjoint data sets, from the two fitted models.

    Naive Bayes is a table of sums: counts add up, and Gaussian means and variances
    combine with the pooled-variance update (Chan et al.). So ``merge(a, b)`` equals one
    fit on the data of ``a`` and ``b`` together (counts exactly; Gaussian moments to
    rounding). Both models must be of the same class, with the same hyper-parameters
    and features; their classes may differ (the result has the union). Neither model
    is changed.
    """
    if isinstance(first, TreeAugmentedNB) and isinstance(second, TreeAugmentedNB):
        raise TypeError(
            "TreeAugmentedNB cannot be merged: its tree is chosen from the conditional mutual "
            "information of all the data, which two trees chosen on separate parts do not give")
    if type(first) is not type(second) or not isinstance(first, _BaseNB):
        raise TypeError(
            "merge needs two naive Bayes models of the same kind, got "
            f"{type(first).__name__} and {type(second).__name__}")
    first._check_fitted()
    second._check_fitted()
    if not _same_setting(first.get_params(), second.get_params()):
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
