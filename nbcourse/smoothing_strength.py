"""How the smoothing strength alpha moves the answers: the maths behind the sliders of
lessons 02 (the weather table) and 05 (the spam filter).

Pure functions, no widgets: `nbcourse.widgets` wires sliders to them and
`nbcourse.plotting` draws what they return, and the tests call them directly. The alpha
grids of both sliders are here, once: the widgets build their sliders from them.
"""
from __future__ import annotations

import pandas as pd

from .evaluation import binary_scores
from .naive_bayes import CategoricalNB, MultinomialNB

__all__ = [
    "WEATHER_STEP", "WEATHER_MAX", "WEATHER_ALPHAS", "posterior_of", "fit_each_alpha",
    "alpha_curve", "SPAM_ALPHAS", "spam_validation_scores", "spam_alpha_curve",
]


#: The weather slider of lesson 02: alpha from 0 to WEATHER_MAX in steps of WEATHER_STEP.
WEATHER_STEP, WEATHER_MAX = 0.5, 20.0

#: Points of the weather curve: fine steps near zero, where P(no | x) leaves 0 quickly,
#: then the slider's own values 0.5, 1.0, ..., 20.0 (so every slider value has its fit).
WEATHER_ALPHAS = (0.0, 0.05, 0.1, 0.2, 0.3) + tuple(
    k * WEATHER_STEP for k in range(1, round(WEATHER_MAX / WEATHER_STEP) + 1))

#: The spam filter's alphas: 1-2-5 steps on a log scale, so a printed alpha is exactly
#: the value used (a reader can re-run it and get the same line).
SPAM_ALPHAS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)


def posterior_of(model, query, target) -> float:
    """P(target | query) under a fitted categorical ``model`` (``query`` is a dict)."""
    classes = list(model.classes_)
    if target not in classes:
        raise ValueError(f"target must be one of the classes {classes}, got {target!r}")
    return float(model.predict_proba(dict(query))[0, classes.index(target)])


def fit_each_alpha(X, y, alphas) -> dict:
    """One ``CategoricalNB(alpha=alpha)`` fitted on (X, y) per alpha, keyed by float(alpha)."""
    return {float(a): CategoricalNB(alpha=a).fit(X, y) for a in alphas}


def alpha_curve(X, y, queries, alphas=WEATHER_ALPHAS, target="no", *, models=None) -> pd.DataFrame:
    """P(target | query) for every alpha (rows) and every named query (columns).

    ``queries`` maps a name to a query dict. One CategoricalNB is fitted per alpha and
    asked about every query (``models`` may pass the fits of :func:`fit_each_alpha`).
    """
    models = models if models is not None else fit_each_alpha(X, y, alphas)
    rows = [[posterior_of(models[float(a)], queries[name], target) for name in queries]
            for a in alphas]
    return pd.DataFrame(rows, index=pd.Index([float(a) for a in alphas], name="alpha"),
                        columns=pd.Index(list(queries), name="query"))


def spam_validation_scores(alpha, X_train, y_train, X_val, y_val, positive="spam") -> dict:
    """Fit multinomial naive Bayes with ``alpha`` on the training part and score it on
    the validation part: accuracy, precision and recall for the class ``positive``."""
    model = MultinomialNB(alpha=alpha).fit(X_train, y_train)
    return binary_scores(y_val, model.predict(X_val), positive)


def spam_alpha_curve(X_train, y_train, X_val, y_val, alphas=SPAM_ALPHAS,
                     positive="spam") -> pd.DataFrame:
    """Validation accuracy, precision and recall for every alpha in ``alphas`` (a DataFrame
    with columns alpha, accuracy, precision, recall: one row per alpha)."""
    rows = [{"alpha": a, **spam_validation_scores(a, X_train, y_train, X_val, y_val, positive)}
            for a in alphas]
    return pd.DataFrame(rows, columns=["alpha", "accuracy", "precision", "recall"])
