"""Calibration: turning a fitted model's scores into probabilities that come true.

A naive Bayes posterior of 0.999 is often right far less than 999 times in 1,000. The fix
leaves the model alone and learns, on data it was *not* fitted on (a validation part),
a one-dimensional map from its score to a frequency:

* **Platt scaling** (``method="sigmoid"``) fits P(y = 1 | s) = 1 / (1 + exp(-(a s + b)))
  by maximum likelihood: a logistic regression with the score ``s`` as its only feature.
  Two numbers, so little validation data is enough, but the map is always an S-curve.
  As in Platt (1999) the 0/1 targets are softened to (N+ + 1)/(N+ + 2) and
  1/(N- + 2), so that a validation part with no mistakes does not push a and b to infinity.
* **Isotonic regression** (``method="isotonic"``) fits any non-decreasing step map by
  *pool-adjacent-violators*: sort by score, and wherever a later group has a lower
  frequency than an earlier one, merge the two into their weighted mean, until the
  frequencies rise. Scores between the fitted points are interpolated linearly and
  scores outside them get the end values. More flexible, so it needs more data.

`CalibratedClassifier` wraps an already fitted classifier and does what scikit-learn's
``CalibratedClassifierCV(FrozenEstimator(model), method=...)`` does: the score is
``decision_function`` when the model has one, else ``predict_proba``; two classes need
one map (for ``classes_[1]``); with more classes each class gets its own map
(one-vs-rest) and the calibrated columns are divided by their sum.

`expected_calibration_error` measures what calibration repairs: the gap between
predicted and observed frequency in the bins of a reliability table, weighted by how many
predictions fall in each bin.
"""
from __future__ import annotations

import numpy as np

from ._checks import check_finite, check_labels
from ._estimator import BaseEstimator, ClassifierMixin
from ._numerics import sigmoid, softplus
from .evaluation import reliability_table

__all__ = ["CalibratedClassifier", "PlattScaling", "IsotonicCalibration",
           "pool_adjacent_violators", "expected_calibration_error"]

METHODS = ("sigmoid", "isotonic")


def _scores(values, name: str = "scores") -> np.ndarray:
    values = np.asarray(values)
    if values.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numbers, got dtype {values.dtype}")
    values = values.astype(np.float64)
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one score per sample), got shape {values.shape}")
    if values.shape[0] == 0:
        raise ValueError(f"{name} is empty: calibration needs at least one sample")
    check_finite(values, name)
    return values


def _zero_one(y, n: int, name: str = "y") -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"{name} must be 1-D with one 0/1 target per score ({n}), got shape {y.shape}")
    if y.dtype.kind not in "biuf" or not np.all(np.isin(y, (0, 1))):
        raise ValueError(f"{name} must hold only 0 and 1 (1 = the class being calibrated)")
    return y.astype(np.float64)


