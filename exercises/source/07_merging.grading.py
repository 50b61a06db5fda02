"""Grading spec for exercise 7, merging naive Bayes models fitted on different data.

Count tables are dicts of plain lists: ``classes`` (labels), ``class_count`` (documents
per class), ``feature_count`` (one row per class, one column per word) and, in question 3,
``words`` (the column names, alphabetical).  Gaussian summaries are ``(n, mean, var)`` with
the biased variance (divide by n) of lesson 06, one number per feature.  References are
written out here, so the expected values do not depend on the library's merge.
"""
from collections import Counter

import numpy as np

from nbcourse.grading.judges import Within
from nbcourse.grading.specs import Case, Exercise, Mistake, Question, Swap
from nbcourse.grading.values import Tolerance

# --------------------------------------------------------------------------- question 1
def ref_merge_counts(a, b):
    classes = sorted(set(a["classes"]) | set(b["classes"]))
    n_words = max((len(row) for table in (a, b) for row in table["feature_count"]), default=0)
    class_count = {c: 0 for c in classes}
    feature_count = {c: [0] * n_words for c in classes}
    for table in (a, b):
        for i, c in enumerate(table["classes"]):
            class_count[c] += table["class_count"][i]
            feature_count[c] = [x + y for x, y in zip(feature_count[c], table["feature_count"][i])]
    return {"classes": classes, "class_count": [class_count[c] for c in classes],
            "feature_count": [feature_count[c] for c in classes]}


def _table(classes, class_count, feature_count, words=None):
    table = {"classes": list(classes), "class_count": list(class_count),
             "feature_count": [list(row) for row in feature_count]}
    if words is not None:
        table["words"] = list(words)
    return table


def _random_table(seed, classes, n_words):
    rng = np.random.default_rng(seed)
    class_count = rng.integers(1, 30, size=len(classes))
    feature_count = rng.poisson(3.0, size=(len(classes), n_words)) * (class_count[:, None] > 0)
    return _table(classes, class_count.tolist(), feature_count.tolist())


MONDAY = _table(["ham", "spam"], [3, 1], [[2, 0, 1, 4], [0, 3, 1, 0]])
TUESDAY = _table(["ham", "spam"], [2, 2], [[1, 1, 0, 2], [0, 4, 2, 0]])
SPAM_FIRST = _table(["spam", "ham"], [2, 5], [[1, 3, 0, 0], [4, 0, 2, 1]])
HAM_ONLY = _table(["ham"], [4], [[3, 0, 1, 2]])
NO_MESSAGES = _table([], [], [])


def counts_by_position(a, b):
    """Rows added in the order they come, without looking at the class labels."""
    return {"classes": list(a["classes"]),
            "class_count": [x + y for x, y in zip(a["class_count"], b["class_count"])],
            "feature_count": [[x + y for x, y in zip(ra, rb)]
                              for ra, rb in zip(a["feature_count"], b["feature_count"])]}


def counts_averaged(a, b):
    merged = ref_merge_counts(a, b)
    return {"classes": merged["classes"], "class_count": [c / 2 for c in merged["class_count"]],
            "feature_count": [[x / 2 for x in row] for row in merged["feature_count"]]}


def counts_of_common_classes(a, b):
    """Only the classes both tables have."""
    common = sorted(set(a["classes"]) & set(b["classes"]))
    merged = ref_merge_counts(a, b)
    keep = [merged["classes"].index(c) for c in common]
    return {"classes": common, "class_count": [merged["class_count"][i] for i in keep],
            "feature_count": [merged["feature_count"][i] for i in keep]}


def counts_of_the_first_table_classes(a, b):
    """The first table's classes only: a class that only the second table has is lost."""
    merged = ref_merge_counts(a, b)
    keep = [merged["classes"].index(c) for c in sorted(a["classes"])]
    return {"classes": sorted(a["classes"]), "class_count": [merged["class_count"][i] for i in keep],
            "feature_count": [merged["feature_count"][i] for i in keep]}


def counts_of_the_second_table_classes(a, b):
    """The second table's classes only: a class that only the first table has is lost."""
    merged = ref_merge_counts(a, b)
    keep = [merged["classes"].index(c) for c in sorted(b["classes"])]
    return {"classes": sorted(b["classes"]), "class_count": [merged["class_count"][i] for i in keep],
            "feature_count": [merged["feature_count"][i] for i in keep]}


