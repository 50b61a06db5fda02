"""Tokens and bag-of-words counts, checked against scikit-learn's CountVectorizer on real text."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.feature_extraction.text import TfidfTransformer as SkTfidf

from nbcourse import datasets
from nbcourse._checks import NotFittedError
from nbcourse.text import BagOfWords, TfidfTransformer, tokenize, zipf_slope, zipf_table


@pytest.fixture(scope="session")
def sms_texts(shared_data) -> list[str]:
    return datasets.load_sms_spam(shared_data / "sms_spam" / "SMSSpamCollection", download=False)["text"].tolist()


@pytest.fixture(scope="session")
def news_train(newsgroups_folder) -> list[str]:
    """20 Newsgroups train, found or fetched once per session as a student's loader does."""
    return datasets.load_20newsgroups("train", path=newsgroups_folder, download=False).data


def assert_same_matrix(ours, reference):
    """Same shape, dtype, and stored entries in the same canonical CSR layout."""
    assert isinstance(ours, sp.csr_matrix)
    assert ours.has_canonical_format
    reference = sp.csr_matrix(reference)
    reference.sort_indices()
    assert ours.shape == reference.shape
    assert ours.dtype == reference.dtype == np.int64
    assert np.array_equal(ours.indptr, reference.indptr)
    assert np.array_equal(ours.indices, reference.indices)
    assert np.array_equal(ours.data, reference.data)


def assert_same_as_sklearn(documents, **settings_):
    ours = BagOfWords(**settings_)
    reference = CountVectorizer(**settings_)
    X = ours.fit_transform(documents)
    expected = reference.fit_transform(documents)
    assert ours.vocabulary_ == reference.vocabulary_
    assert_same_matrix(X, expected)
    assert list(ours.get_feature_names_out()) == list(reference.get_feature_names_out())
    return ours, reference


# -- tokenize -----------------------------------------------------------------------------------

def test_tokenize_drops_one_letter_words_and_punctuation():
    assert tokenize("Free entry in 2 a wkly comp! Win £100, txt WIN.") == [
        "free", "entry", "in", "wkly", "comp", "win", "100", "txt", "win"]
    assert tokenize("Free FREE free", lowercase=False) == ["Free", "FREE", "free"]
    assert tokenize("") == []


def test_tokenize_custom_pattern_and_one_capturing_group():
    assert tokenize("I am ok", token_pattern=r"\b\w+\b") == ["i", "am", "ok"]
    assert tokenize("#spam #ham eggs", token_pattern=r"#(\w+)") == ["spam", "ham"]


def test_tokenize_rejects_bad_arguments():
    with pytest.raises(TypeError, match="text must be a str"):
        tokenize(b"bytes")
    with pytest.raises(ValueError, match="2 capturing groups"):
        tokenize("a b", token_pattern=r"(\w)(\w)")
    with pytest.raises(ValueError, match="not a valid regular expression"):
        tokenize("a b", token_pattern=r"(\w")


def test_tokenize_agrees_with_sklearn_on_every_sms(sms_texts):
    analyze = CountVectorizer().build_analyzer()
    for text in sms_texts:
        assert tokenize(text) == analyze(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_tokenize_agrees_with_sklearn_on_any_unicode(text):
    assert tokenize(text) == CountVectorizer().build_analyzer()(text)
    assert tokenize(text, lowercase=False) == CountVectorizer(lowercase=False).build_analyzer()(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(max_codepoint=127), max_size=40)
                | st.text(alphabet="aZ_9 .'\u00e9\u00c9\u0130\u212a\u00b2-", max_size=40), max_size=6))
