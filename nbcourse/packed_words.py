"""Tokens as 16 bytes in a numpy array: counting words without a Python str per token.

Splitting a text with ``str.split`` makes one Python object per token, millions for a
corpus. Most of the time that is cheap, but every object costs something to make and
to free, and under ``tracemalloc`` (lesson 07 measures memory with it) each one costs
several times more. Here the tokens of a block of ASCII documents are found with numpy
instead: the documents are joined (every character that is not a word character already
replaced by a space), the runs of two or more word characters are the tokens, and the
first 16 bytes of each run are copied into one array (`cut`). A 64-bit key made from
those bytes and the length (`keys`) lets numpy sort, search and group the tokens; a
byte-for-byte comparison makes every match exact, so two words that happen to share a
key are never confused.

Two users: `nbcourse.scale.Vocabulary` looks tokens up in a fixed vocabulary, and
`Numbering` gives the words of a growing vocabulary their numbers as they come
(`nbcourse.text.BagOfWords.fit_transform`). Both read a block through `block_pairs`.
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from typing import Callable

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .word_counts import _ASCII_NON_WORD, _words

#: Bytes of a token kept in the arrays: two 64-bit numbers.
WIDTH = 16

#: A block of ASCII documents read at once by `block_pairs` users: about 10,000 tokens.
BLOCK_CHARACTERS = 1 << 16


def spaced_or_tokens(text: str):
    """One document as `block_pairs` reads it: if ASCII, one str with a space for every
    character that is not a word character (its tokens are then the runs of two or more
    other characters); otherwise its list of tokens. No lower-casing here."""
    if text.isascii():
        return text.translate(_ASCII_NON_WORD)
    return _words(text)


def keys(packed: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A 64-bit key from each token's 16 bytes and its length (so "ab" and "ab\\0" differ).

    It only has to spread the words out; the byte comparison makes a lookup exact.
    Little-endian on every machine, so that pickled arrays work on any Dask worker.
    """
    halves = packed.view(np.dtype("<u8")).reshape(-1, 2).astype(np.uint64, copy=False)
    key = halves[:, 0] * np.uint64(0x9E3779B97F4A7C15) ^ halves[:, 1] * np.uint64(0xC2B2AE3D27D4EB4F)
    key ^= lengths.astype(np.uint64) * np.uint64(0x165667B19E3779F9)
    return key ^ (key >> np.uint64(31))