class PlattScaling(BaseEstimator):
    """Fit P(y = 1 | s) = sigmoid(slope_ * s + intercept_) to scores ``s`` and 0/1 targets.

    Newton's method on the two parameters, with step halving, from Platt's starting
    point (slope 0, intercept the log-odds of the smoothed class counts). Scores larger
    than 30 in size are divided by the largest one while fitting (the fitted curve is the
    same; the numbers stay well conditioned), as scikit-learn does.
    """

    _fitted_attribute = "slope_"

    def fit(self, scores, y, *, max_iter: int = 100, tol: float = 1e-10) -> "PlattScaling":
        s = _scores(scores)
        y = _zero_one(y, s.shape[0])
        scale = max(float(np.max(np.abs(s))), 1.0) if np.max(np.abs(s)) >= 30 else 1.0
        f = s / scale
        n_pos = float(y.sum())
        n_neg = y.shape[0] - n_pos
        target = np.where(y > 0, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
        design = np.column_stack([f, np.ones_like(f)])

        def loss(params):
            z = design @ params
            return float(np.sum(softplus(z) - target * z))

        params = np.array([0.0, np.log((n_pos + 1.0) / (n_neg + 1.0))])
        current = loss(params)
        for _ in range(max_iter):
            p = sigmoid(design @ params)
            gradient = design.T @ (p - target)
            if np.max(np.abs(gradient)) <= tol * max(1.0, len(f)):
                break
            hessian = (design * (p * (1.0 - p))[:, None]).T @ design
            hessian += 1e-12 * np.eye(2)  # one distinct score makes it singular
            step = np.linalg.solve(hessian, gradient)
            size = 1.0
            while size > 1e-10:
                trial = params - size * step
                value = loss(trial)
                if value <= current:
                    break
                size /= 2.0
            else:
                break
            params, improvement, current = trial, current - value, value
            if improvement <= 1e-15 * max(1.0, abs(current)):
                break
        self.slope_ = float(params[0] / scale)
        self.intercept_ = float(params[1])
        return self

    def predict(self, scores) -> np.ndarray:
        self._check_fitted()
        return sigmoid(self.slope_ * _scores(scores) + self.intercept_)


def pool_adjacent_violators(values, weights=None) -> np.ndarray:
    """The non-decreasing sequence closest to ``values`` in weighted squared error.

    Walk left to right keeping blocks (mean, weight, length); whenever the newest block's
    mean is below the one before it, merge the two into their weighted mean, and repeat.
    Each block then holds its mean for every position it covers.
    """
    values = _scores(values, "values")
    weights = np.ones_like(values) if weights is None else _scores(weights, "weights")
    if weights.shape != values.shape:
        raise ValueError(f"weights has shape {weights.shape} but values has {values.shape}")
    if (weights <= 0).any():
        raise ValueError("weights must be positive")
    means, totals, lengths = [], [], []
    for value, weight in zip(values.tolist(), weights.tolist()):
        means.append(value)
        totals.append(weight)
        lengths.append(1)
        while len(means) > 1 and means[-2] > means[-1]:
            weight = totals[-2] + totals[-1]
            means[-2] = (means[-2] * totals[-2] + means[-1] * totals[-1]) / weight
            totals[-2] = weight
            lengths[-2] += lengths[-1]
            del means[-1], totals[-1], lengths[-1]
    return np.repeat(means, lengths)


class IsotonicCalibration(BaseEstimator):
    """A non-decreasing map from score to frequency, fitted by pool-adjacent-violators.

    Samples with the same score are first merged into one point (their mean target,
    weighted by how many there are). ``thresholds_`` are the distinct scores and
    ``values_`` the fitted frequencies; `predict` interpolates linearly between them and
    clips outside.
    """

    _fitted_attribute = "values_"

    def fit(self, scores, y) -> "IsotonicCalibration":
        s = _scores(scores)
        y = _zero_one(y, s.shape[0])
        thresholds, which, counts = np.unique(s, return_inverse=True, return_counts=True)
        means = np.bincount(which, weights=y) / counts
        self.thresholds_ = thresholds
        self.values_ = pool_adjacent_violators(means, counts.astype(np.float64))
        return self

    def predict(self, scores) -> np.ndarray:
        self._check_fitted()
        s = _scores(scores)
        if self.thresholds_.shape[0] == 1:
            return np.full(s.shape, self.values_[0])
        return np.interp(s, self.thresholds_, self.values_)


class CalibratedClassifier(ClassifierMixin):
    """A fitted classifier whose probabilities are re-mapped on validation data.

    Fit it on data the estimator was not fitted on: on the training data its scores are
    over-confident in a way the test data will not repeat.

    Parameters
    ----------
    estimator : classifier, default=None
        An already fitted classifier (``classes_`` and ``predict_proba`` or
        ``decision_function``). It is never refitted: `fit` learns only the map.
    method : {"sigmoid", "isotonic"}, default="sigmoid"
        Platt scaling or isotonic regression; keyword-only, as in scikit-learn.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The estimator's classes.
    calibrators_ : list of PlattScaling or IsotonicCalibration
        One map for two classes (for ``classes_[1]``), else one per class.
    n_features_in_ : int or None
        The estimator's, when it has one.

    Examples
    --------
    >>> import numpy as np
    >>> from nbcourse.calibration import CalibratedClassifier
    >>> from nbcourse.naive_bayes import GaussianNB
    >>> rng = np.random.default_rng(0)
    >>> shift = np.repeat([[0.0], [2.0]], 20, axis=0)
    >>> y = np.repeat([0, 1], 20)
    >>> model = GaussianNB().fit(rng.normal(size=(40, 1)) + shift, y)
    >>> calibrated = CalibratedClassifier(model, method="sigmoid").fit(
    ...     rng.normal(size=(40, 1)) + shift, y)
    >>> calibrated.predict_proba([[1.0]]).round(3).tolist()
    [[0.574, 0.426]]
    >>> calibrated.predict([[3.0]]).tolist()
    [1]
    """

    _fitted_attribute = "calibrators_"

    def __init__(self, estimator=None, *, method: str = "sigmoid"):
        self.estimator = estimator
        self.method = method

    def _check_estimator(self):
        model = self.estimator
        if model is None:
            raise TypeError("estimator must be a fitted classifier, got None")
        if not (hasattr(model, "predict_proba") or hasattr(model, "decision_function")):
            raise TypeError(f"estimator must have predict_proba or decision_function; "
                            f"{type(model).__name__} has neither")
        if not hasattr(model, "classes_"):
            raise ValueError(f"estimator {type(model).__name__} is not fitted: fit it on the "
                             "training data first, then calibrate it on validation data")
        return model

    def _raw_scores(self, X) -> np.ndarray:
        """One column of scores per calibrated class (a single column for two classes)."""
        model = self._check_estimator()
        if hasattr(model, "decision_function"):
            scores = np.asarray(model.decision_function(X), dtype=np.float64)
            if scores.ndim == 2 and scores.shape[1] == 1:
                scores = scores[:, 0]
            return scores[:, None] if scores.ndim == 1 else scores
        proba = np.asarray(model.predict_proba(X), dtype=np.float64)
        return proba[:, 1:2] if proba.shape[1] == 2 else proba

    def fit(self, X, y) -> "CalibratedClassifier":
        if not isinstance(self.method, str):
            raise TypeError(f"method must be one of {METHODS} (a string), got "
                            f"{type(self.method).__name__} {self.method!r}")
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        model = self._check_estimator()
        classes = np.asarray(model.classes_)
        if classes.shape[0] < 2:
            raise ValueError("the estimator knows only one class; calibration needs two or more")
        scores = self._raw_scores(X)
        labels = check_labels(y, scores.shape[0])
        unknown = sorted(set(labels.tolist()) - set(classes.tolist()))
        if unknown:
            raise ValueError(f"y has labels {unknown} that the estimator never saw "
                             f"(its classes_ are {classes.tolist()})")
        make = PlattScaling if self.method == "sigmoid" else IsotonicCalibration
        if classes.shape[0] == 2:
            targets = [labels == classes[1]]
        else:
            targets = [labels == c for c in classes]
        self.calibrators_ = [make().fit(scores[:, k], t.astype(np.int64))
                             for k, t in enumerate(targets)]
        self.classes_ = classes
        self.n_features_in_ = getattr(model, "n_features_in_", None)
        return self

    def predict_proba(self, X) -> np.ndarray:
        self._check_fitted()
        scores = self._raw_scores(X)
        if len(self.classes_) == 2:
            positive = self.calibrators_[0].predict(scores[:, 0])
            return np.column_stack([1.0 - positive, positive])
        proba = np.column_stack([c.predict(scores[:, k]) for k, c in enumerate(self.calibrators_)])
        total = proba.sum(axis=1, keepdims=True)
        uniform = np.full_like(proba, 1.0 / proba.shape[1])
        return np.divide(proba, total, out=uniform, where=total > 0)

    def predict(self, X) -> np.ndarray:
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def expected_calibration_error(y_true, proba_positive, positive, n_bins: int = 10) -> float:
    """Average |observed frequency - mean predicted probability| over equal-width bins,
    each bin weighted by its share of the predictions (0 = perfectly calibrated).

    The bins are those of :func:`nbcourse.evaluation.reliability_table`, so the number
    summarises the reliability diagram drawn from the same table.
    """
    table = reliability_table(y_true, proba_positive, positive, n_bins=n_bins)
    share = table["count"] / table["count"].sum()
    return float(np.sum(share * np.abs(table["observed"] - table["mean_predicted"])))
