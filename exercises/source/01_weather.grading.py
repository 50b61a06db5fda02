"""Grading spec for exercise 1, the weather example by hand.

Expected values come from nbcourse's CategoricalNB (alpha = 0, exact fractions),
computed in the grader's process; the student's functions never see them.
"""
from fractions import Fraction

import numpy as np
import pandas as pd

from nbcourse import CategoricalNB
from nbcourse.datasets import load_picnic, load_weather
from nbcourse.grading.judges import AsDict, Within
from nbcourse.grading.specs import Case, Exercise, Mistake, NotApplicable, Question, Swap
from nbcourse.grading.values import Tolerance

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

# Three ways to commute where, for some days, no class has a posterior above one half and
# the winner is the last label in every order: an answer that looks for a posterior above
# 0.5, or compares the first two labels only, picks another one (student 11).
COMMUTE = pd.DataFrame(
    [("sun", "near", "bike"), ("sun", "near", "bike"), ("sun", "far", "bike"),
     ("rain", "near", "bike"), ("rain", "near", "bus"), ("rain", "far", "bus"),
     ("sun", "far", "bus"), ("sun", "near", "bus"), ("rain", "far", "car"),
     ("sun", "far", "car"), ("rain", "far", "car"), ("sun", "near", "car"),
     ("rain", "near", "car")], columns=["sky", "distance", "mode"])
# The weather table with some days relabelled "maybe": 'yes' and 'no' beside a third label
# (an answer that types ('yes', 'no') whenever the table has them drops "maybe", student 13).
MAYBE = WEATHER.assign(play=[("maybe" if i % 5 == 2 else label)
                             for i, label in enumerate(WEATHER["play"])])
# The weather table with numbers for the class and for windy: labels and values are not
# always text (student 17: str(label) keys and == str(value) had full marks).
NUMERIC = WEATHER.assign(play=(WEATHER["play"] == "yes").astype(int),
                         windy=(WEATHER["windy"] == "true").astype(int))
# Sixty rows of eight features of four values: a query over all eight has joint scores below 1/1000,
# where two labels' scores agree to three decimals (student 17: a tie taken by rounding).
_RNG = np.random.default_rng(17)
MANY = pd.DataFrame(_RNG.integers(0, 4, size=(60, 8)).astype(str),
                    columns=[f"f{i}" for i in range(8)]).assign(
    label=_RNG.choice(["p", "q"], size=60, p=[0.6, 0.4]))
# ... and where the most common label (bike) loses on a day no class has above one half:
# "above one half, else the most common label" picks it (student 13).
COMMUTE_BIKES = pd.DataFrame(
    [("sun", "near", "bike"), ("sun", "near", "bike"), ("sun", "far", "bike"),
     ("rain", "near", "bike"), ("sun", "near", "bike"), ("rain", "far", "bus"),
     ("rain", "far", "bus"), ("sun", "far", "bus"), ("rain", "near", "car"),
     ("rain", "far", "car"), ("sun", "far", "car")], columns=["sky", "distance", "mode"])

# The lesson's table with one more yes/no column after "play": an answer that takes the
# last column as the class (instead of `target`) reads "umbrella" and gets another value.
UMBRELLA = WEATHER.assign(umbrella=["yes" if o == "rainy" else "no" for o in WEATHER.outlook])
# The fruit table with its class column first and its columns in another order.
FRUIT_CLASS_FIRST = FRUIT[["label", "size", "colour"]]
# A value and a label that begin other ones ("red" and "reddish", "cat" and "catfish"): an
# answer that matches by prefix (str.startswith) or by substring counts the longer ones too.
PREFIXES = pd.DataFrame({
    "colour": ["red", "reddish", "red", "reddish", "red", "reddish", "red", "red"],
    "kind": ["cat", "catfish", "catfish", "cat", "cat", "catfish", "cat", "catfish"],
})

