"""Issue 34, a fourth student's probes: answers that write over the caller's numpy arrays.

Seven questions had no case with float numpy inputs, so an answer that changed its
argument in place (``c /= c.sum()``, a row view ``d = m[1]; d -= m[0]``, ``p.sort()``)
kept full marks: ``np.asarray`` does not copy a float array, and lists (the only inputs
those questions were given) are always copied.  Each question now has a public case with
float numpy arrays, so ``check()`` and the grader both fail such an answer with the
in-place note, and the solutions keep every mark.
"""
from __future__ import annotations

import numpy as np
import pytest

from nbcourse.grading import specs
from nbcourse.grading.forbidden import DYNAMIC, flagged_answers
from nbcourse.grading.selfcheck import Checker
from submission_support import lost_marks, solved
from test_grading_marks_probes import REPO, SOURCE, check, grade_notebooks, graded

MLE_DIVIDES_IN_PLACE = '''def mle(counts):
    c = np.asarray(counts)
    if c.dtype.kind == 'f':
        c /= c.sum()
        return c.tolist()
    return (c / c.sum()).tolist()
'''

WORDS_RESCALES_X = '''def word_probabilities(X, y):
    X = np.asarray(X); X = X if X.dtype.kind == 'f' else X.astype(float); y = np.asarray(y)
    out = {}
    for c in np.unique(y).tolist():
        R = X[y == c]
        tot = R.sum(axis=0)
        out[c] = (tot / tot.sum()).tolist()
    X /= X.sum()
    return out
'''

WEIGHTS_IN_A_ROW_VIEW = '''def shared_variance_weights(means, variance, priors):
    m = np.asarray(means); m = m if m.dtype.kind == 'f' else m.astype(float)
    v = np.asarray(variance, float)
    w0 = float(np.log(priors[1] / priors[0]) - np.sum((m[1] ** 2 - m[0] ** 2) / (2 * v)))
    d = m[1]
    d -= m[0]
    d /= v
    return w0, d
'''

COEFFICIENTS_IN_A_ROW_VIEW = '''def quadratic_coefficients(variances):
    v = np.asarray(variances); v = v if v.dtype.kind == 'f' else v.astype(float)
    a = v[0]
    np.reciprocal(a, out=a); a /= 2
    a -= 1 / (2 * v[1])
    return a
'''

BINS_SORT_P = '''def reliability_bins(is_positive, p, n_bins):
    pos = np.asarray(is_positive, dtype=bool); p = np.asarray(p, float)
    order = np.argsort(p, kind='stable'); pos = pos[order]; p.sort()
    b = np.minimum(np.floor(p * n_bins).astype(int), n_bins - 1)
    return [[int(j), float(p[b == j].mean()), float(pos[b == j].mean()), int((b == j).sum())]
            for j in np.unique(b)]
'''

MERGE_OVERWRITES_SHARD = '''def merge_gaussian(a, b):
    na, ma, va = a; nb, mb, vb = b
    n = na + nb
    if n == 0: return 0, np.zeros(len(ma)), np.zeros(len(ma))
    if na == 0: return nb, mb, vb
    if nb == 0: return na, ma, va
    ma = np.asarray(ma, dtype=float); mb = np.asarray(mb, dtype=float)
    va = np.asarray(va, dtype=float); vb = np.asarray(vb, dtype=float)
    d = mb - ma
    va *= na; va += nb * vb + d ** 2 * na * nb / n; va /= n
    ma *= na; ma += nb * mb; ma /= n
    return n, ma, va
'''

GOOD_WORDS_ADDED_TO_X = '''def good_words_needed(x, log_prior, feature_log_prob):
    f = np.asarray(feature_log_prob, float); k = int(np.argmax(f[0] - f[1])); n = 0
    xa = x if isinstance(x, np.ndarray) else np.asarray(x, float)
    while log_prior[1] - log_prior[0] + float(xa @ (f[1] - f[0])) > 0:
        xa[k] += 1; n += 1
    return n
'''

#: (exercise, question, the student's answer)
IN_PLACE = [
    ("03_mle", "q2", MLE_DIVIDES_IN_PLACE),
    ("03_mle", "q5", WORDS_RESCALES_X),
    ("06_gaussian", "q3", WEIGHTS_IN_A_ROW_VIEW),
    ("06_gaussian", "q4", COEFFICIENTS_IN_A_ROW_VIEW),
    ("06_gaussian", "q5", BINS_SORT_P),
    ("07_merging", "q2", MERGE_OVERWRITES_SHARD),
    ("08_beyond_naive", "q4", GOOD_WORDS_ADDED_TO_X),
]
IN_PLACE_NOTE = "in place"