def counts_classes_unsorted(a, b):
    """Every class, in the order first met instead of sorted."""
    merged = ref_merge_counts(a, b)
    order = list(dict.fromkeys(list(a["classes"]) + list(b["classes"])))
    keep = [merged["classes"].index(c) for c in order]
    return {"classes": order, "class_count": [merged["class_count"][i] for i in keep],
            "feature_count": [merged["feature_count"][i] for i in keep]}


def counts_without_class_counts(a, b):
    merged = ref_merge_counts(a, b)
    first = dict(zip(a["classes"], a["class_count"]))
    return {**merged, "class_count": [first.get(c, 0) for c in merged["classes"]]}


# --------------------------------------------------------------------------- question 2
def ref_merge_gaussian(a, b):
    n_a, mean_a, var_a = a
    n_b, mean_b, var_b = b
    n = n_a + n_b
    mean_a, mean_b = np.asarray(mean_a, dtype=float), np.asarray(mean_b, dtype=float)
    if n == 0:  # both shards empty: an empty summary (the question says so)
        return [0, [0.0] * len(mean_a), [0.0] * len(mean_a)]
    if n_a == 0 or n_b == 0:  # an empty shard changes nothing, whatever it holds (NaN)
        n_kept, mean_kept, var_kept = b if n_a == 0 else a
        return [n_kept, np.asarray(mean_kept, dtype=float).tolist(),
                np.asarray(var_kept, dtype=float).tolist()]
    delta = mean_b - mean_a
    mean = mean_a + delta * n_b / n
    m = n_a * np.asarray(var_a, dtype=float) + n_b * np.asarray(var_b, dtype=float) \
        + delta ** 2 * n_a * n_b / n
    return [n, mean.tolist(), (m / n).tolist()]


def _summary(rows):
    rows = np.asarray(rows, dtype=float)
    return (len(rows), rows.mean(axis=0).tolist(), rows.var(axis=0).tolist())


def _gaussian_shards(seed, n_a, n_b, n_features, shift):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.0, 1.0, size=(n_a, n_features))
    b = rng.normal(shift, 2.0, size=(n_b, n_features))
    return _summary(a), _summary(b)


def gaussian_empty_shard_averaged(a, b):
    """A shard with no rows averaged in as if it held data."""
    if a[0] and b[0]:
        return ref_merge_gaussian(a, b)
    return [a[0] + b[0], ((np.asarray(a[1], dtype=float) + b[1]) / 2).tolist(),
            ((np.asarray(a[2], dtype=float) + b[2]) / 2).tolist()]


def gaussian_plain_average(a, b):
    return [a[0] + b[0], ((np.asarray(a[1]) + b[1]) / 2).tolist(),
            ((np.asarray(a[2]) + b[2]) / 2).tolist()]


def gaussian_weighted_variances_only(a, b):
    """Weighted means and weighted variances, without the spread between the two means."""
    n = a[0] + b[0]
    with np.errstate(invalid="ignore", divide="ignore"):  # nan for two empty shards
        mean = (a[0] * np.asarray(a[1]) + b[0] * np.asarray(b[1])) / n
        var = (a[0] * np.asarray(a[2]) + b[0] * np.asarray(b[2])) / n
    return [n, mean.tolist(), var.tolist()]


def gaussian_unbiased(a, b):
    """The pooled sum of squares divided by n - 1 instead of n."""
    n, mean, var = ref_merge_gaussian(a, b)
    return [n, mean, (np.asarray(var) * n / (n - 1)).tolist()]


def gaussian_mean_unweighted(a, b):
    n, _, var = ref_merge_gaussian(a, b)
    return [n, ((np.asarray(a[1]) + b[1]) / 2).tolist(), var]


# --------------------------------------------------------------------------- question 3
def ref_merge_vocabularies(a, b):
    words = sorted(set(a["words"]) | set(b["words"]))
    column = {w: j for j, w in enumerate(words)}
    feature_count = [[0] * len(words) for _ in a["classes"]]
    for table in (a, b):
        for i in range(len(table["classes"])):
            # a numpy matrix's row is still 2-D (student 28): read rows as an array's
            rows = np.asarray(table["feature_count"]).reshape(len(table["classes"]), -1)
            for w, count in zip(table["words"], rows[i]):
                feature_count[i][column[w]] += count
    return {"classes": list(a["classes"]),
            "class_count": [x + y for x, y in zip(a["class_count"], b["class_count"])],
            "words": words, "feature_count": feature_count}