def test_ascii_documents_take_a_quicker_route_to_the_same_tokens_and_counts(documents):
    # ASCII text is split by str.translate + str.split instead of the regex engine, and
    # BagOfWords drops one-character runs from the vocabulary rather than from the tokens;
    # mixed with non-ASCII documents (the Kelvin sign lower-cases to ASCII "k"), the
    # vocabulary and counts must stay scikit-learn's.
    for text in documents:
        assert tokenize(text) == CountVectorizer().build_analyzer()(text)
        assert tokenize(text, lowercase=False) == CountVectorizer(lowercase=False).build_analyzer()(text)
    for lowercase in (True, False):
        try:
            expected = CountVectorizer(lowercase=lowercase).fit(documents)
        except ValueError:  # no document or no token at all: both refuse
            with pytest.raises(ValueError, match="empty"):
                BagOfWords(lowercase=lowercase).fit(documents)
            continue
        ours = BagOfWords(lowercase=lowercase).fit(documents)
        assert ours.vocabulary_ == expected.vocabulary_
        assert_same_matrix(ours.transform(documents), expected.transform(documents))


def test_one_letter_words_never_get_a_column():
    bag = BagOfWords().fit(["a b c", "I x y zz", "a zz 7 _"])
    assert bag.vocabulary_ == {"zz": 0}
    assert bag.transform(["a zz a", "q"]).toarray().tolist() == [[1], [0]]
    with pytest.raises(ValueError, match="empty vocabulary"):
        BagOfWords().fit(["a b c", "x y"])
    assert BagOfWords(token_pattern=r"(?u)\b\w+\b").fit(["a b", "a"]).vocabulary_ == {"a": 0, "b": 1}


# -- BagOfWords against CountVectorizer ---------------------------------------------------------

@pytest.mark.parametrize("settings_", [
    {},
    {"binary": True},
    {"lowercase": False},
    {"min_df": 2},
    {"min_df": 0.001, "max_df": 0.05},
    {"max_df": 30},
    {"max_features": 2000},
    {"max_features": 500, "binary": True, "min_df": 3},
    {"stop_words": ["the", "to", "you", "and", "a", "zzzunseen"]},
    {"token_pattern": r"(?u)\b\w+\b"},
], ids=repr)
def test_matches_count_vectorizer_on_sms(sms_texts, settings_):
    assert_same_as_sklearn(sms_texts, **settings_)


def test_matches_count_vectorizer_on_20newsgroups_train(news_train):
    ours, _ = assert_same_as_sklearn(news_train)
    assert len(ours.vocabulary_) == 130107


def test_matches_count_vectorizer_on_20newsgroups_with_pruning(news_train):
    assert_same_as_sklearn(news_train, binary=True, min_df=2, max_df=0.5, max_features=10000)


@pytest.mark.parametrize("settings_", [{}, {"binary": True, "max_features": 300}], ids=repr)
def test_transform_of_unseen_messages_matches_count_vectorizer(sms_texts, settings_):
    train, unseen = sms_texts[:4000], sms_texts[4000:]
    ours, reference = assert_same_as_sklearn(train, **settings_)
    assert_same_matrix(ours.transform(unseen), reference.transform(unseen))


def test_transform_counts_only_the_fitted_words():
    bag = BagOfWords().fit(["spam spam eggs", "ham"])

    X = bag.transform(["eggs and spam and more spam", "", "nothing known"])

    assert bag.vocabulary_ == {"eggs": 0, "ham": 1, "spam": 2}
    assert X.toarray().tolist() == [[1, 0, 2], [0, 0, 0], [0, 0, 0]]
    assert X.dtype == np.int64


def test_fit_then_transform_equals_fit_transform(sms_texts):
    together = BagOfWords(min_df=2).fit_transform(sms_texts)
    apart = BagOfWords(min_df=2).fit(sms_texts).transform(sms_texts)
    assert (together != apart).nnz == 0


def test_binary_records_presence():
    X = BagOfWords(binary=True).fit_transform(["win win win cash", "cash"])
    assert X.toarray().tolist() == [[1, 1], [1, 0]]


def test_max_features_keeps_the_most_frequent_words():
    bag = BagOfWords(max_features=2)
    bag.fit(["aa bb bb cc cc cc", "cc bb dd"])
    assert list(bag.get_feature_names_out()) == ["bb", "cc"]


def test_feature_names_are_an_object_array_in_column_order():
    bag = BagOfWords().fit(["zebra apple mango"])
    names = bag.get_feature_names_out()
    assert names.dtype == object
    assert names.tolist() == ["apple", "mango", "zebra"]
    names[0] = "changed"
    assert bag.get_feature_names_out()[0] == "apple"


