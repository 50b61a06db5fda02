"""MultinomialNB: a document is a bag of independent word draws."""
from __future__ import annotations

import numpy as np

from .._checks import check_matrix
from .._numerics import log_dot
from ..smoothing import lidstone_log
from ._base import _finite_linear
from ._discrete import _FeatureCountNB


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
        # Memory, not maths (lesson 07): drop the previous table before making the new one.
        # With a large vocabulary it is the biggest array a streaming fit holds, and
        # assigning the new table over it would keep both alive until the assignment.
        self.__dict__.pop("feature_log_prob_", None)
        self.feature_log_prob_ = lidstone_log(self.feature_count_, alpha)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        return log_dot(X, self.feature_log_prob_) + self.class_log_prior_

    def to_linear(self):
        """(w0, w) with ``w0 + X @ w > 0`` exactly where the model predicts ``classes_[1]``.

        w0 = log pi_1 - log pi_0 and w_k = log theta_1k - log theta_0k.
        """
        self._check_two_classes()
        weights = self.feature_log_prob_[1] - self.feature_log_prob_[0]
        bias = self.class_log_prior_[1] - self.class_log_prior_[0]
        return _finite_linear(bias, weights)

