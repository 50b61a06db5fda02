"""The estimators against hand calculations and against scikit-learn."""
from fractions import Fraction
import tracemalloc

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from sklearn import naive_bayes as sk
from sklearn.preprocessing import OrdinalEncoder

from nbcourse._checks import NotFittedError
from nbcourse.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB

WEATHER_ROWS = """\
sunny hot high false no
sunny hot high true no
overcast hot high false yes
rainy mild high false yes
rainy cool normal false yes
rainy cool normal true no
overcast cool normal true yes
sunny mild high false no
sunny cool normal false yes
rainy mild normal false yes
sunny mild normal true yes
overcast mild high true yes
overcast hot normal false yes
rainy mild high true no"""
QUERY = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}


@pytest.fixture
def weather():
    # Typed in here from the lecture rather than loaded, so this test does not depend
    # on the loader it is meant to back up.
    frame = pd.DataFrame([r.split() for r in WEATHER_ROWS.splitlines()],
                         columns=["outlook", "temperature", "humidity", "windy", "play"])
    return frame.drop(columns="play"), frame["play"]


@pytest.fixture
def counts_data():
    rng = np.random.default_rng(0)
    X = rng.poisson(0.3, size=(300, 40))
    y = rng.choice(["ham", "spam", "eggs"], size=300, p=[0.5, 0.3, 0.2])
    return X, y


# ----- the weather example, exactly as computed by hand ----------------------------------
def test_weather_joint_scores_are_exactly_the_hand_fractions(weather):
    model = CategoricalNB(alpha=0).fit(*weather)
    joint = model.joint_proba(QUERY, exact=True).iloc[0]
    assert joint["yes"] == Fraction(2, 9) * Fraction(3, 9) ** 3 * Fraction(9, 14) == Fraction(1, 189)
    assert joint["no"] == Fraction(3, 5) * Fraction(1, 5) * Fraction(4, 5) * Fraction(3, 5) \
        * Fraction(5, 14) == Fraction(18, 875)
    floats = model.joint_proba(QUERY).iloc[0]
    assert round(floats["yes"], 4) == 0.0053 and round(floats["no"], 4) == 0.0206


def test_weather_posterior_and_prediction(weather):
    model = CategoricalNB(alpha=0).fit(*weather)
    proba = model.predict_proba(QUERY)[0]
    assert list(model.classes_) == ["no", "yes"]
    assert proba[0] == pytest.approx(0.795, abs=5e-4)
    assert proba[0] == pytest.approx(float(Fraction(18, 875) / (Fraction(18, 875) + Fraction(1, 189))))
    assert model.predict(QUERY)[0] == "no"
    exact = model.predict_proba(QUERY, exact=True).iloc[0]
    assert exact["no"] == Fraction(486, 611) and exact.sum() == 1


def test_likelihood_table_reads_like_the_slide(weather):
    model = CategoricalNB(alpha=0).fit(*weather)
    table = model.likelihood_table("outlook")
    assert list(table.index) == ["sunny", "overcast", "rainy"]
    assert table.loc["sunny", "yes"] == "2/9" and table.loc["sunny", "no"] == "3/5"
    assert table.loc["overcast", "no"] == "0/5"
    assert model.frequency_table("humidity").loc["high"].to_dict() == {"no": 4, "yes": 3}
    assert model.prior_table().to_dict() == {"no": "5/14", "yes": "9/14"}
    smoothed = CategoricalNB(alpha=1).fit(*weather).likelihood_table("outlook")
    assert smoothed.loc["overcast", "no"] == "1/8"


def test_a_subclass_that_smooths_differently_changes_every_table_alike(weather):
    # _update_feature_log_prob is the documented hook: a subclass that smooths with twice
    # the alpha must get probabilities, exact scores and the slide's fractions that agree.
    class DoubleAlphaNB(CategoricalNB):
        def _update_feature_log_prob(self, alpha):
            super()._update_feature_log_prob(2 * alpha)

    model = DoubleAlphaNB(alpha=0.5).fit(*weather)
    same = CategoricalNB(alpha=1.0).fit(*weather)
    np.testing.assert_allclose(model.predict_proba(QUERY), same.predict_proba(QUERY))
    exact = model.predict_proba(QUERY, exact=True).iloc[0]
    assert exact.tolist() == same.predict_proba(QUERY, exact=True).iloc[0].tolist()
    np.testing.assert_allclose([float(p) for p in exact], model.predict_proba(QUERY)[0])
    assert model.likelihood_table("outlook").loc["sunny", "yes"] == "3/12"  # (2 + 1) / (9 + 3)
    assert model.likelihood_table("outlook").equals(same.likelihood_table("outlook"))