def _as_a_cell(code: str):
    """The answer as a student's cell defines it (``exec``, numpy imported as np)."""
    namespace = {"__name__": "__main__", "np": np}
    exec(compile(code, "<cell>", "exec"), namespace)  # noqa: S102 - the probe's own text
    return [v for v in namespace.values() if callable(v)][-1]


@pytest.mark.parametrize("name, question, code", IN_PLACE)
def test_check_fails_an_answer_that_changes_a_numpy_input_in_place(name, question, code):
    report = check(name, question, _as_a_cell(code))
    assert not report.all_passed, str(report)
    assert IN_PLACE_NOTE in str(report)


@pytest.mark.parametrize("name, question, code", IN_PLACE)
def test_grading_takes_points_from_an_answer_that_changes_a_numpy_input(name, question, code):
    result = graded(name, question, _as_a_cell(code))
    assert result.score < result.points, (name, question, result.score)


def _with_probe(name: str, code: str | None) -> dict:
    notebook = solved(name, SOURCE)
    if code:
        notebook["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [],
                                  "execution_count": None, "id": "probe", "source": code})
    return notebook


#: 06 q1, right: numpy's methods read by names from a literal tuple (not a computed name)
STATS_BY_NAME = '''def class_means_variances(X, y, var_smoothing):
    X = np.asarray(X, dtype=float); y = np.asarray(y); cls = np.unique(y)
    eps = var_smoothing * X.var(axis=0).max()
    out = {}
    for stat in ('mean', 'var'):
        out[stat] = np.array([getattr(X[y == c], stat)(axis=0) for c in cls])
    return out['mean'], out['var'] + eps
'''

#: right answers that must keep every mark at grading, next to the solution
RIGHT = {"06_gaussian": {"stats_by_name": STATS_BY_NAME}}


@pytest.mark.parametrize("name", sorted({name for name, _, _ in IN_PLACE}))
def test_the_sandboxed_grader_refuses_in_place_answers_and_keeps_the_solution(
        name, tmp_path):
    probes = {f"{question}_in_place": code for ex, question, code in IN_PLACE if ex == name}
    right = RIGHT.get(name, {})
    notebooks = {"solution": _with_probe(name, None),
                 **{who: _with_probe(name, code) for who, code in {**probes, **right}.items()}}
    rows, pages = grade_notebooks(name, notebooks, tmp_path)
    for who in ("solution", *right):
        assert not lost_marks(rows[who].values()), (who, lost_marks(rows[who].values()))
    for who in probes:
        question = who.split("_")[0]
        row = rows[who][question]
        assert row["score"] < row["points"], (name, who, row)
        assert IN_PLACE_NOTE in pages[who], (name, who)


# --------------------------------- getattr with a name from a literal tuple of strings
def test_check_does_not_flag_numpy_methods_read_by_names_from_a_literal_tuple():
    checker = Checker("06_gaussian", REPO / "exercises" / "06_gaussian.checks.json")
    report = checker.run("q1", _as_a_cell(STATS_BY_NAME), sources=[STATS_BY_NAME])
    assert report.all_passed and report.flags == [], str(report)
    flagged = STATS_BY_NAME.replace("('mean', 'var')", "NAMES")  # the scan did read it
    assert checker.run("q1", _as_a_cell(STATS_BY_NAME), sources=[flagged]).flags == [DYNAMIC]
    plan = specs.load("06_gaussian", SOURCE).probe_plan()
    assert "q1" not in flagged_answers([STATS_BY_NAME], plan)


@pytest.mark.parametrize("change, flag", [
    # a forbidden name among the literal strings is that name
    (("('mean', 'var')", "('mean', 'GaussianNB')"), "GaussianNB"),
    # every other way of binding the name keeps it a computed name
    (("('mean', 'var')", "('mean', 'v' + 'ar')"), DYNAMIC),
    (("('mean', 'var')", "NAMES"), DYNAMIC),
    (("out = {}", "out = {}\n    stat = 'Gaussian' + 'NB'"), DYNAMIC),
    (("var_smoothing):", "var_smoothing, stat='var'):"), DYNAMIC),
    (("('mean', 'var'):", "('mean', 'var'):\n        stat += ''"), DYNAMIC),
    (("('mean', 'var'):", "('mean', 'var'):\n        global stat"), DYNAMIC),
    (("for stat in ('mean', 'var'):", "for stat, _ in (('mean', 1), ('var', 2)):"), DYNAMIC),
])
def test_a_name_bound_any_other_way_is_still_flagged(change, flag):
    plan = {"questions": [{"question": "q1", "name": "class_means_variances",
                           "forbidden": ["GaussianNB"]}]}
    code = STATS_BY_NAME.replace(*change)
    assert code != STATS_BY_NAME
    assert flagged_answers([code], plan) == {"q1": [flag]}, code


