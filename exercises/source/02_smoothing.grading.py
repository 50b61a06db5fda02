"""Grading spec for exercise 2, smoothing with Beta priors.

Expected values come from nbcourse.smoothing (Beta posterior, mode, mean) and from
CategoricalNB with alpha > 0, computed in the grader's process.
"""
from fractions import Fraction

import pandas as pd

from nbcourse import CategoricalNB
from nbcourse.datasets import load_picnic, load_weather
from nbcourse.grading.judges import SameKeys, Within
from nbcourse.grading.specs import Case, Exercise, Mistake, Question, Swap
from nbcourse.smoothing import beta_mean, beta_mode, beta_posterior, m_estimate

WEATHER = load_weather()
PICNIC = load_picnic()
LESSON_DAY = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}
SHUFFLED = WEATHER.sample(frac=1.0, random_state=11).iloc[:9]
#: the weather's own column names, where outlook shows two values: J is this table's
TWO_OUTLOOKS = WEATHER[WEATHER["outlook"] != "rainy"].reset_index(drop=True)
FRUIT = pd.DataFrame({
    "colour": ["red", "red", "yellow", "yellow", "yellow", "red", "green", "yellow", "red", "green"],
    "size": ["small", "small", "long", "long", "small", "small", "small", "long", "big", "big"],
    "label": ["cherry", "cherry", "banana", "banana", "lemon", "cherry", "lemon", "banana",
              "apple", "apple"],
})

# Three classes, and a colour with six values of which the first class shows four: J, the
# values within the class, the classes, 2, J - 1 and J + 1 are six different numbers.
SWEETS = pd.DataFrame({
    "colour": ["red", "red", "blue", "yellow", "blue", "green", "purple", "orange", "green",
               "purple", "red"],
    "label": ["fruity"] * 6 + ["mint"] * 3 + ["sour"] * 2,
})

COIN_CASES = [  # (a, b, heads, tails); every posterior has a single mode
    Case("three heads in three tosses, flat prior Beta(1, 1)", (1, 1, 3, 0), hidden=False),
    Case("two heads, two tails, prior Beta(2, 2)", (2, 2, 2, 2), hidden=False),
    Case("a prior that leans to tails, four heads in five tosses", (1, 3, 4, 1), hidden=False),
    Case("a prior worth four tosses and a fair coin's data", (2, 2, 7, 3)),
    Case("a strong prior and little data", (20, 5, 1, 2)),
    Case("a prior that believes in tails", (1, 4, 6, 0)),
    Case("fractional pseudo-counts", (Fraction(3, 2), Fraction(5, 2), 4, 4)),
    Case("many tosses", (3, 3, 480, 520)),
    # "floats are fine": Fraction(x, y) raises on a float prior (student 21)
    Case("a prior given as floats", (0.5, 2.0, 2, 3)),
]


def ref_posterior_parameters(a, b, heads, tails):
    return list(beta_posterior(a, b, heads, tails, exact=True))


def ref_map(a, b, heads, tails):
    return beta_mode(*beta_posterior(a, b, heads, tails, exact=True), exact=True)


def ref_mean(a, b, heads, tails):
    return beta_mean(*beta_posterior(a, b, heads, tails, exact=True), exact=True)


def ref_smoothed_likelihood(table, feature, value, target, label, alpha):
    model = CategoricalNB(alpha=alpha).fit(table[[feature]], table[target])
    likelihoods = model.likelihood_table(feature, numeric=True)
    if value not in likelihoods.index:  # never in the table: count 0, J unchanged
        in_class = int((table[target] == label).sum())
        return float(alpha / (in_class + alpha * len(likelihoods.index)))
    return float(likelihoods.loc[value, label])


def ref_smoothed_p_no():
    model = CategoricalNB(alpha=1).fit(WEATHER[list(LESSON_DAY)], WEATHER["play"])
    return model.predict_proba(pd.DataFrame([LESSON_DAY]), exact=True).iloc[0]["no"]


