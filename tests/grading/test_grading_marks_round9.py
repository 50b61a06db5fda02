"""Issue 34, round 9 (on 1efefc9): red team 9, students 27 and 28.

Evasions closed: a function's ``__code__`` replaced (E1), a helper stored through a
function's parameter, ``operator.setitem``, ``__iadd__``, ``map(box.append, ...)`` (E2),
bound by ``except ... as``, a ``match`` capture or ``builtins.name = ...`` (E3), read from
IPython's output history (E4), a module put into ``sys.modules`` (E5); the library's plots
that compute a forbidden function through a module alias (student 27, F3).  Right answers
no longer refused: an annotation without a value crashed the scan (FF2), a field of the
student's own record named like a forbidden function (FF1), 07 q4's swap on a
``numpy.matrix`` row, 05 q7/q8 reading a column an earlier cell added to ``sms`` (student
28).  04 q4 is compared with the model's predict (student 27, F1: the linear score again
had full marks).
"""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from nbcourse.grading import forbidden
from nbcourse.grading.execution import follow_through as replay
from nbcourse.grading.library_names import expand
from test_grading_marks_probes import SOURCE, grade_probes

RULE = expand(["accuracy", "accuracy_score", "sklearn.metrics.*", "nbcourse.evaluation.*",
               "score"])
DYNAMIC = [forbidden.DYNAMIC]
ANSWER = "def fraction_correct(y, p):\n    return box[0](y, p)\n"
MEASURE = "def fraction_correct(y, p):\n    return measure(y, p)\n"
IMPORT = "from sklearn.metrics import accuracy_score\n"

SCANNED = {
    "code_swapped": (["def fraction_correct(y, p):\n    return 0.5\n",
                      "def _mine(y, p):\n    return 1.0\ntools = [fraction_correct]\n"
                      "tools[0].__code__ = _mine.__code__\n"], [forbidden.UNREAD]),
    "stored_by_a_function": ([IMPORT + "box = []\ndef keep(b, f):\n    b.append(f)\n"
                              "keep(box, accuracy_score)\n", ANSWER], ["accuracy_score"]),
    "setitem": ([IMPORT + "import operator\nbox = [None]\n"
                 "operator.setitem(box, 0, accuracy_score)\n", ANSWER], ["accuracy_score"]),
    "iadd": ([IMPORT + "box = []\nbox.__iadd__([accuracy_score])\n", ANSWER],
             ["accuracy_score"]),
    "map_append": ([IMPORT + "box = []\nlist(map(box.append, [accuracy_score]))\n", ANSWER],
                   ["accuracy_score"]),
    "except_as": ([IMPORT + "try:\n    raise LookupError(accuracy_score)\n"
                   "except LookupError as caught:\n    measure = caught.args[0]\n", MEASURE],
                  DYNAMIC),
    "match_capture": ([IMPORT + "match [accuracy_score]:\n    case [measure]:\n        pass\n",
                       MEASURE], ["accuracy_score"]),
    "builtins": ([IMPORT + "import builtins\nbuiltins.measure = accuracy_score\n", MEASURE],
                 ["accuracy_score"]),
    "output_history": ([IMPORT + "accuracy_score\n", "measure = _\n", MEASURE], DYNAMIC),
    "out": (["measure = Out[max(Out)]\n", MEASURE], DYNAMIC),
    "sys_modules": (["import sys\nimport sklearn.metrics\n"
                     "sys.modules['mymetrics'] = sklearn.metrics\n",
                     "def fraction_correct(y, p):\n    import mymetrics\n"
                     "    return mymetrics.accuracy_score(y, p)\n"],
                    [forbidden.DYNAMIC, "accuracy_score"]),
    # honest: the student's own record's fields, an annotation, an exception in the answer
    "own_fields": (["from collections import namedtuple\nfrom dataclasses import dataclass\n"
                    "Trial = namedtuple('Trial', ['alpha', 'accuracy'])\n"
                    "@dataclass\nclass T:\n    alpha: float = 0\n    score: float = 0\n"
                    "x: int\n",
                    "def fraction_correct(y, p):\n"
                    "    best = max([Trial(1, 0.5)], key=lambda t: t.accuracy)\n"
                    "    return max([T()], key=lambda t: t.score).score + best.accuracy\n"], []),
    "own_field_but_a_model_s_score_called": (["from dataclasses import dataclass\n@dataclass\n"
                                              "class T:\n    score: float = 0\n",
                                              "def fraction_correct(y, p):\n"
                                              "    return model.score(y, p)\n"], ["score"]),
    "except_in_the_answer": (["def fraction_correct(y, p):\n    try:\n"
                              "        return sum(a == b for a, b in zip(y, p)) / len(y)\n"
                              "    except ZeroDivisionError as error:\n        return 0.0\n"], []),
}


@pytest.mark.parametrize("name", SCANNED)
def test_the_scan_after_red_team_9(name):
    cells, found = SCANNED[name]
    assert forbidden.find(cells, "fraction_correct", RULE) == found


