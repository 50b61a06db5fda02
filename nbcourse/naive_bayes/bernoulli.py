"""BernoulliNB: every vocabulary word is a coin flip per document."""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from .._checks import check_finite, check_matrix, plain
from .._numerics import log_dot
from ..smoothing import lidstone_log
from ._base import _finite_linear
from ._discrete import _FeatureCountNB


class BernoulliNB(_FeatureCountNB):
    """Naive Bayes for word presence: every vocabulary word is a coin flip per document.

    Absent words count too, through factors (1 - theta_ck); that is the difference
    from the multinomial model. Both sides of each coin are Lidstone-smoothed with two
    outcomes: theta_ck = (documents of c with word k + alpha) / (documents of c + 2 alpha).

    Parameters
    ----------
    alpha : float or array of shape (n_features,), default=1.0
        Pseudo-count, as in `MultinomialNB`.
    force_alpha : bool, default=True
        As in `MultinomialNB`.
    binarize : float or None, default=0.0
        Threshold: X is turned into presence (x > binarize); None expects X to hold
        0 and 1 already.
    fit_prior : bool, default=True
        As in `MultinomialNB`.
    class_prior : array-like of shape (n_classes,), default=None
        As in `MultinomialNB`.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, n_features_in_
        As in `MultinomialNB`.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Documents per class that contain each word.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log P(word present | class).

    Examples
    --------
    >>> import numpy as np
    >>> from nbcourse.naive_bayes import BernoulliNB
    >>> X = np.array([[2, 1, 0], [3, 0, 1], [0, 2, 3], [1, 0, 4]])
    >>> y = np.array(["spam", "spam", "ham", "ham"])
    >>> model = BernoulliNB().fit(X, y)
    >>> np.exp(model.feature_log_prob_).round(2).tolist()
    [[0.5, 0.5, 0.75], [0.75, 0.5, 0.5]]
    >>> model.predict_proba([[1, 0, 0]]).round(2).tolist()
    [[0.25, 0.75]]
    """

    _input_tags = {"sparse": True}

    def __init__(self, *, alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True,
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
        if binarize is not None:  # NaN marked every feature absent, -inf every one present
            check_finite(binarize, "binarize")
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
        if np.isfinite(log_p).all() and np.isfinite(log_q).all():  # alpha > 0
            # sum_k x_k log p_k + (1 - x_k) log q_k  ==  x @ (log p - log q) + sum_k log q_k
            jll = np.asarray(X @ (log_p - log_q).T) + log_q.sum(axis=1)
        else:
            # alpha = 0: a word present (or absent) where its probability is 0 makes the
            # document impossible, one that is not contributes 0 * log 0 = 0
            absent = 1.0 - (X.toarray() if sp.issparse(X) else X)
            jll = log_dot(X, log_p) + log_dot(absent, log_q)
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

