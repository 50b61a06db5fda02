"""Issue 34, third round: typed numbers in disguise and helpers reached by a computed name.

A second fresh student (probes (a)1-17) kept full marks with a number typed in behind an
``if`` or a ``0 *`` term, an index into ``alphas``, a full-precision float where no
typed-number check ran (02 q6), and with forbidden helpers reached through
``getattr(importlib.import_module("pkg." + "mod"), "na" + "me")``.  Each probe is put to
``check()`` (the released checks file, with the probe's code as the notebook's cells) and
to the sandboxed grader (the instructor's solution with the probe as its last cell).
"""
from __future__ import annotations

import json
import re
from fractions import Fraction

import numpy as np
import pytest

from nbcourse.grading import specs
from nbcourse.grading.forbidden import DYNAMIC, DYNAMIC_WHY, TYPED_IN, flagged_answers, typed_in
from nbcourse.grading.selfcheck import Checker
from test_grading_marks_probes import REPO, SOURCE, grade_probes

# ---------------------------------------------------------------- the probes' own code
TYPED = {  # (exercise, question, probe): the answer cell, exactly as the student wrote it
    ("01_weather", "q4", "typed_disguised"):
        "s = joint_scores(weather, lesson_day, 'play')\np_no = Fraction(486, 611) if s else 0",
    ("01_weather", "q4", "typed_disguised_float"):
        "p_no = 0.7954173486088380 + 0 * float(joint_scores(weather, lesson_day, 'play')['no'])",
    ("02_smoothing", "q6", "typed_full_precision"): "smoothed_p_no = 0.7200666507974292",
    ("02_smoothing", "q6", "typed_fraction_expression"):
        "smoothed_p_no = float((Fraction(5, 14) * Fraction(4, 8) * Fraction(2, 8) * "
        "Fraction(5, 7) * Fraction(4, 7)) / (Fraction(5, 14) * Fraction(4, 8) * Fraction(2, 8)"
        " * Fraction(5, 7) * Fraction(4, 7) + Fraction(9, 14) * Fraction(3, 12) * "
        "Fraction(4, 12) * Fraction(4, 11) * Fraction(4, 11)))",
    ("04_linearity", "q7", "typed_disguised"):
        "free_shift = 1.3845790948331356 if model is not None else 0.0",
    ("05_spam", "q5", "typed_index"):
        "_, test_accuracy = spam_experiment(texts, labels, alphas, 0)\nbest_alpha = alphas[3]",
    ("05_spam", "q5", "typed_disguised"):
        "best_alpha, test_accuracy = (0.3, 0.9838709677419355) if spam_experiment else (0.0, 0.0)",
    ("05_spam", "q6", "typed_disguised"):
        "best_alpha, test_accuracy = (0.3, 0.9838709677419355) if spam_experiment else (0.0, 0.0)",
    ("07_merging", "q4", "typed_disguised"): "lost_occurrences = 10 if may and june else 0",
    # student 7: the numbers unpacked into names first
    ("01_weather", "q4", "typed_unpacked"): "num, den = 486, 611\np_no = num / den",
    # student 9: two entries of a computed dict typed over
    ("03_mle", "q6", "typed_items"): "p_ham_documents['a'] = 0.0\np_ham_documents['c'] = 1.0",
}