def _vocabulary_table(seed, words, n_classes=2):
    rng = np.random.default_rng(seed)
    class_count = rng.integers(1, 20, size=n_classes)
    feature_count = rng.poisson(2.0, size=(n_classes, len(words)))
    return _table(["ham", "spam", "other"][:n_classes], class_count.tolist(),
                  feature_count.tolist(), words=sorted(words))


JUNE = _table(["ham", "spam"], [4, 2], [[3, 1, 0], [0, 2, 5]], words=["call", "lunch", "prize"])
JULY = _table(["ham", "spam"], [3, 3], [[2, 1, 1], [4, 0, 3]], words=["call", "free", "lunch"])


def vocabularies_by_position(a, b):
    """Columns added by position, as if both tables had the first one's words."""
    width = min(len(a["words"]), len(b["words"]))
    return {"classes": list(a["classes"]),
            "class_count": [x + y for x, y in zip(a["class_count"], b["class_count"])],
            "words": list(a["words"]),
            "feature_count": [[ra[j] + (rb[j] if j < width else 0) for j in range(len(ra))]
                              for ra, rb in zip(a["feature_count"], b["feature_count"])]}


def vocabularies_first_only(a, b):
    """The first table's vocabulary kept fixed: the other table's new words are dropped."""
    merged = ref_merge_vocabularies(a, b)
    keep = [merged["words"].index(w) for w in a["words"]]
    return {**merged, "words": list(a["words"]),
            "feature_count": [[row[j] for j in keep] for row in merged["feature_count"]]}


def vocabularies_common_only(a, b):
    merged = ref_merge_vocabularies(a, b)
    common = [w for w in merged["words"] if w in a["words"] and w in b["words"]]
    keep = [merged["words"].index(w) for w in common]
    return {**merged, "words": common,
            "feature_count": [[row[j] for j in keep] for row in merged["feature_count"]]}


def vocabularies_in_order_of_appearance(a, b):
    """The union of the words, but in the order they were met instead of alphabetical."""
    merged = ref_merge_vocabularies(a, b)
    words = list(a["words"]) + [w for w in b["words"] if w not in a["words"]]
    keep = [merged["words"].index(w) for w in words]
    return {**merged, "words": words,
            "feature_count": [[row[j] for j in keep] for row in merged["feature_count"]]}


# --------------------------------------------------------------------------- question 4
# Two months of messages, each month's vocabulary pruned with min_df=2 on its own: the
# merged tables miss the occurrences of every word that one month pruned, including words
# the other month kept. Words are split on spaces (no word has fewer than two letters, so
# BagOfWords finds the same ones). June's "win cash win" repeats a word that June prunes, so
# counting messages (binary=True) instead of occurrences gives another number (student 8).
PRUNED_MAY = ["win cash now", "cash prize now", "lunch at noon", "lunch today", "call me today",
       "win prize draw", "see you at noon"]
PRUNED_JUNE = ["cash offer now", "call now", "lunch at home", "home today", "win cash win",
        "prize offer today", "see you soon", "call home"]


def _counts(messages):
    return Counter(word for message in messages for word in message.split())


def _kept(messages, min_df=2):
    df = Counter(word for message in messages for word in set(message.split()))
    return {word for word, n in df.items() if n >= min_df}


def _lost(months=(PRUNED_MAY, PRUNED_JUNE)):
    """{word: occurrences one fit on both months counts and the merged tables miss}."""
    together = sum(months, [])
    full = {w: n for w, n in _counts(together).items() if w in _kept(together)}
    merged = Counter()
    for month in months:
        counts = _counts(month)
        for word in _kept(month):
            merged[word] += counts[word]
    return {w: full[w] - merged[w] for w in full if full[w] != merged[w]}


def ref_lost_occurrences():
    return sum(_lost().values())


