"""Issue 34, student 22's two typed counts (on 0008cfb) and red team 7 (on 7e22210).

Student 22: a count typed in beside computed ones passed, because the typed-in reading
flags only long numbers and nothing varied the data.  05 q7/q8 and 07 q4 now have a swap
that runs the cell again with other messages (``sms``/``texts``/``labels``,
``may``/``june``): a typed count no longer lands on the answer there, while a right cell,
however it reads the notebook's messages, does.

Red team 7: a relative import after ``__package__ = "sklearn"`` (E4), ``match m: case
object(accuracy=f)`` (E3), ``mock.patch(...).get_original()`` and multiprocessing's pickler
(E5), a widget that computes a forbidden curve (E1), numbers typed in as text (E2); a
later cell's variable of the same name pulled into a value (FF1), and an import re-bound
by a later assignment (FF2).
"""
from __future__ import annotations

import pytest

from nbcourse.grading import forbidden
from nbcourse.grading.library_names import expand
from nbcourse.grading.typed_in import typed_in
from test_grading_marks_probes import grade_probes

RULE = expand(["accuracy", "accuracy_score", "sklearn.metrics.*", "nbcourse.evaluation.*"])
DYNAMIC = [forbidden.DYNAMIC]

SCANNED = {
    "relative_star": (["__package__ = 'sklearn'\nfrom .metrics import *\n"
                       "def fraction_correct(y_true, y_pred):\n"
                       "    return float(accuracy_score(y_true, y_pred))\n"],
                      [forbidden.DYNAMIC, "accuracy_score"]),
    "relative_in_the_function": (["def fraction_correct(y_true, y_pred):\n"
                                  "    from .metrics import get_scorer as scorer\n"
                                  "    return scorer('accuracy')._score_func(y_true, y_pred)\n"
                                  "__package__ = 'sklearn'\n"], DYNAMIC),
    "relative_library_star": (["__package__ = 'nbcourse'\nfrom .evaluation import *\n"
                               "def fraction_correct(y, p):\n    return my_accuracy(y, p)\n"],
                              DYNAMIC),
    "match_on_a_module": (["from nbcourse import evaluation\n"
                           "def fraction_correct(y_true, y_pred):\n"
                           "    match evaluation:\n"
                           "        case object(accuracy=measure):\n"
                           "            return measure(y_true, y_pred)\n"],
                          [forbidden.DYNAMIC, "accuracy"]),
    "mock_patch": (["from unittest import mock\n"
                    "def fraction_correct(y_true, y_pred):\n"
                    "    original, _ = mock.patch('sklearn.metrics.accuracy_score')"
                    ".get_original()\n"
                    "    return float(original(y_true, y_pred))\n"], DYNAMIC),
    "forking_pickler": (["from multiprocessing.reduction import ForkingPickler\n"
                         "def fraction_correct(y_true, y_pred):\n"
                         "    f = ForkingPickler.loads(b'csklearn.metrics\\naccuracy_score\\n.')\n"
                         "    return float(f(y_true, y_pred))\n"], DYNAMIC),
    # honest: a match on the data, an import re-bound by a later assignment (FF2)
    "match_on_data": (["def fraction_correct(y_true, y_pred):\n    match y_true:\n"
                       "        case [*items]:\n"
                       "            return sum(a == b for a, b in zip(items, y_pred)) / len(items)\n"],
                      []),
}


@pytest.mark.parametrize("name", SCANNED)
def test_the_scan_after_red_team_7(name):
    cells, found = SCANNED[name]
    assert forbidden.find(cells, "fraction_correct", RULE) == found


def test_an_import_re_bound_by_a_later_assignment_is_the_assignment():
    """FF2: the library's accuracy imported in a scratch cell, then the recipe's result
    stored under that name: the value reads the result.  Re-bound to itself, it stays."""
    scratch = "from nbcourse.evaluation import accuracy\naccuracy(['a'], ['a'])\n"
    assert forbidden.find([scratch, "best_alpha, accuracy = spam_experiment(texts, labels)\n"
                                    "test_accuracy = accuracy\n"], "test_accuracy", RULE) == []
    for again in ("accuracy = accuracy\n", "accuracy = (accuracy,)[0]\n"):
        assert forbidden.find([scratch, again + "test_accuracy = accuracy(['a'], ['b'])\n"],
                              "test_accuracy", RULE) == ["accuracy"]
    # a function reads the name when it is called, after every cell: the last binding
    assert forbidden.find([scratch, "def fraction_correct(y, p):\n    return accuracy(y, p)\n"],
                          "fraction_correct", RULE) == ["accuracy"]


