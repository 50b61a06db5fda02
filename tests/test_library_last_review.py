"""Two library checks the last review of issue 36 found missing: ``log_loss`` took a row
that is no distribution, and a naive Bayes fit that failed part-way left a model that
passed the not-fitted check."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nbcourse import evaluation
from nbcourse._checks import NotFittedError
from nbcourse.naive_bayes import (BernoulliNB, CategoricalNB, ComplementNB, GaussianNB,
                                  MultinomialNB)


@pytest.mark.parametrize("proba", [[[2.0, 0.0]], [[0.6, 0.6]], [[0.2, 0.2]]])
def test_log_loss_refuses_rows_that_are_not_distributions(proba):
    """[[2, 0]] gave -0.693: a negative loss from a 'probability' of 2."""
    with pytest.raises(ValueError, match="proba must sum to 1"):
        evaluation.log_loss(["a"], proba, ["a", "b"])


def test_log_loss_still_takes_what_predict_proba_gives():
    X = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0], [0, 2, 2]])
    y = ["ham", "spam", "ham", "spam"]
    proba = MultinomialNB().fit(X, y).predict_proba(X)
    assert evaluation.log_loss(y, proba, ["ham", "spam"]) > 0
    assert evaluation.log_loss(["a"], [[1.0 - 1e-12, 1e-12]], ["a", "b"]) == \
        pytest.approx(1e-12)


def _data(model):
    if isinstance(model, CategoricalNB):
        return pd.DataFrame({"sky": ["sunny", "rainy", "sunny"], "wind": ["weak"] * 3})
    return np.array([[1, 0], [0, 2], [3, 1]])


@pytest.mark.parametrize("kind", [MultinomialNB, BernoulliNB, ComplementNB, GaussianNB,
                                  CategoricalNB], ids=lambda kind: kind.__name__)
@pytest.mark.parametrize("how", ["fit", "partial_fit"])
def test_a_fit_that_fails_part_way_leaves_no_fitted_model(kind, how, monkeypatch):
    """``fit`` set ``classes_`` and ``n_features_in_`` before counting: a fit that raised
    while counting left a model that ``predict`` took for fitted."""
    model = kind()
    X, y = _data(model), ["no", "yes", "no"]

    def broken(self, *args):
        raise RuntimeError("counting failed")

    monkeypatch.setattr(type(model), "_count", broken)
    with pytest.raises(RuntimeError, match="counting failed"):
        if how == "fit":
            model.fit(X, y)
        else:
            model.partial_fit(X, y, classes=["no", "yes"])
    assert not [name for name in vars(model) if name.endswith("_")]
    with pytest.raises(NotFittedError):
        model.predict(X)
    monkeypatch.undo()
    assert list(getattr(model, how)(X, y, **({"classes": ["no", "yes"]} if how ==
                "partial_fit" else {})).predict(X)) == ["no", "yes", "no"]
