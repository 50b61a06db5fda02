"""The good-word attack: a spammer who knows the filter pads a message with "good" words.

Multinomial naive Bayes scores a message by adding one weight per word occurrence
(notebook 04), so its decision is a sum the attacker can push. Every occurrence of word
k moves the spam-vs-ham log-odds by the same amount,

    w_k = log theta_spam,k - log theta_ham,k,

whatever else the message says. An attacker who has read the model's weights (Lowd and
Meek, 2005, call this a good-word attack; they study attackers who must guess the words)
adds the words with the most negative w_k until the log-odds fall below the decision
threshold. Because each added occurrence contributes on its own, taking the words in
order of weight is the cheapest way to flip the message: no other choice of the same
number of words lowers the log-odds more.

A filter can cap each word's count (``max_count``) before it scores a message, training
on capped counts too: then an attacker gains nothing from repeating one word, and must
find many different good words.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._checks import check_finite, check_positive_int

__all__ = ["GoodWordAttack", "good_word_attack", "cap_counts"]


def cap_counts(X, max_count):
    """A copy of the count matrix ``X`` with every count above ``max_count`` lowered to it.

    ``max_count=1`` turns counts into presence (0/1); ``None`` leaves ``X`` as it is.
    """
    if max_count is None:
        return X
    check_positive_int(max_count, "max_count")
    if sp.issparse(X):
        capped = sp.csr_matrix(X, dtype=np.float64, copy=True)
        np.minimum(capped.data, max_count, out=capped.data)
        return capped
    return np.minimum(np.asarray(X, dtype=np.float64), max_count)


@dataclass(frozen=True)
class GoodWordAttack:
    """What one attack on one message needed.

    ``n_words`` is the number of word occurrences added (``math.inf`` if the allowed
    words cannot flip it), ``added`` maps each added word's column to how many copies
    were added, ``log_odds_before`` and ``log_odds_after`` are the message's log-odds of
    the attacked class against the target before and after.
    """

    n_words: float
    added: dict
    log_odds_before: float
    log_odds_after: float

    @property
    def flipped(self) -> bool:
        return math.isfinite(self.n_words)


def _row(x, n_features: int) -> np.ndarray:
    if sp.issparse(x):
        x = x.toarray()
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 2 and x.shape[0] == 1:
        x = x[0]
    if x.ndim != 1 or x.shape[0] != n_features:
        raise ValueError(f"x must be one message: {n_features} word counts, got shape {x.shape}")
    check_finite(x, "x")
    if (x < 0).any():
        raise ValueError("x must hold word counts (>= 0)")
    return x


#: How many of the best good words are sorted first; a message usually flips long before.
_FIRST_WORDS = 64


def _good_words(weights: np.ndarray):
    """The columns of negative weight, most negative first, ties by column number: the
    order of a stable ``np.argsort``, made in two steps. The best `_FIRST_WORDS` (with every
    word as good as the last of them) are sorted first; the rest only if the attack
    gets that far."""
    negative = np.flatnonzero(weights < 0)
    if len(negative) > 4 * _FIRST_WORDS:
        threshold = np.partition(weights[negative], _FIRST_WORDS)[_FIRST_WORDS]
        first = negative[weights[negative] <= threshold]
        yield from first[np.argsort(weights[first], kind="stable")].tolist()
        negative = negative[weights[negative] > threshold]
    yield from negative[np.argsort(weights[negative], kind="stable")].tolist()


def good_word_attack(model, x, target="ham", *, max_count=None,
                     max_words: int = 100_000) -> GoodWordAttack:
    """The fewest word occurrences to add to message ``x`` so that ``model`` says ``target``.

    ``model`` is a fitted two-class multinomial naive Bayes, read through its linear form
    ``model.to_linear()`` (the same log-odds weights w_k as above), ``x`` one row of
    counts in its columns. The
    message flips when the target's joint log-probability is strictly above the other
    class's, so that ``model.predict`` answers ``target`` (a tie is not a flip).
    ``max_count`` is the filter's cap on a word's count: the model must have been trained
    on counts capped the same way (:func:`cap_counts`); copies beyond the cap would not
    count, so the attacker adds at most ``max_count - min(x_k, max_count)`` of word k.
    ``max_words`` bounds the search: beyond it the attack reports ``n_words = inf``.
    """
    classes = list(getattr(model, "classes_", []))
    if len(classes) != 2 or not hasattr(model, "to_linear"):
        raise ValueError("model must be a fitted naive Bayes model with exactly two classes")
    if target not in classes:
        raise ValueError(f"target must be one of the classes {classes}, got {target!r}")
    check_positive_int(max_words, "max_words")
    t = classes.index(target)
    o = 1 - t  # the other class
    bias, linear = model.to_linear()  # log-odds of classes_[1] against classes_[0]
    x = _row(x, len(linear))
    if max_count is not None:
        check_positive_int(max_count, "max_count")
        x = np.minimum(x, max_count)
    sign = 1.0 if o == 1 else -1.0                  # log-odds of the other class vs target
    weights = sign * np.asarray(linear, dtype=np.float64)  # per occurrence of each word
    gap = float(sign * bias + x @ weights)          # > 0: the model does not say target yet
    if gap < 0:
        return GoodWordAttack(0, {}, gap, gap)
    added, total, remaining = {}, 0, gap
    for column in _good_words(weights):
        gain = -float(weights[column])
        free = math.inf if max_count is None else max_count - float(x[column])  # copies left
        if free <= 0:
            continue
        needed = math.floor(remaining / gain) + 1  # strictly below zero afterwards
        take = int(min(needed, free, max_words - total))
        if take <= 0:
            break
        added[column] = take
        total += take
        remaining -= take * gain
        if remaining < 0:
            return GoodWordAttack(total, added, gap, remaining)
    return GoodWordAttack(math.inf, added, gap, remaining)