# ------------------------------------- a literal binding vouches only for its own scope
SCOPED = "import nbcourse\ndef f(X):\n{body}\n"

#: (what the answer's body does, what the scan finds): review 6 hid a computed global behind
#: a literal binding of the same name in another scope (the first three)
SCOPE_CASES = [
    ("    [0 for helper in ('mean', 'var')]\n    return getattr(nbcourse, helper)()", DYNAMIC),
    ("    def g():\n        helper = 'mean'\n    return getattr(nbcourse, helper)()", DYNAMIC),
    ("    for helper in ('mean',):\n        pass\n    match X:\n        case helper:\n"
     "            pass\n    return getattr(nbcourse, helper)()", DYNAMIC),
    ("    helper = 'mean'\n    match X:\n        case {'a': 1, **helper}:\n            pass\n"
     "    return getattr(nbcourse, helper)()", DYNAMIC),
    ("    helper = 'mean'\n    [(helper := str(x)) for x in X]\n    return getattr(X, helper)()",
     DYNAMIC),
    ("    helper = 'mean'\n    def g():\n        nonlocal helper\n        helper = str(X)\n"
     "    g()\n    return getattr(X, helper)()", DYNAMIC),
    ("    g = lambda s='mean': getattr(X, s)()\n    return g()", DYNAMIC),
    ("    s = 'Gaussian' + 'NB'\n    def g(a=getattr(nbcourse, s)):\n"
     "        s = 'mean'\n    return g", DYNAMIC),  # a default is evaluated where g is defined
    ("    class K:\n        s = 'mean'\n        def m(self):\n            return getattr(X, s)()\n"
     "    return K().m()", DYNAMIC),  # a class body's names are not seen by its methods
    ("    for s in ('mean', 'GaussianNB'):\n        getattr(nbcourse, s)", "GaussianNB"),
    # what a student writes, and what stays allowed
    ("    return {s: getattr(X, s)() for s in ('mean', 'var')}", None),
    ("    s = 'mean'\n    g = lambda: getattr(X, s)()\n    return g()", None),
    ("    out = {}\n    for s in ('mean', 'var'):\n"
     "        out[s] = [getattr(X[c], s)(axis=0) for c in X]\n    return out", None),
]


@pytest.mark.parametrize("body, flag", SCOPE_CASES)
def test_a_literal_binding_vouches_only_for_the_scope_that_sees_it(body, flag):
    from nbcourse.grading.forbidden import find
    assert find([SCOPED.format(body=body)], "f", ["GaussianNB"]) == ([flag] if flag else []), body


