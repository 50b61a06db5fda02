"""Grading spec for exercise 6, Gaussian naive Bayes by hand.

Conventions shared by every question (they are the lesson's):
- ``X`` is rows x features, ``y`` one label per row; classes come in sorted order, as
  ``np.unique`` and ``GaussianNB.classes_`` give them, and arrays "per class" have one row
  per class in that order;
- variances are the maximum-likelihood ones (divide by N_c, ``ddof=0``), plus
  epsilon = ``var_smoothing`` x the largest variance of any feature over all rows;
- a cost matrix has rows = the true class and columns = the decision (lesson 05, §6);
- a reliability bin of a probability p is ``min(int(p * n_bins), n_bins - 1)``, so bins
  have equal widths and p = 1 falls in the last one (lesson 06, §4).

References are written out with numpy here, so the expected values do not depend on the
library's GaussianNB, reliability_table or expected_cost_decision.  Public cases use small
tables written out below (the student's checks file ships them); hidden cases are drawn
from fixed seeds.
"""
from fractions import Fraction

import numpy as np

from nbcourse.grading.judges import Within
from nbcourse.grading.specs import Case, Exercise, Mistake, Question


def _float(a):
    return np.asarray(a, dtype=float)


# --------------------------------------------------------------------------- question 1
def ref_class_means_variances(X, y, var_smoothing):
    X, y = _float(X), np.asarray(y)
    if X.ndim == 1:
        X = X[:, None]
    classes = np.unique(y)
    means = np.array([X[y == c].mean(axis=0) for c in classes])
    variances = np.array([X[y == c].var(axis=0) for c in classes])
    epsilon = var_smoothing * float(np.max(X.var(axis=0)))
    return means.tolist(), (variances + epsilon).tolist()


def means_variances_ddof1(X, y, var_smoothing):
    X, y = _float(X), np.asarray(y)
    X = X[:, None] if X.ndim == 1 else X
    classes = np.unique(y)
    means = [X[y == c].mean(axis=0).tolist() for c in classes]
    epsilon = var_smoothing * float(np.max(X.var(axis=0)))
    return means, [(X[y == c].var(axis=0, ddof=1) + epsilon).tolist() for c in classes]


def means_variances_in_order_of_appearance(X, y, var_smoothing):
    X, y = _float(X), np.asarray(y)
    X = X[:, None] if X.ndim == 1 else X
    classes = list(dict.fromkeys(y.tolist()))
    epsilon = var_smoothing * float(np.max(X.var(axis=0)))
    return ([X[y == c].mean(axis=0).tolist() for c in classes],
            [(X[y == c].var(axis=0) + epsilon).tolist() for c in classes])


def means_variances_standard_deviation(X, y, var_smoothing):
    means, variances = ref_class_means_variances(X, y, var_smoothing)
    X, y = _float(X), np.asarray(y)
    X = X[:, None] if X.ndim == 1 else X
    epsilon = var_smoothing * float(np.max(X.var(axis=0)))
    return means, [(X[y == c].std(axis=0) + epsilon).tolist() for c in np.unique(y)]


def means_variances_no_epsilon(X, y, var_smoothing):
    return ref_class_means_variances(X, y, 0.0)


def means_variances_of_all_rows(X, y, var_smoothing):
    X, y = _float(X), np.asarray(y)
    X = X[:, None] if X.ndim == 1 else X
    means, _ = ref_class_means_variances(X, y, var_smoothing)
    whole = X.var(axis=0) + var_smoothing * float(np.max(X.var(axis=0)))
    return means, [whole.tolist() for _ in means]


# Lesson 06 uses the log10 of the longest run of capitals; these eight e-mails are made up
# on that scale, with a second feature (the log10 of the total number of capitals).
EIGHT_EMAILS = [[0.9, 1.8], [1.2, 2.1], [0.6, 1.5], [1.0, 1.7],
                [1.7, 2.6], [1.4, 2.9], [2.0, 2.4], [1.6, 3.1]]
EIGHT_LABELS = ["ham", "ham", "ham", "ham", "spam", "spam", "spam", "spam"]


def _gaussian_table(seed, n, n_features, labels=("ham", "spam")):
    rng = np.random.default_rng(seed)
    y = np.array(labels)[rng.permutation(np.arange(n) % len(labels))]
    shift = {c: rng.normal(0, 2, n_features) for c in labels}
    scale = {c: rng.uniform(0.3, 2.0, n_features) for c in labels}
    X = np.array([rng.normal(shift[c], scale[c]) for c in y])
    return X.round(3), y.tolist()


# --------------------------------------------------------------------------- question 2
def ref_joint_log_scores(means, variances, priors, x):
    means, variances, x = _float(means), _float(variances), _float(x)
    log_density = -0.5 * np.log(2 * np.pi * variances) - (x - means) ** 2 / (2 * variances)
    return (np.log(_float(priors)) + log_density.sum(axis=1)).tolist()


