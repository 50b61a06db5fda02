"""Chain preprocessing steps and a model, so that every step is fitted on training rows only.

A vocabulary, the idf of tf-idf or a scaling learns something from the data it sees.
When cross-validation fits them on all the rows and only the model inside the folds,
the held-out fold has already shaped the features. A pipeline fits each step on the
training rows, passes their transformed rows to the next step, and applies the fitted
steps unchanged to new rows:

    model = make_pipeline(KeepSeenWords(), TfidfTransformer(), ComplementNB())
    cross_validate(lambda: make_pipeline(...), counts, labels)   # a new pipeline per fold

It is scikit-learn's ``Pipeline`` reduced to what the course needs (``fit``, ``predict``,
``predict_proba``, ``predict_log_proba``, ``transform``, ``score``), with the same names:
``steps`` is a list of ``(name, estimator)`` pairs and ``make_pipeline`` names each step
after its class in lower case.
"""
from __future__ import annotations

from ._estimator import BaseEstimator

__all__ = ["Pipeline", "make_pipeline"]


class Pipeline(BaseEstimator):
    """Transformers, then a final estimator, fitted and applied in order.

    The estimators themselves are fitted in place (as in scikit-learn), so build a new
    pipeline for every fit that must start afresh, e.g. one per fold of a
    cross-validation.

    Parameters
    ----------
    steps : list of (str, estimator) pairs
        Every estimator but the last needs ``fit`` and ``transform``, the last needs
        ``fit``; the names must be unique.

    Attributes
    ----------
    named_steps : dict
        The steps by name.
    classes_ : ndarray
        The last step's classes, once fitted.

    Examples
    --------
    >>> from nbcourse.naive_bayes import MultinomialNB
    >>> from nbcourse.pipeline import Pipeline
    >>> from nbcourse.text import BagOfWords
    >>> model = Pipeline([("words", BagOfWords()), ("nb", MultinomialNB())])
    >>> model = model.fit(["free money now", "win money now", "lunch at noon",
    ...                    "see you at lunch"], ["spam", "spam", "ham", "ham"])
    >>> model.predict(["free money", "lunch at noon?"]).tolist()
    ['spam', 'ham']
    >>> model.named_steps["words"].get_feature_names_out().tolist()[:4]
    ['at', 'free', 'lunch', 'money']
    """

    _fitted_attribute = "_fitted"

    def __init__(self, steps):
        self.steps = steps

    def _checked_steps(self) -> list:
        steps = self.steps
        if not isinstance(steps, (list, tuple)) or not steps:
            raise TypeError("steps must be a non-empty list of (name, estimator) pairs")
        names = []
        for i, step in enumerate(steps):
            if not (isinstance(step, tuple) and len(step) == 2 and isinstance(step[0], str)):
                raise TypeError(f"steps[{i}] must be a (name, estimator) pair, got {step!r}")
            names.append(step[0])
            if not hasattr(step[1], "fit"):
                raise TypeError(f"step {step[0]!r} has no fit method: {step[1]!r}")
            if i < len(steps) - 1 and not hasattr(step[1], "transform"):
                raise TypeError(f"step {step[0]!r} is not the last, so it must have transform: "
                                f"{step[1]!r}")
        if len(set(names)) != len(names):
            raise ValueError(f"step names must be unique, got {names}")
        return list(steps)

    @property
    def named_steps(self) -> dict:
        return dict(self.steps)

    @property
    def classes_(self):
        return self.steps[-1][1].classes_

    def fit(self, X, y=None) -> "Pipeline":
        """Fit each transformer on ``X`` as transformed by the ones before it, then the last step."""
        steps = self._checked_steps()
        for _, step in steps[:-1]:
            X = step.fit_transform(X, y) if hasattr(step, "fit_transform") else step.fit(X, y).transform(X)
        steps[-1][1].fit(X, y)
        self._fitted = True
        return self

    def _through_transformers(self, X):
        self._check_fitted()
        for _, step in self.steps[:-1]:
            X = step.transform(X)
        return X

    def _last(self, method: str):
        last = self.steps[-1][1]
        if not hasattr(last, method):
            raise AttributeError(f"the last step, {type(last).__name__}, has no {method} method")
        return getattr(last, method)

    def predict(self, X):
        """The last step's ``predict`` on ``X`` passed through the fitted transformers."""
        return self._last("predict")(self._through_transformers(X))

    def predict_proba(self, X):
        return self._last("predict_proba")(self._through_transformers(X))

    def predict_log_proba(self, X):
        return self._last("predict_log_proba")(self._through_transformers(X))

    def transform(self, X):
        """``X`` through every step, the last one included (it must be a transformer)."""
        return self._last("transform")(self._through_transformers(X))

    def score(self, X, y) -> float:
        return self._last("score")(self._through_transformers(X), y)


def make_pipeline(*steps) -> Pipeline:
    """A :class:`Pipeline` of ``steps``, each named after its class in lower case.

    ``make_pipeline(KeepSeenWords(), MultinomialNB())`` has the steps ``keepseenwords`` and
    ``multinomialnb``, as scikit-learn's ``make_pipeline`` names them; a class used twice
    gets ``-1``, ``-2``, ... appended, as there.
    """
    if not steps:
        raise ValueError("make_pipeline needs at least one step")
    names = [type(step).__name__.lower() for step in steps]
    counts = {name: names.count(name) for name in names}
    seen: dict[str, int] = {}
    unique = []
    for name in names:
        if counts[name] > 1:
            seen[name] = seen.get(name, 0) + 1
            name = f"{name}-{seen[name]}"
        unique.append(name)
    return Pipeline(list(zip(unique, steps)))
