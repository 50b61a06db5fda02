"""Steps fitted on the training rows only: `text.KeepSeenWords` and `pipeline.make_pipeline`.

KeepSeenWords picks a subset's vocabulary out of counts made once for a whole corpus; it must
give exactly what a vectoriser fitted on the subset alone gives (ours and scikit-learn's
CountVectorizer). The pipeline must predict what scikit-learn's Pipeline predicts with the
same steps, and cross-validating it must equal scikit-learn's cross-validation with the
vectoriser inside the folds.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.feature_extraction.text import TfidfTransformer as SkTfidf
from sklearn.model_selection import cross_val_score
from sklearn.naive_bayes import ComplementNB as SkComplementNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
from sklearn.pipeline import make_pipeline as sk_make_pipeline

from nbcourse import ComplementNB, MultinomialNB, datasets
from nbcourse._checks import NotFittedError
from nbcourse.evaluation import cross_validate, kfold_indices, stratified_split
from nbcourse.pipeline import Pipeline, make_pipeline
from nbcourse.text import BagOfWords, KeepSeenWords, TfidfTransformer


@pytest.fixture(scope="module")
def sms(shared_data):
    frame = datasets.load_sms_spam(shared_data / "sms_spam" / "SMSSpamCollection", download=False)
    return frame["text"].tolist(), frame["label"].to_numpy()


@pytest.fixture(scope="module")
def halves(sms):
    texts, y = sms
    first, second = stratified_split(y, sizes=(0.5, 0.5), seed=0)
    return [texts[i] for i in first], [texts[i] for i in second], y[first], y[second]


# ----- KeepSeenWords ------------------------------------------------------------------------

def test_keep_seen_words_equals_a_vectoriser_fitted_on_the_subset_alone(sms, halves):
    texts, _ = sms
    first, second, _, _ = halves
    everything = BagOfWords().fit(texts)                  # the vocabulary of all the messages
    kept = KeepSeenWords().fit(everything.transform(first))
    ours = kept.transform(everything.transform(second))
    alone = BagOfWords().fit(first)
    theirs = CountVectorizer().fit(first)
    assert ours.shape[1] == len(alone.vocabulary_) < len(everything.vocabulary_)
    np.testing.assert_array_equal(everything.get_feature_names_out()[kept.columns_],
                                  theirs.get_feature_names_out())
    assert (ours != theirs.transform(second)).nnz == 0
    assert (ours != alone.transform(second)).nnz == 0
    assert ours.has_canonical_format and ours.dtype == np.int64


def test_keep_seen_words_by_hand_dense_and_sparse():
    counts = np.array([[0, 2, 0, 1], [0, 0, 0, 3], [5, 1, 7, 0]])
    kept = KeepSeenWords().fit(counts[:2])                # columns 1 and 3 occur in the first rows
    np.testing.assert_array_equal(kept.columns_, [1, 3])
    np.testing.assert_array_equal(kept.transform(counts).toarray(), [[2, 1], [0, 3], [1, 0]])
    np.testing.assert_array_equal(kept.transform(sp.csr_matrix(counts)).toarray(),
                                  [[2, 1], [0, 3], [1, 0]])
    # an explicitly stored zero is not an occurrence
    stored_zero = sp.csr_matrix((np.array([0, 4]), np.array([0, 2]), np.array([0, 2])), shape=(1, 4))
    np.testing.assert_array_equal(KeepSeenWords().fit(stored_zero).columns_, [2])


def test_keep_seen_words_bad_input_is_named():
    with pytest.raises(NotFittedError):
        KeepSeenWords().transform(np.ones((2, 3)))
    kept = KeepSeenWords().fit(np.ones((2, 3)))
    with pytest.raises(ValueError, match="3"):
        kept.transform(sp.csr_matrix(np.ones((2, 4))))
    with pytest.raises(ValueError, match="counts"):
        KeepSeenWords().fit(sp.csr_matrix(np.array([[1.0, -2.0]])))
    with pytest.raises(ValueError, match="no rows"):
        KeepSeenWords().fit(sp.csr_matrix((0, 3)))
    with pytest.raises(TypeError, match="numbers"):
        KeepSeenWords().fit([["a", "b"]])


# ----- the pipeline -------------------------------------------------------------------------

def test_pipeline_predicts_what_scikit_learns_pipeline_predicts(halves):
    first, second, y_first, _ = halves
    for ours_model, theirs_model in ((MultinomialNB(alpha=0.01), SkMultinomialNB(alpha=0.01)),
                                     (ComplementNB(), SkComplementNB())):
        ours = make_pipeline(BagOfWords(), TfidfTransformer(), ours_model).fit(first, y_first)
        theirs = sk_make_pipeline(CountVectorizer(), SkTfidf(), theirs_model).fit(first, y_first)
        np.testing.assert_array_equal(ours.predict(second), theirs.predict(second))
        np.testing.assert_allclose(ours.predict_proba(second), theirs.predict_proba(second), atol=1e-8)
        np.testing.assert_allclose(ours.predict_log_proba(second), theirs.predict_log_proba(second),
                                   atol=1e-8)
        assert list(ours.classes_) == list(theirs.classes_)
        assert ours.score(second, halves[3]) == pytest.approx(theirs.score(second, halves[3]))


def test_cross_validating_a_pipeline_equals_scikit_learn_with_the_vectoriser_in_the_folds(sms):
    texts, y = sms
    bag = BagOfWords()
    counts = bag.fit_transform(texts)                     # counted once, for every fold
    ours = cross_validate(lambda: make_pipeline(KeepSeenWords(), TfidfTransformer(), MultinomialNB(alpha=0.1)),
                          counts, y, n_splits=5, seed=0)["accuracy"].to_numpy()
    folds = kfold_indices(y, 5, seed=0)
    theirs = cross_val_score(sk_make_pipeline(CountVectorizer(), SkTfidf(), SkMultinomialNB(alpha=0.1)),
                             np.array(texts, dtype=object), y, cv=folds)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)


def test_make_pipeline_names_steps_as_scikit_learn_does():
    pipe = make_pipeline(KeepSeenWords(), TfidfTransformer(), TfidfTransformer(), MultinomialNB())
    names = [name for name, _ in pipe.steps]
    theirs = [name for name, _ in sk_make_pipeline(SkTfidf(), SkTfidf(), SkMultinomialNB()).steps]
    assert names == ["keepseenwords", "tfidftransformer-1", "tfidftransformer-2", "multinomialnb"]
    assert theirs == ["tfidftransformer-1", "tfidftransformer-2", "multinomialnb"]
    assert isinstance(pipe.named_steps["multinomialnb"], MultinomialNB)


def test_pipeline_transform_chains_every_step():
    counts = np.array([[1, 0, 2], [0, 0, 1], [3, 0, 0]])
    pipe = make_pipeline(KeepSeenWords(), TfidfTransformer()).fit(counts)
    expected = TfidfTransformer().fit(counts[:, [0, 2]]).transform(counts[:, [0, 2]])
    np.testing.assert_allclose(pipe.transform(counts).toarray(), expected.toarray())


def test_pipeline_bad_steps_and_use_before_fit_are_named():
    with pytest.raises(ValueError, match="at least one step"):
        make_pipeline()
    with pytest.raises(TypeError, match="non-empty list"):
        Pipeline([]).fit(np.ones((2, 2)), [0, 1])
    with pytest.raises(TypeError, match=r"\(name, estimator\) pair"):
        Pipeline([MultinomialNB()]).fit(np.ones((2, 2)), [0, 1])
    with pytest.raises(TypeError, match="must have transform"):
        Pipeline([("nb", MultinomialNB()), ("nb2", MultinomialNB())]).fit(np.ones((2, 2)), [0, 1])
    with pytest.raises(ValueError, match="unique"):
        Pipeline([("a", TfidfTransformer()), ("a", MultinomialNB())]).fit(np.ones((2, 2)), [0, 1])
    with pytest.raises(NotFittedError):
        make_pipeline(KeepSeenWords(), MultinomialNB()).predict(np.ones((2, 2)))
    fitted = make_pipeline(KeepSeenWords(), MultinomialNB()).fit(np.ones((2, 2)), [0, 1])
    with pytest.raises(AttributeError, match="no transform"):
        fitted.transform(np.ones((2, 2)))
