"""nbcourse.evaluation: splits, scores, costs and calibration against scikit-learn, and the
curves of scores against the smoothing strength alpha (lessons 02 and 05)."""
import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from nbcourse import CategoricalNB, evaluation, smoothing_strength
from nbcourse.datasets import load_weather

# ----- stratified_split ------------------------------------------------------------------

def test_stratified_split_keeps_class_shares_and_covers_every_row_once():
    y = np.array(["spam"] * 747 + ["ham"] * 4827)
    parts = evaluation.stratified_split(y, sizes=(0.8, 0.1, 0.1), seed=0)
    joined = np.concatenate(parts)
    assert sorted(joined.tolist()) == list(range(len(y)))
    # spam: 747 cut at rint(597.6), rint(672.3) -> 598/74/75; ham: 4827 -> 3862/482/483
    assert [len(p) for p in parts] == [4460, 556, 558]
    for part in parts:
        assert abs(np.mean(y[part] == "spam") - 747 / 5574) < 0.005
    again = evaluation.stratified_split(y, sizes=(0.8, 0.1, 0.1), seed=0)
    assert all(np.array_equal(a, b) for a, b in zip(parts, again))
    other = evaluation.stratified_split(y, sizes=(0.8, 0.1, 0.1), seed=1)
    assert not np.array_equal(parts[1], other[1])


def test_stratified_split_part_sizes_are_rounded_per_class():
    y = np.array([0] * 10 + [1] * 30)
    train, test = evaluation.stratified_split(y, sizes=(0.75, 0.25), seed=3)
    # training takes rint(7.5) = 8 and rint(22.5) = 22 rows (numpy rounds half to even)
    assert (np.sum(y[test] == 0), np.sum(y[test] == 1)) == (2, 8)
    assert len(train) + len(test) == 40


@pytest.mark.parametrize("sizes, message", [
    ((0.8, 0.3), "adding up to 1"),
    ((1.0,), "at least two"),
    ((0.5, -0.5, 1.0), "positive"),
])
def test_stratified_split_rejects_bad_sizes(sizes, message):
    with pytest.raises(ValueError, match=message):
        evaluation.stratified_split(np.arange(10) % 2, sizes=sizes)


def test_stratified_split_refuses_an_empty_part():
    with pytest.raises(ValueError, match="empty"):
        evaluation.stratified_split(np.array([0, 0, 1, 1]), sizes=(0.9, 0.1))


# ----- scores ------------------------------------------------------------------------------

def test_binary_scores_match_scikit_learn():
    rng = np.random.default_rng(0)
    y_true = rng.choice(["ham", "spam"], size=400, p=[0.8, 0.2])
    y_pred = np.where(rng.random(400) < 0.85, y_true, rng.choice(["ham", "spam"], size=400))
    scores = evaluation.binary_scores(y_true, y_pred, "spam")
    assert scores["accuracy"] == pytest.approx(skm.accuracy_score(y_true, y_pred))
    assert scores["precision"] == pytest.approx(skm.precision_score(y_true, y_pred, pos_label="spam"))
    assert scores["recall"] == pytest.approx(skm.recall_score(y_true, y_pred, pos_label="spam"))


def test_precision_is_zero_not_nan_when_nothing_is_flagged():
    scores = evaluation.binary_scores(["spam", "ham", "ham"], ["ham", "ham", "ham"], "spam")
    assert scores == {"accuracy": 2 / 3, "precision": 0.0, "recall": 0.0}


def test_binary_scores_errors_name_the_problem():
    with pytest.raises(ValueError, match="does not occur"):
        evaluation.binary_scores(["ham", "ham"], ["ham", "spam"], "spam")
    with pytest.raises(ValueError, match="same samples"):
        evaluation.binary_scores(["ham", "spam"], ["ham"], "spam")


def test_confusion_matrix_matches_scikit_learn_rows_true_columns_predicted():
    rng = np.random.default_rng(1)
    y_true, y_pred = rng.integers(0, 3, 200), rng.integers(0, 3, 200)
    table = evaluation.confusion_matrix(y_true, y_pred, labels=[0, 1, 2])
    assert np.array_equal(table.to_numpy(), skm.confusion_matrix(y_true, y_pred, labels=[0, 1, 2]))
    assert table.index.name == "true" and table.columns.name == "predicted"
    with pytest.raises(ValueError, match=r"labels \[2\]"):
        evaluation.confusion_matrix(y_true, y_pred, labels=[0, 1])


