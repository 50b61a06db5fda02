"""Issue 34, round 8 (on 70db31a): red team 8, students 25 and 26.

Right answers refused: a self-test ``assert`` beside a swapped function (student 25, F4),
a later cell that re-binds a name the value's cell reads (F2), a loop or assignment of the
value's own cell named like an earlier cell's variable (F1, F3), an extra optional
parameter of the student's function (student 26, F1/F2), ``heapq.merge`` read as the
library's ``merge`` (F3), a continuation line starting with ``%`` (red team 8, FF3: in
``test_grading_cells``), a method called on a variable, a ``global`` counter, a division
guard or a NaN read as typed in (FF1, FF2, FF4, FF6), an array idiom the 07 swap's counts
did not answer (FF5).  Evasions: a dict filled under another name or by a function
(student 25, F5), an import in the answer under a name the notebook defines (E6), a
``global`` placeholder (E7), more resolvers (E1, E3, E8), a library module kept in a list
or matched (E2, E9).
"""
from __future__ import annotations

import importlib.util

import pytest

from nbcourse.grading import forbidden
from nbcourse.grading.execution import follow_through as replay
from nbcourse.grading.library_names import expand
from nbcourse.grading.typed_in import typed_in
from submission_support import solved, with_cell
from test_grading_marks_probes import SOURCE, grade_notebooks, grade_probes
from test_grading_outside_modules import SPAM_EXPERIMENT_BODY

RULE = expand(["accuracy", "accuracy_score", "sklearn.metrics.*", "nbcourse.evaluation.*",
               "nbcourse.smoothing_strength.*"])
DYNAMIC = [forbidden.DYNAMIC]

SCANNED = {
    "import_under_a_defined_name": (["def measure(y, p):\n    return 0\n"
                                     "def fraction_correct(y, p):\n"
                                     "    from sklearn.metrics import accuracy_score as measure\n"
                                     "    return measure(y, p)\n"], ["accuracy_score"]),
    "global_placeholder": (["measure = None\ndef setup():\n    global measure\n"
                            "    from sklearn.metrics import accuracy_score as measure\n"
                            "setup()\n", "def fraction_correct(y, p):\n    return measure(y, p)\n"],
                           ["accuracy_score"]),
    "import_item": (["from traitlets.utils.importstring import import_item\n"
                     "def fraction_correct(y, p):\n"
                     "    return import_item('sklearn.metrics.accuracy_score')(y, p)\n"], DYNAMIC),
    "compiled_code": (["import types\ndef fraction_correct(y, p):\n"
                       "    f = types.FunctionType(compile('lambda y, p: 1', '', 'eval')"
                       ".co_consts[0], {})\n    return f(y, p)\n"], DYNAMIC),
    "a_magic_found_and_called": (["def fraction_correct(y, p):\n"
                                  "    get_ipython().find_line_magic('time')('import x')\n"
                                  "    return 1.0\n"], DYNAMIC),
    "a_module_in_a_list": (["from nbcourse import smoothing_strength\n"
                            "def fraction_correct(y, p):\n"
                            "    return [smoothing_strength][0].total_cost(y, p)\n"], DYNAMIC),
    "a_positional_match": (["from nbcourse import evaluation\n"
                            "class C:\n    __match_args__ = ('accuracy',)\n"
                            "def fraction_correct(y, p):\n    match evaluation:\n"
                            "        case C(m):\n            return m(y, p)\n"], DYNAMIC),
    # honest: a regular expression, an attribute of a module the rule allows
    "a_regular_expression": (["import re\ndef fraction_correct(y, p):\n"
                              "    re.compile('a')\n"
                              "    return sum(a == b for a, b in zip(y, p)) / len(y)\n"], []),
}


@pytest.mark.parametrize("name", SCANNED)
def test_the_scan_after_red_team_8(name):
    cells, found = SCANNED[name]
    assert forbidden.find(cells, "fraction_correct", RULE) == found


