"""scikit-learn's estimator interface, written without importing scikit-learn.

`BaseEstimator` serves every nbcourse estimator (the naive Bayes classifiers, the
logistic regression of `linear`, `text.BagOfWords`) and holds the one not-fitted check,
``_check_fitted``; `ClassifierMixin` adds ``score``.

scikit-learn's tools (``clone``, ``Pipeline``, ``cross_val_score``, ``GridSearchCV``)
need only a few methods from an estimator: ``get_params``/``set_params`` read from the
``__init__`` signature, ``score`` for a classifier, and ``__sklearn_tags__``, which
says what input the estimator accepts. This mixin provides them. The tags are
scikit-learn objects, so ``__sklearn_tags__`` imports scikit-learn, but only when
scikit-learn itself asks: by then it is imported anyway.

The conventions that make ``clone`` work: ``__init__`` stores every argument
unchanged under its own name and checks nothing; the checks happen in ``fit``.
"""
from __future__ import annotations

import inspect

import numpy as np

__all__ = ["BaseEstimator", "ClassifierMixin"]


def _init_parameters(cls) -> list[inspect.Parameter]:
    signature = inspect.signature(cls.__init__)
    return [p for p in signature.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _is_default(value, default) -> bool:
    if value is default:
        return True
    if isinstance(value, np.ndarray) or isinstance(default, np.ndarray):
        return False
    try:
        return bool(type(value) is type(default) and value == default)
    except (TypeError, ValueError):
        return False


class BaseEstimator:
    """get_params, set_params, __repr__ and the tags scikit-learn asks for.

    Enough for ``clone``, ``Pipeline`` and ``GridSearchCV``; a transformer such as
    `nbcourse.text.BagOfWords` uses it as it is, a classifier through `ClassifierMixin`.
    """

    #: input tags that differ from scikit-learn's defaults, e.g. {"sparse": True}
    _input_tags: dict = {}
    #: the attribute that exists once the estimator is fitted
    _fitted_attribute = "n_features_in_"

    def _check_fitted(self) -> None:
        """Raise the not-fitted error (`_checks.not_fitted`) if ``fit`` has not run.

        The one not-fitted check of the library: every estimator, transformer, pipeline
        and calibration map calls it, naming its own ``_fitted_attribute``.
        """
        from ._checks import not_fitted

        if not hasattr(self, self._fitted_attribute):
            raise not_fitted(self)

    @classmethod
    def _get_param_names(cls) -> list[str]:
        return sorted(p.name for p in _init_parameters(cls))

    def get_params(self, deep: bool = True) -> dict:
        """The hyper-parameters, by name, as passed to ``__init__`` or ``set_params``."""
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params):
        """Change hyper-parameters; they take effect at the next ``fit``."""
        valid = self._get_param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {valid!r}.")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        changed = [f"{p.name}={getattr(self, p.name)!r}" for p in _init_parameters(type(self))
                   if not _is_default(getattr(self, p.name), p.default)]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):
        # Imported here, not at module level: nbcourse never needs scikit-learn,
        # and scikit-learn is already imported whenever it calls this method.
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    transformer_tags=TransformerTags(), input_tags=InputTags(**self._input_tags))


class ClassifierMixin(BaseEstimator):
    """`BaseEstimator` plus ``score`` and a classifier's tags."""

    #: classifier tags that differ from scikit-learn's defaults
    _classifier_tags: dict = {}
    #: the attribute that exists once the classifier is fitted
    _fitted_attribute = "classes_"

    def score(self, X, y, sample_weight=None) -> float:
        """Mean accuracy of ``predict(X)`` against ``y`` (weighted if weights are given)."""
        from ._checks import check_labels, check_sample_weight

        predicted = self.predict(X)
        truth = check_labels(y, predicted.shape[0])
        weights = check_sample_weight(sample_weight, truth.shape[0])
        return float(np.average(predicted == truth, weights=weights))

    def __sklearn_tags__(self):
        # As BaseEstimator's, for a classifier.
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(**self._classifier_tags),
                    input_tags=InputTags(**self._input_tags))
