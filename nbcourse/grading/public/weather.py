"""Public tests for exercise 1 (the weather example by hand)."""
from fractions import Fraction

import pandas as pd

from nbcourse.grading.selfcheck import PublicQuestion, PublicTest

LESSON_DAY = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}


def _weather():
    from nbcourse.datasets import load_weather
    return load_weather()


def _lesson_scores():
    from nbcourse import CategoricalNB
    weather = _weather()
    model = CategoricalNB(alpha=0).fit(weather[list(LESSON_DAY)], weather["play"])
    row = model.joint_proba(pd.DataFrame([LESSON_DAY]), exact=True).iloc[0]
    return {label: row[label] for label in model.classes_}


def _same_keys(actual, expected):
    if not isinstance(actual, dict):
        return "expected a dict with one score per label (e.g. {'yes': ..., 'no': ...})"
    if set(actual) != set(expected):
        return f"the keys should be the labels of the target column, got {sorted(map(str, actual))}"
    return None


ESTIMATOR = ("CategoricalNB",)  # what the lesson asks you to do by hand

QUESTIONS = {
    "q1": PublicQuestion("likelihood", "a likelihood by counting", [
        PublicTest("P(outlook = sunny | play = yes) in the lesson's table", lambda: Fraction(2, 9),
                   args=(_weather(), "outlook", "sunny", "play", "yes"),
                   hint="count only the rows where play == 'yes', above and below the bar"),
        PublicTest("a value never seen with the class: P(outlook = overcast | play = no)",
                   lambda: Fraction(0), args=(_weather(), "outlook", "overcast", "play", "no"),
                   hint="no matching row means a likelihood of exactly 0"),
    ], forbidden=ESTIMATOR),
    "q2": PublicQuestion("joint_scores", "the joint scores", [
        PublicTest("one score per label of the target column", _lesson_scores,
                   args=(_weather(), LESSON_DAY, "play"), judge=_same_keys),
        PublicTest("the lesson's day (sunny, cool, high, true)", _lesson_scores,
                   args=(_weather(), LESSON_DAY, "play"),
                   hint="P(label) first, then one likelihood per feature of the query"),
    ], forbidden=ESTIMATOR),
    "q3": PublicQuestion("predict", "the predicted class", [
        PublicTest("the lesson's day", lambda: "no", args=(_weather(), LESSON_DAY, "play"),
                   hint="return the label with the largest joint score"),
        PublicTest("an overcast, windy day", lambda: "yes",
                   args=(_weather(), {"outlook": "overcast", "windy": "true"}, "play"),
                   hint="return the label with the largest joint score"),
        PublicTest("a rainy day, where the class prior matters", lambda: "yes",
                   args=(_weather(), {"outlook": "rainy"}, "play"),
                   hint="compare the joint scores, prior P(label) included, not the "
                        "likelihoods alone"),
    ], forbidden=ESTIMATOR),
    "q4": PublicQuestion("p_no", "the posterior P(no | the lesson's day)", [
        PublicTest("a probability between 0 and 1",
                   lambda: 0.5, judge=lambda actual, _: None
                   if isinstance(actual, (int, float, Fraction)) and not isinstance(actual, bool)
                   and 0 <= actual <= 1 else "p_no should be a number between 0 and 1"),
        PublicTest("the lesson's posterior", lambda: _lesson_scores()["no"] / sum(
            _lesson_scores().values()),
                   hint="divide the score of 'no' by the sum of both scores"),
    ], kind="value", forbidden=ESTIMATOR),
}