def test_a_value_is_scanned_in_the_cells_that_can_make_it():
    """FF1: a later ``result = stratified_split(...)`` (in a later cell or later in the
    cell) does not make q5's value use it; an earlier one does, and so does a later
    statement that names the value."""
    plan = {"questions": [{"question": "q5", "name": "best_alpha", "kind": "value",
                           "forbidden": ["stratified_split"]}]}
    value = "result = spam_experiment(texts, labels, alphas, seed=0)\nbest_alpha, _ = result\n"
    later = ("from nbcourse.evaluation import stratified_split\n"
             "result = stratified_split(labels, sizes=(0.8, 0.1, 0.1), seed=6)\n")
    assert forbidden.flagged_answers([value, "check('q5', best_alpha)\n", later], plan) == {}
    assert forbidden.flagged_answers([value + later], plan) == {}
    assert forbidden.flagged_answers([later, "best_alpha, _ = result\n"], plan) == \
        {"q5": ["stratified_split"]}
    assert forbidden.flagged_answers([value, later + "best_alpha = result[0]\n"], plan) == \
        {"q5": ["stratified_split"]}


@pytest.mark.parametrize("cell, typed", [
    ('p_text, r_text = "0.9850746268656716", "0.88"\nspam_precision = float(p_text)\n', True),
    ('import json\nspam_precision = json.loads("0.9850746268656716")\n', True),
    ('spam_precision = float.fromhex("0x1.c28f5c28f5c29p-1")\n', True),
    ('spam_precision = precision_of("spam")\n', False),
    ('label = "spam"\nspam_precision = float(np.mean(pred == label))\n', False),
])
def test_numbers_typed_in_as_text(cell, typed):
    assert typed_in([cell], "spam_precision") is typed


def test_a_widget_that_computes_a_forbidden_curve_is_forbidden_with_it():
    """E1: ``SpamAlphaExplorer(...).curve`` holds binary_scores' precision and recall."""
    spam = expand(["binary_scores", "nbcourse.smoothing_strength.*"])
    for name in ("SpamAlphaExplorer", "spam_alpha_slider"):
        assert f"nbcourse.widgets.{name}" in spam
    assert not any(entry.startswith("nbcourse.widgets.") for entry in expand(["GaussianNB"])
                   if "Spam" in entry or "spam" in entry)

SPLIT = ("from nbcourse.evaluation import stratified_split\n"
         "tr, va, te = stratified_split(labels, sizes=(0.8, 0.1, 0.1), seed=6)\n"
         "bag = BagOfWords().fit([texts[i] for i in tr])\n"
         "nb = MultinomialNB(alpha=1.0).fit(bag.transform([texts[i] for i in tr]), labels[tr])\n"
         "pred = nb.predict(bag.transform([texts[i] for i in te]))\n"
         "truth = labels[te]\n"
         "tp = int(np.sum((pred == 'spam') & (truth == 'spam')))\n")


def test_grading_05_a_typed_count_does_not_follow_fewer_messages(tmp_path):
    probes = {
        "solution": "",
        "typed_spam_count": SPLIT + "spam_precision = tp / int(np.sum(pred == 'spam'))\n"
                                    "spam_recall = tp / 75\n",
        "typed_false_positives": SPLIT + "spam_precision = tp / (tp + 1)\n"
                                         "spam_recall = tp / int(np.sum(truth == 'spam'))\n",
        # right, reading the DataFrame itself, with its own names
        "from_the_frame": "from nbcourse.evaluation import stratified_split\n"
                          "y = sms['label'].to_numpy()\n"
                          "parts = stratified_split(y, sizes=(0.8, 0.1, 0.1), seed=6)\n"
                          "docs = sms['text'].tolist()\n"
                          "bag = BagOfWords().fit([docs[i] for i in parts[0]])\n"
                          "fit = MultinomialNB(alpha=1.0).fit(bag.transform([docs[i] for i in "
                          "parts[0]]), y[parts[0]])\n"
                          "flagged = fit.predict(bag.transform([docs[i] for i in parts[2]])) "
                          "== 'spam'\n"
                          "spam = y[parts[2]] == 'spam'\n"
                          "spam_precision = (flagged & spam).sum() / flagged.sum()\n"
                          "spam_recall = (flagged & spam).sum() / spam.sum()\n",
        # red team 7, E4: scikit-learn's accuracy through a relative import
        "relative_import": "__package__ = 'sklearn'\nfrom .metrics import *\n"
                           "def fraction_correct(y_true, y_pred):\n"
                           "    return float(accuracy_score(y_true, y_pred))\n",
        # red team 7, FF1: q5's `result` reused by a later cell for the stratified split
        "result_reused": "result = spam_experiment(texts, labels, alphas, seed=0)\n"
                         "best_alpha, test_accuracy = result\n"
                         "result = stratified_split(labels, sizes=(0.8, 0.1, 0.1), seed=6)\n",
    }
    rows, pages = grade_probes("05_spam", probes, tmp_path)
    for who in ("solution", "from_the_frame"):
        assert rows[who]["q7"]["score"] == 1 and rows[who]["q8"]["score"] == 1, who
    assert rows["relative_import"]["q2"]["score"] == 0
    assert all(rows["result_reused"][q]["score"] == rows["result_reused"][q]["points"]
               for q in ("q5", "q6"))
    assert rows["typed_spam_count"]["q7"]["score"] == 1
    assert rows["typed_spam_count"]["q8"]["score"] == 0
    assert rows["typed_false_positives"]["q7"]["score"] == 0
    assert rows["typed_false_positives"]["q8"]["score"] == 1
    page = pages["typed_spam_count"].replace("&#x60;", "`")
    assert "does not follow the messages" in page


