"""Hidden cases that catch plausible wrong answers, not only missing ones.

For every graded question we write down the mistakes students actually make (forgetting
the class prior, scoring alpha on the training set, confusing the MAP with the mean ...)
and grade each one through the grader's own path (probe, JSON round trip, comparison in
the grader's process).  Each mistake must lose points; for a function, at least one
*hidden* case must catch it, so the grade does not rest on the public example alone.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize

from nbcourse.grading import specs
from nbcourse.grading.hidden import grade_answer

EXERCISES: dict[str, specs.Exercise] = {}


def exercise(name: str) -> specs.Exercise:
    if name not in EXERCISES:
        EXERCISES[name] = specs.load(name)
    return EXERCISES[name]


# ------------------------------------------------------------------ 01 weather
def likelihood_whole_table(table, feature, value, target, label):
    matching = ((table[target] == label) & (table[feature] == value)).sum()
    return Fraction(int(matching), len(table))


def likelihood_reversed(table, feature, value, target, label):
    """P(label | value) instead of P(value | label)."""
    with_value = table[table[feature] == value]
    return Fraction(int((with_value[target] == label).sum()), max(len(with_value), 1))


def _likelihood(table, feature, value, target, label):
    in_class = table[table[target] == label]
    return Fraction(int((in_class[feature] == value).sum()), len(in_class))


def _scores(table, query, target, prior=lambda n, total: Fraction(n, total)):
    scores = {}
    for label in table[target].unique():
        score = prior(int((table[target] == label).sum()), len(table))
        for feature, value in query.items():
            score *= _likelihood(table, feature, value, target, label)
        scores[label] = score
    return scores


def joint_without_prior(table, query, target):
    return _scores(table, query, target, prior=lambda n, total: Fraction(1))


def joint_with_count_prior(table, query, target):
    return _scores(table, query, target, prior=lambda n, total: Fraction(n))


def joint_normalised(table, query, target):
    scores = _scores(table, query, target)
    return {label: s / sum(scores.values()) for label, s in scores.items()}


def predict_without_prior(table, query, target):
    scores = joint_without_prior(table, query, target)
    return max(scores, key=scores.get)


def predict_majority(table, query, target):
    return str(table[target].value_counts().idxmax())


def predict_smallest(table, query, target):
    scores = _scores(table, query, target)
    return min(scores, key=scores.get)


def _lesson_scores(prior=lambda n, total: Fraction(n, total)):
    from nbcourse.datasets import load_weather
    day = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}
    return _scores(load_weather(), day, "play", prior)


# ------------------------------------------------------------------ 02 smoothing
def parameters_swapped(a, b, heads, tails):
    return a + tails, b + heads


def parameters_total_in_b(a, b, heads, tails):
    return a + heads, b + heads + tails


def map_is_mean(a, b, heads, tails):
    return Fraction(a + heads, a + b + heads + tails)


def map_ignores_prior(a, b, heads, tails):
    return Fraction(heads, heads + tails)


def map_off_by_one(a, b, heads, tails):
    return Fraction(a + heads - 1) / (a + b + heads + tails - 1)


def mean_is_map(a, b, heads, tails):
    return Fraction(a + heads - 1) / (a + b + heads + tails - 2)


def mean_is_always_laplace(a, b, heads, tails):
    return Fraction(heads + 1, heads + tails + 2)


def mean_of_the_prior(a, b, heads, tails):
    return Fraction(a) / (a + b)


def smoothed_k_from_the_class(table, feature, value, target, label, alpha):
    in_class = table[table[target] == label]
    matching = int((in_class[feature] == value).sum())
    return (matching + alpha) / (len(in_class) + alpha * in_class[feature].nunique())


def smoothed_alpha_once(table, feature, value, target, label, alpha):
    in_class = table[table[target] == label]
    return (int((in_class[feature] == value).sum()) + alpha) / (len(in_class) + alpha)


def smoothed_k_is_classes(table, feature, value, target, label, alpha):
    in_class = table[table[target] == label]
    matching = int((in_class[feature] == value).sum())
    return (matching + alpha) / (len(in_class) + alpha * table[target].nunique())


def _smoothed_p_no(prior):
    from nbcourse.datasets import load_weather
    weather = load_weather()
    day = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}
    scores = {}
    for label in ("no", "yes"):
        in_class = weather[weather["play"] == label]
        score = prior(len(in_class), len(weather))
        for feature, value in day.items():
            score *= Fraction(int((in_class[feature] == value).sum()) + 1,
                              len(in_class) + weather[feature].nunique())
        scores[label] = score
    return scores["no"] / sum(scores.values())


# ------------------------------------------------------------------ 03 mle
def log_likelihood_without_skipping(counts, theta):
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.sum(np.asarray(counts) * np.log(np.asarray(theta, dtype=float))))


def log_likelihood_ignoring_impossible(counts, theta):
    """Drops every zero probability, so impossible data look merely unlikely."""
    counts, theta = np.asarray(counts, dtype=float), np.asarray(theta, dtype=float)
    keep = (counts > 0) & (theta > 0)
    return float(np.sum(counts[keep] * np.log(theta[keep])))


def log_likelihood_unweighted(counts, theta):
    counts, theta = np.asarray(counts), np.asarray(theta, dtype=float)
    with np.errstate(divide="ignore"):
        return float(np.sum(np.log(theta[counts > 0])))


def mle_laplace(counts):
    counts = np.asarray(counts, dtype=float)
    return ((counts + 1) / (counts.sum() + len(counts))).tolist()


def mle_over_the_largest(counts):
    counts = np.asarray(counts, dtype=float)
    return (counts / counts.max()).tolist()


def numeric_without_constraint(counts):
    counts = np.asarray(counts, dtype=float)
    result = minimize(lambda t: -np.sum(counts * np.log(t)), np.full(len(counts), 0.5),
                      bounds=[(1e-9, 1.0)] * len(counts))
    return result.x.tolist()


def numeric_returns_scores(counts):
    counts = np.asarray(counts, dtype=float)
    result = minimize(lambda z: -np.sum(counts * (z - np.logaddexp.reduce(z))),
                      np.zeros(len(counts)))
    return result.x.tolist()


def priors_as_counts(labels):
    return {label: labels.count(label) for label in set(labels)}


def priors_over_distinct_labels(labels):
    return {label: labels.count(label) / len(set(labels)) for label in set(labels)}


def priors_yes_no(labels):
    return {label: labels.count(label) / len(labels) for label in ("yes", "no")}


def words_over_everything(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    return {label: (X[y == label].sum(axis=0) / X.sum()).tolist() for label in np.unique(y)}


def words_average_of_documents(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    rows = X / X.sum(axis=1, keepdims=True)
    return {label: rows[y == label].mean(axis=0).tolist() for label in np.unique(y)}


def words_document_frequency(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    return {label: (X[y == label] > 0).mean(axis=0).tolist() for label in np.unique(y)}


def words_laplace(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    result = {}
    for label in np.unique(y):
        counts = X[y == label].sum(axis=0) + 1
        result[label] = (counts / counts.sum()).tolist()
    return result


# ------------------------------------------------------------------ 04 linearity
def weights_reversed(class_log_prior, feature_log_prob):
    prior, words = np.asarray(class_log_prior), np.asarray(feature_log_prob)
    return float(prior[0] - prior[1]), words[0] - words[1]


def weights_without_w0(class_log_prior, feature_log_prob):
    words = np.asarray(feature_log_prob)
    return 0.0, words[1] - words[0]


def weights_from_probabilities(class_log_prior, feature_log_prob):
    prior, words = np.exp(class_log_prior), np.exp(feature_log_prob)
    return float(prior[1] - prior[0]), words[1] - words[0]


def _scores_of(w0, w, X):
    return w0 + np.asarray(X @ np.asarray(w, dtype=float)).ravel()


def decide_without_w0(w0, w, X):
    return (_scores_of(0.0, w, X) > 0).astype(int)


def decide_reversed(w0, w, X):
    return (_scores_of(w0, w, X) < 0).astype(int)


def posterior_without_w0(w0, w, X):
    return 1 / (1 + np.exp(-_scores_of(0.0, w, X)))


def posterior_of_class0(w0, w, X):
    return 1 / (1 + np.exp(_scores_of(w0, w, X)))


def _comparison(changes):
    """The right table (from the spec's own reference) with some cells changed."""
    right = exercise("04_linearity").question("q5").reference()
    table = {model: dict(rows) for model, rows in right.items()}
    for (model, row), answer in changes.items():
        table[model][row] = answer
    return table


# ------------------------------------------------------------------ 05 spam
def split_rounded(n, seed):
    order = np.random.default_rng(seed).permutation(n)
    n_train, n_validation = round(0.8 * n), round(0.1 * n)
    return (order[:n_train].tolist(), order[n_train:n_train + n_validation].tolist(),
            order[n_train + n_validation:].tolist())


def split_sorted(n, seed):
    order = np.random.default_rng(seed).permutation(n)
    n_train, n_validation = int(0.8 * n), int(0.1 * n)
    parts = (order[:n_train], order[n_train:n_train + n_validation],
             order[n_train + n_validation:])
    return tuple(sorted(part.tolist()) for part in parts)


def split_test_gets_the_tenth(n, seed):
    order = np.random.default_rng(seed).permutation(n)
    n_train, n_test = int(0.8 * n), int(0.1 * n)
    return (order[:n_train].tolist(), order[n_train + n_test:].tolist(),
            order[n_train:n_train + n_test].tolist())


def correct_count(y_true, y_pred):
    return int(np.sum(np.asarray(y_true) == np.asarray(y_pred)))


def error_rate(y_true, y_pred):
    return float(np.mean(np.asarray(y_true) != np.asarray(y_pred)))


def _accuracy(y_true, y_pred):
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def _choose(alphas, accuracy_of, keep_ties_last=False):
    best, best_accuracy = None, -1.0
    for alpha in alphas:
        accuracy = accuracy_of(alpha)
        if accuracy > best_accuracy or (keep_ties_last and accuracy == best_accuracy):
            best, best_accuracy = alpha, accuracy
    return best


def choose_on_validation(X_train, y_train, X_validation, y_validation, alphas):
    """The right way, for the recipe's wrong steps that come later."""
    from nbcourse import MultinomialNB
    return _choose(alphas, lambda a: _accuracy(
        y_validation, MultinomialNB(alpha=a).fit(X_train, y_train).predict(X_validation)))


def choose_on_training(X_train, y_train, X_validation, y_validation, alphas):
    from nbcourse import MultinomialNB
    return _choose(alphas, lambda a: _accuracy(
        y_train, MultinomialNB(alpha=a).fit(X_train, y_train).predict(X_train)))


def choose_largest_on_ties(X_train, y_train, X_validation, y_validation, alphas):
    from nbcourse import MultinomialNB
    return _choose(alphas, lambda a: _accuracy(
        y_validation, MultinomialNB(alpha=a).fit(X_train, y_train).predict(X_validation)),
        keep_ties_last=True)


def choose_fitting_on_validation_too(X_train, y_train, X_validation, y_validation, alphas):
    from nbcourse import MultinomialNB
    stack = sp.vstack if sp.issparse(X_train) else np.vstack
    X_both = stack([X_train, X_validation])
    y_both = np.concatenate([np.asarray(y_train), np.asarray(y_validation)])
    return _choose(alphas, lambda a: _accuracy(
        y_validation, MultinomialNB(alpha=a).fit(X_both, y_both).predict(X_validation)))


def _sms_recipe(choose, report_on="test"):
    """The experiment of questions 4 and 5 with one step done the wrong way."""
    from nbcourse import MultinomialNB
    from nbcourse.datasets import load_sms_spam_or_mini
    from nbcourse.text import BagOfWords
    sms = load_sms_spam_or_mini()
    order = np.random.default_rng(0).permutation(len(sms))
    n_train, n_validation = int(0.8 * len(sms)), int(0.1 * len(sms))
    parts = {"train": order[:n_train], "validation": order[n_train:n_train + n_validation],
             "test": order[n_train + n_validation:]}
    vectorizer = BagOfWords()
    X = {"train": vectorizer.fit_transform(sms["text"].iloc[parts["train"]])}
    X.update({part: vectorizer.transform(sms["text"].iloc[parts[part]])
              for part in ("validation", "test")})
    y = {part: sms["label"].to_numpy()[rows] for part, rows in parts.items()}
    alpha = choose(X["train"], y["train"], X["validation"], y["validation"],
                   [0.01, 0.03, 0.1, 0.3, 1.0, 3.0])
    model = MultinomialNB(alpha=alpha).fit(X["train"], y["train"])
    return alpha, _accuracy(y[report_on], model.predict(X[report_on]))


# ------------------------------------------------------------------ the table
FUNCTION_MISTAKES = {
    ("01_weather", "q1"): {"divides by every row of the table": likelihood_whole_table,
                           "P(label | value) instead of P(value | label)": likelihood_reversed},
    ("01_weather", "q2"): {"forgets the prior": joint_without_prior,
                           "uses the class count as the prior": joint_with_count_prior,
                           "returns the posterior instead of the joint score": joint_normalised},
    ("01_weather", "q3"): {"forgets the prior": predict_without_prior,
                           "always the most frequent label": predict_majority,
                           "the smallest score": predict_smallest},
    ("02_smoothing", "q1"): {"heads and tails swapped": parameters_swapped,
                             "adds every toss to b": parameters_total_in_b},
    ("02_smoothing", "q2"): {"the mean instead of the mode": map_is_mean,
                             "ignores the prior": map_ignores_prior,
                             "subtracts 1 instead of 2 below": map_off_by_one},
    ("02_smoothing", "q3"): {"the mode instead of the mean": mean_is_map,
                             "always Laplace's rule": mean_is_always_laplace,
                             "the prior's mean, without the data": mean_of_the_prior},
    ("02_smoothing", "q5"): {"K counted within the class": smoothed_k_from_the_class,
                             "alpha added once below": smoothed_alpha_once,
                             "K is the number of classes": smoothed_k_is_classes},
    ("03_mle", "q1"): {"0 * log 0 not skipped": log_likelihood_without_skipping,
                       "impossible data not -inf": log_likelihood_ignoring_impossible,
                       "counts not used as weights": log_likelihood_unweighted},
    ("03_mle", "q2"): {"Laplace smoothing added": mle_laplace,
                       "divides by the largest count": mle_over_the_largest},
    ("03_mle", "q3"): {"optimises without the constraint": numeric_without_constraint,
                       "returns the scores z": numeric_returns_scores},
    ("03_mle", "q4"): {"counts instead of shares": priors_as_counts,
                       "divides by the number of labels": priors_over_distinct_labels,
                       "only 'yes' and 'no'": priors_yes_no},
    ("03_mle", "q5"): {"normalised over all classes": words_over_everything,
                       "average of per-document shares": words_average_of_documents,
                       "share of documents containing the word": words_document_frequency,
                       "Laplace smoothing added": words_laplace},
    ("04_linearity", "q1"): {"class 0 minus class 1": weights_reversed,
                             "w0 left out": weights_without_w0,
                             "probabilities instead of logs": weights_from_probabilities},
    ("04_linearity", "q2"): {"w0 left out": decide_without_w0, "sign reversed": decide_reversed},
    ("04_linearity", "q3"): {"w0 left out": posterior_without_w0,
                             "the posterior of class 0": posterior_of_class0},
    ("05_spam", "q1"): {"rounds the sizes": split_rounded, "sorts each part": split_sorted,
                        "validation and test swapped": split_test_gets_the_tenth},
    ("05_spam", "q2"): {"the number right, not the share": correct_count,
                        "the error rate": error_rate},
    ("05_spam", "q3"): {"scores alpha on the training part": choose_on_training,
                        "keeps the largest alpha on a tie": choose_largest_on_ties,
                        "fits on training and validation": choose_fitting_on_validation_too},
}

VALUE_MISTAKES = {  # values are computed when the test runs
    ("01_weather", "q4"): {
        "P(yes | day) instead of P(no | day)":
            lambda: _lesson_scores()["yes"] / sum(_lesson_scores().values()),
        "the joint score, not normalised": lambda: _lesson_scores()["no"],
        "forgets the prior": lambda: (lambda s: s["no"] / sum(s.values()))(
            _lesson_scores(prior=lambda n, total: Fraction(1))),
    },
    ("02_smoothing", "q4"): {"Beta(2, 2), whose MAP is add-one": lambda: (2, 2),
                             "Beta(0, 0)": lambda: (0, 0)},
    ("02_smoothing", "q6"): {
        "the prior smoothed too":
            lambda: _smoothed_p_no(lambda n, total: Fraction(n + 1, total + 2)),
        "forgets the prior": lambda: _smoothed_p_no(lambda n, total: Fraction(1)),
    },
    ("04_linearity", "q4"): {"0/1 compared with the labels directly": lambda: 0.0,
                             "a share below 1 (w0 left out)": lambda: 0.96},
    ("04_linearity", "q5"): {
        "logistic regression said to assume independence": lambda: _comparison(
            {("logistic regression", "assumes the features independent given the class"): "yes"}),
        "the two models' targets swapped": lambda: _comparison({
            ("naive Bayes", "what is modelled"): "the conditional distribution p(y | x)",
            ("logistic regression", "what is modelled"): "the joint distribution p(x, y)"}),
    },
    ("05_spam", "q4"): {"alpha scored on the training part":
                            lambda: _sms_recipe(choose_on_training)[0],
                        "the largest alpha on a tie":
                            lambda: _sms_recipe(choose_largest_on_ties)[0]},
    ("05_spam", "q5"): {"the validation accuracy reported":
                            lambda: _sms_recipe(choose_on_validation, report_on="validation")[1],
                        "the test accuracy of the largest tied alpha":
                            lambda: _sms_recipe(choose_largest_on_ties)[1]},
}


def _flatten(table):
    return [pytest.param(name, question, answer, id=f"{name}-{question}-{mistake}")
            for (name, question), mistakes in table.items()
            for mistake, answer in mistakes.items()]


@pytest.mark.parametrize("name, question, answer", _flatten(FUNCTION_MISTAKES))
def test_a_plausible_wrong_function_fails_a_hidden_case(name, question, answer):
    result = grade_answer(exercise(name), question, answer)
    caught = [case.name for case in result.cases if case.hidden and not case.passed]
    assert caught, f"every hidden case passes: {[c.name for c in result.cases]}"
    assert result.score < result.points


@pytest.mark.parametrize("name, question, value", _flatten(VALUE_MISTAKES))
def test_a_plausible_wrong_value_scores_nothing(name, question, value):
    result = grade_answer(exercise(name), question, value())
    assert result.score == 0 and result.status == "failed", result.cases


def test_every_graded_question_has_mistakes_to_catch():
    """A new question needs its own list of plausible mistakes above."""
    for name in specs.available():
        for question in exercise(name).questions:
            table = FUNCTION_MISTAKES if question.kind == "function" else VALUE_MISTAKES
            assert table.get((name, question.id)), f"{name} {question.id}: no mistake is checked"


def test_forgetting_the_prior_costs_points_in_predict():
    """The review's case: likelihoods alone say 'no', the prior-weighted scores say 'yes'."""
    from nbcourse.datasets import load_weather
    weather = load_weather()
    day = {"humidity": "high", "windy": "false"}
    without = joint_without_prior(weather, day, "play")
    with_prior = _scores(weather, day, "play")
    assert max(without, key=without.get) == "no" and max(with_prior, key=with_prior.get) == "yes"
    result = grade_answer(exercise("01_weather"), "q3", predict_without_prior)
    assert "a day where the class prior tips the balance" in \
        [case.name for case in result.cases if not case.passed]