def joint_without_prior(means, variances, priors, x):
    return ref_joint_log_scores(means, variances, np.ones(len(priors)), x)


def joint_without_normaliser(means, variances, priors, x):
    means, variances, x = _float(means), _float(variances), _float(x)
    return (np.log(_float(priors)) - ((x - means) ** 2 / (2 * variances)).sum(axis=1)).tolist()


def joint_variance_as_sd(means, variances, priors, x):
    """The variance read as a standard deviation, so it is squared once more."""
    return ref_joint_log_scores(means, _float(variances) ** 2, priors, x)


EIGHT_FIT = ref_class_means_variances(EIGHT_EMAILS, EIGHT_LABELS, 0.0)


def joint_log_of_product(means, variances, priors, x):
    means, variances, x = _float(means), _float(variances), _float(x)
    with np.errstate(divide="ignore", under="ignore"):
        density = np.exp(-(x - means) ** 2 / (2 * variances)) / np.sqrt(2 * np.pi * variances)
        return np.log(_float(priors) * np.prod(density, axis=1)).tolist()


def _gaussian_model(seed, n_classes, n_features):
    rng = np.random.default_rng(seed)
    means = rng.normal(0, 2, (n_classes, n_features)).round(3)
    variances = rng.uniform(0.2, 3.0, (n_classes, n_features)).round(3)
    priors = rng.dirichlet(np.ones(n_classes) * 2).round(3)
    priors[-1] = round(1 - priors[:-1].sum(), 3)
    x = rng.normal(0, 2, n_features).round(3)
    return means.tolist(), variances.tolist(), priors.tolist(), x.tolist()


# --------------------------------------------------------------------------- question 3
def ref_shared_variance_weights(means, variance, priors):
    means, variance, priors = _float(means), _float(variance), _float(priors)
    w = (means[1] - means[0]) / variance
    w0 = np.log(priors[1] / priors[0]) - np.sum((means[1] ** 2 - means[0] ** 2) / (2 * variance))
    return float(w0), w.tolist()


def weights_without_prior(means, variance, priors):
    return ref_shared_variance_weights(means, variance, [0.5, 0.5])


def weights_without_half(means, variance, priors):
    w0, w = ref_shared_variance_weights(means, variance, priors)
    means, variance = _float(means), _float(variance)
    return w0 - float(np.sum((means[1] ** 2 - means[0] ** 2) / (2 * variance))), w


def weights_classes_swapped(means, variance, priors):
    w0, w = ref_shared_variance_weights(means, variance, priors)
    return -w0, [-v for v in w]


def _shared_model(seed, n_features):
    means, variances, priors, _ = _gaussian_model(seed, 2, n_features)
    return means, variances[0], priors


# --------------------------------------------------------------------------- question 4
def ref_quadratic_coefficients(variances):
    variances = _float(variances)
    return (1 / (2 * variances[0]) - 1 / (2 * variances[1])).tolist()


def quadratic_sign_swapped(variances):
    return [-v for v in ref_quadratic_coefficients(variances)]


def quadratic_without_half(variances):
    return [2 * v for v in ref_quadratic_coefficients(variances)]


# --------------------------------------------------------------------------- question 5
def _bins(p, n_bins):
    return np.minimum((_float(p) * n_bins).astype(int), n_bins - 1)


def _table(bin_of, is_positive, p):
    is_positive, p = _float(is_positive), _float(p)
    return [[int(b), float(p[bin_of == b].mean()), float(is_positive[bin_of == b].mean()),
             int(np.sum(bin_of == b))] for b in np.unique(bin_of)]


def ref_reliability_bins(is_positive, p, n_bins):
    return _table(_bins(p, n_bins), is_positive, p)


def bins_by_count(is_positive, p, n_bins):
    """Equal numbers of predictions per bin (quantiles), not equal widths."""
    p = _float(p)
    order = np.argsort(p, kind="stable")
    bin_of = np.empty(len(p), dtype=int)
    for b, rows in enumerate(np.array_split(order, n_bins)):
        bin_of[rows] = b
    return _table(bin_of, is_positive, p)


def bins_by_rounding(is_positive, p, n_bins):
    return _table(np.minimum(np.round(_float(p) * n_bins).astype(int), n_bins - 1),
                  is_positive, p)


def bins_digitize_right(is_positive, p, n_bins):
    """np.digitize(p, inner edges, right=True): a p on an edge falls in the bin below."""
    edges = np.linspace(0, 1, n_bins + 1)[1:-1]
    return _table(np.digitize(_float(p), edges, right=True), is_positive, p)


def bins_one_too_many(is_positive, p, n_bins):
    """int(p * n_bins) without the cap: p = 1 lands in a bin of its own."""
    return _table((_float(p) * n_bins).astype(int), is_positive, p)