# -- BagOfWords errors --------------------------------------------------------------------------

@pytest.mark.parametrize("settings_, error, message", [
    ({"min_df": -1}, ValueError, "min_df must be >= 0"),
    ({"max_df": 1.5}, ValueError, r"max_df must be in \[0, 1\]"),
    ({"min_df": "2"}, TypeError, "min_df must be an int"),
    ({"max_features": 0}, ValueError, "max_features must be a positive int"),
    ({"max_features": 2.5}, TypeError, "max_features must be a positive int"),
    ({"stop_words": "english"}, TypeError, "collection of words"),
    ({"stop_words": ["ok", 3]}, TypeError, "only str"),
    ({"token_pattern": r"(a)(b)"}, ValueError, "capturing groups"),
])
def test_bad_settings_are_named_at_fit(settings_, error, message):
    bag = BagOfWords(**settings_)  # as in scikit-learn, __init__ stores and fit checks
    with pytest.raises(error, match=message):
        bag.fit(["aa bb", "cc dd"])


def test_bag_of_words_is_a_scikit_learn_estimator():
    from sklearn.base import clone

    bag = BagOfWords(min_df=2, binary=True)
    copy = clone(bag)
    assert copy is not bag and copy.get_params() == bag.get_params()
    assert copy.set_params(min_df=1) is copy and copy.min_df == 1 and bag.min_df == 2
    assert repr(copy) == "BagOfWords(binary=True)"
    with pytest.raises(ValueError, match="Invalid parameter 'min_dff'"):
        copy.set_params(min_dff=3)


def test_a_grid_search_tunes_bag_of_words_in_a_pipeline():
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import Pipeline

    from nbcourse.naive_bayes import MultinomialNB

    texts = ["win cash now", "cheap cash prize", "win a prize now", "claim your cash",
             "lunch at noon", "see you at lunch", "meeting at noon today", "call me today"] * 3
    labels = ["spam"] * 4 + ["ham"] * 4
    labels = labels * 3
    pipeline = Pipeline([("bag", BagOfWords()), ("nb", MultinomialNB())])
    search = GridSearchCV(pipeline, {"bag__binary": [False, True], "bag__min_df": [1, 2]},
                          cv=3).fit(texts, labels)
    assert len(search.cv_results_["params"]) == 4
    assert search.best_estimator_.named_steps["bag"] is not pipeline.named_steps["bag"]
    assert search.predict(["cash prize now", "lunch today"]).tolist() == ["spam", "ham"]


def test_bad_documents_are_named():
    with pytest.raises(TypeError, match=r"wrap it in a list"):
        BagOfWords().fit("just one string")
    with pytest.raises(TypeError, match=r"documents\[1\] must be a str, got float"):
        BagOfWords().fit(["fine text", float("nan")])
    with pytest.raises(ValueError, match="documents is empty"):
        BagOfWords().fit([])
    with pytest.raises(ValueError, match="empty vocabulary"):
        BagOfWords().fit(["a b c", "!"])
    with pytest.raises(ValueError, match="other than stop words"):
        BagOfWords(stop_words={"the", "cat"}).fit(["the cat", "The CAT"])


def test_pruning_that_leaves_nothing_or_contradicts_itself():
    with pytest.raises(ValueError, match="no words remain"):
        BagOfWords(min_df=3).fit(["aa bb", "cc dd", "ee"])
    with pytest.raises(ValueError, match="no word can satisfy both"):
        BagOfWords(min_df=2, max_df=1).fit(["aa bb", "aa cc"])


def test_transform_before_fit():
    with pytest.raises(NotFittedError, match="not fitted"):
        BagOfWords().transform(["hello there"])
    with pytest.raises(NotFittedError, match="not fitted"):
        BagOfWords().get_feature_names_out()


def test_bag_of_words_raises_scikit_learns_not_fitted_error_too():
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError
    with pytest.raises(SklearnNotFittedError, match="BagOfWords instance is not fitted"):
        BagOfWords().transform(["hello there"])


def test_settings_changed_after_construction_are_checked_at_fit():
    bag = BagOfWords()
    bag.min_df = -3
    with pytest.raises(ValueError, match="min_df"):
        bag.fit(["aa bb"])


