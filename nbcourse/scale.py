"""Naive Bayes on data that is split into shards: map each shard to counts, add them up.

Fitting multinomial naive Bayes only ever needs two tables of sums: how many documents
each class has, and how often each word occurs in each class. Sums of whole numbers
can be computed shard by shard, on any machine, in any order, and added afterwards;
the total is exactly what one pass over all the data would have counted. This module
holds the small functions that lesson 07 sends to Dask workers (a worker process must
be able to import them, so they cannot live in the notebook):

* *map*: :func:`shard_vocabulary` (the words of one shard of files) and
  :func:`shard_counts` (its :class:`CountTable`);
* *reduce*: :func:`union_words` for the vocabulary, ``+`` on count tables
  (:func:`add_counts` for many), done pairwise on the cluster by :func:`tree_reduce`;
* :func:`multinomial_from_counts` turns the total back into a fitted ``MultinomialNB``.

Streaming on one machine keeps only one post and the model in memory: :func:`iter_posts`
reads files one at a time, :func:`count_matrix` counts each post as it comes, and
:class:`Vocabulary` stores the words compactly.

Continuous features merge too, but not by adding means: :func:`gaussian_summary` and
:func:`merge_gaussian_summaries` implement the pooled mean and variance update of
Chan, Golub and LeVeque. :func:`hashed_counts` is the vocabulary-free alternative for
streams whose vocabulary keeps growing.

Nothing here imports Dask: the functions take file names and arrays and return arrays,
and :func:`tree_reduce` only needs an object with Dask's ``Client.submit`` method.
"""
from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import scipy.sparse as sp

from . import packed_words
from ._checks import check_positive_int
from ._numerics import combine_moments, moments
from .naive_bayes import MultinomialNB
from .word_counts import _ASCII_WORD_CHARACTERS, _word_runs, count_documents

__all__ = [
    "CountTable", "add_counts", "count_matrix", "Vocabulary", "gaussian_summary", "hashed_counts",
    "iter_posts", "merge_gaussian_summaries", "multinomial_from_counts", "read_posts", "shard_counts",
    "shard_vocabulary", "split_evenly", "tree_reduce", "union_words", "write_posts",
]


# ----------------------------------------------------------------------- shards and files
def split_evenly(n_items: int, n_shards: int) -> list[np.ndarray]:
    """Positions ``0 .. n_items - 1`` cut into ``n_shards`` consecutive runs of near-equal size.

    Consecutive, not shuffled: shard 0 is what arrived first. The first ``n_items % n_shards``
    shards get one item more than the others.
    """
    check_positive_int(n_items, "n_items", minimum=0)
    check_positive_int(n_shards, "n_shards")
    return np.array_split(np.arange(n_items), n_shards)


def iter_posts(paths: Iterable[str]) -> Iterator[str]:
    """The text of each file, read when it is asked for: a stream holds one post at a time.

    Decoded as latin-1, like ``nbcourse.datasets.load_20newsgroups``.
    """
    for path in paths:
        with open(path, "rb") as handle:
            yield handle.read().decode("latin-1")


def read_posts(paths: Iterable[str]) -> list[str]:
    """The text of every file at once (see :func:`iter_posts` to read them one by one)."""
    return list(iter_posts(paths))


def write_posts(texts: Iterable[str], folder) -> list[str]:
    """Write each text to its own file in ``folder`` (created if needed); return the paths.

    The files hold latin-1, as :func:`read_posts` reads them; a character outside latin-1
    becomes "?". Lesson 07 uses this to turn the SMS messages into a corpus of files when
    20 Newsgroups cannot be had.
    """
    if isinstance(texts, str):
        raise TypeError("texts must be a list of strings, got a single str; wrap it in a list")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number, text in enumerate(texts):
        path = folder / f"{number:06d}.txt"
        path.write_bytes(text.encode("latin-1", errors="replace"))
        paths.append(str(path))
    return paths


