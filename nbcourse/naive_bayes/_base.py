"""The skeleton every naive Bayes estimator shares: fit, partial_fit and predict*.

`_BaseNB` declares what a variant provides (abstract methods) and writes the four steps
once (see the package docstring); step 4, the posterior from the joint log-likelihood, is
`_PosteriorFromJoint`, which `TreeAugmentedNB` shares. The helpers below it are the pieces of those steps
that do not depend on the variant: the class-indicator matrix, the class prior, and the
check that a linear form exists.
"""
from __future__ import annotations

import copy
import warnings
from abc import ABCMeta, abstractmethod

import numpy as np
import scipy.sparse as sp

from .._checks import (check_classes, check_feature_names, check_labels,
                       check_sample_weight, plain)
from .._estimator import ClassifierMixin
from .._numerics import log as _log
from .._numerics import logsumexp


class _PosteriorFromJoint(ClassifierMixin):
    """predict_log_proba, predict_proba and predict, from ``predict_joint_log_proba``.

    Step 4 of every estimator here, `TreeAugmentedNB` included: whatever the joint
    log-likelihood log P(y) + log P(x | y) is made of, the posterior is the same
    normalisation by log-sum-exp.
    """

    def _checked_joint_log_proba(self, X) -> tuple[np.ndarray, np.ndarray]:
        """The joint log-likelihood and its log-sum-exp over classes, or a ValueError
        for a sample that every class finds impossible (so ``predict`` is never silent
        where ``predict_proba`` raises)."""
        jll = self.predict_joint_log_proba(X)
        norm = logsumexp(jll, axis=1)
        impossible = np.isneginf(norm)
        if impossible.any():
            first = int(np.flatnonzero(impossible)[0])
            raise ValueError(
                f"sample {first} has probability zero under every class, so P(y | x) is "
                "undefined; this happens with alpha=0 when a feature value was never seen "
                "with any class - use alpha > 0")
        return jll, norm

    def predict_log_proba(self, X) -> np.ndarray:
        """log P(y | x): the joint log-likelihood minus its log-sum-exp over classes."""
        jll, norm = self._checked_joint_log_proba(X)
        return jll - norm[:, None]

    def predict_proba(self, X) -> np.ndarray:
        """P(y | x) for every sample and class; each row sums to one."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """The class with the largest posterior (ties go to the first class)."""
        jll, _ = self._checked_joint_log_proba(X)
        return self.classes_[np.argmax(jll, axis=1)]


class _BaseNB(_PosteriorFromJoint, metaclass=ABCMeta):
    """fit, partial_fit and predict*, written once for every naive Bayes estimator.

    A variant provides:

    - ``_check_params(n_classes, n_features)``: the hyper-parameters, checked, as a dict;
    - ``_check_X(X, first, training)``: validated input (``first``: nothing learnt about
      X yet; ``training``: for fit or partial_fit);
    - ``_init_counters(n_classes, n_features)``: empty statistics;
    - ``_count(X, Y)``: add a batch's statistics (``Y``: samples x classes, the sample
      weight in the column of each sample's class), in place only to the attributes
      named in ``_per_class_statistics`` and ``_grown_in_place`` (see `_saved_state`);
    - ``_update_parameters(params)``: statistics -> log-parameters;
    - ``_joint_log_likelihood(X)``: log P(y) + log P(x | y) for checked X;
    - ``_merge_statistics(other)``: add another model's statistics (see `merge`).
    """

    #: the per-class statistics (``merge`` adds them up; ``_count`` adds to them in place)
    _per_class_statistics: tuple[str, ...] = ()
    #: other fitted attributes ``_count`` changes in place (a category list that grows)
    _grown_in_place: tuple[str, ...] = ()

    # ----- the contract ---------------------------------------------------------------
    @abstractmethod
    def _check_params(self, n_classes: int, n_features: int) -> dict:
        """The hyper-parameters, checked; raises before the model changes."""

    @abstractmethod
    def _check_X(self, X, first: bool, training: bool = False):
        """X validated for this estimator (``first``: nothing is known about X yet)."""

    @abstractmethod
    def _init_counters(self, n_classes: int, n_features: int) -> None:
        """Zero statistics for a first fit."""

    @abstractmethod
    def _count(self, X, Y) -> None:
        """Step 1: add the statistics of one batch."""

    @abstractmethod
    def _update_parameters(self, params: dict) -> None:
        """Step 2: log-parameters from the statistics."""

    @abstractmethod
    def _joint_log_likelihood(self, X) -> np.ndarray:
        """Step 3: log P(y) + log P(x | y) for every sample (rows) and class (columns)."""

    @abstractmethod
    def _merge_statistics(self, other) -> None:
        """Add the statistics of ``other`` (same classes) to this model's."""

    # ----- fitting --------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit on all of ``X`` (forgets earlier fits); ``sample_weight`` weights the counts."""
        data, y, weights = self._check_training_data(X, y, sample_weight, first=True)
        classes = np.unique(y)
        params = self._check_params(len(classes), _n_columns(data))
        Y = _indicator(y, classes, weights)
        if len(classes) == 1:
            warnings.warn(
                f"y holds only one class ({plain(classes[0])!r}); every prediction will be "
                "that class", UserWarning, stacklevel=2)
        self._reset()
        try:
            self._start(X, data, classes)
            self._count(data, Y)
            # Memory, not maths: drop the checked copy of X before the log-parameter tables
            # are made, so the two never exist at once (the peak of lesson 07's fits).
            del data, Y
            self._update_parameters(params)
        except BaseException:
            self._reset()  # a fit that fails leaves no fitted attribute behind
            raise
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add one more batch; ``classes`` (every label) is needed on the first call.

        Statistics add up, so fitting batch after batch gives the model that ``fit``
        gives on all of them together.
        """
        first = not hasattr(self, "classes_")
        classes = self._partial_fit_classes(classes, first)
        data, y, weights = self._check_training_data(X, y, sample_weight, first=first)
        params = self._check_params(len(classes), _n_columns(data))
        Y = _indicator(y, classes, weights)
        saved = None if first else self._saved_state()
        try:
            if first:
                self._start(X, data, classes)
            self._count(data, Y)
            # Memory, not maths: the checked copy of the batch goes before the log-parameter
            # tables are made; in a streaming fit with a large vocabulary they are the peak
            # (lesson 07), and a batch held beside them would raise it.
            del data, Y
            self._update_parameters(params)
        except BaseException:
            # a batch that fails half-way, even interrupted, leaves the model as it was:
            # no fitted attribute after a first batch, the earlier batches' after a later one
            self._reset()
            if saved is not None:
                self.__dict__.update(saved)
            raise
        return self

    def _check_training_data(self, X, y, sample_weight, first: bool):
        if not first:
            self._check_feature_names(X)
        data = self._check_X(X, first=first, training=True)
        y = check_labels(y, _n_rows(data))
        return data, y, check_sample_weight(sample_weight, _n_rows(data))

    def _partial_fit_classes(self, classes, first: bool) -> np.ndarray:
        """The class checks of ``partial_fit``, in one place."""
        if first:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit: a batch may "
                    "not contain every class, so list them all, e.g. classes=np.unique(y)")
            return check_classes(classes)
        if classes is not None:
            given = np.sort(np.asarray(classes))
            if given.shape != self.classes_.shape or not np.array_equal(given, self.classes_):
                raise ValueError(
                    f"classes={plain(np.asarray(classes))} is not the same as on last call to "
                    f"partial_fit, which was {self.classes_.tolist()}")
        return self.classes_

    def _saved_state(self) -> dict:
        """Every fitted attribute, as ``partial_fit`` restores it if a batch fails: the
        ones ``_count`` changes in place copied, the rest (replaced, never changed in
        place) kept as they are, so no log-parameter table is copied for nothing."""
        in_place = {*self._per_class_statistics, *self._grown_in_place}
        return {name: copy.deepcopy(value) if name in in_place else value
                for name, value in vars(self).items()
                if name.endswith("_") and not name.startswith("__")}

    def _reset(self) -> None:
        """Forget everything learnt: every attribute whose name ends in an underscore."""
        for name in [n for n in vars(self) if n.endswith("_") and not n.startswith("__")]:
            del self.__dict__[name]

    def _start(self, X, data, classes) -> None:
        self.classes_ = classes
        self.n_features_in_ = _n_columns(data)
        check_feature_names(self, X, reset=True)
        self._init_counters(len(classes), self.n_features_in_)

    # ----- prediction -------------------------------------------------------------------
    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log P(y) + log P(x | y) for every sample (rows) and class (columns)."""
        self._check_fitted()
        self._check_feature_names(X)
        return self._joint_log_likelihood(self._check_X(X, first=False))

    def _check_feature_names(self, X) -> None:
        check_feature_names(self, X, reset=False)

    def _check_two_classes(self):
        self._check_fitted()
        if len(self.classes_) != 2:
            raise ValueError(
                "to_linear() needs exactly two classes, the model has "
                f"{len(self.classes_)}: {self.classes_.tolist()}")


