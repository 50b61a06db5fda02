"""Grading spec for exercise 8, beyond naive Bayes.

Four computations practitioners meet once naive Bayes' assumption is questioned, each
written out here from its definition so that the expected values depend on neither the
library nor scikit-learn (``tests/grading/test_exercise_08.py`` checks that they agree
with both):

* q1, the conditional mutual information I(X_k; X_l | Y) of two categorical features
  given the class, in nats, from counts (what a tree-augmented naive Bayes weighs);
* q2, the weights of complement naive Bayes (Rennie et al. 2003) as scikit-learn's
  ``ComplementNB(norm=False)`` computes them: ``-log`` of the smoothed complement shares;
* q3, tf-idf with scikit-learn's ``TfidfTransformer`` defaults (smoothed idf, raw counts,
  rows scaled to unit l2 length);
* q4, how many copies of one "good" word a spammer adds to a spam message before a
  two-class multinomial naive Bayes calls it ham (a good-word attack, Lowd & Meek 2005);
* q5, graded only by the grader: the majority-class baseline, the fold spread and the
  paired comparison of a table of fold scores (the habits of lesson 08, §4).

Public inputs are rounded where they are floats, so a release does not depend on the
last digits of a logarithm.
"""
import math
from collections import Counter

import numpy as np
import scipy.sparse as sp

from nbcourse.grading.judges import SameKeys
from nbcourse.grading.specs import Case, Exercise, Mistake, NotApplicable, Question


def _labels(values):
    """A sequence of labels (list, array, Series) as a plain list."""
    return np.asarray(values, dtype=object).tolist()


# --------------------------------------------------------------------------- question 1
def ref_conditional_mi(x_k, x_l, y):
    """sum over (v, v', c) of n(v,v',c)/N * ln[n(v,v',c) N_c / (n(v,c) n(v',c))]."""
    x_k, x_l, y = _labels(x_k), _labels(x_l), _labels(y)
    n = len(y)
    joint = Counter(zip(x_k, x_l, y))
    first, second, per_class = Counter(zip(x_k, y)), Counter(zip(x_l, y)), Counter(y)
    return float(sum(count / n * math.log(count * per_class[c] / (first[v, c] * second[w, c]))
                     for (v, w, c), count in joint.items()))


def _per_class_mi(x_k, x_l, y):
    """{class: I(X_k; X_l) within that class's rows}."""
    x_k, x_l, y = _labels(x_k), _labels(x_l), _labels(y)
    result = {}
    for c in dict.fromkeys(y):
        rows = [i for i, label in enumerate(y) if label == c]
        result[c] = ref_conditional_mi([x_k[i] for i in rows], [x_l[i] for i in rows],
                                       [0] * len(rows))
    return result


def mi_in_bits(x_k, x_l, y):
    return ref_conditional_mi(x_k, x_l, y) / math.log(2)


def mi_without_the_class(x_k, x_l, y):
    """I(X_k; X_l): the pair's counts pooled over every class."""
    return ref_conditional_mi(x_k, x_l, [0] * len(_labels(y)))


def mi_summed_over_classes(x_k, x_l, y):
    return float(sum(_per_class_mi(x_k, x_l, y).values()))


def mi_averaged_over_classes(x_k, x_l, y):
    per_class = _per_class_mi(x_k, x_l, y)
    return float(sum(per_class.values()) / len(per_class))


def _xor():
    """The class is 1 exactly when the two features differ (lesson 08's failing decision)."""
    rows = [(0, 0, 0), (0, 1, 1), (1, 0, 1), (1, 1, 0)]
    return tuple([r[i] for r in rows] for i in range(3))


def _xor_unequal():
    """XOR rows repeated 3, 1, 2 and 2 times: within the first class X_k is no longer
    uniform, so the two classes carry different amounts of information."""
    rows = [("0", "0", "no")] * 3 + [("1", "1", "no")] + [("0", "1", "yes")] * 2 \
        + [("1", "0", "yes")] * 2
    return tuple([r[i] for r in rows] for i in range(3))


# Within each class the two features are independent (their counts factorise: 9 3 3 1 in
# one class, 1 3 3 9 in the other), yet both follow the class, so over all the rows they
# agree more often than chance: I(X_k; X_l) > 0 = I(X_k; X_l | Y).
def _independent_given_class():
    cells = {("sun", "hot", "dry"): 9, ("sun", "hot", "wet"): 3, ("sun", "cold", "dry"): 3,
             ("sun", "cold", "wet"): 1, ("rain", "hot", "dry"): 1, ("rain", "hot", "wet"): 3,
             ("rain", "cold", "dry"): 3, ("rain", "cold", "wet"): 9}
    rows = [key for key, count in cells.items() for _ in range(count)]
    return ([r[1] for r in rows], [r[2] for r in rows], [r[0] for r in rows])