def test_a_subclass_that_bypasses_the_smoothing_step_gets_no_wrong_fractions(weather):
    class HandMadeNB(CategoricalNB):
        def _update_feature_log_prob(self, alpha):
            self.feature_log_prob_ = [np.log(np.full(c.shape, 1.0 / c.shape[1]))
                                      for c in self.category_count_]

    model = HandMadeNB().fit(*weather)
    assert model.predict_proba(QUERY)[0].tolist() == pytest.approx([5 / 14, 9 / 14])
    with pytest.raises(ValueError, match="not made by the smoothing step"):
        model.likelihood_table("outlook")
    with pytest.raises(ValueError, match="not made by the smoothing step"):
        model.joint_proba(QUERY, exact=True)


def test_zero_count_makes_overcast_certain_and_smoothing_fixes_it(weather):
    query = dict(QUERY, outlook="overcast")
    assert CategoricalNB(alpha=0).fit(*weather).predict_proba(query)[0, 0] == 0.0
    assert 0 < CategoricalNB(alpha=1).fit(*weather).predict_proba(query)[0, 0] < 1


@pytest.mark.parametrize("alpha", [1.0, 0.5, 3.0])
def test_categorical_matches_sklearn(weather, alpha):
    X, y = weather
    ours = CategoricalNB(alpha=alpha).fit(X, y)
    categories = [list(values) for values in ours.categories_]
    encoder = OrdinalEncoder(categories=categories)
    theirs = sk.CategoricalNB(alpha=alpha).fit(encoder.fit_transform(X), y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(encoder.transform(X)))
    np.testing.assert_allclose(ours.class_log_prior_, theirs.class_log_prior_)
    for mine, reference in zip(ours.feature_log_prob_, theirs.feature_log_prob_):
        np.testing.assert_allclose(mine, reference)


def test_categorical_exact_needs_no_float_alpha(weather):
    model = CategoricalNB(alpha=Fraction(1, 2)).fit(*weather)
    exact = model.joint_proba(QUERY, exact=True).iloc[0]
    np.testing.assert_allclose([float(v) for v in exact], model.joint_proba(QUERY).iloc[0])


def test_categorical_bad_input_is_named(weather):
    X, y = weather
    model = CategoricalNB(alpha=0).fit(X, y)
    with pytest.raises(ValueError, match="'outlook' has the value 'foggy'"):
        model.predict(dict(QUERY, outlook="foggy"))
    with pytest.raises(ValueError, match="missing the feature"):
        model.predict({"outlook": "sunny"})
    with pytest.warns(UserWarning, match="only one class"):
        CategoricalNB().fit(X, ["yes"] * len(X))
    with pytest.raises(ValueError, match="alpha"):
        CategoricalNB(alpha=-1).fit(X, y)
    with pytest.raises(ValueError, match="14 labels but X has 3"):
        CategoricalNB().fit(X.head(3), y)
    with pytest.raises(ValueError, match="missing values"):
        CategoricalNB().fit(X.where(X != "hot"), y)
    with pytest.raises(NotFittedError, match="not fitted"):
        CategoricalNB().predict(QUERY)
    with pytest.raises(ValueError, match="feature must be one of"):
        model.likelihood_table("colour")


# ----- multinomial and Bernoulli against scikit-learn --------------------------------------
@pytest.mark.parametrize("alpha", [1.0, 0.1, 0.01])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("ours_cls, theirs_cls", [(MultinomialNB, sk.MultinomialNB),
                                                  (BernoulliNB, sk.BernoulliNB)])
def test_discrete_estimators_match_sklearn(counts_data, alpha, sparse, ours_cls, theirs_cls):
    X, y = counts_data
    Xin = sp.csr_matrix(X) if sparse else X
    ours = ours_cls(alpha=alpha).fit(Xin, y)
    theirs = theirs_cls(alpha=alpha).fit(X, y)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_array_equal(ours.feature_count_, theirs.feature_count_)
    np.testing.assert_array_equal(ours.class_count_, theirs.class_count_)
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_)
    np.testing.assert_allclose(ours.class_log_prior_, theirs.class_log_prior_)
    np.testing.assert_allclose(ours.predict_log_proba(Xin), theirs.predict_log_proba(X), atol=1e-10)
    np.testing.assert_array_equal(ours.predict(Xin), theirs.predict(X))