# -- zipf_table ---------------------------------------------------------------------------------

def test_zipf_table_ranks_words_by_total_count():
    bag = BagOfWords()
    X = bag.fit_transform(["the cat and the hat", "the bat and the cat"])

    table = zipf_table(X, bag.get_feature_names_out())

    assert list(table.columns) == ["word", "count", "rank"]
    assert table.values.tolist() == [
        ["the", 4, 1], ["and", 2, 2], ["cat", 2, 3], ["bat", 1, 4], ["hat", 1, 5]]


def test_zipf_table_counts_every_token_of_the_sms_corpus(sms_texts):
    bag = BagOfWords()
    table = zipf_table(bag.fit_transform(sms_texts), bag.get_feature_names_out())
    expected = Counter(token for text in sms_texts for token in tokenize(text))

    assert dict(zip(table["word"], table["count"])) == expected
    assert table["rank"].tolist() == list(range(1, len(expected) + 1))
    assert table["count"].is_monotonic_decreasing


def test_zipf_table_accepts_dense_counts_and_rejects_mismatches():
    table = zipf_table(np.array([[0, 3], [1, 1]]), ["rare", "common"])
    assert table["word"].tolist() == ["common", "rare"]
    assert isinstance(table, pd.DataFrame)

    with pytest.raises(ValueError, match="2 columns but feature_names has 3"):
        zipf_table(np.ones((2, 2)), ["a", "b", "c"])
    with pytest.raises(ValueError, match="non-negative"):
        zipf_table(sp.csr_matrix(np.array([[1, -1]])), ["a", "b"])
    with pytest.raises(ValueError, match="NaN"):
        zipf_table(np.array([[1.0, np.nan]]), ["a", "b"])
    with pytest.raises(ValueError, match="2-D"):
        zipf_table(np.array([1, 2]), ["a", "b"])


def test_repr_shows_only_the_changed_settings():
    assert repr(BagOfWords()) == "BagOfWords()"
    assert repr(BagOfWords(binary=True, max_df=1)) == "BagOfWords(binary=True, max_df=1)"


# ----- Zipf's law ------------------------------------------------------------------------

def test_zipf_slope_is_the_least_squares_slope_over_the_chosen_ranks(sms_split):
    X_train = sms_split[0]
    table = zipf_table(X_train, np.array([f"w{i}" for i in range(X_train.shape[1])], dtype=object))
    chosen = table[(table["rank"] >= 10) & (table["rank"] <= 1000)]
    reference = stats.linregress(np.log10(chosen["rank"]), np.log10(chosen["count"])).slope
    assert zipf_slope(table, ranks=(10, 1000)) == pytest.approx(reference)
    # what notebook 05 says: close to -1 in the middle, much flatter at the top
    assert -1.1 < zipf_slope(table, ranks=(10, 1000)) < -0.95
    assert zipf_slope(table, ranks=(1, 10)) > -0.7


def test_zipf_slope_of_an_exact_power_law_and_its_errors():
    ranks = np.arange(1, 51)
    table = pd.DataFrame({"word": [f"w{r}" for r in ranks], "count": 1000.0 / ranks ** 1.5, "rank": ranks})
    assert zipf_slope(table, ranks=(1, 50)) == pytest.approx(-1.5)
    assert zipf_slope(table, ranks=(40, 5000)) == pytest.approx(-1.5)  # past the end: ignored
    for bad in [(0, 10), (10, 10), (1.5, 10), (True, 10), (1, 2, 3)]:
        with pytest.raises(ValueError, match="two whole numbers"):
            zipf_slope(table, ranks=bad)
    with pytest.raises(ValueError, match="at least two"):
        zipf_slope(table, ranks=(50, 60))


# ----- tf-idf ------------------------------------------------------------------------------

TFIDF_SETTINGS = [{}, {"norm": "l1"}, {"norm": None}, {"use_idf": False},
                  {"smooth_idf": False}, {"sublinear_tf": True},
                  {"norm": None, "smooth_idf": False, "sublinear_tf": True}]