# ----- decision theory -----------------------------------------------------------------------

# rows: the true class, columns: the decision (the orientation of a confusion matrix)
COST = pd.DataFrame([[0, 100], [10, 0]], index=["ham", "spam"], columns=["ham", "spam"])


def test_expected_cost_rule_flags_spam_only_above_ten_elevenths():
    p_spam = np.array([0.5, 0.9, 0.909, 0.9091, 0.95, 1.0])
    proba = np.column_stack([1 - p_spam, p_spam])
    decided = evaluation.expected_cost_decision(proba, ["ham", "spam"], COST)
    assert decided.tolist() == ["ham", "ham", "ham", "spam", "spam", "spam"]


def test_zero_one_cost_is_the_most_probable_class():
    rng = np.random.default_rng(2)
    proba = rng.dirichlet([1, 1, 1], size=100)
    classes = np.array(["a", "b", "c"])
    decided = evaluation.expected_cost_decision(proba, classes, 1 - np.eye(3))
    assert np.array_equal(decided, classes[np.argmax(proba, axis=1)])


def test_total_cost_adds_up_the_cells():
    y_true = ["ham", "ham", "spam", "spam", "spam"]
    y_pred = ["spam", "ham", "ham", "ham", "spam"]
    assert evaluation.total_cost(y_true, y_pred, COST, ["ham", "spam"]) == 100 + 2 * 10


def test_cost_table_must_fit_the_classes():
    with pytest.raises(ValueError, match="2 x 2"):
        evaluation.expected_cost_decision(np.array([[0.5, 0.5]]), ["ham", "spam"], np.eye(3))
    with pytest.raises(ValueError, match="missing"):
        evaluation.total_cost(["ham"], ["ham"], COST.drop(index="spam"), ["ham", "spam"])


# ----- calibration -----------------------------------------------------------------------

def test_reliability_table_matches_scikit_learn_calibration_curve():
    rng = np.random.default_rng(3)
    p = rng.random(2000)
    y = np.where(rng.random(2000) < p ** 2, "spam", "ham")
    table = evaluation.reliability_table(y, p, "spam", n_bins=10)
    observed, predicted = calibration_curve(y == "spam", p, n_bins=10)
    assert np.allclose(table["observed"], observed)
    assert np.allclose(table["mean_predicted"], predicted)
    assert table["count"].sum() == 2000


def test_reliability_table_bins_by_the_floor_rule_on_the_edges():
    """Student 8: 0.3 and 0.6 went to the bin below (linspace's edges lie just above
    them), where the exercise's rule min(floor(p * J), J - 1) puts them in bins 3 and 6."""
    p = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 1.0])
    table = evaluation.reliability_table(np.ones(6), p, 1, n_bins=10)
    expected = np.minimum(np.floor(p * 10), 9)
    assert (table["bin_low"] * 10).round().tolist() == sorted(set(expected.tolist()))
    assert table["count"].tolist() == [1] * 6


def test_reliability_table_puts_zero_and_one_in_the_end_bins():
    table = evaluation.reliability_table(np.array([0, 1, 1]), np.array([0.0, 1.0, 1.0]), 1, n_bins=4)
    assert table[["bin_low", "bin_high", "count"]].to_numpy().tolist() == [[0.0, 0.25, 1], [0.75, 1.0, 2]]


def test_log_loss_matches_scikit_learn_and_is_infinite_for_a_certain_mistake():
    rng = np.random.default_rng(4)
    proba = rng.dirichlet([2, 2], size=50)
    y = rng.choice(["ham", "spam"], size=50)
    assert evaluation.log_loss(y, proba, ["ham", "spam"]) == pytest.approx(
        skm.log_loss(y, proba, labels=["ham", "spam"]))
    assert evaluation.log_loss(["spam"], np.array([[1.0, 0.0]]), ["ham", "spam"]) == np.inf



# ----- scores against alpha -------------------------------------------------------------------

def test_spam_validation_scores_equal_scikit_learn_on_the_same_matrices(sms_split):
    X_train, y_train, X_val, y_val = sms_split
    for alpha in (0.01, 1.0, 10.0):
        ours = smoothing_strength.spam_validation_scores(alpha, X_train, y_train, X_val, y_val)
        predicted = SkMultinomialNB(alpha=alpha).fit(X_train, y_train).predict(X_val)
        assert ours["accuracy"] == skm.accuracy_score(y_val, predicted)
        assert ours["precision"] == skm.precision_score(y_val, predicted, pos_label="spam")
        assert ours["recall"] == skm.recall_score(y_val, predicted, pos_label="spam")



