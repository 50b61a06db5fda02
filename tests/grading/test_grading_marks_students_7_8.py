"""Issue 34, a seventh and an eighth student's probes (exercises 01-04 and 05-08).

Wrong answers that kept full marks, each now failing a case (public where ``check()``
passed them entirely):
- 03 q3: the floor applied in one pass, wrong when lifting one outcome pushes another
  below the floor ([2, 21, 77] with a floor of 0.2);
- 01 q1: labels compared without their case ("Yes" and "yes" are two labels);
- 06 q7: the cost matrix's diagonal set to 0 (a right decision may cost something too),
  and a threshold rule for two classes that passed the only public case;
- 08 q2: V taken as the number of words some class uses (a public column of zeros);
- 07 q4: messages counted instead of occurrences (``binary=True``) gave the same number,
  since no message repeated a word; June's "win cash win" does;
- 05 q8: a recipe fitted on training + validation kept the recall point by a coincidence
  of the split; seed 6 separates every recipe mistake tried, in precision and in recall.

A right value whose cell called a graded function still left as the stub was read as
"not answered" and lost its points (01 q4, 02 q6, 03 q6, 04 q4): it is now marked by
follow-through, like a value over a wrong function.
"""
from __future__ import annotations

import numpy as np
import pytest

from submission_support import lost_marks, solved
from test_grading_marks import module
from test_grading_marks_probes import SOURCE, check, grade_notebooks, graded
from test_grading_marks_student3_b import _page, _replaced


# ------------------------------------------------------------- functions: new cases
def numeric_mle_one_pass(counts, smallest=0.0):
    c = np.asarray(counts, dtype=float)
    t = c / c.sum()
    low = t < smallest
    if not low.any():
        return t.tolist()
    rest = 1 - smallest * low.sum()
    return np.where(low, smallest, rest * c / c[~low].sum()).tolist()


def likelihood_ignoring_case(table, feature, value, target, label):
    from fractions import Fraction
    rows = table[table[target].astype(str).str.lower() == str(label).lower()]
    return Fraction(int((rows[feature].astype(str).str.lower() == str(value).lower()).sum()),
                    len(rows))


def decisions_without_the_diagonal(proba, classes, cost):
    c = np.array(cost, dtype=float)
    np.fill_diagonal(c, 0)
    return [classes[j] for j in np.argmin(np.asarray(proba, dtype=float) @ c, axis=1)]


def decisions_by_a_threshold(proba, classes, cost):
    c = np.asarray(cost, dtype=float)
    t = c[0][1] / (c[0][1] + c[1][0])
    return [classes[1] if row[1] > t else classes[0] for row in np.asarray(proba, dtype=float)]


def complement_weights_v_used(counts, alpha):
    f = np.asarray(counts, dtype=float)
    v = int(np.count_nonzero(f.sum(axis=0)))
    complement = f.sum(axis=0) - f
    theta = (complement + alpha) / (complement.sum(axis=1, keepdims=True) + alpha * v)
    w = np.log(theta)
    return (w / np.abs(w).sum(axis=1, keepdims=True)).tolist()


def bernoulli_summed_over_classes_when_square(class_prior, p, b):
    p, b = np.asarray(p, float), np.asarray(b, float)
    axis = 0 if p.shape[0] == p.shape[1] else 1
    terms = b[:, None] * np.log(p) + (1 - b[:, None]) * np.log(1 - p) if axis == 0 else \
        b * np.log(p) + (1 - b) * np.log(1 - p)
    return (np.log(class_prior) + terms.sum(axis)).tolist()


def merge_gaussian_keeping_leftovers(a, b):
    n = a[0] + b[0]
    if n == 0:  # the question asks for zeros: these are an earlier run's numbers
        return [0, list(a[1]), list(a[2])]
    return ref_merge_gaussian(a, b)


def merge_counts_sorted_as_text(a, b):
    merged = ref_merge_counts(a, b)
    order = sorted(range(len(merged["classes"])), key=lambda i: str(merged["classes"][i]))
    return {key: [merged[key][i] for i in order] for key in merged}


def merge_counts_with_an_empty_row(a, b):
    if not a["classes"] and not b["classes"]:
        return {"classes": [], "class_count": [], "feature_count": [[]]}
    return ref_merge_counts(a, b)


def ref_merge_gaussian(a, b):
    return module("07_merging").ref_merge_gaussian(a, b)


def ref_merge_counts(a, b):
    return module("07_merging").ref_merge_counts(a, b)


WRONG = [  # (exercise, question, answer, whether check() now catches it too)
    ("03_mle", "q3", numeric_mle_one_pass, True),
    ("01_weather", "q1", likelihood_ignoring_case, False),
    ("06_gaussian", "q7", decisions_without_the_diagonal, False),
    ("06_gaussian", "q7", decisions_by_a_threshold, True),
    ("08_beyond_naive", "q2", complement_weights_v_used, True),
    ("04_linearity", "q6", bernoulli_summed_over_classes_when_square, True),
    ("07_merging", "q2", merge_gaussian_keeping_leftovers, True),
    ("07_merging", "q1", merge_counts_sorted_as_text, False),
    ("07_merging", "q1", merge_counts_with_an_empty_row, True),
]


