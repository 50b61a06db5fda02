"""Issue 34, after student 18: a forbidden list of scikit-learn's names can never be complete
(student 18 found seven it did not say), so a spec can forbid another package's module whole
(``"sklearn.metrics.*"``, ``"scipy.stats.*"``): anything reached through an import from it
counts, under any name, and the grader never imports it (``forbidden``, ``library_names``).
"""
from __future__ import annotations

import pytest

from nbcourse.grading import check_for, forbidden, library_names
from test_grading_marks_probes import grade_probes

#: 05 q2's rule, cut down: two plain names and two of scikit-learn's modules
RULE = ["accuracy", "f1_score", "sklearn.metrics.*", "sklearn.model_selection.*"]

FLAGGED = {
    "renamed": ("from sklearn.metrics import zero_one_loss as z\n"
                "def acc(y, p):\n    return 1 - z(y, p)\n", "sklearn.metrics.zero_one_loss"),
    "module_renamed": ("import sklearn.metrics as m\n"
                       "def acc(y, p):\n    return m.jaccard_score(y, p)\n",
                       "sklearn.metrics.jaccard_score"),
    "package": ("import sklearn\n"
                "def acc(y, p):\n    return sklearn.metrics.jaccard_score(y, p)\n",
                "sklearn.metrics.jaccard_score"),
    "from_package": ("from sklearn import metrics\n"
                     "def acc(y, p):\n    return metrics.jaccard_score(y, p)\n",
                     "sklearn.metrics.jaccard_score"),
    "literal_getattr": ("import sklearn.metrics as m\n"
                        "def acc(y, p):\n    return getattr(m, 'jaccard_score')(y, p)\n",
                        "sklearn.metrics.jaccard_score"),
    "notebook_alias": ("import sklearn.metrics\nscorer = sklearn.metrics.jaccard_score\n"
                       "def acc(y, p):\n    return scorer(y, p)\n",
                       "sklearn.metrics.jaccard_score"),
    "inside_the_function": ("def acc(y, p):\n"
                            "    from sklearn.model_selection import cross_val_score as c\n"
                            "    return c(y, p)\n", "sklearn.model_selection.cross_val_score"),
    "through_a_helper": ("from sklearn.metrics import mean_absolute_error\n"
                         "def helper(y, p):\n    return mean_absolute_error(y, p)\n"
                         "def acc(y, p):\n    return 1 - helper(y, p)\n",
                         "sklearn.metrics.mean_absolute_error"),
    "star": ("from sklearn.metrics import *\nimport numpy as np\n"
             "def acc(y, p):\n    try:\n        pass\n    except ValueError as e:\n"
             "        print(e)\n    return jaccard_score(y, p) + len(y)\n",
             "sklearn.metrics.jaccard_score"),
    # a listed name bound earlier, then replaced by the star import
    "star_replaces": ("f1_score = 0\nfrom sklearn.metrics import *\n"
                      "def acc(y, p):\n    return f1_score(y, p)\n", "f1_score"),
}

CLEAN = {
    # another module of scikit-learn, scipy.sparse, numpy, a star import used for nothing
    "other_modules": "import scipy.sparse as sp\nimport numpy as np\n"
                     "from sklearn.feature_extraction.text import CountVectorizer\n"
                     "def acc(y, p):\n    return float(np.mean(np.asarray(y) == np.asarray(p)))\n",
    "star_unused": "from sklearn.metrics import *\nimport numpy as np\nN = 1\n"
                   "def acc(y, p):\n    for i, (a, b) in enumerate(zip(y, p)):\n        pass\n"
                   "    return sum(a == b for a, b in zip(y, p)) / len(y) * N\n",
    # the student's own function under the name of the import it replaces
    "own_function": "from sklearn.metrics import accuracy_score\n"
                    "def accuracy_score(y, p):\n    return sum(a == b for a, b in zip(y, p)) / len(y)\n"
                    "def acc(y, p):\n    return accuracy_score(y, p)\n",
}


@pytest.mark.parametrize("name", FLAGGED)
def test_anything_from_a_forbidden_module_is_flagged_under_any_name(name):
    source, found = FLAGGED[name]
    assert forbidden.find([source], "acc", RULE) == [found]


@pytest.mark.parametrize("name", CLEAN)
def test_other_modules_and_the_students_own_names_are_not_flagged(name):
    assert forbidden.find([CLEAN[name]], "acc", RULE) == []


def test_the_plan_keeps_another_packages_module_as_it_is():
    expanded = library_names.expand(["accuracy", "nbcourse.evaluation.*", "sklearn.metrics.*"])
    assert expanded[0] == "accuracy" and expanded[-1] == "sklearn.metrics.*"
    assert "nbcourse.evaluation.accuracy" in expanded
    with pytest.raises(ValueError, match="a whole module of another package"):
        library_names.expand(["sklearn.metrics.f1_score"])


# module-level functions: check() reads a function's own source
def _accuracy_by_mean_absolute_error(y_true, y_pred):
    from sklearn.metrics import mean_absolute_error
    spam_true = [label == "spam" for label in y_true]
    spam_said = [label == "spam" for label in y_pred]
    return 1.0 - float(mean_absolute_error(spam_true, spam_said))


def _posterior_mean_by_scipy(a, b, heads, tails):
    from scipy.stats import beta
    return float(beta(a + heads, b + tails).mean())


def _posterior_by_expit(w0, w, X):
    import scipy.special as special
    return special.expit(w0 + X @ w).tolist()


@pytest.mark.parametrize("exercise, question, answer, name", [
    # the right accuracy through a scikit-learn function no list names (05 q2)
    ("05_spam", "q2", _accuracy_by_mean_absolute_error, "sklearn.metrics.mean_absolute_error"),
    # scipy's Beta knows its mean (02 q3); scipy's sigmoid (04 q3)
    ("02_smoothing", "q3", _posterior_mean_by_scipy, "scipy.stats.beta"),
    ("04_linearity", "q3", _posterior_by_expit, "scipy.special.expit"),
])
def test_check_flags_a_right_value_from_a_forbidden_module(exercise, question, answer, name):
    text = str(check_for(exercise).run(question, answer))
    assert name in text and "flag" in text, text


def test_the_grader_gives_nothing_for_scikit_learn_under_a_name_no_list_says(tmp_path):
    probes = {
        "mae": "from sklearn.metrics import mean_absolute_error as mae\n"
               "def fraction_correct(y_true, y_pred):\n"
               "    return 1.0 - float(mae([t == 'spam' for t in y_true], "
               "[p == 'spam' for p in y_pred]))\n",
        "clean": "from sklearn.feature_extraction.text import CountVectorizer\n",
    }
    rows, pages = grade_probes("05_spam", probes, tmp_path)
    assert rows["mae"]["q2"]["score"] == 0
    assert "sklearn.metrics.mean_absolute_error" in pages["mae"]
    assert rows["clean"]["q2"]["score"] == rows["clean"]["q2"]["points"]
