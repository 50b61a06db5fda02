"""Shards add up: the map/reduce helpers of nbcourse.scale against a one-shot fit.

The Dask run itself is checked by lesson 07 under nbval and by the leftover-process test
in tests/test_lesson_07.py; here the same functions run in this process.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from nbcourse import GaussianNB, MultinomialNB
from nbcourse import scale as scale_module
from nbcourse import word_counts as counts_module
from nbcourse.scale import (CountTable, Vocabulary, add_counts, count_matrix, gaussian_summary,
                            hashed_counts, merge_gaussian_summaries, multinomial_from_counts,
                            shard_counts, shard_vocabulary, split_evenly, tree_reduce, union_words)
from nbcourse.text import BagOfWords

POSTS = [
    ("Free entry: win a FREE prize now", 1),
    ("are we still on for lunch today", 0),
    ("Call now to claim your prize, free!", 1),
    ("see you at lunch, bring the notes", 0),
    ("Résumé attached; café at noon?", 0),
    ("WINNER!! claim 1000 now", 1),
    ("notes from today's lecture", 0),
]


@pytest.fixture
def post_files(tmp_path):
    paths = []
    for i, (text, _) in enumerate(POSTS):
        path = tmp_path / f"post{i}.txt"
        path.write_bytes(text.encode("latin-1"))
        paths.append(str(path))
    return paths, np.array([label for _, label in POSTS])


def test_split_evenly_keeps_arrival_order_and_covers_everything():
    shards = split_evenly(10, 3)
    assert [s.tolist() for s in shards] == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert len(split_evenly(2, 5)) == 5
    with pytest.raises(ValueError, match="n_shards"):
        split_evenly(10, 0)


def test_map_reduce_equals_bag_of_words_and_one_shot_fit(post_files):
    paths, labels = post_files
    texts = [text for text, _ in POSTS]
    bag = BagOfWords()
    X = bag.fit_transform(texts)
    one_shot = MultinomialNB(alpha=0.5).fit(X, labels)

    shards = split_evenly(len(paths), 3)
    words = union_words(shard_vocabulary([paths[i] for i in shard]) for shard in shards)
    vocabulary = Vocabulary(words)
    assert vocabulary == bag.vocabulary_
    tables = [shard_counts([paths[i] for i in shard], labels[shard], vocabulary, 2)
              for shard in shards]
    total = add_counts(tables)
    np.testing.assert_array_equal(total.feature_count.toarray(), one_shot.feature_count_)
    merged = multinomial_from_counts(total, classes=np.array([0, 1]), alpha=0.5)
    assert np.array_equal(merged.feature_log_prob_, one_shot.feature_log_prob_)
    assert np.array_equal(merged.class_log_prior_, one_shot.class_log_prior_)
    assert np.array_equal(merged.class_count_, one_shot.class_count_)


def test_count_matrix_is_bag_of_words_transform():
    texts = [text for text, _ in POSTS]
    bag = BagOfWords().fit(texts[:4])
    fixed = count_matrix(texts, bag.vocabulary_)
    assert (fixed != bag.transform(texts)).nnz == 0
    with pytest.raises(TypeError, match="single str"):
        count_matrix("one text", bag.vocabulary_)


def test_count_tables_add_and_refuse_different_vocabularies():
    a = CountTable(np.array([1, 2]), sp.csr_matrix(np.array([[1, 0, 2], [0, 3, 0]])))
    b = CountTable(np.array([3, 0]), sp.csr_matrix(np.array([[0, 1, 1], [0, 0, 0]])))
    total = a + b
    assert total.class_count.tolist() == [4, 2]
    assert total.feature_count.toarray().tolist() == [[1, 1, 3], [0, 3, 0]]
    wider = CountTable(np.array([1, 1]), sp.csr_matrix((2, 4), dtype=np.int64))
    with pytest.raises(ValueError, match="same vocabulary"):
        a + wider
    with pytest.raises(ValueError, match="whole numbers"):
        CountTable(np.array([0.5, 1.0]), sp.csr_matrix((2, 3)))
    with pytest.raises(ValueError, match="at least one"):
        add_counts([])


def test_a_class_without_documents_is_refused():
    table = CountTable(np.array([2, 0]), sp.csr_matrix(np.array([[1, 1], [0, 0]])))
    with pytest.raises(ValueError, match="at least one document"):
        multinomial_from_counts(table, classes=np.array(["ham", "spam"]))


class _InlineClient:
    """Client.submit run on the spot: tree_reduce's pairing, without a cluster."""

    class _Done:
        def __init__(self, value):
            self.value = value

    def __init__(self):
        self.calls = 0

    def submit(self, function, futures):
        self.calls += 1
        return self._Done(function([f.value for f in futures]))