# Question 4: the rule (heads + k) / (N + n), k pseudo-heads in n pseudo-tosses, is the
# posterior mean of Beta(k, n - k). Laplace's add-one rule is k = 1, n = 2.
RULE_CASES = [
    Case("Laplace's add-one rule: k = 1, n = 2", (1, 2), hidden=False),
    Case("one pseudo-head in three pseudo-tosses", (1, 3), hidden=False),
    Case("half a pseudo-head in one pseudo-toss (Jeffreys' prior)", (Fraction(1, 2), 1)),
    Case("three pseudo-heads in ten pseudo-tosses", (3, 10)),
    Case("more pseudo-heads than pseudo-tails", (4, 6)),
    Case("a fractional rule", (Fraction(3, 2), Fraction(7, 2))),
    Case("a strong rule: twenty pseudo-heads in fifty", (20, 50)),
    Case("two pseudo-heads in five pseudo-tosses", (2, 5)),
    Case("a third of a pseudo-head in one pseudo-toss", (Fraction(1, 3), 1)),
    Case("five pseudo-heads in eight pseudo-tosses", (5, 8)),
]
# (every case has its own answer, so a pair returned whatever k and n earns at most a
# tenth of the point: tests/grading/test_grading_guessing.py)


def ref_smoothing_prior(k, n):
    return [k, n - k]


def rule_map_prior(k, n):
    return [k + 1, n - k + 1]


def rule_b_is_n(k, n):
    return [k, n]


def rule_swapped(k, n):
    return [n - k, k]


# ----------------------------------------------------------------- known mistakes
def parameters_swapped(a, b, heads, tails):
    return [a + tails, b + heads]


def parameters_total_in_b(a, b, heads, tails):
    return [a + heads, b + heads + tails]


def map_is_the_mean(a, b, heads, tails):
    return Fraction(a + heads) / (a + b + heads + tails)  # floats in too


def map_without_the_prior(a, b, heads, tails):
    return Fraction(heads, heads + tails)


def map_minus_one_below(a, b, heads, tails):
    return Fraction(a + heads - 1) / (a + b + heads + tails - 1)


def mean_is_the_map(a, b, heads, tails):
    return Fraction(a + heads - 1) / (a + b + heads + tails - 2)


def mean_always_laplace(a, b, heads, tails):
    return Fraction(heads + 1, heads + tails + 2)


def mean_of_the_prior(a, b, heads, tails):
    return Fraction(a) / (a + b)


def _in_class(table, target, label):
    return table[table[target] == label]


def smoothed_k_within_the_class(table, feature, value, target, label, alpha):
    rows = _in_class(table, target, label)
    return (int((rows[feature] == value).sum()) + alpha) / (len(rows) + alpha * rows[feature].nunique())


def smoothed_alpha_once_below(table, feature, value, target, label, alpha):
    rows = _in_class(table, target, label)
    return (int((rows[feature] == value).sum()) + alpha) / (len(rows) + alpha)


def smoothed_two_values(table, feature, value, target, label, alpha):
    rows = _in_class(table, target, label)
    return (int((rows[feature] == value).sum()) + alpha) / (len(rows) + 2 * alpha)


def smoothed_forgotten(table, feature, value, target, label, alpha):
    rows = _in_class(table, target, label)
    return int((rows[feature] == value).sum()) / len(rows)


def smoothed_numerator_only(table, feature, value, target, label, alpha):
    rows = _in_class(table, target, label)
    return (int((rows[feature] == value).sum()) + alpha) / len(rows)


def smoothed_k_plus_one(table, feature, value, target, label, alpha):
    rows = _in_class(table, target, label)
    return (int((rows[feature] == value).sum()) + alpha) / (len(rows) + alpha * (table[feature].nunique() + 1))


def smoothed_k_minus_one(table, feature, value, target, label, alpha):
    rows = _in_class(table, target, label)
    return (int((rows[feature] == value).sum()) + alpha) / (len(rows) + alpha * (table[feature].nunique() - 1))