# Labels and values that differ only by case ("Yes" and "yes" are two labels): an answer
# that lower-cases before comparing merges them (student 7).
CASED = pd.DataFrame({
    "sky": ["Clear", "clear", "clear", "Clear", "clear", "cloudy", "Clear", "clear"],
    "walk": ["Yes", "yes", "yes", "Yes", "no", "yes", "yes", "Yes"],
})


def _model(table: pd.DataFrame, features, target: str) -> CategoricalNB:
    return CategoricalNB(alpha=0).fit(table[list(features)], table[target])


def ref_likelihood(table, feature, value, target, label):
    table_of_fractions = _model(table, [feature], target).likelihood_table(feature)
    if value not in table_of_fractions.index:  # no row has it: a count of 0
        return Fraction(0)
    return Fraction(table_of_fractions.loc[value, label])


def ref_joint_scores(table, query, target):
    model = _model(table, query, target)
    if any(value not in set(table[feature]) for feature, value in query.items()):
        return {label: Fraction(0) for label in model.classes_}  # a likelihood of 0 (q1)
    row = model.joint_proba(pd.DataFrame([query]), exact=True).iloc[0]
    return {label: row[label] for label in model.classes_}


def ref_predict(table, query, target):
    return str(_model(table, query, target).predict(pd.DataFrame([query]))[0])


def ref_p_no():
    model = _model(WEATHER, LESSON_DAY, "play")
    return model.predict_proba(pd.DataFrame([LESSON_DAY]), exact=True).iloc[0]["no"]


# Two words, independent within each class (the naive assumption holds exactly), half the
# messages spam: P(win | free) over all messages, which is not P(win).
WORD_RATE = {"spam": Fraction(2, 5), "ham": Fraction(1, 50)}


def p_win_given_free(rate=WORD_RATE, prior=Fraction(1, 2)):
    both = prior * rate["spam"] ** 2 + (1 - prior) * rate["ham"] ** 2
    free = prior * rate["spam"] + (1 - prior) * rate["ham"]
    return both / free


# ----------------------------------------------------------------- known mistakes
# Each computes what a student who made the mistake would return, from the same inputs.
def _in_class(table, target, label):
    return table[table[target] == label]


def _counted_likelihood(table, feature, value, target, label):
    rows = _in_class(table, target, label)
    return Fraction(int((rows[feature] == value).sum()), len(rows))


def likelihood_over_the_whole_table(table, feature, value, target, label):
    rows = _in_class(table, target, label)
    return Fraction(int((rows[feature] == value).sum()), len(table))


def likelihood_class_size_plus_one(table, feature, value, target, label):
    rows = _in_class(table, target, label)
    return Fraction(int((rows[feature] == value).sum()), len(rows) + 1)


def likelihood_first_column(table, feature, value, target, label):
    """The table's first column read in place of `feature`."""
    rows = _in_class(table, target, label)
    return Fraction(int((rows.iloc[:, 0] == value).sum()), len(rows))


def likelihood_last_column_as_class(table, feature, value, target, label):
    """The table's last column read as the class in place of `target`."""
    rows = _in_class(table, table.columns[-1], label)
    if rows.empty:
        raise NotApplicable("no row of the last column has this label")
    return Fraction(int((rows[feature] == value).sum()), len(rows))


def likelihood_reversed(table, feature, value, target, label):
    with_value = table[table[feature] == value]
    return Fraction(int((with_value[target] == label).sum()), max(len(with_value), 1))


def _scores(table, query, target, prior):
    scores = {}
    for label in table[target].unique():
        score = prior(len(_in_class(table, target, label)), len(table))
        for feature, value in query.items():
            score *= _counted_likelihood(table, feature, value, target, label)
        scores[label] = score
    return scores


def _share(n, total):
    return Fraction(n, total)


def joint_without_prior(table, query, target):
    return _scores(table, query, target, lambda n, total: Fraction(1))


