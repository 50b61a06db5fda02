"""Turning raw text into word counts: tokens, a vocabulary, a sparse bag-of-words matrix.

Naive Bayes for text only ever looks at how often each word occurs in each document,
so this module's job is to produce that table, one row per document and one column
per word. It mirrors scikit-learn's ``CountVectorizer`` on purpose: same token
pattern, same alphabetical column order, same pruning rules. A student can then
check every number against scikit-learn, and later switch to it without surprises.

The matrix is built in bulk rather than word by word. Each document is lower-cased
once and split with one ``re.findall`` call. The tokens of a block of documents then
go through a single dictionary lookup (``map`` runs it in C) that turns them into
column numbers, and scipy sorts and adds up the (document, word) entries. On 20
Newsgroups this is quicker than a Python loop over millions of tokens, and since only
one block of tokens is kept as strings, it needs about as much memory as scikit-learn.
"""
from __future__ import annotations

import numbers
import re
from collections import defaultdict
from collections.abc import Iterable
from itertools import repeat

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._checks import not_fitted

__all__ = ["TOKEN_PATTERN", "tokenize", "BagOfWords", "zipf_table", "zipf_fit", "zipf_slope"]

#: scikit-learn's default: a word is a run of two or more letters/digits/underscores.
TOKEN_PATTERN = r"(?u)\b\w\w+\b"

# The same tokens, found about 20% faster: a match of ``\w\w+`` always starts at the
# beginning of a run of word characters and greedily runs to its end, so the word
# boundaries ``\b`` that the default pattern asks for hold automatically.
_FAST_DEFAULT_PATTERN = re.compile(r"\w\w+")

#: Tokens are turned into column numbers in blocks of this many (see ``_encoded_corpus``).
_BLOCK_TOKENS = 1 << 16


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
    return pattern.findall(text.lower() if lowercase else text)