def test_spam_alpha_curve_has_one_row_of_scores_per_alpha(sms_split):
    curve = smoothing_strength.spam_alpha_curve(*sms_split, alphas=(0.1, 1.0))
    assert list(curve.columns) == ["alpha", "accuracy", "precision", "recall"]
    assert curve["alpha"].tolist() == [0.1, 1.0]
    assert curve.iloc[1, 1:].to_dict() == smoothing_strength.spam_validation_scores(1.0, *sms_split)
    assert smoothing_strength.spam_alpha_curve(*sms_split)["alpha"].tolist() == list(smoothing_strength.SPAM_ALPHAS)


WEATHER_QUERIES = {
    "overcast": {"outlook": "overcast", "temperature": "hot", "humidity": "high", "windy": "true"},
    "lecture": {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"},
}


def test_alpha_curve_is_the_posterior_of_categorical_nb_at_each_alpha():
    table = load_weather()
    X, y = table.drop(columns="play"), table["play"]
    curve = smoothing_strength.alpha_curve(X, y, WEATHER_QUERIES, alphas=[0.0, 1.0, 8.5])
    assert list(curve.columns) == list(WEATHER_QUERIES) and list(curve.index) == [0.0, 1.0, 8.5]
    for alpha in (0.0, 1.0, 8.5):
        model = CategoricalNB(alpha=alpha).fit(X, y)
        for name, query in WEATHER_QUERIES.items():
            expected = model.predict_proba(query)[0, list(model.classes_).index("no")]
            assert curve.loc[alpha, name] == expected
            assert smoothing_strength.posterior_of(model, query, "no") == expected
    assert curve.loc[0.0, "overcast"] == 0.0  # never overcast on a "no" day, without smoothing
    models = smoothing_strength.fit_each_alpha(X, y, [0.0, 1.0, 8.5])
    assert smoothing_strength.alpha_curve(X, y, WEATHER_QUERIES, [0.0, 1.0, 8.5], models=models).equals(curve)
    with pytest.raises(ValueError, match="target must be one of the classes"):
        smoothing_strength.posterior_of(models[1.0], WEATHER_QUERIES["lecture"], "maybe")


def test_shuffle_within_class_keeps_each_class_column_and_breaks_the_dependence():
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b"], 500)
    shared = rng.normal(size=1000) + (y == "b") * 2
    X = np.column_stack([shared, shared + 0.1 * rng.normal(size=1000)])   # two near-copies
    shuffled = evaluation.shuffle_within_class(X, y, seed=3)
    for label in ("a", "b"):
        rows = y == label
        for k in range(2):   # the same values in each class, so the same per-class mean and variance
            assert np.array_equal(np.sort(shuffled[rows, k]), np.sort(X[rows, k]))
        assert np.corrcoef(X[rows].T)[0, 1] > 0.99
        assert abs(np.corrcoef(shuffled[rows].T)[0, 1]) < 0.15
    assert np.array_equal(shuffled, evaluation.shuffle_within_class(X, y, seed=3))
    assert not np.array_equal(shuffled, evaluation.shuffle_within_class(X, y, seed=4))
    assert np.array_equal(X[:, 0], shared)   # the input is left alone
    with pytest.raises(ValueError, match="one row per label"):
        evaluation.shuffle_within_class(X[:10], y)
    with pytest.raises(TypeError, match="seed"):
        evaluation.shuffle_within_class(X, y, seed=0.5)


def test_binary_scores_reports_the_accuracy_that_accuracy_computes(monkeypatch):
    """One home for accuracy: `binary_scores` asks `accuracy`, it does not count again."""
    monkeypatch.setattr(evaluation, "accuracy", lambda y_true, y_pred: "from accuracy")
    assert evaluation.binary_scores(["a", "b"], ["a", "a"], "a")["accuracy"] == "from accuracy"


def test_log_loss_takes_its_logarithm_from_numerics(monkeypatch):
    """log(0) without a warning is `_numerics.log`: a zero probability for the true class
    gives inf through it, not through a logarithm of its own."""
    seen = []
    monkeypatch.setattr(evaluation, "_log", lambda p: seen.append(p) or np.log(p))
    assert evaluation.log_loss(["a", "b"], [[0.5, 0.5], [0.25, 0.75]], ["a", "b"]) == \
        pytest.approx(-np.mean(np.log([0.5, 0.75])))
    assert len(seen) == 1
