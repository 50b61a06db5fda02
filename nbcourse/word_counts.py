"""From tokens to a sparse documents x words count matrix, in blocks.

The matrix is built in bulk rather than word by word, in one function that
`nbcourse.text.BagOfWords` and `nbcourse.scale` both call (`count_documents`). Each document is
lower-cased once and split in one call: ``str.split`` for ASCII text (the usual case, see
`_ASCII_NON_WORD`), ``re.findall`` otherwise; the tokens of a block of
documents then go through a single lookup (``map`` runs it in C) that turns them into
column numbers, and one sort per block adds up the (document, word) pairs. On 20
Newsgroups this is quicker than a Python loop over millions of tokens, and since only
one block of tokens is kept as strings, it needs about as much memory as scikit-learn.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import chain

import numpy as np
import scipy.sparse as sp

# The same tokens, found about 20% faster: a match of ``\w\w+`` always starts at the
# beginning of a run of word characters and greedily runs to its end, so the word
# boundaries ``\b`` that the default pattern asks for hold automatically.
_FAST_DEFAULT_PATTERN = re.compile(r"\w\w+")

# In ASCII text the word characters are just a-z, A-Z, 0-9 and "_". Turning every other
# character into a space lets ``str.split`` find the runs of word characters, about twice
# as fast as the regular expression engine; a run of one character is not a token.
_ASCII_WORD_CHARACTERS = [chr(code) for code in range(128) if chr(code).isalnum() or chr(code) == "_"]
_ASCII_NON_WORD = {code: " " for code in range(128) if chr(code) not in _ASCII_WORD_CHARACTERS}

#: Tokens looked up and counted together (see `count_documents`): enough to make numpy's
#: per-call cost vanish, few enough that they (about 0.5 MB of str objects) stay small
#: next to a streaming fit's model (lesson 07).
_BLOCK_TOKENS = 1 << 13


def count_documents(documents, columns_of, *, tokenizer=None, n_columns=None,
                    name: str = "documents", pairs_of=None,
                    block_size: int | None = None) -> sp.csr_matrix:
    """The documents x words count matrix: the one place where tokens become counts.

    ``tokenizer(document)`` gives a document's tokens (default: lower-cased, the
    default `TOKEN_PATTERN`) and ``columns_of(tokens)`` their columns as an integer
    array, -1 for a token that is not counted. ``n_columns`` is the number of columns,
    or a function that says it once every document is read (`BagOfWords.fit`, whose
    vocabulary grows as it reads).

    Documents are read one at a time (any iterable works, e.g. a generator reading files)
    and counted in blocks of about 8,000 tokens: only one block's tokens exist as
    strings, and the matrix keeps one entry per distinct word of a document, not one per
    token, with each row's columns in increasing order.

    ``pairs_of(block)``, given instead of ``columns_of``, reads a block of whatever
    ``tokenizer`` returns (one item per document, a block ends once their lengths add up
    to ``block_size``) and gives the (document in the block, column) of every token, as
    two arrays. `nbcourse.scale.Vocabulary._pairs` uses it to count ASCII documents
    without making a str of every token.
    """
    _check_documents(documents, name)
    if tokenizer is None:
        tokenizer = _default_tokens
    if pairs_of is None:
        pairs_of = _token_pairs(columns_of)
    block_size = _BLOCK_TOKENS if block_size is None else block_size
    per_row, columns, counts = [], [], []
    block: list = []  # what the tokenizer gave for each document of the block

    def count_block():
        rows, found = pairs_of(block)
        counted = found >= 0
        stride = max(int(found.max()) + 1, 1) if found.size else 1
        # One sort for the whole block: (row, column) pairs, sorted row by row, then by column.
        pairs, how_often = np.unique(rows[counted] * stride + found[counted], return_counts=True)
        per_row.append(np.bincount(pairs // stride, minlength=len(block)))
        columns.append(pairs % stride)
        counts.append(how_often)

    size = 0
    for position, document in enumerate(documents):
        if not isinstance(document, str):
            raise TypeError(f"{name}[{position}] must be a str, got {type(document).__name__}")
        tokens = tokenizer(document)
        block.append(tokens)
        size += len(tokens)
        if size >= block_size:
            count_block()
            block, size = [], 0
    if block:
        count_block()
    return _csr_from_blocks(per_row, columns, counts, n_columns() if callable(n_columns) else n_columns)


def _csr_from_blocks(per_row, columns, counts, width: int) -> sp.csr_matrix:
    """The CSR matrix of the blocks' entries per row, columns and counts, in order."""
    indptr = np.zeros(sum(map(len, per_row)) + 1, dtype=np.int64)
    if per_row:
        np.cumsum(np.concatenate(per_row), out=indptr[1:])
    index_dtype = np.int32 if width <= np.iinfo(np.int32).max else np.int64
    X = sp.csr_matrix((np.concatenate(counts) if counts else np.zeros(0, np.int64),
                       (np.concatenate(columns) if columns else np.zeros(0)).astype(index_dtype),
                       indptr), shape=(len(indptr) - 1, width))
    X.has_sorted_indices = True  # np.unique sorted each row, and no column repeats in a row
    return X


def _check_documents(documents, name: str) -> None:
    if isinstance(documents, str):
        raise TypeError(
            f"{name} must be a list (or other iterable) of strings, got a single str; "
            "wrap it in a list: [text]")
    if isinstance(documents, (bytes, bytearray)) or not isinstance(documents, Iterable):
        raise TypeError(f"{name} must be an iterable of str, got {type(documents).__name__}")


def _token_pairs(columns_of):
    """``pairs_of`` for a tokenizer that gives lists of tokens: every token's document
    and ``columns_of`` the block's tokens, in order."""
    def pairs_of(block: list[list[str]]):
        lengths = np.fromiter(map(len, block), dtype=np.int64, count=len(block))
        rows = np.repeat(np.arange(len(block), dtype=np.int64), lengths)
        return rows, columns_of(list(chain.from_iterable(block)))
    return pairs_of


def _word_runs(text: str) -> list[str]:
    """The tokens of the default `TOKEN_PATTERN` in ``text`` (no lower-casing here), and
    in ASCII text also the runs of a single word character, which are not tokens."""
    if text.isascii():
        return text.translate(_ASCII_NON_WORD).split()
    return _FAST_DEFAULT_PATTERN.findall(text)


def _words(text: str) -> list[str]:
    """The tokens of the default `TOKEN_PATTERN` in ``text`` (no lower-casing here)."""
    if text.isascii():
        return [word for word in _word_runs(text) if len(word) > 1]
    return _FAST_DEFAULT_PATTERN.findall(text)


def _default_tokens(text: str) -> list[str]:
    # The same tokens as BagOfWords() with its defaults: lower-cased, scikit-learn's pattern.
    return _words(text.lower())


def _renumbered(X: sp.csr_matrix, new_column: np.ndarray, n_columns: int) -> sp.csr_matrix:
    """``X`` with column j moved to ``new_column[j]`` (-1: dropped), rows sorted again."""
    columns = new_column[X.indices]
    kept = columns >= 0
    if not kept.all():
        kept_before = np.concatenate(([0], np.cumsum(kept)))
        X = sp.csr_matrix((X.data[kept], X.indices[kept], kept_before[X.indptr]), shape=X.shape)
        columns = columns[kept]
    X = sp.csr_matrix((X.data, columns.astype(X.indices.dtype), X.indptr),
                      shape=(X.shape[0], n_columns))
    X.has_sorted_indices = False
    X.sort_indices()
    return X
