"""Grading spec for exercise 2, smoothing with Beta priors.

Expected values come from nbcourse.smoothing (Beta posterior, mode, mean) and from
CategoricalNB with alpha > 0, computed in the grader's process.
"""
from fractions import Fraction

import pandas as pd

from nbcourse import CategoricalNB
from nbcourse.datasets import load_picnic, load_weather
from nbcourse.grading.specs import Case, Exercise, Question
from nbcourse.smoothing import beta_mean, beta_mode, beta_posterior

WEATHER = load_weather()
PICNIC = load_picnic()
LESSON_DAY = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}
SHUFFLED = WEATHER.sample(frac=1.0, random_state=11).iloc[:9]
FRUIT = pd.DataFrame({
    "colour": ["red", "red", "yellow", "yellow", "yellow", "red", "green", "yellow", "red", "green"],
    "size": ["small", "small", "long", "long", "small", "small", "small", "long", "big", "big"],
    "label": ["cherry", "cherry", "banana", "banana", "lemon", "cherry", "lemon", "banana",
              "apple", "apple"],
})

COIN_CASES = [  # (a, b, heads, tails); every posterior has a single mode
    Case("three heads in three tosses, flat prior Beta(1, 1)", (1, 1, 3, 0), hidden=False),
    Case("a prior worth four tosses and a fair coin's data", (2, 2, 7, 3)),
    Case("a strong prior and little data", (20, 5, 1, 2)),
    Case("a prior that believes in tails", (1, 4, 6, 0)),
    Case("fractional pseudo-counts", (Fraction(3, 2), Fraction(5, 2), 4, 4)),
    Case("many tosses", (3, 3, 480, 520)),
]


def ref_posterior_parameters(a, b, heads, tails):
    return list(beta_posterior(a, b, heads, tails, exact=True))


def ref_map(a, b, heads, tails):
    return beta_mode(*beta_posterior(a, b, heads, tails, exact=True), exact=True)


def ref_mean(a, b, heads, tails):
    return beta_mean(*beta_posterior(a, b, heads, tails, exact=True), exact=True)


def ref_smoothed_likelihood(table, feature, value, target, label, alpha):
    model = CategoricalNB(alpha=alpha).fit(table[[feature]], table[target])
    return float(model.likelihood_table(feature, numeric=True).loc[value, label])


def ref_smoothed_p_no():
    model = CategoricalNB(alpha=1).fit(WEATHER[list(LESSON_DAY)], WEATHER["play"])
    return model.predict_proba(pd.DataFrame([LESSON_DAY]), exact=True).iloc[0]["no"]


def pair_of_numbers(actual, expected, case):
    """(1, 1) as a tuple, a list or an array; the values must match exactly."""
    if not isinstance(actual, list) or len(actual) != 2:
        return "expected two numbers (a, b)"
    if any(isinstance(x, bool) or not isinstance(x, (int, float, Fraction)) for x in actual):
        return "expected two numbers (a, b)"
    return None if [float(x) for x in actual] == [float(x) for x in expected] else \
        "this prior does not turn the posterior mean into add-one smoothing"


SMOOTHING = ("beta_posterior", "beta_mode", "beta_mean", "beta_summary", "laplace",
             "lidstone", "m_estimate")

EXERCISE = Exercise(
    title="Exercise 2: smoothing as pseudo-counts",
    questions=[
        Question("q1", "posterior_parameters", points=1, title="the Beta posterior's parameters",
                 reference=ref_posterior_parameters, cases=COIN_CASES, forbidden=SMOOTHING,
                 hint="the prior's a and b act as heads and tails seen before the data"),
        Question("q2", "map_estimate", points=2, title="the MAP estimate (posterior mode)",
                 reference=ref_map, cases=COIN_CASES, forbidden=SMOOTHING,
                 hint="the MAP is where the posterior density peaks, not its average"),
        Question("q3", "posterior_mean", points=2, title="the posterior mean",
                 reference=ref_mean, cases=COIN_CASES, forbidden=SMOOTHING,
                 hint="the mean of Beta(a, b) is a / (a + b); apply it to the posterior"),
        Question("q4", "laplace_prior", points=1, kind="value",
                 title="the prior behind Laplace's add-one rule",
                 reference=lambda: [1, 1], judge=pair_of_numbers,
                 hint="which (a, b) turns the posterior mean into (n + 1) / (N + 2)?"),
        Question("q5", "smoothed_likelihood", points=2,
                 title="a smoothed likelihood from a table", reference=ref_smoothed_likelihood,
                 forbidden=("CategoricalNB",) + SMOOTHING,
                 hint="alpha is added once for every value the feature can take",
                 cases=[
                     Case("P(outlook = overcast | play = no) with alpha = 1",
                          (WEATHER, "outlook", "overcast", "play", "no", 1), hidden=False),
                     Case("alpha = 0 gives back the plain count ratio",
                          (WEATHER, "windy", "true", "play", "yes", 0)),
                     Case("half a pseudo-count", (WEATHER, "temperature", "mild", "play", "no", 0.5)),
                     Case("a strong prior", (WEATHER, "humidity", "high", "play", "yes", 10)),
                     Case("a table with other column names", (PICNIC, "sky", "rainy", "enjoy", "yes", 1)),
                     Case("a table with three classes", (FRUIT, "size", "big", "label", "lemon", 2)),
                     Case("a shuffled table with fewer rows",
                          (SHUFFLED, "outlook", "sunny", "play", "yes", 1)),
                 ]),
        Question("q6", "smoothed_p_no", points=1, kind="value",
                 title="the smoothed posterior P(play = no | the lesson's day)",
                 reference=ref_smoothed_p_no, forbidden=("CategoricalNB",) + SMOOTHING,
                 hint="smooth every likelihood with alpha = 1; the class prior stays a plain "
                      "count ratio"),
    ],
)