LOOKED_UP = {  # (exercise, question, probe): an answer reaching a forbidden helper by a built name
    ("03_mle", "q2", "mle"):
        "def mle(counts):\n"
        "    import importlib\n"
        "    f = getattr(importlib.import_module('nbcourse.' + 'mle'), 'multinomial' + '_mle')\n"
        "    return list(np.asarray(f(counts), dtype=float))\n",
    ("03_mle", "q4", "class_priors"):
        "def class_priors(labels):\n"
        "    import importlib\n"
        "    f = getattr(importlib.import_module('nbcourse.' + 'mle'), 'class_prior' + '_mle')\n"
        "    return {k: float(v) for k, v in f(labels).items()}\n",
    ("04_linearity", "q7", "free_shift"):
        "k = list(vectorizer.get_feature_names_out()).index('free')\n"
        "lin = getattr(model, 'to_' + 'linear')()\n"
        "free_shift = float(np.ravel(lin[1])[k])\n",
    ("05_spam", "q2", "fraction_correct"):
        "def fraction_correct(y_true, y_pred):\n"
        "    import importlib\n"
        "    f = getattr(importlib.import_module('sklearn.' + 'metrics'), 'accuracy' + '_score')\n"
        "    return float(f(list(y_true), list(y_pred)))\n",
    ("06_gaussian", "q1", "class_means_variances"):
        "def class_means_variances(X, y, var_smoothing):\n"
        "    import importlib\n"
        "    G = getattr(importlib.import_module('nbcourse.' + 'naive_bayes'), 'Gaussian' + 'NB')\n"
        "    g = G(var_smoothing=var_smoothing).fit(np.asarray(X, float), np.asarray(y))\n"
        "    return np.array(g.theta_), np.array(g.var_)\n",
    ("06_gaussian", "q8", "stable_posterior"):
        "def stable_posterior(log_scores):\n"
        "    import importlib\n"
        "    lse = getattr(importlib.import_module('scipy.' + 'special'), 'logsum' + 'exp')\n"
        "    s = np.asarray(log_scores, float)\n"
        "    return np.exp(s - lse(s, axis=1, keepdims=True))\n",
    ("07_merging", "q2", "merge_gaussian"):
        "def merge_gaussian(a, b):\n"
        "    import importlib\n"
        "    f = getattr(importlib.import_module('nbcourse.' + 'scale'), "
        "'merge_gaussian' + '_summaries')\n"
        "    (na, ma, va), (nb, mb, vb) = a, b\n"
        "    n, m, m2 = f((na, np.asarray(ma, float), na * np.asarray(va, float)), "
        "(nb, np.asarray(mb, float), nb * np.asarray(vb, float)))\n"
        "    return n, np.asarray(m, float), (np.asarray(m2, float) / n if n else "
        "np.zeros(len(ma)))\n",
    ("08_beyond_naive", "q2", "complement_weights"):
        "def complement_weights(feature_count, alpha):\n"
        "    import importlib\n"
        "    C = getattr(importlib.import_module('sklearn.' + 'naive_bayes'), 'Complement' + 'NB')\n"
        "    F = np.asarray(feature_count, float)\n"
        "    return np.array(C(alpha=alpha).fit(F, np.arange(len(F))).feature_log_prob_)\n",
    ("08_beyond_naive", "q3", "tfidf"):
        "def tfidf(counts):\n"
        "    import importlib\n"
        "    T = getattr(importlib.import_module('sklearn.feature_extraction.' + 'text'), "
        "'Tfidf' + 'Transformer')\n"
        "    return T().fit_transform(counts).toarray()\n",
}


def _checker(name: str) -> Checker:
    return Checker(name, REPO / "exercises" / f"{name}{specs.CHECKS_SUFFIX}")


def _solution_cells(name: str) -> list[str]:
    notebook = json.loads((SOURCE / f"{name}.ipynb").read_text(encoding="utf-8"))
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]


# ------------------------------------------------------------------------ check() side
@pytest.mark.parametrize("name, question_id, probe", sorted(TYPED), ids=str)
def test_check_warns_about_a_number_typed_in_disguise(name, question_id, probe):
    question = specs.load(name, SOURCE).question(question_id)
    code = TYPED[(name, question_id, probe)]
    report = _checker(name).run(question_id, question.reference(),
                                sources=_solution_cells(name) + [code])
    assert f"{question.name} is {TYPED_IN}" in str(report), str(report)
    assert "earn no points" in str(report)


