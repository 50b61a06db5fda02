"""Turning raw text into word counts: tokens, a vocabulary, a sparse bag-of-words matrix.

Naive Bayes for text only ever looks at how often each word occurs in each document,
so this module's job is to produce that table, one row per document and one column
per word. It mirrors scikit-learn's ``CountVectorizer`` on purpose: same token
pattern, same alphabetical column order, same pruning rules. A student can then
check every number against scikit-learn, and later switch to it without surprises.

The matrix itself is built in bulk by `nbcourse.word_counts.count_documents`,
which `BagOfWords` and `nbcourse.scale` both call.
"""
from __future__ import annotations

import numbers
import re
from collections import defaultdict
from collections.abc import Iterable
from itertools import count, repeat

import numpy as np
import scipy.sparse as sp

from ._checks import check_bool, check_finite, check_matrix, check_positive_int, plain
from ._estimator import BaseEstimator
from .packed_words import BLOCK_CHARACTERS, Numbering, block_pairs, spaced_or_tokens
from .word_counts import _FAST_DEFAULT_PATTERN, _renumbered, _word_runs, _words, count_documents
from .zipf import zipf_fit, zipf_slope, zipf_table  # lessons import them from here

__all__ = ["TOKEN_PATTERN", "tokenize", "BagOfWords", "KeepSeenWords", "TfidfTransformer",
           "zipf_table", "zipf_fit", "zipf_slope"]

#: scikit-learn's default: a word is a run of two or more letters/digits/underscores.
TOKEN_PATTERN = r"(?u)\b\w\w+\b"

def _compile_token_pattern(token_pattern: str) -> re.Pattern:
    if token_pattern == TOKEN_PATTERN:
        return _FAST_DEFAULT_PATTERN
    if not isinstance(token_pattern, str):
        raise TypeError(
            f"token_pattern must be a regular expression string, got {type(token_pattern).__name__}")
    try:
        compiled = re.compile(token_pattern)
    except re.error as exc:
        raise ValueError(f"token_pattern {token_pattern!r} is not a valid regular expression: {exc}") from None
    if compiled.groups > 1:
        raise ValueError(
            f"token_pattern {token_pattern!r} has {compiled.groups} capturing groups; "
            "use at most one (it then selects the part of each match that becomes the token)")
    return compiled


def tokenize(text: str, lowercase: bool = True, token_pattern: str = TOKEN_PATTERN) -> list[str]:
    """Split ``text`` into word tokens, in order, repeats kept.

    The default pattern is scikit-learn's, so ``"Free entry in 2 a wkly comp!"`` gives
    ``['free', 'entry', 'in', 'wkly', 'comp']``: one-character words such as "2" and "a"
    are dropped, punctuation separates words.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    pattern = _compile_token_pattern(token_pattern)
    text = text.lower() if lowercase else text
    if pattern is _FAST_DEFAULT_PATTERN:
        return _words(text)
    return pattern.findall(text)


def _check_document_frequency(value, name: str):
    """``min_df``/``max_df``: an int is a number of documents, a float a proportion."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be an int (documents) or a float in [0, 1] (proportion), got {value!r}")
    check_finite(float(value), name)
    if isinstance(value, numbers.Integral):
        if value < 0:
            raise ValueError(f"{name} must be >= 0 when given as a number of documents, got {value}")
    elif not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1] when given as a proportion (float), got {value}")
    return value