def smoothed_unseen_value_in_j(table, feature, value, target, label, alpha):
    """One more value in J when the value asked for is not in the table."""
    rows = _in_class(table, target, label)
    values = table[feature].nunique() + (value not in set(table[feature]))
    return (int((rows[feature] == value).sum()) + alpha) / (len(rows) + alpha * values)


def smoothed_k_is_the_classes(table, feature, value, target, label, alpha):
    rows = _in_class(table, target, label)
    return (int((rows[feature] == value).sum()) + alpha) / (len(rows) + alpha * table[target].nunique())


def _smoothed_p_no(prior):
    scores = {}
    for label in ("no", "yes"):
        rows = _in_class(WEATHER, "play", label)
        score = prior(len(rows), len(WEATHER))
        for feature, value in LESSON_DAY.items():
            score *= Fraction(int((rows[feature] == value).sum()) + 1,
                              len(rows) + WEATHER[feature].nunique())
        scores[label] = score
    return scores["no"] / sum(scores.values())


def ref_m_smoothed(n_vc, n_c, m, Q):
    return m_estimate(n_vc, n_c, m, Q, exact=True)


def m_without_q(n_vc, n_c, m, Q):
    return Fraction(n_vc + m) / (n_c + m)


def q_added_once(n_vc, n_c, m, Q):
    return (n_vc + Fraction(Q)) / (n_c + m)


def m_without_n_vc(n_vc, n_c, m, Q):
    return (m * Fraction(Q)) / (n_c + m) if n_c + m else Fraction(Q)


def m_q_below_too(n_vc, n_c, m, Q):
    return (n_vc + m * Fraction(Q)) / (n_c + m * Fraction(Q))


M_CASES = [  # (n_vc, n_c, m, Q), in lesson 02 section 9's notation
    Case("overcast on the 5 'no' days, m = 2 and Q = 4/14 as in the lesson",
         (0, 5, 2, Fraction(4, 14)), hidden=False),
    Case("m = J = 3 and Q = 1/3 give Laplace back", (0, 5, 3, Fraction(1, 3)), hidden=False),
    Case("a value seen three times, a uniform guess", (3, 5, 3, Fraction(1, 3)), hidden=False),
    Case("a strong prior guess of one half", (2, 9, 10, Fraction(1, 2))),
    Case("m = 0 gives the plain count ratio", (7, 10, 0, Fraction(1, 5))),
    Case("no example of the class at all: the guess Q itself", (0, 0, 4, Fraction(1, 4))),
    Case("a guess from the whole table, many examples", (12, 40, 6, Fraction(2, 7))),
    Case("floats in, a float out", (3, 8, 2.5, 0.4)),
    # a guess of 0 is a guess (student 17: "Q if Q else 1/m" had full marks)
    Case("a guess of zero", (2, 6, 3, Fraction(0))),
]


def _product(values):
    result = 1
    for v in values:
        result *= v
    return result


def ref_parameter_counts(values, K):
    """(naive Bayes, full joint table) free numbers, lesson 01 section 2's convention."""
    naive = (K - 1) + K * sum(v - 1 for v in values)
    return [naive, _product(values) * K - 1]


def counts_without_sum_to_one(values, K):
    return [K + K * sum(v - 1 for v in values), _product(values) * K]


def counts_values_not_free(values, K):
    return [(K - 1) + K * sum(values), _product(values) * K - 1]


def counts_all_yes_no(values, K):
    d = len(values)
    return [(K - 1) + d * K, 2**d * K - 1]


