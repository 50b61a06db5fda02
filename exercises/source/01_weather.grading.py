"""Grading spec for exercise 1, the weather example by hand.

Expected values come from nbcourse's CategoricalNB (alpha = 0, exact fractions),
computed in the grader's process; the student's functions never see them.
"""
from fractions import Fraction

import pandas as pd

from nbcourse import CategoricalNB
from nbcourse.datasets import load_picnic, load_weather
from nbcourse.grading.specs import Case, Exercise, Question

WEATHER = load_weather()
PICNIC = load_picnic()
LESSON_DAY = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}

# A shuffled subset of the lesson's table (a different index, fewer rows).
SHUFFLED = WEATHER.sample(frac=1.0, random_state=7).iloc[:11]

# Three classes and other column names, so no answer can hard-code "yes"/"no".
FRUIT = pd.DataFrame({
    "colour": ["red", "red", "yellow", "yellow", "yellow", "red", "green", "yellow", "red", "green"],
    "size": ["small", "small", "long", "long", "small", "small", "small", "long", "big", "big"],
    "label": ["cherry", "cherry", "banana", "banana", "lemon", "cherry", "lemon", "banana",
              "apple", "apple"],
})


def _model(table: pd.DataFrame, features, target: str) -> CategoricalNB:
    return CategoricalNB(alpha=0).fit(table[list(features)], table[target])


def ref_likelihood(table, feature, value, target, label):
    table_of_fractions = _model(table, [feature], target).likelihood_table(feature)
    return Fraction(table_of_fractions.loc[value, label])


def ref_joint_scores(table, query, target):
    model = _model(table, query, target)
    row = model.joint_proba(pd.DataFrame([query]), exact=True).iloc[0]
    return {label: row[label] for label in model.classes_}


def ref_predict(table, query, target):
    return str(_model(table, query, target).predict(pd.DataFrame([query]))[0])


def ref_p_no():
    model = _model(WEATHER, LESSON_DAY, "play")
    return model.predict_proba(pd.DataFrame([LESSON_DAY]), exact=True).iloc[0]["no"]


EXERCISE = Exercise(
    title="Exercise 1: the weather example by hand",
    questions=[
        Question(
            "q1", "likelihood", points=2, title="a likelihood P(feature = value | class) by counting",
            reference=ref_likelihood, forbidden=("CategoricalNB",),
            hint="only the rows of the class count, both above and below the fraction bar",
            cases=[
                Case("P(outlook = sunny | play = yes) in the lesson's table",
                     (WEATHER, "outlook", "sunny", "play", "yes"), hidden=False),
                Case("a likelihood that is zero", (WEATHER, "outlook", "overcast", "play", "no")),
                Case("another feature and the other class", (WEATHER, "windy", "true", "play", "no")),
                Case("a shuffled table with fewer rows", (SHUFFLED, "humidity", "normal", "play", "yes")),
                Case("a table with other column names", (PICNIC, "sky", "sunny", "enjoy", "yes")),
                Case("a table with three classes", (FRUIT, "colour", "yellow", "label", "banana")),
            ]),
        Question(
            "q2", "joint_scores", points=3, title="the joint scores P(y) * prod P(x_i | y)",
            reference=ref_joint_scores, forbidden=("CategoricalNB",),
            hint="start from the prior of each class and multiply one likelihood per feature "
                 "of the query",
            cases=[
                Case("the lesson's day (sunny, cool, high, true)", (WEATHER, LESSON_DAY, "play"),
                     hidden=False),
                Case("a query with two features", (WEATHER, {"outlook": "rainy", "windy": "false"}, "play")),
                Case("a query that rules one class out",
                     (WEATHER, {"outlook": "overcast", "humidity": "high"}, "play")),
                Case("a shuffled table with fewer rows",
                     (SHUFFLED, {"temperature": "mild", "humidity": "normal"}, "play")),
                Case("a table with three classes", (FRUIT, {"colour": "red", "size": "small"}, "label")),
            ]),
        Question(
            "q3", "predict", points=2, title="the predicted class for a query",
            reference=ref_predict, forbidden=("CategoricalNB",),
            hint="the prediction is the label whose joint score is largest",
            cases=[
                Case("the lesson's day", (WEATHER, LESSON_DAY, "play"), hidden=False),
                Case("an overcast day", (WEATHER, {"outlook": "overcast", "windy": "true"}, "play")),
                Case("a day where 'yes' wins on the likelihoods",
                     (WEATHER, {"temperature": "cool", "humidity": "normal"}, "play")),
                # The likelihoods alone favour the rarer class; the prior tips the balance
                # (high, not windy: 4/5 * 2/5 for "no" against 3/9 * 6/9 for "yes").
                Case("a day where the class prior tips the balance",
                     (WEATHER, {"humidity": "high", "windy": "false"}, "play")),
                Case("another table where the class prior tips the balance",
                     (PICNIC, {"humid": "high", "water": "warm"}, "enjoy")),
                Case("a day where the less common label wins",
                     (WEATHER, {"outlook": "sunny", "humidity": "high"}, "play")),
                Case("a table with three classes", (FRUIT, {"colour": "yellow", "size": "long"}, "label")),
                Case("another three-class query", (FRUIT, {"colour": "green", "size": "big"}, "label")),
            ]),
        Question(
            "q4", "p_no", points=1, kind="value", title="the posterior P(play = no | the lesson's day)",
            reference=ref_p_no, forbidden=("CategoricalNB",),
            hint="a posterior is a joint score divided by the sum of the joint scores"),
    ],
)
