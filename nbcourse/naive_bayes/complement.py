"""ComplementNB: judge a class by how badly its complement explains the document."""
from __future__ import annotations

import numpy as np

from .._checks import check_bool, check_matrix, plain
from .._numerics import log_dot
from ..smoothing import lidstone_log
from ._discrete import _FeatureCountNB


class ComplementNB(_FeatureCountNB):
    """Complement naive Bayes (Rennie, Shih, Teevan and Karger, 2003) for word counts.

    MultinomialNB estimates each class's word distribution from that class's documents
    alone, so a rare class gets a noisy estimate from few words, and the decision leans
    towards the big classes. Complement naive Bayes estimates, for each class c, the word
    distribution of all the *other* classes (its complement), which even for a rare class
    is made from most of the data, and prefers the class whose complement explains the
    document worst::

        theta~_ck = (words k outside c + alpha) / (all words outside c + alpha * V)
        weight w_ck = -log theta~_ck   (with ``norm=True``: w_ck / sum_j w_cj)
        predicted class = argmax_c  sum_k x_k w_ck

    theta~ is Lidstone smoothing of the counts outside each class
    (`nbcourse.smoothing.lidstone_log`). The weights are in ``feature_log_prob_`` (as in
    scikit-learn, although they are not log-probabilities). As in scikit-learn the class
    prior is left out of the decision (the complement estimates already even out the
    class sizes), except when there is only one class; ``class_log_prior_`` is still
    computed from ``fit_prior`` and ``class_prior``. ``predict_proba`` normalises
    exp(scores) over classes; those are not calibrated probabilities.

    Parameters
    ----------
    alpha : float or array of shape (n_features,), default=1.0
        Pseudo-count, as in `MultinomialNB`.
    force_alpha : bool, default=True
        As in `MultinomialNB`.
    fit_prior : bool, default=True
        As in `MultinomialNB` (only used with a single class).
    class_prior : array-like of shape (n_classes,), default=None
        As in `MultinomialNB` (only used with a single class).
    norm : bool, default=False
        Normalise each class's weights, which the paper does against the longer
        documents of some classes (scikit-learn's default, False, is kept).

    Attributes
    ----------
    classes_, class_count_, feature_count_, class_log_prior_, n_features_in_
        As in `MultinomialNB`.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        The complement weights w_ck.
    feature_all_ : ndarray of shape (n_features,)
        Every word's count over all classes.

    Examples
    --------
    >>> import numpy as np
    >>> from nbcourse.naive_bayes import ComplementNB
    >>> X = np.array([[2, 1, 0], [3, 0, 1], [0, 2, 3], [1, 0, 4]])
    >>> y = np.array(["spam", "spam", "ham", "ham"])
    >>> model = ComplementNB().fit(X, y)
    >>> model.predict([[0, 1, 3]]).tolist()
    ['ham']
    >>> model.feature_log_prob_.round(3).tolist()
    [[0.511, 1.609, 1.609], [1.872, 1.466, 0.486]]
    """

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None,
                 norm=False):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.norm = norm

    def _check_params(self, n_classes, n_features):
        params = super()._check_params(n_classes, n_features)
        params["norm"] = check_bool(self.norm, "norm")
        return params

    def _update_parameters(self, params):
        self._norm_ = params["norm"]  # read at fit, like every hyper-parameter
        super()._update_parameters(params)

    def _check_X(self, X, first, training=False):
        return check_matrix(X, owner="ComplementNB", non_negative=True,
                            n_features=None if first else self.n_features_in_)

    def _update_feature_log_prob(self, alpha):
        # Derived from feature_count_ here rather than counted, so that partial_fit and
        # merge (which only add feature_count_) keep it right.
        self.feature_all_ = self.feature_count_.sum(axis=0)
        # log theta~: Lidstone smoothing of the counts outside each class
        logged = lidstone_log(self.feature_all_ - self.feature_count_, alpha)
        with np.errstate(invalid="ignore"):
            if self._norm_:
                # a class with one infinite weight has no finite normaliser: every
                # weight of it is undefined (NaN), not silently 0
                total = logged.sum(axis=1, keepdims=True)
                self.feature_log_prob_ = np.where(np.isfinite(total), logged / total, np.nan)
            else:
                self.feature_log_prob_ = -logged

    def _joint_log_likelihood(self, X) -> np.ndarray:
        # The weights are -log theta~, so the score is -(X @ log theta~): with alpha = 0 a
        # word never seen outside class c has an infinite weight for c, which counts only
        # in a document that has the word (0 * log 0 = 0). With ``norm=True`` such a class
        # has no finite normaliser, so all its weights are NaN.
        jll = -log_dot(X, -self.feature_log_prob_)
        if not np.isfinite(jll).all():
            sample, column = (int(i) for i in np.argwhere(~np.isfinite(jll))[0])
            raise ValueError(
                f"sample {sample} has no finite score for class "
                f"{plain(self.classes_[column])!r}: with alpha=0, a word never seen outside "
                "a class has complement probability 0 and an infinite weight; use alpha > 0")
        if len(self.classes_) == 1:
            jll = jll + self.class_log_prior_
        return jll
