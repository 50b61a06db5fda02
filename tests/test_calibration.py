"""Platt scaling and isotonic calibration against scikit-learn's CalibratedClassifierCV
on a frozen (already fitted) estimator, and by hand."""
import numpy as np
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.frozen import FrozenEstimator
from sklearn.isotonic import IsotonicRegression

from nbcourse._checks import NotFittedError
from nbcourse import BernoulliNB, GaussianNB, LogisticRegression
from nbcourse.calibration import (CalibratedClassifier, IsotonicCalibration, PlattScaling,
                                  expected_calibration_error, pool_adjacent_violators)

TOL = {"rtol": 0, "atol": 1e-7}


def split(n_classes, seed=0):
    X, y = make_classification(600, 8, n_informative=4, n_classes=n_classes, random_state=seed)
    names = np.array(["ant", "bee", "cat"])[y]  # string labels, as the lessons use
    return X[:300], names[:300], X[300:], names[300:]


def sklearn_proba(model, method, X_val, y_val, X):
    frozen = CalibratedClassifierCV(FrozenEstimator(model), method=method)
    return frozen.fit(X_val, y_val).predict_proba(X)


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
@pytest.mark.parametrize("make_model", [GaussianNB, LogisticRegression])
def test_two_classes_match_scikit_learn(method, make_model):
    X_train, y_train, X_val, y_val = split(2)
    model = make_model().fit(X_train, y_train)
    ours = CalibratedClassifier(model, method=method).fit(X_val, y_val)
    X = np.vstack([X_train, X_val])
    np.testing.assert_allclose(ours.predict_proba(X), sklearn_proba(model, method, X_val, y_val, X), **TOL)
    assert list(ours.classes_) == ["ant", "bee"]


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
def test_three_classes_one_vs_rest_normalised_like_scikit_learn(method):
    X_train, y_train, X_val, y_val = split(3, seed=4)
    model = GaussianNB().fit(X_train, y_train)
    ours = CalibratedClassifier(model, method=method).fit(X_val, y_val)
    X = np.vstack([X_train, X_val])
    proba = ours.predict_proba(X)
    np.testing.assert_allclose(proba, sklearn_proba(model, method, X_val, y_val, X), **TOL)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert len(ours.calibrators_) == 3


def test_the_model_is_not_refitted():
    X_train, y_train, X_val, y_val = split(2)
    model = GaussianNB().fit(X_train, y_train)
    before = model.theta_.copy()
    CalibratedClassifier(model, method="isotonic").fit(X_val, y_val)
    np.testing.assert_array_equal(model.theta_, before)


def test_platt_recovers_a_known_sigmoid():
    # Many samples drawn from P(y=1 | s) = sigmoid(2 s - 1): the fit finds 2 and -1.
    rng = np.random.default_rng(0)
    s = rng.normal(size=200_000)
    y = (rng.random(s.shape) < 1 / (1 + np.exp(-(2 * s - 1)))).astype(int)
    platt = PlattScaling().fit(s, y)
    assert platt.slope_ == pytest.approx(2, abs=0.03)
    assert platt.intercept_ == pytest.approx(-1, abs=0.03)


def test_platt_on_separable_scores_stays_finite():
    # No mistakes at all: Platt's softened targets keep the slope finite.
    platt = PlattScaling().fit([-2.0, -1.0, 1.0, 2.0], [0, 0, 1, 1])
    assert np.isfinite(platt.slope_) and platt.slope_ > 0
    assert 0.5 < platt.predict([1.0])[0] < 1


def test_pool_adjacent_violators_by_hand():
    # 1, 3, 2 -> the violating pair (3, 2) pools to 2.5; then 4 is fine.
    np.testing.assert_allclose(pool_adjacent_violators([1, 3, 2, 4]), [1, 2.5, 2.5, 4])
    # A pooled block can pool again with the one before it: (3, 1) -> 2, then (4, 2, 2) -> 8/3.
    np.testing.assert_allclose(pool_adjacent_violators([4, 3, 1]), [8 / 3] * 3)
    # Weights: (1 with weight 3, 0 with weight 1) -> 3/4.
    np.testing.assert_allclose(pool_adjacent_violators([1, 0], [3, 1]), [0.75, 0.75])