def test_an_annotation_without_a_value_does_not_stop_the_scan():
    plan = {"questions": [{"question": "q1", "name": "f", "kind": "function",
                           "forbidden": ["accuracy"]}]}
    assert forbidden.flagged_answers(["x: int\nclass P:\n    a: float\n",
                                      "def f():\n    y: int\n    return 1\n"], plan) == {}


def test_a_library_plot_that_computes_a_forbidden_function_is_forbidden_with_it():
    """Student 27, F3: ``BetaUpdatePlot`` calls ``_smoothing.beta_summary`` (a module alias)."""
    smoothing = expand(["beta_summary", "nbcourse.smoothing.*"])
    assert {"nbcourse.plotting.BetaUpdatePlot", "nbcourse.plotting.plot_beta_update"} \
        <= set(smoothing)


def _spec07():
    spec = importlib.util.spec_from_file_location("spec07", SOURCE / "07_merging.grading.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_07_an_empty_shard_changes_nothing_whatever_it_holds():
    module = _spec07()
    kept = (25, [1.5, -2.0], [0.25, 4.0])
    assert module.ref_merge_gaussian((0, [np.nan, np.nan], [np.nan, np.nan]), kept) == \
        [25, [1.5, -2.0], [0.25, 4.0]]
    assert module.ref_merge_gaussian((40, [2.0, 3.0], [1.0, 0.5]),
                                     (0, [1e20, 3.0], [1.0, 1.0]))[1] == [2.0, 3.0]


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix, as a student has
def test_07_the_swap_merge_reads_a_numpy_matrix_row():
    scope: dict = {}
    exec(_spec07().COMMON_WORDS_MERGE, scope)  # noqa: S102 - the spec's own source
    merged = scope["merge_vocabularies"](
        {"classes": ["all"], "class_count": [2], "words": ["a", "b", "c"],
         "feature_count": np.matrix([[1, 2, 3]])},
        {"classes": ["all"], "class_count": [2], "words": ["a", "c"], "feature_count": [[5, 6]]})
    assert merged["feature_count"].tolist() == [[6, 9]]


def test_a_replay_stores_again_into_a_value_put_in_place():
    """Student 28: an earlier cell added a column to ``sms``; the swap's ``sms`` is new."""
    cells = [("code", "sms = load()\n"), ("code", "sms['is_spam'] = sms['label'] == 'spam'\n"),
             ("code", "spam_recall = share(sms['is_spam'])\n")]
    source = replay.replay_source(cells, "spam_recall", ["sms"])
    assert source.startswith("sms['is_spam'] = ") and "sms = load()" not in source


def test_grading_04_q4_compares_with_the_model_s_predict(tmp_path):
    """Student 27, F1: decide compared with the linear score again was 1.0 through every
    swap; the third swap's model predicts otherwise on some messages."""
    probes = {"solution": "",
              "the_score_again": "agreement = float(np.mean(decide(w0, w, X) == "
                                 "(w0 + np.asarray(X @ w).ravel() > 0)))\n",
              "one_message_at_a_time": "agreement = float(np.mean([decide(w0, w, X[i])[0] == "
                                       "(model.predict(X[i])[0] == model.classes_[1]) "
                                       "for i in range(X.shape[0])]))\n"}
    rows, pages = grade_probes("04_linearity", probes, tmp_path)
    assert rows["solution"]["q4"]["score"] == 1
    assert rows["one_message_at_a_time"]["q4"]["score"] == 1
    assert rows["the_score_again"]["q4"]["score"] == 0
    assert "does not follow the model&#x27;s predict" in pages["the_score_again"] or \
        "does not follow the model's predict" in pages["the_score_again"]


def test_round_10_rule_gaps():
    """Student 30: BagOfWords' private column move in 07 q3, ``multinomial_mle(row +
    alpha)`` (lidstone) in 08 q2."""
    rule07 = expand(_spec07().MERGE_NAMES)
    assert forbidden.find(["from nbcourse.text import _renumbered\ndef f(a, b):\n"
                           "    return _renumbered(a, b, 3)\n"], "f", rule07) == \
        ["nbcourse.text._renumbered"]
    spec = importlib.util.spec_from_file_location("spec08", SOURCE / "08_beyond_naive.grading.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert forbidden.find(["from nbcourse.mle import multinomial_mle\ndef f(c, alpha):\n"
                           "    return multinomial_mle(c + alpha)\n"], "f",
                          expand(module.COMPLEMENT_NAMES)) == ["nbcourse.mle.multinomial_mle"]


def test_grading_02_q6_the_winning_class_s_posterior_is_not_p_no(tmp_path):
    """Student 29: ``max(joint.values()) / sum`` is P(no) only while "no" wins."""
    probes = {"winner": "joint = {}\nfor y in ('no', 'yes'):\n"
                        "    joint[y] = Fraction(int((weather['play'] == y).sum()), "
                        "len(weather))\n"
                        "    for feature in lesson_day:\n"
                        "        joint[y] = joint[y] * smoothed_likelihood(weather, feature, "
                        "lesson_day[feature], 'play', y, 1)\n"
                        "smoothed_p_no = max(joint.values()) / (joint['no'] + joint['yes'])\n"}
    rows, _ = grade_probes("02_smoothing", probes, tmp_path)
    assert rows["winner"]["q6"]["score"] == 0

