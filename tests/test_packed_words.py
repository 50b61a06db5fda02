"""Counting with packed tokens (nbcourse.packed_words): exact even when keys collide.

A 64-bit key almost never collides on real text, so the rare paths (two words with one
key, words longer than 16 bytes, a word numbered through the dict and seen again later)
are forced here with a key of a few values and blocks of a few words.
"""
from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer

from nbcourse import packed_words, text
from nbcourse.packed_words import Numbering, packed
from nbcourse.text import BagOfWords

DOCUMENTS = [
    "Free prize, call now: free FREE prize!",
    "ab ba ab cd dc " + "x" * 17 + " " + "x" * 16 + " " + "y" * 40,
    "héllo wörld ab résumé " + "é" * 20,
    "",
    "a b c 7 _ __",
    "call me when you get home, ab",
    "xxxxxxxxxxxxxxxxx ab cd ef gh ij kl mn op qr st uv wx yz",
]


def few_keys(packed_tokens, lengths):
    """A key with three values: most words share theirs with others."""
    return (lengths % 3).astype(np.uint64)


def same_as_count_vectorizer(documents, lowercase=True):
    ours = BagOfWords(lowercase=lowercase)
    X = ours.fit_transform(documents)
    reference = CountVectorizer(lowercase=lowercase)
    expected = reference.fit_transform(documents)
    expected.sort_indices()
    assert ours.vocabulary_ == reference.vocabulary_
    assert X.shape == expected.shape
    assert np.array_equal(X.indptr, expected.indptr)
    assert np.array_equal(X.indices, expected.indices)
    assert np.array_equal(X.data, expected.data)


@pytest.mark.parametrize("block", [1, 20, 1 << 16])
@pytest.mark.parametrize("lowercase", [True, False])
def test_words_sharing_a_key_are_still_counted_apart(block, lowercase):
    with mock.patch.object(packed_words, "keys", few_keys), \
            mock.patch.object(text, "BLOCK_CHARACTERS", block):
        same_as_count_vectorizer(DOCUMENTS * 3, lowercase=lowercase)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet="abcAB_9 .\u00e9\u212a", max_size=60), min_size=1, max_size=8),
       st.integers(min_value=1, max_value=40))
def test_any_documents_any_blocks_any_collisions_give_count_vectorizers_counts(documents, block):
    with mock.patch.object(packed_words, "keys", few_keys), \
            mock.patch.object(text, "BLOCK_CHARACTERS", block):
        try:
            expected = CountVectorizer().fit(documents)
        except ValueError:  # no token at all: both refuse
            with pytest.raises(ValueError, match="empty"):
                BagOfWords().fit(documents)
            return
        same_as_count_vectorizer(documents)
        assert BagOfWords().fit(documents).vocabulary_ == expected.vocabulary_


def test_a_word_numbered_through_the_dict_keeps_its_number_later():
    numbering = Numbering()
    tokens = ["ab", "cd"]  # the same length, so the same key below: both go to the dict
    with mock.patch.object(packed_words, "keys", few_keys):
        first = numbering.numbers(*packed(tokens), lambda at: [tokens[i] for i in at.tolist()])
        again = ["cd", "cd", "ef"]  # "cd" alone with its key now
        second = numbering.numbers(*packed(again), lambda at: [again[i] for i in at.tolist()])
    assert first.tolist() == [0, 1]
    assert second.tolist() == [1, 1, 2]
    assert numbering.number_of == {"ab": 0, "cd": 1, "ef": 2}