def test_grading_07_a_typed_total_does_not_follow_other_months(tmp_path):
    probes = {
        "solution": "",
        "typed_total": "merged = merge_vocabularies(month_table(may), month_table(june))\n"
                       "lost_occurrences = 39 - int(np.sum(merged['feature_count']))\n",
    }
    rows, pages = grade_probes("07_merging", probes, tmp_path)
    assert rows["solution"]["q4"]["score"] == 1
    assert rows["typed_total"]["q4"]["score"] == 0
    page = pages["typed_total"].replace("&#x27;", "'").replace("&#x60;", "`")
    assert "does not follow your `merge_vocabularies` and the months" in page


@pytest.mark.parametrize("cell, typed", [
    ('tp, fp, fn = map(int, "66 1 9".split())\nspam_precision = tp / (tp + fp)\n', True),
    ("spam_precision = max(spam_precision, 66 / 67)\n", True),  # student 24, F2
    # F6, a short bound (``max(lost, 10)``): left to the swaps, as ``min(x, 0.5)`` is right
    ("spam_precision = max(spam_precision, 10)\n", False),
    ("spam_precision = tp / max(np.sum(flagged), 1)\n", False),
    ("spam_precision = max(0.0, tp / flagged)\n", False),
    ('words = "a b"\nspam_precision = share(words)\n', False),
    ('spam_precision = float(scores["0"])\n', False),
])
def test_typed_in_after_student_24(cell, typed):
    assert typed_in([cell], "spam_precision") is typed


@pytest.mark.parametrize("cell, found", [
    # student 23, F4: scipy.special and scipy.stats through another module's private one
    ("from scipy.integrate._tanhsinh import special as sp2\n"
     "def f(s):\n    return sp2.expit(s)\n",
     [forbidden.DYNAMIC, "scipy.integrate._tanhsinh.special.expit"]),
    ("import scipy\ndef f(s):\n    return scipy.signal._filter_design.special.expit(s)\n",
     ["scipy.signal._filter_design.special.expit"]),
    ("from sklearn.preprocessing._data import stats as st\n"
     "def f(s):\n    return st.beta(1, 2).mean()\n",
     [forbidden.DYNAMIC, "sklearn.preprocessing._data.stats.beta"]),
    # F5: scikit-learn's registry of estimators, by name
    ("from sklearn.utils import all_estimators\n"
     "def f(s):\n    return dict(all_estimators())['CategoricalNB']\n",
     [forbidden.DYNAMIC]),
    ("import numpy as np\nimport scipy.sparse as sp\n"
     "def f(s):\n    return 1 / (1 + np.exp(-np.asarray(sp.csr_matrix(s).todense())))\n", []),
])
def test_the_scan_after_student_23(cell, found):
    rule = expand(["sigmoid", "scipy.special.*", "scipy.stats.*", "sklearn.naive_bayes.*",
                   "nbcourse.linear.*"])
    assert forbidden.find([cell], "f", rule) == found


FREE = "column = list(vectorizer.get_feature_names_out()).index('free')\n"