def test_bernoulli_counts_absent_words():
    # Two documents that share their present words but differ in an absent one must
    # get different scores: the (1 - theta) factors are part of the model.
    X = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 1], [0, 1, 1]])
    y = [0, 0, 1, 1]
    model = BernoulliNB(alpha=1).fit(X, y)
    theta = (model.feature_count_ + 1) / (model.class_count_[:, None] + 2)
    x = np.array([1, 0, 0])
    by_hand = np.log(0.5) + np.sum(x * np.log(theta) + (1 - x) * np.log(1 - theta), axis=1)
    np.testing.assert_allclose(model.predict_joint_log_proba([x])[0], by_hand)


def test_class_prior_options_match_sklearn(counts_data):
    X, y = counts_data
    for kwargs in ({"fit_prior": False}, {"class_prior": [0.2, 0.3, 0.5]}):
        ours = MultinomialNB(**kwargs).fit(X, y)
        theirs = sk.MultinomialNB(**kwargs).fit(X, y)
        np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X))


def test_alpha_zero_is_the_mle_without_nan():
    X = np.array([[2, 0], [1, 0], [0, 3]])
    model = MultinomialNB(alpha=0).fit(X, [0, 0, 1])
    np.testing.assert_allclose(np.exp(model.feature_log_prob_), [[1, 0], [0, 1]])
    proba = model.predict_proba([[1, 0], [0, 2]])
    np.testing.assert_array_equal(proba, [[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="probability zero under every class"):
        model.predict_proba([[1, 1]])
    bern = BernoulliNB(alpha=0).fit(X, [0, 0, 1])
    assert not np.isnan(bern.predict_joint_log_proba(X)).any()
    np.testing.assert_array_equal(bern.predict(X), [0, 0, 1])


@pytest.mark.parametrize("method", ["predict", "predict_proba", "predict_log_proba"])
def test_an_impossible_sample_raises_in_predict_as_in_predict_proba(method):
    """alpha=0: the sample [1, 1] has probability zero under both classes; predict
    must not answer class 0 where predict_proba refuses."""
    model = MultinomialNB(alpha=0).fit(np.array([[2, 0], [1, 0], [0, 3]]), [0, 0, 1])
    with pytest.raises(ValueError, match="sample 1 has probability zero under every class"):
        getattr(model, method)([[1, 0], [1, 1]])


def test_discrete_bad_input_is_named(counts_data):
    X, y = counts_data
    with pytest.raises(ValueError, match="Negative values in data passed to MultinomialNB"):
        MultinomialNB().fit(-X, y)
    with pytest.raises(ValueError, match="NaN"):
        MultinomialNB().fit(np.where(X > 0, np.nan, X), y)
    with pytest.raises(ValueError, match="2-D"):
        MultinomialNB().fit(X[0], y[:1])
    model = MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="X has 39 features, but MultinomialNB is expecting 40 features"):
        model.predict(X[:, 1:])
    with pytest.raises(ValueError, match="empty"):
        model.predict(np.zeros((0, 40)))
    with pytest.raises(TypeError, match="alpha"):
        MultinomialNB(alpha="one").fit(X, y)
    with pytest.raises(ValueError, match="exactly two classes"):
        model.to_linear()


# ----- counting is learning: shards add up --------------------------------------------------
@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB])
def test_partial_fit_on_shards_equals_fit(counts_data, cls):
    X, y = counts_data
    whole = cls(alpha=0.5).fit(X, y)
    shards = cls(alpha=0.5)
    for start in range(0, len(y), 70):
        shards.partial_fit(sp.csr_matrix(X[start:start + 70]), y[start:start + 70],
                           classes=np.unique(y))
    np.testing.assert_array_equal(shards.feature_count_, whole.feature_count_)
    np.testing.assert_array_equal(shards.feature_log_prob_, whole.feature_log_prob_)
    np.testing.assert_array_equal(shards.predict_proba(X), whole.predict_proba(X))


