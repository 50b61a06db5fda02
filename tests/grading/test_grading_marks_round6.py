"""Issue 34, red team 6 and students 21-22 (on 0008cfb): evasions of the scan, wrong answers
with full marks and right answers refused, each kept as a probe.

Red team 6: an import inside a function into a name it also assigns (E1), ``global`` in a
nested function (E2), a class body that imports the helper (E4), a star import then the name
re-bound to itself (E6), the graded name stored through ``__main__``, ``user_ns``, ``push``
or ``ex`` (E3), values typed in through ``for``, ``:=``, ``with`` or ``dict(...)`` (E5); a
comprehension variable named like an import (F3), ``nonlocal`` (F1) and keyword-only
parameters in ``spam_experiment`` (F2) cost right answers.  Student 21: a method called on a
computed value (``(a == b).mean()``) was read as a number typed in; 02 q9 and 04 q5 had no
rule; 02 q2/q3 no float prior; a typed number behind a function.  Student 22: 07 q4's swap
broke ``sum(rows, [])``.
"""
from __future__ import annotations

import pytest

from nbcourse.grading import forbidden
from nbcourse.grading.typed_in import typed_in
from test_grading_marks_probes import grade_probes
from test_grading_outside_modules import SPAM_EXPERIMENT_BODY

RULE = ["accuracy", "accuracy_score", "sklearn.metrics.*", "nbcourse.evaluation.*"]
STUB = "def fraction_correct(y_true, y_pred):\n    return 0.5\n"

SCANNED = {
    "import_into_a_local": (["def fraction_correct(y_true, y_pred):\n    acc = None\n"
                             "    from sklearn.metrics import accuracy_score as acc\n"
                             "    return float(acc(y_true, y_pred))\n"], ["accuracy_score"]),
    "global_in_a_nested_function": (["from sklearn.metrics import accuracy_score as acc\n"
                                     "def fraction_correct(y_true, y_pred):\n    acc = None\n"
                                     "    def inner():\n        global acc\n"
                                     "        return acc(y_true, y_pred)\n"
                                     "    return float(inner())\n"], ["accuracy_score"]),
    "a_class_that_imports_it": (["class Tools:\n"
                                 "    from nbcourse.evaluation import accuracy as acc\n"
                                 "def fraction_correct(y_true, y_pred):\n"
                                 "    return float(Tools.acc(y_true, y_pred))\n"], ["accuracy"]),
    "star_then_rebound": (["from sklearn.metrics import *\nget_scorer = get_scorer\n"
                           "def fraction_correct(y_true, y_pred):\n"
                           "    return get_scorer('accuracy')._score_func(y_true, y_pred)\n"],
                          ["sklearn.metrics.get_scorer"]),
    "stored_through_main": ([STUB, "import __main__\n__main__.fraction_correct = len\n"],
                            [forbidden.UNREAD]),
    "stored_in_user_ns": ([STUB, "get_ipython().user_ns['fraction_correct'] = len\n"],
                          [forbidden.UNREAD]),
    "pushed": ([STUB, "get_ipython().push({'fraction_correct': len})\n"], [forbidden.UNREAD]),
    # false flags: a comprehension's own variable, nonlocal, setattr on an object
    "comprehension_variable": (["from nbcourse.evaluation import accuracy\n"
                                "def fraction_correct(y, p):\n    scored = [(1, 0.5)]\n"
                                "    return max(accuracy for alpha, accuracy in scored)\n"], []),
    "nonlocal_elsewhere": ([STUB, "def helper():\n    fraction_correct = 1\n"
                                  "    def g():\n        nonlocal fraction_correct\n"
                                  "        fraction_correct = 2\n"], []),
    "setattr_on_an_object": ([STUB, "class O:\n    pass\n"
                                    "setattr(O(), 'fraction_correct', 1)\n"], []),
}


@pytest.mark.parametrize("name", SCANNED)
def test_the_scan_after_red_team_6(name):
    cells, found = SCANNED[name]
    assert forbidden.find(cells, "fraction_correct", RULE) == found


@pytest.mark.parametrize("cell, name, typed", [
    # a method called on a computed value: the value is data (student 21)
    ("agreement = (decide(w0, w, X) == (model.predict(X) == model.classes_[1])).mean()",
     "agreement", False),
    ("free_shift = (model.feature_log_prob_[1, j] - model.feature_log_prob_[0, j]).item()",
     "free_shift", False),
    ("post = f()\np_ham_documents = dict(zip('abc', post[:, 0].tolist()))",
     "p_ham_documents", False),
    # typed in behind a function, a for, :=, with, dict(...)
    ("def from_my_notes():\n    return 1.3845790948331356\nfree_shift = from_my_notes()",
     "free_shift", True),
    ("for spam_precision, spam_recall in [(66 / 67, 66 / 75)]:\n    pass", "spam_precision", True),
    ("(spam_precision := 66 / 67)", "spam_precision", True),
    ("import contextlib\nwith contextlib.nullcontext(66 / 67) as spam_precision:\n    pass",
     "spam_precision", True),
    ("counts = dict(tp=66, flagged=67)\nspam_precision = counts['tp'] / counts['flagged']",
     "spam_precision", True),
    ("for spam_precision in computed():\n    pass", "spam_precision", False),
])
def test_typed_in_after_red_team_6(cell, name, typed):
    assert typed_in([cell], name) is typed


SPAM_EXPERIMENT = ("def spam_experiment(texts, labels, alphas, seed=0, *, verbose=False):"
                   + SPAM_EXPERIMENT_BODY)