@pytest.mark.parametrize("n", [1, 2, 5, 20])
def test_tree_reduce_combines_every_shard_once(n):
    client = _InlineClient()
    futures = [client._Done(frozenset({f"w{i}"})) for i in range(n)]
    total = tree_reduce(client, futures, union_words)
    assert total.value == frozenset(f"w{i}" for i in range(n))
    assert client.calls == n - 1


def test_vocabulary_pickles_as_one_object_and_equals_the_dict():
    vocabulary = Vocabulary(["b", "a", "c", "a"])
    assert dict(vocabulary) == {"a": 0, "b": 1, "c": 2}
    assert pickle.loads(pickle.dumps(vocabulary)) == vocabulary
    assert type(vocabulary) is not dict  # Dask ships a plain dict entry by entry
    assert repr(vocabulary) == "Vocabulary(3 words)"


# Words that test the packed array's edges: exactly 16 bytes, 17 bytes sharing those 16,
# multi-byte UTF-8 (9 characters but 18 bytes), a trailing NUL, the empty word, and a lone
# surrogate (what decoding with errors="surrogateescape" leaves).
AWKWARD = ["sixteen_bytes_ab", "sixteen_bytes_abc", "ñññññññññ", "ññññññññ", "日本語",
           "ab", "ab\x00", "a", "", "naïve", "x" * 200, "zz", "lone\udc80surrogat"]
STRANGERS = ["sixteen_bytes_ac", "sixteen_bytes_abd", "ñññññññññx", "ab\x00\x00", "b", "naive",
             "x" * 199, "x" * 16, "日本", "\x00"]


@pytest.mark.parametrize("clash", [False, True], ids=["own-keys", "every-key-the-same"])
def test_vocabulary_finds_exactly_its_words(clash, monkeypatch):
    if clash:  # every word shares one key: all go to the dict, and lookups still hold
        monkeypatch.setattr(Vocabulary, "_keys", classmethod(
            lambda cls, packed, lengths: np.zeros(len(lengths), dtype=np.uint64)))
    vocabulary = Vocabulary(AWKWARD + AWKWARD[:3])
    expected = {word: column for column, word in enumerate(sorted(set(AWKWARD)))}
    assert dict(vocabulary) == expected and list(vocabulary) == sorted(expected)
    assert len(vocabulary) == len(expected)
    # in the dict unless every key clashes: "", and the three words of more than 16 bytes
    assert len(vocabulary._others) == (len(expected) if clash else 4)
    for word, column in expected.items():
        assert vocabulary[word] == column and word in vocabulary
    for stranger in STRANGERS + [3, None]:
        assert stranger not in vocabulary and vocabulary.get(stranger, "absent") == "absent"
        with pytest.raises(KeyError):
            vocabulary[stranger]
    tokens = STRANGERS + AWKWARD
    assert vocabulary.columns(tokens).tolist() == [expected.get(t, -1) for t in tokens]
    assert vocabulary.columns([]).tolist() == []
    assert pickle.loads(pickle.dumps(vocabulary)).columns(tokens).tolist() == \
        vocabulary.columns(tokens).tolist()
    with pytest.raises(TypeError, match="words \\(str\\) only"):
        Vocabulary(["a", 1])


def test_a_vocabulary_from_unaligned_buffers_is_aligned_again():
    """Dask unpickles out-of-band buffers as they arrive; searchsorted on an unaligned
    array copies it on every call (lesson 07's Dask pass 2 was 2.5 times slower)."""
    vocabulary = Vocabulary(AWKWARD + [f"word{i}" for i in range(1000)])
    buffers = []
    blob = pickle.dumps(vocabulary, protocol=5, buffer_callback=buffers.append)
    shifted = []
    for buffer in buffers:
        raw = bytes(buffer.raw())
        room = bytearray(len(raw) + 1)
        room[1:] = raw
        shifted.append(memoryview(room)[1:])  # one byte off: unaligned for 4- and 8-byte numbers
    copy = pickle.loads(blob, buffers=shifted)
    arrays = [value for value in vars(copy).values() if isinstance(value, np.ndarray)]
    assert len(arrays) >= 3 and all(array.flags.aligned for array in arrays)
    tokens = STRANGERS + AWKWARD + ["word7", "word999", "word1000"]
    assert copy.columns(tokens).tolist() == vocabulary.columns(tokens).tolist()