# ----------------------------------------------------------------------- map
def shard_vocabulary(paths: Iterable[str]) -> frozenset[str]:
    """Map step of the first pass: every distinct word in the files ``paths``."""
    words: set[str] = set()
    for text in iter_posts(paths):
        words.update(_word_runs(text.lower()))
    # runs of one word character are not tokens (`nbcourse.word_counts._word_runs`)
    return frozenset(words.difference(_ASCII_WORD_CHARACTERS))


@dataclass(frozen=True)
class CountTable:
    """The sufficient statistics of multinomial naive Bayes for some documents.

    ``class_count[c]`` is the number of documents of class ``c`` (by position in the
    model's classes) and ``feature_count[c, k]`` how often word ``k`` occurs in them,
    as a sparse matrix of whole numbers (most words never occur in a shard). Two tables
    over the same classes and vocabulary add up with ``+``.
    """
    class_count: np.ndarray
    feature_count: sp.csr_matrix

    def __post_init__(self):
        class_count = np.asarray(self.class_count)
        if class_count.ndim != 1 or class_count.dtype.kind not in "iu" or (class_count < 0).any():
            raise ValueError("class_count must be a 1-D array of whole numbers >= 0, one per class")
        if not sp.issparse(self.feature_count) or self.feature_count.shape[0] != class_count.shape[0]:
            raise ValueError(
                f"feature_count must be a sparse matrix with one row per class "
                f"({class_count.shape[0]}), got {getattr(self.feature_count, 'shape', None)}")
        object.__setattr__(self, "class_count", class_count.astype(np.int64))
        object.__setattr__(self, "feature_count", sp.csr_matrix(self.feature_count, dtype=np.int64))

    @property
    def shape(self) -> tuple[int, int]:
        """(classes, vocabulary words)."""
        return self.feature_count.shape

    def __add__(self, other: "CountTable") -> "CountTable":
        if not isinstance(other, CountTable):
            return NotImplemented
        if other.shape != self.shape:
            raise ValueError(
                f"cannot add count tables of shape {self.shape} and {other.shape}: both must "
                "count the same classes over the same vocabulary, in the same column order")
        return CountTable(self.class_count + other.class_count,
                          self.feature_count + other.feature_count)


def count_matrix(texts: Iterable[str], vocabulary: Mapping[str, int]) -> sp.csr_matrix:
    """Documents x words counts over a fixed ``vocabulary`` (word -> column).

    The same matrix as ``BagOfWords.transform`` for a BagOfWords whose vocabulary is
    ``vocabulary`` (both call `nbcourse.word_counts.count_documents`); words outside it are not
    counted. The vocabulary never grows, so matrices of different shards have the same
    columns and their counts can be added. ``texts`` may be any iterable, e.g.
    :func:`iter_posts`, which reads one file at a time.
    """
    if len(vocabulary) > np.iinfo(np.int32).max:
        raise ValueError(f"at most {np.iinfo(np.int32).max} columns, got {len(vocabulary)}")
    if isinstance(vocabulary, Vocabulary):
        return count_documents(texts, None, tokenizer=_spaced_or_tokens, pairs_of=vocabulary._pairs,
                               block_size=_BLOCK_CHARACTERS, n_columns=len(vocabulary), name="texts")
    columns_of = _each(lambda word: vocabulary.get(word, -1))
    return count_documents(texts, columns_of, n_columns=len(vocabulary), name="texts")


#: A block of ASCII documents that `Vocabulary._pairs` reads at once: about 10,000 tokens.
_BLOCK_CHARACTERS = packed_words.BLOCK_CHARACTERS


def _spaced_or_tokens(text: str):
    """One document as `Vocabulary._pairs` reads it: lower-cased, then
    `nbcourse.packed_words.spaced_or_tokens`."""
    return packed_words.spaced_or_tokens(text.lower())