# The swap of q4: a merge_vocabularies that keeps only the words both tables have (whichever
# table comes first), so a cell that really merges with it loses, on top, every occurrence of
# a word one month alone kept, run on OTHER_MONTHS. A number typed in, in any disguise, stays
# where it is.
# counts that answer both a list's and a numpy array's idioms (``sum(rows, [])``, ``[0][j]``,
# ``.sum()``, ``[0, j]``): a cell written against a right merge of either kind runs with it
# (students 20 and 22)
COMMON_WORDS_MERGE = """
import numpy as np


class Counts(list):
    def __getitem__(self, index):
        if isinstance(index, tuple):
            return np.asarray(self)[index]
        item = list.__getitem__(self, index)
        return Counts(item) if isinstance(index, slice) else item

    def sum(self, *args, **kwargs):
        return np.asarray(self).sum(*args, **kwargs)

    def tolist(self):
        return np.asarray(self).tolist()

    def __getattr__(self, name):  # an array's other idioms (``.ravel()``, ``.T``: red team 8)
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(np.asarray(self), name)


def merge_vocabularies(a, b):
    words = sorted(set(a["words"]) & set(b["words"]))
    feature_count = []
    for i in range(len(a["classes"])):
        row = {w: 0 for w in words}
        for table in (a, b):
            # a numpy matrix's row is still 2-D (student 28): read rows as an array's
            rows = np.asarray(table["feature_count"]).reshape(len(table["classes"]), -1)
            for w, count in zip(table["words"], rows[i]):
                if w in row:
                    row[w] += int(count)
        feature_count.append(Counts(row[w] for w in words))
    return {"classes": list(a["classes"]),
            "class_count": Counts(int(x) + int(y)
                                  for x, y in zip(a["class_count"], b["class_count"])),
            "words": words, "feature_count": Counts(feature_count)}
"""


def lost_with_common_words_only(months=(PRUNED_MAY, PRUNED_JUNE)):
    """What a right cell computes when its merge keeps only the words both months kept."""
    together = sum(months, [])
    full = {w: n for w, n in _counts(together).items() if w in _kept(together)}
    both = set.intersection(*(_kept(month) for month in months))
    return sum(full.values()) - sum(full[w] for w in both)


# Other months for the swap of q4, fifteen messages again (17 occurrences lost of 40 with a
# right merge, 34 with the swap's): a total typed in beside a computed part (``39 - merged
# total``, student 22) no longer lands on the answer.
OTHER_MONTHS = (["free lunch today", "free cash now", "lunch at noon", "cash now please",
                 "call me now", "see you soon", "win a prize"],
                ["cash prize now", "prize draw today", "see you today", "call me soon",
                 "free prize now", "lunch soon", "home at noon", "call home now"])
OTHER_MONTHS_SOURCE = f"may = {OTHER_MONTHS[0]!r}\njune = {OTHER_MONTHS[1]!r}\n"

TYPED_LOST = ("Your `lost_occurrences` does not follow your `merge_vocabularies` and the "
              "months' messages: run with a `merge_vocabularies` that keeps other words and "
              "other messages in `may` and `june`, your cell gives a number that is not "
              "theirs. Build each month's table from `may` and `june`, merge the two with "
              "merge_vocabularies, and count what the merged table misses: no number typed "
              "in.")


def lost_words_counted():
    return len(_lost())


def lost_only_words_no_month_kept():
    merged_words = _kept(PRUNED_MAY) | _kept(PRUNED_JUNE)
    return sum(n for w, n in _lost().items() if w not in merged_words)


# the library's ``merge`` by its paths (``nbcourse.naive_bayes.*``), not as a plain name:
# ``heapq.merge`` and pandas' ``merge`` are not it (student 26)
MERGE_NAMES = ("add_counts",
               # BagOfWords' own column move is q3's whole work (student 30)
               "nbcourse.text._renumbered", "CountTable", "merge_gaussian_summaries", "partial_fit",
               "GaussianNB", "MultinomialNB", "nbcourse.scale.*", "nbcourse.naive_bayes.*",
               "nbcourse._numerics.*", "sklearn.*")  # "plain Python and numpy are fine"

