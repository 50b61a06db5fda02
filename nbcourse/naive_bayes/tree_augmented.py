"""Tree-augmented naive Bayes (TAN): every feature may lean on one other feature.

Naive Bayes assumes the features independent once the class is known. Friedman, Geiger
and Goldszmidt (1997) relax this by the smallest step that is still fitted by counting:
every feature but one (the root) gets one other feature as its parent, and

    P(c, x) = P(c) P(x_root | c) prod_{i != root} P(x_i | x_parent(i), c).

Which parent? Weigh every pair of features by their conditional mutual information
I(X_i; X_j | C), how much one tells about the other once the class is known, and keep
the spanning tree of largest total weight (Chow and Liu's tree, given the class). A pair
that is independent given the class weighs 0: naive Bayes' assumption is the case where
every weight is 0, and naive Bayes itself is the model with no feature edges at all
(``parents=[-1] * n_features``).

Everything is counts. The labels are encoded by `CategoricalNB` (same categories, same
error for a value never seen in training), which also gives P(c) and P(x_i | c); the
tables P(x_i | x_parent, c) are smoothed by the same Lidstone step,
`nbcourse.smoothing.lidstone_log`.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._checks import check_alpha, check_bool, check_labels, check_positive_int, plain
from .._numerics import log, times_log
from ..smoothing import lidstone_log
from ._base import _PosteriorFromJoint
from .categorical import CategoricalNB

__all__ = ["TreeAugmentedNB", "conditional_mutual_information"]


# ----- conditional mutual information ------------------------------------------------------
def conditional_mutual_information(x_i, x_j, y) -> float:
    """I(X_i; X_j | C) in nats, from counts: what X_j tells about X_i once the class is known.

    The plug-in (maximum-likelihood) estimate: with N(c, a, b) the number of samples of
    class c with X_i = a and X_j = b, and n the number of samples,

        sum over (c, a, b) of N(c, a, b)/n * log[ N(c, a, b) N(c) / (N(c, a) N(c, b)) ],

    where a cell with count 0 contributes 0. It equals sum_c P(c) I(X_i; X_j | C = c), is
    never negative, and is 0 exactly when the counts of X_i and X_j are independent within
    every class. ``x_i``, ``x_j`` and ``y`` are 1-D arrays, lists or Series of labels
    (strings or numbers), one per sample.
    """
    a, b, c = _label_codes({"x_i": x_i, "x_j": x_j, "y": y})
    return _cmi_from_counts(_joint_counts(c, a, b))


def _label_codes(named: dict) -> list[np.ndarray]:
    """Each 1-D vector of labels as codes 0, 1, 2, ... (first appearance), checked."""
    codes = []
    for name, values in named.items():
        if isinstance(values, (str, bytes, dict, set)) or np.ndim(values) == 0:
            raise TypeError(
                f"{name} must be a 1-D array, list or Series of labels, got "
                f"{type(values).__name__} {plain(values)!r}")
        labels = check_labels(values, None, name)  # 1-D, at least one, none missing
        codes.append(pd.factorize(pd.Series(np.asarray(labels, dtype=object)))[0])
    lengths = {name: len(code) for name, code in zip(named, codes)}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"{', '.join(named)} must have the same length (one label per "
                         f"sample each), got lengths {lengths}")
    return codes


def _joint_counts(c: np.ndarray, a: np.ndarray, b: np.ndarray, shape=None) -> np.ndarray:
    """counts[k, u, v]: the number of samples with class code k, X_i = u and X_j = v."""
    if shape is None:
        shape = (int(c.max()) + 1, int(a.max()) + 1, int(b.max()) + 1)
    cells = np.ravel_multi_index((c, a, b), shape)
    return np.bincount(cells, minlength=int(np.prod(shape))).reshape(shape).astype(np.float64)


def _cmi_from_counts(counts: np.ndarray) -> float:
    """The plug-in I(X_i; X_j | C) of a classes x values_i x values_j count table."""
    n = counts.sum()
    n_c = counts.sum(axis=(1, 2), keepdims=True)
    n_ca = counts.sum(axis=2, keepdims=True)
    n_cb = counts.sum(axis=1, keepdims=True)
    # an empty cell is 0 * log(0/0): it counts as 0 (where counts > 0, so are N(c),
    # N(c, a) and N(c, b), and the logarithm is finite)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = log(counts * n_c / (n_ca * n_cb))
    # The exact value is >= 0; rounding can leave -1e-17 where it is 0, as scikit-learn's
    # mutual_info_score also finds, so clip as it does.
    return max(float(times_log(counts / n, logs).sum()), 0.0)


def _cmi_matrix(codes: np.ndarray, classes: np.ndarray, n_categories, n_classes: int):
    """The symmetric features x features matrix of I(X_i; X_j | C), zero on the diagonal."""
    n_features = codes.shape[1]
    cmi = np.zeros((n_features, n_features))
    for i in range(n_features):
        for j in range(i + 1, n_features):
            shape = (n_classes, int(n_categories[i]), int(n_categories[j]))
            counts = _joint_counts(classes, codes[:, i], codes[:, j], shape)
            cmi[i, j] = cmi[j, i] = _cmi_from_counts(counts)
    return cmi


# ----- the tree ------------------------------------------------------------------------------
def _maximum_spanning_tree(weights: np.ndarray, root: int) -> np.ndarray:
    """Prim's algorithm: the parent of every node in the heaviest spanning tree, -1 for root.

    Grow the tree from ``root``: at each step, join the node outside the tree that has the
    heaviest edge into it (ties: the lowest-numbered node), and make that edge's tree end
    its parent. ``best[k]`` is the heaviest edge from the tree to node k so far, ``link[k]``
    the tree node it comes from.
    """
    n = len(weights)
    parent = np.full(n, -1)
    in_tree = np.zeros(n, dtype=bool)
    in_tree[root] = True
    best = np.array(weights[root], dtype=np.float64)
    link = np.full(n, root)
    for _ in range(n - 1):
        node = int(np.argmax(np.where(in_tree, -np.inf, best)))
        in_tree[node] = True
        parent[node] = link[node]
        heavier = ~in_tree & (weights[node] > best)
        best[heavier] = weights[node][heavier]
        link[heavier] = node
    return parent


def _check_root(root, n_features: int) -> int:
    root = check_positive_int(root, "root", minimum=0)
    if root >= n_features:
        raise ValueError(f"root must be a feature number from 0 to {n_features - 1}, got {root}")
    return root


def _check_parents(parents, n_features: int) -> np.ndarray:
    """A structure given by hand: one parent per feature (-1: none), and no cycle."""
    if isinstance(parents, (str, bytes, dict, set)) or np.ndim(parents) != 1:
        raise TypeError(f"parents must be a list of feature numbers (-1 for none), got "
                        f"{plain(parents)!r}")
    values = [check_positive_int(p, f"parents[{i}]", minimum=-1) for i, p in enumerate(parents)]
    if len(values) != n_features:
        raise ValueError(f"parents must hold one entry per feature ({n_features}), got "
                         f"{len(values)}")
    for i, p in enumerate(values):
        if p == i or p >= n_features:
            raise ValueError(f"parents[{i}] must be -1 or another feature's number (0 to "
                             f"{n_features - 1}), got {p}")
    for start in range(n_features):
        node, steps = start, 0
        while node != -1:
            node, steps = values[node], steps + 1
            if steps > n_features:
                raise ValueError(f"parents {values} has a cycle through feature {start}: a "
                                 "feature cannot be its own ancestor")
    return np.asarray(values)


def _child_table(naive: CategoricalNB, codes, classes, i: int, p: int, alpha: float):
    """log P(x_i | x_p, c), classes x values of x_p x values of x_i: Lidstone over x_i."""
    shape = (len(naive.classes_), int(naive.n_categories_[p]), int(naive.n_categories_[i]))
    return lidstone_log(_joint_counts(classes, codes[:, p], codes[:, i], shape), alpha)


def _fit_categorical(alpha: float, X, y) -> CategoricalNB:
    """`CategoricalNB` fitted on X, y; its warnings (one class only) point at the caller."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        naive = CategoricalNB(alpha=alpha).fit(X, y)
    for warning in caught:
        warnings.warn(warning.message, warning.category, stacklevel=3)
    return naive