COUNT_CASES = [  # (number of values of each attribute, K classes)
    Case("the picnic table: six yes/no attributes, two classes", ([2] * 6, 2), hidden=False),
    Case("ten yes/no attributes, two classes", ([2] * 10, 2), hidden=False),
    Case("the picnic table with a three-valued sky", ([3, 2, 2, 2, 2, 2], 2), hidden=False),
    Case("the weather table: outlook, temperature, humidity, windy", ([3, 3, 2, 2], 2)),
    Case("two three-valued attributes, three classes", ([3, 3], 3)),
    Case("a single attribute: naive Bayes saves nothing", ([4], 3)),
    Case("thirty yes/no attributes", ([2] * 30, 2)),
    Case("four attributes of different sizes, five classes", ([5, 4, 3, 2], 5)),
    # exact counts: 2**32 - 1 cells overflow 32-bit integers, 2**71 - 1 any fixed-size one
    Case("thirty-one yes/no attributes, two classes", ([2] * 31, 2)),
    Case("seventy yes/no attributes: a count beyond any fixed-size integer", ([2] * 70, 2),
         hidden=False,
         hint="return exact counts: multiply Python integers (numpy's integers, np.prod "
              "included, overflow without a word past 2**63)"),
    Case("twenty ten-valued attributes, three classes", ([10] * 20, 3)),
    # 2 * 3**40 - 1 needs 65 bits: a float keeps 53 of them (2**71 above is exact in a float)
    Case("forty three-valued attributes: a count no float holds exactly", ([3] * 40, 2),
         hidden=False,
         hint="multiply Python integers, never floats: a float keeps about 16 significant "
              "digits, so a large count computed in floats (float(K), 3.0 ** 40, math.prod "
              "of floats) comes out a little off"),
]

# Question 9: four coins, (prior a, prior b, heads, tails). The mode formula holds in (b) and
# (d) (a', b' >= 1, not both 1); in (a) a' < 1 and in (c) b' < 1, so the MAP is on an edge.
EDGE_COINS = {"a": (Fraction(1, 2), Fraction(1, 2), 0, 3),
              "b": (Fraction(1, 2), Fraction(1, 2), 1, 4),
              "c": (Fraction(2), Fraction(1, 2), 3, 0),
              "d": (Fraction(1, 2), Fraction(2), 2, 3)}


def _map_of_posterior(a, b):
    """The mode of Beta(a, b) for a, b not both below 1: an edge when one is below 1."""
    if a < 1:
        return Fraction(0)
    if b < 1:
        return Fraction(1)
    return (a - 1) / (a + b - 2)


def _each_coin(estimate):
    return {key: estimate(a + heads, b + tails)
            for key, (a, b, heads, tails) in EDGE_COINS.items()}


def ref_map_edge():
    return _each_coin(_map_of_posterior)


def map_edge_formula():
    return _each_coin(lambda a, b: (a - 1) / (a + b - 2))


def map_edge_mean():
    return _each_coin(lambda a, b: a / (a + b))


FROM_Q1 = ("If your function uses your posterior_parameters from question 1, check that one "
           "first: a wrong posterior makes every estimate built on it wrong.")

# the swap of q6: a smoothed_likelihood of 1/2 for 'no' and 1/4 for 'yes', whatever the
# feature; with the plain priors 5/14 and 9/14 the lesson's day gives P(no) = 80/89
# "yes" wins under it (a quarter for "no", a half for "yes"), so the posterior of the
# winning class (``max(scores) / sum``, student 29) is not P(no) there
HALF_AND_QUARTER = """
def smoothed_likelihood(table, feature, value, target, label, alpha):
    from fractions import Fraction
    return Fraction(1, 4) if label == "no" else Fraction(1, 2)
"""


# ... on the weather table without its first two days (both "no": priors 3/12 and 9/12),
# so a prior typed in (``{"no": 5/14, "yes": 9/14}``, student 23) no longer lands on it
FEWER_DAYS = """
from nbcourse.datasets import load_weather
weather = load_weather().iloc[2:].reset_index(drop=True)
"""


def p_no_with_half_and_quarter():
    table = WEATHER.iloc[2:]
    counts = table["play"].value_counts()
    no = Fraction(int(counts["no"]), len(table)) * Fraction(1, 4) ** len(LESSON_DAY)
    yes = Fraction(int(counts["yes"]), len(table)) * Fraction(1, 2) ** len(LESSON_DAY)
    return no / (no + yes)


