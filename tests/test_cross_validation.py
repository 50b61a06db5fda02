"""Lesson 08's scores: macro-F1, the majority-class baseline and k-fold cross-validation,
each against scikit-learn where it computes the same thing."""
import numpy as np
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.metrics import f1_score
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from nbcourse import MultinomialNB, evaluation
from nbcourse.text import KeepSeenWords


@pytest.mark.parametrize("seed", range(6))
def test_macro_f1_equals_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    labels = np.array(["a", "b", "c", "d"])
    y_true = labels[rng.integers(0, 4, 60)]
    y_pred = np.where(rng.random(60) < 0.6, y_true, labels[rng.integers(0, 3, 60)])
    assert evaluation.macro_f1(y_true, y_pred) == pytest.approx(
        f1_score(y_true, y_pred, average="macro"), abs=1e-12)


def test_macro_f1_punishes_ignoring_a_rare_class_that_accuracy_forgives():
    y_true = np.array([0] * 95 + [1] * 5)
    always_zero = np.zeros(100, dtype=int)
    assert evaluation.accuracy(y_true, always_zero) == 0.95
    # class 0: F1 = 2*95/(95+100); class 1 never predicted: F1 = 0 (as scikit-learn)
    assert evaluation.macro_f1(y_true, always_zero) == pytest.approx(95 / 195)
    assert evaluation.macro_f1(y_true, always_zero) == pytest.approx(
        f1_score(y_true, always_zero, average="macro", zero_division=0))


def test_majority_baseline_is_scikit_learns_most_frequent_dummy():
    y_train = np.array(["ham"] * 3 + ["spam"] * 3 + ["eggs"])   # tie: the smallest label wins
    y_test = np.array(["ham", "spam", "ham", "eggs"])
    dummy = DummyClassifier(strategy="most_frequent").fit(np.zeros((7, 1)), y_train)
    assert evaluation.majority_class(y_train) == dummy.predict(np.zeros((1, 1)))[0] == "ham"
    assert evaluation.majority_accuracy(y_train, y_test) == dummy.score(np.zeros((4, 1)), y_test) == 0.5


@pytest.mark.parametrize("n, k", [(10, 3), (23, 5), (7, 7)])
def test_unstratified_folds_are_scikit_learns_kfold(n, k):
    y = np.arange(n) % 2
    ours = evaluation.kfold_indices(y, k, stratified=False)
    theirs = list(KFold(k).split(np.zeros((n, 1))))
    assert len(ours) == len(theirs) == k
    for (a_train, a_test), (b_train, b_test) in zip(ours, theirs):
        assert np.array_equal(a_train, b_train) and np.array_equal(a_test, b_test)


@pytest.mark.parametrize("seed", range(4))
def test_stratified_folds_are_scikit_learns_without_a_seed(seed):
    rng = np.random.default_rng(seed)
    y = rng.choice(["z", "a", "m"], size=97, p=[0.6, 0.3, 0.1])
    ours = evaluation.kfold_indices(y, 5)
    theirs = list(StratifiedKFold(5).split(np.zeros((97, 1)), y))
    for (a_train, a_test), (b_train, b_test) in zip(ours, theirs):
        assert np.array_equal(a_train, b_train) and np.array_equal(a_test, b_test)


def test_seeded_stratified_folds_keep_scikit_learns_class_counts_and_cover_every_row_once():
    y = np.array([0] * 50 + [1] * 13 + [2] * 7)
    ours = evaluation.kfold_indices(y, 5, seed=3)
    theirs = list(StratifiedKFold(5, shuffle=True, random_state=3).split(np.zeros((70, 1)), y))
    assert sorted(np.concatenate([test for _, test in ours]).tolist()) == list(range(70))
    for (train, test), (_, their_test) in zip(ours, theirs):
        assert np.intersect1d(train, test).size == 0 and len(train) + len(test) == 70
        assert np.array_equal(np.bincount(y[test], minlength=3), np.bincount(y[their_test], minlength=3))
    assert not np.array_equal(ours[0][1], evaluation.kfold_indices(y, 5, seed=4)[0][1])
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(ours, evaluation.kfold_indices(y, 5, seed=3)))


def test_cross_validate_scores_equal_scikit_learns_cross_val_score(sms_counts):
    X, y = sms_counts
    ours = evaluation.cross_validate(lambda: MultinomialNB(alpha=0.5), X, y, n_splits=5)
    folds = StratifiedKFold(5)
    for scoring, column in (("accuracy", "accuracy"), ("f1_macro", "macro_f1")):
        theirs = cross_val_score(SkMultinomialNB(alpha=0.5), X, y, cv=folds, scoring=scoring)
        assert np.allclose(ours[column].to_numpy(), theirs, rtol=0, atol=1e-12), column
    dummy = cross_val_score(DummyClassifier(strategy="most_frequent"), X, y, cv=folds)
    assert np.allclose(ours["majority"].to_numpy(), dummy, rtol=0, atol=1e-12)
    assert list(ours.index) == [1, 2, 3, 4, 5]


