"""nbcourse's estimators inside scikit-learn's tools, on the real SMS Spam Collection.

Every score is compared with scikit-learn's own estimator on the same folds.
"""
import numpy as np
import pytest
from sklearn import naive_bayes as sk
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score, cross_validate
from sklearn.pipeline import Pipeline, make_pipeline

from nbcourse._checks import NotFittedError
from nbcourse.datasets import load_sms_spam
from nbcourse.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB

FOLDS = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)


@pytest.fixture(scope="module")
def sms():
    frame = load_sms_spam()
    return frame["text"].to_numpy(), frame["label"].to_numpy()


@pytest.fixture(scope="module")
def sms_counts(sms):
    texts, labels = sms
    return CountVectorizer().fit_transform(texts), labels


def test_clone_keeps_parameters_and_forgets_the_fit(sms_counts):
    X, y = sms_counts
    model = MultinomialNB(alpha=0.25, fit_prior=False).fit(X, y)
    copy = clone(model)
    assert copy.get_params() == model.get_params() and repr(copy) == \
        "MultinomialNB(alpha=0.25, fit_prior=False)"
    with pytest.raises(NotFittedError):
        copy.predict(X)
    for cls in (BernoulliNB, CategoricalNB, GaussianNB):
        assert clone(cls()).get_params() == cls().get_params()


@pytest.mark.parametrize(("ours", "theirs"), [(MultinomialNB(alpha=0.5), sk.MultinomialNB(alpha=0.5)),
                                              (BernoulliNB(alpha=0.5), sk.BernoulliNB(alpha=0.5))])
def test_cross_val_score_equals_sklearn_fold_by_fold(sms_counts, ours, theirs):
    X, y = sms_counts
    mine = cross_val_score(ours, X, y, cv=FOLDS)
    reference = cross_val_score(theirs, X, y, cv=FOLDS)
    np.testing.assert_allclose(mine, reference, rtol=0, atol=1e-12)
    assert mine.mean() > 0.95
    log_losses = [cross_validate(m, X, y, cv=FOLDS, scoring="neg_log_loss")["test_score"]
                  for m in (ours, theirs)]
    np.testing.assert_allclose(*log_losses, rtol=0, atol=1e-12)


def test_grid_search_over_alpha_chooses_as_sklearn_does(sms_counts):
    X, y = sms_counts
    grid = {"alpha": [0.01, 0.1, 0.5, 1.0, 2.0]}
    mine = GridSearchCV(MultinomialNB(), grid, cv=FOLDS).fit(X, y)
    reference = GridSearchCV(sk.MultinomialNB(), grid, cv=FOLDS).fit(X, y)
    assert mine.best_params_ == reference.best_params_
    np.testing.assert_allclose(mine.cv_results_["mean_test_score"],
                               reference.cv_results_["mean_test_score"], rtol=0, atol=1e-12)
    assert isinstance(mine.best_estimator_, MultinomialNB)


@pytest.mark.parametrize("vectorizer", [CountVectorizer, TfidfVectorizer])
def test_pipeline_from_raw_text_equals_sklearn(sms, vectorizer):
    texts, labels = sms
    mine = Pipeline([("words", vectorizer()), ("nb", MultinomialNB())])
    reference = Pipeline([("words", vectorizer()), ("nb", sk.MultinomialNB())])
    np.testing.assert_allclose(cross_val_score(mine, texts, labels, cv=FOLDS),
                               cross_val_score(reference, texts, labels, cv=FOLDS),
                               rtol=0, atol=1e-12)
    train, test = next(FOLDS.split(texts, labels))
    mine.fit(texts[train], labels[train])
    reference.fit(texts[train], labels[train])
    np.testing.assert_array_equal(mine.predict(texts[test]), reference.predict(texts[test]))
    np.testing.assert_allclose(mine.predict_proba(texts[test]),
                               reference.predict_proba(texts[test]), rtol=1e-9, atol=1e-12)


def test_calibrated_classifier_wraps_nbcourse(sms_counts):
    X, y = sms_counts
    mine = CalibratedClassifierCV(MultinomialNB(), cv=3).fit(X, y)
    reference = CalibratedClassifierCV(sk.MultinomialNB(), cv=3).fit(X, y)
    np.testing.assert_allclose(mine.predict_proba(X[:50]), reference.predict_proba(X[:50]),
                               rtol=1e-9, atol=1e-12)


def test_sample_weight_none_and_ones_give_the_same_model(sms_counts):
    X, y = sms_counts
    plain = MultinomialNB().fit(X, y)
    weighted = MultinomialNB().fit(X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(plain.feature_log_prob_, weighted.feature_log_prob_)
    doubled = MultinomialNB().fit(X, y, sample_weight=np.full(len(y), 2.0))
    np.testing.assert_array_equal(doubled.feature_count_, 2 * plain.feature_count_)
    theirs = sk.MultinomialNB().fit(X, y, sample_weight=np.arange(len(y)) % 3)
    ours = MultinomialNB().fit(X, y, sample_weight=np.arange(len(y)) % 3)
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)


def test_make_pipeline_with_every_estimator_predicts(sms):
    texts, labels = sms
    texts, labels = texts[:400], labels[:400]
    for model in (MultinomialNB(), BernoulliNB()):
        pipe = make_pipeline(CountVectorizer(), model).fit(texts, labels)
        assert pipe.score(texts, labels) > 0.9
