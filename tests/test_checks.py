"""The input checks: one module, one not-fitted error, plain values in messages."""
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from nbcourse._checks import NotFittedError, check_alpha, check_labels, check_prior
from nbcourse.calibration import PlattScaling
from nbcourse.evaluation import expected_cost_decision
from nbcourse.linear import LogisticRegression, decision_function
from nbcourse.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB

ALL = [MultinomialNB, BernoulliNB, CategoricalNB, GaussianNB, LogisticRegression]


@pytest.mark.parametrize("cls", ALL)
def test_every_estimator_raises_the_one_not_fitted_error(cls):
    X = pd.DataFrame({"a": ["x"]}) if cls is CategoricalNB else [[1.0, 2.0]]
    with pytest.raises(NotFittedError, match="not fitted yet") as raised:
        cls().predict(X)
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, AttributeError)
    assert not hasattr(cls(), "classes_")


def test_the_error_is_also_sklearns_when_sklearn_is_in_use_without_importing_it():
    code = ("import sys\nfrom nbcourse.naive_bayes import MultinomialNB\n"
            "assert 'sklearn' not in sys.modules\n"
            "try:\n    MultinomialNB().predict([[1]])\nexcept Exception as e:\n"
            "    print(type(e).__mro__[1].__module__)\n"
            "from sklearn.exceptions import NotFittedError\n"
            "try:\n    MultinomialNB().predict([[1]])\nexcept NotFittedError:\n    print('sklearn caught it')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["builtins", "sklearn", "caught", "it"]


@pytest.mark.parametrize(("call", "shown"), [
    (lambda: check_alpha(np.float64(-1.1)), "got -1.1"),
    (lambda: check_alpha(np.str_("x")), "got 'x'"),
    (lambda: MultinomialNB(alpha=np.float64(-1.1)).fit([[1]], [0]), "got -1.1"),
    (lambda: LogisticRegression(C=np.float64(-2.5)).fit([[1.0], [2.0]], [0, 1]), "got -2.5"),
    (lambda: check_prior(np.array([0.2, 0.2]), 2), r"\[0.2, 0.2\] sums to 0.4"),
    (lambda: check_labels(np.array([0.5, 1.0]), 2), "such as 0.5,"),
    (lambda: CategoricalNB().fit(pd.DataFrame({"a": ["x", "y"]}), [0, 1])
     .predict({"a": np.str_("z")}), "has the value 'z'"),
    (lambda: MultinomialNB().fit(-np.ones((2, 2)), [0, 1]), "found -1.0$"),
])
def test_messages_show_plain_values_not_numpy_reprs(call, shown):
    with pytest.raises((ValueError, TypeError), match=shown) as raised:
        call()
    assert "np." not in str(raised.value)


def test_messages_carry_sklearns_phrases():
    model = MultinomialNB().fit(np.ones((2, 3)), [0, 1])
    with pytest.raises(ValueError, match="Reshape your data either using X.reshape"):
        model.predict(np.ones(3))
    with pytest.raises(ValueError, match="X has 2 features, but MultinomialNB is expecting 3"):
        model.predict(np.ones((1, 2)))
    with pytest.raises(ValueError, match=r"Negative values in data passed to CategoricalNB \(input X\)"):
        CategoricalNB().fit([[0, -1]], [1])
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        GaussianNB().fit([[0.0], [1.0]], [0.25, 1.5])


def test_min_categories_of_the_wrong_type_is_a_type_error():
    # the module's own rule: a wrong type raises TypeError, a wrong value ValueError
    from nbcourse import CategoricalNB

    X, y = [[0, 1], [1, 0]], [0, 1]
    with pytest.raises(TypeError, match="integral type"):
        CategoricalNB(min_categories=2.5).fit(X, y)
    with pytest.raises(ValueError, match="should have shape"):
        CategoricalNB(min_categories=[2, 2, 2]).fit(X, y)


@pytest.mark.parametrize("call", [
    lambda: __import__("nbcourse.evaluation").evaluation.stratified_split([0, 1] * 5, seed=1.5),
    lambda: __import__("nbcourse.evaluation").evaluation.kfold_indices([0, 1] * 5, 2, seed="x"),
])
def test_every_seed_is_checked_by_check_seed(call):
    with pytest.raises(TypeError, match="seed must be an int"):
        call()


@pytest.mark.parametrize("call, said", [
    (lambda: GaussianNB().fit([[1.0], [np.nan]], [0, 1]), "X contains NaN; remove or fill them"),
    (lambda: GaussianNB().fit([[1.0], [np.inf]], [0, 1]),
     "X contains infinity; remove or fill them"),
    (lambda: MultinomialNB().fit([[1.0, np.nan], [-np.inf, 2.0]], [0, 1]),
     "X contains NaN and infinity; remove or fill them"),
    (lambda: CategoricalNB().fit(pd.DataFrame({"a": [1.0, np.inf]}), [0, 1]),
     "X contains infinity in column 'a'"),
    (lambda: GaussianNB().fit([[1.0], [2.0]], [0.0, np.nan]),
     "y contains NaN; a label names a class"),
    (lambda: PlattScaling().fit([0.1, np.inf], [0, 1]), "scores contains infinity"),
    (lambda: expected_cost_decision([[0.5, 0.5]], [0, 1], [[0, 1], [np.nan, 0]]),
     "cost contains NaN"),
    (lambda: decision_function(0.0, [1.0, np.nan], [[1.0, 2.0]]), "w contains NaN"),
])
def test_a_nan_or_an_infinity_is_called_what_it_is(call, said):
    """The review found GaussianNB().fit with a NaN saying "NaN or infinite values (inf)";
    every caller now says which it found, through ``check_finite``."""
    with pytest.raises(ValueError) as raised:
        call()
    assert str(raised.value) == said


def test_the_finite_check_is_written_once():
    """No module but ``_checks`` words a NaN-or-infinity error (``check_finite``)."""
    import ast

    from course_paths import REPO

    homes = set()
    for path in sorted((REPO / "nbcourse").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                    "contains NaN" in node.value or "NaN or infinite" in node.value):
                homes.add(path.relative_to(REPO).as_posix())
    assert homes == {"nbcourse/_checks.py"}


def _keep_seen_words(X):
    from nbcourse.text import KeepSeenWords
    return KeepSeenWords().fit(X)


def _reliability(p):
    from nbcourse.evaluation import reliability_table
    return reliability_table([0, 1], p, positive=1)


def _log_loss(proba):
    from nbcourse.evaluation import log_loss
    return log_loss([0, 1], proba, [0, 1])


def _adversary_row(x):
    from nbcourse.adversary import _row
    return _row(x, 2)


def _smoothing(value, exact):
    from nbcourse.smoothing import m_estimate
    return m_estimate(1, 2, value, 0.5, exact=exact)


@pytest.mark.parametrize("call, said", [
    (lambda: check_prior([np.nan, 1.0], 2), "class_prior contains NaN"),
    (lambda: check_prior([-np.inf, 1.0], 2), "class_prior contains infinity"),
    (lambda: expected_cost_decision([[np.nan, 1.0]], [0, 1], [[0, 1], [1, 0]]),
     "proba contains NaN"),
    (lambda: _reliability([0.5, np.nan]), "proba_positive contains NaN"),
    (lambda: _log_loss([[np.inf, 0.0], [0.0, 1.0]]), "proba contains infinity"),
    (lambda: _adversary_row([1.0, -np.inf]), "x contains infinity"),
    (lambda: _keep_seen_words(__import__("scipy.sparse").sparse.csr_matrix([[np.nan, 1.0]])),
     "X contains NaN"),
    (lambda: check_alpha([1.0, -np.inf], n_features=2), "alpha contains infinity"),
    (lambda: check_alpha(np.nan), "alpha contains NaN"),
    (lambda: _smoothing(np.inf, exact=False), "m contains infinity"),
    (lambda: _smoothing(np.inf, exact=True), "m contains infinity"),
    (lambda: _smoothing(np.nan, exact=True), "m contains NaN"),
    (lambda: MultinomialNB().fit([[1.0], [2.0]], [0, 1], sample_weight=[np.nan, -1.0]),
     "sample_weight contains NaN"),
    (lambda: decision_function(np.inf, [1.0], [[1.0]]), "w0 contains infinity"),
    (lambda: __import__("nbcourse.evaluation").evaluation.stratified_split(
        [0, 1] * 5, sizes=[np.nan, -1.0], seed=0), "sizes contains NaN"),
    (lambda: __import__("nbcourse.evaluation").evaluation.mean_and_spread([0.5, np.inf]),
     "scores contains infinity"),
    (lambda: LogisticRegression(C=np.nan).fit([[0.0], [1.0]], [0, 1]), "C contains NaN"),
    (lambda: __import__("nbcourse.text").text.BagOfWords(max_df=np.nan).fit(["a b"]),
     "max_df contains NaN"),
    # review 4, findings 6 and 7: binarize=nan fitted silently (every feature absent), and
    # lidstone_log returned NaN for NaN counts or beta
    (lambda: __import__("nbcourse.naive_bayes").naive_bayes.BernoulliNB(binarize=np.nan).fit(
        [[0.0], [1.0]], [0, 1]), "binarize contains NaN"),
    (lambda: __import__("nbcourse.naive_bayes").naive_bayes.BernoulliNB(binarize=-np.inf).fit(
        [[0.0], [1.0]], [0, 1]), "binarize contains infinity"),
    (lambda: __import__("nbcourse.smoothing").smoothing.lidstone_log(
        np.array([[1.0, np.nan]]), 1.0), "counts contains NaN"),
    (lambda: __import__("nbcourse.smoothing").smoothing.lidstone_log(
        np.array([[1.0, 2.0]]), np.nan), "beta contains NaN"),
    (lambda: __import__("nbcourse.smoothing").smoothing.lidstone_log(
        np.array([[1.0, 2.0]]), 1.0, totals=np.array([[np.inf]]), n_outcomes=2),
     "totals contains infinity"),
])
def test_a_nan_or_an_infinity_is_named_before_any_sign_check(call, said):
    """The review found ``check_prior([nan, 1])`` saying "non-negative": every check now
    asks ``check_finite`` first, so a NaN or an infinity is called what it is."""
    with pytest.raises(ValueError) as raised:
        call()
    assert str(raised.value).startswith(said), str(raised.value)