def _weather_columns(first, second):
    from nbcourse.datasets import load_weather
    table = load_weather()
    return (table[first].tolist(), table[second].tolist(), table["play"].tolist())


def _weather_series(first, second):
    from nbcourse.datasets import load_weather
    table = load_weather()
    return (table[first], table[second], table["play"])


def _weather_rows(first, second, column, value, shuffle=None):
    """Two columns and play of the weather rows where ``column`` is ``value``: Series whose
    index is the table's row numbers (not 0, 1, 2 ...), in shuffled order if asked."""
    from nbcourse.datasets import load_weather
    table = load_weather()
    rows = table[table[column] == value]
    if shuffle is not None:
        rows = rows.sample(frac=1.0, random_state=shuffle)
    return (rows[first], rows[second], rows["play"])


def _random_features(seed, n, n_classes, n_values, coupling):
    """Two features that follow the class and, with probability ``coupling``, each other."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n)
    x_k = (y + rng.integers(0, n_values, size=n) * (rng.random(n) < 0.6)) % n_values
    copy = rng.random(n) < coupling
    x_l = np.where(copy, x_k, rng.integers(0, n_values, size=n))
    names = np.array([f"c{i}" for i in range(n_classes)])
    return (x_k.tolist(), [f"v{v}" for v in x_l.tolist()], names[y].tolist())


# --------------------------------------------------------------------------- question 2
def _complement_shares(feature_count, alpha):
    counts = np.asarray(feature_count, dtype=float)
    complement = counts.sum(axis=0) + alpha - counts
    return complement / complement.sum(axis=1, keepdims=True)


def ref_complement_weights(feature_count, alpha):
    """w_ck = -ln[(n_~ck + alpha) / (sum_j n_~cj + alpha V)], n_~ck = sum over c' != c."""
    return (-np.log(_complement_shares(feature_count, alpha))).tolist()


def weights_from_the_class_itself(feature_count, alpha):
    counts = np.asarray(feature_count, dtype=float)
    own = (counts + alpha) / (counts + alpha).sum(axis=1, keepdims=True)
    return (-np.log(own)).tolist()


def weights_not_negated(feature_count, alpha):
    return np.log(_complement_shares(feature_count, alpha)).tolist()


def weights_alpha_above_only(feature_count, alpha):
    counts = np.asarray(feature_count, dtype=float)
    complement = counts.sum(axis=0) - counts
    return (-np.log((complement + alpha) / complement.sum(axis=1, keepdims=True))).tolist()


def weights_from_every_class(feature_count, alpha):
    """Every class's counts, the class's own included: the same row for every class."""
    counts = np.asarray(feature_count, dtype=float)
    total = counts.sum(axis=0) + alpha
    row = -np.log(total / total.sum())
    return np.tile(row, (counts.shape[0], 1)).tolist()


def weights_normalised(feature_count, alpha):
    weights = -np.log(_complement_shares(feature_count, alpha))
    return (weights / weights.sum(axis=1, keepdims=True)).tolist()


def _random_counts(seed, n_classes, n_words, rate=3.0):
    rng = np.random.default_rng(seed)
    return rng.poisson(rate * rng.gamma(1.0, 1.0, size=(n_classes, n_words))).tolist()


# --------------------------------------------------------------------------- question 3
def _dense(counts):
    return counts.toarray().astype(float) if sp.issparse(counts) else \
        np.asarray(counts, dtype=float)


