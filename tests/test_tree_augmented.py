"""Tree-augmented naive Bayes: the conditional mutual information, the tree, the model."""
import math
from itertools import product

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy.sparse.csgraph import minimum_spanning_tree
from sklearn.base import clone
from sklearn.metrics import log_loss, mutual_info_score
from sklearn.model_selection import StratifiedKFold, cross_val_score

from nbcourse._checks import NotFittedError
from nbcourse.naive_bayes import CategoricalNB, TreeAugmentedNB, conditional_mutual_information
from nbcourse.naive_bayes.tree_augmented import _maximum_spanning_tree


def _chain(n=4000, flip=0.1, seed=0):
    """y -> a -> b -> c -> d: each feature copies the one before it, flipped 10 % of the time."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    columns = [np.where(rng.random(n) < 0.3, 1 - y, y)]
    for _ in range(3):
        columns.append(np.where(rng.random(n) < flip, 1 - columns[-1], columns[-1]))
    X = pd.DataFrame({name: np.where(col == 1, "yes", "no") for name, col in
                      zip("abcd", columns)})
    return X, np.where(y == 1, "spam", "ham")


# ----- conditional mutual information --------------------------------------------------------
def test_cmi_is_the_class_weighted_mutual_information_of_scikit_learn():
    rng = np.random.default_rng(1)
    y = rng.choice(["ham", "spam", "eggs"], 500)
    x_i = rng.choice(["red", "green", "blue"], 500)
    x_j = np.where(rng.random(500) < 0.5, x_i, rng.choice(["red", "green"], 500))
    expected = sum(np.mean(y == c) * mutual_info_score(x_i[y == c], x_j[y == c])
                   for c in np.unique(y))
    assert conditional_mutual_information(x_i, x_j, y) == pytest.approx(expected, abs=1e-12)
    as_series = conditional_mutual_information(pd.Series(x_i), list(x_j), pd.Series(y))
    assert as_series == pytest.approx(expected, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 2), st.sampled_from(["x", "y", 7])),
                min_size=1, max_size=40))
def test_cmi_agrees_with_scikit_learn_on_any_small_table(rows):
    y, x_i, x_j = (np.array(column, dtype=object) for column in zip(*rows))
    expected = sum(np.mean(y == c) * mutual_info_score(x_i[y == c].astype(str),
                                                       x_j[y == c].astype(str))
                   for c in set(y))
    assert conditional_mutual_information(x_i, x_j, y) == pytest.approx(expected, abs=1e-12)


def test_cmi_of_a_tiny_table_by_hand():
    """Class 0 holds the pairs (a,a) (a,a) (b,b) (b,a), class 1 (a,b) (b,a); n = 6.

    Class 0: N(c) = 4, N(x_i=a) = N(x_i=b) = 2, N(x_j=a) = 3, N(x_j=b) = 1, so the cells give
    2/6 log(2*4/(2*3)) + 1/6 log(1*4/(2*1)) + 1/6 log(1*4/(2*3)); class 1's two cells give
    1/6 log(1*2/(1*1)) each. Together (4/3) log 2 - (1/2) log 3 = 0.3749 nats.
    """
    x_i = ["a", "a", "b", "b", "a", "b"]
    x_j = ["a", "a", "b", "a", "b", "a"]
    y = [0, 0, 0, 0, 1, 1]
    expected = 4 / 3 * math.log(2) - 1 / 2 * math.log(3)
    assert conditional_mutual_information(x_i, x_j, y) == pytest.approx(expected, rel=1e-14)
    assert round(expected, 4) == 0.3749


def test_cmi_is_zero_when_the_features_are_independent_given_the_class():
    # Within each class every pair of values occurs equally often: independent there,
    # although x_i and x_j are strongly related once the classes are pooled.
    rows = [(c, a + c, b + c) for c in (0, 5) for a, b in product(range(2), range(3))]
    y, x_i, x_j = map(list, zip(*rows))
    assert conditional_mutual_information(x_i, x_j, y) == 0.0
    assert mutual_info_score(x_i, x_j) > 0.5


def test_cmi_is_symmetric_and_a_feature_with_itself_gives_its_conditional_entropy():
    X, y = _chain(n=300)
    ab = conditional_mutual_information(X["a"], X["b"], y)
    assert ab == pytest.approx(conditional_mutual_information(X["b"], X["a"], y), rel=1e-12)
    entropy = sum(np.mean(y == c) * mutual_info_score(X["a"][y == c], X["a"][y == c])
                  for c in np.unique(y))
    assert conditional_mutual_information(X["a"], X["a"], y) == pytest.approx(entropy)


@pytest.mark.parametrize("x_i, x_j, y, error, words", [
    ([1, 2, 3], [1, 2], [0, 1, 0], ValueError, "same length"),
    ([], [], [], ValueError, "at least one"),
    ([[1, 2], [3, 4]], [1, 2], [0, 1], ValueError, "1-D"),
    ([1, None, 3], [1, 2, 3], [0, 1, 0], ValueError, "missing"),
    ("abc", [1, 2, 3], [0, 1, 0], TypeError, "x_i must be a 1-D array"),
    ([1, 2, 3], [1, 2, 3], 7, TypeError, "y must be a 1-D array"),
])
def test_cmi_refuses_bad_input_with_a_clear_message(x_i, x_j, y, error, words):
    with pytest.raises(error, match=words):
        conditional_mutual_information(x_i, x_j, y)


# ----- the tree ------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_prims_tree_is_as_heavy_as_the_maximum_spanning_tree_scipy_finds(seed):
    rng = np.random.default_rng(seed)
    weights = rng.random((7, 7))
    weights = weights + weights.T
    np.fill_diagonal(weights, 0)
    parent = _maximum_spanning_tree(weights, root=3)
    assert parent[3] == -1 and (parent[np.arange(7) != 3] >= 0).all()
    ours = sum(weights[i, p] for i, p in enumerate(parent) if p >= 0)
    # scipy's minimum spanning tree of (big - weight) is the maximum spanning tree
    theirs = minimum_spanning_tree(10.0 - weights).toarray()
    assert ours == pytest.approx(sum(weights[theirs != 0]))


def test_the_tree_recovers_a_chain_the_data_came_from():
    X, y = _chain()
    model = TreeAugmentedNB().fit(X, y)
    assert model.parent_.tolist() == [-1, 0, 1, 2]
    assert model.structure() == "a <- class\nb <- class, a\nc <- class, b\nd <- class, c"
    assert TreeAugmentedNB(root=3).fit(X, y).parent_.tolist() == [1, 2, 3, -1]
    # the chain's links are the heaviest pairs; a feature two steps away weighs less
    assert model.cmi_[0, 1] > model.cmi_[0, 2] > 0 and np.allclose(model.cmi_, model.cmi_.T)
    assert model.cmi_[1, 2] == pytest.approx(conditional_mutual_information(X["b"], X["c"], y))


def test_edges_are_the_tree_as_a_table_with_each_weight():
    X, y = _chain()
    model = TreeAugmentedNB().fit(X, y)
    edges = model.edges()
    assert edges[["feature", "parent"]].values.tolist() == [["b", "a"], ["c", "b"], ["d", "c"]]
    assert edges["cmi"].tolist() == [model.cmi_[1, 0], model.cmi_[2, 1], model.cmi_[3, 2]]


def test_parameter_counts_of_the_binary_chain():
    """K = 2, four binary features: naive Bayes 1 + 4*2 = 9; the chain 1 + 2 + 3*(2*2) = 15;
    the full table 2 * 2^4 - 1 = 31 (lesson 01's 2^d K - 1)."""
    X, y = _chain(n=200)
    model = TreeAugmentedNB().fit(X, y)
    assert model.n_parameters() == 15
    assert model.parameter_counts().to_dict() == {
        "naive Bayes": 9, "tree-augmented naive Bayes": 15, "full joint table": 31}


# ----- the model -------------------------------------------------------------------------------
def test_with_no_parents_it_is_categorical_naive_bayes():
    X, y = _chain(n=500)
    nb = CategoricalNB(alpha=0.5).fit(X, y)
    flat = TreeAugmentedNB(alpha=0.5, parents=[-1] * 4).fit(X, y)
    assert np.allclose(flat.predict_proba(X), nb.predict_proba(X), rtol=1e-12, atol=0)
    assert (flat.predict(X) == nb.predict(X)).all()
    assert flat.n_parameters() == flat.parameter_counts()["naive Bayes"] == 9
    assert flat.structure() == "a <- class\nb <- class\nc <- class\nd <- class"


def test_on_conditionally_independent_features_it_decides_as_naive_bayes():
    """Each feature copies the class, flipped 10, 30 or 40 % of the time, independently.

    The log-odds a feature adds are log(0.9/0.1) = 2.20, 0.85 and 0.41, so no cell of the
    table is a near tie (2.20 - 0.85 - 0.41 = 0.94): the tree's small extra parameters,
    fitted to noise, move the probabilities a little and no decision.
    """
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 3000)
    X = pd.DataFrame({f"x{k}": np.where(rng.random(3000) < flip, 1 - y, y)
                      for k, flip in enumerate((0.1, 0.3, 0.4))})
    tan, nb = TreeAugmentedNB().fit(X, y), CategoricalNB().fit(X, y)
    assert tan.cmi_.max() < 0.005
    assert (tan.predict(X) == nb.predict(X)).all()
    assert np.abs(tan.predict_proba(X) - nb.predict_proba(X)).max() < 0.1