@pytest.fixture(scope="module")
def sms_counts():
    from nbcourse.datasets import load_sms_mini
    from nbcourse.text import BagOfWords

    sms = load_sms_mini()
    return BagOfWords().fit_transform(sms["text"].tolist()), sms["label"].to_numpy()


def test_mean_and_spread_uses_the_population_standard_deviation():
    scores = np.array([0.9, 0.92, 0.94])
    assert evaluation.mean_and_spread(scores) == f"0.920 ± {scores.std():.3f}" == "0.920 ± 0.016"
    with pytest.raises(ValueError, match="non-empty"):
        evaluation.mean_and_spread([])


@pytest.mark.parametrize("kwargs, error, message", [
    ({"n_splits": 1}, ValueError, "at least 2"),
    ({"n_splits": 11}, ValueError, "more than the 10 samples"),
    ({"n_splits": 2.0}, TypeError, "n_splits"),
    ({"seed": "0"}, TypeError, "seed"),
    ({"n_splits": 6}, ValueError, "every class"),
])
def test_kfold_errors_name_the_problem(kwargs, error, message):
    with pytest.raises(error, match=message):
        evaluation.kfold_indices(np.array([0] * 5 + [1] * 5), **kwargs)


def test_cross_validate_refuses_mismatched_rows_and_a_model_that_is_not_callable():
    with pytest.raises(ValueError, match="3 rows but y has 2"):
        evaluation.cross_validate(MultinomialNB, np.ones((3, 2)), [0, 1], n_splits=2)
    with pytest.raises(TypeError, match="callable"):
        evaluation.cross_validate(MultinomialNB(), np.ones((4, 2)), [0, 1, 0, 1], n_splits=2)


class CountedKeepSeenWords(KeepSeenWords):
    """KeepSeenWords that counts its fits, to see which steps a fold shares."""

    fits = 0

    def fit(self, X, y=None):
        CountedKeepSeenWords.fits += 1
        return super().fit(X, y)


def test_several_models_on_the_same_folds_share_their_first_steps_and_keep_their_scores(sms_counts):
    from nbcourse import ComplementNB
    from nbcourse.pipeline import make_pipeline
    from nbcourse.text import TfidfTransformer

    X, y = sms_counts
    makers = {
        "counts": lambda: make_pipeline(CountedKeepSeenWords(), MultinomialNB(alpha=0.5)),
        "tf-idf": lambda: make_pipeline(CountedKeepSeenWords(), TfidfTransformer(), MultinomialNB()),
        "tf-idf, complement": lambda: make_pipeline(CountedKeepSeenWords(), TfidfTransformer(),
                                                    ComplementNB()),
        "l1 tf-idf": lambda: make_pipeline(CountedKeepSeenWords(), TfidfTransformer(norm="l1"),
                                           MultinomialNB()),
        "no pipeline": lambda: MultinomialNB(alpha=2.0),
    }
    CountedKeepSeenWords.fits = 0
    together = evaluation.cross_validate_many(makers, X, y, n_splits=4, seed=1)
    assert CountedKeepSeenWords.fits == 4  # one vocabulary per fold, not one per model
    CountedKeepSeenWords.fits = 0
    for name, make in makers.items():  # a new pipeline per model and fold: the same scores
        alone = evaluation.cross_validate(make, X, y, n_splits=4, seed=1)
        assert together[name].equals(alone), name
    assert CountedKeepSeenWords.fits == 4 * 4


def test_a_step_with_settings_that_are_not_plain_values_is_never_shared(sms_counts):
    from nbcourse._estimator import BaseEstimator
    from nbcourse.pipeline import make_pipeline

    class Scale(BaseEstimator):
        def __init__(self, factors=None):
            self.factors = factors

        def fit(self, X, y=None):
            return self

        def transform(self, X):
            return X.multiply(np.asarray(self.factors)).tocsr()

    X, y = sms_counts
    ones, twos = np.ones(X.shape[1]), np.full(X.shape[1], 2.0)  # the same repr, cut short
    makers = {"ones": lambda: make_pipeline(Scale(ones), MultinomialNB(alpha=0.01)),
              "twos": lambda: make_pipeline(Scale(twos), MultinomialNB(alpha=0.01))}
    together = evaluation.cross_validate_many(makers, X, y, n_splits=3)
    for name, make in makers.items():
        assert together[name].equals(evaluation.cross_validate(make, X, y, n_splits=3)), name


def test_cross_validate_many_refuses_what_is_not_a_dict_of_callables():
    X, y = np.ones((4, 2)), [0, 1, 0, 1]
    with pytest.raises(TypeError, match="non-empty dict"):
        evaluation.cross_validate_many([MultinomialNB], X, y, n_splits=2)
    with pytest.raises(TypeError, match="non-empty dict"):
        evaluation.cross_validate_many({}, X, y, n_splits=2)
    with pytest.raises(TypeError, match="'nb' must be callable"):
        evaluation.cross_validate_many({"nb": MultinomialNB()}, X, y, n_splits=2)
