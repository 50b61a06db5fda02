"""nbcourse: a from-scratch naive Bayes library for the course notebooks.

The estimators and the data loaders that the lessons use are importable from the top
level (``from nbcourse import CategoricalNB, load_weather``). The other modules are
imported explicitly (``from nbcourse import smoothing``, ``from nbcourse.plotting import
plot_zipf``) so that importing the package stays fast and does not pull in matplotlib or
ipywidgets, which matters for grading, where every submission starts a fresh kernel.
"""
from ._version import __version__

#: What the top level offers, and the module each name comes from: imported on first
#: use (PEP 562), so ``import nbcourse.grading`` (a grading worker, the command line)
#: does not import numpy, pandas and scipy it never uses.
_FROM = {
    "BernoulliNB": "naive_bayes", "CategoricalNB": "naive_bayes",
    "ComplementNB": "naive_bayes", "GaussianNB": "naive_bayes",
    "MultinomialNB": "naive_bayes", "LogisticRegression": "linear",
    "load_weather": "datasets", "load_picnic": "datasets", "load_sms_mini": "datasets",
    "load_sms_spam": "datasets", "load_sms_spam_or_mini": "datasets",
    "load_spambase": "datasets", "load_20newsgroups": "datasets",
}

__all__ = [*_FROM, "__version__"]


def __getattr__(name: str):
    if name not in _FROM:
        raise AttributeError(f"module 'nbcourse' has no attribute {name!r}")
    from . import datasets, linear, naive_bayes  # the first time a name is asked for
    modules = {"datasets": datasets, "linear": linear, "naive_bayes": naive_bayes}
    value = getattr(modules[_FROM[name]], name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FROM))