def test_partial_fit_needs_classes_first():
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        MultinomialNB().partial_fit([[1, 2]], [0])
    with pytest.raises(ValueError, match=r"label\(s\) \['c'\] in y do not exist in the initial classes"):
        MultinomialNB().partial_fit([[1, 2]], ["c"], classes=["a", "b"])


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 59), st.integers(0, 10_000))
def test_gaussian_partial_fit_equals_fit(split, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 3)) * [1, 10, 0.1] + [0, 5, -2]
    y = rng.integers(0, 2, size=60)
    y[:2] = [0, 1]
    whole = GaussianNB().fit(X, y)
    shards = GaussianNB().partial_fit(X[:split], y[:split], classes=[0, 1])
    shards.partial_fit(X[split:], y[split:])
    np.testing.assert_allclose(shards.theta_, whole.theta_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(shards.var_, whole.var_, rtol=1e-10)
    np.testing.assert_array_equal(shards.class_count_, whole.class_count_)


# ----- Gaussian against scikit-learn ---------------------------------------------------------
def test_gaussian_matches_sklearn():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 1, (50, 4)), rng.normal(1, 2, (40, 4))])
    y = np.array(["a"] * 50 + ["b"] * 40)
    ours = GaussianNB().fit(X, y)
    theirs = sk.GaussianNB().fit(X, y)
    np.testing.assert_allclose(ours.theta_, theirs.theta_)
    np.testing.assert_allclose(ours.var_, theirs.var_)
    np.testing.assert_allclose(ours.epsilon_, theirs.epsilon_)
    np.testing.assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X), atol=1e-9)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    prior = GaussianNB(priors=[0.9, 0.1]).fit(X, y)
    np.testing.assert_allclose(prior.predict_proba(X),
                               sk.GaussianNB(priors=[0.9, 0.1]).fit(X, y).predict_proba(X))


def test_gaussian_rejects_sparse():
    with pytest.raises(TypeError, match="dense"):
        GaussianNB().fit(sp.csr_matrix(np.eye(3)), [0, 1, 1])


# ----- naive Bayes is linear ---------------------------------------------------------------
def _binary(counts_data):
    X, y = counts_data
    keep = y != "eggs"
    return X[keep], y[keep]


@pytest.mark.parametrize("model", [MultinomialNB(alpha=1), BernoulliNB(alpha=0.5)])
def test_to_linear_decides_like_predict(counts_data, model):
    X, y = _binary(counts_data)
    model.fit(X, y)
    w0, w = model.to_linear()
    features = (X > 0).astype(float) if isinstance(model, BernoulliNB) else X
    linear = np.where(w0 + features @ w > 0, model.classes_[1], model.classes_[0])
    np.testing.assert_array_equal(linear, model.predict(X))
    # and the score is the log-odds itself, not just something with the same sign
    log_proba = model.predict_log_proba(X)
    np.testing.assert_allclose(w0 + features @ w, log_proba[:, 1] - log_proba[:, 0], atol=1e-9)


def test_gaussian_is_linear_only_with_shared_variance():
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(0, 1, (60, 2)), rng.normal([2, 1], [1, 3], (60, 2))])
    y = np.repeat([0, 1], 60)
    with pytest.raises(ValueError, match="quadratic"):
        GaussianNB().fit(X, y).to_linear()
    model = GaussianNB(shared_variance=True).fit(X, y)
    w0, w = model.to_linear()
    np.testing.assert_array_equal((w0 + X @ w > 0).astype(int), model.predict(X))
    pooled = (np.var(X[:60], axis=0) * 60 + np.var(X[60:], axis=0) * 60) / 120
    np.testing.assert_allclose(model.var_[0], pooled + model.epsilon_)


def test_alpha_zero_weights_are_refused():
    model = MultinomialNB(alpha=0).fit([[1, 0], [0, 1]], [0, 1])
    with pytest.raises(ValueError, match="alpha > 0"):
        model.to_linear()


# ----- size: 20 Newsgroups scale without a dense matrix --------------------------------------
def test_sparse_fit_at_newsgroups_scale_stays_small():
    rng = np.random.default_rng(3)
    n_docs, n_words, nnz = 11_314, 130_107, 1_500_000
    X = sp.csr_matrix((rng.integers(1, 5, nnz).astype(float),
                       (rng.integers(0, n_docs, nnz), rng.integers(0, n_words, nnz))),
                      shape=(n_docs, n_words))
    y = rng.integers(0, 20, n_docs)
    tracemalloc.start()
    model = MultinomialNB(alpha=0.01).fit(X, y)
    predictions = model.predict(X[:2000])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    dense_bytes = n_docs * n_words * 8
    assert peak < dense_bytes / 20, f"peak {peak / 1e6:.0f} MB looks like a dense copy"
    assert predictions.shape == (2000,)
    reference = sk.MultinomialNB(alpha=0.01).fit(X, y)
    np.testing.assert_array_equal(predictions, reference.predict(X[:2000]))


# ----- many random data sets (hypothesis) -------------------------------------------------------
def _random_counts(seed, n_samples, n_features, n_classes):
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n_samples - n_classes)])
    X = rng.poisson(rng.uniform(0.1, 3.0, size=n_features), size=(n_samples, n_features))
    return X.astype(float), y


random_shapes = dict(
    seed=st.integers(0, 2**32 - 1), n_samples=st.integers(4, 40),
    n_features=st.integers(1, 8), n_classes=st.integers(2, 4),
    alpha=st.floats(0.01, 5.0), sparse=st.booleans())