EXERCISE = Exercise(
    title="Exercise 7: merging naive Bayes models",
    questions=[
        Question("q1", "merge_counts", points=2, title="merging two count tables",
                 reference=ref_merge_counts, forbidden=MERGE_NAMES, exact=True,
                 hint="match the rows by class label, not by position; the merged table has "
                      "every class of either table, in sorted order, and adds the counts",
                 mistakes=[
                     Mistake("rows added by position", counts_by_position,
                             "You added row i of one table to row i of the other. The two "
                             "tables may list their classes in another order, or one may lack "
                             "a class: match the rows by class label (lesson 07, §4)."),
                     Mistake("counts averaged", counts_averaged,
                             "You averaged the two tables. The model of all the data counts "
                             "everything once: add the counts, do not average them."),
                     Mistake("only the classes both tables have", counts_of_common_classes,
                             "A class that only one table has is still part of the merged "
                             "model: keep every class of either table."),
                     Mistake("a class only the second table has dropped",
                             counts_of_the_first_table_classes,
                             "Your merged table has only the first table's classes: the counts "
                             "of a class that only the second table saw are lost. The merged "
                             "table has every class of either table (lesson 07, §2)."),
                     Mistake("a class only the first table has dropped",
                             counts_of_the_second_table_classes,
                             "Your merged table has only the second table's classes: the counts "
                             "of a class that only the first table saw are lost. The merged "
                             "table has every class of either table (lesson 07, §2)."),
                     Mistake("classes not sorted", counts_classes_unsorted,
                             "Your classes come in the order you met them. The merged table "
                             "lists them in sorted order (sorted(...)), whatever order the two "
                             "tables use."),
                     Mistake("the class counts not added", counts_without_class_counts,
                             "The number of documents per class is a count too, and gives "
                             "the prior: add it like the word counts."),
                 ],
                 cases=[
                     Case("two days of the same two classes", (MONDAY, TUESDAY), hidden=False),
                     Case("the same classes listed in another order", (MONDAY, SPAM_FIRST),
                          hidden=False),
                     Case("a class only the second table has", (HAM_ONLY, TUESDAY), hidden=False),
                     Case("the first table lists spam first", (SPAM_FIRST, MONDAY), hidden=False),
                     Case("a class only the first table has", (TUESDAY, HAM_ONLY), hidden=False,
                          hint="the merged table has every class of either table"),
                     Case("the class order differs and a class is missing", (SPAM_FIRST, HAM_ONLY)),
                     Case("three classes in scrambled order",
                          (_random_table(1, ["b", "c", "a"], 6), _random_table(2, ["a", "c", "b"], 6))),
                     Case("larger tables, one class in one table only",
                          (_random_table(3, ["ham", "spam"], 25),
                           _random_table(4, ["spam", "ham", "promo"], 25))),
                     Case("an office that received no messages", (NO_MESSAGES, SPAM_FIRST)),
                     # public: a merge that crashes on it passed every public case (student 12)
                     Case("two offices that received no messages", (NO_MESSAGES, NO_MESSAGES),
                          hidden=False,
                          hint="two tables with no classes merge into a table with no classes"),
                     # student 10: classes sorted as text put 10 before 2
                     Case("classes that are numbers", (_random_table(5, [2, 10], 4),
                                                       _random_table(6, [10, 1], 4))),
                     Case("the first office received no messages", (NO_MESSAGES, MONDAY),
                          hidden=False,
                          hint="an office with no messages has no classes and no rows: take "
                               "the number of words from a table that has rows, or from "
                               "either table's word counts when one is empty"),
                 ]),
        Question("q2", "merge_gaussian", points=3, title="merging two Gaussian summaries",
                 reference=ref_merge_gaussian, forbidden=MERGE_NAMES,
                 hint="the total count is the sum of the two counts; weight each mean by its "
                      "count; to the two sums of squares (count times variance) add delta^2 "
                      "n_a n_b / n, where delta is the difference of the two means, and divide "
                      "by the total count",
                 mistakes=[
                     Mistake("means and variances averaged", gaussian_plain_average,
                             "You averaged the two means and the two variances. A shard of 1,000 "
                             "rows must weigh more than a shard of 10, and the spread between "
                             "the two means belongs to the variance (lesson 07, §5)."),
                     Mistake("variances weighted, the spread between means forgotten",
                             gaussian_weighted_variances_only,
                             "Your variance is the weighted average of the two variances. It "
                             "misses the spread between the two shards: add "
                             "delta^2 n_a n_b / n to the sum of squares before dividing by n "
                             "(lesson 07, §5)."),
                     Mistake("divided by n - 1", gaussian_unbiased,
                             "The summaries use the maximum-likelihood variance of lesson 06, "
                             "which divides by n; divide the pooled sum of squares by n too."),
                     Mistake("the means not weighted by n", gaussian_mean_unweighted,
                             "Your pooled mean is the plain average of the two means. Weight "
                             "each by its number of rows: mean_a + delta n_b / n."),
                     Mistake("a shard with no rows averaged in", gaussian_empty_shard_averaged,
                             "A shard with N = 0 rows holds no data: whatever its mean and "
                             "variance say, it must not change the merged summary. Weighting "
                             "by the number of rows (mean_a + delta n_b / n) gives it no "
                             "weight (lesson 07, §5)."),
                 ],
                 cases=[
                     Case("two shards of 100 rows with means 0 and 4",
                          ((100, [0.0], [1.0]), (100, [4.0], [1.0])), hidden=False),
                     Case("shards of different sizes, two features",
                          ((30, [1.0, 10.0], [4.0, 1.0]), (10, [3.0, 6.0], [1.0, 9.0])),
                          hidden=False),
                     Case("one row against many", _gaussian_shards(5, 1, 50, 3, 2.0)),
                     Case("the same mean, different spreads",
                          ((40, [2.0, -1.0], [1.0, 0.5]), (60, [2.0, -1.0], [9.0, 2.0]))),
                     Case("real-looking shards of unequal size", _gaussian_shards(6, 17, 230, 4, -1.5)),
                     # E[x^2] - mean^2 loses every digit when the means dwarf the spread
                     # (student 24): pooled around each shard's mean, it does not
                     Case("means far larger than the spread",
                          ((50, [1e8, -2e8], [1.0, 0.25]), (70, [1e8 + 3.0, -2e8 + 1.0],
                                                            [0.5, 2.0]))),
                     Case("one shard with no rows", ((0, [0.0, 0.0], [0.0, 0.0]),
                                                     (25, [1.5, -2.0], [0.25, 4.0])),
                          hidden=False,
                          hint="a shard with N = 0 rows has no weight: the merged summary is "
                               "the other shard's"),
                     Case("an empty shard holding numbers from an earlier run",
                          ((0, [6.0, 1.0], [2.0, 3.0]), (25, [1.5, -2.0], [0.25, 4.0])),
                          hidden=False,
                          hint="a shard with N = 0 rows has no weight, whatever its means and "
                               "variances hold: the merged summary is the other shard's"),
                     # student 10: leftovers in both empty shards are not the answer
                     # public: returning the stale numbers passed every public case
                     # (student 14)
                     Case("two empty shards, both holding numbers from an earlier run",
                          ((0, [3.0, 1.0], [2.0, 0.5]), (0, [5.0, -1.0], [1.0, 4.0])),
                          hidden=False,
                          hint="two shards with no rows merge into (0, zeros, zeros), whatever "
                               "numbers they hold"),
                     # student 28: the formulas without an N = 0 branch passed every case
                     # above; numpy's summary of no rows is NaN, and a leftover mean can be
                     # huge
                     Case("an empty shard whose summary is NaN, as numpy gives for no rows",
                          ((0, [float("nan"), float("nan")], [float("nan"), float("nan")]),
                           (25, [1.5, -2.0], [0.25, 4.0]))),
                     Case("an empty shard holding a huge leftover mean",
                          ((40, [2.0, 3.0], [1.0, 0.5]), (0, [1e20, 3.0], [1.0, 1.0]))),
                     Case("two shards with no rows at all", ((0, [0.0, 0.0], [0.0, 0.0]),
                                                             (0, [0.0, 0.0], [0.0, 0.0])),
                          hidden=False,
                          hint="a shard with N = 0 rows has no weight, and with no rows in "
                               "all there is nothing to average: guard the division by the "
                               "total count (0 / 0 is nan)"),
                     Case("shards of 7 and 5 rows, means and variances of many decimals",
                          ((7, [1.0, 2.5], [0.3, 1.2]), (5, [2.0, 0.5], [0.7, 0.9])),
                          hidden=False),
                     Case("means and variances in numpy arrays, which must come back unchanged",
                          ((100, np.array([0.0, 1.0]), np.array([1.0, 2.0])),
                           (100, np.array([4.0, -1.0]), np.array([1.0, 0.5]))),
                          hidden=False),
                     # an empty shard's mean and variance say nothing, whatever they hold
                     Case("a second shard with no rows",
                          ((12, [3.0], [2.0]), (0, [7.0], [5.0]))),
                     Case("an empty first shard holding old numbers",
                          ((0, [1.0, 9.0, -4.0], [3.0, 3.0, 1.0]), _summary(
                              np.random.default_rng(8).normal(2.0, 1.5, size=(40, 3))))),
                     Case("two shards with no rows",
                          ((0, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
                           (0, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]))),
                 ]),
        Question("q3", "merge_vocabularies", points=2,
                 title="merging tables with different vocabularies",
                 reference=ref_merge_vocabularies, forbidden=MERGE_NAMES, exact=True,
                 hint="the merged vocabulary is the sorted union of the two word lists; move each "
                      "count to its word's column in the merged table, with zeros where a table "
                      "never saw a word",
                 mistakes=[
                     Mistake("columns added by position", vocabularies_by_position,
                             "You added column j to column j. The two tables have different "
                             "words, so column j is not the same word in both: match the "
                             "columns by word (lesson 07, §3)."),
                     Mistake("the first table's vocabulary kept fixed", vocabularies_first_only,
                             "You kept only the first table's words, so every word that appeared "
                             "later is thrown away, with its counts. The merged vocabulary is the "
                             "union of both."),
                     Mistake("only the words both tables have", vocabularies_common_only,
                             "A word that only one table has still has counts, and zero counts in "
                             "the other table: keep the union of the words."),
                     Mistake("the words not in alphabetical order",
                             vocabularies_in_order_of_appearance,
                             "Your words are in the order you met them. Columns are in "
                             "alphabetical order, as BagOfWords numbers them, so sort the union."),
                 ],
                 cases=[
                     Case("June and July", (JUNE, JULY), hidden=False),
                     Case("the same words in both tables",
                          (_vocabulary_table(1, ["ab", "cd", "ef"]), _vocabulary_table(2, ["ab", "cd", "ef"]))),
                     Case("two vocabularies of the same size but different words",
                          (_vocabulary_table(3, ["apple", "cash", "win"]),
                           _vocabulary_table(4, ["bank", "cash", "zoo"]))),
                     Case("no word in common",
                          (_vocabulary_table(5, ["xa", "xb"]), _vocabulary_table(6, ["ya", "yb", "yc"]))),
                     Case("three classes, a larger second vocabulary",
                          (_vocabulary_table(7, ["free", "lunch", "prize", "zz"], 3),
                           _vocabulary_table(8, ["aa", "call", "free", "lunch", "now", "prize"], 3))),
                 ]),
        Question("q4", "lost_occurrences", points=1, kind="value",
                 title="what a pruned vocabulary loses",
                 reference=ref_lost_occurrences, tolerance=Tolerance(rel=0.0, abs_=1e-9),
                 computed=True, calls=("merge_vocabularies",),
                 # computed with it: a helper it uses is flagged here as well (issue 34)
                 forbidden=MERGE_NAMES,
                 swaps=[Swap("the count computed from merge_vocabularies and the months",
                             ("merge_vocabularies",), COMMON_WORDS_MERGE + OTHER_MONTHS_SOURCE,
                             lambda: lost_with_common_words_only(OTHER_MONTHS), TYPED_LOST,
                             rebinds=("may", "june"))],
                 hint="a word loses the occurrences of every month that pruned it, even when "
                      "the other month kept it: count, over the words the fit on both months "
                      "keeps, how many of their occurrences the merged table is short of",
                 mistakes=[
                     Mistake("words counted instead of occurrences", lost_words_counted,
                             "Your value counts the words whose count is short. The question "
                             "asks for the occurrences: a word seen twice in the month that "
                             "dropped it loses two (lesson 07, §3)."),
                     Mistake("only the words neither month kept",
                             lost_only_words_no_month_kept,
                             "You counted only the words that neither month kept. A word kept "
                             "in one month but pruned from the other loses the other month's "
                             "occurrences too: matching the columns by word cannot bring back a "
                             "count that was never recorded (lesson 07, §3)."),
                 ],
                 cases=[Case("a whole number of occurrences", hidden=False,
                             judge=Within(0, 1000, "lost_occurrences should be a whole number "
                                                   "of occurrences, 0 or more")),
                        Case("the occurrences lost to pruning")]),
    ],
)
