"""Grading spec for exercise 3, maximum likelihood.

Expected values come from nbcourse.mle (log-likelihood, closed form, class priors),
computed in the grader's process.
"""
import math

import numpy as np

from nbcourse.datasets import load_picnic, load_weather
from nbcourse.grading.judges import AsDict, Optimum, SameKeys
from nbcourse.grading.specs import Case, Exercise, Mistake, NotApplicable, Question, Swap
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


# ----------------------------------------------------------------- known mistakes
def log_likelihood_without_skipping(counts, theta):
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.sum(np.asarray(counts) * np.log(np.asarray(theta, dtype=float))))


def log_likelihood_ignoring_impossible(counts, theta):
    counts, theta = np.asarray(counts, dtype=float), np.asarray(theta, dtype=float)
    keep = (counts > 0) & (theta > 0)
    return float(np.sum(counts[keep] * np.log(theta[keep])))


def log_likelihood_unweighted(counts, theta):
    counts, theta = np.asarray(counts), np.asarray(theta, dtype=float)
    with np.errstate(divide="ignore"):
        return float(np.sum(np.log(theta[counts > 0])))


def log_likelihood_of_product(counts, theta):
    counts, theta = np.asarray(counts, dtype=float), np.asarray(theta, dtype=float)
    with np.errstate(divide="ignore", under="ignore"):
        return float(np.log(np.prod(theta ** counts)))


def mle_with_laplace(counts):
    counts = np.asarray(counts, dtype=float)
    return ((counts + 1) / (counts.sum() + len(counts))).tolist()


def mle_over_the_largest(counts):
    counts = np.asarray(counts, dtype=float)
    return (counts / counts.max()).tolist()


def ref_numeric_mle(counts, smallest=0.0):
    """The maximum of sum n_j log theta_j over the simplex with every theta_j >= smallest.

    Where n_j / N is above the floor the answer is a count ratio; the outcomes it would put
    below the floor sit on it, and the rest share what is left in proportion to their
    counts.  Derived exactly (no optimiser), so the release is the same on every machine.
    """
    counts = [float(n) for n in counts]
    clamped: set[int] = set()
    while True:
        free = [k for k in range(len(counts)) if k not in clamped]
        share = (1.0 - smallest * len(clamped)) / sum(counts[k] for k in free)
        low = {k for k in free if counts[k] * share < smallest}
        if not low:
            return [smallest if k in clamped else counts[k] * share for k in range(len(counts))]
        clamped |= low


def numeric_floor_ignored(counts, smallest=0.0):
    return multinomial_mle(counts).tolist()


def numeric_clipped_then_renormalised(counts, smallest=0.0):
    theta = np.maximum(multinomial_mle(counts), smallest)
    return (theta / theta.sum()).tolist()


def numeric_without_constraint(counts, smallest=0.0):
    """Bounded to [0, 1] without the sum: each observed outcome's probability climbs to 1
    (an outcome never observed has no gradient and stays where it started, at 0.5)."""
    return [1.0 if n > 0 else 0.5 for n in counts]


def numeric_returns_the_scores(counts, smallest=0.0):
    """The scores z of the optimum, centred as an optimiser started at zero leaves them
    (every gradient of the softmax likelihood sums to zero)."""
    if smallest or min(counts) <= 0:
        raise NotApplicable("the scores of a boundary optimum are not finite")
    log_theta = [math.log(n / sum(counts)) for n in counts]
    return [v - sum(log_theta) / len(log_theta) for v in log_theta]


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
    with np.errstate(invalid="ignore"):  # an empty document's shares are nan
        rows = X / X.sum(axis=1, keepdims=True)
    return {label: rows[y == label].mean(axis=0).tolist() for label in np.unique(y)}