@settings(max_examples=60, deadline=None)
@given(**random_shapes)
def test_discrete_estimators_match_sklearn_on_random_data(seed, n_samples, n_features, n_classes,
                                                          alpha, sparse):
    X, y = _random_counts(seed, n_samples, n_features, n_classes)
    Xin = sp.csr_matrix(X) if sparse else X
    for ours, theirs in ((MultinomialNB(alpha=alpha), sk.MultinomialNB(alpha=alpha)),
                         (BernoulliNB(alpha=alpha, binarize=1.0), sk.BernoulliNB(alpha=alpha, binarize=1.0))):
        ours.fit(Xin, y)
        theirs.fit(X, y)
        np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, atol=1e-9)
        np.testing.assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, atol=1e-12)
        np.testing.assert_array_equal(ours.class_count_, theirs.class_count_)
        np.testing.assert_array_equal(ours.feature_count_, theirs.feature_count_)
        np.testing.assert_allclose(ours.predict_proba(Xin), theirs.predict_proba(X), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_samples=st.integers(4, 40), n_features=st.integers(1, 5),
       n_classes=st.integers(2, 3), alpha=st.floats(0.01, 5.0))
def test_categorical_matches_sklearn_on_random_data(seed, n_samples, n_features, n_classes, alpha):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"f{j}": rng.choice(list("abcd")[: rng.integers(1, 5)], size=n_samples)
                      for j in range(n_features)})
    y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n_samples - n_classes)])
    ours = CategoricalNB(alpha=alpha).fit(X, y)
    encoder = OrdinalEncoder(categories=[list(values) for values in ours.categories_])
    codes = encoder.fit_transform(X)
    theirs = sk.CategoricalNB(alpha=alpha).fit(codes, y)
    for mine, reference in zip(ours.feature_log_prob_, theirs.feature_log_prob_):
        np.testing.assert_allclose(mine, reference, atol=1e-9)
    np.testing.assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(codes), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_samples=st.integers(6, 60), n_features=st.integers(1, 6),
       n_classes=st.integers(2, 4), var_smoothing=st.sampled_from([1e-9, 1e-6, 1e-2]))
def test_gaussian_matches_sklearn_on_random_data(seed, n_samples, n_features, n_classes, var_smoothing):
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n_samples - n_classes)])
    X = rng.normal(size=(n_samples, n_features)) * rng.uniform(0.1, 5, n_features) + y[:, None]
    ours = GaussianNB(var_smoothing=var_smoothing).fit(X, y)
    theirs = sk.GaussianNB(var_smoothing=var_smoothing).fit(X, y)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-9)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(**random_shapes)
def test_to_linear_equals_predict_on_random_data(seed, n_samples, n_features, n_classes, alpha, sparse):
    X, y = _random_counts(seed, n_samples, n_features, 2)
    Xin = sp.csr_matrix(X) if sparse else X
    for model in (MultinomialNB(alpha=alpha), BernoulliNB(alpha=alpha),
                  GaussianNB(shared_variance=True)):
        features = X if isinstance(model, GaussianNB) else Xin
        model.fit(features, y)
        if isinstance(model, GaussianNB) and not X.std(axis=0).any():
            with pytest.raises(ValueError, match="every feature of the training data is constant"):
                model.to_linear()
            continue
        w0, w = model.to_linear()
        inputs = (X > 0).astype(float) if isinstance(model, BernoulliNB) else X
        margin = w0 + inputs @ w
        log_odds = np.diff(model.predict_log_proba(features), axis=1).ravel()
        np.testing.assert_allclose(margin, log_odds, rtol=1e-6, atol=1e-8)
        # exact ties are 0 on both sides up to rounding, which may fall either way
        clear = np.abs(margin) > 1e-6 * (1 + np.abs(margin).max())
        linear = np.where(margin > 0, model.classes_[1], model.classes_[0])
        np.testing.assert_array_equal(linear[clear], model.predict(features)[clear])


def test_multinomial_takes_real_features_like_sklearn():
    # tf-idf weights act as fractional counts, as in scikit-learn
    rng = np.random.default_rng(3)
    X = rng.poisson(0.5, size=(40, 6)) * rng.random((40, 6))
    y = rng.integers(0, 2, size=40)
    ours, theirs = MultinomialNB(alpha=0.3).fit(X, y), sk.MultinomialNB(alpha=0.3).fit(X, y)
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-11)
    with pytest.raises(ValueError, match="Negative values in data passed to MultinomialNB"):
        ours.predict(sp.csr_matrix(-X))
