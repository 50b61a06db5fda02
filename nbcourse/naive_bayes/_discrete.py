"""The discrete family: counts smoothed with Lidstone's pseudo-counts.

`_BaseDiscreteNB` is what MultinomialNB, ComplementNB, BernoulliNB and CategoricalNB
share (alpha, ``fit_prior``, ``class_prior``); `_FeatureCountNB` adds the classes x
features count table of a numeric X (multinomial, complement and Bernoulli).
"""
from __future__ import annotations

import warnings
from abc import abstractmethod

import numpy as np
import scipy.sparse as sp

from .._checks import check_alpha, check_bool, check_prior
from ._base import _BaseNB, _class_log_prior

#: with force_alpha=False, a smaller alpha is raised to this (as in scikit-learn)
_ALPHA_MIN = 1e-10


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
            UserWarning, stacklevel=5)
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

    def _check_alpha(self, n_features=None):
        """alpha as the next fit will use it (scikit-learn's method of the same name).

        The one place alpha is checked and floored; ``n_features`` defaults to the
        fitted number of features (scikit-learn's tests call it without arguments).
        """
        if n_features is None:
            n_features = getattr(self, "n_features_in_", None)
        return _effective_alpha(self.alpha, self.force_alpha,
                                n_features if self._alpha_per_feature else None)

    def _check_params(self, n_classes, n_features):
        alpha = self._check_alpha(n_features)
        fit_prior = check_bool(self.fit_prior, "fit_prior")
        prior = None if self.class_prior is None else check_prior(self.class_prior, n_classes)
        return {"alpha": alpha, "fit_prior": fit_prior, "prior": prior}

    def _update_parameters(self, params):
        self._update_feature_log_prob(params["alpha"])
        self.class_log_prior_ = _class_log_prior(self.class_count_, params["prior"],
                                                 params["fit_prior"])


class _FeatureCountNB(_BaseDiscreteNB):
    """Multinomial, complement and Bernoulli: a count matrix (classes x features) of a numeric X."""

    _per_class_statistics = ("class_count_", "feature_count_")

    def _init_counters(self, n_classes, n_features):
        self.class_count_ = np.zeros(n_classes)
        # Column-major, so that feature_log_prob_ (made from it) is too: predict multiplies
        # X by feature_log_prob_.T, which is then contiguous and needs no copy per call.
        self.feature_count_ = np.zeros((n_classes, n_features), order="F")

    def _count(self, X, Y):
        self.class_count_ += np.asarray(Y.sum(axis=0)).ravel()
        per_class = Y.T.tocsr() @ X  # CSR @ CSR: scipy would otherwise copy all of X to CSC
        if not sp.issparse(per_class):
            self.feature_count_ += per_class
            return
        # Add row by row, only the words that occur: a dense copy of the whole batch's
        # counts would be a second classes x words table (lesson 07 streams with a big
        # vocabulary). np.add.at adds up repeated columns itself, so the product's columns
        # need no sorting, and it touches only the row's nonzero entries.
        per_class = per_class.tocsr()
        for c in range(per_class.shape[0]):
            row = slice(per_class.indptr[c], per_class.indptr[c + 1])
            np.add.at(self.feature_count_[c], per_class.indices[row], per_class.data[row])

    def _merge_statistics(self, other):
        self.class_count_ = self.class_count_ + other.class_count_
        self.feature_count_ = np.add(self.feature_count_, other.feature_count_, order="F")


