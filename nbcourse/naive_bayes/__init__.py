"""Naive Bayes estimators written from scratch.

Every estimator follows the same four steps, which is the whole idea of the course:

1. **count** sufficient statistics per class (category counts, word counts, or
   means and spreads): ``_count``;
2. turn them into **smoothed log-parameters** (``class_log_prior_``,
   ``feature_log_prob_`` or ``theta_``/``var_``): ``_update_parameters``;
3. add logs to get the **joint log-likelihood** log P(y) + sum_i log P(x_i | y):
   ``_joint_log_likelihood``;
4. normalise with **log-sum-exp** to get the posterior P(y | x).

As in scikit-learn's ``naive_bayes.py``, `_BaseNB` declares what a variant must
provide (abstract methods) and writes ``fit``, ``partial_fit`` and the ``predict*``
methods once, with the input checks. Hyper-parameters are read only in ``fit`` and
``partial_fit``: changing ``alpha`` afterwards changes nothing until the next fit.

Because step 1 is counting, statistics from two shards of data add up to the
statistics of the whole: ``partial_fit`` on shards equals ``fit`` on everything, and
`merge` combines two models fitted on disjoint data into the model of their union.

Names and semantics follow scikit-learn (``fit``, ``predict_proba``, ``classes_``,
``feature_log_prob_``, ``alpha`` ...) so that the same numbers come out of both and
students can move on without relearning. The deliberate differences are listed in
``docs/sklearn-differences.md``.

Where each piece lives (one module per estimator family):

- ``_base``: `_BaseNB`, the skeleton (fit, partial_fit, predict*) and the class prior;
- ``_discrete``: alpha and the count table shared by the discrete family;
- ``multinomial``, ``complement``, ``bernoulli``, ``gaussian``, ``categorical``: one
  estimator each
  (``categorical`` reads its slide tables from ``_tables``);
- ``tree_augmented``: `TreeAugmentedNB`, naive Bayes where each feature may depend on one
  other (chosen by `conditional_mutual_information`), built on `CategoricalNB`'s counts;
- ``_merge``: `merge`.
"""
from __future__ import annotations

from ._merge import merge
from .bernoulli import BernoulliNB
from .categorical import CategoricalNB
from .complement import ComplementNB
from .gaussian import GaussianNB
from .multinomial import MultinomialNB
from .tree_augmented import TreeAugmentedNB, conditional_mutual_information

__all__ = ["CategoricalNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "GaussianNB",
           "TreeAugmentedNB", "conditional_mutual_information", "merge"]
