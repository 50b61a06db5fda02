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

    Each class c has a distribution over the V words of the vocabulary, estimated with
    Lidstone's pseudo-counts::

        theta_ck = (count of word k in class c + alpha) / (words in class c + alpha * V)

    ``X`` holds non-negative numbers: word counts are the model's natural input, and
    real values such as tf-idf weights work as in scikit-learn (they act as fractional
    counts). Parameters are read at ``fit``, as in scikit-learn.

    Parameters
    ----------
    alpha : float or array of shape (n_features,), default=1.0
        Pseudo-count added to every word count (one per word if an array); 0 is the
        maximum-likelihood estimate.
    force_alpha : bool, default=True
        True: use alpha as given, even 0; False: raise alpha below 1e-10 to 1e-10 with
        a warning.
    fit_prior : bool, default=True
        Learn the class prior from the class frequencies; False: uniform.
    class_prior : array-like of shape (n_classes,), default=None
        Class probabilities given by hand (they override ``fit_prior``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        Samples (or their weights) per class.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Word counts per class.
    class_log_prior_ : ndarray of shape (n_classes,)
        log P(class).
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log theta_ck, the smoothed log-probability of each word in each class.
    n_features_in_ : int
        Number of columns of ``X``.
    feature_names_in_ : ndarray of shape (n_features,)
        Column names, after fitting on a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from nbcourse.naive_bayes import MultinomialNB
    >>> X = np.array([[2, 1, 0], [3, 0, 1], [0, 2, 3], [1, 0, 4]])
    >>> y = np.array(["spam", "spam", "ham", "ham"])
    >>> model = MultinomialNB(alpha=1.0).fit(X, y)
    >>> model.predict([[4, 0, 0]]).tolist()
    ['spam']
    >>> model.predict_proba([[4, 0, 0]]).round(3).tolist()
    [[0.004, 0.996]]
    """

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None):
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

