"""Naive Bayes estimators written from scratch.

Every estimator follows the same four steps, which is the whole idea of the course:

1. **count** sufficient statistics per class (category counts, word counts, or
   means and spreads);
2. turn them into **smoothed log-parameters** (``class_log_prior_``,
   ``feature_log_prob_`` or ``theta_``/``var_``);
3. add logs to get the **joint log-likelihood** log P(y) + sum_i log P(x_i | y);
4. normalise with **log-sum-exp** to get the posterior P(y | x).

Because step 1 is counting, statistics from two shards of data add up to the
statistics of the whole: ``partial_fit`` on shards equals ``fit`` on everything.

Names and semantics follow scikit-learn (``fit``, ``predict_proba``, ``classes_``,
``feature_log_prob_``, ``alpha`` ...) so that the same numbers come out of both and
students can move on without relearning.
"""
from __future__ import annotations

from fractions import Fraction
import numbers

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._checks import NotFittedError, check_alpha, check_labels, check_matrix, logsumexp

__all__ = ["CategoricalNB", "MultinomialNB", "BernoulliNB", "GaussianNB"]


class _BaseNB:
    """Step 4, shared by all estimators: posterior from the joint log-likelihood."""

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log P(y) + log P(x | y) for every sample (rows) and class (columns)."""
        self._check_fitted()
        return self._joint_log_likelihood(X)

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

    def _check_fitted(self):
        if not hasattr(self, "classes_"):
            raise NotFittedError(
                f"this {type(self).__name__} is not fitted yet; call fit(X, y) first")

    def _check_two_classes(self):
        self._check_fitted()
        if len(self.classes_) != 2:
            raise ValueError(
                "to_linear() needs exactly two classes, the model has "
                f"{len(self.classes_)}: {list(self.classes_)}")


def _one_hot(y: np.ndarray, classes: np.ndarray) -> sp.csr_matrix:
    """Sparse indicator matrix (samples x classes); unknown labels are an error."""
    index = np.searchsorted(classes, y)
    index = np.clip(index, 0, len(classes) - 1)
    unknown = classes[index] != y
    if unknown.any():
        raise ValueError(
            f"y contains labels {sorted(set(y[unknown].tolist()))} that are not in "
            f"classes={list(classes)}")
    n = len(y)
    return sp.csr_matrix((np.ones(n), (np.arange(n), index)), shape=(n, len(classes)))


def _check_classes(classes) -> np.ndarray:
    classes = np.asarray(classes)
    if classes.ndim != 1 or len(classes) < 2:
        raise ValueError(f"classes must list at least two class labels, got {classes!r}")
    if len(np.unique(classes)) != len(classes):
        raise ValueError(f"classes must not repeat a label, got {list(classes)}")
    return np.sort(classes)


def _classes_from_fit(y) -> np.ndarray:
    classes = np.unique(y)
    if len(classes) < 2:
        raise ValueError(
            f"y holds only one class ({classes.tolist()}); a classifier needs at least two")
    return classes


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


def _log(values) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(values)


class _BaseDiscreteNB(_BaseNB):
    """Counting models on a count or 0/1 matrix: multinomial and Bernoulli."""

    def __init__(self, alpha: float = 1.0, fit_prior: bool = True, class_prior=None):
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def fit(self, X, y):
        """Count features per class on all of ``X`` (forgets earlier fits)."""
        X = self._prepare(X)
        y = check_labels(y, X.shape[0])
        for attr in ("classes_", "class_count_", "feature_count_"):
            self.__dict__.pop(attr, None)
        return self._accumulate(X, y, _classes_from_fit(y))

    def partial_fit(self, X, y, classes=None):
        """Add the counts of one more shard; ``classes`` is needed on the first call."""
        X = self._prepare(X)
        y = check_labels(y, X.shape[0])
        if not hasattr(self, "classes_"):
            if classes is None:
                raise ValueError(
                    "classes must be given on the first call to partial_fit, because a "
                    "shard may not contain every class")
            classes = _check_classes(classes)
        elif classes is not None and not np.array_equal(_check_classes(classes), self.classes_):
            raise ValueError(
                f"classes={list(classes)} differs from the first call's {list(self.classes_)}")
        else:
            classes = self.classes_
            if X.shape[1] != self.feature_count_.shape[1]:
                raise ValueError(
                    f"X has {X.shape[1]} features but earlier shards had "
                    f"{self.feature_count_.shape[1]}")
        return self._accumulate(X, y, classes)

    def _accumulate(self, X, y, classes):
        """Step 1 (counting) followed by step 2 (smoothed log-parameters)."""
        alpha = check_alpha(self.alpha)
        Y = _one_hot(y, classes)
        if not hasattr(self, "classes_"):
            self.classes_ = classes
            self.class_count_ = np.zeros(len(classes))
            self.feature_count_ = np.zeros((len(classes), X.shape[1]))
            self.n_features_in_ = X.shape[1]
        self.class_count_ += np.asarray(Y.sum(axis=0)).ravel()
        per_class = Y.T.tocsr() @ X  # CSR @ CSR: scipy would otherwise copy all of X to CSC
        self.feature_count_ += per_class.toarray() if sp.issparse(per_class) else per_class
        self.class_log_prior_ = self._class_log_prior()
        self.feature_log_prob_ = self._feature_log_prob(alpha)
        return self

    def _class_log_prior(self) -> np.ndarray:
        n_classes = len(self.classes_)
        if self.class_prior is not None:
            prior = np.asarray(self.class_prior, dtype=np.float64)
            if prior.shape != (n_classes,) or (prior < 0).any() or not np.isclose(prior.sum(), 1):
                raise ValueError(
                    f"class_prior must be {n_classes} non-negative numbers summing to 1, "
                    f"got {self.class_prior!r}")
            return _log(prior)
        if not self.fit_prior:
            return np.full(n_classes, -np.log(n_classes))
        return _log(self.class_count_) - np.log(self.class_count_.sum())

    #: multinomial counts must be whole numbers; Bernoulli binarizes whatever it gets
    _whole_numbers = False

    def _prepare(self, X):
        return check_matrix(X, non_negative=True, whole_numbers=self._whole_numbers)

    def _check_predict_X(self, X):
        return check_matrix(X, non_negative=True, whole_numbers=self._whole_numbers,
                            n_features=self.n_features_in_)


class MultinomialNB(_BaseDiscreteNB):
    """Naive Bayes for word counts: a document is a bag of independent word draws.

    theta_ck = (count of word k in class c + alpha) / (words in class c + alpha * V)
    """

    _whole_numbers = True

    def _feature_log_prob(self, alpha: float) -> np.ndarray:
        smoothed = self.feature_count_ + alpha
        return _log(smoothed) - _log(smoothed.sum(axis=1, keepdims=True))

    def _joint_log_likelihood(self, X) -> np.ndarray:
        X = self._check_predict_X(X)
        return _masked_product(X, self.feature_log_prob_) + self.class_log_prior_

    def to_linear(self):
        """(w0, w) with ``w0 + X @ w > 0`` exactly where the model predicts ``classes_[1]``.

        w0 = log pi_1 - log pi_0 and w_k = log theta_1k - log theta_0k.
        """
        self._check_two_classes()
        weights = self.feature_log_prob_[1] - self.feature_log_prob_[0]
        bias = self.class_log_prior_[1] - self.class_log_prior_[0]
        return _finite_linear(bias, weights)


class BernoulliNB(_BaseDiscreteNB):
    """Naive Bayes for word presence: every vocabulary word is a coin flip per document.

    Absent words count too, through factors (1 - theta_ck); that is the difference
    from the multinomial model.
    """

    def __init__(self, alpha: float = 1.0, binarize: float | None = 0.0,
                 fit_prior: bool = True, class_prior=None):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior)
        self.binarize = binarize

    def _binarize(self, X):
        if self.binarize is None:
            values = X.data if sp.issparse(X) else X
            if values.size and not np.isin(values, (0.0, 1.0)).all():
                raise ValueError("X must hold only 0 and 1 when binarize=None")
            return X
        if sp.issparse(X):
            X = X.copy()
            X.data = (X.data > self.binarize).astype(np.float64)
            X.eliminate_zeros()
            return X
        return (X > self.binarize).astype(np.float64)

    def _prepare(self, X):
        return self._binarize(super()._prepare(X))

    def _feature_log_prob(self, alpha: float) -> np.ndarray:
        denominator = _log(self.class_count_ + 2 * alpha)[:, None]
        self._neg_log_prob = _log(self.class_count_[:, None] - self.feature_count_ + alpha) \
            - denominator
        return _log(self.feature_count_ + alpha) - denominator

    def _joint_log_likelihood(self, X) -> np.ndarray:
        X = self._binarize(self._check_predict_X(X))
        log_p, log_q = self.feature_log_prob_, self._neg_log_prob
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
        log_p, log_q = self.feature_log_prob_, self._neg_log_prob
        weights = (log_p[1] - log_q[1]) - (log_p[0] - log_q[0])
        bias = self.class_log_prior_[1] - self.class_log_prior_[0] + np.sum(log_q[1] - log_q[0])
        return _finite_linear(bias, weights)


def _finite_linear(bias, weights):
    if not (np.isfinite(bias) and np.all(np.isfinite(weights))):
        raise ValueError(
            "some log-probabilities are -inf (alpha=0 and a count of zero), so the linear "
            "weights are infinite; refit with alpha > 0")
    return float(bias), weights


class GaussianNB(_BaseNB):
    """Naive Bayes for continuous features: one normal distribution per feature and class.

    The parameters are the maximum-likelihood mean and (biased) variance of each
    feature within each class, plus ``var_smoothing`` times the largest feature
    variance so that a constant feature does not divide by zero (as in scikit-learn).

    With ``shared_variance=True`` every class uses the pooled within-class variance;
    the quadratic terms then cancel and the decision boundary is linear (``to_linear``).
    """

    def __init__(self, priors=None, var_smoothing: float = 1e-9, shared_variance: bool = False):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.shared_variance = shared_variance

    def fit(self, X, y):
        """Means and variances per class from all of ``X`` (forgets earlier fits)."""
        for attr in ("classes_", "class_count_", "theta_", "_m2", "_total"):
            self.__dict__.pop(attr, None)
        X = check_matrix(X, allow_sparse=False)
        y = check_labels(y, X.shape[0])
        return self._accumulate(X, y, _classes_from_fit(y))

    def partial_fit(self, X, y, classes=None):
        """Merge one more shard's counts, means and squared deviations (Chan et al.)."""
        X = check_matrix(X, allow_sparse=False,
                         n_features=getattr(self, "n_features_in_", None))
        y = check_labels(y, X.shape[0])
        if hasattr(self, "classes_"):
            if classes is not None and not np.array_equal(_check_classes(classes), self.classes_):
                raise ValueError(
                    f"classes={list(classes)} differs from the first call's {list(self.classes_)}")
            classes = self.classes_
        elif classes is None:
            raise ValueError(
                "classes must be given on the first call to partial_fit, because a shard "
                "may not contain every class")
        else:
            classes = _check_classes(classes)
        return self._accumulate(X, y, classes)

    def _accumulate(self, X, y, classes):
        check_alpha(self.var_smoothing, "var_smoothing")
        if not hasattr(self, "classes_"):
            n_classes, n_features = len(classes), X.shape[1]
            self.classes_ = classes
            self.n_features_in_ = n_features
            self.class_count_ = np.zeros(n_classes)
            self.theta_ = np.zeros((n_classes, n_features))
            self._m2 = np.zeros((n_classes, n_features))
            self._total = (0.0, np.zeros(n_features), np.zeros(n_features))
        index = np.searchsorted(classes, y)
        _one_hot(y, classes)  # raises on labels outside `classes`
        for c in np.unique(index):
            rows = X[index == c]
            self.class_count_[c], self.theta_[c], self._m2[c] = _merge_moments(
                self.class_count_[c], self.theta_[c], self._m2[c], rows)
        self._total = _merge_moments(*self._total, X)
        self._update_parameters()
        return self

    def _update_parameters(self):
        count, _, m2 = self._total
        self.epsilon_ = self.var_smoothing * float(np.max(m2 / count))
        seen = self.class_count_ > 0
        if self.shared_variance:
            pooled = self._m2.sum(axis=0) / self.class_count_.sum()
            var = np.tile(pooled, (len(self.classes_), 1))
        else:
            var = np.zeros_like(self._m2)
            var[seen] = self._m2[seen] / self.class_count_[seen, None]
        self.var_ = var + self.epsilon_
        if self.priors is not None:
            priors = np.asarray(self.priors, dtype=np.float64)
            if priors.shape != (len(self.classes_),) or (priors < 0).any() \
                    or not np.isclose(priors.sum(), 1):
                raise ValueError(
                    f"priors must be {len(self.classes_)} non-negative numbers summing to 1, "
                    f"got {self.priors!r}")
            self.class_prior_ = priors
        else:
            self.class_prior_ = self.class_count_ / self.class_count_.sum()
        self.class_log_prior_ = _log(self.class_prior_)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        X = check_matrix(X, allow_sparse=False, n_features=self.n_features_in_)
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


