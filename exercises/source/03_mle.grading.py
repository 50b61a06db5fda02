"""Grading spec for exercise 3, maximum likelihood.

Expected values come from nbcourse.mle (log-likelihood, closed form, class priors),
computed in the grader's process.
"""
import numpy as np

from nbcourse.datasets import load_picnic, load_weather
from nbcourse.grading.specs import Case, Exercise, Question
from nbcourse.grading.values import Tolerance, compare
from nbcourse.mle import categorical_log_likelihood, class_prior_mle, multinomial_mle

WEATHER = load_weather()
PICNIC = load_picnic()
TOY_X = np.array([[2, 1, 0], [1, 0, 0], [0, 1, 3], [0, 2, 1]])
TOY_Y = ["ham", "ham", "spam", "spam"]
rng = np.random.default_rng(2024)
WORDS_X = rng.integers(0, 5, size=(9, 6))
WORDS_Y = ["spam", "ham", "ham", "spam", "ham", "ham", "spam", "ham", "ham"]
THREE_X = rng.integers(0, 4, size=(8, 4))
THREE_X[:, 3] = [0, 0, 0, 2, 3, 1, 0, 0]  # a word that one class never uses
THREE_Y = ["sport", "sport", "sport", "music", "music", "music", "news", "news"]


def ref_word_probabilities(X, y):
    X, y = np.asarray(X), np.asarray(y)
    return {label: multinomial_mle(X[y == label].sum(axis=0)).tolist() for label in np.unique(y)}


def close_to_closed_form(actual, expected, case):
    """A numeric optimiser is right when it lands within 1e-4 of the closed form."""
    return compare(actual, expected, Tolerance(rel=0.0, abs_=1e-4))


LIKELIHOODS = ("categorical_log_likelihood", "gaussian_log_likelihood")
CLOSED_FORMS = ("multinomial_mle", "class_prior_mle", "lagrange_multiplier", "lidstone",
                "laplace", "numeric_simplex_mle", "MultinomialNB", "CategoricalNB")

EXERCISE = Exercise(
    title="Exercise 3: maximum likelihood",
    questions=[
        Question("q1", "log_likelihood", points=2, title="the categorical log-likelihood",
                 reference=lambda counts, theta: categorical_log_likelihood(counts, theta),
                 forbidden=LIKELIHOODS,
                 hint="sum count * log(probability) over the outcomes; an outcome that was "
                      "never observed contributes nothing, whatever its probability",
                 cases=[
                     Case("outlook counts of the 'yes' days at their own frequencies",
                          ([2, 4, 3], [2 / 9, 4 / 9, 3 / 9]), hidden=False),
                     Case("a uniform guess", ([2, 4, 3], [1 / 3, 1 / 3, 1 / 3])),
                     Case("an outcome never observed and given probability zero",
                          ([5, 0, 5], [0.5, 0.0, 0.5])),
                     Case("an observed outcome given probability zero", ([1, 3], [0.0, 1.0])),
                     Case("many observations", ([480, 520], [0.5, 0.5])),
                     Case("five outcomes", ([1, 2, 3, 4, 5], [0.1, 0.1, 0.2, 0.3, 0.3])),
                 ]),
        Question("q2", "mle", points=2, title="the closed-form maximum-likelihood estimate",
                 reference=lambda counts: multinomial_mle(counts), forbidden=CLOSED_FORMS,
                 hint="the Lagrange multiplier turns out to be the total count",
                 cases=[
                     Case("outlook counts of the 'yes' days", ([2, 4, 3],), hidden=False),
                     Case("an outcome never observed", ([5, 0, 5, 10],)),
                     Case("a single outcome", ([7],)),
                     Case("very unequal counts", ([100, 1],)),
                     Case("all observations in one outcome", ([0, 0, 7],)),
                 ]),
        Question("q3", "numeric_mle", points=2, title="the same optimum, found numerically",
                 reference=lambda counts: multinomial_mle(counts), judge=close_to_closed_form,
                 forbidden=CLOSED_FORMS,
                 hint="optimise over unconstrained scores z and map them to probabilities with "
                      "exp(z) / sum(exp(z)), so the constraint holds by construction",
                 cases=[
                     Case("outlook counts of the 'yes' days", ([2, 4, 3],), hidden=False),
                     Case("two outcomes", ([30, 10],)),
                     Case("five outcomes", ([1, 2, 3, 4, 5],)),
                     Case("unequal counts", ([40, 3, 7],)),
                 ]),
        Question("q4", "class_priors", points=1, title="the class prior P(y) by maximum likelihood",
                 reference=lambda labels: class_prior_mle(labels).to_dict(), forbidden=CLOSED_FORMS,
                 hint="one share per label: how many examples carry it, over all examples",
                 cases=[
                     Case("the weather's play column", (WEATHER["play"].tolist(),), hidden=False),
                     Case("the picnic table's labels", (PICNIC["enjoy"].tolist(),)),
                     Case("three labels", (THREE_Y,)),
                     Case("a single label", (["spam"] * 4,)),
                 ]),
        Question("q5", "word_probabilities", points=2,
                 title="the word probabilities of multinomial naive Bayes",
                 reference=ref_word_probabilities, forbidden=CLOSED_FORMS,
                 hint="add up the word counts of each class first, then normalise each class "
                      "separately",
                 cases=[
                     Case("four tiny documents", (TOY_X, TOY_Y), hidden=False),
                     Case("nine documents, six words", (WORDS_X, WORDS_Y)),
                     Case("three classes and a word one class never uses", (THREE_X, THREE_Y)),
                 ]),
    ],
)
