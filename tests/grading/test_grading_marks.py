"""Issue 34: marks that are right to the point.

Each probe is an answer a student could write, put to the student's ``check()`` (the
public cases, read from the spec as the released checks file holds them) and to the
grader (``hidden.grade_answer``, every case, as the sandboxed grader scores them). A
wrong answer must not get full marks; a right answer in another form must not be refused.
"""
from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nbcourse.grading import specs
from nbcourse.grading.hidden import grade_answer
from nbcourse.grading.selfcheck import Checker
from nbcourse.grading.values import encode_input

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "exercises" / "source"
NAMES = specs.available(SOURCE)
_LOADED: dict[str, specs.Exercise] = {}


def exercise(name: str) -> specs.Exercise:
    if name not in _LOADED:
        _LOADED[name] = specs.load(name, SOURCE)
    return _LOADED[name]


def module(name: str):
    """The spec's own functions and tables."""
    import importlib.util
    module_spec = importlib.util.spec_from_file_location(f"marks_{name}",
                                                         SOURCE / f"{name}.grading.py")
    loaded = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(loaded)
    return loaded


def check(name: str, question: str, answer):
    """What the student's ``check()`` says, from the checks file the release writes."""
    return Checker(name, REPO / "exercises" / f"{name}.checks.json").run(question, answer,
                                                                          sources=[])


def graded(name: str, question: str, answer):
    return grade_answer(exercise(name), question, answer)


# ------------------------------------------------------------ item 1: wrong answers
def _counted(table, feature, value, target, label, alpha=0):
    rows = table[table[target] == label]
    values = table[feature].nunique()
    return Fraction(int((rows[feature] == value).sum()) + alpha, len(rows) + alpha * values)


def predict_laplace(table, query, target):
    """Laplace-smoothed likelihoods where the exercise asks for none."""
    scores = {}
    for label in table[target].unique():
        score = Fraction(int((table[target] == label).sum()), len(table))
        for feature, value in query.items():
            score *= _counted(table, feature, value, target, label, alpha=1)
        scores[label] = score
    return str(max(scores, key=scores.get))


def predict_first_feature(table, query, target):
    """Only the query's first feature weighs in."""
    feature, value = next(iter(query.items()))
    scores = {label: Fraction(int((table[target] == label).sum()), len(table))
              * _counted(table, feature, value, target, label)
              for label in table[target].unique()}
    return str(max(scores, key=scores.get))


def mle_hard_coded(counts):
    return [2 / 9, 4 / 9, 3 / 9]


def priors_yes_no(labels):
    labels = list(labels)
    return {label: labels.count(label) / len(labels) for label in ("yes", "no")}


def words_ham_spam(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    return {label: (X[y == label].sum(axis=0) / X[y == label].sum()).tolist()
            for label in ("ham", "spam")}


def decide_w0_in_every_weight(w0, w, X):
    return (np.asarray(X @ (np.asarray(w) + w0)).ravel() > 0).astype(int)


def accuracy_rounded(places):
    def fraction_correct(y_true, y_pred):
        return round(float(np.mean(np.asarray(y_true) == np.asarray(y_pred))), places)
    return fraction_correct


def ece_rounded(is_positive, p, n_bins):
    return round(module_06.ref_calibration_error(is_positive, p, n_bins), 2)


def merge_counts_second_table_classes(a, b):
    """A class only the first table has is dropped (the loop runs over b's classes)."""
    merged = module_07.ref_merge_counts(a, b)
    keep = [i for i, label in enumerate(merged["classes"]) if label in list(b["classes"])]
    return {key: [value[i] for i in keep] if key in ("classes", "class_count",
                                                     "feature_count") else value
            for key, value in merged.items()}


def merge_gaussian_empty_averaged(a, b):
    """A shard with no rows averaged in as if it were data."""
    if a[0] and b[0]:
        return module_07.ref_merge_gaussian(a, b)
    return [a[0] + b[0], ((np.asarray(a[1]) + b[1]) / 2).tolist(),
            ((np.asarray(a[2]) + b[2]) / 2).tolist()]


def experiment_refit_on_train_and_validation(texts, labels, alphas, seed):
    """The final model fitted on training + validation messages, not the training part."""
    from nbcourse import MultinomialNB
    from nbcourse.text import BagOfWords
    spam = module_05
    texts, labels = list(texts), np.asarray(labels)
    train, validation, test = spam.ref_split(len(texts), seed)
    vectorizer = BagOfWords().fit([texts[i] for i in train])
    X = {name: vectorizer.transform([texts[i] for i in rows])
         for name, rows in (("train", train), ("validation", validation), ("test", test))}
    best = spam.ref_choose_alpha(X["train"], labels[train], X["validation"], labels[validation],
                                 alphas)
    both = list(train) + list(validation)
    model = MultinomialNB(alpha=best).fit(vectorizer.transform([texts[i] for i in both]),
                                          labels[both])
    return best, spam.ref_fraction_correct(labels[test], model.predict(X["test"]))


def experiment_rounded(texts, labels, alphas, seed):
    best, accuracy = module_05.ref_experiment(texts, labels, alphas, seed)
    return best, round(accuracy, 2)


module_05 = module("05_spam")
module_06 = module("06_gaussian")
module_07 = module("07_merging")
