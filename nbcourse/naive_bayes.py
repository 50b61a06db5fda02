"""Naive Bayes estimators written from scratch.

Every estimator follows the same four steps, which is the whole idea of the course:

1. **count** sufficient statistics per class (category counts, word counts, or
   means and spreads): ``_count``;
2. turn them into **smoothed log-parameters** (``class_log_prior_``,
   ``feature_log_prob_`` or ``theta_``/``var_``): ``_update_parameters``;
3. add logs to get the **joint log-likelihood** log P(y) + sum_i log P(x_i | y):
   ``_joint_log_likelihood``;
4. normalise with **log-sum-exp** to get the posterior P(y | x).

As in scikit-learn's ``naive_bayes.py``, `_BaseNB` declares what a variant must
provide (abstract methods) and writes ``fit``, ``partial_fit`` and the ``predict*``
methods once, with the input checks. Hyper-parameters are read only in ``fit`` and
``partial_fit``: changing ``alpha`` afterwards changes nothing until the next fit.

Because step 1 is counting, statistics from two shards of data add up to the
statistics of the whole: ``partial_fit`` on shards equals ``fit`` on everything, and
`merge` combines two models fitted on disjoint data into the model of their union.

Names and semantics follow scikit-learn (``fit``, ``predict_proba``, ``classes_``,
``feature_log_prob_``, ``alpha`` ...) so that the same numbers come out of both and
students can move on without relearning. The deliberate differences are listed in
``docs/sklearn-differences.md``.
"""
from __future__ import annotations

import copy
import numbers
import warnings
from abc import ABCMeta, abstractmethod
from fractions import Fraction

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._checks import (_to_fraction, not_fitted, check_alpha, check_bool, check_classes,
                      check_feature_names, check_labels, check_matrix, check_prior,
                      check_sample_weight, plain)
from ._estimator import ClassifierMixin
from ._numerics import log as _log
from ._numerics import logsumexp
from .smoothing import _pseudo_counted, lidstone, lidstone_log

__all__ = ["CategoricalNB", "MultinomialNB", "BernoulliNB", "GaussianNB", "merge"]

#: with force_alpha=False, a smaller alpha is raised to this (as in scikit-learn)
_ALPHA_MIN = 1e-10