# ----- the estimator -------------------------------------------------------------------------
class TreeAugmentedNB(_PosteriorFromJoint):
    """Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997) for tables of labels.

    Fitting counts, weighs every pair of features by I(X_i; X_j | C) (``cmi_``), keeps
    the maximum-weight spanning tree rooted at feature ``root``, and smooths
    P(x_i | x_parent, c) with Lidstone's ``alpha`` exactly as `CategoricalNB` smooths
    P(x_i | c). ``X`` is read as `CategoricalNB` reads it (a DataFrame of labels, or
    codes), and a label never seen in training raises the same ValueError.

    Parameters
    ----------
    alpha : float, default=1.0
        Pseudo-count, as in `CategoricalNB`.
    root : int, default=0
        The feature at the root of the tree.
    parents : sequence of int, default=None
        The structure by hand instead (``root`` is then not used): each feature's
        parent, -1 for none; ``[-1] * n_features`` is naive Bayes, with
        `CategoricalNB`'s probabilities.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, categories_, n_categories_, n_features_in_
        As in `CategoricalNB` (and ``feature_names_in_`` after a DataFrame with string
        column names).
    cmi_ : ndarray of shape (n_features, n_features)
        I(X_i; X_j | C) for every pair, in nats.
    parent_ : ndarray of shape (n_features,)
        Each feature's parent, -1 for the root.
    feature_log_prob_ : list of ndarray
        Per feature, log P(x_i | c) (classes x values) for the root, log
        P(x_i | x_parent, c) (classes x parent values x values) for the others.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbcourse.naive_bayes import TreeAugmentedNB
    >>> days = pd.DataFrame({"outlook": ["sunny", "sunny", "overcast", "rainy", "rainy"],
    ...                      "windy": ["no", "yes", "no", "no", "yes"]})
    >>> play = ["no", "no", "yes", "yes", "no"]
    >>> model = TreeAugmentedNB().fit(days, play)
    >>> model.parent_.tolist()
    [-1, 0]
    >>> model.cmi_.round(3).tolist()
    [[0.0, 0.105], [0.105, 0.0]]
    """

    _input_tags = {"categorical": True, "positive_only": True}
    _classifier_tags = {"poor_score": True}

    def __init__(self, *, alpha=1.0, root=0, parents=None):
        self.alpha = alpha
        self.root = root
        self.parents = parents

    def fit(self, X, y):
        """Count, weigh every pair of features, keep the heaviest tree, smooth the tables."""
        alpha = check_alpha(self.alpha)
        naive = _fit_categorical(alpha, X, y)  # the encoding, P(c) and P(x_i | c)
        codes = naive._encode(naive._check_X(X, first=False))
        classes = np.searchsorted(naive.classes_, check_labels(y, len(codes)))
        n_features = naive.n_features_in_
        root = _check_root(self.root, n_features)
        given = None if self.parents is None else _check_parents(self.parents, n_features)
        cmi = _cmi_matrix(codes, classes, naive.n_categories_, len(naive.classes_))
        parent = _maximum_spanning_tree(cmi, root) if given is None else given
        tables = [naive.feature_log_prob_[i] if p < 0
                  else _child_table(naive, codes, classes, i, p, alpha)
                  for i, p in enumerate(parent)]
        self._categorical_ = naive
        for name in ("classes_", "class_count_", "class_log_prior_", "categories_",
                     "n_categories_", "n_features_in_"):
            setattr(self, name, getattr(naive, name))
        if hasattr(naive, "feature_names_in_"):
            self.feature_names_in_ = naive.feature_names_in_
        else:
            self.__dict__.pop("feature_names_in_", None)
        self.cmi_, self.parent_, self.feature_log_prob_ = cmi, parent, tables
        return self

    # ----- prediction ---------------------------------------------------------------------
    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log P(c) + log P(x_root | c) + sum_i log P(x_i | x_parent, c), samples x classes."""
        self._check_fitted()
        naive = self._categorical_
        codes = naive._encode(naive._check_X(X, first=False))
        jll = np.tile(self.class_log_prior_, (len(codes), 1))
        for i, (p, table) in enumerate(zip(self.parent_, self.feature_log_prob_)):
            jll += (table[:, codes[:, i]] if p < 0 else table[:, codes[:, p], codes[:, i]]).T
        undefined = np.isnan(jll).any(axis=1)
        if undefined.any():
            raise ValueError(
                f"sample {int(np.flatnonzero(undefined)[0])} has a parent value never seen "
                "with some class, so with alpha=0 its P(x_i | x_parent, c) is 0/0; use "
                "alpha > 0")
        return jll

    # ----- what a reader prints -----------------------------------------------------------
    def structure(self, weights: bool = False) -> str:
        """The fitted structure, one line per feature: 'feature <- class, parent'.

        The root depends on the class alone ('feature <- class'); names are the
        DataFrame's column names, or feature numbers for an array. ``weights=True`` adds
        each edge's I(X_i; X_parent | C) in nats, to three decimals.
        """
        self._check_fitted()
        check_bool(weights, "weights")
        names = [str(plain(key)) for key in self._categorical_._columns_]
        width = max(len(name) for name in names)
        lines = []
        for i, p in enumerate(self.parent_):
            line = f"{names[i]:<{width}} <- class"
            if p >= 0:
                line += f", {names[p]}"
                if weights:
                    line = f"{line:<{2 * width + 11}}  I = {self.cmi_[i, p]:.3f} nats"
            lines.append(line)
        return "\n".join(lines)

    def edges(self) -> pd.DataFrame:
        """The tree's edges as a table: feature, parent and their I(X_i; X_parent | C) in nats.

        One row per feature that has a parent, in feature order; sort it to see the
        strongest links (``model.edges().nlargest(6, "cmi")``).
        """
        self._check_fitted()
        names = list(self._categorical_._columns_)
        rows = [(names[i], names[p], self.cmi_[i, p]) for i, p in enumerate(self.parent_)
                if p >= 0]
        return pd.DataFrame(rows, columns=["feature", "parent", "cmi"])

    def n_parameters(self) -> int:
        """Free parameters: K - 1 + sum_i K (v_i - 1) w_i, w_i the parent's number of values.

        K classes, v_i values of feature i, and w_i = 1 for a feature without a parent
        (then the term is naive Bayes' K (v_i - 1)).
        """
        self._check_fitted()
        n_classes, values = len(self.classes_), [int(v) for v in self.n_categories_]
        return n_classes - 1 + sum(
            n_classes * (values[p] if p >= 0 else 1) * (v - 1)
            for v, p in zip(values, self.parent_))

    def parameter_counts(self) -> pd.Series:
        """Free parameters of naive Bayes, of this model, and of the full joint table.

        Naive Bayes: K - 1 + sum_i K (v_i - 1). The full table P(c, x_1, ..., x_d):
        K prod_i v_i - 1, which is lesson 01's 2^d K - 1 when every feature is binary.
        Exact Python integers (the full table's count grows past any float's digits).
        """
        self._check_fitted()
        n_classes, values = len(self.classes_), [int(v) for v in self.n_categories_]
        full = n_classes
        for v in values:
            full *= v
        return pd.Series({
            "naive Bayes": n_classes - 1 + sum(n_classes * (v - 1) for v in values),
            "tree-augmented naive Bayes": self.n_parameters(),
            "full joint table": full - 1,
        }, name="free parameters", dtype=object)