def test_grading_04_q7_follows_the_notebook_s_model(tmp_path):
    """Student 23, F1 and F2: q7 through good_word_attack, a number typed in behind a
    default or as text, counts read off a printout: q7 now runs again with a model and
    vectorizer fitted on fewer messages, and nbcourse.adversary is forbidden."""
    probes = {
        "solution": "",
        "own_parameters": FREE + "t = model.feature_log_prob_[:, column]\n"
                                 "free_shift = float(t[1] - t[0])\n",
        "a_default": "def f(x=1.3845790948331356):\n    return x\nfree_shift = f()\n",
        "as_text": "free_shift = float('1.3845790948331356 spam'.split()[0])\n",
        "column_typed": "free_shift = float(w[140])\n",
        "attack": "from nbcourse.adversary import good_word_attack\n"
                  "x0 = X[0].toarray().ravel()\nx1 = x0.copy()\n" + FREE + "x1[column] += 1\n"
                  "free_shift = good_word_attack(model, x1, 'ham').log_odds_before - "
                  "good_word_attack(model, x0, 'ham').log_odds_before\n",
    }
    rows, _ = grade_probes("04_linearity", probes, tmp_path)
    for who in ("solution", "own_parameters"):
        assert rows[who]["q7"]["score"] == 2, (who, rows[who]["q7"])
    for who in ("a_default", "as_text", "column_typed", "attack"):
        assert rows[who]["q7"]["score"] == 0, (who, rows[who]["q7"])


def test_grading_02_03_typed_priors_and_tables(tmp_path):
    """Student 23, F3: a word-probability table typed in beside computed priors (03 q6),
    priors typed in beside computed likelihoods (02 q6)."""
    for exercise in ("02", "03"):
        (tmp_path / exercise).mkdir()
    rows03, _ = grade_probes("03_mle", {
        "solution": "",
        "as_a_frame": "import pandas as pd\n"
                      "theta = pd.DataFrame(word_probabilities(new_X, new_y))\n"
                      "p_ham_documents = {}\n"
                      "for letter, z in {'a': [1, 0, 0, 1], 'b': [0, 0, 2, 1], "
                      "'c': [0, 1, 1, 0]}.items():\n"
                      "    s = {c: priors[c] * float(np.prod(theta[c].to_numpy() ** np.asarray(z)))"
                      " for c in ('ham', 'spam')}\n"
                      "    p_ham_documents[letter] = s['ham'] / (s['ham'] + s['spam'])\n",
        "typed_table": "wp = {'spam': [0.5, 0.0, 0.375, 0.125], 'ham': [0.0, 0.6, 0.1, 0.3]}\n"
                       "p_ham_documents = {}\n"
                       "for letter, z in {'a': [1, 0, 0, 1], 'b': [0, 0, 2, 1], "
                       "'c': [0, 1, 1, 0]}.items():\n"
                       "    s = {c: priors[c] * float(np.prod(np.asarray(wp[c]) ** np.asarray(z)))"
                       " for c in ('ham', 'spam')}\n"
                       "    p_ham_documents[letter] = s['ham'] / (s['ham'] + s['spam'])\n",
    }, tmp_path / "03")
    assert rows03["solution"]["q6"]["score"] == 2 and rows03["as_a_frame"]["q6"]["score"] == 2
    assert rows03["typed_table"]["q6"]["score"] == 0
    rows02, _ = grade_probes("02_smoothing", {
        "solution": "",
        "typed_prior": "prior = {'no': Fraction(5, 14), 'yes': Fraction(9, 14)}\n"
                       "scores = {}\nfor label in prior:\n    scores[label] = prior[label]\n"
                       "    for feature, value in lesson_day.items():\n"
                       "        scores[label] *= smoothed_likelihood(weather, feature, value, "
                       "'play', label, 1)\n"
                       "smoothed_p_no = scores['no'] / sum(scores.values())\n",
    }, tmp_path / "02")
    assert rows02["solution"]["q6"]["score"] == 1
    assert rows02["typed_prior"]["q6"]["score"] == 0


def test_grading_05_and_08_after_student_24(tmp_path):
    """F7: precision as the library's accuracy over the flagged messages (05 q7); F4: 08 q2
    through a MultinomialNB fitted on the complement counts."""
    for exercise in ("05", "08"):
        (tmp_path / exercise).mkdir()
    rows05, _ = grade_probes("05_spam", {
        "library_accuracy": "from nbcourse.evaluation import accuracy\n"
                            "spam_precision = accuracy(labels[test][flagged], "
                            "np.array(['spam'] * int(flagged.sum())))\n"}, tmp_path / "05")
    assert rows05["library_accuracy"]["q7"]["score"] == 0
    rows08, _ = grade_probes("08_beyond_naive", {
        "multinomial": "from nbcourse import MultinomialNB\n"
                       "def complement_weights(feature_count, alpha):\n"
                       "    counts = np.asarray(feature_count, dtype=float)\n"
                       "    complement = counts.sum(axis=0) - counts\n"
                       "    model = MultinomialNB(alpha=alpha).fit(complement, "
                       "np.arange(len(counts)))\n"
                       "    return -model.feature_log_prob_\n"}, tmp_path / "08")
    assert rows08["multinomial"]["q2"]["score"] == 0
