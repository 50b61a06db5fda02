"""CategoricalNB: naive Bayes for tables of labels, fitted by counting.

The estimator: counting, encoding labels as codes, and the one smoothing step
(``_smoothed_counts``) from which ``feature_log_prob_``, the fraction tables and the
exact path all come. The slide tables are in ``_tables``; the checks of the input
columns in ``nbcourse._checks``.
"""
from __future__ import annotations

import numbers
from fractions import Fraction

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._checks import _as_counts, _to_fraction, plain
from .._numerics import log
from ..smoothing import _pseudo_counted
from ._categorical_input import (CategoricalColumns, check_categorical_column,
                                 check_categorical_frame, check_min_categories)
from ._discrete import _BaseDiscreteNB
from ._tables import _SlideTables


class CategoricalNB(_SlideTables, _BaseDiscreteNB):
    """Naive Bayes for tables of labels, such as the weather data, fitted by counting.

    P(x_i = v | y = c) = (count(v, c) + alpha) / (count(c) + alpha * n_categories_i):
    Lidstone smoothing, with ``alpha=1.0`` by default as in scikit-learn. ``alpha=0`` is
    the plain maximum-likelihood estimate of the lecture slides (pass it explicitly).

    ``X`` is usually a pandas DataFrame whose columns hold labels (strings are fine).
    Category order follows the data (first appearance, or a pandas Categorical's own
    order), so the tables read like the lecture: sunny, overcast, rainy. A column of
    numbers is read as scikit-learn reads it: codes 0, 1, 2, ... of the categories
    0 .. max. A label never seen in training has no count at all, smoothed or not, so
    predicting on it raises a ValueError that names the feature and the value. The
    tables a slide shows are methods: `frequency_table`, `likelihood_table`,
    `prior_table`, `joint_proba`.

    Parameters
    ----------
    alpha : float, default=1.0
        Pseudo-count added to every (value, class) cell; 0 is maximum likelihood.
    force_alpha : bool, default=True
        As in `MultinomialNB`.
    fit_prior : bool, default=True
        As in `MultinomialNB`.
    class_prior : array-like of shape (n_classes,), default=None
        As in `MultinomialNB`.
    min_categories : int or array-like of shape (n_features,), default=None
        At least this many categories for a column of numeric codes.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As in `MultinomialNB`.
    category_count_ : list of ndarray of shape (n_classes, n_categories_i)
        Counts per class and category, one array per feature.
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories_i)
        log P(x_i = v | class), one array per feature.
    n_categories_ : ndarray of shape (n_features,)
        Number of categories of each feature.
    categories_ : list of ndarray
        The categories of each feature, in the column order of those arrays.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbcourse.naive_bayes import CategoricalNB
    >>> days = pd.DataFrame({"outlook": ["sunny", "sunny", "overcast", "rainy", "rainy"],
    ...                      "windy": ["no", "yes", "no", "no", "yes"]})
    >>> play = ["no", "no", "yes", "yes", "no"]
    >>> model = CategoricalNB().fit(days, play)
    >>> model.categories_[0].tolist()
    ['sunny', 'overcast', 'rainy']
    >>> query = pd.DataFrame({"outlook": ["overcast"], "windy": ["yes"]})
    >>> model.predict_proba(query).round(3).tolist()
    [[0.6, 0.4]]
    """

    _input_tags = {"categorical": True, "positive_only": True}
    _alpha_per_feature = False
    _per_class_statistics = ("class_count_", "category_count_")
    _grown_in_place = ("categories_", "n_categories_")

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None,
                 min_categories=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories

    # ----- the contract -----------------------------------------------------------------
    def _check_params(self, n_classes, n_features):
        params = super()._check_params(n_classes, n_features)
        check_min_categories(self.min_categories, n_features)
        return params

    def _check_X(self, X, first, training=False):
        """The checked columns: arrays of codes (whole numbers >= 0) or of labels."""
        frame = check_categorical_frame(X, first)
        if not first:
            frame = self._select_columns(frame)
        columns = [check_categorical_column(
                       frame[key], key, expect_codes=None if first else self._code_features_[i])
                   for i, key in enumerate(frame.columns)]
        categorical = [frame[key].dtype if isinstance(frame[key].dtype, pd.CategoricalDtype)
                       else None for key in frame.columns]
        return CategoricalColumns(columns, list(frame.columns), categorical, frame.index)

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
        minimum = check_min_categories(self.min_categories, self.n_features_in_)
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
        """Smooth every feature's counts with ``alpha``: the one smoothing step.

        It records the alpha it used; the fraction tables and ``joint_proba(exact=True)``
        smooth the same counts with it, so a subclass that overrides this hook and calls
        it with its own alpha changes every table and probability alike.
        """
        self._smoothing_alpha_ = alpha
        self.feature_log_prob_ = []
        for counts in self.category_count_:
            numerators, totals = _pseudo_counted(counts, alpha)
            with np.errstate(invalid="ignore"):  # 0/0: a class without data and alpha = 0
                self.feature_log_prob_.append(log(numerators) - log(totals))

    def _smoothed_counts(self, i: int, exact: bool = False):
        """Lidstone's numerators count + alpha and denominators total + K alpha, feature i.

        With ``exact=True`` they are Fractions, the counts and alpha read as the decimals
        they print as (0.5 is 1/2). Raises if ``feature_log_prob_`` did not come from
        them (a subclass that sets it without this step): a table would then show
        numbers the model does not use.
        """
        alpha = getattr(self, "_smoothing_alpha_", None)
        counts = self.category_count_[i]
        if alpha is not None:
            numerators, totals = _pseudo_counted(counts, alpha)
            with np.errstate(invalid="ignore", divide="ignore"):
                used = np.exp(self.feature_log_prob_[i])
                agree = np.allclose(used, numerators / totals, rtol=1e-12, atol=0.0,
                                    equal_nan=True)
        if alpha is None or not agree:
            raise ValueError(
                f"{type(self).__name__}.feature_log_prob_ was not made by the smoothing "
                "step _smoothed_counts, so there are no fractions to show; call "
                "super()._update_feature_log_prob(alpha) from the override")
        if not exact:
            return numerators, totals
        return _pseudo_counted(_as_counts(counts, exact=True), self._exact_alpha(alpha))

    def _exact_alpha(self, alpha) -> Fraction:
        """``alpha`` as a Fraction: the value as typed (a Fraction stays one) if it is that."""
        typed = self.alpha
        if isinstance(typed, numbers.Real) and not isinstance(typed, bool) \
                and float(typed) == alpha:
            return _to_fraction(typed, "alpha")
        return _to_fraction(alpha, "alpha")

    def _update_parameters(self, params):
        self.__dict__.pop("_smoothing_alpha_", None)  # set again by the smoothing step
        super()._update_parameters(params)
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