SMOOTHING = expand(["beta_mode", "nbcourse.smoothing.*"])
IMPORT = "from nbcourse.smoothing import beta_mode\n"


@pytest.mark.parametrize("cells, found", [
    # student 25, F5: the dict filled under another name, or by a function
    ([IMPORT, "map_edge = {}\nestimates = map_edge\nfor coin in 'ab':\n"
              "    estimates[coin] = beta_mode(1, 2)\n"], ["beta_mode"]),
    ([IMPORT + "map_edge = estimates = {}\nestimates['a'] = beta_mode(1, 2)\n"], ["beta_mode"]),
    ([IMPORT + "def record(target, coin, a, b):\n    target[coin] = beta_mode(a, b)\n"
               "map_edge = {}\nrecord(map_edge, 'a', 1, 2)\n"], ["beta_mode"]),
    # a function that only reads it, to compare with the library, does not fill it
    ([IMPORT + "def compare(d):\n    return beta_mode(1, 2) - d['a']\n"
               "map_edge = {'a': 0.0}\ncompare(map_edge)\n"], []),
])
def test_a_dict_filled_another_way_is_read(cells, found):
    assert forbidden.find(cells, "map_edge", SMOOTHING) == found


MODELS = expand(["nbcourse.naive_bayes.*", "predict"])
MODEL_CELL = ("from nbcourse import MultinomialNB\nmodel = MultinomialNB().fit(X, y)\n"
              "w0, w = linear_weights(model.class_log_prior_, model.feature_log_prob_)\n"
              "for i, label in enumerate(model.predict(X)):\n    pass\n")


@pytest.mark.parametrize("cell, name, found", [
    # student 25, F1: a loop over candidate biases named like the model's w0
    ("best = 0\nfor w0 in grid:\n    best = max(best, score(w0))\n"
     "switch_accuracies = {'best': best}\n", "switch_accuracies", []),
    # F3: ``i`` bound in the cell before it is read
    ("i = names.index('free')\nfree_shift = float(shifts[i])\n", "free_shift", []),
    # read before the cell binds it, it is still the earlier cell's
    ("free_shift = float(w0)\nw0 = 1\n", "free_shift", ["nbcourse.MultinomialNB"]),
    # a loop that may not run a round leaves the earlier value
    ("for w0 in []:\n    pass\nswitch_accuracies = {'best': w0}\n", "switch_accuracies",
     ["nbcourse.MultinomialNB"]),
])
def test_a_name_the_value_s_cell_binds_first_is_its_own(cell, name, found):
    assert forbidden.find([MODEL_CELL, cell], name, MODELS) == found


@pytest.mark.parametrize("cell, typed", [
    ("hits = a & b\nflagged = f\nspam_precision = hits.sum() / max(flagged.sum(), 1)\n", False),
    ("full = dict(x)\nspam_precision = sum(n for w, n in full.items())\n", False),
    ("tp = fp = 0\ndef count():\n    global tp, fp\n    tp += 1\ncount()\n"
     "spam_precision = tp / (tp + fp)\n", False),
    ("spam_precision = tp / max(den, 1e-12)\n", False),
    ("spam_precision = tp / den if den else float('nan')\n", False),
    ("import numpy as np\nspam_precision = np.float64(66) / np.float64(67)\n", True),
])
def test_typed_in_after_red_team_8(cell, typed):
    assert typed_in([cell], "spam_precision") is typed


def test_a_replay_leaves_out_asserts_and_the_cells_that_define_what_it_replaces():
    cells = [("code", "def joint_scores(t, q, c):\n    return {'no': 1, 'yes': 3}\n"
                      "assert joint_scores(0, 0, 0)['no'] == 1\n"),
             ("code", "s = joint_scores(0, 0, 0)\np_no = s['no'] / sum(s.values())\n"
                      "assert abs(p_no - 0.25) < 1e-9\n")]
    source = replay.replay_source(cells, "p_no", ["joint_scores"])
    assert "assert" not in source and "def joint_scores" not in source
    assert source.count("\n") == 2  # only the value's cell, its assert made ``pass``