def _check_document_frequency(value, name: str):
    """``min_df``/``max_df``: an int is a number of documents, a float a proportion."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be an int (documents) or a float in [0, 1] (proportion), got {value!r}")
    if isinstance(value, numbers.Integral):
        if value < 0:
            raise ValueError(f"{name} must be >= 0 when given as a number of documents, got {value}")
    elif not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1] when given as a proportion (float), got {value}")
    return value


class BagOfWords:
    """Count how often each vocabulary word occurs in each document.

    Parameters
    ----------
    lowercase : lower-case the text before tokenising, so "Free" and "FREE" are one word.
    binary : record presence (0/1) instead of counts, which is what Bernoulli naive Bayes needs.
    min_df, max_df : drop words that occur in fewer than ``min_df`` or in more than ``max_df``
        documents. An int counts documents, a float is a proportion of them (``max_df=0.5``
        drops words that occur in more than half of the documents).
    max_features : keep only this many words, those with the highest total count in the corpus.
    stop_words : a collection of words to leave out of the vocabulary (for example ``{"the", "a"}``).
    token_pattern : the regular expression that defines a word (see :func:`tokenize`).

    After ``fit``: ``vocabulary_`` maps each word to its column, with the columns in
    alphabetical order, and ``get_feature_names_out()`` lists the words by column.
    ``transform`` returns a ``scipy.sparse.csr_matrix`` of int64 with one row per document.
    The results match scikit-learn's ``CountVectorizer`` with the same settings exactly,
    including which words win a tie under ``max_features``.
    """

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
        self._check_settings()

    # -- settings ------------------------------------------------------------------------------

    def _check_settings(self) -> None:
        """Validate the constructor arguments (again at fit time, in case they were changed)."""
        _compile_token_pattern(self.token_pattern)
        _check_document_frequency(self.min_df, "min_df")
        _check_document_frequency(self.max_df, "max_df")
        if self.max_features is not None:
            if isinstance(self.max_features, bool) or not isinstance(self.max_features, numbers.Integral):
                raise TypeError(f"max_features must be a positive int or None, got {self.max_features!r}")
            if self.max_features < 1:
                raise ValueError(f"max_features must be a positive int or None, got {self.max_features}")
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

    # -- tokens -> counts ----------------------------------------------------------------------

    def _encoded_corpus(self, documents, encode) -> tuple[np.ndarray, list[int]]:
        """Every token's column number, document after document, plus the tokens per document.

        ``encode`` turns a list of tokens into an integer array. Tokens are encoded in
        blocks of about 65,000 as soon as they are found, so only one block's strings exist
        at a time: as Python strings, the 3.4 million tokens of 20 Newsgroups would need
        about 250 MB, as column numbers they need 14 MB.
        """
        if isinstance(documents, str):
            raise TypeError(
                "documents must be a list (or other iterable) of strings, got a single str; "
                "wrap it in a list: [text]")
        if isinstance(documents, (bytes, bytearray)) or not isinstance(documents, Iterable):
            raise TypeError(f"documents must be an iterable of str, got {type(documents).__name__}")
        findall = _compile_token_pattern(self.token_pattern).findall
        lowercase = self.lowercase
        blocks: list[np.ndarray] = []
        tokens: list[str] = []
        lengths: list[int] = []
        for position, document in enumerate(documents):
            if not isinstance(document, str):
                raise TypeError(
                    f"documents[{position}] must be a str, got {type(document).__name__}")
            found = findall(document.lower() if lowercase else document)
            tokens += found
            lengths.append(len(found))
            if len(tokens) >= _BLOCK_TOKENS:
                blocks.append(encode(tokens))
                tokens = []
        blocks.append(encode(tokens))
        return np.concatenate(blocks), lengths

    @staticmethod
    def _count_matrix(columns: np.ndarray, lengths: list[int], n_columns: int) -> sp.csr_matrix:
        """The documents x words count matrix from every token's column (-1: not counted).

        ``lengths`` says how many consecutive entries of ``columns`` belong to each document.
        Each token becomes an entry 1 in its document's row; scipy's ``sum_duplicates`` then
        sorts every row by column and adds up repeated words, which leaves the counts.
        """
        n_documents = len(lengths)
        lengths = np.asarray(lengths, dtype=np.int64)
        known = columns >= 0
        if not known.all():
            rows = np.repeat(np.arange(n_documents), lengths)
            lengths = np.bincount(rows[known], minlength=n_documents)
            columns = columns[known]
        fits_int32 = max(columns.size, n_columns) <= np.iinfo(np.int32).max
        index_dtype = np.int32 if fits_int32 else np.int64
        indptr = np.zeros(n_documents + 1, dtype=index_dtype)
        np.cumsum(lengths, out=indptr[1:])
        X = sp.csr_matrix((np.ones(columns.size, dtype=np.int32),
                           columns.astype(index_dtype, copy=False), indptr),
                          shape=(n_documents, n_columns))
        X.sum_duplicates()
        # Fresh, tight arrays: the token-level ones above are larger than the counts.
        X.indices = X.indices.copy()
        X.data = X.data.astype(np.int64)
        return X

    # -- public API ----------------------------------------------------------------------------

    def fit(self, documents, y=None) -> "BagOfWords":
        """Learn the vocabulary from ``documents`` (a list of str). ``y`` is ignored."""
        self.fit_transform(documents)
        return self

    def fit_transform(self, documents, y=None) -> sp.csr_matrix:
        """Learn the vocabulary and return the count matrix of the same documents."""
        self._check_settings()
        # Number the words in order of first appearance: the defaultdict hands out the next
        # number to each new word, and ``map`` drives it without a Python-level loop.
        first_seen: defaultdict[str, int] = defaultdict()
        first_seen.default_factory = first_seen.__len__

        def encode(tokens):  # int32: a vocabulary never comes near 2**31 words
            return np.fromiter(map(first_seen.__getitem__, tokens), dtype=np.int32, count=len(tokens))

        seen_columns, lengths = self._encoded_corpus(documents, encode)
        if not lengths:
            raise ValueError("documents is empty; need at least one document to learn a vocabulary")
        stop_words = self._stop_word_set()
        words = sorted(first_seen.keys() - stop_words if stop_words else first_seen)
        if not words:
            raise ValueError(
                "empty vocabulary: the documents contain no tokens"
                + (" other than stop words" if stop_words else "")
                + f" matching token_pattern {self.token_pattern!r}")
        # Renumber alphabetically; stop words get -1 and are not counted.
        alphabetical_column = np.full(len(first_seen), -1, dtype=np.int32)
        alphabetical_column[np.fromiter(map(first_seen.__getitem__, words), dtype=np.int64,
                                        count=len(words))] = np.arange(len(words))
        del first_seen
        columns = alphabetical_column[seen_columns]
        del seen_columns
        X = self._count_matrix(columns, lengths, len(words))
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
        if not hasattr(self, "vocabulary_"):
            raise not_fitted(self)
        vocabulary = self.vocabulary_

        def encode(tokens):
            return np.fromiter(map(vocabulary.get, tokens, repeat(-1)), dtype=np.int32,
                               count=len(tokens))

        columns, lengths = self._encoded_corpus(documents, encode)
        X = self._count_matrix(columns, lengths, len(self.vocabulary_))
        if self.binary:
            X.data.fill(1)
        return X

    def get_feature_names_out(self) -> np.ndarray:
        """The vocabulary words in column order (alphabetical), as an object array."""
        if not hasattr(self, "vocabulary_"):
            raise not_fitted(self)
        return self._feature_names.copy()

    def __repr__(self) -> str:
        defaults = {"lowercase": True, "binary": False, "min_df": 1, "max_df": 1.0,
                    "max_features": None, "stop_words": None, "token_pattern": TOKEN_PATTERN}
        changed = []
        for name, default in defaults.items():
            value = getattr(self, name)
            if not (type(value) is type(default) and value == default):
                changed.append(f"{name}={value!r}")
        return f"BagOfWords({', '.join(changed)})"


def zipf_table(X, feature_names) -> pd.DataFrame:
    """Words ranked by their total count in the corpus: columns ``word``, ``count``, ``rank``.

    Zipf's law says the n-th most common word occurs about 1/n as often as the most
    common one; plotting ``count`` against ``rank`` on log-log axes shows it as a
    roughly straight line. Ties keep alphabetical order so the table is reproducible.
    """
    names = np.asarray(feature_names, dtype=object)
    if names.ndim != 1:
        raise ValueError(f"feature_names must be 1-D (one word per column), got shape {names.shape}")
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (documents x words), got shape {X.shape}")
        totals = np.asarray(X.sum(axis=0)).ravel()
        has_negative = X.nnz > 0 and X.min() < 0
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (documents x words), got shape {X.shape}")
        if not np.issubdtype(X.dtype, np.number):
            raise TypeError(f"X must hold counts (numbers), got dtype {X.dtype}")
        totals = X.sum(axis=0)
        has_negative = bool((X < 0).any())
    if X.shape[1] != names.shape[0]:
        raise ValueError(
            f"X has {X.shape[1]} columns but feature_names has {names.shape[0]} words; "
            "they must describe the same vocabulary")
    if has_negative:
        raise ValueError("X must hold non-negative counts")
    if np.issubdtype(np.asarray(totals).dtype, np.floating) and np.isnan(totals).any():
        raise ValueError("X contains NaN; counts must be finite numbers")
    alphabetical = np.argsort(names.astype(str), kind="stable")
    order = alphabetical[np.argsort(-totals[alphabetical], kind="stable")]
    return pd.DataFrame({
        "word": names[order].astype(str),
        "count": totals[order],
        "rank": np.arange(1, len(order) + 1),
    })


def _checked_zipf_table(table) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame) or not {"word", "count", "rank"} <= set(table.columns):
        raise TypeError("table must be a DataFrame with columns word, count, rank, "
                        "as returned by zipf_table")
    table = table[table["count"] > 0]
    if table.empty:
        raise ValueError("table has no word with a positive count to draw")
    return table


def zipf_fit(table, ranks=(10, 1000)) -> tuple[float, float, int, int]:
    """The least-squares line log10(count) = slope * log10(rank) + intercept over the words
    of rank ``ranks[0]`` to ``ranks[1]`` of :func:`zipf_table` (words with count 0 left out):
    (slope, intercept, first rank used, last rank used)."""
    table = _checked_zipf_table(table)
    whole = [r for r in np.atleast_1d(np.asarray(ranks, dtype=object))
             if isinstance(r, (int, np.integer)) and not isinstance(r, bool)]
    if len(whole) != 2 or np.ndim(ranks) != 1 or not 1 <= whole[0] < whole[1]:
        raise ValueError(f"ranks must be two whole numbers 1 <= low < high, got {ranks!r}")
    low, high = whole
    chosen = table[(table["rank"] >= low) & (table["rank"] <= high)]
    if len(chosen) < 2:
        raise ValueError(f"ranks {low}-{high} hold {len(chosen)} word(s) with a positive count; "
                         "a slope needs at least two")
    x = np.log10(chosen["rank"].to_numpy(dtype=float))
    y = np.log10(chosen["count"].to_numpy(dtype=float))
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept), int(chosen["rank"].min()), int(chosen["rank"].max())


def zipf_slope(table, ranks=(10, 1000)) -> float:
    """The slope of log10(count) against log10(rank), fitted by least squares over ``ranks``.

    Zipf's law predicts about -1. The fit skips the first few words on purpose: in short,
    chatty messages the very top words are much closer in frequency than 1/rank says,
    and a line through them would hide how well the law holds over the next thousand.
    ``table`` is :func:`zipf_table`; ranks past the end of it are ignored.
    """
    return zipf_fit(table, ranks)[0]