class BagOfWords(BaseEstimator):
    """Count how often each vocabulary word occurs in each document.

    ``transform`` returns a ``scipy.sparse.csr_matrix`` of int64 with one row per document.
    The results match scikit-learn's ``CountVectorizer`` with the same settings exactly,
    including which words win a tie under ``max_features``.

    It is an estimator in scikit-learn's sense: ``get_params``/``set_params`` and
    ``sklearn.base.clone`` work, so it can be a step of a ``Pipeline`` whose settings a
    ``GridSearchCV`` tunes. As there, ``__init__`` only stores the settings and ``fit``
    checks them.

    Parameters
    ----------
    lowercase : bool, default=True
        Lower-case the text before tokenising, so "Free" and "FREE" are one word.
    binary : bool, default=False
        Record presence (0/1) instead of counts, which is what Bernoulli naive Bayes needs.
    min_df, max_df : int or float, default=1 and 1.0
        Drop words that occur in fewer than ``min_df`` or in more than ``max_df``
        documents. An int counts documents, a float is a proportion of them (``max_df=0.5``
        drops words that occur in more than half of the documents).
    max_features : int, default=None
        Keep only this many words, those with the highest total count in the corpus.
    stop_words : collection of str, default=None
        Words to leave out of the vocabulary (for example ``{"the", "a"}``).
    token_pattern : str, default=TOKEN_PATTERN
        The regular expression that defines a word (see :func:`tokenize`).

    Attributes
    ----------
    vocabulary_ : dict
        Each word's column, the columns in alphabetical order
        (``get_feature_names_out()`` lists the words by column).

    Examples
    --------
    >>> from nbcourse.text import BagOfWords
    >>> bag = BagOfWords().fit(["free money now", "money for lunch", "lunch now"])
    >>> bag.get_feature_names_out().tolist()
    ['for', 'free', 'lunch', 'money', 'now']
    >>> bag.transform(["free lunch, free!"]).toarray().tolist()
    [[0, 2, 1, 0, 0]]
    """

    _input_tags = {"string": True, "two_d_array": False}
    _fitted_attribute = "vocabulary_"

    def __init__(self, *, lowercase: bool = True, binary: bool = False, min_df=1, max_df=1.0,
                 max_features: int | None = None, stop_words: Iterable[str] | None = None,
                 token_pattern: str = TOKEN_PATTERN):
        self.lowercase = lowercase
        self.binary = binary
        self.min_df = min_df
        self.max_df = max_df
        self.max_features = max_features
        self.stop_words = stop_words
        self.token_pattern = token_pattern

    # -- settings ------------------------------------------------------------------------------

    def _check_settings(self) -> None:
        """Validate the settings; ``fit`` calls it, so set_params and clone accept anything."""
        _compile_token_pattern(self.token_pattern)
        _check_document_frequency(self.min_df, "min_df")
        _check_document_frequency(self.max_df, "max_df")
        if self.max_features is not None:
            check_positive_int(self.max_features, "max_features")
        self._stop_word_set()

    def _stop_word_set(self) -> frozenset:
        if self.stop_words is None:
            return frozenset()
        if isinstance(self.stop_words, str):
            raise TypeError(
                f"stop_words must be a collection of words such as {{'the', 'a'}}, not the string "
                f"{self.stop_words!r}; nbcourse ships no built-in stop-word list")
        words = frozenset(self.stop_words)
        bad = [w for w in words if not isinstance(w, str)]
        if bad:
            raise TypeError(f"stop_words must contain only str, found {bad[0]!r}")
        return words

    def _default_pattern(self) -> bool:
        return _compile_token_pattern(self.token_pattern) is _FAST_DEFAULT_PATTERN

    def _tokenizer(self):
        # With the default pattern, ASCII documents are split into every run of word
        # characters, one-character runs included (`_word_runs`): giving those no column
        # (`fit_transform`) is quicker than checking every token's length, and a word
        # without a column is never counted.
        pattern = _compile_token_pattern(self.token_pattern)
        find = _word_runs if pattern is _FAST_DEFAULT_PATTERN else pattern.findall
        if self.lowercase:
            return lambda document: find(document.lower())
        return find

    # -- public API ----------------------------------------------------------------------------

    def fit(self, documents, y=None) -> "BagOfWords":
        """Learn the vocabulary from ``documents`` (a list of str). ``y`` is ignored."""
        self.fit_transform(documents)
        return self

    def _numbered_counts(self, documents) -> tuple[sp.csr_matrix, dict[str, int]]:
        """The count matrix with the words numbered as they come, and each word's number."""
        if self._default_pattern():
            # ASCII documents are counted without a str per token (`nbcourse.packed_words`):
            # quicker, and much quicker under tracemalloc (lesson 07).
            numbering = Numbering()
            lower = str.lower if self.lowercase else str
            X = count_documents(documents, None, tokenizer=lambda text: spaced_or_tokens(lower(text)),
                                pairs_of=lambda block: block_pairs(block, numbering.numbers),
                                # larger blocks than Vocabulary's: fewer numpy calls per word
                                block_size=4 * BLOCK_CHARACTERS, n_columns=lambda: len(numbering.number_of))
            return X, numbering.number_of
        # Number the words in order of first appearance: the defaultdict hands out the next
        # number to each new word, and ``map`` drives it without a Python-level loop.
        first_seen: defaultdict[str, int] = defaultdict(count().__next__)

        def encode(tokens):
            return np.fromiter(map(first_seen.__getitem__, tokens), dtype=np.int64, count=len(tokens))

        X = count_documents(documents, encode, tokenizer=self._tokenizer(),
                            n_columns=lambda: len(first_seen))
        return X, first_seen

    def fit_transform(self, documents, y=None) -> sp.csr_matrix:
        """Learn the vocabulary and return the count matrix of the same documents."""
        self._check_settings()
        X, first_seen = self._numbered_counts(documents)
        if X.shape[0] == 0:
            raise ValueError("documents is empty; need at least one document to learn a vocabulary")
        stop_words = self._stop_word_set()
        words = sorted(first_seen.keys() - stop_words if stop_words else first_seen)
        if not words:
            raise ValueError(
                "empty vocabulary: the documents contain no tokens"
                + (" other than stop words" if stop_words else "")
                + f" matching token_pattern {self.token_pattern!r}")
        # Renumber alphabetically; stop words get -1 and are dropped.
        alphabetical_column = np.full(len(first_seen), -1, dtype=np.int64)
        alphabetical_column[np.fromiter(map(first_seen.__getitem__, words), dtype=np.int64,
                                        count=len(words))] = np.arange(len(words))
        del first_seen
        X = _renumbered(X, alphabetical_column, len(words))
        if self.binary:
            X.data.fill(1)
        X, words = self._prune(X, words)
        self.vocabulary_ = dict(zip(words, range(len(words))))
        self._feature_names = np.asarray(words, dtype=object)
        return X

    def _prune(self, X: sp.csr_matrix, words: list[str]) -> tuple[sp.csr_matrix, list[str]]:
        """Apply ``min_df``, ``max_df`` and ``max_features``, the way scikit-learn does."""
        n_documents = X.shape[0]
        max_count = self.max_df if isinstance(self.max_df, numbers.Integral) else self.max_df * n_documents
        min_count = self.min_df if isinstance(self.min_df, numbers.Integral) else self.min_df * n_documents
        if max_count < min_count:
            raise ValueError(
                f"max_df={self.max_df!r} allows at most {max_count:g} documents per word but "
                f"min_df={self.min_df!r} asks for at least {min_count:g} on {n_documents} documents; "
                "no word can satisfy both")
        document_frequency = np.bincount(X.indices, minlength=X.shape[1])
        keep = (document_frequency <= max_count) & (document_frequency >= min_count)
        if self.max_features is not None and keep.sum() > self.max_features:
            total_count = np.bincount(X.indices, weights=X.data, minlength=X.shape[1]).astype(np.int64)
            # Same call as scikit-learn (numpy's default argsort) so that ties between
            # equally frequent words are broken the same way.
            best = (-total_count[keep]).argsort()[: self.max_features]
            limited = np.zeros_like(keep)
            limited[np.flatnonzero(keep)[best]] = True
            keep = limited
        if not keep.any():
            raise ValueError(
                f"no words remain after pruning with min_df={self.min_df!r}, max_df={self.max_df!r}; "
                "try a lower min_df or a higher max_df")
        if keep.all():
            return X, words
        new_column = np.cumsum(keep) - 1
        entry_kept = keep[X.indices]
        kept_before = np.concatenate(([0], np.cumsum(entry_kept)))  # kept entries before each position
        indptr = kept_before[X.indptr].astype(X.indptr.dtype)
        indices = new_column[X.indices[entry_kept]].astype(X.indices.dtype)
        pruned = sp.csr_matrix((X.data[entry_kept], indices, indptr),
                               shape=(n_documents, int(keep.sum())))
        kept_words = [words[i] for i in np.flatnonzero(keep)]
        return pruned, kept_words

    def transform(self, documents) -> sp.csr_matrix:
        """Count the fitted vocabulary's words in ``documents``; other words are ignored."""
        self._check_fitted()
        vocabulary = self.vocabulary_

        def encode(tokens):
            return np.fromiter(map(vocabulary.get, tokens, repeat(-1)), dtype=np.int64,
                               count=len(tokens))

        X = count_documents(documents, encode, tokenizer=self._tokenizer(),
                            n_columns=len(vocabulary))
        if self.binary:
            X.data.fill(1)
        return X

    def get_feature_names_out(self) -> np.ndarray:
        """The vocabulary words in column order (alphabetical), as an object array."""
        self._check_fitted()
        return self._feature_names.copy()

