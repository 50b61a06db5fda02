"""Issue 34, red team 5 (on the scan of forbidden helpers, after scikit-learn's modules were
forbidden whole): evasions that kept full marks, and right answers it flagged.

- F11/F10: the graded name bound by an import (``from sklearn.metrics import accuracy_score
  as fraction_correct``), by literal code given to ``exec``, by a store into ``globals()`` or
  by ``global`` in a function was never read (the stub's ``def`` was): such an answer is now
  flagged as ``UNREAD`` (or as the forbidden object it was imported as).
- F1/F2/F7: a comprehension, nested function or class binding the name hid the import; after
  ``from sklearn.metrics import *`` a binding anywhere in the notebook did.
- F6: scikit-learn's scorers re-exported by its other modules (05 now forbids ``sklearn.*``).
- F4/F5/F8: library modules imported as names (``nbcourse.plotting.beta._smoothing``), the
  models' private helpers (03, 04 and 06 forbid ``nbcourse.naive_bayes.*`` where no model is
  asked for).
- F15/F16: ``sys.modules`` under another name, logging's resolver of dotted names.
- F17: ``sum(1 for _ in range(66)) / 67`` is a number typed in.
- F3/F9 (false flags): a function's own variable or parameter named like an import (``beta``
  beside ``from scipy.stats import beta``).
"""
from __future__ import annotations

import pytest

from nbcourse.grading import check_for, forbidden, library_names
from nbcourse.grading.typed_in import typed_in
from test_grading_marks_probes import grade_probes

RULE = ["accuracy_score", "sklearn.metrics.*"]

SCANNED = {
    # the graded name itself bound where no def or assignment is
    "imported_as_the_answer": ("from sklearn.metrics import accuracy_score as fraction_correct\n",
                               ["sklearn.metrics.accuracy_score"]),
    "made_by_exec": ("exec('from sklearn.metrics import accuracy_score as fraction_correct')\n",
                     [forbidden.UNREAD]),
    "global_in_a_function": ("from sklearn.metrics import accuracy_score\n"
                             "def setup():\n    global fraction_correct\n"
                             "    def fraction_correct(y, p):\n"
                             "        return float(accuracy_score(y, p))\nsetup()\n",
                             [forbidden.UNREAD]),
    "never_written": ("x = 1\n", []),
    # after the stub's def, which is what the scan used to read
    "imported_over_the_stub": ("def fraction_correct(y_true, y_pred):\n"
                               "    raise NotImplementedError()\n"
                               "from sklearn.metrics import accuracy_score as fraction_correct\n",
                               ["sklearn.metrics.accuracy_score"]),
    "bound_by_exec_over_the_stub": ("def fraction_correct(y_true, y_pred):\n"
                                    "    return 0.5\n"
                                    "CODE = 'fraction_correct = len'\nexec(CODE)\n",
                                    [forbidden.UNREAD]),
    "updated_into_globals": ("def fraction_correct(y_true, y_pred):\n    return 0.5\n"
                             "globals().update(fraction_correct=len)\n", [forbidden.UNREAD]),
    # code built at run time is not read (the module's docstring says so), and a name
    # written in a string is no binding
    "a_name_in_a_message": ("def fraction_correct(y, p):\n"
                            "    return sum(a == b for a, b in zip(y, p)) / len(y)\n"
                            "print('fraction_correct is done')\n", []),
    "stored_into_globals": ("def fraction_correct(y_true, y_pred):\n    return 0.5\n"
                            "globals()['fraction_correct'] = len\n", [forbidden.UNREAD]),
    # re.compile is no exec
    "a_regular_expression": ("import re\nWORD = re.compile('[a-z]+')\n"
                             "def fraction_correct(y, p):\n"
                             "    return sum(a == b for a, b in zip(y, p)) / len(y)\n", []),
    # sys.modules under another name; logging's resolver
    "sys_renamed": ("import sys as s\ndef fraction_correct(y, p):\n"
                    "    return s.modules['sklearn.metrics'].jaccard_score(y, p)\n",
                    [forbidden.DYNAMIC]),
    "modules_imported": ("from sys import modules as m\ndef fraction_correct(y, p):\n"
                         "    return m['sklearn.metrics'].jaccard_score(y, p)\n",
                         [forbidden.DYNAMIC]),
    "resolver": ("from logging.config import BaseConfigurator\ndef fraction_correct(y, p):\n"
                 "    f = BaseConfigurator({}).resolve('sklearn.metrics.accuracy_score')\n"
                 "    return f(y, p)\n", [forbidden.DYNAMIC]),
    # a star import: a comprehension's variable, or a parameter elsewhere, hides nothing
    "star_and_a_comprehension": ("from sklearn.metrics import *\ndef fraction_correct(y, p):\n"
                                 "    [accuracy_score for accuracy_score in ()]\n"
                                 "    return float(accuracy_score(y, p))\n",
                                 ["accuracy_score"]),
    "star_and_a_parameter_elsewhere": ("from sklearn.metrics import *\n"
                                       "def unrelated(mean_absolute_error=None):\n"
                                       "    return mean_absolute_error\n"
                                       "def fraction_correct(y, p):\n"
                                       "    return 1 - mean_absolute_error(y, p)\n",
                                       ["sklearn.metrics.mean_absolute_error"]),
    "star_unused": ("from sklearn.metrics import *\nimport numpy as np\n"
                    "def fraction_correct(y, p):\n    same = [a == b for a, b in zip(y, p)]\n"
                    "    return sum(same) / len(same)\n", []),
    # a parameter shadows an import; one whose default is the import does not
    "parameter_named_like_the_import": ("from sklearn.metrics import accuracy_score as acc\n"
                                        "def fraction_correct(y, p, acc=None):\n"
                                        "    return sum(a == b for a, b in zip(y, p)) / len(y)\n",
                                        []),
    "parameter_defaulting_to_the_import": ("from sklearn.metrics import accuracy_score as acc\n"
                                           "def fraction_correct(y, p, acc=acc):\n"
                                           "    return acc(y, p)\n", ["accuracy_score"]),
}


