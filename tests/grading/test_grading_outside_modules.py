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
    # a variable assigned at the notebook's level may be the star import's (red team 6:
    # ``get_scorer = get_scorer``): only a def, class or import after it binds for sure
    "star_and_an_assignment": ("from sklearn.metrics import *\nN = 1\n"
                               "def acc(y, p):\n    return sum(a == b for a, b in zip(y, p)) / N\n",
                               "sklearn.metrics.N"),
    # a listed name bound earlier, then replaced by the star import
    "star_replaces": ("f1_score = 0\nfrom sklearn.metrics import *\n"
                      "def acc(y, p):\n    return f1_score(y, p)\n", "f1_score"),
}

CLEAN = {
    # another module of scikit-learn, scipy.sparse, numpy, a star import used for nothing
    "other_modules": "import scipy.sparse as sp\nimport numpy as np\n"
                     "from sklearn.feature_extraction.text import CountVectorizer\n"
                     "def acc(y, p):\n    return float(np.mean(np.asarray(y) == np.asarray(p)))\n",
    "star_unused": "from sklearn.metrics import *\nimport numpy as np\n"
                   "def size(y):\n    return len(y)\n"
                   "def acc(y, p):\n    for i, (a, b) in enumerate(zip(y, p)):\n        pass\n"
                   "    return sum(a == b for a, b in zip(y, p)) / size(y)\n",
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


# ------------------- follow-through and swaps call a solution as the student's is called
SPAM_EXPERIMENT_BODY = '''
    texts, labels = list(texts), np.asarray(labels)
    train, validation, test = split_indices(len(texts), seed)
    vectorizer = BagOfWords()
    X_train = vectorizer.fit_transform([texts[i] for i in train])
    X_validation = vectorizer.transform([texts[i] for i in validation])
    X_test = vectorizer.transform([texts[i] for i in test])
    best = choose_alpha(X_train, labels[train], X_validation, labels[validation], alphas)
    final_model = MultinomialNB(alpha=best).fit(X_train, labels[train])
    return best, fraction_correct(labels[test], final_model.predict(X_test))
'''

RECIPE_CALLS = {
    # student 20: a right recipe with a default seed, called without it; the swap's recipe
    # had no default, so the cell raised and was scored as a value typed in (0 of 3)
    "default_seed": ("def spam_experiment(texts, labels, alphas, seed=0):",
                     "spam_experiment(texts, labels, alphas)"),
    "renamed_by_keyword": ("def spam_experiment(texts, labels, alphas, random_seed):",
                           "spam_experiment(texts, labels, alphas, random_seed=0)"),
}


def test_a_recipe_called_with_its_own_default_or_parameter_name_keeps_its_values(tmp_path):
    probes = {}
    for who, (header, call) in RECIPE_CALLS.items():
        body = SPAM_EXPERIMENT_BODY if "seed=0" in header else \
            SPAM_EXPERIMENT_BODY.replace("seed)", "random_seed)")
        probes[who] = f"{header}{body}\nbest_alpha, test_accuracy = {call}\n"
    probes["typed_in"] = "best_alpha, test_accuracy = 0.3, 549 / 558\n"
    rows, pages = grade_probes("05_spam", probes, tmp_path)
    for who in RECIPE_CALLS:
        for question in ("q4", "q5", "q6"):
            assert rows[who][question]["score"] == rows[who][question]["points"], \
                (who, question, rows[who][question])
    assert rows["typed_in"]["q5"]["score"] == 0 and rows["typed_in"]["q6"]["score"] == 0


MERGE_WITH_ARRAYS = '''
def merge_vocabularies(a, b):
    words = sorted(set(a["words"]) | set(b["words"]))
    feature_count = np.zeros((len(a["classes"]), len(words)), dtype=int)
    for table in (a, b):
        for j, word in enumerate(table["words"]):
            feature_count[:, words.index(word)] += np.asarray(table["feature_count"])[:, j]
    return {"classes": list(a["classes"]),
            "class_count": np.add(a["class_count"], b["class_count"]),
            "words": words, "feature_count": feature_count}
'''

#: 07 q4 written against the student's own (right) merge: arrays, or the lists the solution
#: used to return (student 20: ``.sum()`` raised with the swap's lists, scored as typed in)
LOST_CELLS = {
    "arrays": MERGE_WITH_ARRAYS + '''
def table_of(messages):
    bag = BagOfWords(min_df=2).fit(messages)
    return {"classes": ["all"], "class_count": [len(messages)],
            "words": list(bag.get_feature_names_out()),
            "feature_count": np.asarray(bag.transform(messages).sum(axis=0))}
merged = merge_vocabularies(table_of(may), table_of(june))
together = table_of(may + june)
lost_occurrences = int(together["feature_count"].sum() - sum(
    merged["feature_count"][0, merged["words"].index(w)]
    for w in together["words"] if w in merged["words"]))
''',
    "lists": '''
def table_of(messages):
    bag = BagOfWords(min_df=2).fit(messages)
    return {"classes": ["all"], "class_count": [len(messages)],
            "words": list(bag.get_feature_names_out()),
            "feature_count": [np.asarray(bag.transform(messages).sum(axis=0)).ravel().tolist()]}
merged = merge_vocabularies(table_of(may), table_of(june))
together = table_of(may + june)
kept = dict(zip(merged["words"], merged["feature_count"][0]))
lost_occurrences = int(sum(n - kept.get(w, 0)
                           for w, n in zip(together["words"], together["feature_count"][0])))
''',
    # student 22: rows flattened as lists are
    "flattened": '''
def table_of(messages):
    bag = BagOfWords(min_df=2).fit(messages)
    return {"classes": ["all"], "class_count": [len(messages)],
            "words": list(bag.get_feature_names_out()),
            "feature_count": [np.asarray(bag.transform(messages).sum(axis=0)).ravel().tolist()]}
merged = merge_vocabularies(table_of(may), table_of(june))
together = table_of(may + june)
kept = dict(zip(merged["words"], sum(merged["feature_count"], [])))
lost_occurrences = int(sum(n - kept.get(w, 0)
                           for w, n in zip(together["words"], sum(together["feature_count"], []))))
''',
}


def test_a_value_written_against_a_merge_that_returns_arrays_keeps_its_point(tmp_path):
    probes = {**LOST_CELLS, "typed_in": "lost_occurrences = 14\n"}
    rows, _ = grade_probes("07_merging", probes, tmp_path)
    for who in LOST_CELLS:
        assert rows[who]["q3"]["score"] == rows[who]["q3"]["points"], (who, rows[who]["q3"])
        assert rows[who]["q4"]["score"] == 1, (who, rows[who]["q4"])
    assert rows["typed_in"]["q4"]["score"] == 0


# --------------------------------- a dict of numbers typed in, read back by key (student 20)
@pytest.mark.parametrize("cell, typed", [
    ('counts = {"tp": 66, "flagged": 67}\nspam_precision = counts["tp"] / counts["flagged"]',
     True),
    # counted into the dict, updated, or handed to a function: computed
    ('counts = {"tp": 0, "flagged": 0}\nfor t, p in zip(a, b):\n    counts["tp"] += t and p\n'
     'spam_precision = counts["tp"] / counts["flagged"]', False),
    ('counts = {"tp": 0}\ncounts.update(tp=sum(x))\nspam_precision = counts["tp"] / 3', False),
    ('counts = {"tp": 0}\nfill(counts)\nspam_precision = counts["tp"] / 3', False),
])
def test_a_dict_of_numbers_read_back_by_key_is_typed_in(cell, typed):
    from nbcourse.grading.typed_in import typed_in
    assert typed_in([cell], "spam_precision") is typed


def test_the_grader_gives_nothing_for_counts_typed_into_a_dict(tmp_path):
    probes = {"dict": 'counts = {"tp": 66, "flagged": 67, "spam": 75}\n'
                      'spam_precision = counts["tp"] / counts["flagged"]\n'
                      'spam_recall = counts["tp"] / counts["spam"]\n'}
    rows, _ = grade_probes("05_spam", probes, tmp_path)
    assert rows["dict"]["q7"]["score"] == 0 and rows["dict"]["q8"]["score"] == 0


# -------------------- a function's own variable shadows an import: only in its own scope
IMPORT_AS_ACC = "from sklearn.metrics import accuracy_score as acc\n"


@pytest.mark.parametrize("body, flagged", [
    ("    acc = sum(a == b for a, b in zip(y, p)) / len(y)\n    return acc\n", False),
    # bound only in a scope inside it: the function's own ``acc`` is still the import
    ("    def inner():\n        acc = 1\n    return acc(y, p)\n", True),
    ("    [0 for acc in ()]\n    return acc(y, p)\n", True),
    ("    class K:\n        acc = 1\n    return acc(y, p)\n", True),
    ("    g = lambda acc=acc: acc(y, p)\n    return g()\n", True),
    ("    global acc\n    acc = acc\n    return acc(y, p)\n", True),
    # := in a comprehension binds in the function: acc is its own, never the import
    ("    [(acc := 1) for _ in ()]\n    return acc\n", False),
])
def test_only_a_variable_of_the_functions_own_scope_shadows_an_import(body, flagged):
    found = forbidden.find([IMPORT_AS_ACC + "def f(y, p):\n" + body], "f",
                           ["accuracy_score", "sklearn.metrics.*"])
    assert bool(found) is flagged, found