def test_a_child_table_is_lidstone_on_the_counts_of_parent_and_class():
    X, y = _chain(n=400)
    model = TreeAugmentedNB(alpha=2.0).fit(X, y)
    spam = list(model.classes_).index("spam")
    a_no, b_yes = list(model.categories_[0]).index("no"), list(model.categories_[1]).index("yes")
    in_cell = (y == "spam") & (X["a"] == "no")
    count = np.sum(in_cell & (X["b"] == "yes"))
    expected = (count + 2.0) / (in_cell.sum() + 2 * 2.0)
    assert np.exp(model.feature_log_prob_[1][spam, a_no, b_yes]) == pytest.approx(expected)


def test_it_beats_naive_bayes_where_a_feature_is_repeated():
    """Three copies of one feature: naive Bayes counts its evidence three times."""
    X, y = _chain(n=2000, flip=0.0)
    nb, tan = CategoricalNB().fit(X, y), TreeAugmentedNB().fit(X, y)
    def loss(model):
        picked = model.predict_proba(X)[np.arange(len(y)), np.searchsorted(model.classes_, y)]
        return -np.mean(np.log(picked))
    assert loss(tan) < loss(nb) - 0.1


def test_probabilities_are_normalised_and_predict_takes_the_largest():
    X, y = _chain(n=300)
    model = TreeAugmentedNB().fit(X, y)
    proba = model.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert np.allclose(np.exp(model.predict_log_proba(X)), proba)
    assert (model.predict(X) == model.classes_[np.argmax(proba, axis=1)]).all()
    assert model.score(X, y) == np.mean(model.predict(X) == y)


