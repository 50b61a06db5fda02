"""nbcourse: a from-scratch naive Bayes library for the course notebooks.

The estimators and the data loaders that the lessons use are importable from the top
level (``from nbcourse import CategoricalNB, load_weather``). The other modules are
imported explicitly (``from nbcourse import smoothing``, ``from nbcourse.plotting import
plot_zipf``) so that importing the package stays fast and does not pull in matplotlib or
ipywidgets, which matters for grading, where every submission starts a fresh kernel.
"""
from .datasets import (load_20newsgroups, load_picnic, load_sms_mini, load_sms_spam,
                       load_sms_spam_or_mini, load_spambase, load_weather)
from .linear import LogisticRegression
from .naive_bayes import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB

from ._version import __version__

__all__ = [
    "BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB",
    "LogisticRegression",
    "load_weather", "load_picnic", "load_sms_mini", "load_sms_spam", "load_sms_spam_or_mini",
    "load_spambase", "load_20newsgroups",
    "__version__",
]
