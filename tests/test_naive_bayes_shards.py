"""Counting is learning: shards add up (partial_fit, merge), and hyper-parameters act at fit."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from nbcourse.naive_bayes import (BernoulliNB, CategoricalNB, ComplementNB, GaussianNB,
                                   MultinomialNB, merge)

ESTIMATORS = [MultinomialNB, BernoulliNB, CategoricalNB, GaussianNB]


def _data(cls, rng, n):
    """A data set each estimator reads: counts, codes, labels or real numbers."""
    if cls is GaussianNB:
        X = rng.normal(size=(n, 3)) * [1.0, 10.0, 0.1] + [0.0, 5.0, -2.0]
    elif cls is CategoricalNB:
        X = pd.DataFrame({"outlook": rng.choice(["sunny", "overcast", "rainy"], size=n),
                          "code": rng.integers(0, 4, size=n)})
    else:
        X = rng.poisson(0.7, size=(n, 6)).astype(float)
    y = rng.choice(["ham", "spam", "eggs"], size=n)
    return X, y


def _rows(X, index):
    return X.iloc[index] if isinstance(X, pd.DataFrame) else X[index]


def _statistics(model):
    """What a fit learns, with categories aligned by value (their order follows the data)."""
    stats = {"classes_": list(model.classes_), "class_count_": model.class_count_.tolist()}
    if isinstance(model, CategoricalNB):
        for i, name in enumerate(model.feature_names_in_):
            table = model.frequency_table(name).sort_index()
            stats[name] = (table.index.tolist(), table.to_numpy().tolist())
            likelihood = model.likelihood_table(name, numeric=True).sort_index()
            stats[name + " P"] = likelihood.to_numpy().tolist()
    elif isinstance(model, GaussianNB):
        stats.update(theta_=model.theta_, var_=model.var_)
    else:
        stats.update(feature_count_=model.feature_count_.tolist(),
                     feature_log_prob_=model.feature_log_prob_.tolist())
    stats["class_log_prior_"] = model.class_log_prior_.tolist()
    return stats


def _assert_same_model(a, b):
    sa, sb = _statistics(a), _statistics(b)
    assert sa.keys() == sb.keys()
    for key in sa:
        if key in ("theta_", "var_"):  # pooled moments: equal up to rounding
            np.testing.assert_allclose(sa[key], sb[key], rtol=1e-11, atol=1e-12)
        else:  # counts and everything computed from them: exactly equal
            assert sa[key] == sb[key], key


@pytest.mark.parametrize("cls", ESTIMATORS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_shards=st.integers(1, 6), data=st.data())
def test_shards_in_any_order_give_the_one_shot_model(cls, seed, n_shards, data):
    rng = np.random.default_rng(seed)
    X, y = _data(cls, rng, 60)
    cuts = sorted(data.draw(st.lists(st.integers(1, 59), min_size=n_shards - 1,
                                     max_size=n_shards - 1, unique=True)))
    shards = np.split(np.arange(60), cuts)
    order = data.draw(st.permutations(range(len(shards))))
    one_shot = cls().fit(_rows(X, np.concatenate([shards[i] for i in order])),
                         y[np.concatenate([shards[i] for i in order])])
    streamed = cls()
    for i in order:
        streamed.partial_fit(_rows(X, shards[i]), y[shards[i]], classes=np.unique(y))
    _assert_same_model(streamed, one_shot)
    _assert_same_model(cls().fit(X, y), one_shot)  # and any row order gives the same model
    np.testing.assert_allclose(streamed.predict_proba(X), one_shot.predict_proba(X),
                               rtol=1e-10)


@pytest.mark.filterwarnings("ignore:y holds only one class")
@pytest.mark.parametrize("cls", ESTIMATORS)
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), split=st.integers(1, 59))
def test_merge_of_two_disjoint_fits_is_the_fit_on_their_union(cls, seed, split):
    rng = np.random.default_rng(seed)
    X, y = _data(cls, rng, 60)
    first, second = np.arange(split), np.arange(split, 60)
    a = cls(**_some_params(cls)).fit(_rows(X, first), y[first])
    b = cls(**_some_params(cls)).fit(_rows(X, second), y[second])
    before = _statistics(a)
    merged = merge(a, b)
    _assert_same_model(merged, cls(**_some_params(cls)).fit(X, y))
    assert _statistics(a) == before or cls is GaussianNB  # the inputs are left alone
    np.testing.assert_array_equal(merged.predict(X), cls(**_some_params(cls)).fit(X, y).predict(X))


def _some_params(cls):
    return {"var_smoothing": 1e-6} if cls is GaussianNB else {"alpha": 0.5}


def test_merge_refuses_models_that_do_not_fit_together():
    X, y = _data(MultinomialNB, np.random.default_rng(0), 20)
    with pytest.raises(TypeError, match="same kind"):
        merge(MultinomialNB().fit(X, y), BernoulliNB().fit(X, y))
    with pytest.raises(ValueError, match="different hyper-parameters"):
        merge(MultinomialNB(alpha=1).fit(X, y), MultinomialNB(alpha=2).fit(X, y))
    with pytest.raises(ValueError, match="different features"):
        merge(MultinomialNB().fit(X, y), MultinomialNB().fit(X[:, :3], y))
    with pytest.raises(ValueError, match="not fitted"):
        merge(MultinomialNB().fit(X, y), MultinomialNB())


def test_merge_compares_hyper_parameters_by_value_not_by_their_repr():
    # numpy prints a long array by its ends: a difference in the middle was not seen
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 3, (20, 2000)), np.arange(20) % 2
    alpha = np.ones(2000)
    other = alpha.copy()
    other[1000] = 5.0
    with pytest.raises(ValueError, match="different hyper-parameters"):
        merge(MultinomialNB(alpha=alpha).fit(X, y), MultinomialNB(alpha=other).fit(X, y))
    merge(MultinomialNB(alpha=alpha).fit(X, y), MultinomialNB(alpha=alpha.copy()).fit(X, y))
    # the same number written two ways is the same setting
    merged = merge(MultinomialNB(alpha=1).fit(X[:10], y[:10]),
                   MultinomialNB(alpha=1.0).fit(X[10:], y[10:]))
    np.testing.assert_array_equal(merged.feature_count_, MultinomialNB().fit(X, y).feature_count_)
    merge(GaussianNB(var_smoothing=1e-9).fit(X, y),
          GaussianNB(var_smoothing=np.float64(1e-9)).fit(X, y))


def test_categorical_partial_fit_grows_categories_like_one_fit():
    weather = pd.DataFrame({"outlook": ["sunny", "sunny", "overcast", "rainy"],
                            "play": ["no", "no", "yes", "yes"]})
    model = CategoricalNB(alpha=0).partial_fit(weather[["outlook"]][:2], weather["play"][:2],
                                               classes=["no", "yes"])
    assert list(model.categories_[0]) == ["sunny"]
    model.partial_fit(weather[["outlook"]][2:], weather["play"][2:])
    assert list(model.categories_[0]) == ["sunny", "overcast", "rainy"]
    assert model.likelihood_table("outlook").loc["overcast", "yes"] == "1/2"
    assert model.n_categories_.tolist() == [3]


# ----- the bug: hyper-parameters act at the next fit, in every public method -----------------
def _observe(model, X):
    """Everything a user can read from a fitted model through its public methods."""
    seen = {name: getattr(model, name)(X) for name in
            ("predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba")}
    seen["score"] = model.score(X, model.predict(X))
    if isinstance(model, CategoricalNB):
        for feature in model.feature_names_in_:
            seen["frequency " + feature] = model.frequency_table(feature)
            seen["likelihood " + feature] = model.likelihood_table(feature)
            seen["likelihood numeric " + feature] = model.likelihood_table(feature, numeric=True)
        seen["prior"] = model.prior_table()
        seen["prior numeric"] = model.prior_table(numeric=True)
        seen["joint"] = model.joint_proba(X)
        seen["joint exact"] = model.joint_proba(X, exact=True)
        seen["proba exact"] = model.predict_proba(X, exact=True)
    if hasattr(model, "to_linear"):
        seen["to_linear"] = model.to_linear()  # all FIT_PARAMS give a linear model
    return seen


NEW_PARAMS = {
    MultinomialNB: {"alpha": 7.0, "fit_prior": False, "class_prior": [0.9, 0.1],
                    "force_alpha": False},
    BernoulliNB: {"alpha": 7.0, "binarize": 2.5, "fit_prior": False, "class_prior": [0.9, 0.1]},
    CategoricalNB: {"alpha": 7.0, "fit_prior": False, "class_prior": [0.9, 0.1],
                    "min_categories": 9},
    GaussianNB: {"priors": [0.9, 0.1], "var_smoothing": 0.5, "shared_variance": False},
}
FIT_PARAMS = {MultinomialNB: {"alpha": 0.5}, BernoulliNB: {"alpha": 0.5},
              CategoricalNB: {"alpha": 0}, GaussianNB: {"shared_variance": True}}


def _equal(a, b):
    if isinstance(a, (pd.DataFrame, pd.Series)):
        return a.equals(b)
    if isinstance(a, tuple):
        return all(_equal(x, z) for x, z in zip(a, b))
    return np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("how", ["set_params", "attribute"])
def test_hyper_parameters_take_effect_at_the_next_fit_only(cls, how):
    rng = np.random.default_rng(5)
    X, y = _data(cls, rng, 40)
    y = np.where(y == "eggs", "ham", y)  # two classes, so to_linear applies
    model = cls(**FIT_PARAMS[cls]).fit(X, y)
    before = _observe(model, X)
    for name, value in NEW_PARAMS[cls].items():
        if how == "set_params":
            model.set_params(**{name: value})
        else:
            setattr(model, name, value)
    after = _observe(model, X)
    assert before.keys() == after.keys()
    changed = [key for key in before if not _equal(before[key], after[key])]
    assert changed == []
    # ... and the next fit does use them
    refitted = model.fit(X, y).predict_proba(X)
    assert not _equal(before["predict_proba"], refitted)


def _fitted_state(model) -> dict:
    """Every attribute a fit sets, copied deeply (arrays, lists of arrays, tuples)."""
    import copy
    return copy.deepcopy({k: v for k, v in vars(model).items() if k.endswith("_")})


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, (list, tuple)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b)))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and (a == b or (a != a and b != b))


def _bad_batches(cls, X, y):
    """(what, partial_fit's arguments) of batches refused, or interrupted, half-way."""
    bad_X = X.copy()
    if isinstance(bad_X, pd.DataFrame):
        bad_X["code"] = bad_X["code"].astype(float)
        bad_X.iloc[-1, 1] = 0.5  # a code that is not a whole number
    else:
        bad_X[-1, 0] = np.nan
    weights = np.ones(len(y))
    weights[-1] = np.nan
    return [("a bad sample_weight", (X, y), {"sample_weight": weights}),
            ("a bad X", (bad_X, y), {}),
            ("an unknown class", (X, np.where(np.arange(len(y)) == 3, "toast", y)), {}),
            ("an interruption half-way", (X, y), {})]


@pytest.mark.parametrize("cls", ESTIMATORS + [ComplementNB])
def test_a_failed_partial_fit_leaves_the_model_exactly_as_it_was(cls, monkeypatch):
    """A later ``partial_fit`` that raises (a bad batch, or an interruption after the
    batch was counted) leaves every fitted attribute as it was: the model is the one
    fitted on the batches that went in, never a half-counted one."""
    rng = np.random.default_rng(7)
    X, y = _data(cls, rng, 30)
    model = cls().partial_fit(_rows(X, slice(0, 20)), y[:20], classes=np.unique(y))
    before = _fitted_state(model)
    for what, args, kwargs in _bad_batches(cls, _rows(X, slice(20, 30)), y[20:]):
        with monkeypatch.context() as patch:
            if what == "an interruption half-way":
                def interrupted(params):
                    raise KeyboardInterrupt
                patch.setattr(model, "_update_parameters", interrupted)
            with pytest.raises((ValueError, TypeError, KeyboardInterrupt)):
                model.partial_fit(*args, **kwargs)
        after = _fitted_state(model)
        assert after.keys() == before.keys(), what
        changed = [k for k in before if not _same(before[k], after[k])]
        assert not changed, f"{what} changed {changed}"
    # and the model still learns: the good batch now goes in as if nothing had happened
    whole = cls().partial_fit(X, y, classes=np.unique(y))
    model.partial_fit(_rows(X, slice(20, 30)), y[20:])
    np.testing.assert_allclose(model.predict_proba(_rows(X, slice(0, 5))),
                               whole.predict_proba(_rows(X, slice(0, 5))))