def test_codes_and_arrays_work_and_a_dict_query_is_read_by_name():
    X, y = _chain(n=300)
    codes = (X == "yes").astype(int).to_numpy()
    model = TreeAugmentedNB().fit(codes, y)
    assert model.structure().splitlines()[1] == "1 <- class, 0"
    assert not hasattr(model, "feature_names_in_")
    named = TreeAugmentedNB().fit(X, y)
    query = {"d": "no", "c": "yes", "b": "yes", "a": "no"}
    assert named.predict_proba(query) == pytest.approx(
        named.predict_proba(pd.DataFrame([query])[list("abcd")]))


def test_clone_and_params_follow_scikit_learn():
    model = TreeAugmentedNB(alpha=0.5, root=2)
    assert model.get_params() == {"alpha": 0.5, "root": 2, "parents": None}
    copy = clone(model)
    assert copy.get_params() == model.get_params() and copy is not model
    assert model.set_params(alpha=2.0).alpha == 2.0
    assert repr(TreeAugmentedNB(root=1)) == "TreeAugmentedNB(root=1)"


def test_it_works_inside_scikit_learns_cross_validation():
    X, y = _chain(n=300)
    scores = cross_val_score(TreeAugmentedNB(alpha=0.5), X, y, cv=StratifiedKFold(3))
    by_hand = [TreeAugmentedNB(alpha=0.5).fit(X.iloc[train], y[train]).score(X.iloc[test], y[test])
               for train, test in StratifiedKFold(3).split(X, y)]
    assert scores.tolist() == pytest.approx(by_hand)


def test_an_unseen_label_raises_as_in_categorical_naive_bayes():
    X, y = _chain(n=200)
    query = pd.DataFrame({"a": ["maybe"], "b": ["no"], "c": ["no"], "d": ["no"]})
    with pytest.raises(ValueError) as ours:
        TreeAugmentedNB().fit(X, y).predict(query)
    with pytest.raises(ValueError) as theirs:
        CategoricalNB().fit(X, y).predict(query)
    assert str(ours.value) == str(theirs.value) and "'maybe'" in str(ours.value)


def test_without_smoothing_an_unseen_parent_and_class_pair_is_an_error_not_nan():
    X = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
    y = ["p", "p", "q", "q"]
    model = TreeAugmentedNB(alpha=0).fit(X, y)
    with pytest.raises(ValueError, match="0/0; use alpha > 0"):
        model.predict_proba(pd.DataFrame({"a": ["y"], "b": ["u"]}))


