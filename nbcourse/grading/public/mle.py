"""Public tests for exercise 3 (maximum likelihood)."""
import math

import numpy as np

from nbcourse.grading.selfcheck import PublicQuestion, PublicTest
from nbcourse.grading.values import Tolerance, compare

TOY_X = np.array([[2, 1, 0], [1, 0, 0], [0, 1, 3], [0, 2, 1]])
TOY_Y = ["ham", "ham", "spam", "spam"]


def _weather_play():
    from nbcourse.datasets import load_weather
    return load_weather()["play"].tolist()


# what these questions ask you to write yourself (the grader flags them)
LIKELIHOODS = ("categorical_log_likelihood", "gaussian_log_likelihood")
CLOSED_FORMS = ("multinomial_mle", "class_prior_mle", "lagrange_multiplier", "lidstone",
                "laplace", "numeric_simplex_mle", "MultinomialNB", "CategoricalNB")

QUESTIONS = {
    "q1": PublicQuestion("log_likelihood", "the categorical log-likelihood", [
        PublicTest("outlook counts of the 'yes' days at their own frequencies",
                   lambda: 2 * math.log(2 / 9) + 4 * math.log(4 / 9) + 3 * math.log(3 / 9),
                   args=([2, 4, 3], [2 / 9, 4 / 9, 3 / 9]),
                   hint="sum count * log(probability) over the outcomes"),
        PublicTest("an outcome never observed adds nothing, even with probability 0",
                   lambda: 10 * math.log(0.5), args=([5, 0, 5], [0.5, 0.0, 0.5]),
                   hint="skip outcomes whose count is 0 (0 * log 0 counts as 0)"),
    ], forbidden=LIKELIHOODS),
    "q2": PublicQuestion("mle", "the closed form", [
        PublicTest("outlook counts of the 'yes' days", lambda: [2 / 9, 4 / 9, 3 / 9],
                   args=([2, 4, 3],), hint="each count over the total count"),
    ], forbidden=CLOSED_FORMS),
    "q3": PublicQuestion("numeric_mle", "the numeric optimum", [
        PublicTest("within 1e-4 of the closed form", lambda: [2 / 9, 4 / 9, 3 / 9],
                   args=([2, 4, 3],),
                   judge=lambda actual, expected: compare(actual, expected, Tolerance(0.0, 1e-4)),
                   hint="maximise the log-likelihood, i.e. minimise its negative"),
    ], forbidden=CLOSED_FORMS),
    "q4": PublicQuestion("class_priors", "the class prior", [
        PublicTest("the weather's play column", lambda: {"no": 5 / 14, "yes": 9 / 14},
                   args=(_weather_play(),), hint="return a dict label -> share of examples"),
    ], forbidden=CLOSED_FORMS),
    "q5": PublicQuestion("word_probabilities", "the word probabilities", [
        PublicTest("four tiny documents",
                   lambda: {"ham": [3 / 4, 1 / 4, 0.0], "spam": [0.0, 3 / 7, 4 / 7]},
                   args=(TOY_X, TOY_Y),
                   hint="sum the rows of each class, then divide by that class's total"),
    ], forbidden=CLOSED_FORMS),
}