@pytest.mark.parametrize("name, question_id, probe", sorted(LOOKED_UP), ids=str)
def test_check_warns_about_a_helper_reached_by_a_computed_name(name, question_id, probe):
    question = specs.load(name, SOURCE).question(question_id)
    code = LOOKED_UP[(name, question_id, probe)]
    sources = _solution_cells(name) + [code]
    if question.kind == "function":
        namespace = {"np": np}
        exec(code, namespace)  # noqa: S102 - the probe's own code, to hand its function over
        answer = namespace[question.name]
    else:
        answer = question.reference()
    report = _checker(name).run(question_id, answer, sources=sources)
    text = str(report)
    assert f"uses {DYNAMIC}" in text and DYNAMIC_WHY in text, text
    plan = specs.load(name, SOURCE).probe_plan()
    assert DYNAMIC in flagged_answers(sources, plan)[question_id]  # the grader's own rule


def test_the_solutions_and_right_forms_are_not_flagged():
    """Every solution notebook passes the scan, and so do right answers a student writes."""
    for name in specs.available(SOURCE):
        plan = specs.load(name, SOURCE).probe_plan()
        assert flagged_answers(_solution_cells(name), plan) == {}, name
    right = {
        "p_no": "s = joint_scores(weather, lesson_day, 'play')\np_no = 1 - s['yes'] / sum(s.values())",
        "share": "x = 0 if n == 0 else hits / n\nshare = x",
        "best_alpha": "alphas = [0.01, 0.1, 1.0]\nbest_alpha, acc = spam_experiment(t, y, alphas, 0)",
        "smallest": "smallest = min(1e-9 * spread, 0.5)",
        "free_shift": "free_shift = float(w[1234])",  # a column found by hand is a position
        "test_accuracy": "_, test_accuracy = spam_experiment(texts, labels, alphas, seed=12345)",
    }
    for answer, code in right.items():
        assert not typed_in([code], answer), code
    # a dict filled in a loop, from 0, is computed (a key in a variable)
    assert not typed_in(["d = {}\nfor k in ks:\n    d[k] = 0\n    d[k] += f(k)"], "d")
    # a name set to a number, then unpacked from a computation, is no longer that number
    assert not typed_in(["no = 0.5\nno, total = s['no'], sum(s.values())\np_no = no / total"],
                        "p_no")
    plan = {"questions": [{"question": "q1", "name": "f", "forbidden": ["to_linear"]}]}
    legit = "def f(model):\n    return getattr(model, 'classes_')[getattr(model, 'n', 0)]\n"
    assert flagged_answers([legit], plan) == {}
    looked_up = legit.replace("'classes_'", "'classes' + '_'")
    assert flagged_answers([looked_up], plan) == {"q1": [DYNAMIC]}
    for lookup in ("builtins.getattr(model, name)()", "vars(type(model))[name](model)",
                   "type(model).__dict__[name](model)", "eval('model.' + name)()",
                   "dict(inspect.getmembers(model))[name]()", "sys.modules['x'].y(model)"):
        code = f"def f(model, name='to_' + 'linear'):\n    return {lookup}\n"
        assert flagged_answers([code], plan) == {"q1": [DYNAMIC]}, lookup


def _question_texts(name: str) -> dict[str, str]:
    """{question number: the Markdown that asks it} from the instructor's source."""
    notebook = json.loads((SOURCE / f"{name}.ipynb").read_text(encoding="utf-8"))
    texts, current = {}, []
    for cell in notebook["cells"]:
        text = "".join(cell["source"])
        header = re.match(r"## Questions? (\d+)(?: and (\d+))?", text)
        if cell["cell_type"] == "markdown" and header:
            current = [n for n in header.groups() if n]
        if cell["cell_type"] == "markdown":
            for number in current:
                texts[f"q{number}"] = texts.get(f"q{number}", "") + "\n" + text
    return texts


FORBIDS_TYPING = re.compile(r"typed in|type in a number|computed with your|compute it from your",
                            re.IGNORECASE)