def _merge_moments(count, mean, m2, rows):
    """Combine (count, mean, sum of squared deviations) with a new block of rows.

    This is the parallel-variance update: it lets shards be fitted separately and
    merged with the same result as one pass over all the data.
    """
    n_new = rows.shape[0]
    if n_new == 0:
        return count, mean, m2
    mean_new = rows.mean(axis=0)
    m2_new = ((rows - mean_new) ** 2).sum(axis=0)
    total = count + n_new
    delta = mean_new - mean
    merged_mean = mean + delta * (n_new / total)
    merged_m2 = m2 + m2_new + delta ** 2 * (count * n_new / total)
    return total, merged_mean, merged_m2


class CategoricalNB(_BaseNB):
    """Naive Bayes for tables of labels, such as the weather data, fitted by counting.

    ``X`` is a pandas DataFrame whose columns hold categories (strings are fine);
    P(x_i = v | y = c) = (count(v, c) + alpha) / (count(c) + alpha * n_values_i).
    ``alpha=0`` is the plain maximum-likelihood estimate of the lecture slides.

    Category order follows the data (first appearance, or a pandas Categorical's own
    order), so the tables read like the lecture: sunny, overcast, rainy.

    A value never seen in training has no count at all, smoothed or not, so predicting
    on it raises a ValueError that names the feature and the value.
    """

    def __init__(self, alpha: float = 0.0):
        self.alpha = alpha

    def fit(self, X, y):
        """Count every (feature value, class) pair in the table."""
        alpha = check_alpha(self.alpha)
        X = self._as_frame(X)
        y = check_labels(y, len(X))
        self.classes_ = _classes_from_fit(y)
        self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        self.n_features_in_ = X.shape[1]
        class_codes = np.searchsorted(self.classes_, y)
        self.class_count_ = np.bincount(class_codes, minlength=len(self.classes_)).astype(np.float64)
        self.class_log_prior_ = np.log(self.class_count_ / self.class_count_.sum())
        self.categories_, self.category_count_, self.feature_log_prob_ = {}, {}, []
        for name in X.columns:
            column = X[name]
            if isinstance(column.dtype, pd.CategoricalDtype):
                values = list(column.cat.categories)
            else:
                values = list(pd.unique(column))
            lookup = {value: code for code, value in enumerate(values)}
            value_codes = np.fromiter((lookup[v] for v in column), dtype=np.intp,
                                      count=len(column))
            counts = np.zeros((len(self.classes_), len(values)))
            np.add.at(counts, (class_codes, value_codes), 1.0)
            self.categories_[name] = values
            self.category_count_[name] = counts
            smoothed = counts + alpha
            self.feature_log_prob_.append(
                _log(smoothed) - _log(smoothed.sum(axis=1, keepdims=True)))
        return self

    # ----- tables a lecture slide would show -------------------------------------------
    def frequency_table(self, feature: str) -> pd.DataFrame:
        """Counts of each value of ``feature`` within each class (values x classes)."""
        self._check_fitted()
        name = self._feature(feature)
        return pd.DataFrame(self.category_count_[name].T.astype(int),
                            index=pd.Index(self.categories_[name], name=name),
                            columns=pd.Index(self.classes_, name="class"))

    def likelihood_table(self, feature: str, numeric: bool = False) -> pd.DataFrame:
        """P(value | class) as the fractions a person writes, e.g. '2/9' and '3/5'.

        The fractions are left unreduced (3/9, not 1/3) so they show the counts they
        come from. ``numeric=True`` returns the same table as floats.
        """
        self._check_fitted()
        name = self._feature(feature)
        counts = self.category_count_[name] + self.alpha
        totals = counts.sum(axis=1, keepdims=True)
        if numeric:
            table = counts / totals
        else:
            table = np.vectorize(lambda n, d: f"{_number(n)}/{_number(d)}")(
                counts, np.broadcast_to(totals, counts.shape))
        return pd.DataFrame(table.T, index=pd.Index(self.categories_[name], name=name),
                            columns=pd.Index(self.classes_, name="class"))

    def prior_table(self, numeric: bool = False) -> pd.Series:
        """P(class) as counts over the total, e.g. '9/14' and '5/14'."""
        self._check_fitted()
        total = self.class_count_.sum()
        values = self.class_count_ / total if numeric else \
            [f"{_number(n)}/{_number(total)}" for n in self.class_count_]
        return pd.Series(values, index=pd.Index(self.classes_, name="class"), name="P(class)")

    # ----- scores ---------------------------------------------------------------------
    def joint_proba(self, X, exact: bool = False) -> pd.DataFrame:
        """Unnormalised scores P(y) * prod_i P(x_i | y): the numbers compared by hand.

        With ``exact=True`` the scores are ``fractions.Fraction`` objects (1/189 rather
        than 0.0053); this needs a rational ``alpha`` such as 0, 1 or Fraction(1, 2).
        """
        self._check_fitted()
        X = self._query_frame(X)
        codes = self._encode(X)
        if not exact:
            return pd.DataFrame(np.exp(self._jll_from_codes(codes)), index=X.index,
                                columns=pd.Index(self.classes_, name="class"))
        alpha = _as_fraction(self.alpha)
        total = int(self.class_count_.sum())
        rows = []
        for sample in codes:
            row = []
            for c, n_c in enumerate(self.class_count_.astype(int)):
                score = Fraction(n_c, total)
                for name, code in zip(self.feature_names_in_, sample):
                    counts = self.category_count_[name]
                    score *= (int(counts[c, code]) + alpha) / (n_c + alpha * counts.shape[1])
                row.append(score)
            rows.append(row)
        return pd.DataFrame(rows, index=X.index, columns=pd.Index(self.classes_, name="class"))

    def predict_proba(self, X, exact: bool = False):
        """P(y | x); with ``exact=True`` a DataFrame of Fractions (18/875 over the sum)."""
        if not exact:
            return super().predict_proba(X)
        joint = self.joint_proba(X, exact=True)
        totals = joint.sum(axis=1)
        if (totals == 0).any():
            raise ValueError("a sample has probability zero under every class; use alpha > 0")
        return joint.div(totals, axis=0)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        return self._jll_from_codes(self._encode(self._query_frame(X)))

    def _jll_from_codes(self, codes: np.ndarray) -> np.ndarray:
        jll = np.tile(self.class_log_prior_, (codes.shape[0], 1))
        for i, log_prob in enumerate(self.feature_log_prob_):
            jll += log_prob[:, codes[:, i]].T
        return jll

    # ----- input handling -------------------------------------------------------------
    def _feature(self, feature) -> str:
        if feature not in self.categories_:
            raise ValueError(
                f"feature must be one of {list(self.categories_)}, got {feature!r}")
        return feature

    @staticmethod
    def _as_frame(X) -> pd.DataFrame:
        if isinstance(X, pd.DataFrame):
            frame = X
        elif isinstance(X, np.ndarray) or isinstance(X, list):
            frame = pd.DataFrame(X)
            frame.columns = [f"x{i}" for i in range(frame.shape[1])]
        else:
            raise TypeError(f"X must be a pandas DataFrame of categories, got {type(X).__name__}")
        if frame.shape[0] == 0 or frame.shape[1] == 0:
            raise ValueError(f"X is empty (shape {frame.shape})")
        missing = frame.isna().any()
        if missing.any():
            raise ValueError(f"X has missing values in column(s) {list(missing[missing].index)}")
        return frame

    def _query_frame(self, X) -> pd.DataFrame:
        """Accept one query as a dict/Series, or several as a DataFrame."""
        if isinstance(X, dict):
            X = pd.DataFrame([X])
        elif isinstance(X, pd.Series):
            X = X.to_frame().T
        X = self._as_frame(X)
        missing = [name for name in self.feature_names_in_ if name not in X.columns]
        if missing:
            raise ValueError(f"X is missing the feature column(s) {missing}")
        return X

    def _encode(self, X: pd.DataFrame) -> np.ndarray:
        codes = np.empty((len(X), self.n_features_in_), dtype=np.intp)
        for i, name in enumerate(self.feature_names_in_):
            values = self.categories_[name]
            lookup = {v: k for k, v in enumerate(values)}
            for row, value in enumerate(X[name]):
                if value not in lookup:
                    raise ValueError(
                        f"feature {name!r} has the value {value!r}, which never occurred in "
                        f"training (known values: {values}); naive Bayes has no count for it")
                codes[row, i] = lookup[value]
        return codes


def _number(x) -> str:
    """Format a count for a fraction label: 2 rather than 2.0, 0.5 stays 0.5."""
    x = float(x)
    return str(int(x)) if x.is_integer() else f"{x:g}"


def _as_fraction(alpha) -> Fraction:
    if isinstance(alpha, Fraction):
        return alpha
    if isinstance(alpha, numbers.Integral) or float(alpha).is_integer():
        return Fraction(int(alpha))
    return Fraction(alpha).limit_denominator(10**6)
