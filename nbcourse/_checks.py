"""The library's input checks, and the one rule for which error a bad input raises.

Every check that more than one function needs lives here (a number, a matrix, labels,
priors, alpha, a whole number, a seed), written once; CategoricalNB's table of labels
is checked by `naive_bayes._categorical_input` with the same rule.

Students feed the library hand-made lists, DataFrames and sparse matrices. A numpy
traceback from deep inside a matrix product teaches nothing, so every public entry
point validates its arguments with a function from this module and raises an error
that names the argument and says what was expected.

Where scikit-learn raises an error for the same mistake, the message also contains
scikit-learn's own phrase ("Negative values in data passed to ...", "Reshape your
data ...", "X has 3 features, but ... is expecting 4 features as input"), so that a
search for the message finds the answers written for scikit-learn.

One rule for which error: an argument of the wrong *type* (a string where a number
belongs, a float where a whole number belongs, a bool anywhere but a flag) raises
TypeError; one of the right type with a wrong *value* (negative, out of range, the
wrong shape) raises ValueError, as in Python and scikit-learn.

Values inside messages are shown as plain Python values (``1.1``, ``'x'``), never as
numpy reprs (``np.float64(1.1)``): see `plain`.
"""
from __future__ import annotations

import numbers
import sys
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import scipy.sparse as sp

__all__ = [
    "NotFittedError",
    "check_alpha",
    "check_bool",
    "check_classes",
    "check_feature_names",
    "check_finite",
    "check_labels",
    "check_matrix",
    "check_positive",
    "check_positive_int",
    "check_prior",
    "check_sample_weight",
    "check_seed",
    "not_fitted",
    "plain",
]


class NotFittedError(ValueError, AttributeError):
    """Raised when a model is used before ``fit``.

    A subclass of ValueError and AttributeError, like scikit-learn's, so that code written
    for scikit-learn (``except NotFittedError``, ``hasattr`` probes) behaves the same.
    Raise it with `not_fitted`: when scikit-learn is in use, the error is then also an
    instance of scikit-learn's own NotFittedError.
    """


def _sklearn_exception(name: str):
    """scikit-learn's exception or warning class ``name``, if scikit-learn is in use.

    Never imports scikit-learn: a program that has not imported it gets None.
    """
    module = sys.modules.get("sklearn.exceptions")
    return getattr(module, name, None)


_BOTH_NOT_FITTED = {}


def not_fitted(estimator) -> NotFittedError:
    """The not-fitted error for ``estimator``, to raise."""
    cls = NotFittedError
    theirs = _sklearn_exception("NotFittedError")
    if theirs is not None:
        if theirs not in _BOTH_NOT_FITTED:
            _BOTH_NOT_FITTED[theirs] = type("NotFittedError", (NotFittedError, theirs),
                                            {"__module__": __name__})
        cls = _BOTH_NOT_FITTED[theirs]
    return cls(f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with "
               "appropriate arguments before using this estimator.")


def plain(value):
    """``value`` as a plain Python object, so that messages read ``1.1`` and ``'x'``.

    numpy scalars become Python scalars and arrays become (nested) lists; anything else
    is returned unchanged.
    """
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    return value


# ---------------------------------------------------------------------------
# Numbers for the formulas of `mle` and `smoothing`.  They come in as floats
# (numpy float64) or, with exact=True, as fractions.Fraction held in numpy
# object arrays, so that a notebook can show 4/5 rather than 0.8.
# ---------------------------------------------------------------------------


def _to_fraction(value, name: str) -> Fraction:
    """One number as an exact Fraction.

    A float is read as the decimal it prints as (0.1 -> 1/10, not the binary
    value 3602879701896397/2**55), which is what a person typing 0.1 means.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must contain numbers, not booleans (got {plain(value)!r})")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        check_finite(value, name)
        return Fraction(repr(value))
    raise TypeError(f"{name} must contain numbers, got {type(value).__name__} {plain(value)!r}")


def _as_numbers(values, name: str, *, exact: bool = False) -> np.ndarray:
    """A finite numeric array: float64, or an object array of Fractions if exact."""
    if exact:
        array = np.asarray(values, dtype=object)
        if array.size == 0:
            return array.astype(float)
        converted = np.frompyfunc(lambda v: _to_fraction(v, name), 1, 1)(array)
        return np.asarray(converted, dtype=object)
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be numeric, got the string {values!r}")
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"{name} must be a number or a rectangular array of numbers ({error})"
        ) from None
    check_finite(array, name)
    return array


def _as_scalar(value, name: str, *, exact: bool = False):
    """A single finite number (float, or Fraction when exact)."""
    array = _as_numbers(value, name, exact=exact)
    if array.ndim != 0:
        raise ValueError(f"{name} must be a single number, got an array of shape {array.shape}")
    return array.item() if exact else float(array)


def _as_counts(counts, name: str = "counts", *, exact: bool = False) -> np.ndarray:
    """Non-negative counts; the last axis runs over the K outcomes."""
    array = _as_numbers(counts, name, exact=exact)
    if array.ndim == 0:
        raise ValueError(
            f"{name} must be an array with one count per outcome, got the single number "
            f"{plain(array.item())!r}")
    if array.size == 0 or array.shape[-1] == 0:
        raise ValueError(f"{name} is empty: expected at least one outcome")
    if np.any(array < 0):
        raise ValueError(f"{name} must be non-negative, got {np.asarray(array).tolist()}")
    return array


def _as_count_vector(counts, name: str = "counts", *, exact: bool = False) -> np.ndarray:
    """One distribution's counts: a 1-D array of non-negative counts, one per outcome."""
    array = _as_counts(counts, name, exact=exact)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one count per outcome), got shape {array.shape}")
    return array


