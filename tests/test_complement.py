"""ComplementNB against Rennie et al.'s formulas and against scikit-learn."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import naive_bayes as sk
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.feature_extraction.text import TfidfTransformer as SkTfidf
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

import nbcourse
from nbcourse.naive_bayes import ComplementNB, MultinomialNB, merge
from nbcourse.text import BagOfWords, TfidfTransformer

TOL = {"rtol": 0, "atol": 1e-8}


@pytest.fixture
def imbalanced_counts():
    rng = np.random.default_rng(1)
    X = rng.poisson(0.4, size=(400, 60))
    y = rng.choice(["big", "middle", "rare"], size=400, p=[0.75, 0.2, 0.05])
    return X, y


def test_exported_from_the_package():
    assert nbcourse.ComplementNB is ComplementNB is nbcourse.naive_bayes.ComplementNB


def test_weights_are_the_complement_counts_by_hand():
    # Manning, Raghavan and Schuetze's China/Japan example: the complement of China is
    # the one Japan document (Tokyo Japan Chinese), and of Japan the three China ones.
    X = np.array([[1, 2, 0, 0, 0, 0], [0, 2, 0, 0, 1, 0], [0, 1, 0, 1, 0, 0],
                  [0, 1, 1, 0, 0, 1]])
    model = ComplementNB(alpha=1).fit(X, ["China"] * 3 + ["Japan"])
    outside_china = np.array([0, 1, 1, 0, 0, 1])
    outside_japan = np.array([1, 5, 0, 1, 1, 0])
    expected = -np.log(np.array([(outside_china + 1) / (3 + 6), (outside_japan + 1) / (8 + 6)]))
    np.testing.assert_allclose(model.feature_log_prob_, expected, **TOL)
    np.testing.assert_array_equal(model.feature_all_, [1, 6, 1, 1, 1, 1])
    normed = ComplementNB(alpha=1, norm=True).fit(X, ["China"] * 3 + ["Japan"])
    np.testing.assert_allclose(normed.feature_log_prob_,
                               expected / expected.sum(axis=1, keepdims=True), **TOL)
    # The book's test document "Chinese Chinese Chinese Tokyo Japan": multinomial naive
    # Bayes says China (the book's answer, carried by the prior 3/4 and "Chinese"); the
    # complement of Japan (the China documents) never saw "Tokyo" or "Japan", explains
    # the document worst, and complement naive Bayes says Japan.
    query = [[0, 3, 1, 0, 0, 1]]
    assert MultinomialNB(alpha=1).fit(X, ["China"] * 3 + ["Japan"]).predict(query)[0] == "China"
    assert model.predict(query)[0] == "Japan"


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("kwargs", [{}, {"alpha": 0.1}, {"alpha": 2.5, "norm": True},
                                    {"fit_prior": False}, {"class_prior": [0.2, 0.3, 0.5]},
                                    {"alpha": 0.0, "force_alpha": False}])
def test_matches_sklearn(imbalanced_counts, sparse, kwargs):
    X, y = imbalanced_counts
    Xin = sp.csr_matrix(X) if sparse else X
    if kwargs.get("force_alpha") is False:  # both raise alpha to 1e-10, and both say so
        with pytest.warns(UserWarning, match="alpha too small"):
            ours = ComplementNB(**kwargs).fit(Xin, y)
        with pytest.warns(UserWarning, match="alpha too small"):
            theirs = sk.ComplementNB(**kwargs).fit(Xin, y)
    else:
        ours = ComplementNB(**kwargs).fit(Xin, y)
        theirs = sk.ComplementNB(**kwargs).fit(Xin, y)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_array_equal(ours.feature_count_, theirs.feature_count_)
    np.testing.assert_array_equal(ours.feature_all_, theirs.feature_all_)
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, **TOL)
    np.testing.assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, **TOL)
    np.testing.assert_allclose(ours.predict_log_proba(Xin), theirs.predict_log_proba(Xin), **TOL)
    np.testing.assert_allclose(ours.predict_proba(Xin), theirs.predict_proba(Xin), **TOL)
    np.testing.assert_array_equal(ours.predict(Xin), theirs.predict(Xin))


def test_prior_counts_only_with_a_single_class():
    X = np.array([[1, 0], [0, 2]])
    two = ComplementNB(class_prior=[0.99, 0.01]).fit(X, [0, 1])
    uniform = ComplementNB(fit_prior=False).fit(X, [0, 1])
    np.testing.assert_array_equal(two.predict_joint_log_proba(X),
                                  uniform.predict_joint_log_proba(X))
    with pytest.warns(UserWarning, match="only one class"):
        one = ComplementNB().fit(X, [7, 7])
    theirs = sk.ComplementNB().fit(X, [7, 7])
    np.testing.assert_allclose(one.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X))


@pytest.mark.parametrize("norm", [False, True])
def test_partial_fit_and_merge_equal_fit(imbalanced_counts, norm):
    X, y = imbalanced_counts
    whole = ComplementNB(norm=norm).fit(X, y)
    streamed = ComplementNB(norm=norm)
    for start in range(0, 400, 150):
        streamed.partial_fit(sp.csr_matrix(X[start:start + 150]), y[start:start + 150],
                             classes=np.unique(y))
    left = ComplementNB(norm=norm).fit(X[:100], y[:100])
    right = ComplementNB(norm=norm).fit(X[100:], y[100:])
    merged = merge(left, right)
    for model in (streamed, merged):
        np.testing.assert_array_equal(model.feature_count_, whole.feature_count_)
        np.testing.assert_array_equal(model.feature_all_, whole.feature_all_)
        np.testing.assert_allclose(model.feature_log_prob_, whole.feature_log_prob_, rtol=1e-12)
        np.testing.assert_array_equal(model.predict(X), whole.predict(X))


def test_norm_acts_at_the_next_fit(imbalanced_counts):
    X, y = imbalanced_counts
    model = ComplementNB().fit(X, y)
    before = model.feature_log_prob_.copy()
    model.set_params(norm=True)
    np.testing.assert_array_equal(model.feature_log_prob_, before)
    np.testing.assert_allclose(model.fit(X, y).feature_log_prob_,
                               sk.ComplementNB(norm=True).fit(X, y).feature_log_prob_, **TOL)


def test_alpha_zero_scores_documents_without_unseen_words():
    # word 0 only in class a, word 2 only in class b: with alpha = 0 their complement
    # probability is 0 and the weight infinite
    X = np.array([[2, 1, 0], [0, 1, 3]])
    model = ComplementNB(alpha=0).fit(X, ["a", "b"])
    assert np.isinf(model.feature_log_prob_).sum() == 2
    assert model.predict([[0, 4, 0]]).shape == (1,)
    with pytest.raises(ValueError, match="sample 1 has no finite score for class 'a'.*alpha > 0"):
        model.predict([[0, 1, 0], [1, 0, 0]])
    with pytest.raises(ValueError, match="alpha > 0"):
        ComplementNB(alpha=0, norm=True).fit(X, ["a", "b"]).predict([[0, 4, 0]])


def test_bad_input_is_named(imbalanced_counts):
    X, y = imbalanced_counts
    with pytest.raises(ValueError, match=r"Negative values in data passed to ComplementNB \(input X\)"):
        ComplementNB().fit(-X, y)
    with pytest.raises(TypeError, match="norm must be True or False, got 'l2'"):
        ComplementNB(norm="l2").fit(X, y)
    with pytest.raises(TypeError, match="alpha"):
        ComplementNB(alpha="one").fit(X, y)
    with pytest.raises(ValueError, match="class_prior"):
        ComplementNB(class_prior=[0.5, 0.5]).fit(X, y)
    model = ComplementNB().fit(X, y)
    with pytest.raises(ValueError, match="X has 59 features, but ComplementNB is expecting 60"):
        model.predict(X[:, 1:])
    with pytest.raises(ValueError, match="NaN"):
        model.predict(np.full((1, 60), np.nan))
    with pytest.raises(TypeError, match="same kind"):
        merge(model, MultinomialNB().fit(X, y))


def test_clone_and_repr():
    model = ComplementNB(alpha=0.5, norm=True)
    assert repr(model) == "ComplementNB(alpha=0.5, norm=True)"
    assert clone(model).get_params() == model.get_params()


def test_sms_pipeline_predicts_like_sklearn():
    # The text-classification recipe of scikit-learn's user guide, written with nbcourse:
    # counts, tf-idf, complement naive Bayes. Same split, same predictions.
    sms = nbcourse.load_sms_spam()
    train_text, test_text, train_y, test_y = train_test_split(
        sms["text"].tolist(), sms["label"].to_numpy(), test_size=0.3, random_state=0,
        stratify=sms["label"])
    ours = make_pipeline(BagOfWords(), TfidfTransformer(), ComplementNB())
    theirs = make_pipeline(CountVectorizer(), SkTfidf(), sk.ComplementNB())
    ours.fit(train_text, train_y)
    theirs.fit(train_text, train_y)
    np.testing.assert_allclose(ours.predict_proba(test_text), theirs.predict_proba(test_text),
                               rtol=0, atol=1e-8)
    predicted = ours.predict(test_text)
    np.testing.assert_array_equal(predicted, theirs.predict(test_text))
    # not a trivial pipeline: it finds spam, and gets most messages right
    assert (predicted == "spam").sum() > 100
    assert (predicted == test_y).mean() > 0.9


def test_complement_weights_are_lidstone_smoothing_of_the_counts_outside_each_class():
    """ComplementNB does not re-derive Lidstone's formula: its weights are
    -smoothing.lidstone_log of the counts outside each class (per-feature alpha too)."""
    import numpy as np

    from nbcourse.naive_bayes import ComplementNB
    from nbcourse.smoothing import lidstone_log

    rng = np.random.default_rng(3)
    X, y = rng.integers(0, 5, (30, 6)), rng.integers(0, 3, 30)
    for alpha in (0.5, np.linspace(0.1, 2.0, 6)):
        model = ComplementNB(alpha=alpha).fit(X, y)
        outside = model.feature_all_ - model.feature_count_
        np.testing.assert_allclose(model.feature_log_prob_, -lidstone_log(outside, alpha),
                                   rtol=1e-13)
