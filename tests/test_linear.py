"""Linear scores and from-scratch logistic regression, against scikit-learn."""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn import linear_model
from sklearn.datasets import load_breast_cancer
from sklearn.naive_bayes import MultinomialNB
from sklearn.preprocessing import StandardScaler

from nbcourse.linear import (
    ConvergenceWarning,
    LogisticRegression,
    NotFittedError,
    decision_function,
    top_weights,
)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="module")
def sparse_counts():
    rng = np.random.default_rng(5)
    X = sp.random(300, 400, density=0.03, format="csr", random_state=5, data_rvs=lambda n: rng.integers(1, 4, n))
    true_w = rng.normal(size=400)
    y = np.where(X @ true_w + rng.normal(size=300) > 0, "spam", "ham")
    return X, y


def objective_gradient(model, X, y01):
    """Gradient of 0.5 |w|^2 + C sum log-loss, computed independently of the module."""
    z = X @ model.coef_[0] + model.intercept_[0]
    residual = model.C * (1 / (1 + np.exp(-z)) - y01)
    return np.concatenate([model.coef_[0] + X.T @ residual, [residual.sum()]])


# ----- logistic regression ------------------------------------------------------------------


@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
def test_matches_sklearn_lbfgs_on_dense_data(cancer, C):
    X, y = cancer
    ours = LogisticRegression(C=C).fit(X, y)
    reference = linear_model.LogisticRegression(C=C, solver="lbfgs", tol=1e-12, max_iter=100_000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, reference.coef_, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, reference.intercept_, atol=1e-4)
    np.testing.assert_allclose(ours.predict_proba(X), reference.predict_proba(X), atol=1e-5)
    np.testing.assert_array_equal(ours.predict(X), reference.predict(X))
    np.testing.assert_allclose(ours.decision_function(X), reference.decision_function(X), atol=1e-3)


def test_reaches_the_optimum_to_high_precision(cancer):
    X, y = cancer
    model = LogisticRegression(C=5.0, tol=1e-10).fit(X, y)
    assert np.abs(objective_gradient(model, X, y)).max() <= 1e-10
    assert 1 <= model.n_iter_[0] <= 50


def test_attributes_have_sklearn_shapes(cancer):
    X, y = cancer
    model = LogisticRegression().fit(X, y)
    assert model.coef_.shape == (1, X.shape[1])
    assert model.intercept_.shape == (1,)
    assert model.n_iter_.shape == (1,)
    np.testing.assert_array_equal(model.classes_, [0, 1])
    assert model.n_features_in_ == X.shape[1]
    assert model.predict_proba(X).shape == (X.shape[0], 2)
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    np.testing.assert_allclose(np.exp(model.predict_log_proba(X)), model.predict_proba(X), rtol=1e-12)


def test_sparse_and_dense_agree_and_match_sklearn(sparse_counts):
    X, y = sparse_counts
    sparse_fit = LogisticRegression(C=0.5).fit(X, y)
    dense_fit = LogisticRegression(C=0.5).fit(X.toarray(), y)
    np.testing.assert_allclose(sparse_fit.coef_, dense_fit.coef_, atol=1e-9)
    reference = linear_model.LogisticRegression(C=0.5, tol=1e-12, max_iter=100_000).fit(X, y)
    np.testing.assert_allclose(sparse_fit.coef_, reference.coef_, atol=1e-4)
    np.testing.assert_array_equal(sparse_fit.classes_, ["ham", "spam"])
    np.testing.assert_array_equal(sparse_fit.predict(X), reference.predict(X))
    assert sparse_fit.predict(X[:3]).dtype.kind == "U"


def test_intercept_is_not_penalised():
    # a feature that is always 0 carries no information, so the fit is the intercept alone:
    # the log-odds of the labels, log(9/1), whatever C is (a penalised intercept would shrink)
    X = np.zeros((10, 1))
    y = [1] * 9 + [0]
    for C in (1e-3, 1.0):
        model = LogisticRegression(C=C, tol=1e-12).fit(X, y)
        assert model.intercept_[0] == pytest.approx(np.log(9), abs=1e-9)
        assert model.coef_[0, 0] == 0.0


def test_convergence_warning_when_stopped_early(cancer):
    X, y = cancer
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model = LogisticRegression(C=100.0, max_iter=1).fit(X, y)
    assert model.n_iter_[0] == 1