def _as_simplex_points(theta, k: int, atol: float, name: str = "theta") -> np.ndarray:
    points = _as_numbers(theta, name)
    if points.ndim == 0 or points.shape[-1] != k:
        raise ValueError(
            f"{name} must have one probability per outcome (last axis of length {k}), "
            f"got shape {points.shape}"
        )
    if np.any(points < 0):
        raise ValueError(f"{name} must be non-negative: probabilities cannot be negative")
    sums = points.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0.0, atol=atol):
        worst = sums.flat[np.argmax(np.abs(sums - 1.0))]
        raise ValueError(
            f"{name} must sum to 1 (a point on the probability simplex), got a sum of {plain(worst)!r}"
        )
    return points


def _as_samples(x) -> np.ndarray:
    samples = _as_numbers(x, "x")
    if samples.ndim not in (1, 2):
        raise ValueError(f"x must be 1-D (samples) or 2-D (samples x features), got shape {samples.shape}")
    if samples.shape[0] == 0:
        raise ValueError("x is empty: need at least one sample")
    return samples


def _beta_shape(value, name: str, exact: bool):
    number = _as_scalar(value, name, exact=exact)
    if number <= 0:
        raise ValueError(f"{name} must be positive (a Beta prior needs a > 0 and b > 0), got {number}")
    return number


def _nonnegative_count(value, name: str, exact: bool):
    number = _as_scalar(value, name, exact=exact)
    if number < 0:
        raise ValueError(f"{name} must be a non-negative count, got {number}")
    return number


# ---------------------------------------------------------------------------
# Hyper-parameters.  The estimators call these in fit, never in __init__, as
# scikit-learn does: set_params and clone must accept anything.
# ---------------------------------------------------------------------------


def check_alpha(alpha, name: str = "alpha", *, n_features: int | None = None):
    """``alpha`` as a float (or, if ``n_features`` is given, also a per-feature array).

    A finite number >= 0 is accepted everywhere; an array with one value per feature only
    where ``n_features`` says how many there must be (MultinomialNB, BernoulliNB).
    """
    if n_features is not None and not isinstance(alpha, numbers.Real) \
            and not isinstance(alpha, (str, bytes)) and np.ndim(alpha) == 1:
        try:
            values = np.asarray(alpha, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold numbers, got {plain(alpha)!r}") from None
        if values.shape[0] != n_features:
            raise ValueError(
                f"When alpha is an array, it should contains `n_features`. Got "
                f"{values.shape[0]} elements instead of {n_features}.")
        check_finite(values, name)
        if (values < 0).any():
            raise ValueError(
                f"All values in alpha must be greater than 0. ({name} must hold "
                f"numbers >= 0, got {values.tolist()})")
        return values
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"{name} must be a real number >= 0, got {plain(alpha)!r}")
    check_finite(float(alpha), name)
    if alpha < 0:
        raise ValueError(f"{name} must be a number >= 0, got {plain(alpha)!r}")
    return float(alpha)