def test_isotonic_matches_scikit_learn_with_ties_and_clipping():
    rng = np.random.default_rng(3)
    s = np.round(rng.random(400), 1)  # many tied scores
    y = (rng.random(400) < s).astype(int)
    ours = IsotonicCalibration().fit(s, y)
    theirs = IsotonicRegression(out_of_bounds="clip").fit(s, y)
    grid = np.linspace(-0.5, 1.5, 201)
    np.testing.assert_allclose(ours.predict(grid), theirs.predict(grid), **TOL)
    assert np.all(np.diff(ours.values_) >= 0)


def test_isotonic_with_one_distinct_score_is_constant():
    iso = IsotonicCalibration().fit([0.3, 0.3, 0.3, 0.3], [1, 0, 0, 0])
    np.testing.assert_allclose(iso.predict([0.0, 0.3, 1.0]), [0.25] * 3)


def test_calibration_lowers_log_loss_of_an_overconfident_model():
    # Gaussian NB on redundant features is over-confident; calibration on validation
    # data lowers its log-loss on a separate test part.
    X, y = make_classification(3000, 20, n_informative=3, n_redundant=10, random_state=2)
    model = GaussianNB().fit(X[:1000], y[:1000])
    calibrated = CalibratedClassifier(model, method="isotonic").fit(X[1000:2000], y[1000:2000])
    X_test, y_test = X[2000:], y[2000:]

    def log_loss(p):
        return -np.mean(np.log(np.clip(p[np.arange(len(y_test)), y_test], 1e-15, 1)))

    assert log_loss(calibrated.predict_proba(X_test)) < log_loss(model.predict_proba(X_test))
    before = expected_calibration_error(y_test, model.predict_proba(X_test)[:, 1], 1)
    after = expected_calibration_error(y_test, calibrated.predict_proba(X_test)[:, 1], 1)
    assert after < before


def test_expected_calibration_error_by_hand():
    # Bin [0.1, 0.2): two predictions of 0.1, one positive -> |0.5 - 0.1| = 0.4, weight 1/2.
    # Bin [0.9, 1.0]: two predictions of 0.9, both positive -> |1 - 0.9| = 0.1, weight 1/2.
    ece = expected_calibration_error([0, 1, 1, 1], [0.1, 0.1, 0.9, 0.9], positive=1)
    assert ece == pytest.approx(0.25)
    assert expected_calibration_error([0, 1], [0.0, 1.0], positive=1) == 0


def test_predict_agrees_with_the_calibrated_probabilities():
    X_train, y_train, X_val, y_val = split(3, seed=1)
    model = BernoulliNB().fit(X_train > 0, y_train)
    calibrated = CalibratedClassifier(model, method="sigmoid").fit(X_val > 0, y_val)
    proba = calibrated.predict_proba(X_val > 0)
    np.testing.assert_array_equal(calibrated.predict(X_val > 0), calibrated.classes_[proba.argmax(axis=1)])
    assert 0 <= calibrated.score(X_val > 0, y_val) <= 1


@pytest.fixture
def fitted():
    X_train, y_train, X_val, y_val = split(2)
    return GaussianNB().fit(X_train, y_train), X_val, y_val


def test_unknown_method_is_refused(fitted):
    model, X_val, y_val = fitted
    with pytest.raises(ValueError, match="method must be one of"):
        CalibratedClassifier(model, method="platt").fit(X_val, y_val)


def test_a_method_of_the_wrong_type_is_a_type_error(fitted):
    model, X_val, y_val = fitted
    with pytest.raises(TypeError, match="method must be one of .* got int 1"):
        CalibratedClassifier(model, method=1).fit(X_val, y_val)


def test_method_is_keyword_only_as_in_scikit_learn(fitted):
    model, _, _ = fitted
    with pytest.raises(TypeError, match="positional"):
        CalibratedClassifier(model, "isotonic")