def _n_rows(data) -> int:
    return data.shape[0]


def _n_columns(data) -> int:
    return data.shape[1]


def _indicator(y: np.ndarray, classes: np.ndarray, weights) -> sp.csr_matrix:
    """Samples x classes, holding each sample's weight (1 by default) in its class's column."""
    index = np.clip(np.searchsorted(classes, y), 0, len(classes) - 1)
    unknown = classes[index] != y
    if unknown.any():
        raise ValueError(
            f"The target label(s) {sorted(set(y[unknown].tolist()))} in y do not exist in the "
            f"initial classes {classes.tolist()}")
    n = len(y)
    data = np.ones(n) if weights is None else weights
    return sp.csr_matrix((data, index, np.arange(n + 1)), shape=(n, len(classes)))


def _class_prior(class_count: np.ndarray, prior) -> np.ndarray:
    """P(y) (GaussianNB's ``class_prior_``): given priors, or the class frequencies."""
    if prior is not None:
        return prior
    return class_count / class_count.sum()


def _class_log_prior(class_count: np.ndarray, prior, fit_prior: bool) -> np.ndarray:
    """log P(y): given priors, the class frequencies, or uniform."""
    if prior is not None:
        return _log(prior)
    if fit_prior:
        return _log(class_count) - np.log(class_count.sum())
    return np.full(len(class_count), -np.log(len(class_count)))



def _finite_linear(bias, weights):
    if not (np.isfinite(bias) and np.all(np.isfinite(weights))):
        raise ValueError(
            "some log-probabilities are -inf (alpha=0 and a count of zero), so the linear "
            "weights are infinite; refit with alpha > 0")
    return float(bias), weights