SMOOTHING = ("beta_posterior", "beta_mode", "beta_mean", "beta_summary", "laplace",
             "lidstone", "m_estimate", "nbcourse.smoothing.*", "nbcourse._numerics.*",
             # scikit-learn's naive Bayes smooths; scipy.stats.beta has the mode and mean
             "sklearn.naive_bayes.*", "scipy.stats.*",
             "nbcourse.naive_bayes.*")  # the library's models smooth too

EXERCISE = Exercise(
    title="Exercise 2: smoothing as pseudo-counts",
    questions=[
        Question("q1", "posterior_parameters", points=1, title="the Beta posterior's parameters",
                 reference=ref_posterior_parameters, cases=COIN_CASES, forbidden=SMOOTHING,
                 hint="the prior's a and b act as heads and tails seen before the data: add the "
                      "observed heads to a and the observed tails to b",
                 mistakes=[
                     Mistake("heads and tails swapped", parameters_swapped,
                             "You added the tails to a and the heads to b. In Beta(a, b), a "
                             "counts heads and b counts tails, before and after the data: see "
                             "lesson 02, §3."),
                     Mistake("every toss added to b", parameters_total_in_b,
                             "You added all the tosses to b. Only the tails go to b; the heads "
                             "go to a: see lesson 02, §3."),
                 ]),
        Question("q2", "map_estimate", points=2, title="the MAP estimate (posterior mode)",
                 reference=ref_map, cases=COIN_CASES, forbidden=SMOOTHING,
                 calls=("posterior_parameters",),
                 hint="the MAP is where the posterior density peaks: the mode (a - 1) / "
                      "(a + b - 2) of the posterior Beta(a + heads, b + tails). " + FROM_Q1,
                 mistakes=[
                     Mistake("the mean instead of the mode", map_is_the_mean,
                             "Your value is the posterior mean a / (a + b). The MAP is the "
                             "posterior's mode, (a - 1) / (a + b - 2): see lesson 02, §4."),
                     Mistake("the prior left out", map_without_the_prior,
                             "Your value is heads / tosses, the maximum-likelihood estimate: "
                             "the prior's pseudo-counts are missing. See lesson 02, §4."),
                     Mistake("1 subtracted instead of 2 below", map_minus_one_below,
                             "Below the bar of the mode, subtract 2 (one for each parameter), "
                             "not 1: (a - 1) / (a + b - 2). See lesson 02, §4."),
                 ]),
        Question("q3", "posterior_mean", points=2, title="the posterior mean",
                 reference=ref_mean, cases=COIN_CASES, forbidden=SMOOTHING,
                 calls=("posterior_parameters",),
                 hint="take the mean of the posterior Beta(a + heads, b + tails), not of the "
                      "prior. " + FROM_Q1,
                 mistakes=[
                     Mistake("the mode instead of the mean", mean_is_the_map,
                             "Your value is the posterior's mode (the MAP). The mean of "
                             "Beta(a, b) is a / (a + b): see lesson 02, §4."),
                     Mistake("always Laplace's rule", mean_always_laplace,
                             "Your value is (heads + 1) / (tosses + 2) whatever the prior: that "
                             "is the posterior mean only for the flat prior Beta(1, 1). Use the "
                             "prior's a and b: see lesson 02, §7."),
                     Mistake("the prior left out", map_without_the_prior,
                             "Your value is heads / tosses, the maximum-likelihood estimate: "
                             "the prior's pseudo-counts are missing. The posterior mean is "
                             "(a + heads) / (a + b + tosses): see lesson 02, §4."),
                     Mistake("the prior's mean, without the data", mean_of_the_prior,
                             "Your value is the mean of the prior Beta(a, b), before any toss. "
                             "Take the mean of the posterior Beta(a + heads, b + tails): see "
                             "lesson 02, §3 and §4."),
                 ]),
        Question("q4", "smoothing_prior", points=1,
                 title="the prior behind a smoothing rule",
                 reference=ref_smoothing_prior, cases=RULE_CASES,
                 hint="the posterior mean of Beta(a, b) after the tosses is (a + heads) / "
                      "(a + b + N): match it with (heads + k) / (N + n) for every number of "
                      "heads and tails. It is the posterior *mean*, not the MAP, that must equal "
                      "the rule",
                 mistakes=[
                     Mistake("the prior whose MAP is the rule", rule_map_prior,
                             "With Beta(k + 1, n - k + 1) it is the MAP (the mode) that equals "
                             "(N_1 + k) / (N + n), as Beta(2, 2)'s MAP is add-one. The rule is "
                             "the posterior *mean* (a + N_1) / (a + b + N): see lesson 02, §7."),
                     Mistake("b taken as all the pseudo-tosses", rule_b_is_n,
                             "Your b is n, all the pseudo-tosses. b counts the pseudo-*tails* "
                             "only: a + b = n, so b = n - k (lesson 02, §3 and §7)."),
                     Mistake("heads and tails swapped", rule_swapped,
                             "Your a and b are swapped. In Beta(a, b), a counts heads (the k "
                             "pseudo-heads of the rule) and b tails: see lesson 02, §3."),
                 ]),
        Question("q5", "smoothed_likelihood", points=2,
                 title="a smoothed likelihood from a table", reference=ref_smoothed_likelihood,
                 forbidden=("CategoricalNB",) + SMOOTHING,
                 hint="(count + alpha) / (class size + alpha * J), where J is the number of "
                      "values the feature takes in the whole table, not within one class",
                 mistakes=[
                     Mistake("J counted within the class", smoothed_k_within_the_class,
                             "You counted the feature's values within the class. J is the "
                             "number of values the feature takes in the whole table: a value "
                             "the class never shows still gets its pseudo-count. See lesson 02, "
                             "§8 and §10."),
                     Mistake("alpha added once below the bar", smoothed_alpha_once_below,
                             "Below the bar, alpha is added once for every value the feature "
                             "can take (alpha * J), so that the smoothed likelihoods still add "
                             "up to 1. See lesson 02, §8."),
                     Mistake("J taken as the number of classes", smoothed_k_is_the_classes,
                             "You multiplied alpha by the number of classes. J is the number of "
                             "values of the feature: see lesson 02, §8."),
                     Mistake("2 alpha below the bar, as for a yes/no feature", smoothed_two_values,
                             "You added 2 alpha below the bar, which is right only for a feature "
                             "with two values. Add alpha once per value the feature takes in the "
                             "whole table (alpha * J): see lesson 02, §8."),
                     Mistake("smoothing forgotten", smoothed_forgotten,
                             "Your value is the plain count ratio: alpha is missing above and "
                             "below the bar. See lesson 02, §8."),
                     Mistake("alpha only above the bar", smoothed_numerator_only,
                             "You added alpha to the count but nothing below the bar, so the "
                             "smoothed likelihoods add up to more than 1. Add alpha * J below "
                             "the bar: see lesson 02, §8."),
                     Mistake("J one too large", smoothed_k_plus_one,
                             "Below the bar you added alpha once more than the feature has "
                             "values. J is the number of values the feature takes in the whole "
                             "table: see lesson 02, §8."),
                     Mistake("J one too small", smoothed_k_minus_one,
                             "Below the bar you added alpha once less than the feature has "
                             "values (J - 1 is the number of *free* parameters, not of values). "
                             "See lesson 02, §8."),
                     Mistake("a value the table never shows counted in J",
                             smoothed_unseen_value_in_j,
                             "For a value the table never shows you added one more value to "
                             "J. J is the number of values the feature takes in the whole "
                             "table, whatever value is asked: an unseen value gets alpha / "
                             "(class size + alpha * J). See lesson 02, §8."),
                 ],
                 cases=[
                     Case("P(outlook = overcast | play = no) with alpha = 1",
                          (WEATHER, "outlook", "overcast", "play", "no", 1), hidden=False),
                     Case("eleven sweets: three classes, a colour with six values, alpha = 0.5",
                          (SWEETS, "colour", "red", "label", "fruity", 0.5), hidden=False),
                     # public: smoothing only a zero count passed every public case
                     # (student 11)
                     Case("an unseen value with half a pseudo-count: P(outlook = overcast | "
                          "play = no), alpha = 0.5",
                          (WEATHER, "outlook", "overcast", "play", "no", 0.5), hidden=False,
                          hint="the same formula for every count, zero or not: (count + "
                               "alpha) / (class size + alpha * J)"),
                     Case("alpha = 0 gives back the plain count ratio",
                          (WEATHER, "windy", "true", "play", "yes", 0)),
                     # J read from the notebook's weather table had full marks (student 11)
                     Case("the weather's columns, where outlook shows only two values",
                          (TWO_OUTLOOKS, "outlook", "sunny", "play", "no", 1)),
                     Case("half a pseudo-count", (WEATHER, "temperature", "mild", "play", "no", 0.5)),
                     Case("a strong prior", (WEATHER, "humidity", "high", "play", "yes", 10)),
                     # an alpha rounded to a whole number from 1 up had full marks (student 13)
                     Case("two and a half pseudo-counts",
                          (WEATHER, "outlook", "rainy", "play", "no", 2.5)),
                     Case("a table with other column names", (PICNIC, "sky", "rainy", "enjoy", "yes", 1)),
                     Case("a table with three classes", (FRUIT, "size", "big", "label", "lemon", 2)),
                     Case("a shuffled table with fewer rows",
                          (SHUFFLED, "outlook", "sunny", "play", "yes", 1)),
                     # the weather table with another class column: an answer that reads
                     # "play" whenever the table has it fails here
                     Case("the weather table with windy as the class",
                          (WEATHER, "outlook", "rainy", "windy", "false", 1)),
                     Case("a value the table never shows: P(outlook = foggy | play = yes), "
                          "alpha = 1", (WEATHER, "outlook", "foggy", "play", "yes", 1),
                          hidden=False,
                          hint="a value the table never shows has count 0, and J stays the "
                               "number of values the table shows: alpha / (class size + "
                               "alpha * J)"),
                     Case("another value the table never shows",
                          (PICNIC, "sky", "cloudy", "enjoy", "no", 0.5)),
                 ]),
        Question("q6", "smoothed_p_no", points=1, kind="value",
                 title="the smoothed posterior P(play = no | the lesson's day)",
                 reference=ref_smoothed_p_no, forbidden=("CategoricalNB",) + SMOOTHING,
                 calls=("smoothed_likelihood",), computed=True,
                 swaps=[Swap("the posterior computed from smoothed_likelihood and weather",
                             ("smoothed_likelihood",), HALF_AND_QUARTER + FEWER_DAYS,
                             p_no_with_half_and_quarter,
                             "Your `smoothed_p_no` does not follow your "
                             "`smoothed_likelihood` and `weather`: run with a "
                             "`smoothed_likelihood` that gives other numbers, on a table with "
                             "fewer days, your cell gives a value that is not theirs. "
                             "Multiply the prior (counted in `weather`) by the smoothed "
                             "likelihood of each feature of the day, then divide the score of "
                             "'no' by the sum: no number typed in.",
                             rebinds=("weather",))],
                 hint="smooth each likelihood as (count + 1) / (class size + number of values "
                      "of that feature in the whole table); the prior P(play) stays the plain "
                      "share of rows; then divide the score of 'no' by the sum of both scores",
                 mistakes=[
                     Mistake("the prior smoothed too",
                             lambda: _smoothed_p_no(lambda n, total: Fraction(n + 1, total + 2)),
                             "You smoothed the class prior as well. Only the likelihoods are "
                             "smoothed here; the prior P(play) stays the plain share of rows. "
                             "See lesson 02, §10."),
                     Mistake("the class prior left out",
                             lambda: _smoothed_p_no(lambda n, total: Fraction(1)),
                             "The class prior P(play) is missing from your scores: multiply "
                             "the smoothed likelihoods by it. See lesson 01, §5."),
                 ],
                 cases=[Case("a probability between 0 and 1", hidden=False,
                             judge=Within(0, 1, "expected a probability between 0 and 1")),
                        Case("the lesson's day at alpha = 1, as on lesson 02's curve")]),
        Question("q7", "m_smoothed", points=2, title="the m-estimate",
                 reference=ref_m_smoothed, cases=M_CASES, forbidden=SMOOTHING,
                 hint="(n_vc + m * Q) / (n_c + m): the guess Q, worth m virtual examples, adds "
                      "m * Q above the bar and m below it",
                 mistakes=[
                     Mistake("m added above the bar without Q", m_without_q,
                             "You added m to the count above the bar. The m virtual examples "
                             "show the value only in the share Q of them, so add m * Q above "
                             "the bar and m below it: see lesson 02, §9."),
                     Mistake("Q added once, not m times", q_added_once,
                             "You added the guess Q once above the bar. It is worth m examples, "
                             "so it adds m * Q pseudo-counts: see lesson 02, §9."),
                     Mistake("n_vc left out", m_without_n_vc,
                             "Your value uses the guess alone: the count n_vc of the value in the "
                             "class is missing above the bar. See lesson 02, §9."),
                     Mistake("m * Q below the bar too", m_q_below_too,
                             "Below the bar, add all m virtual examples (m), not only the m * Q "
                             "of them that show the value: see lesson 02, §9."),
                 ]),
        Question("q8", "parameter_counts", points=2,
                 title="free numbers: naive Bayes against the full joint table",
                 reference=ref_parameter_counts, cases=COUNT_CASES,
                 exact=True,  # counts: a float a few units off 2 * 3**40 - 1 is wrong
                 hint="naive Bayes: K - 1 for the prior, plus (number of values - 1) per "
                      "attribute and per class; the full table: one cell per combination of "
                      "attribute values and class, minus 1 because all cells sum to one",
                 mistakes=[
                     Mistake("no -1 for probabilities that sum to one",
                             counts_without_sum_to_one,
                             "You counted every probability, including the last one of each "
                             "distribution, which the others fix because they sum to one (like "
                             "the 2 + 2m of the spam lecture, which lists both priors). Count "
                             "free numbers: see lesson 01, §2."),
                     Mistake("values counted instead of free numbers", counts_values_not_free,
                             "For naive Bayes you counted all the values of each attribute per "
                             "class. The likelihoods of one attribute in one class sum to one, so "
                             "an attribute with v values needs only v - 1 numbers per class: see "
                             "lesson 01, §2."),
                     Mistake("every attribute treated as yes/no", counts_all_yes_no,
                             "Your counts are the yes/no formulas (K - 1) + dK and 2^d K - 1 "
                             "whatever the number of values. An attribute with v values has v "
                             "cells in the full table and v - 1 free numbers per class: see the "
                             "three-valued sky in lesson 01, §2."),
                 ]),
        Question("q9", "map_edge", points=2, kind="value",
                 title="the MAP estimate, inside and on the edge",
                 reference=ref_map_edge,
                 # beta_mode decides the edges for you (student 21)
                 forbidden=SMOOTHING,
                 mistakes=[
                     Mistake("the mode formula used outside its range", map_edge_formula,
                             "(a' - 1) / (a' + b' - 2) is the peak only when a' >= 1 and "
                             "b' >= 1 (not both 1). When a' < 1 the density grows without bound "
                             "towards theta = 0, so the MAP is 0; when b' < 1 it is 1 "
                             "(lesson 02, §4)."),
                     Mistake("the posterior mean", map_edge_mean,
                             "Your values are the posterior means a' / (a' + b'). The MAP is "
                             "where the density is highest (lesson 02, §4)."),
                 ],
                 cases=[Case("a dict with the four coins' letters", hidden=False,
                             judge=SameKeys('map_edge should be a dict with the keys "a", "b", '
                                            '"c" and "d"',
                                            keys=["a", "b", "c", "d"], shares=["a", "b", "c", "d"])),
                        Case("the MAP estimate of each of the four posteriors")]),
    ],
)
