"""How good is a classifier? Splits, scores, costs and calibration.

A spam filter is judged on messages it never saw while it was fitted, so the data
is cut into training, validation and test parts that keep the share of spam of
the whole corpus (a *stratified* split). Accuracy alone hides the two kinds of
mistakes, so precision and recall look at the positive class ("spam") on its own,
and a cost matrix turns them into money. A posterior of 0.99 should come true 99 %
of the time; a reliability table checks whether it does.

Everything here is plain numpy/pandas, written to be read next to the lessons.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._checks import _as_simplex_points, check_finite, check_labels, check_positive_int, check_seed
from ._numerics import log as _log
from .pipeline import Pipeline

__all__ = [
    "stratified_split", "accuracy", "binary_scores", "confusion_matrix",
    "expected_cost_decision", "total_cost", "reliability_table", "log_loss",
    "shuffle_within_class", "accuracy_by_training_size",
    "macro_f1", "majority_class", "majority_accuracy", "kfold_indices", "cross_validate",
    "cross_validate_many", "mean_and_spread",
]


#: How far a row of predicted probabilities may sum from 1 (float rounding of a
#: ``predict_proba``): a row summing to 2 is no distribution.
PROBA_ATOL = 1e-6


def _labels(y, name: str) -> np.ndarray:
    return check_labels(y, None, name)


def _same_length(y_true, y_pred):
    y_true, y_pred = _labels(y_true, "y_true"), _labels(y_pred, "y_pred")
    if y_true.shape != y_pred.shape:
        raise ValueError(
            f"y_true has {y_true.shape[0]} labels but y_pred has {y_pred.shape[0]}; "
            "they must describe the same samples")
    return y_true, y_pred


def stratified_split(y, sizes=(0.8, 0.2), seed: int = 0) -> tuple[np.ndarray, ...]:
    """Row indices for each part of a split that keeps every class's share.

    ``sizes`` are fractions that add up to 1, e.g. ``(0.8, 0.1, 0.1)`` for the
    lecture's 400/50/50 recipe. Within each class the rows are shuffled with
    ``seed`` and cut at the rounded cumulative fractions, so every part gets its
    fair share of the rare class. Each part's indices come back sorted.
    """
    y = _labels(y, "y")
    sizes = np.asarray(sizes, dtype=np.float64)
    if sizes.ndim != 1 or len(sizes) < 2:
        raise ValueError(f"sizes must list at least two fractions, got {sizes.tolist()!r}")
    check_finite(sizes, "sizes")
    if (sizes <= 0).any() or not np.isclose(sizes.sum(), 1.0):
        raise ValueError(f"sizes must be positive fractions adding up to 1, got {sizes.tolist()}")
    check_seed(seed)
    rng = np.random.default_rng(seed)
    parts: list[list[np.ndarray]] = [[] for _ in sizes]
    cuts = np.cumsum(sizes)
    for label in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == label))
        ends = np.rint(cuts * len(rows)).astype(int)
        ends[-1] = len(rows)
        for part, block in zip(parts, np.split(rows, ends[:-1])):
            part.append(block)
    out = tuple(np.sort(np.concatenate(part)) for part in parts)
    empty = [i for i, part in enumerate(out) if len(part) == 0]
    if empty:
        raise ValueError(
            f"part(s) {empty} of the split are empty: y has too few samples "
            f"({len(y)}) for sizes {sizes.tolist()}")
    return out


def accuracy(y_true, y_pred) -> float:
    """The fraction of samples whose predicted label equals the true one."""
    y_true, y_pred = _same_length(y_true, y_pred)
    return float(np.mean(y_true == y_pred))


def macro_f1(y_true, y_pred) -> float:
    """The F1 score of every class, averaged with equal weight per class.

    F1 of class c is the harmonic mean of its precision and recall,
    2 TP / (2 TP + FP + FN). Accuracy is dominated by the big classes; macro-F1 gives a
    rare class the same say as a common one, so a model that ignores the rare class
    scores badly even when its accuracy looks fine. The classes are every label found
    in ``y_true`` or ``y_pred``; a class never predicted and never present cannot occur,
    and one with 2 TP + FP + FN = 0 cannot either, so no division by zero arises.
    Equals scikit-learn's ``f1_score(y_true, y_pred, average="macro")``.
    """
    y_true, y_pred = _same_length(y_true, y_pred)
    # every class at once: each label becomes its number among the sorted labels
    labels, codes = np.unique(np.concatenate([y_true, y_pred]), return_inverse=True)
    true_codes, said_codes = codes[:len(y_true)], codes[len(y_true):]
    true_positives = np.bincount(true_codes[true_codes == said_codes], minlength=len(labels))
    hits = np.bincount(true_codes, minlength=len(labels))
    said = np.bincount(said_codes, minlength=len(labels))
    return float(np.mean(2 * true_positives / (hits + said)))


def majority_class(y):
    """The most frequent label of ``y`` (on a tie, the smallest, as scikit-learn's
    ``DummyClassifier(strategy="most_frequent")`` picks)."""
    labels, counts = np.unique(_labels(y, "y"), return_counts=True)
    return labels[np.argmax(counts)]


def majority_accuracy(y_train, y_test) -> float:
    """Accuracy on ``y_test`` of always answering the majority class of ``y_train``.

    The bar every classifier has to clear: with 87 % ham, "always ham" is right 87 % of
    the time without looking at a single word.
    """
    return accuracy(_labels(y_test, "y_test"), np.full(len(y_test), majority_class(y_train)))


def kfold_indices(y, n_splits: int = 5, *, stratified: bool = True, seed=None):
    """(train rows, test rows) of each of ``n_splits`` folds: every row is tested once.

    Without ``stratified`` the rows (shuffled with ``seed``, or in order when ``seed`` is
    None) are cut into ``n_splits`` consecutive folds whose sizes differ by at most one,
    the first ones larger: scikit-learn's ``KFold``. With ``stratified`` every fold gets
    its fair share of each class, dealt as scikit-learn's ``StratifiedKFold`` deals them:
    the same fold sizes and the same number of rows of each class in each fold; with
    ``seed=None`` the very same folds. (A seed shuffles with numpy's generator, so the
    folds then differ from scikit-learn's for the same number.)
    """
    y = _labels(y, "y")
    check_positive_int(n_splits, "n_splits")
    if n_splits < 2:
        raise ValueError(f"n_splits must be at least 2 (one fold to test, the rest to train), got {n_splits}")
    if n_splits > len(y):
        raise ValueError(f"n_splits={n_splits} is more than the {len(y)} samples")
    check_seed(seed, allow_none=True)
    rng = np.random.default_rng(seed) if seed is not None else None
    fold_of = np.empty(len(y), dtype=np.int64)
    if stratified:
        # classes numbered by first appearance, dealt round-robin over the sorted labels
        _, first, encoded = np.unique(y, return_index=True, return_inverse=True)
        encoded = np.argsort(np.argsort(first))[encoded]
        n_classes = len(first)
        if np.bincount(encoded).max() < n_splits:
            raise ValueError(f"n_splits={n_splits} is more than the number of samples of every class")
        ordered = np.sort(encoded)
        allocation = np.array([np.bincount(ordered[i::n_splits], minlength=n_classes)
                               for i in range(n_splits)])
        for c in range(n_classes):
            folds = np.repeat(np.arange(n_splits), allocation[:, c])
            if rng is not None:
                rng.shuffle(folds)
            fold_of[encoded == c] = folds
    else:
        order = rng.permutation(len(y)) if rng is not None else np.arange(len(y))
        sizes = np.full(n_splits, len(y) // n_splits)
        sizes[: len(y) % n_splits] += 1
        fold_of[order] = np.repeat(np.arange(n_splits), sizes)
    rows = np.arange(len(y))
    return [(rows[fold_of != f], rows[fold_of == f]) for f in range(n_splits)]


def cross_validate(make_model, X, y, n_splits: int = 5, *, stratified: bool = True,
                   seed=None) -> pd.DataFrame:
    """Fit a new model on each fold's training rows and score it on the fold's test rows.

    One split gives one number, and with a few hundred test rows that number moves by a
    point or more when the split changes. Cross-validation tests every row once and
    shows the spread. ``make_model`` is a callable returning a new, unfitted estimator
    (a class, or ``lambda: MultinomialNB(alpha=0.1)``). Returns one row per fold:
    ``accuracy``, ``macro_f1`` and ``majority`` (the accuracy of always answering the
    training rows' majority class). Folds as in :func:`kfold_indices`.
    """
    return cross_validate_many({"model": make_model}, X, y, n_splits, stratified=stratified,
                               seed=seed)["model"]


def cross_validate_many(make_models: dict, X, y, n_splits: int = 5, *, stratified: bool = True,
                        seed=None) -> dict[str, pd.DataFrame]:
    """:func:`cross_validate` for several models on the same folds: ``{name: its folds}``.

    ``make_models`` maps a name to a callable that returns a new, unfitted model. Every
    model is fitted and scored on the same folds, so they can be compared fold by fold.
    Models that are pipelines starting with the same preprocessing steps (same classes,
    same plain settings: numbers, strings, booleans, None) share those steps within a
    fold: each such step is fitted once per fold, on the fold's training rows only, and
    its output on the fold's rows is reused. The scores are the same as with a new
    pipeline per model and fold; only the repeated work is left out.
    """
    if not isinstance(make_models, dict) or not make_models:
        raise TypeError(f"make_models must be a non-empty dict of name -> callable, got {make_models!r}")
    for name, make_model in make_models.items():
        if not callable(make_model):
            raise TypeError(f"make_model for {name!r} must be callable (e.g. a class), got {make_model!r}")
    y = _labels(y, "y")
    if X.shape[0] != len(y):
        raise ValueError(f"X has {X.shape[0]} rows but y has {len(y)} labels")
    rows: dict = {name: [] for name in make_models}
    for fold, (train, test) in enumerate(kfold_indices(y, n_splits, stratified=stratified,
                                                       seed=seed), start=1):
        X_train = X.iloc[train] if hasattr(X, "iloc") else X[train]
        X_test = X.iloc[test] if hasattr(X, "iloc") else X[test]
        shared: dict = {}  # this fold's preprocessed rows, by the steps that made them
        for name, make_model in make_models.items():
            model, A, B = _shared_steps(make_model(), X_train, y[train], X_test, shared)
            predicted = np.asarray(model.fit(A, y[train]).predict(B))
            rows[name].append({"fold": fold, "accuracy": accuracy(y[test], predicted),
                               "macro_f1": macro_f1(y[test], predicted),
                               "majority": majority_accuracy(y[train], y[test])})
    return {name: pd.DataFrame(found).set_index("fold") for name, found in rows.items()}


def _step_key(step):
    """What makes two unfitted preprocessing steps do the same thing, or None if unsure."""
    try:
        params = step.get_params()
    except (AttributeError, TypeError):
        return None
    if not all(value is None or isinstance(value, (bool, int, float, str)) for value in params.values()):
        return None
    return type(step), tuple((name, type(value), value) for name, value in sorted(params.items()))


def _shared_steps(model, X_train, y_train, X_test, shared: dict):
    """The model left to fit after the leading preprocessing steps of a pipeline, and the
    training and test rows through those steps: fitted here, or taken from ``shared``."""
    if not isinstance(model, Pipeline):
        return model, X_train, X_test
    steps, key = model._checked_steps(), ()
    for number, (_, step) in enumerate(steps[:-1]):
        step_key = _step_key(step)
        if step_key is None:
            return (Pipeline(steps[number:]) if number else model), X_train, X_test
        key += (step_key,)
        if key not in shared:  # as Pipeline.fit does it, then the test rows
            fitted_rows = (step.fit_transform(X_train, y_train) if hasattr(step, "fit_transform")
                           else step.fit(X_train, y_train).transform(X_train))
            shared[key] = (fitted_rows, step.transform(X_test))
        X_train, X_test = shared[key]
    return steps[-1][1], X_train, X_test


def mean_and_spread(scores, digits: int = 3) -> str:
    """``"0.912 ± 0.008"``: the mean of the folds' scores and their standard deviation.

    The standard deviation is numpy's default (divide by the number of folds), as in
    ``cross_val_score(...).std()``. Rounded to ``digits`` decimals, which is all a handful
    of folds can support.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1 or len(scores) == 0:
        raise ValueError("scores must be a non-empty list of numbers")
    check_finite(scores, "scores")
    return f"{scores.mean():.{digits}f} ± {scores.std():.{digits}f}"


def binary_scores(y_true, y_pred, positive) -> dict[str, float]:
    """Accuracy, precision and recall, with ``positive`` (e.g. "spam") as the class to find.

    precision = TP / (TP + FP): of the messages flagged, how many were spam.
    recall    = TP / (TP + FN): of the spam messages, how many were flagged.
    A model that flags nothing has no precision to speak of; it is reported as 0.0
    (as scikit-learn does) rather than as NaN.
    """
    y_true, y_pred = _same_length(y_true, y_pred)
    if not np.any(y_true == positive):
        raise ValueError(f"positive={positive!r} does not occur in y_true, so recall is undefined")
    flagged = y_pred == positive
    actual = y_true == positive
    true_positives = int(np.sum(flagged & actual))
    n_flagged = int(np.sum(flagged))
    return {
        "accuracy": accuracy(y_true, y_pred),
        "precision": true_positives / n_flagged if n_flagged else 0.0,
        "recall": true_positives / int(np.sum(actual)),
    }


def confusion_matrix(y_true, y_pred, labels=None) -> pd.DataFrame:
    """Counts of (true class, predicted class): rows are the truth, columns the prediction."""
    y_true, y_pred = _same_length(y_true, y_pred)
    labels = np.unique(np.concatenate([y_true, y_pred])) if labels is None else np.asarray(labels)
    index = {label: i for i, label in enumerate(labels.tolist())}
    unknown = sorted({v for v in np.concatenate([y_true, y_pred]).tolist() if v not in index})
    if unknown:
        raise ValueError(f"labels {unknown} occur in the data but not in labels={labels.tolist()}")
    table = np.zeros((len(labels), len(labels)), dtype=np.int64)
    np.add.at(table, ([index[v] for v in y_true.tolist()], [index[v] for v in y_pred.tolist()]), 1)
    return pd.DataFrame(table, index=pd.Index(labels, name="true"),
                        columns=pd.Index(labels, name="predicted"))


def _cost_table(cost, classes) -> np.ndarray:
    """The cost matrix as an array indexed [true, predicted] in the order of ``classes``."""
    classes = np.asarray(classes)
    if isinstance(cost, pd.DataFrame):
        missing = [c for c in classes.tolist() if c not in cost.index or c not in cost.columns]
        if missing:
            raise ValueError(
                f"cost must have a row (true) and a column (predicted) for every class; "
                f"missing {missing}")
        cost = cost.loc[classes, classes].to_numpy()
    table = np.asarray(cost, dtype=np.float64)
    if table.shape != (len(classes), len(classes)):
        raise ValueError(
            f"cost must be a {len(classes)} x {len(classes)} table (true x predicted), "
            f"got shape {table.shape}")
    check_finite(table, "cost")
    return table


def expected_cost_decision(proba, classes, cost) -> np.ndarray:
    """For each sample, the class whose prediction has the smallest expected cost.

    E[cost of predicting k | x] = sum_j P(y = j | x) * cost[j, k], where ``cost`` is
    indexed [true, predicted] like a confusion matrix (a DataFrame with class labels,
    or an array in the order of ``classes``). With cost 1 for every mistake and 0 on the diagonal this is the
    usual rule "pick the most probable class".
    """
    proba = np.asarray(proba, dtype=np.float64)
    classes = np.asarray(classes)
    if proba.ndim != 2 or proba.shape[1] != len(classes):
        raise ValueError(
            f"proba must be samples x {len(classes)} classes, got shape {proba.shape}")
    check_finite(proba, "proba")
    if (proba < 0).any():
        raise ValueError("proba must hold probabilities (>= 0)")
    expected = proba @ _cost_table(cost, classes)
    return classes[np.argmin(expected, axis=1)]


def total_cost(y_true, y_pred, cost, classes) -> float:
    """The summed cost of all decisions, with ``cost`` indexed [true, predicted]."""
    y_true, y_pred = _same_length(y_true, y_pred)
    matrix = confusion_matrix(y_true, y_pred, labels=classes).to_numpy()  # [true, predicted]
    return float(np.sum(matrix * _cost_table(cost, classes)))


def reliability_table(y_true, proba_positive, positive, n_bins: int = 10) -> pd.DataFrame:
    """Bin the predicted P(positive) and compare with how often the positive class occurred.

    One row per non-empty bin of equal width on [0, 1]: ``mean_predicted`` (the average
    forecast in the bin), ``observed`` (the fraction that really was positive) and
    ``count``. A calibrated model has mean_predicted close to observed in every bin.
    The bin of ``p`` is ``min(floor(p * n_bins), n_bins - 1)``, the rule lesson 06 and
    exercise 06 state (edges from ``np.linspace`` would put 0.3 in the bin below, since
    the float 0.3 lies just under linspace's third edge of ten).
    """
    y_true = _labels(y_true, "y_true")
    p = np.asarray(proba_positive, dtype=np.float64)
    if p.shape != y_true.shape:
        raise ValueError(
            f"proba_positive has shape {p.shape} but y_true has {y_true.shape}; "
            "give one probability per sample")
    check_finite(p, "proba_positive")
    if (p < 0).any() or (p > 1).any():
        raise ValueError("proba_positive must hold probabilities in [0, 1]")
    check_positive_int(n_bins, "n_bins")
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    which = np.minimum(np.floor(p * n_bins).astype(np.intp), n_bins - 1)
    hit = (y_true == positive).astype(np.float64)
    count = np.bincount(which, minlength=n_bins)
    used = count > 0
    return pd.DataFrame({
        "bin_low": edges[:-1][used],
        "bin_high": edges[1:][used],
        "mean_predicted": np.bincount(which, weights=p, minlength=n_bins)[used] / count[used],
        "observed": np.bincount(which, weights=hit, minlength=n_bins)[used] / count[used],
        "count": count[used],
    })



def log_loss(y_true, proba, classes) -> float:
    """Average of -log P(true class | x): small when confident and right, huge when
    confident and wrong. Unlike accuracy it notices over-confidence.

    ``proba`` has one column per entry of ``classes`` (as ``predict_proba`` returns), each
    row a distribution (>= 0, summing to 1: ValueError otherwise).
    A probability of exactly 0 for the true class gives ``inf``, honestly.
    """
    y_true = _labels(y_true, "y_true")
    proba = np.asarray(proba, dtype=np.float64)
    classes = np.asarray(classes)
    if proba.ndim != 2 or proba.shape != (len(y_true), len(classes)):
        raise ValueError(
            f"proba must be {len(y_true)} samples x {len(classes)} classes, got shape {proba.shape}")
    check_finite(proba, "proba")
    if (proba < 0).any():
        raise ValueError("proba must hold probabilities (>= 0)")
    _as_simplex_points(proba, len(classes), PROBA_ATOL, name="proba")  # each row sums to 1
    column = {label: i for i, label in enumerate(classes.tolist())}
    unknown = sorted({v for v in y_true.tolist() if v not in column})
    if unknown:
        raise ValueError(f"y_true has labels {unknown} that are not in classes={classes.tolist()}")
    picked = proba[np.arange(len(y_true)), [column[v] for v in y_true.tolist()]]
    return float(-np.mean(_log(picked)))


def shuffle_within_class(X, y, seed: int = 0) -> np.ndarray:
    """A copy of ``X`` whose features are independent given the class, by construction.

    Within each class, every column is shuffled on its own (``seed`` fixes the shuffles).
    Each feature keeps exactly the values it had in each class, so its class-conditional
    distribution is unchanged, but the features of one row now come from different rows
    of the same class: the world naive Bayes assumes. Comparing a model on ``X`` and on
    this copy separates what dependence between the features does from everything else.
    """
    if hasattr(X, "to_numpy"):
        X = X.to_numpy()
    X = np.array(X, dtype=np.float64, copy=True)
    y = _labels(y, "y")
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-D with one row per label ({y.shape[0]}), got shape {X.shape}")
    check_seed(seed)
    rng = np.random.default_rng(seed)
    for label in np.unique(y):
        rows = np.flatnonzero(y == label)
        for k in range(X.shape[1]):
            X[rows, k] = X[rng.permutation(rows), k]
    return X


def accuracy_by_training_size(models, X_train, y_train, X_test, y_test, sizes, *,
                              n_repeats: int = 5, seed: int = 0):
    """Test accuracy of each model fitted on random training subsets of each size.

    This is the experiment of Ng & Jordan (2001) behind the plot
    :func:`nbcourse.plotting.plot_learning_curves`. ``models`` maps a name to a callable that returns a new,
    unfitted estimator (a class such as ``MultinomialNB`` works). For every size m and
    repeat r one subset is drawn, seeded by (seed, m, r), and every model is fitted on
    that same subset. Subsets keep the class proportions of ``y_train`` (with at least one
    example of each class, since a classifier needs two classes). A row named
    "majority class" records the accuracy of always predicting the subset's most
    frequent class, the bar any classifier has to clear.

    Returns a DataFrame with columns model, size, repeat, accuracy.
    """
    if not isinstance(models, dict) or not models:
        raise ValueError("models must be a non-empty dict: name -> callable returning an estimator")
    for name, make in models.items():
        if not callable(make):
            raise TypeError(f"models[{name!r}] must be callable (e.g. a class), got {make!r}")
    y_train = check_labels(y_train, X_train.shape[0], "y_train", rows="X_train")
    y_test = check_labels(y_test, X_test.shape[0], "y_test", rows="X_test")
    classes, class_sizes = np.unique(y_train, return_counts=True)
    if len(classes) < 2:
        raise ValueError("y_train must contain at least two classes")
    check_positive_int(n_repeats, "n_repeats")
    sizes = [int(m) for m in sizes]
    if not sizes:
        raise ValueError("sizes is empty: give at least one training-set size")
    for m in sizes:
        if not len(classes) <= m <= len(y_train):
            raise ValueError(f"every size must be between {len(classes)} (one example per class) "
                             f"and {len(y_train)} (all of y_train), got {m}")
    members = [np.flatnonzero(y_train == c) for c in classes]
    biggest = int(np.argmax(class_sizes))

    rows = []
    for m in sizes:
        take = np.maximum(1, np.round(m * class_sizes / class_sizes.sum()).astype(int))
        take[biggest] += m - take.sum()
        if (take > class_sizes).any() or (take < 1).any():
            raise ValueError(f"size {m} cannot keep the class proportions of y_train")
        for repeat in range(n_repeats):
            rng = np.random.default_rng([seed, m, repeat])
            subset = np.sort(np.concatenate([rng.choice(idx, k, replace=False)
                                             for idx, k in zip(members, take)]))
            X_sub, y_sub = X_train[subset], y_train[subset]
            for name, make in models.items():
                predicted = np.asarray(make().fit(X_sub, y_sub).predict(X_test))
                rows.append((name, m, repeat, float(np.mean(predicted == y_test))))
            majority = classes[np.argmax(take)]
            rows.append(("majority class", m, repeat, float(np.mean(y_test == majority))))
    return pd.DataFrame(rows, columns=["model", "size", "repeat", "accuracy"])