def _tfidf(counts, idf_of, norm="l2"):
    z = _dense(counts)
    n_documents = z.shape[0]
    document_frequency = np.count_nonzero(z, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        weighted = z * idf_of(n_documents, document_frequency, z)
        if norm is None:
            return weighted.tolist()
        lengths = np.sqrt((weighted ** 2).sum(axis=1)) if norm == "l2" \
            else np.abs(weighted).sum(axis=1)
        lengths[lengths == 0] = 1.0
        return (weighted / lengths[:, None]).tolist()


def _smooth_idf(n, df, z):
    return np.log((1 + n) / (1 + df)) + 1


def ref_tfidf(counts):
    """idf_k = ln((1 + N) / (1 + df_k)) + 1; z_nk idf_k; each row over its l2 length."""
    return _tfidf(counts, _smooth_idf)


def tfidf_unsmoothed(counts):
    return _tfidf(counts, lambda n, df, z: np.log(n / df) + 1)


def tfidf_without_the_plus_one(counts):
    return _tfidf(counts, lambda n, df, z: np.log((1 + n) / (1 + df)))


def tfidf_textbook_idf(counts):
    return _tfidf(counts, lambda n, df, z: np.log(n / df))


def tfidf_occurrences_for_df(counts):
    return _tfidf(counts, lambda n, df, z: np.log((1 + n) / (1 + z.sum(axis=0))) + 1)


def tfidf_not_normalised(counts):
    return _tfidf(counts, _smooth_idf, norm=None)


def tfidf_l1(counts):
    return _tfidf(counts, _smooth_idf, norm="l1")


def _random_documents(seed, n_documents, n_words, empty_row=None):
    rng = np.random.default_rng(seed)
    z = rng.poisson(0.8 * rng.gamma(1.0, 1.0, size=n_words), size=(n_documents, n_words))
    if empty_row is not None:
        z[empty_row] = 0
    return z


# --------------------------------------------------------------------------- question 4
def _spam_margin(x, log_prior, feature_log_prob):
    """s = log P(spam, x) - log P(ham, x): row 0 of the tables is ham, row 1 spam."""
    prior = np.asarray(log_prior, dtype=float)
    table = np.asarray(feature_log_prob, dtype=float)
    return float(prior[1] - prior[0] + np.asarray(x, dtype=float) @ (table[1] - table[0]))


def _gain(feature_log_prob, word=None):
    table = np.asarray(feature_log_prob, dtype=float)
    difference = table[0] - table[1]
    return float(difference.max() if word is None else difference[word])


def ref_good_words(x, log_prior, feature_log_prob):
    """Copies of the word with the largest ln P(w|ham) - ln P(w|spam), until s <= 0."""
    s = _spam_margin(x, log_prior, feature_log_prob)
    return max(0, math.ceil(s / _gain(feature_log_prob)))


def _rounding_ratio(x, log_prior, feature_log_prob):
    """s / gain for the mistakes in rounding it: for a message already ham (s < 0) they
    predict nothing, since whether the student also clamps at 0 is another matter."""
    s = _spam_margin(x, log_prior, feature_log_prob)
    if s < 0:
        raise NotApplicable("the message is already ham")
    return s / _gain(feature_log_prob)


def good_words_one_short(x, log_prior, feature_log_prob):
    """int(s / gain): the last copy, which tips the balance, is not counted."""
    return int(_rounding_ratio(x, log_prior, feature_log_prob))


def good_words_rounded(x, log_prior, feature_log_prob):
    """round(s / gain): right when the fraction is 0.5 or more, one short below."""
    return int(round(_rounding_ratio(x, log_prior, feature_log_prob)))


def good_words_tie_is_spam(x, log_prior, feature_log_prob):
    """Copies added while s >= 0: a message that ties (s = 0) gets one copy too many."""
    s = _spam_margin(x, log_prior, feature_log_prob)
    return math.floor(s / _gain(feature_log_prob)) + 1 if s >= 0 else 0


def good_words_negative(x, log_prior, feature_log_prob):
    """ceil(s / gain) without the floor at 0: a message already ham gets a negative count."""
    return math.ceil(_spam_margin(x, log_prior, feature_log_prob) / _gain(feature_log_prob))


def good_words_most_likely_ham_word(x, log_prior, feature_log_prob):
    """The word ham uses most, whatever its spam probability."""
    word = int(np.argmax(np.asarray(feature_log_prob, dtype=float)[0]))
    gain = _gain(feature_log_prob, word)
    s = _spam_margin(x, log_prior, feature_log_prob)
    if gain <= 0:  # a student's loop would never end: no value to compare
        raise NotApplicable("that word never lowers the spam score")
    return max(0, math.ceil(s / gain))


def good_words_rarest_spam_word(x, log_prior, feature_log_prob):
    """The word spam uses least, whatever its ham probability."""
    word = int(np.argmin(np.asarray(feature_log_prob, dtype=float)[1]))
    gain = _gain(feature_log_prob, word)
    s = _spam_margin(x, log_prior, feature_log_prob)
    if gain <= 0:  # a student's loop would never end: no value to compare
        raise NotApplicable("that word never lowers the spam score")
    return max(0, math.ceil(s / gain))


def good_words_without_the_prior(x, log_prior, feature_log_prob):
    return ref_good_words(x, [0.0, 0.0], feature_log_prob)


def good_words_presence_only(x, log_prior, feature_log_prob):
    return ref_good_words((np.asarray(x) > 0).astype(int).tolist(), log_prior, feature_log_prob)


def _rounded(values, places=4):
    return np.round(np.asarray(values, dtype=float), places).tolist()


def _spam_model(texts, labels, message, alpha=1.0):
    """(x, class_log_prior_, feature_log_prob_) of a MultinomialNB fitted on ``texts``,
    rounded to 4 places, and the counts of ``message`` over its vocabulary."""
    from nbcourse import MultinomialNB
    from nbcourse.text import BagOfWords
    words = BagOfWords().fit(texts)
    model = MultinomialNB(alpha=alpha).fit(words.transform(texts), labels)
    assert list(model.classes_) == ["ham", "spam"]
    x = words.transform([message]).toarray()[0].astype(int).tolist()
    return (x, _rounded(model.class_log_prior_), _rounded(model.feature_log_prob_))


# Ham's most common word ("you") is common in spam too, and many ham words never occur
# in spam: the word with the largest ln P(w|ham) - ln P(w|spam) is neither the word ham
# uses most nor the first of the words spam never uses.
SPAM_TEXTS = ["win cash now you win", "free prize for you now", "you win a free prize",
              "cash now call", "see you at lunch", "you call me at home",
              "lunch at noon with you", "see you soon", "home soon call you", "are you at home",
              "you at lunch", "see you at home soon"]
SPAM_LABELS = ["spam"] * 4 + ["ham"] * 8


# A tie (s = 0 after some copies) is decided by the last bit of s, so a tie case is built
# where the arithmetic is exact: ham's and spam's word counts are mirror images (spam's
# count of word k is ham's count of word V-1-k), the priors are equal, and every logarithm
# is rounded to a multiple of 2**-14 (as close as 4 decimal places) instead of a decimal.
# Sums of a few such numbers times small counts are exact on every CPU, in any order, so
# a message holding word k and word V-1-k equally often has s = 0 exactly and three
# copies of spam's best word give s = 3 gain exactly.  Every other case keeps s / gain
# more than 1e-3 from a whole number (tests/grading/test_exercise_08.py checks both).
TIE_GRID = 2.0 ** -14


def _on_grid(values):
    return (np.round(np.asarray(values, dtype=float) / TIE_GRID) * TIE_GRID).tolist()


def _mirrored_model(seed, n_words, n_counts, tie_copies, balanced_pairs):
    """(x, log_prior, table) of a filter whose spam counts mirror its ham counts, and a
    message with s = tie_copies * gain exactly: tie_copies of spam's best word (the mirror
    of ham's), and each of ``balanced_pairs`` words once with its mirror once."""
    rng = np.random.default_rng(seed)
    ham_counts = rng.multinomial(n_counts, rng.dirichlet(np.full(n_words, 0.5))) + 1
    spam_counts = ham_counts[::-1]
    table = np.log(np.vstack([ham_counts, spam_counts]) / ham_counts.sum())
    table = np.asarray(_on_grid(table))
    x = np.zeros(n_words, dtype=int)
    x[n_words - 1 - int(np.argmax(table[0] - table[1]))] += tie_copies
    for k in balanced_pairs:
        x[k] += 1
        x[n_words - 1 - k] += 1
    return (x.tolist(), _on_grid([math.log(0.5)] * 2), table.tolist())


def _random_model(seed, n_words, n_ham, n_spam, prior_spam, message_length):
    rng = np.random.default_rng(seed)
    ham = rng.dirichlet(np.full(n_words, 0.5))
    spam = rng.dirichlet(np.full(n_words, 0.5))
    spam[: n_words // 4] += 0.2  # a few words spam uses much more
    spam /= spam.sum()
    ham_counts = rng.multinomial(n_ham, ham) + 1
    spam_counts = rng.multinomial(n_spam, spam) + 1
    table = np.log(np.vstack([ham_counts / ham_counts.sum(), spam_counts / spam_counts.sum()]))
    x = rng.multinomial(message_length, spam)
    prior = np.log([1 - prior_spam, prior_spam])
    return (x.tolist(), _rounded(prior), _rounded(table))


# --------------------------------------------------------------------------- question 5
# Lesson 08's habits on numbers it never showed: five stratified folds of 600 help-desk
# tickets (billing 270, login 150, bug 120, other 60) and two models' fold accuracies.
# Per fold B beats A in four folds of five; over the folds their spreads overlap.
TICKET_CLASSES = {"billing": 270, "login": 150, "bug": 120, "other": 60}
FOLDS_A = [0.817, 0.792, 0.850, 0.808, 0.783]
FOLDS_B = [0.825, 0.800, 0.842, 0.825, 0.800]


def ref_fold_habits(ddof=0, baseline=None, sign=1):
    a, b = np.asarray(FOLDS_A), np.asarray(FOLDS_B)
    difference = sign * (b - a)
    total = sum(TICKET_CLASSES.values())
    return {"baseline": max(TICKET_CLASSES.values()) / total if baseline is None else baseline,
            "spread_a": float(np.std(a, ddof=ddof)),
            "mean_difference": float(np.mean(difference)),
            "b_wins": int(np.sum(b > a))}


#: "the library versions are off limits": also the library's shared numerics, whatever the
#: name they are reached under (issue 34)
NUMERICS = ("nbcourse._numerics.*",
            "sklearn.*")  # "plain Python, numpy and collections.Counter are fine"
# the smoothing helpers do q2's smoothed log-share (``lidstone_log``, student 14)
COMPLEMENT_NAMES = ("ComplementNB", "nbcourse.naive_bayes.complement.*",
                    # a MultinomialNB fitted on the complement counts smooths and logs them
                    # (student 24): every model of the library
                    "nbcourse.naive_bayes.*",
                    # multinomial_mle(row + alpha) is lidstone (student 30)
                    "nbcourse.smoothing.*", "nbcourse.mle.*") + NUMERICS
TFIDF_NAMES = ("TfidfTransformer", "TfidfVectorizer") + NUMERICS
MI_NAMES = ("conditional_mutual_information", "mutual_info_score", "mutual_info_classif",
            "TreeAugmentedNB",
            "nbcourse.naive_bayes.tree_augmented.*",
            "scipy.stats.*") + NUMERICS  # scipy.stats.entropy computes its parts
#: q4: the library's good-word attack (``nbcourse.adversary``) answers it for you
ATTACK_NAMES = ("nbcourse.adversary.*",) + NUMERICS

EXERCISE = Exercise(
    title="Exercise 8: beyond naive Bayes",
    questions=[
        Question("q1", "conditional_mi", points=2,
                 title="conditional mutual information given the class",
                 reference=ref_conditional_mi, forbidden=MI_NAMES,
                 hint="count the triples (v, v', c), the pairs (v, c) and (v', c), and the "
                      "classes; add n(v,v',c)/N * ln[n(v,v',c) N_c / (n(v,c) n(v',c))] over "
                      "the triples that occur, with the natural logarithm",
                 mistakes=[
                     Mistake("in bits, not nats", mi_in_bits,
                             "Your value is the right one divided by ln 2: it is in bits "
                             "(log base 2). The course measures information in nats: use the "
                             "natural logarithm, np.log or math.log."),
                     Mistake("the class left out", mi_without_the_class,
                             "Your value is I(X_k; X_l), the mutual information of the two "
                             "features over all rows, class ignored. Naive Bayes assumes "
                             "independence *given the class*: count the pairs within each "
                             "class (lesson 08, §2). On XOR data the two differ completely."),
                     Mistake("per-class values summed, not weighted", mi_summed_over_classes,
                             "You added the mutual information of each class. Each class "
                             "counts in proportion to its rows: weight class c's value by "
                             "P(c) = N_c / N (lesson 08, §2)."),
                     Mistake("per-class values averaged, not weighted",
                             mi_averaged_over_classes,
                             "You averaged the classes' mutual information as if every class "
                             "were equally common. Weight class c's value by P(c) = N_c / N "
                             "(lesson 08, §2)."),
                 ],
                 cases=[
                     Case("XOR: the class says whether the two features differ", _xor(),
                          hidden=False),
                     Case("outlook and temperature of the weather table, given play",
                          _weather_columns("outlook", "temperature"), hidden=False),
                     Case("two features independent within each class",
                          _independent_given_class(), hidden=False),
                     Case("humidity and windy of the weather table, given play",
                          _weather_columns("humidity", "windy")),
                     Case("XOR with its rows repeated unequally, labels as strings",
                          _xor_unequal()),
                     Case("a feature and its copy", (["a", "b", "a", "c", "b", "a", "c"],
                                                     ["a", "b", "a", "c", "b", "a", "c"],
                                                     ["y", "y", "n", "n", "n", "y", "n"])),
                     Case("one class only", (["a", "a", "b", "b", "b"],
                                             ["p", "q", "q", "q", "p"], ["k"] * 5)),
                     Case("three classes of unequal size, coupled features",
                          _random_features(1, 300, 3, 4, 0.5)),
                     Case("two classes, nearly independent features",
                          _random_features(2, 150, 2, 3, 0.05)),
                     Case("numpy arrays", tuple(np.asarray(column) for column in
                                                _random_features(3, 80, 4, 3, 0.7))),
                     Case("columns of a pandas table", _weather_series("outlook", "windy")),
                     Case("the windy days of the weather table, as pandas columns",
                          _weather_rows("outlook", "temperature", "windy", "true"), hidden=False,
                          hint="a Series of filtered rows keeps the table's row labels, so "
                               "x_k[0] may not exist: walk the values together (zip(x_k, x_l, "
                               "y)) or take .tolist() first"),
                     Case("the humid days, shuffled, as pandas columns",
                          _weather_rows("outlook", "windy", "humidity", "high", shuffle=3)),
                 ]),
        Question("q2", "complement_weights", points=2, title="complement naive Bayes weights",
                 reference=ref_complement_weights, forbidden=COMPLEMENT_NAMES,
                 hint="for class c, add up the counts of every *other* class, word by word; "
                      "add alpha to each; divide by their sum (so alpha V is in the "
                      "denominator); the weight is minus the natural logarithm",
                 mistakes=[
                     Mistake("counts taken from the class itself", weights_from_the_class_itself,
                             "Your weights come from class c's own counts: that is multinomial "
                             "naive Bayes (with the sign flipped). Complement naive Bayes "
                             "counts every class *except* c (lesson 08, §3)."),
                     Mistake("the minus sign left out", weights_not_negated,
                             "Your weights are the logarithms of the complement shares, not "
                             "their negatives. A word the complement uses often is evidence "
                             "*against* the class: w_ck = -ln θ~_ck."),
                     Mistake("alpha only above the bar", weights_alpha_above_only,
                             "You added alpha to each count but not alpha V to the total "
                             "below: the smoothed shares of a class must add up to 1."),
                     Mistake("every class's counts, the class's own included",
                             weights_from_every_class,
                             "Your weights are the same for every class: they count all the "
                             "classes, the class itself included. Leave class c's own counts "
                             "out of class c's row (lesson 08, §3)."),
                     Mistake("weights normalised (norm=True)", weights_normalised,
                             "You divided each class's weights by their sum, which is "
                             "ComplementNB(norm=True). The question asks for norm=False: the "
                             "weights -ln θ~_ck as they are."),
                 ],
                 cases=[
                     Case("two classes, four words, alpha = 1",
                          ([[3, 0, 1, 2], [0, 4, 1, 1]], 1.0), hidden=False),
                     Case("three classes, alpha = 0.5, a word one class never uses",
                          ([[5, 1, 0, 2, 2], [1, 6, 2, 0, 1], [0, 2, 7, 1, 0]], 0.5),
                          hidden=False),
                     Case("tf-idf weights in a numpy array of floats",
                          (np.array([[1.2, 0.0, 0.45, 2.1], [0.3, 1.75, 0.9, 0.0],
                                     [0.0, 0.6, 1.35, 0.8]]), 1.0), hidden=False,
                          hint="feature_count may hold tf-idf weights, not whole counts: keep "
                               "them as floats, and leave the array you are given unchanged"),
                     Case("a small alpha", ([[2, 0, 5, 1], [4, 1, 0, 0], [0, 3, 1, 6]], 0.01)),
                     Case("a word no class saw", ([[3, 0, 2, 0], [1, 4, 0, 0]], 0.7)),
                     # student 8: V is every column, not only the words some class used
                     Case("a column of zeros: V counts it too", ([[2, 0, 3], [1, 0, 4]], 1.0),
                          hidden=False),
                     Case("four classes, twenty words", (_random_counts(5, 4, 20), 1.1)),
                     Case("one class much larger than the others",
                          ((np.array(_random_counts(6, 3, 12)) *
                            np.array([[20], [1], [1]])).tolist(), 0.3)),
                     Case("tf-idf weights instead of counts",
                          (np.round(np.array(_random_counts(7, 3, 8)) * 0.37, 3), 0.9)),
                     Case("a numpy array", (np.array(_random_counts(8, 2, 10)), 2.5)),
                 ]),
        Question("q3", "tfidf", points=2, title="tf-idf of a count matrix",
                 reference=ref_tfidf, forbidden=TFIDF_NAMES,
                 hint="df_k counts the documents that contain word k (not its occurrences); "
                      "idf_k = ln((1 + N) / (1 + df_k)) + 1; multiply each column by its idf, "
                      "then divide each row by its l2 length, leaving a row of zeros as it is",
                 mistakes=[
                     Mistake("idf without smoothing", tfidf_unsmoothed,
                             "Your idf is ln(N / df_k) + 1. The question (and scikit-learn's "
                             "default, smooth_idf=True) adds one to N and to every df_k, as if "
                             "one more document held every word once (lesson 08, §3)."),
                     Mistake("idf without the + 1", tfidf_without_the_plus_one,
                             "Your idf has no + 1, so a word found in every document gets "
                             "weight 0 and vanishes. scikit-learn's idf adds 1: "
                             "ln((1 + N) / (1 + df_k)) + 1."),
                     Mistake("the textbook idf ln(N / df)", tfidf_textbook_idf,
                             "Your idf is the textbook ln(N / df_k), with neither smoothing "
                             "nor the + 1. The question asks for scikit-learn's default, "
                             "ln((1 + N) / (1 + df_k)) + 1."),
                     Mistake("occurrences counted for df", tfidf_occurrences_for_df,
                             "Your df_k adds up the counts of word k. The document frequency "
                             "is the number of documents that contain the word at least once, "
                             "however often (np.count_nonzero(z, axis=0))."),
                     Mistake("rows not normalised", tfidf_not_normalised,
                             "Your rows are not scaled: divide each document's row by its "
                             "length, the square root of the sum of its squares (l2), so "
                             "that long documents do not outweigh short ones."),
                     Mistake("l1 instead of l2", tfidf_l1,
                             "You divided each row by the sum of its values (l1). The default "
                             "is l2: divide by the square root of the sum of the squares."),
                 ],
                 cases=[
                     Case("three documents, a word in every one",
                          ([[3, 0, 1, 1], [2, 0, 0, 1], [3, 2, 0, 1]],), hidden=False),
                     Case("a sparse matrix, as BagOfWords gives",
                          (sp.csr_matrix(np.array([[1, 2, 0, 0, 1], [0, 1, 0, 3, 1],
                                                   [0, 0, 2, 1, 1], [2, 0, 0, 0, 1]])),),
                          hidden=False,
                          hint="counts may be a scipy.sparse matrix: np.asarray does not "
                               "unpack it, counts.toarray() does (scipy.sparse.issparse "
                               "tells which you have)"),
                     Case("a document with no words at all",
                          ([[2, 1, 0], [0, 0, 0], [1, 0, 3], [0, 2, 1]],), hidden=False,
                          hint="an empty document's row has length 0, and 0 / 0 is NaN: "
                               "leave a row of zeros as it is (divide by 1 where the length "
                               "is 0)"),
                     Case("ten documents, twelve words", (_random_documents(9, 10, 12),)),
                     Case("eight documents, counts as a float array",
                          (_random_documents(11, 8, 9).astype(float),)),
                     Case("a document without a single counted word",
                          (_random_documents(10, 6, 7, empty_row=2).tolist(),)),
                     Case("a word no document contains",
                          ([[2, 0, 1, 1], [1, 0, 0, 2], [0, 0, 4, 1]],)),
                     Case("a single document", ([[1, 3, 0, 2]],)),
                     # student 10: an answer that scales a float array in place passed check()
                     Case("counts in a numpy array of floats, which must come back unchanged",
                          (np.array([[2.0, 0.0, 1.0], [1.0, 3.0, 0.0], [0.0, 1.0, 2.0]]),),
                          hidden=False),
                     Case("a larger sparse matrix",
                          (sp.csr_matrix(_random_documents(11, 25, 40)),)),
                 ]),
        Question("q4", "good_words_needed", points=2, exact=True,
                 title="a good-word attack on a spam filter",
                 reference=ref_good_words, forbidden=ATTACK_NAMES,
                 hint="s = ln π_spam - ln π_ham + sum_k z_k (ln θ_spam,k - ln θ_ham,k); each "
                      "copy of the chosen word lowers s by its ln θ_ham,k - ln θ_spam,k, the "
                      "largest over the vocabulary; return the smallest whole number of "
                      "copies that brings s to 0 or below (0 if it already is)",
                 mistakes=[
                     Mistake("one word short", good_words_one_short,
                             "Your count stops one word early: after that many copies the "
                             "spam score is still above ham's, so the message is still spam. "
                             "Round s / gain *up* (math.ceil), or count the copies in a loop "
                             "until s <= 0."),
                     Mistake("rounded to the nearest whole number", good_words_rounded,
                             "You rounded s / gain to the nearest whole number: when its "
                             "fraction is below 0.5 that is one copy too few, and the message "
                             "is still spam. Round *up* (math.ceil), or count the copies in a "
                             "loop until s <= 0."),
                     Mistake("a tie counted as spam (s >= 0 instead of s > 0)",
                             good_words_tie_is_spam,
                             "You added a copy when s = 0 exactly. A message is spam only when "
                             "s > 0; at s = 0 it is a tie, and a tie goes to ham: stop (or "
                             "loop) while s > 0, not s >= 0. int(s / gain) + 1 and "
                             "s // gain + 1 make the same mistake: they count one copy too "
                             "many when s / gain is a whole number."),
                     Mistake("a negative count for a message already ham", good_words_negative,
                             "Your count is negative for a message that is already ham "
                             "(s < 0). No copies are needed then: the answer is 0 "
                             "(max(0, ...), or a loop that does not start)."),
                     Mistake("the word ham uses most", good_words_most_likely_ham_word,
                             "You added the word with the largest P(w | ham). A word common "
                             "in ham may be common in spam too; what lowers the spam score is "
                             "the *difference* ln P(w | ham) - ln P(w | spam) (lesson 08, §5)."),
                     Mistake("the word spam uses least", good_words_rarest_spam_word,
                             "You added the word with the smallest P(w | spam). If ham rarely "
                             "uses it either, it helps little; choose the largest difference "
                             "ln P(w | ham) - ln P(w | spam) (lesson 08, §5)."),
                     Mistake("the class prior left out", good_words_without_the_prior,
                             "Your spam score has no prior. The decision compares "
                             "ln π_c + sum_k z_k ln θ_ck for the two classes: the prior "
                             "difference is part of what the spammer must overcome."),
                     Mistake("each word counted once", good_words_presence_only,
                             "You counted each word of the message once, however often it "
                             "occurs. A multinomial model adds z_k ln θ_ck: a word used "
                             "three times counts three times."),
                 ],
                 cases=[
                     Case("the toy filter and the message 'win win win cash'",
                          _spam_model(SPAM_TEXTS, SPAM_LABELS, "win win win cash"),
                          hidden=False),
                     Case("a filter where spam is the rarer class",
                          _random_model(17, 10, 400, 120, 0.2, 12), hidden=False),
                     Case("the toy filter and the message 'free free prize'",
                          _spam_model(SPAM_TEXTS, SPAM_LABELS, "free free prize"),
                          hidden=False),
                     Case("the toy filter and the message 'lunch with you'",
                          _spam_model(SPAM_TEXTS, SPAM_LABELS, "lunch with you"),
                          hidden=False),
                     Case("a message that ties with ham after a whole number of copies",
                          _mirrored_model(21, 10, 300, 3, [1, 4]), hidden=False,
                          hint="at s = 0 the message is a tie, and a tie goes to ham: add "
                               "copies while s > 0, not while s >= 0"),
                     Case("a message already classified ham",
                          _spam_model(SPAM_TEXTS, SPAM_LABELS, "see you at lunch soon")),
                     Case("numpy arrays of floats, which must come back unchanged",
                          tuple(np.array(part, dtype=float) for part in
                                _spam_model(SPAM_TEXTS, SPAM_LABELS, "win win win cash")),
                          hidden=False),
                     Case("a long spam message", _spam_model(SPAM_TEXTS, SPAM_LABELS,
                                                             "win win cash prize free call now "
                                                             "win cash free prize")),
                     Case("a larger vocabulary", _random_model(13, 60, 3000, 900, 0.3, 25)),
                     Case("spam is the more common class",
                          _random_model(14, 30, 500, 1500, 0.75, 8)),
                     Case("a weak smoothing", _spam_model(SPAM_TEXTS, SPAM_LABELS,
                                                          "free prize call now", alpha=0.1)),
                     Case("a message already balanced between ham and spam",
                          _mirrored_model(22, 12, 800, 0, [0, 2, 3])),
                 ]),
        Question("q5", "fold_habits", points=1, kind="value",
                 title="the baseline and the spread of a cross-validation",
                 reference=ref_fold_habits,
                 hint="the baseline answers the most common class every time; the spread is "
                      "numpy's standard deviation (divide by the number of folds); compare the "
                      "two models fold by fold",
                 mistakes=[
                     Mistake("the spread divided by n - 1", lambda: ref_fold_habits(ddof=1),
                             "Your spread divides by the number of folds minus one. Lesson 08 "
                             "reports numpy's standard deviation, which divides by the number of "
                             "folds, as cross_val_score(...).std() does (lesson 08, §4)."),
                     Mistake("a uniform guess as the baseline",
                             lambda: ref_fold_habits(baseline=1 / len(TICKET_CLASSES)),
                             "Your baseline guesses the four classes at random (1/4). The bar "
                             "to clear answers the most common class every time: 270 of 600 "
                             "(lesson 08, §4)."),
                     Mistake("the difference taken A - B", lambda: ref_fold_habits(sign=-1),
                             "Your mean difference has the wrong sign: the question asks for "
                             "B - A, fold by fold."),
                 ],
                 cases=[Case("a dict with the four keys", hidden=False,
                             judge=SameKeys('fold_habits should be a dict with the keys '
                                            '"baseline", "spread_a", "mean_difference" and '
                                            '"b_wins"',
                                            keys=["baseline", "spread_a", "mean_difference",
                                                  "b_wins"], shares=["baseline"],
                                            # the mean of five differences of three places
                                            # is a count of 1/5000: 0.0084 is exact
                                            exact_over=5000)),
                        Case("the baseline, the spread and the paired comparison")]),
    ],
)