def cut(raw: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The first 16 bytes of each token ``raw[start:start + length]``, as ``S16``.

    Each token's row is copied whole from a sliding 16-byte window over ``raw``, then
    the bytes past its end (the next tokens') are set to 0.
    """
    padded = np.concatenate([raw, np.zeros(WIDTH, dtype=np.uint8)])
    packed = sliding_window_view(padded, WIDTH)[starts]
    packed *= np.arange(WIDTH) < lengths[:, None]
    return packed.view(f"S{WIDTH}").reshape(len(lengths))


def _utf8(words: Sequence[str]) -> list[bytes]:
    # "surrogatepass": a lone surrogate (text decoded with errors="surrogateescape") is a
    # word like any other, and must not stop the counting.
    return list(map(str.encode, words, repeat("utf-8"), repeat("surrogatepass")))


def packed(tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The first 16 bytes of every token (``S16``, UTF-8) and its length in bytes.

    Built from one joined string rather than a bytes object per token. A longer token
    is cut, and then differs in length from every word kept in an array.
    """
    joined = "".join(tokens)
    if joined.isascii():  # one byte a character
        raw = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
        lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    else:
        encoded = _utf8(tokens)
        raw = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    return cut(raw, np.cumsum(lengths) - lengths, lengths), lengths


#: ``columns(packed, lengths, tokens)``: the column of every packed token;
#: ``tokens(positions)`` gives the tokens at those positions as str, for the few that the
#: arrays cannot hold.
PackedColumns = Callable[[np.ndarray, np.ndarray, Callable[[np.ndarray], list]], np.ndarray]


def _slices(text: str, starts: np.ndarray, lengths: np.ndarray) -> Callable[[np.ndarray], list]:
    """``tokens(positions)`` for tokens that are ``text[start:start + length]``."""
    def tokens(positions: np.ndarray) -> list[str]:
        begin = starts[positions]
        return [text[a:b] for a, b in zip(begin.tolist(), (begin + lengths[positions]).tolist())]
    return tokens


def _items(tokens: Sequence[str]) -> Callable[[np.ndarray], list]:
    """``tokens(positions)`` for a list of tokens."""
    return lambda positions: [tokens[i] for i in positions.tolist()]


def block_pairs(block: list, columns: PackedColumns) -> tuple[np.ndarray, np.ndarray]:
    """(document, column) of every token of a block of documents, each as
    `spaced_or_tokens` gave it: ASCII documents as spaced text, others as token lists.

    The ASCII documents are joined and cut into tokens with numpy, straight into the
    packed form, so no str is made per token.
    """
    spaced = [i for i, item in enumerate(block) if isinstance(item, str)]
    listed = [i for i, item in enumerate(block) if not isinstance(item, str)]
    joined = " ".join(block[i] for i in spaced)
    raw = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    word = raw != ord(" ")
    edges = np.flatnonzero(np.diff(word, prepend=False, append=False))  # where runs start and end
    starts, lengths = edges[0::2], edges[1::2] - edges[0::2]
    starts, lengths = starts[lengths > 1], lengths[lengths > 1]  # one character: not a token
    # each token's document: the last one that starts at or before the token
    document_starts = np.cumsum([0] + [len(block[i]) + 1 for i in spaced[:-1]])
    rows = np.asarray(spaced, dtype=np.int64)[np.searchsorted(document_starts, starts, "right") - 1]
    found = columns(cut(raw, starts, lengths), lengths, _slices(joined, starts, lengths))
    if listed:
        tokens = [token for i in listed for token in block[i]]
        rows = np.concatenate([rows, np.repeat(np.asarray(listed, dtype=np.int64),
                                               [len(block[i]) for i in listed])])
        found = np.concatenate([found, columns(*packed(tokens), _items(tokens))])
    return rows, found


def _same_bytes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether packed tokens ``a[i]`` and ``b[i]`` hold the same 16 bytes (compared as two
    64-bit numbers: quicker than numpy's comparison of byte strings)."""
    return (a.view(np.uint64).reshape(-1, 2) == b.view(np.uint64).reshape(-1, 2)).all(axis=1)


class Numbering:
    """Numbers 0, 1, 2, ... for the words of a vocabulary that grows as blocks are read.

    ``numbers(packed, lengths, tokens)`` (a `PackedColumns`) gives every token its word's
    number, handing the next free number to each word not seen before; ``number_of`` is
    the dict word -> number, in the order the numbers were given. The numbers follow no
    particular order (`BagOfWords` renumbers its columns alphabetically afterwards).
    Only a new word becomes a str, so a block costs a few numpy calls whatever its number
    of tokens.

    Words of at most 16 bytes are also kept sorted by key, with their bytes, length and
    number, so that the tokens of words already seen are found with numpy alone; longer
    words, and words whose key another word already has, are looked up in the dict one
    token at a time.
    """

    def __init__(self):
        self.number_of: dict[str, int] = {}
        self._keys = np.zeros(0, dtype=np.uint64)
        self._bytes = np.zeros(0, dtype=f"S{WIDTH}")
        self._lengths = np.zeros(0, dtype=np.uint8)
        self._numbers = np.zeros(0, dtype=np.int32)

    def _numbered(self, words: list[str]) -> np.ndarray:
        """The numbers of ``words`` (distinct), the next free ones for words not seen before."""
        fresh = [word for word in words if word not in self.number_of]
        self.number_of.update(zip(fresh, range(len(self.number_of), len(self.number_of) + len(fresh))))
        return np.fromiter(map(self.number_of.__getitem__, words), dtype=np.int64, count=len(words))

    def numbers(self, packed: np.ndarray, lengths: np.ndarray, tokens) -> np.ndarray:
        # Each distinct key once, in increasing order: the search then walks the sorted
        # keys in order, several times faster than one search per token.
        distinct, inverse = np.unique(keys(packed, lengths), return_inverse=True)
        first = np.empty(len(distinct), dtype=np.intp)  # one token of each key (its last)
        first[inverse] = np.arange(len(inverse))
        # a key whose tokens are not all one word of at most 16 bytes is left to the dict
        alike = _same_bytes(packed, packed[first][inverse]) & (lengths == lengths[first][inverse])
        mixed = np.zeros(len(distinct), dtype=bool)
        mixed[inverse[~(alike & (lengths <= WIDTH))]] = True
        number = np.full(len(distinct), -1, dtype=np.int64)
        known = np.zeros(len(distinct), dtype=bool)
        if len(self._keys):
            position = np.searchsorted(self._keys, distinct)
            position[position == len(self._keys)] = 0
            known = self._keys[position] == distinct
            same = known & ~mixed & _same_bytes(self._bytes[position], packed[first]) \
                & (self._lengths[position] == lengths[first])
            number[same] = self._numbers[position[same]]
        new = np.flatnonzero(~known & ~mixed)
        number[new] = self._keep(distinct[new], packed[first[new]], lengths[first[new]],
                                 tokens(first[new]))
        result = number[inverse]
        left = np.flatnonzero(result < 0)  # long words, and words whose key is taken
        if len(left):
            result[left] = np.fromiter(map(self._numbered_one, tokens(left)), dtype=np.int64,
                                       count=len(left))
        return result

    def _numbered_one(self, word: str) -> int:
        """The number of ``word``, the next free one if it has none yet."""
        number = self.number_of.get(word)
        if number is None:
            number = self.number_of[word] = len(self.number_of)
        return number

    def _keep(self, new_keys, new_bytes, new_lengths, words: list[str]) -> np.ndarray:
        """Number ``words`` (their keys not yet kept, in increasing order) and keep them in
        the arrays, except a word that already has its number from the dict."""
        added = ~np.fromiter(map(self.number_of.__contains__, words), dtype=bool, count=len(words))
        numbers = self._numbered(words)
        at = np.searchsorted(self._keys, new_keys[added])
        self._keys = np.insert(self._keys, at, new_keys[added])
        self._bytes = np.insert(self._bytes, at, new_bytes[added])
        self._lengths = np.insert(self._lengths, at, new_lengths[added])
        self._numbers = np.insert(self._numbers, at, numbers[added])
        return numbers