def joint_with_count_prior(table, query, target):
    return _scores(table, query, target, lambda n, total: Fraction(n))


def joint_normalised(table, query, target):
    scores = _scores(table, query, target, _share)
    total = sum(scores.values())  # 0 for a value the table never shows: nothing to divide
    return {label: s / total if total else s for label, s in scores.items()}


def predict_without_prior(table, query, target):
    scores = joint_without_prior(table, query, target)
    return max(scores, key=scores.get)


def predict_largest_label(table, query, target):
    """``max(scores)``: the dict's keys compared, not its values (student 11)."""
    return str(max(table[target].unique()))


def predict_majority(table, query, target):
    return str(table[target].value_counts().idxmax())


def predict_smallest(table, query, target):
    scores = _scores(table, query, target, _share)
    return min(scores, key=scores.get)


def predict_smoothed(table, query, target):
    """Add-one likelihoods, where the question asks for the plain counts."""
    scores = {}
    for label in table[target].unique():
        rows = _in_class(table, target, label)
        score = Fraction(len(rows), len(table))
        for feature, value in query.items():
            score *= Fraction(int((rows[feature] == value).sum()) + 1,
                              len(rows) + table[feature].nunique())
        scores[label] = score
    return str(max(scores, key=scores.get))


def predict_first_feature_only(table, query, target):
    feature = next(iter(query))
    return str(max(_scores(table, {feature: query[feature]}, target, _share).items(),
                   key=lambda item: item[1])[0])


def _lesson_posterior(label, prior=_share, normalise=True):
    scores = _scores(WEATHER, LESSON_DAY, "play", prior)
    return scores[label] / sum(scores.values()) if normalise else scores[label]


# the swap of q4: a joint_scores that gives every label of the table its rank (1, 2, ...) in
# sorted order, so p_no computed from it is 1 / (1 + 2); a number typed in stays where it is
# labels in reverse order, scored from the largest down, so that "no" is neither first
# nor largest: neither the larger score over the sum nor the first (right only while "no"
# comes first, student 21) follows it
RANKED_JOINT_SCORES = """
def joint_scores(table, query, target):
    from fractions import Fraction
    labels = sorted(set(table[target]), reverse=True)
    return {label: Fraction(len(labels) - rank) for rank, label in enumerate(labels)}
"""

#: "count with pandas and plain Python": the estimator (the library's and scikit-learn's
#: naive Bayes, whatever it is imported as), and the library's shared numerics
NOT_THE_LIBRARY = ("CategoricalNB", "nbcourse._numerics.*", "sklearn.naive_bayes.*",
                   # every model of the library: TreeAugmentedNB without parents is
                   # CategoricalNB (student 19)
                   "nbcourse.naive_bayes.*")

TYPED_P_NO = ("Your `p_no` does not follow your `joint_scores`: run with a `joint_scores` "
              "that gives other scores, your cell does not give the score of 'no' divided by "
              "the sum of those scores (a number typed in stays the same; the larger score "
              "is not always the score of 'no'). Compute it from the scores: the score of "
              "'no' divided by the sum of the scores.")


WHOLE_TABLE = ("Your value is what you get by dividing by the number of rows of the whole "
               "table. A likelihood P(x | y) counts only the rows of class y, below the bar "
               "too: see lesson 01, §4 (likelihood tables).")
NO_PRIOR = ("The class prior P(y) is missing: your scores are the product of the likelihoods "
            "alone. Naive Bayes multiplies them by P(y) first: see lesson 01, §5.")