@pytest.mark.parametrize("params, error, words", [
    ({"alpha": -1}, ValueError, "alpha"),
    ({"alpha": "one"}, TypeError, "alpha"),
    ({"root": 4}, ValueError, "root must be a feature number from 0 to 3"),
    ({"root": 1.5}, TypeError, "root"),
    ({"parents": [-1, 0, 1]}, ValueError, "one entry per feature"),
    ({"parents": [-1, 0, 3, 2]}, ValueError, "cycle"),
    ({"parents": [-1, 1, 1, 2]}, ValueError, r"parents\[1\]"),
    ({"parents": [-1, 0, 0.5, 1]}, TypeError, r"parents\[2\]"),
    ({"parents": "none"}, TypeError, "parents"),
])
def test_bad_parameters_are_refused_at_fit(params, error, words):
    X, y = _chain(n=50)
    with pytest.raises(error, match=words):
        TreeAugmentedNB(**params).fit(X, y)


def test_bad_data_and_an_unfitted_model_are_refused():
    X, y = _chain(n=50)
    with pytest.raises(ValueError, match="50 samples"):
        TreeAugmentedNB().fit(X, y[:10])
    with pytest.raises(NotFittedError):
        TreeAugmentedNB().predict(X)
    with pytest.raises(NotFittedError):
        TreeAugmentedNB().structure()
    with pytest.raises(ValueError, match="missing"):
        TreeAugmentedNB().fit(X.drop(columns="d"), y).predict(X.drop(columns="a"))


def test_structure_can_show_each_edges_weight():
    X, y = _chain(n=500)
    model = TreeAugmentedNB().fit(X, y)
    lines = model.structure(weights=True).splitlines()
    assert lines[0] == "a <- class"
    assert lines[1] == f"b <- class, a  I = {model.cmi_[1, 0]:.3f} nats"
    with pytest.raises(TypeError, match="weights"):
        model.structure(weights="yes")


# ----- the lesson's data set: Spambase's words, present or absent ----------------------------
@pytest.fixture(scope="module")
def presence():
    from nbcourse import datasets

    return datasets.load_spambase_presence()


def test_spambase_presence_is_every_word_and_character_as_zero_or_one(presence):
    from nbcourse import datasets

    raw = datasets.load_spambase()
    assert presence.shape == (4601, 55)
    assert presence.columns[:3].tolist() == ["make", "address", "all"]
    assert presence.columns[-4:].tolist() == ["char_!", "char_$", "char_#", "label"]
    assert (presence["hp"] == (raw["word_freq_hp"] > 0)).all()
    assert (presence["char_!"] == (raw["char_freq_!"] > 0)).all()
    assert set(np.unique(presence.drop(columns="label"))) == {0, 1}
    assert (presence["label"] == raw["label"]).all()


def test_on_spambase_the_tree_beats_naive_bayes_on_held_out_mail(presence):
    """Lesson 08's comparison: lesson 06's split (75 / 25 %, stratified, seed 0)."""
    from nbcourse import evaluation

    X, y = presence.drop(columns="label"), presence["label"].to_numpy()
    train, test = evaluation.stratified_split(y, sizes=(0.75, 0.25), seed=0)
    scores = {}
    for name, model in (("nb", CategoricalNB()), ("tan", TreeAugmentedNB())):
        model.fit(X.iloc[train], y[train])
        proba = model.predict_proba(X.iloc[test])
        scores[name] = (round(model.score(X.iloc[test], y[test]), 4),
                        round(evaluation.log_loss(y[test], proba, model.classes_), 4))
        assert evaluation.log_loss(y[test], proba, model.classes_) == pytest.approx(
            log_loss(y[test], proba, labels=model.classes_))
    assert scores == {"nb": (0.8835, 0.5537), "tan": (0.9009, 0.2922)}
    assert model.parameter_counts().tolist() == [109, 215, 2 ** 55 - 1]
    strongest = model.edges().nlargest(3, "cmi").round({"cmi": 3})
    assert strongest.values.tolist() == [["hp", "hpl", 0.191], ["415", "857", 0.149],
                                         ["85", "650", 0.138]]


def test_a_single_class_warns_at_the_callers_line():
    X, _ = _chain(n=20)
    with pytest.warns(UserWarning, match="only one class") as record:
        TreeAugmentedNB().fit(X, ["ham"] * 20)
    assert [w.filename for w in record] == [__file__]


def test_merging_two_tree_augmented_models_says_why_it_cannot():
    from nbcourse.naive_bayes import merge

    X = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": ["u", "u", "v", "v"]})
    model = TreeAugmentedNB().fit(X, [0, 1, 0, 1])
    with pytest.raises(TypeError, match="TreeAugmentedNB cannot be merged: its tree is chosen"):
        merge(model, model)