def check_positive(value, name: str) -> float:
    """A finite real number > 0 (``C``, ``tol``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive finite number, got {plain(value)!r}")
    check_finite(float(value), name)
    if not value > 0:
        raise ValueError(f"{name} must be a positive finite number, got {plain(value)!r}")
    return float(value)


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """A whole number >= ``minimum`` (``max_iter``, ``n_shards``, ``max_features``, ...).

    The one check of its kind: a bool, a float such as 2.0 or a string is the wrong type
    (TypeError); a whole number below ``minimum`` the wrong value (ValueError).
    """
    what = (f"a positive integer (a whole number >= 1)" if minimum == 1
            else f"a whole number >= {minimum}")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {what}, got {plain(value)!r}")
    if value < minimum:
        raise ValueError(f"{name} must be {what}, got {plain(value)!r}")
    return int(value)


def check_seed(seed, *, allow_none: bool = False):
    """A random seed: a whole number (or None, where that means "do not shuffle")."""
    if seed is None and allow_none:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an int{' or None' if allow_none else ''}, got {seed!r}")
    return int(seed)


def check_bool(value, name: str) -> bool:
    """True or False (``fit_prior``, ``force_alpha``)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {plain(value)!r}")
    return bool(value)


def check_prior(prior, n_classes: int, name: str = "class_prior") -> np.ndarray:
    """Class probabilities given by the user: one per class, >= 0, summing to one."""
    try:
        values = np.asarray(prior, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must hold one number per class, got {plain(prior)!r}") from None
    if values.ndim != 1 or values.shape[0] != n_classes:
        raise ValueError(
            f"Number of priors must match number of classes: {name} must hold "
            f"{n_classes} numbers, one per class, got {plain(prior)!r}")
    check_finite(values, name)
    if (values < 0).any():
        raise ValueError(f"Priors must be non-negative: {name} is {values.tolist()}")
    if not np.isclose(values.sum(), 1.0):
        raise ValueError(
            f"The sum of the priors should be 1: {name} {values.tolist()} sums to "
            f"{float(values.sum())}")
    return values


# ---------------------------------------------------------------------------
# Data: X, y, sample weights, class lists, feature names.
# ---------------------------------------------------------------------------


def check_finite(values, name: str, *, where: str = "", fix: str = "") -> None:
    """Refuse NaN and infinities in ``values`` (an array of floats), saying which of them
    are there, in scikit-learn's words ("X contains NaN", "X contains infinity", or both);
    ``where`` (`` in column 'k'``) and ``fix`` (what to do) go into the message."""
    if np.all(np.isfinite(values)):
        return
    found = [word for word, seen in (("NaN", np.isnan(values).any()),
                                     ("infinity", np.isinf(values).any())) if seen]
    raise ValueError(f"{name} contains {' and '.join(found)}{where}"
                     + (f"; {fix}" if fix else ""))


def _check_not_empty(shape: tuple, name: str) -> None:
    """At least one sample and one feature (scikit-learn's wording, so a search finds it)."""
    if shape[0] == 0:
        raise ValueError(
            f"{name} is empty: Found array with 0 sample(s) (shape={shape}) while a minimum "
            "of 1 is required.")
    if shape[1] == 0:
        raise ValueError(
            f"{name} has no features: 0 feature(s) (shape={shape}) while a minimum of 1 is "
            "required.")


def check_matrix(X, name: str = "X", *, owner: str | None = None, allow_sparse: bool = True,
                 non_negative: bool = False, n_features: int | None = None):
    """Return ``X`` as a 2-D float array or CSR matrix, or raise a clear error.

    Sparse input stays sparse: a 20 Newsgroups count matrix is 11,314 x 130,107 and
    would need 11 GB as a dense array. ``owner`` (an estimator's name) goes into the
    messages that scikit-learn also words with the estimator's name.
    """
    who = owner or "the model"
    if sp.issparse(X):
        if not allow_sparse:
            raise TypeError(
                f"{name} must be a dense array here (sparse data was passed, but dense data "
                f"is required); call {name}.toarray() first")
        if X.dtype.kind == "c":
            raise ValueError(f"Complex data not supported: {name} holds complex numbers")
        X = sp.csr_matrix(X, dtype=np.float64)
        values = X.data
    else:
        if hasattr(X, "to_numpy"):  # pandas DataFrame
            X = X.to_numpy()
        try:
            X = np.asarray(X)
            if X.dtype.kind == "c":
                raise ValueError(f"Complex data not supported: {name} holds complex numbers")
            X = X.astype(np.float64, copy=False)
        except (TypeError, ValueError) as exc:
            if str(exc).startswith("Complex"):
                raise
            raise TypeError(f"{name} must contain numbers only ({exc})") from None
        if X.ndim < 2:
            shape = "a single number" if X.ndim == 0 else f"a 1-D array of length {X.shape[0]}"
            raise ValueError(
                f"{name} must be 2-D (samples x features), got {shape}. Reshape your data "
                f"either using {name}.reshape(-1, 1) if your data has a single feature or "
                f"{name}.reshape(1, -1) if it contains a single sample.")
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D (samples x features), got {X.ndim} dimensions")
        values = X
    _check_not_empty(X.shape, name)
    check_finite(values, name, fix="remove or fill them")
    if non_negative and values.size and values.min() < 0:
        raise ValueError(
            f"Negative values in data passed to {who} (input {name}): {name} must hold "
            f"non-negative counts or weights, found {plain(values.min())!r}")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(
            f"{name} has {X.shape[1]} features, but {who} is expecting {n_features} features "
            "as input.")
    return X


def check_labels(y, n_samples: int | None, name: str = "y", *, rows: str = "X") -> np.ndarray:
    """Return the class labels as a 1-D array of length ``n_samples``.

    Labels are names of classes: strings, integers, or floats that are whole numbers.
    Other floats look like a regression target and are refused, as in scikit-learn.
    ``n_samples=None`` (a metric's ``y_true``, say) accepts any length but 0; ``rows``
    names what the labels must match one by one.
    """
    if y is None:
        raise ValueError(
            "this classifier requires y to be passed, but the target y is None: give one "
            "class label per sample")
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            f"A column-vector {name} was passed when a 1d array was expected; using "
            f"{name}.ravel()", _sklearn_exception("DataConversionWarning") or UserWarning,
            stacklevel=3)
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one label per sample), got shape {y.shape}")
    if n_samples is None and y.shape[0] == 0:
        raise ValueError(f"{name} is empty: it needs at least one label")
    if n_samples is not None and y.shape[0] != n_samples:
        raise ValueError(f"{name} has {y.shape[0]} labels but {rows} has {n_samples} samples: "
                         f"{name} must hold one label per row of {rows}")
    if y.dtype.kind == "f":
        check_finite(y, name, fix="a label names a class")
    if y.dtype.kind == "f" and not np.array_equal(y, np.round(y)):
        raise ValueError(
            f"Unknown label type: continuous. {name} holds numbers such as "
            f"{plain(y[y != np.round(y)][0])!r}, which look like a regression target; a "
            "classifier needs class labels")
    if y.dtype.kind == "O" and any(v is None or (isinstance(v, float) and v != v) for v in y):
        raise ValueError(f"{name} contains missing labels")
    return y


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray | None:
    """None (every sample counts once), or one finite weight >= 0 per sample."""
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Real) and not isinstance(sample_weight, bool):
        sample_weight = np.full(n_samples, float(sample_weight))
    try:
        weights = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"sample_weight must hold one number per sample, got {plain(sample_weight)!r}") \
            from None
    if weights.ndim != 1 or weights.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight.shape == {weights.shape}, expected ({n_samples},): one weight "
            "per sample")
    check_finite(weights, "sample_weight")
    if (weights < 0).any():
        raise ValueError("sample_weight must hold numbers >= 0")
    if n_samples and not weights.any():
        raise ValueError("every sample_weight is zero: no sample would count")
    return weights