def _calibration_sample(seed, n, squash):
    """Probabilities pushed towards 0 and 1 by ``squash`` (> 1: over-confident)."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0.02, 0.98, n)
    is_positive = rng.random(n) < truth
    logit = np.log(truth / (1 - truth)) * squash
    p = (1 / (1 + np.exp(-logit))).round(4)
    p[rng.random(n) < 0.05] = 1.0
    return is_positive.tolist(), p.tolist()


# Twelve e-mails as in lesson 06's question 3: confident answers, not all of them right.
TWELVE_SPAM = [True, False, True, True, False, False, True, True, False, True, False, True]
TWELVE_P = [0.97, 0.04, 1.0, 0.92, 0.12, 0.33, 0.58, 0.99, 0.95, 0.66, 0.01, 0.45]


# Probabilities on the edges of ten bins (each p * 10 is computed exactly enough that
# int() gives the edge's own bin).  0.3, 0.6 and 0.7 are there because p / (1 / 10)
# falls just short of the edge in floating point (0.3 / 0.1 = 2.9999999999999996): a bin
# computed by dividing by the width lands one bin too low on them.
EDGES = ([True, False, True, True, False, True, False, True, True, False, True],
         [0.0, 0.2, 0.5, 0.5, 0.75, 0.9, 0.1, 1.0, 0.3, 0.6, 0.7], 10)

# The same with twenty bins: every edge k / 20 where p / (1 / 20) falls short of k.
EDGES_TWENTY = ([True, False, False, True, True, False, True, False, True],
                [0.15, 0.3, 0.35, 0.6, 0.7, 0.95, 0.5, 0.05, 1.0], 20)


def _with_edges(sample, edges):
    """A sample of predictions with the edge probabilities ``edges`` appended."""
    is_positive, p = sample
    return is_positive + [k % 2 == 0 for k in range(len(edges))], p + list(edges)


# --------------------------------------------------------------------------- question 6
def _ece(table, n):
    return float(sum(count / n * abs(observed - predicted)
                     for _, predicted, observed, count in table))


def ref_calibration_error(is_positive, p, n_bins):
    return _ece(ref_reliability_bins(is_positive, p, n_bins), len(p))


def ece_unweighted(is_positive, p, n_bins):
    table = ref_reliability_bins(is_positive, p, n_bins)
    return float(np.mean([abs(observed - predicted) for _, predicted, observed, _ in table]))


def ece_signed(is_positive, p, n_bins):
    table = ref_reliability_bins(is_positive, p, n_bins)
    return float(sum(count / len(p) * (observed - predicted)
                     for _, predicted, observed, count in table))


def ece_bins_by_count(is_positive, p, n_bins):
    return _ece(bins_by_count(is_positive, p, n_bins), len(p))


# --------------------------------------------------------------------------- question 7
def ref_cheapest_decisions(proba, classes, cost):
    expected = _float(proba) @ _float(cost)
    return [classes[j] for j in np.argmin(expected, axis=1)]


def decisions_cost_transposed(proba, classes, cost):
    return ref_cheapest_decisions(proba, classes, _float(cost).T)


def decisions_most_probable(proba, classes, cost):
    return [classes[j] for j in np.argmax(_float(proba), axis=1)]


def decisions_most_expensive(proba, classes, cost):
    return [classes[j] for j in np.argmax(_float(proba) @ _float(cost), axis=1)]


LESSON_COST = [[0, 100], [10, 0]]          # lesson 05: losing a real message costs 100
SIX_POSTERIORS = [[0.5, 0.5], [0.03, 0.97], [0.95, 0.05], [0.15, 0.85], [0.4, 0.6],
                  [0.001, 0.999]]


def _cost_case(seed, n, n_classes, arrays=False, diagonal=False):
    """Posteriors, class names and a cost matrix; ``arrays``: as numpy float arrays, which
    an answer that writes into its input would change (a list is copied by np.asarray);
    ``diagonal``: right decisions cost something too (the sum runs over every class)."""
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(n_classes) * 0.7, size=n).round(4)
    proba[:, -1] = 1 - proba[:, :-1].sum(axis=1)
    cost = rng.integers(1, 20, size=(n_classes, n_classes)) * (1 - np.eye(n_classes, dtype=int))
    if diagonal:
        cost = cost + np.diag(rng.integers(5, 15, size=n_classes))
    classes = ["ham", "promo", "spam", "work"][:n_classes]
    if arrays:
        return proba, classes, cost.astype(float)
    return proba.tolist(), classes, cost.tolist()


# --------------------------------------------------------------------------- question 8
def ref_stable_posterior(log_scores):
    s = _float(log_scores)
    shifted = np.exp(s - s.max(axis=1, keepdims=True))
    return (shifted / shifted.sum(axis=1, keepdims=True)).tolist()


def posterior_minus_min(log_scores):
    s = _float(log_scores)
    with np.errstate(over="ignore", invalid="ignore"):
        shifted = np.exp(s - s.min(axis=1, keepdims=True))
        return (shifted / shifted.sum(axis=1, keepdims=True)).tolist()


def posterior_plain_exp(log_scores):
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        e = np.exp(_float(log_scores))
        return (e / e.sum(axis=1, keepdims=True)).tolist()


def posterior_wrong_axis(log_scores):
    s = _float(log_scores)
    shifted = np.exp(s - s.max(axis=0, keepdims=True))
    return (shifted / shifted.sum(axis=0, keepdims=True)).tolist()


def posterior_not_normalised(log_scores):
    s = _float(log_scores)
    return np.exp(s - s.max(axis=1, keepdims=True)).tolist()


def _log_scores(seed, n, n_classes, level, spread):
    rng = np.random.default_rng(seed)
    return (level + rng.normal(0, spread, (n, n_classes))).round(2).tolist()


# --------------------------------------------------------------------------- question 9
# Losing a real message costs 70, letting a spam through costs 10 (rows: truth, columns:
# decision).  Flag when (1 - p) * 70 < p * 10, i.e. above p = 70 / 80.
THRESHOLD_COST = [[0, 70], [10, 0]]


def cost_threshold(cost=THRESHOLD_COST):
    lose_ham, miss_spam = Fraction(cost[0][1]), Fraction(cost[1][0])
    return lose_ham / (lose_ham + miss_spam)


# --------------------------------------------------------------------------- the exercise
#: "inside your functions, use numpy only": the modules the rule names, and the library's
#: shared numerics (``moments``, ``gaussian_log_density``), under whatever name reached
LIBRARY = ("nbcourse._numerics.*", "nbcourse.mle.*", "nbcourse.calibration.*",
           "nbcourse.linear.*", "nbcourse.scale.*",  # scale: gaussian_summary (student 12)
           # numpy only: not scikit-learn, scipy.stats's densities, scipy.special's logsumexp
           "sklearn.*", "scipy.stats.*", "scipy.special.*")
# scipy.stats's densities as attributes (``norm.logpdf``), which write q2 for the student
# (student 12); a variable of the student's named ``pdf`` is not an attribute, not flagged
GAUSSIAN = ("GaussianNB", "gaussian_mle", "to_linear", "decision_function", "pdf",
            "logpdf") + LIBRARY
CALIBRATION = ("reliability_table", "plot_reliability", "expected_calibration_error",
               "CalibratedClassifier", "calibration_curve") + LIBRARY
DECISION = ("expected_cost_decision", "total_cost") + LIBRARY
LOG_SUM_EXP = ("logsumexp", "softmax", "log_softmax", "predict_proba",
               "predict_log_proba",  # log_softmax: student 18
               # the models' own posterior from joint scores (``_PosteriorFromJoint``,
               # red team 5): q8 takes scores, not a model, so no model is needed
               "nbcourse.naive_bayes.*") + LIBRARY

DDOF = ("You divided by N_c - 1 (ddof=1, the default of pandas' .var()). Gaussian naive Bayes "
        "uses the maximum-likelihood variance, which divides by N_c: lesson 06, §2, and "
        "lesson 03, §7.")

EXERCISE = Exercise(
    title="Exercise 6: Gaussian naive Bayes by hand",
    questions=[
        Question("q1", "class_means_variances", points=2,
                 title="per-class means and variances",
                 reference=ref_class_means_variances, forbidden=GAUSSIAN,
                 hint="for each class in sorted order: the mean and the variance dividing by "
                      "N_c (np.var's default); then add var_smoothing times the largest "
                      "variance of a feature over all rows",
                 mistakes=[
                     Mistake("variance divided by N_c - 1", means_variances_ddof1, DDOF),
                     Mistake("epsilon left out", means_variances_no_epsilon,
                             "Your variances lack epsilon. GaussianNB adds var_smoothing times "
                             "the largest variance of any feature (over all rows, both classes) "
                             "to every variance, so that no bell curve is infinitely narrow: "
                             "see the box above question 1."),
                     Mistake("classes in order of appearance", means_variances_in_order_of_appearance,
                             "Your rows follow the order in which the classes first appear in "
                             "y. Arrays per class have one row per class in *sorted* order, as "
                             "np.unique(y) and GaussianNB.classes_ give them."),
                     Mistake("standard deviation instead of variance",
                             means_variances_standard_deviation,
                             "Your second array holds standard deviations (.std). Gaussian naive "
                             "Bayes keeps the variances, the squares of those (.var): lesson 06, "
                             "§2."),
                     Mistake("one variance for all classes", means_variances_of_all_rows,
                             "Your variances are those of all rows together. Each class gets "
                             "its own bell curve, so compute the variance over the rows of that "
                             "class only: lesson 06, §2."),
                 ],
                 cases=[
                     Case("eight e-mails, two features, no epsilon",
                          (EIGHT_EMAILS, EIGHT_LABELS, 0.0), hidden=False),
                     Case("the eight e-mails with spam listed first",
                          (EIGHT_EMAILS[4:] + EIGHT_EMAILS[:4], EIGHT_LABELS[4:] + EIGHT_LABELS[:4],
                           0.0), hidden=False,
                          hint="one row per class in sorted order (np.unique(y)), whatever order "
                               "the labels come in"),
                     Case("eight e-mails with var_smoothing = 0.01",
                          (EIGHT_EMAILS, EIGHT_LABELS, 0.01), hidden=False),
                     Case("eight e-mails as numpy arrays of floats",
                          (np.array(EIGHT_EMAILS), np.array(EIGHT_LABELS), 1e-9), hidden=False),
                     Case("40 rows, three features, a large var_smoothing",
                          (*_gaussian_table(1, 40, 3), 0.1)),
                     Case("three classes", (*_gaussian_table(2, 30, 2, ("a", "b", "c")), 1e-9)),
                     Case("labels not in sorted order of appearance",
                          (*_gaussian_table(3, 25, 4, ("spam", "ham")), 0.05)),
                 ]),
        Question("q2", "joint_log_scores", points=2, title="the joint log-score of a query",
                 reference=ref_joint_log_scores, forbidden=GAUSSIAN,
                 hint="for each class: log prior + sum over features of "
                      "-0.5 log(2 pi var) - (x - mean)^2 / (2 var)",
                 mistakes=[
                     Mistake("the class prior left out", joint_without_prior,
                             "Your scores are the log-likelihoods alone. The joint score adds "
                             "log P(c), the class prior; without it a rare class is favoured as "
                             "often as a common one: lesson 04, §1 and lesson 06, §3."),
                     Mistake("the normalising term left out", joint_without_normaliser,
                             "You kept only the exponent of the normal density. The term "
                             "-0.5 log(2 pi var) differs between classes when their variances "
                             "differ, and it is what makes the wider class win far from the "
                             "data: lesson 06, §3."),
                     Mistake("the variance squared again", joint_variance_as_sd,
                             "You used the variance where the standard deviation belongs, so it "
                             "got squared a second time. The arrays hold variances, sigma^2: "
                             "use them as they are (lesson 06, §2)."),
                     Mistake("the log of a product", joint_log_of_product,
                             "You computed the densities and took their log afterwards (of "
                             "each, or of their product). Far from the data a density is so "
                             "tiny that it underflows to 0, whose log is -inf for every class: "
                             "add log-densities instead of multiplying densities, each "
                             "written as -(x - mean)^2 / (2 variance) - log(2 pi variance) / 2 "
                             "(lesson 05, §4, underflow)."),
                 ],
                 cases=[
                     Case("the eight e-mails' model, a shouting e-mail",
                          (*EIGHT_FIT, [0.5, 0.5], [1.8, 2.7]), hidden=False),
                     Case("the eight e-mails' model, unequal priors",
                          (*EIGHT_FIT, [0.6, 0.4], [1.2, 2.2]), hidden=False),
                     Case("two classes, five features", _gaussian_model(11, 2, 5)),
                     Case("three classes, one feature", _gaussian_model(12, 3, 1)),
                     Case("a query far from the data", (*_gaussian_model(13, 2, 3)[:3],
                                                        [9.0, -8.0, 7.5])),
                     Case("a query so far from the data that the product of the densities "
                          "underflows", (*_gaussian_model(14, 2, 3)[:3], [40.0, -40.0, 45.0])),
                 ]),
        Question("q3", "shared_variance_weights", points=2,
                 title="the linear rule of a shared variance",
                 reference=ref_shared_variance_weights, forbidden=GAUSSIAN,
                 hint="w_k = (mu_1k - mu_0k) / var_k and "
                      "w0 = log(pi_1 / pi_0) - sum_k (mu_1k^2 - mu_0k^2) / (2 var_k)",
                 mistakes=[
                     Mistake("the prior term left out of w0", weights_without_prior,
                             "Your bias has no log(pi_1 / pi_0). With unequal classes the "
                             "prior shifts the boundary; it is the first term of w0: lesson 06, "
                             "§3, as in lesson 04."),
                     Mistake("the 1/2 left out of w0", weights_without_half,
                             "Your w0 subtracts (mu_1^2 - mu_0^2) / var. Each class's exponent "
                             "is -(x - mu)^2 / (2 var), so the constant term is "
                             "(mu_1^2 - mu_0^2) / (2 var): lesson 06, §3."),
                     Mistake("the classes swapped", weights_classes_swapped,
                             "Your w0 and w have the wrong sign: you scored class 0 against "
                             "class 1. A positive score must mean class 1, the second row of "
                             "means (lesson 04, §1)."),
                 ],
                 cases=[
                     Case("lesson 06's check-your-understanding example, equal priors",
                          ([[0.0], [2.0]], [1.0], [0.5, 0.5]), hidden=False),
                     Case("two features, unequal priors",
                          ([[0.94, 1.4], [1.6, 2.8]], [0.3, 0.4], [0.6, 0.4]), hidden=False),
                     Case("four features", _shared_model(21, 4)),
                     Case("one feature, a rare class 1", ([[1.0], [-0.5]], [2.5], [0.9, 0.1])),
                     Case("six features", _shared_model(22, 6)),
                     Case("numpy arrays of floats, which must come back unchanged",
                          (np.array([[0.0, 1.0], [2.0, 3.0]]), np.array([1.0, 2.0]),
                           np.array([0.5, 0.5])), hidden=False),
                 ]),
        Question("q4", "quadratic_coefficients", points=1,
                 title="what makes the boundary quadratic",
                 reference=ref_quadratic_coefficients, forbidden=GAUSSIAN,
                 hint="the x_k^2 term of log P(x_k | 1) - log P(x_k | 0) is "
                      "1 / (2 var_0k) - 1 / (2 var_1k)",
                 mistakes=[
                     Mistake("the sign swapped", quadratic_sign_swapped,
                             "Your coefficients have the wrong sign. The log-odds are class 1 "
                             "minus class 0, and -(x - mu_1)^2 / (2 var_1) contributes "
                             "-x^2 / (2 var_1): lesson 06, §3."),
                     Mistake("the 1/2 left out", quadratic_without_half,
                             "Your coefficients are twice too large: the exponent of a normal "
                             "density is -(x - mu)^2 / (2 var), with the 2 (lesson 06, §3)."),
                 ],
                 cases=[
                     Case("lesson 06's example: variances 1 and 4", ([[1.0], [4.0]],),
                          hidden=False),
                     Case("the variances of lesson 06's two features",
                          ([[0.047, 0.411], [0.136, 0.302]],), hidden=False),
                     Case("a shared variance", ([[0.5, 2.0, 1.0], [0.5, 2.0, 1.0]],)),
                     Case("five features", (_gaussian_model(31, 2, 5)[1],)),
                     Case("a numpy array of variances, which must come back unchanged",
                          (np.array([[1.0, 2.0], [4.0, 4.0]]),), hidden=False),
                 ]),
        Question("q5", "reliability_bins", points=2, title="a reliability table",
                 reference=ref_reliability_bins, forbidden=CALIBRATION,
                 hint="bin = min(int(p * n_bins), n_bins - 1); for each non-empty bin in "
                      "increasing order: [bin, mean of p, share of positives, count]",
                 mistakes=[
                     Mistake("bins of equal counts", bins_by_count,
                             "Your bins hold equal numbers of predictions. A reliability table "
                             "cuts [0, 1] into bins of equal width (0-0.1, 0.1-0.2, ...), "
                             "however many predictions fall in each: lesson 06, §4."),
                     Mistake("bins by rounding", bins_by_rounding,
                             "You rounded p * n_bins to the nearest bin, so 0.58 went to bin 6. "
                             "The bin is the whole part, int(p * n_bins): 0.58 is in bin 5, "
                             "0.5-0.6 (lesson 06, §4)."),
                     Mistake("a p on an edge put in the bin below", bins_digitize_right,
                             "A probability exactly on an edge, such as 0.5 with ten bins, "
                             "went to the bin below (np.digitize with right=True). Bins include "
                             "their left edge: int(p * n_bins) puts 0.5 in bin 5, 0.5-0.6 "
                             "(lesson 06, §4)."),
                     Mistake("p = 1 in a bin of its own", bins_one_too_many,
                             "A probability of exactly 1 got bin n_bins, one past the last. The "
                             "last bin is closed, [0.9, 1]: cap the bin at n_bins - 1 "
                             "(lesson 06, §4)."),
                 ],
                 cases=[
                     Case("twelve e-mails, ten bins", (TWELVE_SPAM, TWELVE_P, 10), hidden=False),
                     Case("twelve e-mails, four bins", (TWELVE_SPAM, TWELVE_P, 4), hidden=False),
                     Case("numpy arrays, which must come back unchanged (not sorted)",
                          (np.array(TWELVE_SPAM), np.array(TWELVE_P), 10), hidden=False),
                     Case("probabilities exactly on the edges of the bins", EDGES, hidden=False,
                          hint="a bin includes its left edge: p = 0.5 is in bin int(0.5 * 10) = 5"),
                     Case("300 over-confident predictions", (*_calibration_sample(41, 300, 3.0), 10)),
                     Case("200 under-confident predictions, five bins",
                          (*_calibration_sample(42, 200, 0.4), 5)),
                     Case("1,000 predictions, twenty bins", (*_calibration_sample(43, 1000, 1.5), 20)),
                     Case("probabilities exactly on the edges of twenty bins", EDGES_TWENTY,
                          hidden=False,
                          hint="a bin includes its left edge: p = 0.15 is in bin "
                               "int(0.15 * 20) = 3 (dividing by the width, 0.15 / 0.05, "
                               "gives 2.9999999999999996 in floating point)"),
                     Case("250 predictions, some on the edges of twenty bins",
                          (*_with_edges(_calibration_sample(46, 250, 1.2),
                                        [0.15, 0.3, 0.35, 0.6, 0.7, 0.95, 0.3, 0.6]), 20)),
                 ]),
        Question("q6", "calibration_error", points=1, title="the expected calibration error",
                 reference=ref_calibration_error, forbidden=CALIBRATION,
                 calls=("reliability_bins",),
                 hint="sum over non-empty bins of (count / N) x |share of positives - mean of p|",
                 mistakes=[
                     Mistake("bins not weighted by their counts", ece_unweighted,
                             "You averaged the bins' gaps as if every bin held as many "
                             "predictions. Weight each gap by the share of predictions in its "
                             "bin, count / N: a bin of 3 e-mails must count less than a bin of "
                             "300."),
                     Mistake("the gaps' signs kept", ece_signed,
                             "Your error lets over-confident and under-confident bins cancel. "
                             "Take the absolute gap |observed - predicted| in every bin (the "
                             "formula above question 6)."),
                     Mistake("bins of equal counts", ece_bins_by_count,
                             "Your bins hold equal numbers of predictions. Use the bins of "
                             "question 5, of equal width (lesson 06, §4)."),
                 ],
                 cases=[
                     Case("twelve e-mails, ten bins", (TWELVE_SPAM, TWELVE_P, 10), hidden=False),
                     Case("twelve e-mails, four bins", (TWELVE_SPAM, TWELVE_P, 4), hidden=False),
                     Case("forty e-mails, ten bins, an error of many decimals",
                          (*_calibration_sample(45, 40, 2.5), 10), hidden=False),
                     Case("300 over-confident predictions", (*_calibration_sample(41, 300, 3.0), 10)),
                     Case("200 under-confident predictions, five bins",
                          (*_calibration_sample(42, 200, 0.4), 5)),
                     Case("1,000 predictions, twenty bins", (*_calibration_sample(44, 1000, 2.0), 20)),
                     Case("probabilities exactly on the edges of the bins", EDGES, hidden=False,
                          hint="the bins of question 5: a bin includes its left edge, "
                               "p = 0.3 is in bin int(0.3 * 10) = 3"),
                     Case("probabilities exactly on the edges of twenty bins", EDGES_TWENTY,
                          hidden=False),
                     # student 10: p = 1 left in a bin of its own, beside an
                     # under-confident rest of the last bin
                     Case("a probability of exactly 1, in the last bin",
                          ([False, False, True, True, True, False],
                           [0.1, 0.35, 0.6, 0.9, 0.95, 1.0], 10), hidden=False,
                          hint="p = 1 belongs to the last bin: min(floor(p * J), J - 1)"),
                     Case("250 predictions, some on the edges of ten bins",
                          (*_with_edges(_calibration_sample(47, 250, 1.2),
                                        [0.3, 0.6, 0.7, 0.3, 0.6, 0.7]), 10)),
                 ]),
        Question("q7", "cheapest_decisions", points=2,
                 title="the decision of least expected cost",
                 reference=ref_cheapest_decisions, forbidden=DECISION,
                 hint="expected = proba @ cost (rows of cost: the truth, columns: the "
                      "decision); for each row take the class of the smallest expected cost",
                 mistakes=[
                     Mistake("the cost matrix transposed", decisions_cost_transposed,
                             "You used the cost matrix with its rows and columns swapped. Rows "
                             "are the true class and columns the decision, so the expected cost "
                             "of deciding j is the column j weighted by the posterior: "
                             "proba @ cost (lesson 05, §6)."),
                     Mistake("the most probable class", decisions_most_probable,
                             "Your decisions ignore the costs: they are the most probable class. "
                             "Weigh each decision's costs by the posterior and take the cheapest "
                             "(lesson 05, §6)."),
                     Mistake("the most expensive decision", decisions_most_expensive,
                             "You took the decision with the largest expected cost. Costs are "
                             "to be minimised: argmin, not argmax."),
                 ],
                 cases=[
                     Case("lesson 05's costs on six messages",
                          (SIX_POSTERIORS, ["ham", "spam"], LESSON_COST), hidden=False),
                     Case("three classes, 40 messages", _cost_case(51, 40, 3)),
                     Case("four classes, 60 messages", _cost_case(52, 60, 4)),
                     Case("two classes, lopsided costs", _cost_case(53, 50, 2)),
                     Case("three classes, posteriors and costs as float arrays",
                          _cost_case(54, 30, 3, arrays=True)),
                     # student 8: a rule for two classes only, and a diagonal set to 0
                     Case("three classes, twelve messages", _cost_case(61, 12, 3),
                          hidden=False),
                     Case("right decisions that cost something too",
                          _cost_case(56, 40, 3, diagonal=True)),
                 ]),
        Question("q8", "stable_posterior", points=2, title="a posterior by log-sum-exp",
                 reference=ref_stable_posterior, forbidden=LOG_SUM_EXP,
                 hint="in each row subtract the largest log-score, exponentiate, and divide by "
                      "the row's sum",
                 mistakes=[
                     Mistake("the smallest score subtracted", posterior_minus_min,
                             "You subtracted the smallest score. Then the largest exponent is "
                             "max - min, which overflows to inf when the scores are far apart. "
                             "Subtract the largest: every exponent is then <= 0 and the largest "
                             "term is exactly 1 (lesson 05, §4)."),
                     Mistake("plain exp", posterior_plain_exp,
                             "You exponentiated the log-scores directly: e^-1000 is 0.0 in "
                             "floating point, so the posterior becomes 0/0. Subtract each row's "
                             "largest score first (lesson 05, §4)."),
                     Mistake("normalised over the wrong axis", posterior_wrong_axis,
                             "Your posterior adds up to 1 down each column. Each row is one "
                             "message and its classes are the columns: take the maximum and the "
                             "sum along each row (axis=1)."),
                     Mistake("not divided by the sum", posterior_not_normalised,
                             "Your numbers are e^(s - max), which do not add up to 1. Divide "
                             "each row by its sum, the exp of the log-sum-exp minus the max "
                             "(lesson 05, §4)."),
                 ],
                 cases=[
                     Case("lesson 05's questions: scores -1000 and -1001",
                          ([[-1000.0, -1001.0]],), hidden=False),
                     Case("lesson 05's longest message and two small scores",
                          ([[-1117.9, -1323.9], [-2.0, -1.0]],), hidden=False),
                     Case("scores 800 apart", ([[0.0, -800.0], [-800.0, 0.0]],), hidden=False),
                     Case("scores 2000 apart, where the row's mean is far from its largest",
                          ([[0.0, -2000.0], [-1500.0, 0.0]],),
                          hidden=False,
                          hint="subtract each row's largest score: exp of what is left is at "
                               "most 1 (the row's mean leaves exp(1000) = inf here)"),
                     Case("large positive scores", ([[1000.0, 999.0, 990.0], [712.0, 705.0, 709.0]],)),
                     # the row's mean subtracted, and the infinities patched, passed every
                     # other case (student 24): two scores far above the mean of their row
                     Case("two close scores far above a third",
                          ([[0.0, -10.0, -2500.0], [-3000.0, 5.0, 0.0]],)),
                     Case("30 messages, four classes, very negative scores",
                          (_log_scores(61, 30, 4, -3000.0, 5.0),)),
                     Case("20 messages, scores spread over thousands",
                          (_log_scores(62, 20, 3, -500.0, 400.0),)),
                     Case("a numpy array of scores, which must come back unchanged",
                          (np.array([[-1000.0, -1001.0, -1003.0], [2.0, 0.5, -1.0]]),),
                          hidden=False),
                     Case("a numpy array of 25 messages and five classes",
                          (np.array(_log_scores(63, 25, 5, -800.0, 50.0)),)),
                 ]),
        Question("q9", "spam_threshold", points=2, kind="value",
                 title="the posterior above which a costly filter flags spam",
                 reference=lambda: cost_threshold(),
                 forbidden=DECISION,
                 mistakes=[
                     Mistake("the costs swapped", lambda: cost_threshold([[0, 10], [70, 0]]),
                             "Your threshold treats the missed spam as the expensive mistake. "
                             "Flagging costs 70 when the message is real, with probability "
                             "1 - p; not flagging costs 10 when it is spam, with probability p. "
                             "Flag when 70 (1 - p) < 10 p (lesson 05, §6)."),
                     Mistake("the costs ignored", lambda: Fraction(1, 2),
                             "0.5 is the threshold when both mistakes cost the same. Weigh each "
                             "decision by what it costs when it is wrong (lesson 05, §6)."),
                     Mistake("the ratio of the costs", lambda: Fraction(10, 70),
                             "Your value is a ratio of the two costs. The threshold is where "
                             "the expected costs of the two decisions are equal: 70 (1 - p) = "
                             "10 p (lesson 05, §6)."),
                 ],
                 cases=[Case("a probability between 0 and 1", hidden=False,
                             judge=Within(0, 1, "spam_threshold should be a number between 0 "
                                                "and 1")),
                        Case("the threshold for costs 70 and 10")]),
    ],
)