@pytest.mark.parametrize("name, question, answer, public", WRONG,
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_a_wrong_answer_that_kept_full_marks_now_fails_a_case(name, question, answer, public):
    result = graded(name, question, answer)
    assert result.score < result.points, (name, question, result.score)
    assert check(name, question, answer).all_passed is not public


# ------------------------------------------------------------- values on fixed data
def test_07_counting_messages_instead_of_occurrences_gives_another_number():
    source = module("07_merging")
    messages = [[" ".join(sorted(set(m.split()))) for m in month]
                for month in (source.PRUNED_MAY, source.PRUNED_JUNE)]
    assert sum(source._lost(tuple(messages)).values()) != source.ref_lost_occurrences()


@pytest.mark.parametrize("vocabulary, fit", [("trainval", "train"), ("train", "trainval"),
                                             ("trainval", "trainval"), ("all", "train")])
def test_05_every_recipe_mistake_changes_precision_and_recall(vocabulary, fit):
    from nbcourse import MultinomialNB
    from nbcourse.evaluation import stratified_split
    from nbcourse.text import BagOfWords
    source = module("05_spam")
    texts, labels = source._sms_texts_and_labels()
    texts, labels = list(texts), np.asarray(labels)
    train, validation, test = stratified_split(labels, sizes=(0.8, 0.1, 0.1),
                                               seed=source.SCORES_SEED)
    parts = {"train": list(train), "trainval": list(train) + list(validation),
             "all": list(range(len(texts)))}
    words = BagOfWords().fit([texts[i] for i in parts[vocabulary]])
    model = MultinomialNB(alpha=1.0).fit(words.transform([texts[i] for i in parts[fit]]),
                                         labels[parts[fit]])
    flagged = model.predict(words.transform([texts[i] for i in test])) == "spam"
    spam = labels[test] == "spam"
    right = source.spam_scores()
    assert np.sum(flagged & spam) / np.sum(flagged) != right["precision"]
    assert np.sum(flagged & spam) / np.sum(spam) != right["recall"]


# ------------------------------------------- a value over a function left as the stub
STUBS = {  # exercise: (the function left as the stub, its signature, the value question)
    "01_weather": ("likelihood", "table, feature, value, target, label", "q4"),
    "04_linearity": ("decide", "w0, w, X", "q4"),
}


@pytest.fixture(scope="module", params=sorted(STUBS))
def stub_left(request, tmp_path_factory):
    name = request.param
    function, signature, value = STUBS[name]
    stub = f"def {function}({signature}):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"
    notebooks = {"solution": solved(name, SOURCE),
                 "stub": _replaced(solved(name, SOURCE), f"def {function}(", stub)}
    rows, pages = grade_notebooks(name, notebooks, tmp_path_factory.mktemp(f"{name}_stub"))
    return name, value, rows, pages


def test_a_right_value_over_a_function_left_as_the_stub_keeps_its_points(stub_left):
    name, value, rows, pages = stub_left
    assert not lost_marks(rows["solution"].values())
    row = rows["stub"][value]
    assert row["score"] == row["points"], row
    assert row["status"] == "right given the functions it calls", row
    page = _page(pages["stub"])
    assert f"`{row['name']}` is not defined: not answered yet" not in page


# ------------------------------------------- a recipe mistake named where it is not made
def test_a_value_is_not_told_a_mistake_its_right_function_does_not_make(tmp_path):
    """Student 8: best_alpha from other alphas equalled "the largest alpha kept on a tie",
    and was told so, while the notebook's choose_alpha and spam_experiment were right."""
    from test_grading_marks_probes import grade_probes
    other_alphas = "best_alpha, test_accuracy = spam_experiment(texts, labels, [1.0], 0)\n"
    rows, pages = grade_probes("05_spam", {"other_alphas": other_alphas}, tmp_path)
    row = rows["other_alphas"]
    assert row["q5"]["score"] == 0 and row["q6"]["score"] == 0
    assert row["q4"]["score"] == row["q4"]["points"]
    page = _page(pages["other_alphas"])
    assert "kept on a tie" not in page and "Known mistake" not in page, page
    assert "with the alphas given and seed 0" in page


def test_a_recall_that_is_a_count_over_the_test_spam_is_not_called_rounded():
    """Student 10: 66 / 75 = 0.88 is the exact recall; check() told it it looked rounded."""
    right, rounded = str(check("05_spam", "q8", 0.88)), str(check("05_spam", "q8", 0.89))
    assert "decimal places" not in right and "decimal places" in rounded


def calibration_error_without_the_last_bin_rule(is_positive, p, n_bins):
    pos, p = np.asarray(is_positive, float), np.asarray(p, float)
    bins = np.floor(p * n_bins).astype(int)  # p = 1 gets a bin of its own
    return float(sum((bins == j).sum() / len(p) * abs(pos[bins == j].mean() - p[bins == j].mean())
                     for j in np.unique(bins)))


def test_an_ece_that_leaves_p_1_in_a_bin_of_its_own_fails_a_public_case():
    assert not check("06_gaussian", "q6", calibration_error_without_the_last_bin_rule).all_passed
    result = graded("06_gaussian", "q6", calibration_error_without_the_last_bin_rule)
    assert result.score < result.points


def test_p_no_as_the_larger_score_is_told_what_the_swap_saw(tmp_path):
    """Student 9: max(scores) / sum is right on the lesson's day only ('no' wins there); the
    page said the value did not come from joint_scores, though it did."""
    from test_grading_marks_probes import grade_probes
    larger = "s = joint_scores(weather, lesson_day, 'play')\np_no = max(s.values()) / sum(s.values())\n"
    rows, pages = grade_probes("01_weather", {"larger": larger}, tmp_path)
    assert rows["larger"]["q4"]["score"] == 0
    assert "the larger score is not always the score of 'no'" in _page(pages["larger"])