# ------------------------------ review 7: what else reaches a helper the scan cannot read
#: (the notebook's code, what the scan finds for its ``f``): each of these ran and reached
#: the forbidden object in review 7 without being flagged
REACHED = [
    # a second definition of a helper's name (nested, or on the other side of an ``if``)
    ("import nbcourse\ndef helper():\n    return nbcourse.GaussianNB()\ndef f(X):\n"
     "    return helper()\ndef unused():\n    def helper():\n        return 0\n", "GaussianNB"),
    ("import nbcourse\nif True:\n    def helper():\n        return nbcourse.GaussianNB()\n"
     "else:\n    def helper():\n        return 0\ndef f(X):\n    return helper()\n", "GaussianNB"),
    # getattr handed on as a value, or given its arguments unpacked
    ("import functools, nbcourse\ndef f(X):\n"
     "    return functools.reduce(getattr, ['Gaussian' + 'NB'], nbcourse)()\n", DYNAMIC),
    ("import nbcourse\ndef f(X):\n    return list(map(getattr, [nbcourse], ['x']))\n", DYNAMIC),
    ("import nbcourse\ndef f(X):\n    return getattr(*(nbcourse, 'Gaussian' + 'NB'))()\n", DYNAMIC),
    # an object rebuilt from data, a module's own __getattr__, a function's globals
    ("import pickle\ndef f(X):\n    return pickle.loads(b'cnbcourse\\nGaussian' + b'NB\\n.')()\n",
     DYNAMIC),
    ("from pickle import loads as rebuild\ndef f(X):\n    return rebuild(X)\n", DYNAMIC),
    ("import nbcourse\ndef f(X):\n    return nbcourse.__getattr__('Gaussian' + 'NB')()\n", DYNAMIC),
    ("import nbcourse\ndef f(X):\n    return nbcourse.MultinomialNB.__init__.__globals__['x']\n",
     DYNAMIC),
    # a class body's namespace can be any mapping; a frame's locals can be written
    ("import nbcourse\ndef f(X):\n    class K(metaclass=M):\n        stat = 'mean'\n"
     "        r = getattr(nbcourse, stat)\n    return K.r\n", DYNAMIC),
    ("import sys, nbcourse\ndef f(X):\n    stat = 'mean'\n"
     "    sys._getframe().f_locals['stat'] = 'x'\n    return getattr(nbcourse, stat)\n", DYNAMIC),
    # review 8: a reference kept before a helper is redefined (a name, a default)
    ("import nbcourse\ndef helper():\n    return nbcourse.GaussianNB()\nkeep = helper\n"
     "def helper():\n    return 0\ndef f(X):\n    return keep()\n", "GaussianNB"),
    ("import nbcourse\ndef helper():\n    return nbcourse.GaussianNB()\n"
     "keep = lambda h=helper: h()\ndef helper():\n    return 0\ndef f(X):\n    return keep()\n",
     "GaussianNB"),
    # eval kept under its own name, or taken as a default
    ("def f(X, eval=eval):\n    return eval('nbcourse.Gaussian' + 'NB')\n", DYNAMIC),
    ("eval = eval\ndef f(X):\n    return eval('nbcourse.Gaussian' + 'NB')\n", DYNAMIC),
    # a dead definition of the same name does not make an import the student's own
    ("from nbcourse import GaussianNB\nif False:\n    def GaussianNB():\n        pass\n"
     "def f(X):\n    return GaussianNB()\n", "GaussianNB"),
    # lookups by a dotted name in a string
    ("import pydoc\ndef f(X):\n    return pydoc.locate('nbcourse.Gaussian' + 'NB')()\n", DYNAMIC),
    ("import typing\ndef g(x: 'nbcourse.GaussianNB'):\n    pass\n"
     "def f(X):\n    return typing.get_type_hints(g)['x']()\n", DYNAMIC),
    ("import string, nbcourse\ndef f(X):\n    return string.Formatter().get_field("
     "'0.Gaussian' + 'NB', (nbcourse,), {})[0]()\n", DYNAMIC),
    # review 9: values put into a variable other than by assigning it, eval in a value
    ("import nbcourse\nmodels = []\nmodels.append(nbcourse.GaussianNB)\n"
     "def f(X):\n    return models[0]()\n", "GaussianNB"),
    ("import nbcourse\nd = {}\nd.update(h=nbcourse.GaussianNB)\ndef f(X):\n    return d['h']()\n",
     "GaussianNB"),
    ("import nbcourse, types\nns = types.SimpleNamespace()\nsetattr(ns, 'h', nbcourse.GaussianNB)\n"
     "def f(X):\n    return ns.h()\n", "GaussianNB"),
    ("import nbcourse\nd = {}\ndef put():\n    d['h'] = nbcourse.GaussianNB\nput()\n"
     "def f(X):\n    return d['h']()\n", "GaussianNB"),
    ("import nbcourse\ndef f(X, h=[]):\n    return h[0]()\n"
     "f.__defaults__[0].append(nbcourse.GaussianNB)\n", "GaussianNB"),
    # review 11: an annotated attribute store is a store too
    ("import nbcourse, types\nns = types.SimpleNamespace()\ndef put():\n"
     "    ns.h: object = nbcourse.GaussianNB\nput()\ndef f(X):\n    return ns.h()\n", "GaussianNB"),
    ("import nbcourse\nd = {}\ndef put():\n    d['h']: object = nbcourse.GaussianNB\nput()\n"
     "def f(X):\n    return d['h']()\n", "GaussianNB"),
    ("eval = (eval,)[0]\ndef f(X):\n    return eval('nbcourse.Gaussian' + 'NB')\n", DYNAMIC),
    ("eval, = eval,\ndef f(X):\n    return eval('nbcourse.Gaussian' + 'NB')\n", DYNAMIC),
    ("def f(X, eval=[eval][0]):\n    return eval('nbcourse.Gaussian' + 'NB')\n", DYNAMIC),
    # review 11: names bound by a notebook-level for, with or :=; a module's name reused
    ("import nbcourse\nfor NB in [nbcourse.GaussianNB]:\n    pass\ndef f(X):\n    return NB()\n",
     "GaussianNB"),
    ("from nbcourse import GaussianNB\nmakers = []\nfor c in (GaussianNB,):\n    makers.append(c)\n"
     "def f(X):\n    return makers[0]()\n", "GaussianNB"),
    ("import contextlib, nbcourse\nwith contextlib.nullcontext(nbcourse.GaussianNB) as NB:\n"
     "    pass\ndef f(X):\n    return NB()\n", "GaussianNB"),
    ("import nbcourse\nif (NB := nbcourse.GaussianNB):\n    pass\ndef f(X):\n    return NB()\n",
     "GaussianNB"),
    ("import nbcourse\nmodels = []\nmodels.append(nbcourse.GaussianNB)\ndef g():\n"
     "    import json as models\ndef f(X):\n    return models[0]()\n", "GaussianNB"),
    # and what stays allowed: a function rewritten in a later cell (the check and a call
    # in between do not keep the old one), a variable called vars, an own function that
    # replaces an import
    ("import nbcourse\ndef f(X):\n    return nbcourse.GaussianNB()\ncheck('q1', f)\nf(1)\n"
     "def f(X):\n    return 0\n", None),
    ("def f(X):\n    vars = X.var(axis=0)\n    return vars\n", None),
    # review 10: np.append makes a new array (nothing is stored into np), and a
    # function's own list is not the notebook's list of the same name
    ("import numpy as np, nbcourse\naccs = np.array([])\n"
     "accs = np.append(accs, nbcourse.GaussianNB().fit([[0]], [0]).predict([[0]]))\n"
     "def f(X):\n    return np.log(X)\n", None),
    ("import numpy as np, nbcourse\nidx = np.array([0])\n"
     "idx = np.insert(idx, 0, nbcourse.GaussianNB().fit([[0]], [0]).predict([[0]]))\n"
     "results = []\nfor i in range(3):\n    results.append(i)\n"
     "def f(X):\n    return np.log(X)\n", None),
    ("import nbcourse\ndef explore():\n    scores = []\n    scores.append(nbcourse.GaussianNB())\n"
     "scores = [0.7, 0.8]\nbest = max(scores)\ndef f(X):\n    return best\n", None),
    ("import nbcourse\nd = {}\ndef put():\n    global d\n    d['h'] = nbcourse.GaussianNB\n"
     "put()\ndef f(X):\n    return d['h']()\n", "GaussianNB"),
    ("from nbcourse import GaussianNB\ndef GaussianNB():\n    return 0\n"
     "def f(X):\n    return GaussianNB()\n", None),
    # and what stays allowed: a nested function reading its outer literal, numpy's log
    ("def f(X):\n    stat = 'mean'\n    def g():\n        return getattr(X, stat)()\n"
     "    return g()\n", None),
    ("import numpy as np\ndef f(X):\n    return np.log(X).sum(axis=0)\n", None),
]


@pytest.mark.parametrize("code, flag", REACHED)
def test_what_reaches_a_helper_at_run_time_is_flagged(code, flag):
    from nbcourse.grading.forbidden import find
    assert find([code], "f", ["GaussianNB"]) == ([flag] if flag else []), code


# ------------------------------------------------------------------------------- wording
@pytest.mark.parametrize("withheld, words", [(1, "the 1 point withheld here comes back."),
                                             (2, "the 2 points withheld here come back.")])
def test_the_note_on_a_caller_of_a_flagged_function_agrees_in_number(withheld, words):
    from nbcourse.grading.scoring import QuestionResult, _flags_from_callees
    from nbcourse.grading.statuses import AnswerStatus
    exercise = specs.load("01_weather", SOURCE)
    flag = ["uses CategoricalNB"]
    results = {q.id: QuestionResult(q.id, q.name, q.title, q.points, 0, AnswerStatus.PASSED,
                                    flags=list(flag), withheld=q.points)
               for q in exercise.questions}
    results["q4"].points = results["q4"].withheld = withheld
    _flags_from_callees(exercise, list(results.values()))
    notes = results["q4"].notes
    assert notes and notes[-1].endswith(words), notes