def test_a_replay_runs_again_what_a_later_cell_re_bound():
    cells = [("code", "X = load()\n"), ("code", "agreement = mean(decide(X))\n"),
             ("code", "X = [[0, 1], [1, 0]]\n")]
    assert replay.replay_source(cells, "agreement", ["decide"]).startswith("X = load()")


def test_the_07_swap_counts_answer_an_array_s_idioms():
    spec = importlib.util.spec_from_file_location("spec07", SOURCE / "07_merging.grading.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    scope: dict = {}
    exec(module.COMMON_WORDS_MERGE, scope)  # noqa: S102 - the spec's own source
    counts = scope["Counts"]([[1, 2], [3, 4]])
    assert counts.ravel().tolist() == [1, 2, 3, 4] and counts.T.tolist() == [[1, 3], [2, 4]]
    assert sum(counts, []) == [1, 2, 3, 4] and counts[0, 1] == 2 == counts[0][1]


def test_heapq_merge_is_not_the_library_s_merge():
    spec = importlib.util.spec_from_file_location("spec07", SOURCE / "07_merging.grading.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rule = expand(module.MERGE_NAMES)
    assert forbidden.find(["import heapq\ndef f(a, b):\n    return list(heapq.merge(a, b))\n"],
                          "f", rule) == []
    assert forbidden.find(["import nbcourse.naive_bayes as nb\ndef f(a, b):\n"
                           "    return nb.merge(a, b)\n"], "f", rule) == ["nbcourse.naive_bayes.merge"]


def test_grading_a_self_test_and_a_later_re_binding_keep_their_points(tmp_path):
    """Student 25, F4 and F2: 01's joint_scores with its own assert in its cell; 04's X
    re-bound by a later cell (the switch table)."""
    for exercise in ("01", "04"):
        (tmp_path / exercise).mkdir()
    notebook = with_cell(solved("01_weather"), "self-test",
                         "def joint_scores(table, query, target):\n"
                         "    scores = {}\n    for label in table[target].unique():\n"
                         "        score = Fraction(int((table[target] == label).sum()), "
                         "len(table))\n"
                         "        for feature, value in query.items():\n"
                         "            score *= likelihood(table, feature, value, target, label)\n"
                         "        scores[label] = score\n    return scores\n"
                         "assert float(joint_scores(weather, lesson_day, 'play')['no']) > 0.02\n")
    notebook = with_cell(notebook, "value", "s = joint_scores(weather, lesson_day, 'play')\n"
                                            "p_no = s['no'] / sum(s.values())\n"
                                            "assert 0.79 < p_no < 0.8\n")
    rows01, _ = grade_notebooks("01_weather", {"self_test": notebook}, tmp_path / "01")
    assert rows01["self_test"]["q4"]["score"] == rows01["self_test"]["q4"]["points"]
    rows04, _ = grade_probes("04_linearity", {"later_x": "X = np.array([[0, 0], [0, 1]])\n"},
                             tmp_path / "04")
    assert rows04["later_x"]["q4"]["score"] == 1


def test_grading_05_an_extra_parameter_of_the_recipe_keeps_its_points(tmp_path):
    """Student 26, F1: ``verbose=False`` after the four parameters, passed as True."""
    probes = {"verbose": "def spam_experiment(texts, labels, alphas, seed, verbose=False):"
                         + SPAM_EXPERIMENT_BODY
                         + "best_alpha, test_accuracy = spam_experiment(texts, labels, alphas, "
                           "0, verbose=True)\n"}
    rows, _ = grade_probes("05_spam", probes, tmp_path)
    for question in ("q4", "q5", "q6"):
        assert rows["verbose"][question]["score"] == rows["verbose"][question]["points"], question