EXERCISE = Exercise(
    title="Exercise 1: the weather example by hand",
    questions=[
        Question(
            "q1", "likelihood", points=2, title="a likelihood P(feature = value | class) by counting",
            reference=ref_likelihood, forbidden=NOT_THE_LIBRARY,
            # a count over a count is exact (or a float to its last digit): the default
            # tolerance let a likelihood rounded to 6 places pass here and then fail the
            # right joint_scores that multiplies four of them (student 11)
            tolerance=Tolerance(rel=1e-12, abs_=1e-15),
            hint="count only the rows of the class, both above and below the fraction bar",
            mistakes=[
                Mistake("divided by the whole table", likelihood_over_the_whole_table,
                        WHOLE_TABLE),
                Mistake("class size + 1 in the denominator", likelihood_class_size_plus_one,
                        "You divided by the class size plus one. Without smoothing a "
                        "likelihood is the count over the class size itself; adding to the "
                        "denominator is what smoothing does, with a matching pseudo-count for "
                        "every value (lesson 02, §8). See lesson 01, §4."),
                Mistake("the first column instead of `feature`", likelihood_first_column,
                        "Your value counts the table's first column, whatever the `feature` "
                        "argument names. Count the column `feature` names: "
                        "rows[feature] == value (lesson 01, §4)."),
                Mistake("the last column as the class instead of `target`",
                        likelihood_last_column_as_class,
                        "Your value takes the table's last column as the class. The class "
                        "column is the one the `target` argument names, wherever it is in the "
                        "table: table[table[target] == label] (lesson 01, §4)."),
                Mistake("P(class | value) instead of P(value | class)", likelihood_reversed,
                        "Your value is the share of the rows with this value that belong to "
                        "the class, P(y | x). The likelihood is the other way round, P(x | y): "
                        "among the rows of the class, the share with this value. See lesson "
                        "01, §4."),
            ],
            cases=[
                Case("P(outlook = sunny | play = yes) in the lesson's table",
                     (WEATHER, "outlook", "sunny", "play", "yes"), hidden=False),
                Case("a value never seen with the class: P(outlook = overcast | play = no)",
                     (WEATHER, "outlook", "overcast", "play", "no"), hidden=False,
                     hint="no matching row means a likelihood of exactly 0"),
                Case("a likelihood that is zero in a smaller table",
                     (SHUFFLED, "outlook", "overcast", "play", "no")),
                # a lookup in a crosstab raises KeyError here (student 11)
                Case("a value the table never shows: P(outlook = foggy | play = yes)",
                     (WEATHER, "outlook", "foggy", "play", "yes"),
                     hint="a value no row has is a likelihood of 0, not an error"),
                Case("a shuffled table with fewer rows", (SHUFFLED, "humidity", "normal", "play", "yes")),
                Case("the picnic table, whose class column is 'enjoy' (the `target` argument)",
                     (PICNIC, "sky", "sunny", "enjoy", "yes"), hidden=False,
                     hint="this table's class column is not 'play': look it up with the `target` argument, and the labels with `label`"),
                Case("a feature that is not the table's first column: P(humidity = normal | "
                     "play = yes)", (WEATHER, "humidity", "normal", "play", "yes"), hidden=False,
                     hint="count the column the `feature` argument names (rows[feature]), not "
                          "the table's first column"),
                Case("a class column that is not the table's last: the weather table with an "
                     "'umbrella' column after 'play'",
                     (UMBRELLA, "humidity", "high", "play", "yes"), hidden=False,
                     hint="the class column is the one the `target` argument names "
                          "(table[target]), wherever it is in the table"),
                Case("another table whose last column is not the class",
                     (UMBRELLA, "windy", "true", "play", "no")),
                Case("a table whose class column comes first",
                     (FRUIT_CLASS_FIRST, "colour", "red", "label", "cherry")),
                Case("a table with three classes", (FRUIT, "colour", "yellow", "label", "banana")),
                Case("a table with other column names, and a value whose name begins "
                     "another value's name", (PREFIXES, "colour", "red", "kind", "catfish")),
                Case("another feature and class, whose name begins another label's name",
                     (PREFIXES, "colour", "reddish", "kind", "cat")),
                # the weather table again, with another column as the class: an answer that
                # reads "play" whenever the table has it fails here
                Case("the weather table with windy as the class",
                     (WEATHER, "outlook", "sunny", "windy", "true")),
                Case("labels and values that differ only by case",
                     (CASED, "sky", "clear", "walk", "Yes")),
                Case("a class and a feature that are numbers", (NUMERIC, "windy", 1, "play", 1)),
            ]),
        Question(
            "q2", "joint_scores", points=3, title="the joint scores P(y) * prod P(x_k | y)",
            reference=ref_joint_scores, forbidden=NOT_THE_LIBRARY,
            calls=("likelihood",),
            # predict and p_no use the scores as a dict: a Series or joint_proba's one-row
            # DataFrame is told the conversion here rather than breaking them silently
            judge=AsDict(used_by="your `predict` (q3) and `p_no` (q4)"),
            hint="start from the prior of each class and multiply one likelihood per feature "
                 "of the query",
            mistakes=[
                Mistake("the class prior left out", joint_without_prior, NO_PRIOR),
                Mistake("the class count as the prior", joint_with_count_prior,
                        "Your scores use the number of rows of each class as its prior. The "
                        "prior P(y) is a share: that number over the number of rows. See "
                        "lesson 01, §5."),
                Mistake("the posterior instead of the joint score", joint_normalised,
                        "Your scores add up to 1: you divided by their sum, which gives the "
                        "posterior P(y | x). This question asks for the joint scores P(y) "
                        "times the likelihoods, before that division. See lesson 01, §5."),
            ],
            cases=[
                Case("the lesson's day (sunny, cool, high, true)", (WEATHER, LESSON_DAY, "play"),
                     hidden=False),
                Case("a query with two features", (WEATHER, {"outlook": "rainy", "windy": "false"}, "play")),
                Case("a query that rules one class out",
                     (WEATHER, {"outlook": "overcast", "humidity": "high"}, "play")),
                Case("a shuffled table with fewer rows",
                     (SHUFFLED, {"temperature": "mild", "humidity": "normal"}, "play")),
                Case("a table with four labels, none of them yes/no",
                     (FRUIT, {"colour": "red", "size": "small"}, "label"), hidden=False,
                     hint="take the labels from the target column (table[target].unique()), "
                          "never a fixed list such as ['yes', 'no']"),
                Case("another four-label query", (FRUIT, {"colour": "yellow", "size": "small"}, "label")),
                Case("yes and no beside a third label", (MAYBE, {"outlook": "rainy"}, "play")),
                Case("a class and a feature that are numbers",
                     (NUMERIC, {"outlook": "sunny", "windy": 1}, "play")),
                Case("the weather table with its umbrella column as the class",
                     (UMBRELLA, {"outlook": "rainy", "windy": "true"}, "umbrella"), hidden=False,
                     hint="the class column is the `target` you are given, even when the "
                          "table also has a 'play' column"),
                Case("the weather table with windy as the class",
                     (WEATHER, {"outlook": "rainy", "play": "yes"}, "windy")),
                # q1 says such a value gives 0: skipping its factor had full marks (student 19)
                Case("a query value the table never shows",
                     (WEATHER, {"outlook": "foggy", "windy": "true"}, "play")),
            ]),
        Question(
            "q3", "predict", points=2, title="the predicted class for a query",
            reference=ref_predict, forbidden=NOT_THE_LIBRARY,
            calls=("joint_scores",),
            hint="the prediction is the label whose joint score (prior included) is largest",
            mistakes=[
                Mistake("the class prior left out", predict_without_prior, NO_PRIOR),
                Mistake("always the most common label", predict_majority,
                        "Your answer is the most common label whatever the query: the "
                        "likelihoods of the query's values must weigh in too. See lesson 01, "
                        "§5."),
                Mistake("the largest label, not the largest score", predict_largest_label,
                        "You return the label that comes last in sorted order: max(scores) "
                        "compares the dict's keys. Take the key of the largest score: "
                        "max(scores, key=scores.get)."),
                Mistake("the smallest score", predict_smallest,
                        "You return the label with the smallest joint score; the prediction is "
                        "the one with the largest. See lesson 01, §5."),
                Mistake("smoothed likelihoods", predict_smoothed,
                        "Your likelihoods are smoothed ((count + 1) / (class size + number of "
                        "values)). This exercise counts without smoothing: count / class size, "
                        "as in lesson 01, §4; smoothing comes in lesson 02."),
                Mistake("only the query's first feature", predict_first_feature_only,
                        "Your prediction uses only the first feature of the query. Naive Bayes "
                        "multiplies the prior by one likelihood for every feature of the query: "
                        "loop over query.items(). See lesson 01, §5."),
            ],
            cases=[
                Case("the lesson's day", (WEATHER, LESSON_DAY, "play"), hidden=False),
                Case("an overcast, windy day",
                     (WEATHER, {"outlook": "overcast", "windy": "true"}, "play"), hidden=False),
                Case("a rainy day, where the class prior matters",
                     (WEATHER, {"outlook": "rainy"}, "play"), hidden=False),
                Case("a day where 'yes' wins on the likelihoods",
                     (WEATHER, {"temperature": "cool", "humidity": "normal"}, "play")),
                # The likelihoods alone favour the rarer class; the prior tips the balance
                # (high, not windy: 4/5 * 2/5 for "no" against 3/9 * 6/9 for "yes").
                Case("a day where the class prior tips the balance",
                     (WEATHER, {"humidity": "high", "windy": "false"}, "play")),
                # public: a predict that reads "play" or the notebook's `weather` passed
                # every public case on the weather table (student 11)
                Case("another table where the class prior tips the balance",
                     (PICNIC, {"humid": "high", "water": "warm"}, "enjoy"), hidden=False,
                     hint="use the `table` and `target` you are given, not the notebook's "
                          "weather table or 'play'"),
                Case("a day where the less common label wins",
                     (WEATHER, {"outlook": "sunny", "humidity": "high"}, "play")),
                Case("a table with three classes", (FRUIT, {"colour": "yellow", "size": "long"}, "label")),
                Case("another three-class query", (FRUIT, {"colour": "green", "size": "big"}, "label")),
                Case("three classes, none with a posterior above one half",
                     (COMMUTE, {"sky": "sun", "distance": "far"}, "mode"), hidden=False,
                     hint="the label with the largest joint score wins, even below one half: "
                          "compare the scores of every label"),
                Case("three classes, none above one half, on another day",
                     (COMMUTE, {"sky": "rain", "distance": "near"}, "mode")),
                Case("yes and no beside a third label",
                     (MAYBE, {"outlook": "overcast", "windy": "false"}, "play")),
                Case("eight features: joint scores below one in a thousand",
                     (MANY, dict(MANY.iloc[0, :8]), "label")),
                Case("three classes, none above one half, and the most common one loses",
                     (COMMUTE_BIKES, {"sky": "sun", "distance": "far"}, "mode"), hidden=False,
                     hint="the label with the largest joint score wins, even below one half "
                          "and even when another label is more common"),
                # a table with a "play" column that is not the class (student 13)
                Case("the weather table with its umbrella column as the class",
                     (UMBRELLA, {"temperature": "mild", "windy": "true"}, "umbrella"),
                     hidden=False, hint="the class column is the `target` you are given, "
                                        "even when the table also has a 'play' column"),
                # the weather's columns and class, other rows: the notebook's table says "yes"
                Case("a shuffled table with fewer rows",
                     (SHUFFLED, {"outlook": "rainy", "temperature": "mild"}, "play")),
                # Smoothed likelihoods (no smoothing is asked) pick "yes" on the days below
                # where "no" is right; the first feature alone is wrong on every one of them.
                Case("a rainy, windy day", (WEATHER, {"outlook": "rainy", "windy": "true"}, "play"),
                     hidden=False,
                     hint="every feature of the query counts, each with its plain (unsmoothed) "
                          "likelihood count / class size"),
                Case("a mild, humid day",
                     (WEATHER, {"temperature": "mild", "humidity": "high"}, "play")),
                Case("a sunny day with normal humidity",
                     (WEATHER, {"outlook": "sunny", "humidity": "normal"}, "play")),
                Case("the picnic table, three features",
                     (PICNIC, {"humid": "high", "wind": "strong", "forecast": "change"}, "enjoy")),
                Case("a rainy, hot day", (WEATHER, {"outlook": "rainy", "temperature": "hot"}, "play")),
                Case("a rainy, mild, windy day",
                     (WEATHER, {"outlook": "rainy", "temperature": "mild", "windy": "true"}, "play")),
                Case("the picnic table: humid, and the forecast changes",
                     (PICNIC, {"humid": "high", "forecast": "change"}, "enjoy")),
                Case("the weather table with humidity as the class",
                     (WEATHER, {"temperature": "cool", "play": "yes"}, "humidity")),
            ]),
        Question(
            "q4", "p_no", points=1, kind="value", title="the posterior P(play = no | the lesson's day)",
            reference=ref_p_no, forbidden=NOT_THE_LIBRARY, computed=True,
            calls=("joint_scores",),
            swaps=[Swap("the posterior computed from joint_scores", ("joint_scores",),
                        RANKED_JOINT_SCORES, lambda: Fraction(1, 3), TYPED_P_NO)],
            hint="a posterior is a joint score divided by the sum of the joint scores",
            mistakes=[
                Mistake("P(yes | day) instead of P(no | day)",
                        lambda: _lesson_posterior("yes"),
                        "Your value is the posterior of 'yes'. The question asks for 'no': "
                        "divide the score of 'no' by the sum of both scores."),
                Mistake("the joint score, not divided by the sum",
                        lambda: _lesson_posterior("no", normalise=False),
                        "Your value is the joint score of 'no'. A posterior divides it by the "
                        "sum of the joint scores of all labels: see lesson 01, §5."),
                Mistake("the class prior left out",
                        lambda: _lesson_posterior("no", prior=lambda n, total: Fraction(1)),
                        NO_PRIOR),
            ],
            cases=[
                Case("a probability between 0 and 1", hidden=False,
                     judge=Within(0, 1, "p_no should be a number between 0 and 1")),
                Case("the lesson's posterior"),
            ]),
        Question(
            "q5", "p_win_given_free", points=2, kind="value",
            title="independent within each class, dependent over all messages",
            reference=p_win_given_free,
            mistakes=[
                Mistake("independent over all messages too",
                        lambda: WORD_RATE["spam"] / 2 + WORD_RATE["ham"] / 2,
                        "Your value is P(win): you treated the words as independent over all "
                        "messages. They are independent only within each class; 'free' makes "
                        "spam more likely, and spam makes 'win' more likely. Weigh each class "
                        "by how likely it makes 'free' (lesson 01, §3)."),
                Mistake("the rate within spam", lambda: WORD_RATE["spam"],
                        "Your value is P(win | spam). Seeing 'free' does not prove the message "
                        "is spam: add the ham messages that contain both words, and divide by "
                        "all messages that contain 'free' (lesson 01, §3)."),
                Mistake("P(free and win) not divided by P(free)",
                        lambda: p_win_given_free() * (WORD_RATE["spam"] / 2 + WORD_RATE["ham"] / 2),
                        "Your value is P(free and win). A conditional probability divides it by "
                        "P(free) (lesson 01, §1)."),
            ],
            cases=[Case("a probability between 0 and 1", hidden=False,
                        judge=Within(0, 1, "p_win_given_free should be a number between 0 and 1")),
                   Case("P(win | free) over all messages")]),
    ],
)