@pytest.mark.parametrize("settings", TFIDF_SETTINGS)
@pytest.mark.parametrize("sparse", [False, True])
def test_tfidf_equals_sklearn(sms_split, settings, sparse):
    X_train, X_test = sms_split[0], sms_split[2]
    if not sparse:  # 500 messages and the words they use (smooth_idf=False needs df > 0)
        used = np.flatnonzero(X_train[:500].getnnz(axis=0))
        X_train, X_test = X_train[:500][:, used].toarray(), X_test[:300][:, used].toarray()
    ours = TfidfTransformer(**settings).fit(X_train)
    theirs = SkTfidf(**settings).fit(X_train)
    if theirs.use_idf:
        np.testing.assert_allclose(ours.idf_, theirs.idf_, rtol=0, atol=1e-12)
    else:
        assert not hasattr(ours, "idf_")
    for X in (X_train, X_test):
        got, expected = ours.transform(X), theirs.transform(X)
        assert sp.isspmatrix_csr(got) and got.dtype == np.float64
        _assert_within(got, expected, 1e-12)
    _assert_within(TfidfTransformer(**settings).fit_transform(X_train),
                   SkTfidf(**settings).fit_transform(X_train), 1e-12)


def _assert_within(got, expected, atol):
    """``assert_allclose(got, expected, rtol=0, atol=atol)`` for two sparse matrices,
    without making them dense (the SMS training set is 35 million cells)."""
    assert got.shape == expected.shape
    difference = abs(sp.csr_matrix(got) - sp.csr_matrix(expected))
    assert difference.nnz == 0 or difference.max() <= atol, difference.max()


def test_tfidf_by_hand():
    # two documents, three words: "a" in both, "b" twice in the first, "c" in the second
    X = np.array([[1, 2, 0], [1, 0, 1]])
    tfidf = TfidfTransformer()
    out = tfidf.fit_transform(X).toarray()
    idf_a, idf_once = np.log(3 / 3) + 1, np.log(3 / 2) + 1
    np.testing.assert_allclose(tfidf.idf_, [idf_a, idf_once, idf_once])
    first = np.array([idf_a, 2 * idf_once, 0])
    np.testing.assert_allclose(out[0], first / np.linalg.norm(first))
    # a word in every document weighs less than one in half of them
    assert out[1, 0] < out[1, 2]
    # an empty document stays all zeros (nothing to normalise)
    np.testing.assert_array_equal(tfidf.transform([[0, 0, 0]]).toarray(), [[0, 0, 0]])


def test_tfidf_does_not_change_its_input(sms_split):
    X = sms_split[0][:50].astype(np.float64)
    before = X.copy()
    TfidfTransformer(sublinear_tf=True).fit_transform(X)
    assert (X != before).nnz == 0


def test_tfidf_is_an_estimator():
    from sklearn.base import clone

    tfidf = TfidfTransformer(norm="l1", sublinear_tf=True)
    assert repr(tfidf) == "TfidfTransformer(norm='l1', sublinear_tf=True)"
    assert clone(tfidf).get_params() == {"norm": "l1", "smooth_idf": True,
                                         "sublinear_tf": True, "use_idf": True}


def test_tfidf_bad_input_is_named():
    X = np.array([[1, 0], [0, 2]])
    with pytest.raises(ValueError, match="norm must be 'l2', 'l1' or None, got 'l3'"):
        TfidfTransformer(norm="l3").fit(X)
    with pytest.raises(TypeError, match="norm must be"):
        TfidfTransformer(norm=2).fit(X)
    with pytest.raises(TypeError, match="smooth_idf must be True or False"):
        TfidfTransformer(smooth_idf="yes").fit(X)
    with pytest.raises(ValueError, match="Negative values in data passed to TfidfTransformer"):
        TfidfTransformer().fit(-X)
    with pytest.raises(ValueError, match="2-D"):
        TfidfTransformer().fit([1, 2])
    with pytest.raises(NotFittedError):
        TfidfTransformer().transform(X)
    with pytest.raises(ValueError, match="X has 3 features, but TfidfTransformer is expecting 2"):
        TfidfTransformer().fit(X).transform(np.ones((1, 3)))