class KeepSeenWords(BaseEstimator):
    """Keep only the columns (words) that occur in the documents it is fitted on.

    Vectorising a corpus is the slow part of a text experiment, so a lesson counts the
    words of all its training documents once. Cross-validation, or a model fitted on a
    subset, should still not know words that only the held-out documents contain: a
    vocabulary is part of what a model learns. ``KeepSeenWords().fit(counts[rows])``
    remembers the columns with a nonzero count in ``rows``, and ``transform`` keeps
    those columns, in the same (alphabetical) order. For a ``BagOfWords`` with its
    default pruning (``min_df=1``, ``max_df=1.0``, no ``max_features``, no stop words)

        KeepSeenWords().fit(bag.transform(docs[rows])).transform(bag.transform(other))

    equals ``BagOfWords().fit(docs[rows]).transform(other)`` exactly, for a ``bag`` fitted
    on any documents that include ``docs[rows]``, without tokenising anything again.

    Parameters
    ----------
    None: the columns to keep are all learnt by ``fit``.

    Attributes
    ----------
    columns_ : ndarray of shape (n_kept,)
        The kept column numbers, in increasing order.
    n_features_in_ : int
        How many columns (words) the counts given to ``fit`` had.

    Examples
    --------
    >>> import numpy as np
    >>> from nbcourse.text import KeepSeenWords
    >>> counts = np.array([[1, 0, 2, 0], [0, 0, 1, 3]])
    >>> keep = KeepSeenWords().fit(counts[:1])
    >>> keep.columns_.tolist()
    [0, 2]
    >>> keep.transform(counts).toarray().tolist()
    [[1.0, 2.0], [0.0, 1.0]]
    """

    _input_tags = {"sparse": True, "positive_only": True}
    _fitted_attribute = "columns_"

    def _counts(self, X, n_features=None):
        if not sp.issparse(X):
            X = check_matrix(X, owner="KeepSeenWords", non_negative=True, n_features=n_features)
            return sp.csr_matrix(X)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D count matrix, got {X.ndim} dimensions")
        X = sp.csr_matrix(X)
        if X.dtype.kind not in "biuf":
            raise TypeError(f"X must hold word counts (numbers), got dtype {X.dtype}")
        check_finite(X.data, "X")
        if X.nnz and X.data.min() < 0:
            raise ValueError("X must hold word counts (>= 0)")
        if n_features is not None and X.shape[1] != n_features:
            raise ValueError(f"X has {X.shape[1]} features, but KeepSeenWords was fitted "
                             f"with {n_features}")
        return X

    def fit(self, X, y=None) -> "KeepSeenWords":
        """Remember the columns of the counts ``X`` that are nonzero in some row. ``y`` is ignored."""
        X = self._counts(X)
        if X.shape[0] == 0:
            raise ValueError("X has no rows: fit needs at least one document")
        seen = np.zeros(X.shape[1], dtype=bool)
        seen[X.indices[X.data > 0]] = True
        self.columns_ = np.flatnonzero(seen)
        self.n_features_in_ = X.shape[1]
        self._new_column = np.full(X.shape[1], -1, dtype=np.int64)   # -1: not kept
        self._new_column[self.columns_] = np.arange(len(self.columns_))
        return self

    def transform(self, X) -> sp.csr_matrix:
        """The counts ``X`` restricted to the remembered columns (a CSR matrix)."""
        self._check_fitted()
        X = self._counts(X, n_features=self.n_features_in_)
        # Renumber the kept columns and drop the others; the kept columns keep their
        # order, so each row's entries stay sorted and nothing needs sorting again.
        columns = self._new_column[X.indices]
        kept = columns >= 0
        kept_before = np.concatenate(([0], np.cumsum(kept)))
        out = sp.csr_matrix((X.data[kept], columns[kept].astype(X.indices.dtype), kept_before[X.indptr]),
                            shape=(X.shape[0], len(self.columns_)))
        out.has_sorted_indices = X.has_sorted_indices
        return out

    def fit_transform(self, X, y=None) -> sp.csr_matrix:
        """``fit(X)`` then ``transform(X)``."""
        return self.fit(X).transform(X)