def test_unfitted_or_missing_estimator_is_refused(fitted):
    _, X_val, y_val = fitted
    with pytest.raises(ValueError, match="not fitted"):
        CalibratedClassifier(GaussianNB()).fit(X_val, y_val)
    with pytest.raises(TypeError, match="fitted classifier"):
        CalibratedClassifier().fit(X_val, y_val)
    with pytest.raises(TypeError, match="predict_proba or decision_function"):
        CalibratedClassifier(object()).fit(X_val, y_val)


def test_labels_the_model_never_saw_are_refused(fitted):
    model, X_val, y_val = fitted
    with pytest.raises(ValueError, match=r"\['dog'\] that the estimator never saw"):
        CalibratedClassifier(model).fit(X_val, np.where(y_val == "ant", "dog", y_val))


def test_wrong_number_of_labels_is_refused(fitted):
    model, X_val, y_val = fitted
    with pytest.raises(ValueError, match="labels but X has"):
        CalibratedClassifier(model).fit(X_val, y_val[:-1])


def test_predict_before_fit_is_refused(fitted):
    model, X_val, _ = fitted
    with pytest.raises(Exception, match="not fitted yet"):
        CalibratedClassifier(model).predict_proba(X_val)


def test_bad_scores_and_targets_are_refused():
    with pytest.raises(ValueError, match="contains NaN$"):
        PlattScaling().fit([0.1, np.nan], [0, 1])
    with pytest.raises(ValueError, match="only 0 and 1"):
        IsotonicCalibration().fit([0.1, 0.2], [0, 2])
    with pytest.raises(ValueError, match="empty"):
        IsotonicCalibration().fit([], [])
    with pytest.raises(TypeError, match="must be numbers"):
        PlattScaling().fit(["a", "b"], [0, 1])
    with pytest.raises(ValueError, match="weights must be positive"):
        pool_adjacent_violators([1, 2], [1, 0])


def test_exercise_06_flags_an_ece_answer_that_calls_the_library():
    # The library now computes the ECE that exercise 06 asks students to write with numpy.
    from nbcourse.grading import forbidden, specs

    question = next(q for q in specs.load("06_gaussian").questions if q.name == "calibration_error")
    assert "expected_calibration_error" in question.forbidden
    answer = ("from nbcourse.calibration import expected_calibration_error\n"
              "def calibration_error(is_positive, p, n_bins):\n"
              "    return expected_calibration_error(is_positive, p, True, n_bins)\n")
    assert forbidden.find([answer], "calibration_error", question.forbidden) == ["expected_calibration_error"]


@pytest.mark.parametrize("unfitted, call", [
    (PlattScaling(), lambda m: m.predict([0.5])),
    (IsotonicCalibration(), lambda m: m.predict([0.5])),
    (CalibratedClassifier(), lambda m: m.predict_proba([[1.0]])),
])
def test_every_calibration_map_says_it_is_not_fitted(unfitted, call):
    """The maps use the library's one not-fitted check: the same error class and words
    as every estimator."""
    with pytest.raises(NotFittedError, match=f"This {type(unfitted).__name__} instance is not "
                                             "fitted yet"):
        call(unfitted)


def test_expected_calibration_error_reads_the_bins_of_reliability_table(monkeypatch):
    """The bins and the n_bins check are `evaluation.reliability_table`'s, not repeated."""
    import nbcourse.calibration as calibration
    import pandas as pd

    with pytest.raises(TypeError, match="n_bins"):
        expected_calibration_error([0, 1], [0.5, 0.5], 1, n_bins="7")
    asked = []

    def table(y_true, proba, positive, n_bins):
        asked.append(n_bins)
        return pd.DataFrame({"count": [1, 3], "observed": [0.0, 1.0],
                             "mean_predicted": [0.5, 0.5]})

    monkeypatch.setattr(calibration, "reliability_table", table)
    assert expected_calibration_error([0, 1], [0.5, 0.5], 1, n_bins=7) == pytest.approx(0.5)
    assert asked == [7]