def words_document_frequency(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    return {label: (X[y == label] > 0).mean(axis=0).tolist() for label in np.unique(y)}


def words_with_laplace(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    result = {}
    for label in np.unique(y):
        counts = X[y == label].sum(axis=0) + 1
        result[label] = (counts / counts.sum()).tolist()
    return result


# Question 6: five documents over four words, priors and word shares by maximum
# likelihood; of three new documents one holds a word ham never used, one a word spam
# never used, and one only words both classes used.
NEW_X = [[3, 0, 1, 0], [1, 0, 2, 1], [0, 2, 0, 1], [0, 1, 1, 0], [0, 3, 0, 2]]
NEW_Y = ["spam", "spam", "ham", "ham", "ham"]
NEW_DOCUMENTS = {"a": [1, 0, 0, 1], "b": [0, 0, 2, 1], "c": [0, 1, 1, 0]}


def p_ham_documents(word_ignored=False, laplace=False, equal_priors=False):
    """{letter: P(ham | document)} under the maximum-likelihood model of NEW_X, NEW_Y."""
    X, y = np.asarray(NEW_X, dtype=float), np.asarray(NEW_Y)
    answer = {}
    for letter, document in NEW_DOCUMENTS.items():
        z = np.asarray(document, dtype=float)
        scores = {}
        for label in ("ham", "spam"):
            counts = X[y == label].sum(axis=0) + (1 if laplace else 0)
            theta = counts / counts.sum()
            used = z > 0
            if word_ignored:
                used &= theta > 0
            prior = 0.5 if equal_priors else float(np.mean(y == label))
            scores[label] = prior * float(np.prod(theta[used] ** z[used]))
        answer[letter] = scores["ham"] / (scores["ham"] + scores["spam"])
    return answer


#: a class_priors that gives every class the same prior, for 03 q6's swap
EQUAL_PRIORS = """
def class_priors(labels):
    return {label: 0.5 for label in set(labels)}
"""

#: ... and word probabilities with one pseudo-count (student 23: a word-probability table
#: typed in beside computed priors kept its points), as a dict of Series that also answers
#: a DataFrame's idioms (a column per class), so a cell written against either runs with it
SMOOTHED_WORDS = """
import numpy as np
import pandas as pd


class _Table(dict):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(pd.DataFrame(dict(self)), name)


def word_probabilities(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    table = _Table()
    for label in sorted(set(y.tolist())):
        counts = X[y == label].sum(axis=0) + 1
        table[label] = pd.Series(counts / counts.sum())
    return table
"""

LAPLACE = ("Your estimate adds one pseudo-count to every outcome: that is Laplace smoothing "
           "(lesson 02), a posterior mean. The maximum-likelihood estimate uses the counts "
           "alone: see lesson 03, §4.")

#: "nbcourse.mle ... already do this": the whole module, under whatever name it is reached
MLE_MODULE = ("nbcourse.mle.*", "nbcourse._numerics.*",
              # scikit-learn's estimators and scipy.stats's log-densities (norm.logpdf)
              "sklearn.naive_bayes.*", "scipy.stats.*",
              # every model's class_log_prior_ (BernoulliNB too), and smoothing at alpha 0
              # (lidstone_log, student 19)
              "nbcourse.naive_bayes.*", "nbcourse.smoothing.*")
# the library's log-loss is the log-likelihood over -N (student 21)
LIKELIHOODS = ("categorical_log_likelihood", "gaussian_log_likelihood",
               "nbcourse.evaluation.log_loss") + MLE_MODULE
CLOSED_FORMS = ("multinomial_mle", "class_prior_mle", "lagrange_multiplier", "lidstone",
                "laplace", "numeric_simplex_mle", "MultinomialNB", "CategoricalNB") + MLE_MODULE

EXERCISE = Exercise(
    title="Exercise 3: maximum likelihood",
    questions=[
        Question("q1", "log_likelihood", points=2, title="the categorical log-likelihood",
                 reference=lambda counts, theta: categorical_log_likelihood(counts, theta),
                 forbidden=LIKELIHOODS,
                 hint="sum count * log(probability) over the outcomes; an outcome that was "
                      "never observed contributes nothing, whatever its probability",
                 mistakes=[
                     Mistake("0 * log 0 not skipped", log_likelihood_without_skipping,
                             "An outcome never observed has count 0, and 0 * log 0 counts as "
                             "0: skip it, or numpy turns it into NaN. See lesson 03, §2."),
                     Mistake("impossible data treated as merely unlikely",
                             log_likelihood_ignoring_impossible,
                             "You skipped an outcome that was observed but has probability 0. "
                             "Data the model calls impossible have likelihood 0, so the "
                             "log-likelihood is -inf. See lesson 03, §2."),
                     Mistake("counts not used as weights", log_likelihood_unweighted,
                             "Each outcome's log-probability counts once per observation: "
                             "multiply it by its count. See lesson 03, §2."),
                     Mistake("the log of a product", log_likelihood_of_product,
                             "You multiplied the probabilities and took the log at the end. "
                             "With a few hundred observations the product underflows to 0 and "
                             "its log is -inf: add count * log(probability) instead of "
                             "multiplying. See lesson 03, §2."),
                 ],
                 cases=[
                     Case("outlook counts of the 'yes' days at their own frequencies",
                          ([2, 4, 3], [2 / 9, 4 / 9, 3 / 9]), hidden=False),
                     Case("an outcome never observed adds nothing, even with probability 0",
                          ([5, 0, 5], [0.5, 0.0, 0.5]), hidden=False),
                     Case("a uniform guess", ([2, 4, 3], [1 / 3, 1 / 3, 1 / 3])),
                     Case("an outcome never observed and given probability zero",
                          ([0, 4, 2], [0.0, 0.25, 0.75])),
                     Case("an observed outcome given probability zero: impossible data",
                          ([1, 3], [0.0, 1.0]), hidden=False),
                     Case("another impossible observation", ([2, 0, 1], [0.5, 0.5, 0.0])),
                     # one observation in all (student 17: -inf only past one observation)
                     Case("a single observation, given probability zero", ([0, 1, 0], [0.5, 0.0, 0.5])),
                     Case("many observations", ([480, 520], [0.5, 0.5])),
                     Case("five outcomes", ([1, 2, 3, 4, 5], [0.1, 0.1, 0.2, 0.3, 0.3])),
                     Case("a thousand observations: their product underflows",
                          ([400, 300, 300], [0.4, 0.3, 0.3])),
                     # setting theta to 1 where a count is 0, in place, changed the
                     # caller's array (student 11)
                     Case("numpy arrays, an outcome never observed: theta comes back unchanged",
                          (np.array([0, 4, 2]), np.array([0.0, 0.25, 0.75]))),
                 ]),
        Question("q2", "mle", points=2, title="the closed-form maximum-likelihood estimate",
                 reference=lambda counts: multinomial_mle(counts), forbidden=CLOSED_FORMS,
                 hint="each count over the total count: the Lagrange multiplier turns out to be "
                      "the total count",
                 mistakes=[
                     Mistake("Laplace smoothing added", mle_with_laplace, LAPLACE),
                     Mistake("divided by the largest count", mle_over_the_largest,
                             "You divided by the largest count, so your probabilities do not "
                             "add up to 1. Divide by the total count: see lesson 03, §4."),
                 ],
                 cases=[
                     Case("outlook counts of the 'yes' days", ([2, 4, 3],), hidden=False),
                     Case("an outcome never observed", ([5, 0, 5, 10],)),
                     Case("a single outcome", ([7],), hidden=False),
                     Case("four outcomes", ([3, 1, 0, 4],)),
                     Case("very unequal counts", ([100, 1],)),
                     Case("all observations in one outcome", ([0, 0, 7],)),
                     Case("counts in a numpy array of floats, which must come back unchanged",
                          (np.array([2.0, 4.0, 3.0]),), hidden=False),
                 ]),
        Question("q3", "numeric_mle", points=2,
                 title="the same optimum found numerically, and one no formula gives",
                 reference=ref_numeric_mle,
                 # an optimiser lands near, not on; the case's floor is its argument 1
                 judge=Optimum(abs_=1e-4, floor_at=1),
                 forbidden=CLOSED_FORMS,
                 mistakes=[
                     Mistake("the closed form, the floor ignored", numeric_floor_ignored,
                             "Your answer is the closed form n_j / N whatever `smallest` is: "
                             "with a floor above some n_j / N the maximum is elsewhere, and "
                             "no formula of the lesson gives it. Let the optimiser find it: "
                             "theta = smallest + (1 - J smallest) * softmax(z), as the question "
                             "suggests."),
                     Mistake("clipped to the floor, then renormalised",
                             numeric_clipped_then_renormalised,
                             "Raising the small probabilities to the floor and dividing by the "
                             "sum pushes them back below it, and is not the maximum anyway. "
                             "Optimise over theta = smallest + (1 - J smallest) * softmax(z)."),
                     Mistake("optimised without the constraint", numeric_without_constraint,
                             "Your probabilities do not add up to 1: without the constraint "
                             "the likelihood grows by making every probability 1. Optimise over "
                             "scores z and map them with exp(z) / sum(exp(z)): see the "
                             "scaffolding above the question."),
                     Mistake("the scores z returned, not the probabilities",
                             numeric_returns_the_scores,
                             "You returned the optimiser's scores z. The answer is the "
                             "probabilities exp(z) / sum(exp(z)) they map to."),
                 ],
                 hint="optimise over unconstrained scores z and map them to probabilities with "
                      "smallest + (1 - J smallest) * exp(z) / sum(exp(z)), so both constraints "
                      "hold by construction",
                 cases=[
                     Case("outlook counts of the 'yes' days", ([2, 4, 3],), hidden=False),
                     Case("a floor of 0.1 above the smallest share", ([1, 8, 11], 0.1),
                          hidden=False),
                     Case("an outcome never observed, a floor of 0.05", ([0, 5, 5], 0.05),
                          hidden=False),
                     Case("two outcomes", ([30, 10],)),
                     Case("five outcomes", ([1, 2, 3, 4, 5],)),
                     Case("unequal counts", ([40, 3, 7],)),
                     Case("a floor that holds two outcomes up", ([1, 1, 30], 0.2)),
                     Case("a floor that changes nothing", ([5, 5], 0.1)),
                     Case("four outcomes, one never observed, a floor of 0.1", ([3, 0, 10, 7], 0.1)),
                     # student 7: lifting one outcome to the floor pushes a second below it
                     # public: one pass of water-filling passed every public case (student 13)
                     Case("a floor that spreads to a second outcome", ([2, 21, 77], 0.2),
                          hidden=False,
                          hint="raising one outcome to the floor can push another below it: "
                               "the optimum keeps every probability at or above the floor"),
                 ]),
        Question("q4", "class_priors", points=1, title="the class prior P(y) by maximum likelihood",
                 reference=lambda labels: class_prior_mle(labels).to_dict(), forbidden=CLOSED_FORMS,
                 # q6's cell uses the priors as a dict: a Series (value_counts) is told the
                 # conversion here rather than breaking that cell with a KeyError
                 judge=AsDict(used_by="your `p_ham_documents` cell (q6)"),
                 hint="return a dict {label: share}: how many examples carry the label, over "
                      "all examples",
                 mistakes=[
                     Mistake("counts instead of shares", priors_as_counts,
                             "Your values are the counts of each label. The prior is a share: "
                             "divide by the number of examples. See lesson 03, §3."),
                     Mistake("divided by the number of labels", priors_over_distinct_labels,
                             "You divided by the number of distinct labels. Divide by the "
                             "number of examples, so that the shares add up to 1: see lesson 03, "
                             "§3."),
                     Mistake("only 'yes' and 'no'", priors_yes_no,
                             "Your answer assumes the labels are 'yes' and 'no'. Use the labels "
                             "that occur in the data."),
                 ],
                 cases=[
                     Case("the weather's play column", (WEATHER["play"].tolist(),), hidden=False),
                     Case("the picnic table's labels", (PICNIC["enjoy"].tolist(),)),
                     Case("three labels", (THREE_Y,), hidden=False,
                          hint="take the labels from the data (set(labels) or np.unique), never "
                               "a fixed list such as ('yes', 'no')"),
                     # public: keys turned into text passed every public case (student 13)
                     Case("labels that are numbers", ([1, 0, 0, 1, 1, 2],), hidden=False,
                          hint="keep each label as it is given (1 stays the number 1)"),
                     Case("a single label", (["spam"] * 4,)),
                     # ('ham', 'spam') typed in, the data's labels only otherwise (student 13)
                     Case("ham and spam beside a third label",
                          (["ham", "spam", "promo", "ham", "promo", "ham"],)),
                 ]),
        Question("q5", "word_probabilities", points=2,
                 title="the word probabilities of multinomial naive Bayes",
                 reference=ref_word_probabilities, forbidden=CLOSED_FORMS,
                 hint="return a dict {label: list of probabilities}: add up the word counts of "
                      "each class first, then divide by that class's total",
                 mistakes=[
                     Mistake("normalised over all classes", words_over_everything,
                             "You divided by the total of every class together, so each "
                             "class's probabilities do not add up to 1. Divide each class's "
                             "counts by that class's own total: see lesson 03, §4 and §6."),
                     Mistake("an average of per-document shares", words_average_of_documents,
                             "You averaged each document's word shares. Maximum likelihood adds "
                             "up the counts of the class first, so long documents weigh more: "
                             "see lesson 03, §6."),
                     Mistake("the share of documents containing the word",
                             words_document_frequency,
                             "Your values are the share of documents that contain each word "
                             "(the Bernoulli model). The multinomial model counts every "
                             "occurrence: see lesson 03, §6."),
                     Mistake("Laplace smoothing added", words_with_laplace, LAPLACE),
                 ],
                 cases=[
                     Case("four tiny documents", (TOY_X, TOY_Y), hidden=False),
                     Case("nine documents, six words", (WORDS_X, WORDS_Y)),
                     Case("three classes and a word one class never uses", (THREE_X, THREE_Y),
                          hidden=False,
                          hint="one entry per label found in y, whatever the labels are called"),
                     Case("two classes with other names", (WORDS_X[:6], ["a", "b", "b", "a", "a", "b"])),
                     Case("the question's example: counts as a list of lists",
                          ([[1, 0], [1, 2]], ["a", "b"]), hidden=False,
                          hint="X may be a list of lists: np.asarray(X) turns it into an "
                               "array, and a function leaves the list it is given as it was"),
                     Case("nine documents as a list of lists", (WORDS_X.tolist(), WORDS_Y)),
                     # keys turned into text (str(c)) had full marks (student 11)
                     Case("classes that are numbers", (WORDS_X[:6], [1, 0, 0, 1, 1, 0])),
                     Case("ham and spam beside a third class",
                          (WORDS_X[:6], ["ham", "spam", "promo", "ham", "promo", "spam"])),
                     # fewer words than documents in a class: a share over the documents
                     # had full marks (student 17)
                     Case("a class of mostly empty documents",
                          ([[1, 0, 0], [0, 0, 0], [0, 0, 0], [2, 1, 3]], ["a", "a", "a", "b"])),
                     Case("counts in a numpy array of floats, which must come back unchanged",
                          (TOY_X.astype(float), TOY_Y), hidden=False),
                 ]),
        Question("q6", "p_ham_documents", points=2, kind="value",
                 title="the posteriors of three new documents",
                 # a value rounded to four decimals is refused, as in 01 q4 and 02 q6
                 reference=lambda: p_ham_documents(),
                 # the cell combines class_priors and word_probabilities: right given them,
                 # it earns its points, and a mistake of theirs is blamed on them
                 calls=("class_priors", "word_probabilities"),
                 # computed with them: a helper they use is flagged here as well (issue 34)
                 forbidden=CLOSED_FORMS,
                 # the notebook asks to compute it: numbers typed in are flagged, and the
                 # values must follow the priors class_priors gives
                 computed=True,
                 swaps=[Swap("the posteriors computed from class_priors and "
                             "word_probabilities", ("class_priors", "word_probabilities"),
                             EQUAL_PRIORS + SMOOTHED_WORDS,
                             lambda: p_ham_documents(equal_priors=True, laplace=True),
                             "Your `p_ham_documents` does not follow your `class_priors` and "
                             "`word_probabilities`: run with ones that give other priors and "
                             "other word probabilities, your cell gives values that are not "
                             "theirs. Multiply each class's prior from `class_priors` by its "
                             "word probabilities from `word_probabilities`, then divide ham's "
                             "score by the sum of both: no number typed in.")],
                 mistakes=[
                     Mistake("a word a class never used skipped",
                             lambda: p_ham_documents(word_ignored=True),
                             "You left out the words a class never used in training. Under "
                             "maximum likelihood such a word has probability exactly 0 in that "
                             "class, and one factor 0 makes the class's whole score 0, whatever "
                             "the other words say: that is why lesson 02's pseudo-counts exist "
                             "(lesson 03, §6)."),
                     Mistake("Laplace smoothing added", lambda: p_ham_documents(laplace=True),
                             "Your values use add-one smoothing. The question asks about the "
                             "maximum-likelihood model, where a word a class never used has "
                             "probability 0 (lesson 03, §6)."),
                     Mistake("equal class priors", lambda: p_ham_documents(equal_priors=True),
                             "Your values use equal priors. The maximum-likelihood prior of a "
                             "class is its share of the training documents: 3/5 for ham here "
                             "(question 4)."),
                 ],
                 cases=[Case("a dict with the three documents' letters", hidden=False,
                             judge=SameKeys('p_ham_documents should be a dict with the keys '
                                            '"a", "b" and "c"',
                                            keys=["a", "b", "c"], shares=["a", "b", "c"])),
                        Case("P(ham | document) of each new document under maximum "
                             "likelihood")]),
    ],
)