@pytest.mark.parametrize("name", SCANNED)
def test_the_scan_reads_how_the_answer_is_bound_and_in_which_scope(name):
    source, found = SCANNED[name]
    assert forbidden.find([source], "fraction_correct", RULE) == found


def test_a_module_the_library_imports_as_a_name_is_expanded_there_too():
    expanded = library_names.expand(["nbcourse.smoothing.*", "nbcourse.mle.*"])
    assert "nbcourse.plotting.beta._smoothing.mle_bernoulli" in expanded
    assert "nbcourse.plotting.likelihood.mle.multinomial_mle" in expanded


@pytest.mark.parametrize("cell, typed", [
    ("spam_precision = sum(1 for _ in range(66)) / 67", True),
    ("spam_precision = len([x for x in range(66)]) / 67", True),
    ("spam_precision = sum(1 for t, p in zip(a, b) if t == p) / len(a)", False),
])
def test_a_count_made_from_numbers_alone_is_typed_in(cell, typed):
    assert typed_in([cell], "spam_precision") is typed


def test_grading_05_reads_the_answers_binding_and_any_scikit_learn_module(tmp_path):
    probes = {
        "imported": "from sklearn.metrics import accuracy_score as fraction_correct\n",
        "global": "from sklearn.metrics import accuracy_score as _acc\n"
                  "def _setup():\n    global fraction_correct\n"
                  "    def fraction_correct(y_true, y_pred):\n"
                  "        return float(_acc(list(y_true), list(y_pred)))\n_setup()\n",
        "re_exported": "from sklearn.linear_model._logistic import get_scorer\n"
                       "def fraction_correct(y_true, y_pred):\n"
                       "    return float(get_scorer('accuracy')._score_func(list(y_true), "
                       "list(y_pred)))\n",
        "counted_from_numbers": "spam_precision = sum(1 for _ in range(66)) / 67\n",
    }
    rows, pages = grade_probes("05_spam", probes, tmp_path)
    for who in ("imported", "global", "re_exported"):
        assert rows[who]["q2"]["score"] == 0, (who, rows[who]["q2"])
    assert forbidden.UNREAD in pages["global"].replace("&#x27;", "'")
    assert rows["counted_from_numbers"]["q7"]["score"] == 0


def test_grading_02_flags_the_plots_smoothing_and_not_a_variable_named_beta(tmp_path):
    probes = {
        "plots_smoothing": "from nbcourse.plotting.beta import _smoothing\n"
                           "def map_estimate(a, b, heads, tails):\n"
                           "    return _smoothing.mle_bernoulli(a - 1 + heads, b - 1 + tails)\n",
        # scipy's beta imported for a plot; the answer's own variables are named beta
        "variable_named_beta": "def plot_density():\n    from scipy.stats import beta\n"
                               "    return beta(2, 3).pdf(0.5)\n"
                               "def map_estimate(a, b, heads, tails):\n"
                               "    alpha, beta = a + heads, b + tails\n"
                               "    return Fraction(alpha - 1) / (alpha + beta - 2)\n",
    }
    rows, _ = grade_probes("02_smoothing", probes, tmp_path)
    assert rows["plots_smoothing"]["q2"]["score"] == 0
    assert rows["variable_named_beta"]["q2"]["score"] == rows["variable_named_beta"]["q2"]["points"]


def test_check_warns_about_an_answer_it_cannot_read():
    """check() runs the same scan: an answer made by ``exec`` is told before hand-in."""
    namespace = {}
    exec("def fraction_correct(y_true, y_pred):\n"  # noqa: S102 - the test's own code
         "    return sum(a == b for a, b in zip(y_true, y_pred)) / len(y_true)\n", namespace)
    cells = ["exec(\"def fraction_correct(y_true, y_pred): ...\")"]
    report = check_for("05_spam").run("q2", namespace["fraction_correct"], sources=cells)
    assert forbidden.UNREAD in str(report), str(report)