@pytest.mark.parametrize("block", [1, 3, 1 << 13], ids=["a-block-per-post", "blocks-of-3", "one-block"])
def test_count_matrix_is_the_same_with_a_vocabulary_or_a_dict(block, monkeypatch):
    monkeypatch.setattr(counts_module, "_BLOCK_TOKENS", block)
    monkeypatch.setattr(scale_module, "_BLOCK_CHARACTERS", 8 * block)  # ASCII posts, read as text
    texts = ([text for text, _ in POSTS] + ["", "!!", "sixteen_bytes_ab sixteen_bytes_abc naïve naïve xx" * 3]
             + [text for text, _ in POSTS[:2]])
    bag = BagOfWords().fit(texts[2:])
    compact = count_matrix(iter(texts), Vocabulary(bag.vocabulary_))
    assert (compact != count_matrix(texts, bag.vocabulary_)).nnz == 0
    assert (compact != bag.transform(texts)).nnz == 0
    assert compact.has_canonical_format and compact.dtype == np.int64
    empty = count_matrix([], Vocabulary(["a"]))
    assert empty.shape == (0, 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(max_codepoint=127), max_size=40)
                | st.text(alphabet="aZ_9 .'\u00e9\u00c9\u0130\u212a\u00b2-", max_size=40)
                | st.text(alphabet="ab_ \u00f1", min_size=15, max_size=40), max_size=6),
       st.sampled_from([1, 7, 64, 1 << 16]))
def test_a_vocabulary_counts_ascii_text_without_tokens_as_count_vectorizer_does(documents, block):
    # Vocabulary.pairs cuts ASCII documents into tokens with numpy (words of 16 bytes and
    # more, one-character runs, runs at a document's edges, blocks of any size) and the
    # others with the regex engine: the counts must be CountVectorizer's.
    from unittest import mock

    from sklearn.feature_extraction.text import CountVectorizer
    try:
        expected = CountVectorizer().fit(documents)
    except ValueError:  # no token at all
        return
    vocabulary = Vocabulary(expected.vocabulary_)
    with mock.patch.object(scale_module, "_BLOCK_CHARACTERS", block):
        ours = count_matrix(documents, vocabulary)
    assert (ours != expected.transform(documents)).nnz == 0 and ours.has_canonical_format


def test_hashed_counts_keep_every_token_and_are_the_same_in_every_process():
    texts = [text for text, _ in POSTS]
    H = hashed_counts(texts, n_features=64)
    assert H.shape == (len(texts), 64)
    assert H.sum() == BagOfWords().fit_transform(texts).sum()
    # crc32 of "free" is fixed; Python's salted hash() would move it between processes
    import zlib
    assert H[0, zlib.crc32(b"free") % 64] >= 2
    again = hashed_counts(texts[:1], n_features=64)
    assert (again != H[:1]).nnz == 0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=6),
       st.randoms(use_true_random=False))
def test_gaussian_summaries_merge_in_any_order(sizes, rng):
    data = np.random.default_rng(sum(sizes)).normal(3.0, 2.0, size=(sum(sizes), 3))
    blocks = np.split(data, np.cumsum(sizes)[:-1])
    summaries = [gaussian_summary(block) for block in blocks]
    rng.shuffle(summaries)
    merged = summaries[0]
    for summary in summaries[1:]:
        merged = merge_gaussian_summaries(merged, summary)
    n, mean, m2 = gaussian_summary(data)
    assert merged[0] == n
    if n:
        np.testing.assert_allclose(merged[1], mean, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(merged[2], m2, rtol=1e-10, atol=1e-10)


def test_merged_gaussian_summaries_give_gaussian_nb_parameters():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4)) + np.repeat([[0.0], [2.0]], 30, axis=0)
    y = np.repeat([0, 1], 30)
    model = GaussianNB().fit(X, y)
    for c in (0, 1):
        rows = X[y == c]
        n, mean, m2 = merge_gaussian_summaries(gaussian_summary(rows[:7]), gaussian_summary(rows[7:]))
        np.testing.assert_allclose(mean, model.theta_[c], rtol=1e-12)
        np.testing.assert_allclose(m2 / n + model.epsilon_, model.var_[c], rtol=1e-12)