def check_classes(classes) -> np.ndarray:
    """The sorted list of class labels passed to ``partial_fit``."""
    classes = np.asarray(classes)
    if classes.ndim != 1 or len(classes) < 1:
        raise ValueError(f"classes must list the class labels, got {plain(classes)!r}")
    if len(np.unique(classes)) != len(classes):
        raise ValueError(f"classes must not repeat a label, got {classes.tolist()}")
    return np.sort(classes)


def check_feature_names(estimator, X, *, reset: bool) -> None:
    """Remember a DataFrame's column names at fit; compare them at predict.

    Follows scikit-learn: ``feature_names_in_`` exists only after fitting on a
    DataFrame whose column names are all strings, and a later DataFrame must have the
    same columns in the same order.
    """
    names = None
    if isinstance(X, pd.DataFrame) and len(X.columns) and \
            all(isinstance(c, str) for c in X.columns):
        names = np.asarray(X.columns, dtype=object)
    kind = type(estimator).__name__
    if reset:
        if names is not None:
            estimator.feature_names_in_ = names
        else:
            estimator.__dict__.pop("feature_names_in_", None)
        return
    fitted = getattr(estimator, "feature_names_in_", None)
    if fitted is None and names is not None:
        warnings.warn(f"X has feature names, but {kind} was fitted without feature names",
                      UserWarning, stacklevel=4)
        return
    if fitted is not None and names is None:
        warnings.warn(f"X does not have valid feature names, but {kind} was fitted with "
                      "feature names", UserWarning, stacklevel=4)
        return
    if fitted is None or (len(fitted) == len(names) and np.array_equal(fitted, names)):
        return
    unseen = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))
    message = "The feature names should match those that were passed during fit.\n"
    if unseen:
        message += "Feature names unseen at fit time:\n" + "".join(f"- {n}\n" for n in unseen[:5])
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" \
            + "".join(f"- {n}\n" for n in missing[:5])
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(message)