def test_grading_05_keyword_only_parameters_and_a_method_on_a_value(tmp_path):
    probes = {
        # red team 6, F2: a keyword-only parameter and the seed left to its default
        "keyword_only": SPAM_EXPERIMENT + "best_alpha, test_accuracy = "
                                          "spam_experiment(texts, labels, alphas)\n",
        # red team 6, E7: a cell that types its values in unless it sees a probe
        "probe_aware": "if hasattr(spam_experiment, '__wrapped__'):\n"
                       "    result = spam_experiment(texts, labels, alphas, seed=0)\n"
                       "else:\n    result = (0.3, 61 / 62)\n"
                       "best_alpha, test_accuracy = result\n",
    }
    rows, _ = grade_probes("05_spam", probes, tmp_path)
    for question in ("q4", "q5", "q6"):
        assert rows["keyword_only"][question]["score"] == rows["keyword_only"][question]["points"]
    assert rows["probe_aware"]["q5"]["score"] == 0 and rows["probe_aware"]["q6"]["score"] == 0


#: student 21: the best line found by a fitted logistic regression's predict (right with C=100)
LOGISTIC_SWITCHES = '''from nbcourse.linear import LogisticRegression
rows, ys = [], []
for cell, (n0, n1) in switch_counts.items():
    rows += [cell] * (n0 + n1)
    ys += [0] * n0 + [1] * n1
rows, ys = np.array(rows, dtype=float), np.array(ys)
majority = max(np.mean(ys), 1 - np.mean(ys))
best_any = sum(max(v) for v in switch_counts.values()) / len(ys)
best_linear = float(np.mean(LogisticRegression(C=100.0).fit(rows, ys).predict(rows) == ys))
switch_accuracies = {"majority": float(majority), "best_linear": best_linear,
                     "best_any": float(best_any)}
'''


def test_grading_04_a_mean_taken_as_a_method_keeps_its_point(tmp_path):
    probes = {"method": "agreement = (decide(w0, w, X) == "
                        "(model.predict(X) == model.classes_[1])).mean()\n",
              "behind_a_function": "def from_my_notes():\n    return 1.3845790948331356\n"
                                   "free_shift = from_my_notes()\n",
              "logistic_regression": LOGISTIC_SWITCHES}
    rows, _ = grade_probes("04_linearity", probes, tmp_path)
    assert rows["logistic_regression"]["q5"]["status"] == "passed"  # right, but flagged
    assert rows["method"]["q4"]["score"] == 1
    assert rows["behind_a_function"]["q7"]["score"] == 0
    assert rows["logistic_regression"]["q5"]["score"] == 0


def test_grading_01_to_03_after_student_21(tmp_path):
    """02 q9 with the library's beta_mode, 02 q2 with Fraction(x, y) (floats are allowed),
    03 q1 through the library's log-loss, 01 q4 as the first score over the sum."""
    for exercise in ("01", "02", "03"):
        (tmp_path / exercise).mkdir()
    rows01, _ = grade_probes("01_weather", {
        "first_over_sum": "s = joint_scores(weather, lesson_day, 'play')\n"
                          "p_no = list(s.values())[0] / sum(s.values())\n"}, tmp_path / "01")
    assert rows01["first_over_sum"]["q4"]["score"] == 0
    rows02, _ = grade_probes("02_smoothing", {
        "beta_mode": "from nbcourse.smoothing import beta_mode, beta_posterior\n"
                     "map_edge = {k: beta_mode(*beta_posterior(*c), exact=True)\n"
                     "            for k, c in {'a': (Fraction(1, 2), Fraction(1, 2), 0, 3),\n"
                     "                         'b': (Fraction(1, 2), Fraction(1, 2), 1, 4),\n"
                     "                         'c': (2, Fraction(1, 2), 3, 0),\n"
                     "                         'd': (Fraction(1, 2), 2, 2, 3)}.items()}\n",
        "fraction_of_two": "def map_estimate(a, b, heads, tails):\n"
                           "    a2, b2 = posterior_parameters(a, b, heads, tails)\n"
                           "    return Fraction(a2 - 1, a2 + b2 - 2)\n"}, tmp_path / "02")
    assert rows02["beta_mode"]["q9"]["score"] == 0
    assert 0 < rows02["fraction_of_two"]["q2"]["score"] < rows02["fraction_of_two"]["q2"]["points"]
    rows03, _ = grade_probes("03_mle", {
        "log_loss": "from nbcourse.evaluation import log_loss\n"
                    "def log_likelihood(counts, theta):\n"
                    "    counts = [int(n) for n in counts]\n"
                    "    y = [j for j, n in enumerate(counts) for _ in range(n)]\n"
                    "    if not y:\n        return 0.0\n"
                    "    return float(-len(y) * log_loss(y, np.tile(np.asarray(theta, float), "
                    "(len(y), 1)), list(range(len(counts)))))\n"}, tmp_path / "03")
    assert rows03["log_loss"]["q1"]["score"] == 0


def test_a_cell_that_raises_in_a_swap_is_told_so(tmp_path):
    """Student 22: a cell that raised when run again with another merge was told "your
    cell still gives the same number"; it is told it raised (fixed text), and still fails.
    (The swap's merge has no "win" in the other months: ``.index('win')`` raises.)"""
    probes = {"astype": "merged = merge_vocabularies(*[{'classes': ['all'], "
                        "'class_count': [len(m)], 'words': sorted(set(' '.join(m).split())), "
                        "'feature_count': [[1] * len(set(' '.join(m).split()))]} "
                        "for m in (may, june)])\n"
                        "lost_occurrences = merged['words'].index('win') * 0 + 10\n"}
    rows, pages = grade_probes("07_merging", probes, tmp_path)
    page = pages["astype"].replace("&#x27;", "'").replace("&#x60;", "`")
    assert rows["astype"]["q4"]["score"] == 0
    assert "raised an error there" in page and "still gives the same" not in page