def _each(column_of: Callable[[str], int]) -> Callable[[list[str]], np.ndarray]:
    """``column_of`` applied to a list of tokens, as an array."""
    return lambda tokens: np.fromiter(map(column_of, tokens), dtype=np.int64, count=len(tokens))


def shard_counts(paths: Sequence[str], labels: Sequence[int], vocabulary: Mapping[str, int],
                 n_classes: int) -> CountTable:
    """Map step of the second pass: the :class:`CountTable` of one shard of files.

    ``labels[i]`` is the class number (``0 .. n_classes - 1``) of the file ``paths[i]``;
    ``vocabulary`` maps each word to its column. Words outside the vocabulary are not
    counted, exactly as ``BagOfWords.transform`` ignores them.
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or len(paths) != labels.shape[0]:
        raise ValueError(f"{len(paths)} paths but {labels.shape} labels; need one label per path")
    if labels.size and (labels.dtype.kind not in "iu" or labels.min() < 0 or labels.max() >= n_classes):
        raise ValueError(f"labels must be class numbers from 0 to {n_classes - 1}")
    X = count_matrix(iter_posts(paths), vocabulary)
    one_hot = sp.csr_matrix((np.ones(labels.size, dtype=np.int64), (labels, np.arange(labels.size))),
                            shape=(n_classes, labels.size))
    return CountTable(np.bincount(labels.astype(np.int64), minlength=n_classes), one_hot @ X)


def union_words(word_sets: Iterable[frozenset[str]]) -> frozenset[str]:
    """Reduce step of the first pass: every word of every shard."""
    union: set[str] = set()
    for words in word_sets:
        union.update(words)
    return frozenset(union)


class Vocabulary(Mapping):
    """Each word's column, columns in alphabetical order as ``BagOfWords`` numbers them.

    A read-only mapping that compares equal to the plain dict ``BagOfWords.vocabulary_``.
    It is not a dict, for two reasons. A streaming fit holds the vocabulary next to the
    model for its whole run, so its size is a good part of the fit's peak memory (lesson
    07): 130,000 words cost 15 MB as a dict of str, 3.7 MB here. And Dask sends a plain
    dict between processes one entry at a time (about 20 s for 130,000 words on a 2-core
    machine), while this object travels as one pickle of a few arrays.

    How: a word of at most 16 bytes (UTF-8; 99% of 20 Newsgroups' words) is stored as 16
    bytes in a numpy array, sorted by a 64-bit key computed from those bytes, and looked
    up with ``np.searchsorted`` on the keys, then compared byte for byte, so a lookup is
    exact. Longer words, and the rare words whose key another word already has, go to a
    small dict.
    """

    _WIDTH = packed_words.WIDTH  # bytes of a word kept in the array: two 64-bit numbers

    def __init__(self, words: Iterable[str]):
        words = set(words)
        strangers = [word for word in words if not isinstance(word, str)]
        if strangers:
            raise TypeError(f"a Vocabulary holds words (str) only, got {strangers[0]!r} "
                            f"({type(strangers[0]).__name__}); convert the words with str() first")
        words = sorted(words)
        self._size = len(words)
        packed, lengths = self._packed(words)  # the same packing as the tokens it will look up
        # (column, key) of the words that fit the array, in key order
        fits = np.flatnonzero((lengths > 0) & (lengths <= self._WIDTH))
        keys = self._keys(packed[fits], lengths[fits])
        order = np.argsort(keys, kind="stable")
        fits, keys = fits[order], keys[order]
        clash = np.zeros(len(keys), dtype=bool)  # words sharing a key with another word
        clash[1:] |= keys[1:] == keys[:-1]
        clash[:-1] |= keys[1:] == keys[:-1]
        fits, keys = fits[~clash], keys[~clash]
        self._keys_sorted = keys
        self._columns = fits.astype(np.int32)
        self._bytes = packed[fits]
        self._lengths = lengths[fits].astype(np.uint8)
        in_array = np.zeros(len(words), dtype=bool)
        in_array[fits] = True
        self._others = {words[c]: int(c) for c in np.flatnonzero(~in_array)}

    _keys = staticmethod(packed_words.keys)
    _packed = staticmethod(packed_words.packed)

    def columns(self, tokens: Sequence[str]) -> np.ndarray:
        """The column of every token at once (``int32``), -1 for words outside the vocabulary."""
        packed, lengths = self._packed(tokens)
        return self._looked_up(packed, lengths, lambda positions: [tokens[i] for i in positions.tolist()])

    def _looked_up(self, packed, lengths, tokens) -> np.ndarray:
        """Columns of packed tokens; ``tokens(positions)`` gives those tokens as str, for the dict."""
        columns = np.full(len(lengths), -1, dtype=np.int32)
        if len(self._keys_sorted) and len(lengths):
            # Each distinct key once, in increasing order: the search then walks the key
            # array in order, about three times faster than a search per token.
            distinct, back = np.unique(self._keys(packed, lengths), return_inverse=True)
            position = np.searchsorted(self._keys_sorted, distinct)[back]
            position[position == len(self._keys_sorted)] = 0
            found = (self._bytes[position] == packed) & (self._lengths[position] == lengths)
            columns[found] = self._columns[position[found]]
        if self._others:
            missing = np.flatnonzero(columns < 0)
            columns[missing] = [self._others.get(word, -1) for word in tokens(missing)]
        return columns

    def _pairs(self, block: list) -> tuple[np.ndarray, np.ndarray]:
        """(document, column) of every token of a block of documents, as `count_matrix`
        reads them (`_spaced_or_tokens`), without a str per token
        (`nbcourse.packed_words.block_pairs`; that matters under ``tracemalloc``, which
        lesson 07 uses, and for speed). Words outside the vocabulary get column -1."""
        return packed_words.block_pairs(block, self._looked_up)

    def __getitem__(self, word: str) -> int:
        column = int(self.columns([word])[0]) if isinstance(word, str) else -1
        if column < 0:
            raise KeyError(word)
        return column

    def get(self, word, default=None):
        try:
            return self[word]
        except KeyError:
            return default

    def __iter__(self):
        words = [None] * self._size
        for column, raw, length in zip(self._columns.tolist(), self._bytes.tolist(),
                                       self._lengths.tolist()):
            # numpy drops trailing NULs, so pad back to the stored length
            words[column] = raw.ljust(length, b"\0").decode("utf-8", "surrogatepass")
        for word, column in self._others.items():
            words[column] = word
        return iter(words)

    def __len__(self) -> int:
        return self._size

    def __setstate__(self, state):
        # Dask unpickles arrays straight from its network buffers, which may leave them
        # unaligned; np.searchsorted then copies the whole key array on every call.
        for name, value in state.items():
            if isinstance(value, np.ndarray):
                value = np.require(value, requirements=["C", "A"])
            setattr(self, name, value)

    def items(self):
        """(word, column) pairs in column order, at once: Mapping's would look each word up."""
        return dict(zip(self, range(self._size))).items()

    def __eq__(self, other):
        if not isinstance(other, Mapping):
            return NotImplemented
        if len(other) != self._size:
            return False
        mine = dict(zip(self, range(self._size)))
        return mine == (other if isinstance(other, dict) else dict(other.items()))

    def __repr__(self) -> str:
        return f"Vocabulary({len(self)} words)"


# ----------------------------------------------------------------------- reduce
def add_counts(tables: Iterable[CountTable]) -> CountTable:
    """Reduce step: the sum of count tables (at least one)."""
    tables = list(tables)
    if not tables:
        raise ValueError("add_counts needs at least one count table")
    total = tables[0]
    for table in tables[1:]:
        total = total + table
    return total


def tree_reduce(client, futures: Sequence, combine: Callable | None = None):
    """Combine Dask futures pairwise on the cluster; return the future of the total.

    ``combine`` (default :func:`add_counts`) receives a list of two results. Pairs are
    combined level by level, like a knock-out tournament, so 20 shards take 5 rounds and
    no single worker receives all 20 tables at once. The client is any object with Dask's
    ``Client.submit``.
    """
    combine = add_counts if combine is None else combine
    level = list(futures)
    if not level:
        raise ValueError("tree_reduce needs at least one future")
    while len(level) > 1:
        paired = [client.submit(combine, level[i:i + 2]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


def multinomial_from_counts(table: CountTable, classes, alpha: float = 1.0) -> MultinomialNB:
    """The ``MultinomialNB`` fitted on any documents whose counts add up to ``table``.

    Multinomial naive Bayes sees its training data only through these sums, so it is
    enough to fit it on *some* documents with the same sums: one pseudo-document per class
    holding all of the class's words, plus empty documents so that each class has its
    number of documents. The result equals a fit on the original documents bit for bit
    (the same whole-number sums go through the same formulas).
    """
    classes = np.asarray(classes)
    if classes.shape != (table.shape[0],):
        raise ValueError(f"{table.shape[0]} classes in the table but {classes.shape} given")
    if (table.class_count == 0).any():
        raise ValueError("every class needs at least one document in the count table, got "
                         f"class counts {table.class_count.tolist()}")
    # Two calls, so that no copy of the table is held while the log-probabilities are
    # computed (the peak of lesson 07's streaming fit): the class pseudo-documents, then
    # the empty documents, which add to the class counts only.
    model = MultinomialNB(alpha=alpha).partial_fit(table.feature_count, classes, classes=classes)
    empties = table.class_count - 1
    if empties.any():
        model.partial_fit(sp.csr_matrix((int(empties.sum()), table.shape[1])),
                          np.repeat(classes, empties))
    return model


# ----------------------------------------------------------------------- hashing
def hashed_counts(texts: Iterable[str], n_features: int = 2 ** 18) -> sp.csr_matrix:
    """Bag of words without a vocabulary: word ``w`` goes to column ``crc32(w) % n_features``.

    Every new word has a column at once, so the matrix never changes shape as a stream
    brings new words. Different words can share a column (a collision): their counts are
    added, and the column cannot be turned back into one word. CRC-32 rather than
    Python's ``hash``, which is salted differently in every process (and so on every
    Dask worker).
    """
    check_positive_int(n_features, "n_features")
    cache: dict[str, int] = {}

    def column(word: str) -> int:
        found = cache.get(word)
        if found is None:
            found = cache[word] = zlib.crc32(word.encode("utf-8")) % n_features
        return found

    return count_documents(texts, _each(column), n_columns=n_features, name="texts")


# ----------------------------------------------------------------------- Gaussian
def gaussian_summary(X) -> tuple[int, np.ndarray, np.ndarray]:
    """``(n, mean, m2)`` of the rows of ``X``: m2 is the sum of squared deviations per column.

    The biased variance is ``m2 / n``. An empty block gives ``(0, zeros, zeros)``.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (rows x features), got shape {X.shape}")
    if X.shape[0] == 0:
        return 0, np.zeros(X.shape[1]), np.zeros(X.shape[1])
    return moments(X)


def merge_gaussian_summaries(a, b) -> tuple[int, np.ndarray, np.ndarray]:
    """Pooled ``(n, mean, m2)`` of two blocks from their summaries (Chan, Golub, LeVeque 1979).

    mean = mean_a + (mean_b - mean_a) n_b / n and
    m2 = m2_a + m2_b + (mean_b - mean_a)^2 n_a n_b / n:
    the spread within each block plus the spread between the two block means
    (`nbcourse._numerics.combine_moments`, which GaussianNB uses too).
    """
    n_a, mean_a, m2_a = a
    n_b, mean_b, m2_b = b
    as_floats = [np.asarray(v, dtype=np.float64) for v in (mean_a, m2_a, mean_b, m2_b)]
    return combine_moments(n_a, as_floats[0], as_floats[1], n_b, as_floats[2], as_floats[3])