class TfidfTransformer(BaseEstimator):
    """Reweight a count matrix by tf-idf: frequent-everywhere words count less.

    A word in every document ("the", "to") says nothing about the class, yet it
    dominates raw counts. tf-idf multiplies each count by the word's inverse document
    frequency and then scales each document to length one, so that long documents do
    not outweigh short ones:

        idf_k = ln((1 + n) / (1 + df_k)) + 1    (``smooth_idf=True``, as if one more
                                                  document held every word once)
        idf_k = ln(n / df_k) + 1                 (``smooth_idf=False``)
        tf-idf_dk = x_dk * idf_k, then each row divided by its l2 (or l1) norm

    with n documents and df_k of them containing word k. The parameters are those of
    scikit-learn's ``TfidfTransformer``, and with the defaults the numbers equal
    scikit-learn's. ``transform`` returns a float64 ``scipy.sparse.csr_matrix``, as
    scikit-learn does, for dense or sparse counts.

    Parameters
    ----------
    norm : {"l2", "l1", None}, default="l2"
        Scale each row to unit length in this norm; None leaves the rows as they are.
    use_idf : bool, default=True
        Multiply by the inverse document frequency; False keeps term frequencies only.
    smooth_idf : bool, default=True
        Add one document holding every word once (no division by zero).
    sublinear_tf : bool, default=False
        Replace a count x by 1 + ln x.

    Attributes
    ----------
    idf_ : ndarray of shape (n_features,)
        The inverse document frequency of every word (only when ``use_idf``).
    n_features_in_ : int
        Number of columns of the counts seen at ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from nbcourse.text import TfidfTransformer
    >>> counts = np.array([[1, 1, 0], [0, 1, 1], [0, 1, 0]])
    >>> tfidf = TfidfTransformer().fit(counts)
    >>> tfidf.idf_.round(3).tolist()
    [1.693, 1.0, 1.693]
    >>> tfidf.transform([[2, 1, 0]]).toarray().round(3).tolist()
    [[0.959, 0.283, 0.0]]
    """

    _input_tags = {"sparse": True, "positive_only": True}

    def __init__(self, *, norm="l2", use_idf=True, smooth_idf=True, sublinear_tf=False):
        self.norm = norm
        self.use_idf = use_idf
        self.smooth_idf = smooth_idf
        self.sublinear_tf = sublinear_tf

    def _check_settings(self) -> None:
        """Validate the settings; ``fit`` calls it, so set_params and clone accept anything."""
        if self.norm is not None and not isinstance(self.norm, str):
            raise TypeError(f"norm must be 'l2', 'l1' or None, got {plain(self.norm)!r}")
        if self.norm not in ("l2", "l1", None):
            raise ValueError(f"norm must be 'l2', 'l1' or None, got {self.norm!r}")
        for name in ("use_idf", "smooth_idf", "sublinear_tf"):
            check_bool(getattr(self, name), name)

    def _counts(self, X, n_features=None):
        return check_matrix(X, owner="TfidfTransformer", non_negative=True,
                            n_features=n_features)

    def fit(self, X, y=None) -> "TfidfTransformer":
        """Learn the idf of every word (column) from the counts ``X``. ``y`` is ignored."""
        self._check_settings()
        X = self._counts(X)
        self.__dict__.pop("idf_", None)
        if self.use_idf:
            n_documents = X.shape[0]
            if sp.issparse(X):
                # explicit zeros stored in a sparse matrix are not occurrences
                document_frequency = np.bincount(X.indices[X.data > 0], minlength=X.shape[1])
            else:
                document_frequency = np.count_nonzero(X, axis=0)
            smooth = int(self.smooth_idf)
            with np.errstate(divide="ignore"):
                self.idf_ = np.log((n_documents + smooth) / (document_frequency + smooth)) + 1.0
        self.n_features_in_ = X.shape[1]
        self._use_idf, self._norm, self._sublinear_tf = self.use_idf, self.norm, self.sublinear_tf
        return self

    def transform(self, X) -> sp.csr_matrix:
        """The tf-idf matrix of the counts ``X`` (same words as at fit, in the same columns)."""
        self._check_fitted()
        X = self._counts(X, n_features=self.n_features_in_)
        X = X.copy() if sp.issparse(X) else sp.csr_matrix(X)
        X.eliminate_zeros()
        if self._sublinear_tf:
            X.data = np.log(X.data) + 1.0
        if self._use_idf:
            X.data *= self.idf_[X.indices]
        if self._norm is not None:
            values = X.data ** 2 if self._norm == "l2" else np.abs(X.data)
            lengths = np.bincount(np.repeat(np.arange(X.shape[0]), np.diff(X.indptr)),
                                  weights=values, minlength=X.shape[0])
            if self._norm == "l2":
                lengths = np.sqrt(lengths)
            lengths[lengths == 0.0] = 1.0  # an empty document stays all zeros
            X.data /= np.repeat(lengths, np.diff(X.indptr))
        return X

    def fit_transform(self, X, y=None) -> sp.csr_matrix:
        """``fit(X)`` then ``transform(X)``."""
        return self.fit(X).transform(X)