def test_every_value_whose_text_forbids_typing_is_judged_for_it():
    """The source rule covers each such value; where the text names the function to compute
    it with, a swap judges it on behaviour too."""
    seen = []
    for name in specs.available(SOURCE):
        texts = _question_texts(name)
        for question in specs.load(name, SOURCE).questions:
            text = texts.get(question.id, "")
            if question.computed:  # the student is told before the grader refuses it
                assert FORBIDS_TYPING.search(text), f"{name} {question.id} does not say so"
            if question.kind != "value" or not FORBIDS_TYPING.search(text):
                continue
            seen.append((name, question.id))
            assert question.computed, f"{name} {question.id}: typed numbers are not flagged"
            named = [f for f in question.calls if re.search(rf"your `{f}`", text)]
            swapped = {f for swap in question.swaps for f in swap.replace}
            assert set(named) <= swapped, f"{name} {question.id}: no swap of {named}"
    assert {("01_weather", "q4"), ("02_smoothing", "q6"), ("04_linearity", "q7"),
            ("05_spam", "q5"), ("05_spam", "q6"), ("07_merging", "q4")} <= set(seen)


# ---------------------------------------------------------------- the sandboxed grader
#: typed in where the source rule sees only a computation: the swaps judge them
SWAPPED_ONLY = {
    ("01_weather", "q4", "hand_scores"):
        "scores = {'no': Fraction(486), 'yes': Fraction(125)}\n"
        "p_no = scores['no'] / sum(scores.values())",
    ("05_spam", "q6", "accuracy_by_hand"):
        "best_alpha, _ = spam_experiment(texts, labels, alphas, seed=0)\n"
        "hits = [1] * 549 + [0] * 9\ntest_accuracy = float(np.mean(hits))",
}


def test_the_source_rule_alone_misses_what_the_swaps_catch():
    for (name, question_id, _), code in SWAPPED_ONLY.items():
        question = specs.load(name, SOURCE).question(question_id)
        assert not typed_in([code], question.name)
        assert question.swaps


def _probes_of(name: str) -> dict[str, str]:
    probes = {f"typed_{q}_{p}": code for (n, q, p), code in
              list(TYPED.items()) + list(SWAPPED_ONLY.items()) if n == name}
    probes.update({f"looked_up_{q}": code for (n, q, _), code in LOOKED_UP.items() if n == name})
    return probes


RIGHT = {  # right answers in another form than the solution's, next to the probes
    "01_weather": {"one_minus_yes": "s = joint_scores(weather, lesson_day, 'play')\n"
                                    "p_no = 1 - s['yes'] / sum(s.values())"},
    "02_smoothing": {},
    "05_spam": {"unpacked": "result = spam_experiment(texts, labels, alphas, seed=0)\n"
                            "best_alpha = result[0]\ntest_accuracy = float(result[1])"},
}
GRADED = sorted({name for name, _, _ in list(TYPED) + list(LOOKED_UP)})


@pytest.fixture(scope="module", params=GRADED)
def graded_probes(request, tmp_path_factory):
    name = request.param
    probes = {"solution": "", **RIGHT.get(name, {}), **_probes_of(name)}
    rows, pages = grade_probes(name, probes, tmp_path_factory.mktemp(name))
    return name, rows, pages


def test_the_grader_gives_nothing_for_a_typed_number_or_a_looked_up_helper(graded_probes):
    name, rows, pages = graded_probes
    for who, row in rows.items():
        full = {qid for qid, q in row.items() if q["score"] == q["points"]}
        if who == "solution" or who in RIGHT.get(name, {}):
            assert full == set(row), (who, row)
            continue
        question_id = who.split("_")[1 if who.startswith("typed_") else 2]
        assert question_id not in full, (who, row[question_id])
        page = pages[who].replace("&#x27;", "'")
        if who.startswith("looked_up_"):
            assert DYNAMIC_WHY in page, who