class _BaseNB(ClassifierMixin, metaclass=ABCMeta):
    """fit, partial_fit and predict*, written once for every naive Bayes estimator.

    A variant provides:

    - ``_check_params(n_classes, n_features)``: the hyper-parameters, checked, as a dict;
    - ``_check_X(X, first, training)``: validated input (``first``: nothing learnt about
      X yet; ``training``: for fit or partial_fit);
    - ``_init_counters(n_classes, n_features)``: empty statistics;
    - ``_count(X, Y)``: add a batch's statistics (``Y``: samples x classes, the sample
      weight in the column of each sample's class);
    - ``_update_parameters(params)``: statistics -> log-parameters;
    - ``_joint_log_likelihood(X)``: log P(y) + log P(x | y) for checked X;
    - ``_merge_statistics(other)``: add another model's statistics (see `merge`).
    """

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
        self._start(X, data, classes)
        self._count(data, Y)
        del data, Y  # see partial_fit
        self._update_parameters(params)
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
        if first:
            self._start(X, data, classes)
        self._count(data, Y)
        # The checked copy of the batch goes before the log-parameter tables are made:
        # in a streaming fit with a large vocabulary those tables are the peak (lesson 07).
        del data, Y
        self._update_parameters(params)
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

    def predict_log_proba(self, X) -> np.ndarray:
        """log P(y | x): the joint log-likelihood minus its log-sum-exp over classes."""
        jll = self.predict_joint_log_proba(X)
        norm = logsumexp(jll, axis=1)
        impossible = np.isneginf(norm)
        if impossible.any():
            first = int(np.flatnonzero(impossible)[0])
            raise ValueError(
                f"sample {first} has probability zero under every class, so P(y | x) is "
                "undefined; this happens with alpha=0 when a feature value was never seen "
                "with any class - use alpha > 0")
        return jll - norm[:, None]

    def predict_proba(self, X) -> np.ndarray:
        """P(y | x) for every sample and class; each row sums to one."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """The class with the largest posterior (ties go to the first class)."""
        jll = self.predict_joint_log_proba(X)
        return self.classes_[np.argmax(jll, axis=1)]

    def _check_feature_names(self, X) -> None:
        check_feature_names(self, X, reset=False)

    def _check_fitted(self):
        if not hasattr(self, "classes_"):
            raise not_fitted(self)

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


def _class_log_prior(class_count: np.ndarray, prior, fit_prior: bool) -> np.ndarray:
    """log P(y): given priors, the class frequencies, or uniform."""
    if prior is not None:
        return _log(prior)
    if fit_prior:
        return _log(class_count) - np.log(class_count.sum())
    return np.full(len(class_count), -np.log(len(class_count)))


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


def _masked_product(X, log_params: np.ndarray) -> np.ndarray:
    """``X @ log_params.T`` where 0 * log(0) counts as 0, not NaN.

    With alpha = 0 a word never seen in a class has log-probability -inf. A document
    without that word contributes 0 * -inf, which must be 0 (the word is absent), and a
    document with it must get -inf.
    """
    infinite = np.isinf(log_params)
    if not infinite.any():
        return np.asarray(X @ log_params.T)
    finite = np.where(infinite, 0.0, log_params)
    out = np.asarray(X @ finite.T)
    blocked = np.asarray(X @ infinite.T.astype(np.float64)) > 0
    out[blocked] = -np.inf
    return out


def _effective_alpha(alpha, force_alpha, n_features):
    """alpha as used by the formulas (a number, or one per feature where allowed).

    With ``force_alpha=False`` a value below 1e-10 is raised to 1e-10 with a warning, as
    in scikit-learn; with the default ``force_alpha=True`` alpha is used as given, and
    alpha = 0 is the plain maximum-likelihood estimate.
    """
    value = check_alpha(alpha, n_features=n_features)
    if not check_bool(force_alpha, "force_alpha") and np.min(value) < _ALPHA_MIN:
        warnings.warn(
            f"alpha too small will result in numeric errors, setting alpha = "
            f"{_ALPHA_MIN:.1e}. Use `force_alpha=True` to keep alpha unchanged.",
            UserWarning, stacklevel=4)
        return np.maximum(value, _ALPHA_MIN) if isinstance(value, np.ndarray) else _ALPHA_MIN
    return value


class _BaseDiscreteNB(_BaseNB):
    """Counting models: multinomial, Bernoulli and categorical.

    Step 2 is Lidstone smoothing of the counts (`nbcourse.smoothing.lidstone_log`) and
    the class prior; a variant provides ``_update_feature_log_prob(alpha)``.
    """

    _input_tags = {"sparse": True, "positive_only": True}
    _classifier_tags = {"poor_score": True}
    #: alpha may hold one value per feature (as in scikit-learn's multinomial/Bernoulli)
    _alpha_per_feature = True

    @abstractmethod
    def _update_feature_log_prob(self, alpha) -> None:
        """Set ``feature_log_prob_`` from the counts, smoothed with ``alpha``."""

    def _check_alpha(self):
        """alpha as the next fit will use it (scikit-learn's method of the same name)."""
        n_features = getattr(self, "n_features_in_", None) if self._alpha_per_feature else None
        return _effective_alpha(self.alpha, self.force_alpha, n_features)

    def _check_params(self, n_classes, n_features):
        alpha = _effective_alpha(self.alpha, self.force_alpha,
                                 n_features if self._alpha_per_feature else None)
        fit_prior = check_bool(self.fit_prior, "fit_prior")
        prior = None if self.class_prior is None else check_prior(self.class_prior, n_classes)
        return {"alpha": alpha, "fit_prior": fit_prior, "prior": prior}

    def _update_parameters(self, params):
        self._alpha_ = params["alpha"]  # the alpha of this fit, for the tables
        self._update_feature_log_prob(params["alpha"])
        self.class_log_prior_ = _class_log_prior(self.class_count_, params["prior"],
                                                 params["fit_prior"])


class _FeatureCountNB(_BaseDiscreteNB):
    """Multinomial and Bernoulli: a count matrix (classes x features) of a numeric X."""

    _per_class_statistics = ("class_count_", "feature_count_")

    def _init_counters(self, n_classes, n_features):
        self.class_count_ = np.zeros(n_classes)
        self.feature_count_ = np.zeros((n_classes, n_features))

    def _count(self, X, Y):
        self.class_count_ += np.asarray(Y.sum(axis=0)).ravel()
        per_class = Y.T.tocsr() @ X  # CSR @ CSR: scipy would otherwise copy all of X to CSC
        if not sp.issparse(per_class):
            self.feature_count_ += per_class
            return
        # Add row by row, where the batch has words: a dense copy of the batch's counts
        # would be a second classes x words table (lesson 07 streams with a big vocabulary).
        per_class = per_class.tocsr()
        per_class.sum_duplicates()
        for c in range(per_class.shape[0]):
            row = slice(per_class.indptr[c], per_class.indptr[c + 1])
            self.feature_count_[c, per_class.indices[row]] += per_class.data[row]

    def _merge_statistics(self, other):
        self.class_count_ = self.class_count_ + other.class_count_
        self.feature_count_ = self.feature_count_ + other.feature_count_


class MultinomialNB(_FeatureCountNB):
    """Naive Bayes for word counts: a document is a bag of independent word draws.

    theta_ck = (count of word k in class c + alpha) / (words in class c + alpha * V)

    ``X`` holds non-negative numbers: word counts are the model's natural input, and
    real values such as tf-idf weights work as in scikit-learn (they act as fractional
    counts).

    Parameters: ``alpha`` (a number, or one per feature), ``force_alpha`` (True: use
    alpha as given, even 0; False: raise alpha below 1e-10 to 1e-10 with a warning),
    ``fit_prior`` and ``class_prior``, all as in scikit-learn and read at ``fit``.

    Attributes after fit: ``classes_``, ``class_count_``, ``feature_count_``,
    ``class_log_prior_``, ``feature_log_prob_``, ``n_features_in_`` and, after fitting
    on a DataFrame, ``feature_names_in_``.
    """

    def __init__(self, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _check_X(self, X, first, training=False):
        return check_matrix(X, owner="MultinomialNB", non_negative=True,
                            n_features=None if first else self.n_features_in_)

    def _update_feature_log_prob(self, alpha):
        # Let the previous table go first: with a large vocabulary it is the biggest array a
        # streaming fit holds, and partial_fit would otherwise keep two of them at once.
        self.__dict__.pop("feature_log_prob_", None)
        self.feature_log_prob_ = lidstone_log(self.feature_count_, alpha)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        return _masked_product(X, self.feature_log_prob_) + self.class_log_prior_

    def to_linear(self):
        """(w0, w) with ``w0 + X @ w > 0`` exactly where the model predicts ``classes_[1]``.

        w0 = log pi_1 - log pi_0 and w_k = log theta_1k - log theta_0k.
        """
        self._check_two_classes()
        weights = self.feature_log_prob_[1] - self.feature_log_prob_[0]
        bias = self.class_log_prior_[1] - self.class_log_prior_[0]
        return _finite_linear(bias, weights)


class BernoulliNB(_FeatureCountNB):
    """Naive Bayes for word presence: every vocabulary word is a coin flip per document.

    Absent words count too, through factors (1 - theta_ck); that is the difference
    from the multinomial model. ``binarize`` turns X into presence (x > binarize);
    ``binarize=None`` expects X to hold 0 and 1 already. Other parameters as in
    `MultinomialNB`.
    """

    _input_tags = {"sparse": True}

    def __init__(self, alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True,
                 class_prior=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _check_params(self, n_classes, n_features):
        params = super()._check_params(n_classes, n_features)
        self._threshold(self.binarize)
        return params

    @staticmethod
    def _threshold(binarize):
        if binarize is not None and (isinstance(binarize, bool)
                                     or not isinstance(binarize, numbers.Real)):
            raise TypeError(f"binarize must be a number or None, got {plain(binarize)!r}")
        return binarize

    def _check_X(self, X, first, training=False):
        X = check_matrix(X, owner="BernoulliNB",
                         n_features=None if first else self.n_features_in_)
        # predictions use the threshold of the last fit: binarize acts at the next fit
        return _binarized(X, self._threshold(self.binarize) if training else self._binarize_)

    def _count(self, X, Y):
        self._binarize_ = self.binarize
        super()._count(X, Y)

    def _update_feature_log_prob(self, alpha):
        """Both sides of each word's coin, from the same Lidstone smoothing (K = 2):

        ``feature_log_prob_`` = log P(word present | class) and
        ``_absent_log_prob_`` = log P(word absent | class).
        """
        documents = self.class_count_[:, None]
        self.feature_log_prob_ = lidstone_log(self.feature_count_, alpha,
                                              totals=documents, n_outcomes=2)
        self._absent_log_prob_ = lidstone_log(documents - self.feature_count_, alpha,
                                              totals=documents, n_outcomes=2)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        log_p, log_q = self.feature_log_prob_, self._absent_log_prob_
        inf_p, inf_q = np.isinf(log_p), np.isinf(log_q)
        finite_p, finite_q = np.where(inf_p, 0.0, log_p), np.where(inf_q, 0.0, log_q)
        # sum_k x_k log p_k + (1 - x_k) log q_k  ==  x @ (log p - log q) + sum_k log q_k
        jll = np.asarray(X @ (finite_p - finite_q).T) + finite_q.sum(axis=1)
        if inf_p.any() or inf_q.any():
            present_impossible = np.asarray(X @ inf_p.T.astype(np.float64)) > 0
            absent_impossible = inf_q.sum(axis=1) - np.asarray(X @ inf_q.T.astype(np.float64)) > 0
            jll[present_impossible | absent_impossible] = -np.inf
        return jll + self.class_log_prior_

    def to_linear(self):
        """(w0, w) for binarized X: w_k = log[p_1k (1 - p_0k)] - log[p_0k (1 - p_1k)].

        w0 = log pi_1/pi_0 + sum_k log[(1 - p_1k) / (1 - p_0k)] collects the absent-word
        factors, so the decision is still linear in the 0/1 presence vector.
        """
        self._check_two_classes()
        log_p, log_q = self.feature_log_prob_, self._absent_log_prob_
        weights = (log_p[1] - log_q[1]) - (log_p[0] - log_q[0])
        bias = self.class_log_prior_[1] - self.class_log_prior_[0] + np.sum(log_q[1] - log_q[0])
        return _finite_linear(bias, weights)


def _binarized(X, threshold):
    if threshold is None:
        values = X.data if sp.issparse(X) else X
        if values.size and not np.isin(values, (0.0, 1.0)).all():
            raise ValueError("X must hold only 0 and 1 when binarize=None")
        return X
    if sp.issparse(X):
        X = X.copy()
        X.data = (X.data > threshold).astype(np.float64)
        X.eliminate_zeros()
        return X
    return (X > threshold).astype(np.float64)


def _finite_linear(bias, weights):
    if not (np.isfinite(bias) and np.all(np.isfinite(weights))):
        raise ValueError(
            "some log-probabilities are -inf (alpha=0 and a count of zero), so the linear "
            "weights are infinite; refit with alpha > 0")
    return float(bias), weights


class GaussianNB(_BaseNB):
    """Naive Bayes for continuous features: one normal distribution per feature and class.

    The parameters are the (weighted) maximum-likelihood mean and biased variance of
    each feature within each class, plus ``epsilon_ = var_smoothing`` times the largest
    feature variance so that a constant feature does not divide by zero (as in
    scikit-learn).

    Deliberate difference from scikit-learn: ``partial_fit`` recomputes ``epsilon_``
    from all the data seen so far, so that batch after batch equals ``fit`` on all of
    it (scikit-learn uses the variance of the latest batch only).

    With ``shared_variance=True`` every class uses the pooled within-class variance;
    the quadratic terms then cancel and the decision boundary is linear (``to_linear``).
    """

    _per_class_statistics = ("class_count_", "theta_", "_var_")

    def __init__(self, priors=None, var_smoothing=1e-9, shared_variance=False):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.shared_variance = shared_variance

    def _check_params(self, n_classes, n_features):
        return {"var_smoothing": check_alpha(self.var_smoothing, "var_smoothing"),
                "shared_variance": check_bool(self.shared_variance, "shared_variance"),
                "priors": None if self.priors is None
                else check_prior(self.priors, n_classes, "priors")}

    def _check_X(self, X, first, training=False):
        return check_matrix(X, owner="GaussianNB", allow_sparse=False,
                            n_features=None if first else self.n_features_in_)

    def _init_counters(self, n_classes, n_features):
        self.class_count_ = np.zeros(n_classes)
        self.theta_ = np.zeros((n_classes, n_features))
        self._var_ = np.zeros((n_classes, n_features))  # per class, before smoothing
        # every row of X, unweighted: epsilon_ is a fraction of the largest variance
        self._overall_ = (0, np.zeros(n_features), np.zeros(n_features))

    def _count(self, X, Y):
        index, weights = Y.indices, Y.data
        weighted = not np.all(weights == 1.0)
        for c in np.unique(index):
            rows = index == c
            sw = weights[rows] if weighted else None
            n_new = float(sw.sum()) if weighted else float(rows.sum())
            self.theta_[c], self._var_[c] = self._update_mean_variance(
                self.class_count_[c], self.theta_[c], self._var_[c], X[rows], sw)
            self.class_count_[c] += n_new
        n, mean, var = self._overall_
        mean, var = self._update_mean_variance(n, mean, var, X)
        self._overall_ = (n + X.shape[0], mean, var)

    @staticmethod
    def _update_mean_variance(n_past, mu, var, X, sample_weight=None):
        """Mean and variance of past data (n_past samples) together with the rows X.

        The same signature as scikit-learn's method: the batch's own (weighted) mean
        and variance, then `_combine_moments`.
        """
        if X.shape[0] == 0:
            return mu, var
        if sample_weight is not None:
            n_new = float(np.sum(sample_weight))
            if np.isclose(n_new, 0.0):
                return mu, var
            new_mu = np.average(X, axis=0, weights=sample_weight)
            new_var = np.average((X - new_mu) ** 2, axis=0, weights=sample_weight)
        else:
            n_new = X.shape[0]
            new_var = np.var(X, axis=0)
            new_mu = np.mean(X, axis=0)
        return _combine_moments(n_past, mu, var, n_new, new_mu, new_var)

    def _merge_statistics(self, other):
        for c in range(len(self.classes_)):
            self.theta_[c], self._var_[c] = _combine_moments(
                self.class_count_[c], self.theta_[c], self._var_[c],
                other.class_count_[c], other.theta_[c], other._var_[c])
        self.class_count_ = self.class_count_ + other.class_count_
        n_a, mean_a, var_a = self._overall_
        n_b, mean_b, var_b = other._overall_
        self._overall_ = (n_a + n_b,) + _combine_moments(n_a, mean_a, var_a, n_b, mean_b, var_b)

    def _update_parameters(self, params):
        _, _, overall_var = self._overall_
        self.epsilon_ = params["var_smoothing"] * float(np.max(overall_var))
        if params["shared_variance"]:
            pooled = (self.class_count_[:, None] * self._var_).sum(axis=0) \
                / self.class_count_.sum()
            var = np.tile(pooled, (len(self.classes_), 1))
        else:
            var = self._var_
        self.var_ = var + self.epsilon_
        if params["priors"] is not None:
            self.class_prior_ = params["priors"]
        else:
            self.class_prior_ = self.class_count_ / self.class_count_.sum()
        self.class_log_prior_ = _class_log_prior(self.class_count_, params["priors"], True)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        self._check_variances()
        log_norm = -0.5 * np.sum(np.log(2.0 * np.pi * self.var_), axis=1)
        # sum_k (x_k - mu_ck)^2 / var_ck, expanded so no (samples x classes x features) array
        precision = 1.0 / self.var_
        squares = (X ** 2) @ precision.T - 2.0 * X @ (self.theta_ * precision).T \
            + np.sum(self.theta_ ** 2 * precision, axis=1)
        return self.class_log_prior_ + log_norm - 0.5 * squares

    def _check_variances(self):
        """A zero variance would divide by zero; say why instead of returning NaN."""
        if not np.all(self.var_[self.class_count_ > 0] > 0):
            raise ValueError(
                "every feature of the training data is constant, so every variance is 0 and "
                "the Gaussian densities are undefined; GaussianNB needs a feature that varies")

    def to_linear(self):
        """(w0, w) for a shared variance: w_k = (mu_1k - mu_0k) / var_k.

        w0 = log pi_1/pi_0 - sum_k (mu_1k^2 - mu_0k^2) / (2 var_k). With a variance per
        class the x_k^2 terms do not cancel and the boundary is quadratic.
        """
        self._check_two_classes()
        self._check_variances()
        if not np.allclose(self.var_[0], self.var_[1], rtol=0, atol=0):
            raise ValueError(
                "the classes have different variances, so the decision boundary is "
                "quadratic, not linear; use GaussianNB(shared_variance=True)")
        var = self.var_[0]
        mu0, mu1 = self.theta_
        weights = (mu1 - mu0) / var
        bias = self.class_log_prior_[1] - self.class_log_prior_[0] \
            - np.sum((mu1 ** 2 - mu0 ** 2) / (2.0 * var))
        return _finite_linear(bias, weights)


def _combine_moments(n_a, mean_a, var_a, n_b, mean_b, var_b):
    """Mean and variance of two groups together, from each group's count, mean, variance.

    The pooled-variance update of Chan, Golub and LeVeque: sums of squared deviations
    add, plus a term for the distance between the two means. It is what lets shards be
    fitted separately and merged into the model of all the data.
    """
    if n_b == 0:
        return mean_a, var_a
    if n_a == 0:
        return mean_b, var_b
    n_total = float(n_a + n_b)
    mean = (n_b * mean_b + n_a * mean_a) / n_total
    squares = n_a * var_a + n_b * var_b + (n_b * n_a / n_total) * (mean_a - mean_b) ** 2
    return mean, squares / n_total


class CategoricalNB(_BaseDiscreteNB):
    """Naive Bayes for tables of labels, such as the weather data, fitted by counting.

    P(x_i = v | y = c) = (count(v, c) + alpha) / (count(c) + alpha * n_categories_i):
    Lidstone smoothing, with ``alpha=1.0`` by default as in scikit-learn. ``alpha=0`` is
    the plain maximum-likelihood estimate of the lecture slides (pass it explicitly).

    ``X`` is usually a pandas DataFrame whose columns hold labels (strings are fine).
    Category order follows the data (first appearance, or a pandas Categorical's own
    order), so the tables read like the lecture: sunny, overcast, rainy. A column of
    numbers is read as scikit-learn reads it: codes 0, 1, 2, ... of the categories
    0 .. max (at least ``min_categories``, which applies to such columns).

    A label never seen in training has no count at all, smoothed or not, so predicting
    on it raises a ValueError that names the feature and the value.

    Attributes after fit, as in scikit-learn: ``classes_``, ``class_count_``,
    ``class_log_prior_``, ``category_count_`` and ``feature_log_prob_`` (lists in feature
    order of classes x categories arrays), ``n_categories_``, ``n_features_in_``, plus
    ``categories_`` (the categories of each feature, in column order of those arrays)
    and, after fitting on a DataFrame, ``feature_names_in_``. The tables a slide shows
    are methods: `frequency_table`, `likelihood_table`, `prior_table`, `joint_proba`.
    """

    _input_tags = {"categorical": True, "positive_only": True}
    _alpha_per_feature = False
    _per_class_statistics = ("class_count_", "category_count_")

    def __init__(self, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None,
                 min_categories=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories

    # ----- the contract -----------------------------------------------------------------
    def _check_params(self, n_classes, n_features):
        params = super()._check_params(n_classes, n_features)
        params["alpha_exact"] = self.alpha if params["alpha"] == self.alpha else params["alpha"]
        _check_min_categories(self.min_categories, n_features)
        return params

    def _check_X(self, X, first, training=False):
        """The checked columns: arrays of codes (whole numbers >= 0) or of labels."""
        frame = _as_frame(X, first)
        if not first:
            frame = self._select_columns(frame)
        columns = [_checked_column(frame[key], key,
                                   expect_codes=None if first else self._code_features_[i])
                   for i, key in enumerate(frame.columns)]
        categorical = [frame[key].dtype if isinstance(frame[key].dtype, pd.CategoricalDtype)
                       else None for key in frame.columns]
        return _Columns(columns, list(frame.columns), categorical, frame.index)

    def _check_feature_names(self, X) -> None:
        """Nothing to compare: CategoricalNB selects a query's columns by name."""

    def _init_counters(self, n_classes, n_features):
        self.class_count_ = np.zeros(n_classes)
        self.category_count_ = [np.zeros((n_classes, 0)) for _ in range(n_features)]
        self.categories_ = [np.array([], dtype=object) for _ in range(n_features)]
        self.n_categories_ = np.zeros(n_features, dtype=np.int64)
        self._code_features_ = np.zeros(n_features, dtype=bool)
        self._columns_ = []

    def _start(self, X, data, classes):
        super()._start(X, data, classes)
        self._columns_ = list(data.keys)
        for i, column in enumerate(data.columns):
            self._code_features_[i] = column.dtype.kind in "iu"
            if not self._code_features_[i] and data.cat_dtypes[i] is not None:
                self._grow(i, np.asarray(list(data.cat_dtypes[i].categories), dtype=object))

    def _count(self, data, Y):
        self.class_count_ += np.asarray(Y.sum(axis=0)).ravel()
        minimum = _check_min_categories(self.min_categories, self.n_features_in_)
        for i, column in enumerate(data.columns):
            if self._code_features_[i]:
                highest = int(column.max()) + 1 if column.size else 0
                size = max(highest, int(minimum[i]) if minimum is not None else 0)
                self._grow(i, np.arange(max(size, len(self.categories_[i]))))
                codes = column
            else:
                known = self._lookup(i)
                new = [v for v in pd.unique(column) if v not in known]
                self._grow(i, np.concatenate([self.categories_[i],
                                              np.asarray(new, dtype=object)]))
                codes = self._encode_labels(i, column)
            one_hot = sp.csr_matrix((np.ones(len(codes)), codes, np.arange(len(codes) + 1)),
                                    shape=(len(codes), self.n_categories_[i]))
            self.category_count_[i] += (Y.T.tocsr() @ one_hot).toarray()

    def _grow(self, i: int, categories: np.ndarray) -> None:
        """Make feature i's categories ``categories`` (an extension of the current ones)."""
        old = self.category_count_[i]
        if len(categories) > old.shape[1]:
            grown = np.zeros((old.shape[0], len(categories)))
            grown[:, :old.shape[1]] = old
            self.category_count_[i] = grown
        self.categories_[i] = categories
        self.n_categories_[i] = len(categories)

    def _update_feature_log_prob(self, alpha):
        self.feature_log_prob_ = [lidstone_log(counts, alpha) for counts in self.category_count_]

    def _update_parameters(self, params):
        super()._update_parameters(params)
        self._alpha_ = params["alpha_exact"]
        n_classes = len(self.classes_)
        if params["prior"] is not None:
            self._prior_exact_ = [_to_fraction(p, "class_prior") for p in self.class_prior]
        elif params["fit_prior"]:
            counts = [_to_fraction(c, "class_count_") for c in self.class_count_]
            self._prior_exact_ = [c / sum(counts) for c in counts]
        else:
            self._prior_exact_ = [Fraction(1, n_classes)] * n_classes
        self._counted_prior_ = params["prior"] is None and params["fit_prior"]

    def _merge_statistics(self, other):
        self.class_count_ = self.class_count_ + other.class_count_
        for i in range(self.n_features_in_):
            if self._code_features_[i] != other._code_features_[i]:
                raise ValueError(
                    f"feature {plain(self._columns_[i])!r} holds codes in one model and labels "
                    "in the other")
            if self._code_features_[i]:
                size = max(self.n_categories_[i], other.n_categories_[i])
                self._grow(i, np.arange(size))
                columns = np.arange(other.n_categories_[i])
            else:
                lookup = self._lookup(i)
                new = [v for v in other.categories_[i] if v not in lookup]
                self._grow(i, np.concatenate([self.categories_[i], np.asarray(new, dtype=object)]))
                lookup = self._lookup(i)
                columns = np.array([lookup[v] for v in other.categories_[i]], dtype=np.intp)
            self.category_count_[i][:, columns] += other.category_count_[i]

    def _joint_log_likelihood(self, data) -> np.ndarray:
        return self._jll_from_codes(self._encode(data))

    def _jll_from_codes(self, codes: np.ndarray) -> np.ndarray:
        jll = np.tile(self.class_log_prior_, (codes.shape[0], 1))
        for i, log_prob in enumerate(self.feature_log_prob_):
            jll += log_prob[:, codes[:, i]].T
        return jll

    # ----- tables a lecture slide would show -------------------------------------------
    def frequency_table(self, feature) -> pd.DataFrame:
        """Counts of each value of ``feature`` within each class (values x classes)."""
        i = self._feature(feature)
        counts = self.category_count_[i].T
        if np.array_equal(counts, np.round(counts)):
            counts = counts.astype(int)
        return pd.DataFrame(counts, index=self._category_index(i),
                            columns=pd.Index(self.classes_, name="class"))

    def likelihood_table(self, feature, numeric: bool = False) -> pd.DataFrame:
        """P(value | class) as the fractions a person writes, e.g. '2/9' and '3/5'.

        The fractions are left unreduced (3/9, not 1/3) so they show the counts they
        come from; the alpha is that of the last fit. ``numeric=True`` returns the same
        table as floats.
        """
        i = self._feature(feature)
        counts, totals = _pseudo_counted(self.category_count_[i], float(self._alpha_))
        if numeric:
            with np.errstate(invalid="ignore"):
                table = counts / totals
        else:
            table = np.vectorize(lambda n, d: f"{_number(n)}/{_number(d)}")(
                counts, np.broadcast_to(totals, counts.shape))
        return pd.DataFrame(table.T, index=self._category_index(i),
                            columns=pd.Index(self.classes_, name="class"))

    def prior_table(self, numeric: bool = False) -> pd.Series:
        """P(class) as counts over the total, e.g. '9/14' and '5/14'.

        With ``class_prior`` or ``fit_prior=False`` the table shows the prior the model
        uses instead.
        """
        self._check_fitted()
        index = pd.Index(self.classes_, name="class")
        if numeric:
            return pd.Series(np.exp(self.class_log_prior_), index=index, name="P(class)")
        total = self.class_count_.sum()
        if self._counted_prior_:
            values = [f"{_number(n)}/{_number(total)}" for n in self.class_count_]
        else:
            values = [str(p) for p in self._prior_exact_]
        return pd.Series(values, index=index, name="P(class)")

    # ----- scores ---------------------------------------------------------------------
    def joint_proba(self, X, exact: bool = False) -> pd.DataFrame:
        """Unnormalised scores P(y) * prod_i P(x_i | y): the numbers compared by hand.

        With ``exact=True`` the scores are ``fractions.Fraction`` objects (1/189 rather
        than 0.0053); alpha is then read as the decimal it was typed as (0.5 is 1/2).
        """
        self._check_fitted()
        data = self._check_X(X, first=False)
        codes = self._encode(data)
        columns = pd.Index(self.classes_, name="class")
        if not exact:
            return pd.DataFrame(np.exp(self._jll_from_codes(codes)), index=data.index,
                                columns=columns)
        likelihoods = [lidstone(counts, _to_fraction(self._alpha_, "alpha"), exact=True)
                       for counts in self.category_count_]
        rows = []
        for sample in codes:
            row = []
            for c, prior in enumerate(self._prior_exact_):
                score = prior
                for i, code in enumerate(sample):
                    score *= likelihoods[i][c][code]
                row.append(score)
            rows.append(row)
        return pd.DataFrame(rows, index=data.index, columns=columns)

    def predict_proba(self, X, exact: bool = False):
        """P(y | x); with ``exact=True`` a DataFrame of Fractions (18/875 over the sum)."""
        if not exact:
            return super().predict_proba(X)
        joint = self.joint_proba(X, exact=True)
        totals = joint.sum(axis=1)
        if (totals == 0).any():
            raise ValueError("a sample has probability zero under every class; use alpha > 0")
        return joint.div(totals, axis=0)

    # ----- input handling -------------------------------------------------------------
    def _feature(self, feature) -> int:
        self._check_fitted()
        if feature in self._columns_:
            return self._columns_.index(feature)
        if isinstance(feature, numbers.Integral) and 0 <= feature < self.n_features_in_:
            return int(feature)
        raise ValueError(
            f"feature must be one of {plain(self._columns_)}, got {plain(feature)!r}")

    def _category_index(self, i: int) -> pd.Index:
        return pd.Index(list(self.categories_[i]), name=self._columns_[i])

    def _lookup(self, i: int) -> dict:
        return {value: code for code, value in enumerate(self.categories_[i])}

    def _encode_labels(self, i: int, column: np.ndarray) -> np.ndarray:
        lookup = self._lookup(i)
        codes = np.empty(len(column), dtype=np.intp)
        for row, value in enumerate(column):
            if value not in lookup:
                raise ValueError(
                    f"feature {plain(self._columns_[i])!r} has the value {plain(value)!r}, "
                    f"which never occurred in training (known values: "
                    f"{plain(list(self.categories_[i]))}); naive Bayes has no count for it")
            codes[row] = lookup[value]
        return codes

    def _encode(self, data) -> np.ndarray:
        codes = np.empty((len(data), self.n_features_in_), dtype=np.intp)
        for i, column in enumerate(data.columns):
            if self._code_features_[i]:
                too_big = column >= self.n_categories_[i]
                if too_big.any():
                    raise ValueError(
                        f"feature {plain(self._columns_[i])!r} has the category code "
                        f"{plain(column[too_big][0])!r}, but the model knows codes 0 to "
                        f"{self.n_categories_[i] - 1} only (set min_categories to allow more)")
                codes[:, i] = column
            else:
                codes[:, i] = self._encode_labels(i, column)
        return codes

    def _select_columns(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The fitted features of a query: by name if it has names, else by position."""
        names = getattr(self, "feature_names_in_", None)
        if names is not None and isinstance(frame.columns[0], str):
            missing = [n for n in names if n not in frame.columns]
            if missing:
                raise ValueError(
                    "The feature names should match those that were passed during fit.\n"
                    f"X is missing the feature column(s) {missing}")
            return frame[list(names)]
        if frame.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {frame.shape[1]} features, but CategoricalNB is expecting "
                f"{self.n_features_in_} features as input.")
        return frame


class _Columns:
    """Checked categorical input: one 1-D array per feature."""

    def __init__(self, columns, keys, cat_dtypes, index):
        self.columns, self.keys, self.cat_dtypes, self.index = columns, keys, cat_dtypes, index
        self.shape = (len(columns[0]), len(columns))

    def __len__(self):
        return self.shape[0]


def _as_frame(X, first: bool) -> pd.DataFrame:
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
    if frame.shape[0] == 0:
        raise ValueError(
            f"X is empty: Found array with 0 sample(s) (shape={frame.shape}) while a minimum "
            "of 1 is required.")
    if frame.shape[1] == 0:
        raise ValueError(
            f"X has no features: 0 feature(s) (shape={frame.shape}) while a minimum of 1 is "
            "required.")
    return frame


def _checked_column(column: pd.Series, key, expect_codes) -> np.ndarray:
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
        if not np.all(np.isfinite(numbers_)):
            raise ValueError(f"X contains NaN or infinite values (inf) in column {plain(key)!r}")
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


def _check_min_categories(min_categories, n_features: int):
    if min_categories is None:
        return None
    values = np.asarray(min_categories)
    if not np.issubdtype(values.dtype, np.integer):
        raise ValueError(
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


def _number(x) -> str:
    """Format a count for a fraction label: 2 rather than 2.0, 0.5 stays 0.5."""
    x = float(x)
    return str(int(x)) if x.is_integer() else f"{x:g}"
