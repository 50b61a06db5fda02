"""GaussianNB: one normal distribution per feature and class."""
from __future__ import annotations

import numpy as np

from .._checks import check_alpha, check_bool, check_matrix, check_prior
from .._numerics import combine_moments, gaussian_log_density, moments
from ._base import _BaseNB, _class_log_prior, _class_prior, _finite_linear


class GaussianNB(_BaseNB):
    """Naive Bayes for continuous features: one normal distribution per feature and class.

    The parameters are the (weighted) maximum-likelihood mean and biased variance of
    each feature within each class, plus ``epsilon_ = var_smoothing`` times the largest
    feature variance so that a constant feature does not divide by zero (as in
    scikit-learn).

    Deliberate difference from scikit-learn: ``partial_fit`` recomputes ``epsilon_``
    from all the data seen so far, so that batch after batch equals ``fit`` on all of
    it (scikit-learn uses the variance of the latest batch only).

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Class probabilities given by hand; None: the class frequencies.
    var_smoothing : float, default=1e-9
        Fraction of the largest feature variance added to every variance.
    shared_variance : bool, default=False
        Every class uses the pooled within-class variance; the quadratic terms then
        cancel and the decision boundary is linear (``to_linear``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        Samples (or their weights) per class.
    class_prior_ : ndarray of shape (n_classes,)
        P(class).
    theta_ : ndarray of shape (n_classes, n_features)
        Mean of each feature per class.
    var_ : ndarray of shape (n_classes, n_features)
        Variance of each feature per class, plus ``epsilon_``.
    epsilon_ : float
        The variance added to every variance.
    n_features_in_ : int
        Number of columns of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from nbcourse.naive_bayes import GaussianNB
    >>> X = np.array([[1.0, 2.0], [1.2, 1.8], [3.0, 4.1], [3.3, 3.9]])
    >>> y = np.array([0, 0, 1, 1])
    >>> model = GaussianNB().fit(X, y)
    >>> model.theta_.round(2).tolist()
    [[1.1, 1.9], [3.15, 4.0]]
    >>> model.predict([[1.1, 2.1], [3.1, 4.0]]).tolist()
    [0, 1]
    """

    _per_class_statistics = ("class_count_", "theta_", "_var_")

    def __init__(self, *, priors=None, var_smoothing=1e-9, shared_variance=False):
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

        The same signature as scikit-learn's method; the formulas are
        `nbcourse._numerics.moments` (the batch) and `combine_moments` (the update).
        """
        if X.shape[0] == 0:
            return mu, var
        if sample_weight is not None and np.isclose(float(np.sum(sample_weight)), 0.0):
            return mu, var
        n_new, new_mu, new_m2 = moments(X, sample_weight)
        return _combine_variances(n_past, mu, var, n_new, new_mu, new_m2 / n_new)

    def _merge_statistics(self, other):
        for c in range(len(self.classes_)):
            self.theta_[c], self._var_[c] = _combine_variances(
                self.class_count_[c], self.theta_[c], self._var_[c],
                other.class_count_[c], other.theta_[c], other._var_[c])
        self.class_count_ = self.class_count_ + other.class_count_
        n_a, mean_a, var_a = self._overall_
        n_b, mean_b, var_b = other._overall_
        self._overall_ = (n_a + n_b,) + _combine_variances(n_a, mean_a, var_a, n_b, mean_b, var_b)

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
        self.class_prior_ = _class_prior(self.class_count_, params["priors"])
        self.class_log_prior_ = _class_log_prior(self.class_count_, params["priors"], True)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        self._check_variances()
        # one class at a time: a (samples x features) array, never samples x classes x features
        jll = np.column_stack([gaussian_log_density(X, mean, var).sum(axis=1)
                               for mean, var in zip(self.theta_, self.var_)])
        return self.class_log_prior_ + jll

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


def _combine_variances(n_a, mean_a, var_a, n_b, mean_b, var_b):
    """`combine_moments` for groups described by their variance rather than their m2."""
    if n_b == 0:  # nothing to pool: keep the other group's numbers as they are
        return mean_a, var_a
    if n_a == 0:
        return mean_b, var_b
    n, mean, m2 = combine_moments(n_a, mean_a, n_a * var_a, n_b, mean_b, n_b * var_b)
    return mean, m2 / float(n)