def test_no_warning_on_normal_fit(cancer):
    X, y = cancer
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LogisticRegression(C=1.0).fit(X, y)


# ----- the linear score ---------------------------------------------------------------------


def test_decision_function_reproduces_multinomialnb_log_odds(sparse_counts):
    X, y = sparse_counts
    nb = MultinomialNB(alpha=1.0).fit(X, y)
    w0 = nb.class_log_prior_[1] - nb.class_log_prior_[0]
    w = nb.feature_log_prob_[1] - nb.feature_log_prob_[0]
    joint = nb.predict_joint_log_proba(X)
    scores = decision_function(w0, w, X)
    np.testing.assert_allclose(scores, joint[:, 1] - joint[:, 0], rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(nb.classes_[(scores > 0).astype(int)], nb.predict(X))
    np.testing.assert_allclose(decision_function(w0, w, X.toarray()), scores)


def test_decision_function_accepts_fitted_attributes(cancer):
    X, y = cancer
    model = LogisticRegression().fit(X, y)
    np.testing.assert_allclose(decision_function(model.intercept_, model.coef_, X), model.decision_function(X))
    assert decision_function(1.0, [2.0, -1.0], [[1.0, 1.0], [0.0, 3.0]]).tolist() == [2.0, -2.0]


# ----- most telling words -------------------------------------------------------------------


def test_top_weights_orders_both_sides():
    w = np.array([0.5, -2.0, 3.0, 0.0, -0.1, 1.0])
    names = ["free", "meeting", "prize", "the", "ok", "call"]
    table = top_weights(w, names, k=2)
    assert isinstance(table, pd.DataFrame)
    assert table["feature"].tolist() == ["prize", "call", "meeting", "ok"]
    assert table["side"].tolist() == ["positive", "positive", "negative", "negative"]
    assert table["weight"].tolist() == [3.0, 1.0, -2.0, -0.1]


def test_top_weights_lists_only_real_signs_and_accepts_coef_rows():
    table = top_weights(np.array([[2.0, 0.0, 1.0]]), ["a", "b", "c"], k=5)
    assert table["feature"].tolist() == ["a", "c"]
    assert set(table["side"]) == {"positive"}


# ----- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: LogisticRegression(C=0).fit([[1.0], [2.0]], [0, 1]), ValueError, "C must be a positive finite number, got 0$"),
        (lambda: LogisticRegression(C=np.float64(-1.5)).fit([[1.0], [2.0]], [0, 1]), ValueError, r"got -1\.5$"),
        (lambda: LogisticRegression(max_iter=0).fit([[1.0], [2.0]], [0, 1]), ValueError, "max_iter"),
        (lambda: LogisticRegression(tol="x").fit([[1.0], [2.0]], [0, 1]), TypeError, "tol must be a positive finite number, got 'x'$"),
        (lambda: LogisticRegression().fit([[1.0], [2.0]], [1, 1]), ValueError, "exactly two classes; y has 1"),
        (lambda: LogisticRegression().fit([[1.0], [2.0], [3.0]], [0, 1, 2]), ValueError, "y has 3"),
        (lambda: LogisticRegression().fit([[1.0], [np.nan]], [0, 1]), ValueError, "NaN"),
        (lambda: LogisticRegression().fit([[1.0], [2.0]], [0, 1, 1]), ValueError, "3 labels but X has 2"),
        (lambda: LogisticRegression().fit(np.empty((0, 2)), []), ValueError, "empty"),
        (lambda: LogisticRegression().predict([[1.0]]), NotFittedError, "not fitted"),
        (lambda: LogisticRegression().fit([[1.0], [2.0]], [0, 1]).predict([[1.0, 2.0]]), ValueError, "features"),
        (lambda: decision_function(0.0, [1.0, 2.0], [[1.0, 2.0, 3.0]]), ValueError, "3 features"),
        (lambda: decision_function([0.0, 1.0], [1.0], [[1.0]]), ValueError, "w0 must be a single number"),
        (lambda: decision_function(0.0, [1.0], [1.0]), ValueError, "2-D"),
        (lambda: top_weights([1.0, 2.0], ["a"], k=1), ValueError, "one name per weight"),
        (lambda: top_weights([1.0, 2.0], ["a", "b"], k=0), ValueError, "k must be"),
    ],
)
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_not_fitted_error_is_a_value_error():
    assert issubclass(NotFittedError, ValueError)
