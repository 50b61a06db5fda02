"""Public tests for exercise 2 (smoothing as pseudo-counts)."""
from fractions import Fraction

from nbcourse.grading.selfcheck import PublicQuestion, PublicTest


def _weather():
    from nbcourse.datasets import load_weather
    return load_weather()


def _two_numbers(actual, _):
    if not isinstance(actual, list) or len(actual) != 2 or any(
            isinstance(x, bool) or not isinstance(x, (int, float, Fraction)) or x <= 0
            for x in actual):
        return "laplace_prior should be two positive numbers (a, b)"
    return None


def _probability(actual, _):
    if isinstance(actual, bool) or not isinstance(actual, (int, float, Fraction)) \
            or not 0 <= actual <= 1:
        return "expected a probability between 0 and 1"
    return None


def _still_no(actual, _):
    if _probability(actual, _):
        return _probability(actual, _)
    return None if actual > 0.5 else "smoothing softens the lesson's answer but does not flip it"


def _laplace_mean(heads, tails):
    """Judge a prior (a, b) by the lesson's rule: its posterior mean must be Laplace's."""
    def judge(actual, _):
        problem = _two_numbers(actual, _)
        if problem:
            return problem
        a, b = (Fraction(x) for x in actual)
        mean = (a + heads) / (a + b + heads + tails)
        return None if mean == Fraction(heads + 1, heads + tails + 2) else \
            f"with this prior the posterior mean is {mean}, not Laplace's (n + 1) / (N + 2)"
    return judge


def _lesson_smoothed_p_no():
    """The lesson's day at alpha = 1, as on notebook 02's curve (CategoricalNB)."""
    import pandas as pd
    from nbcourse import CategoricalNB
    weather = _weather()
    day = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}
    model = CategoricalNB(alpha=1).fit(weather[list(day)], weather["play"])
    return model.predict_proba(pd.DataFrame([day]), exact=True).iloc[0]["no"]


# what these questions ask you to write yourself (the grader flags them)
SMOOTHING = ("beta_posterior", "beta_mode", "beta_mean", "beta_summary", "laplace",
             "lidstone", "m_estimate")

QUESTIONS = {
    "q1": PublicQuestion("posterior_parameters", "the Beta posterior's parameters", [
        PublicTest("three heads, flat prior Beta(1, 1)", lambda: [4, 1], args=(1, 1, 3, 0),
                   hint="add the observed heads to a and the tails to b"),
    ], forbidden=SMOOTHING),
    "q2": PublicQuestion("map_estimate", "the MAP estimate", [
        PublicTest("three heads, flat prior: the MAP equals the maximum-likelihood 3/3",
                   lambda: 1, args=(1, 1, 3, 0),
                   hint="under a flat prior the posterior peaks where the likelihood does"),
        PublicTest("two heads, two tails, prior Beta(2, 2)", lambda: Fraction(1, 2),
                   args=(2, 2, 2, 2), hint="a symmetric prior and symmetric data: the peak is central"),
    ], forbidden=SMOOTHING),
    "q3": PublicQuestion("posterior_mean", "the posterior mean", [
        PublicTest("three heads, flat prior: Laplace's (3 + 1) / (3 + 2)", lambda: Fraction(4, 5),
                   args=(1, 1, 3, 0), hint="the mean of Beta(a, b) is a / (a + b)"),
    ], forbidden=SMOOTHING),
    "q4": PublicQuestion("laplace_prior", "the prior behind add-one smoothing", [
        PublicTest("two positive numbers (a, b)", lambda: [1, 1], judge=_two_numbers),
        PublicTest("three heads, no tails: the posterior mean is Laplace's (3 + 1) / (3 + 2)",
                   lambda: None, judge=_laplace_mean(3, 0),
                   hint="it is the posterior *mean* (a + heads) / (a + b + N), not the MAP, "
                        "that must equal (heads + 1) / (N + 2)"),
        PublicTest("two heads, one tail: the posterior mean is Laplace's (2 + 1) / (3 + 2)",
                   lambda: None, judge=_laplace_mean(2, 1),
                   hint="the rule must hold for every number of heads and tails, not only one"),
    ], kind="value"),
    "q5": PublicQuestion("smoothed_likelihood", "a smoothed likelihood", [
        PublicTest("P(outlook = overcast | play = no) with alpha = 1 is no longer zero",
                   lambda: Fraction(1, 8), args=(_weather(), "outlook", "overcast", "play", "no", 1),
                   hint="(count + alpha) / (class size + alpha * number of outlook values)"),
    ], forbidden=("CategoricalNB",) + SMOOTHING),
    "q6": PublicQuestion("smoothed_p_no", "the smoothed posterior", [
        PublicTest("a probability that still favours 'no'", lambda: 1, judge=_still_no),
        PublicTest("the lesson's day at alpha = 1, as on notebook 02's curve",
                   _lesson_smoothed_p_no,
                   hint="smooth each likelihood as (count + 1) / (class size + number of values "
                        "of that feature); the prior P(play) stays the plain share of rows; then "
                        "divide the score of 'no' by the sum of both scores"),
    ], kind="value", forbidden=("CategoricalNB",) + SMOOTHING),
}
