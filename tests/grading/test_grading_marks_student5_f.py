"""Issue 34, a fifth student: library helpers a question forbids, reached under other names.

The scan matched a list of plain names, so a helper the notebook's rule forbids slipped
through when it came from another module (``nbcourse.linear.sigmoid`` is
``nbcourse._numerics.sigmoid``) or was not on the list (``nbcourse.scale.union_words``).
A spec now forbids whole modules (``"nbcourse.scale.*"``); the plan and the checks file
list every name of the library that reaches them, and the scan flags those only when
the name really comes from nbcourse.  Each probe below is the student's own answer: right
in value, full marks and no warning before; flagged by ``check()`` and the grader now.
"""
from __future__ import annotations

import numpy as np
import pytest

from nbcourse.grading import specs
from nbcourse.grading.forbidden import find, flagged_answers
from nbcourse.grading.library_names import expand
from nbcourse.grading.selfcheck import Checker
from submission_support import lost_marks
from test_grading_marks_probes import REPO, SOURCE, grade_notebooks
from test_grading_marks_student4 import _with_probe

SIGMOID = '''from nbcourse.{module} import sigmoid
def posterior_class1(w0, w, X):
    return sigmoid(w0 + np.asarray(X @ np.asarray(w, dtype=float)).ravel())
'''

LOG_DOT = '''from nbcourse._numerics import log_dot
def bernoulli_log_scores(class_prior, p, b):
    p = np.asarray(p, dtype=float); b = np.atleast_2d(np.asarray(b, dtype=float))
    return (np.log(np.asarray(class_prior, dtype=float)) + log_dot(b, np.log(p))[0]
            + log_dot(1 - b, np.log(1 - p))[0])
'''

DENSITY = '''import nbcourse.{module} as _m
def joint_log_scores(means, variances, priors, x):
    x = np.asarray(x, dtype=float)
    return np.log(np.asarray(priors, dtype=float)) + _m.gaussian_log_density(
        x[None, :], np.asarray(means, dtype=float), np.asarray(variances, dtype=float)).sum(axis=1)
'''

MOMENTS = '''from nbcourse._numerics import moments
def class_means_variances(X, y, var_smoothing):
    X = np.asarray(X, dtype=float); y = np.asarray(y)
    means, variances = [], []
    for c in np.unique(y):
        n, mu, m2 = moments(X[y == c])
        means.append(mu); variances.append(m2 / n)
    return np.array(means), np.array(variances) + var_smoothing * X.var(axis=0).max()
'''

COMBINE = '''{import_line}
def merge_gaussian(a, b):
    n, mean, m2 = {call}(a[0], np.asarray(a[1], float), np.asarray(a[2], float) * a[0],
                         b[0], np.asarray(b[1], float), np.asarray(b[2], float) * b[0])
    return (n, mean, m2 / n) if n else (0, np.zeros(len(a[1])), np.zeros(len(a[1])))
'''

UNION = '''from nbcourse.scale import union_words
def merge_vocabularies(a, b):
    words = sorted(union_words([frozenset(a["words"]), frozenset(b["words"])]))
    column = {word: j for j, word in enumerate(words)}
    counts = np.zeros((len(a["classes"]), len(words)), dtype=np.int64)
    for table in (a, b):
        counts[:, [column[w] for w in table["words"]]] += np.asarray(table["feature_count"])
    return {"classes": list(a["classes"]),
            "class_count": [int(x) + int(y) for x, y in zip(a["class_count"], b["class_count"])],
            "words": words, "feature_count": counts.tolist()}
'''

TIMES_LOG = '''from nbcourse.{module} import times_log
def log_likelihood(counts, theta):
    with np.errstate(divide="ignore"):
        return float(np.sum(times_log(np.asarray(counts, float), np.log(np.asarray(theta, float)))))
'''

ATTACK = '''import nbcourse.adversary
class _Linear:
    classes_ = ["ham", "spam"]
    def __init__(self, log_prior, table):
        self.log_prior, self.table = np.asarray(log_prior, float), np.asarray(table, float)
    def to_linear(self):
        return self.log_prior[1] - self.log_prior[0], self.table[1] - self.table[0]
def good_words_needed(x, log_prior, feature_log_prob):
    model = _Linear(log_prior, feature_log_prob)
    attack = nbcourse.adversary.good_word_attack(model, np.asarray(x, float), target="ham")
    n, gain = attack.n_words, float(np.max(model.table[0] - model.table[1]))
    return n - 1 if n and attack.log_odds_before == (n - 1) * gain else n
'''

#: (exercise, question, the student's code, the name the scan must report)
FINDINGS = [
    ("04_linearity", "q3", SIGMOID.format(module="linear"), "nbcourse.linear.sigmoid"),
    ("04_linearity", "q3", SIGMOID.format(module="_numerics"), "nbcourse._numerics.sigmoid"),
    ("04_linearity", "q3", SIGMOID.format(module="calibration"), "nbcourse.calibration.sigmoid"),
    ("04_linearity", "q6", LOG_DOT, "nbcourse._numerics.log_dot"),
    ("06_gaussian", "q2", DENSITY.format(module="mle"), "nbcourse.mle.gaussian_log_density"),
    ("06_gaussian", "q2", DENSITY.format(module="_numerics"),
     "nbcourse._numerics.gaussian_log_density"),
    ("06_gaussian", "q1", MOMENTS, "nbcourse._numerics.moments"),
    ("07_merging", "q2", COMBINE.format(import_line="import nbcourse.scale as _s",
                                        call="_s.combine_moments"),
     "nbcourse.scale.combine_moments"),
    ("07_merging", "q2", COMBINE.format(import_line="from nbcourse._numerics import "
                                                    "combine_moments", call="combine_moments"),
     "nbcourse._numerics.combine_moments"),
    ("07_merging", "q3", UNION, "nbcourse.scale.union_words"),
    ("03_mle", "q1", TIMES_LOG.format(module="_numerics"), "nbcourse._numerics.times_log"),
    ("03_mle", "q1", TIMES_LOG.format(module="mle"), "nbcourse.mle.times_log"),
    ("08_beyond_naive", "q4", ATTACK, "nbcourse.adversary.good_word_attack"),
]


def _answer(code: str, name: str):
    namespace = {"__name__": "__main__", "np": np}
    exec(compile(code, "<cell>", "exec"), namespace)  # noqa: S102 - the probe's own text
    return namespace[name]


def _checker(name: str) -> Checker:
    return Checker(name, REPO / "exercises" / f"{name}.checks.json")


@pytest.mark.parametrize("name, question, code, flag", FINDINGS, ids=lambda v: str(v)[:40])
def test_check_warns_about_a_library_helper_reached_under_another_name(name, question, code,
                                                                        flag):
    spec = specs.load(name, SOURCE).question(question)
    report = _checker(name).run(question, _answer(code, spec.name), sources=[code])
    assert report.flags == [flag], str(report)
    assert f"uses {flag}" in str(report)


@pytest.mark.parametrize("name, question, code, flag", FINDINGS, ids=lambda v: str(v)[:40])
def test_the_grader_flags_a_library_helper_reached_under_another_name(name, question, code,
                                                                      flag):
    spec = specs.load(name, SOURCE)
    assert find([code], spec.question(question).name,
                expand(spec.question(question).forbidden)) == [flag]
    assert flagged_answers([code], spec.probe_plan()) == {question: [flag]}


@pytest.mark.parametrize("name, question, code, flag", [
    FINDINGS[0], FINDINGS[7], FINDINGS[9]], ids=lambda v: str(v)[:40])
def test_check_warns_from_the_compiled_answer_when_no_cell_text_can_be_read(name, question,
                                                                            code, flag):
    """Outside IPython (code run by ``exec``), check() reads the function's globals: the
    library function it holds, or the library module it reads an attribute of."""
    spec = specs.load(name, SOURCE).question(question)
    report = _checker(name).run(question, _answer(code, spec.name))
    assert report.flags, str(report)
    assert all(found in expand(spec.forbidden) for found in report.flags), report.flags


def test_the_probes_are_right_in_value_so_only_the_flag_costs_them():
    """The probes pass every public case: the flag, not a wrong value, is what they lose."""
    for name, question, code, _ in FINDINGS:
        if name == "08_beyond_naive":
            continue  # the library's attack is strict on a tie, the student adjusts by hand
        spec = specs.load(name, SOURCE).question(question)
        report = _checker(name).run(question, _answer(code, spec.name), sources=[])
        assert report.all_passed, (name, question, str(report))


# ------------------------------------------------------------ what stays the student's
ALLOWED = [
    # numpy's log is not nbcourse._numerics.log, even with _numerics imported
    "from nbcourse import _numerics\ndef f(x):\n    return np.log(x)\n",
    "import nbcourse._numerics as nm\ndef f(x):\n    return np.log(x) + x.log()\n",
    # a student's own function with a library helper's name stays theirs
    "def sigmoid(z):\n    return 1 / (1 + np.exp(-z))\ndef f(x):\n    return sigmoid(x)\n",
    "from nbcourse.linear import sigmoid\ndef sigmoid(z):\n    return z\n"
    "def f(x):\n    return sigmoid(x)\n",
    "def moments(x):\n    return x.mean(), x.var()\ndef f(x):\n    return moments(x)\n",
    # the library outside the scanned answer, and other packages' helpers of the same name
    "from nbcourse.linear import sigmoid\nprint(sigmoid(0))\ndef f(x):\n    return x\n",
    "from scipy.special import expit as sigmoid\ndef f(x):\n    return sigmoid(x)\n",
    "from scipy.stats import norm\ndef f(x):\n    return norm.logpdf(x).sum()\n",
]

FORBIDDEN = expand(["nbcourse.linear.*", "nbcourse._numerics.*", "nbcourse.scale.*"])


@pytest.mark.parametrize("code", ALLOWED)
def test_a_name_that_does_not_come_from_the_library_is_not_flagged(code):
    assert find([code], "f", FORBIDDEN) == [], code


@pytest.mark.parametrize("code, flag", [
    ("import nbcourse\ndef f(x):\n    return nbcourse._numerics.sigmoid(x)\n",
     "nbcourse._numerics.sigmoid"),
    ("from nbcourse import scale\ndef f(x):\n    return getattr(scale, 'union_words')(x)\n",
     "nbcourse.scale.union_words"),
    ("from nbcourse.scale import *\ndef f(x):\n    return union_words(x)\n",
     "nbcourse.scale.union_words"),
    ("import nbcourse.scale\nm = nbcourse.scale\ndef f(x):\n    return m.union_words(x)\n",
     "nbcourse.scale.union_words"),
    ("from nbcourse import linear as L\nhelper = L.sigmoid\ndef f(x):\n    return helper(x)\n",
     "nbcourse.linear.sigmoid"),
    ("from nbcourse.linear import sigmoid as s\ndef g(x):\n    return s(x)\n"
     "def f(x):\n    return g(x)\n", "nbcourse.linear.sigmoid"),
])
def test_every_way_of_reaching_a_library_helper_is_flagged(code, flag):
    assert find([code], "f", FORBIDDEN) == [flag], code


# ---------------------------------------------------------------- the expansion itself
def test_a_module_entry_stands_for_its_objects_under_every_name_that_reaches_them():
    names = expand(["predict", "nbcourse.linear.*"])
    assert names[0] == "predict"  # plain names as they were, first
    assert {"nbcourse.linear.sigmoid", "nbcourse._numerics.sigmoid",
            "nbcourse.calibration.sigmoid", "nbcourse.linear.decision_function",
            "nbcourse.LogisticRegression"} <= set(names)
    assert not any(name.endswith(".log") for name in names)  # linear does not offer log
    scale = expand(["nbcourse.scale.*"])
    assert "nbcourse.scale.MultinomialNB" not in scale  # another public module's class
    assert expand(["nbcourse.mle.times_log"]) == expand(["nbcourse._numerics.times_log"])
    # a plain name stays as it is, and brings the library functions that use its object
    # (student 12: a helper wrapping a forbidden one answered for it)
    categorical = expand(["CategoricalNB"])
    assert categorical[0] == "CategoricalNB"
    assert "nbcourse.smoothing_strength.fit_each_alpha" in categorical
    assert not any(name.endswith("NB") for name in categorical[1:])  # no other model


def test_a_package_entry_stands_for_its_modules_and_never_for_module_hooks():
    """Review 7: ``nbcourse.naive_bayes.*`` stood for nothing (a package defines nothing
    itself) and ``nbcourse.*`` only for its ``__getattr__``/``__dir__``."""
    package = expand(["nbcourse.naive_bayes.*"])
    assert {"nbcourse.GaussianNB", "nbcourse.naive_bayes.GaussianNB"} <= set(package)
    everything = expand(["nbcourse.*"])
    assert "nbcourse._numerics.log_dot" in everything
    assert not any(name.rpartition(".")[2].startswith("__") for name in everything)


@pytest.mark.parametrize("entry, error", [
    # another package's module is a whole module (``sklearn.metrics.*``), named as it is
    # imported: a misspelt library is refused, and so is one of its names
    ("nbcourses.linear.*", ValueError), ("nb_course.linear.*", ValueError),
    ("numpy.linalg.norm", ValueError), ("nbcourse.nowhere.*", ValueError),
    ("nbcourse.linear.nothing", ValueError), ("", TypeError), (3, TypeError),
    ("nbcourse._version.*", ValueError)])  # it defines nothing: it would forbid nothing
def test_a_forbidden_entry_the_library_does_not_have_is_refused(entry, error):
    with pytest.raises(error):
        expand([entry])


# ------------------------------------- 05: the flag stays with the function that uses it
FRACTION_WITH_SKLEARN = '''from sklearn.metrics import accuracy_score
def fraction_correct(y_true, y_pred):
    return float(accuracy_score(y_true, y_pred))
'''


def test_05_a_forbidden_helper_in_q2_is_flagged_in_q2_alone():
    """q3-q6 are computed through fraction_correct: a helper it uses flags it alone, by the
    grader and by check(); its callers are marked by follow-through (issue 34, students
    4, 7 and 8: one forbidden call cost every caller's points, a wrong callee none)."""
    name = "05_spam"
    cells = [cell for cell in _solution_code(name)] + [FRACTION_WITH_SKLEARN]
    flags = flagged_answers(cells, specs.load(name, SOURCE).probe_plan())
    assert flags == {"q2": ["accuracy_score"]}, flags
    question = specs.load(name, SOURCE).question("q5")
    report = _checker(name).run("q5", question.reference(), sources=cells)
    assert report.flags == [], str(report)
    report = _checker(name).run("q2", _function(FRACTION_WITH_SKLEARN, "fraction_correct"),
                                sources=cells)
    assert report.flags == ["accuracy_score"], str(report)
    assert flagged_answers(_solution_code(name), specs.load(name, SOURCE).probe_plan()) == {}


def _function(code: str, name: str):
    namespace = {}
    exec(compile(code, "<cell>", "exec"), namespace)  # noqa: S102 - the test's own text
    return namespace[name]


def _solution_code(name: str) -> list[str]:
    from submission_support import solved
    return ["".join(cell["source"]) for cell in solved(name, SOURCE)["cells"]
            if cell["cell_type"] == "code"]


# ------------------------------------------------------------- through the sandbox
def test_the_sandboxed_grader_withholds_the_points_of_helpers_reached_under_other_names(
        tmp_path):
    name = "07_merging"
    probes = {f"{question}_{index}": code for index, (ex, question, code, _) in
              enumerate(FINDINGS) if ex == name}
    notebooks = {"solution": _with_probe(name, None),
                 **{who: _with_probe(name, code) for who, code in probes.items()}}
    rows, pages = grade_notebooks(name, notebooks, tmp_path)
    assert not lost_marks(rows["solution"].values()), lost_marks(rows["solution"].values())
    flags = {f"{question}_{index}": flag for index, (ex, question, _, flag) in
             enumerate(FINDINGS) if ex == name}
    for who, flag in flags.items():
        row = rows[who][who.split("_")[0]]
        assert row["score"] == 0 and row["points"] > 0, (who, row)
        assert flag in pages[who], who


# ------------------------------------------------- the notebook's rule says what is flagged
#: how a notebook's rule covers every helper of the library without naming each module
ALL_OF_THE_LIBRARY = ("use numpy only", "Count with pandas and plain Python")


@pytest.mark.parametrize("name", specs.available(SOURCE))
def test_each_notebook_names_every_library_module_its_questions_forbid(name):
    """A module a question forbids (``nbcourse.scale.*``) is named in the notebook's rule,
    or the rule allows nothing of the library inside the answers ("use numpy only")."""
    import json
    cells = json.loads((SOURCE / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
    text = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    text = " ".join(text.split())
    modules = {entry[:-2] for question in specs.load(name, SOURCE).questions
               for entry in question.forbidden if entry.endswith(".*")}
    assert "nbcourse._numerics" in modules, name  # wherever helpers are forbidden
    if any(words in text for words in ALL_OF_THE_LIBRARY):
        return
    missing = [module for module in sorted(modules) if f"`{module}" not in text]
    assert not missing, (name, missing)


# ------------------------------------ check() outside IPython warns where the grader flags
#: (exercise, question, code): the student's harness ran cells with ``exec``, so check()
#: read the compiled answer only, and missed what the grader then withheld
SILENT_IN_CHECK = [
    ("02_smoothing", "q7", "from nbcourse.smoothing import m_estimate as me\n"
                           "def m_smoothed(n_vc, n_c, m, Q):\n"
                           "    return me(n_vc, n_c, m, Q, exact=True)\n"),
    ("02_smoothing", "q3", "import nbcourse.smoothing as sm\n"
                           "def posterior_mean(a, b, heads, tails):\n"
                           "    f = getattr(sm, 'beta_' + 'mean')\n"
                           "    return f(a + heads, b + tails, exact=True)\n"),
    ("03_mle", "q1", "from nbcourse.mle import categorical_log_likelihood as cll\n"
                     "def log_likelihood(counts, theta):\n"
                     "    return float(cll(counts, theta))\n"),
    ("05_spam", "q2", "import nbcourse.evaluation as ev\n"
                      "def fraction_correct(y_true, y_pred):\n"
                      "    return getattr(ev, 'accu' + 'racy')(y_true, y_pred)\n"),
    ("06_gaussian", "q8", "from nbcourse.mle import logsumexp as lse\n"
                          "def stable_posterior(log_scores):\n"
                          "    s = np.asarray(log_scores, float)\n"
                          "    return np.exp(s - lse(s, axis=1)[:, None])\n"),
]


@pytest.mark.parametrize("name, question, code", SILENT_IN_CHECK, ids=lambda v: str(v)[:30])
def test_check_without_cell_text_warns_about_aliased_and_looked_up_helpers(name, question,
                                                                           code):
    spec = specs.load(name, SOURCE)
    assert flagged_answers([code], spec.probe_plan()).get(question), "the grader flags it"
    report = _checker(name).run(question, _answer(code, spec.question(question).name))
    assert report.flags, str(report)
    assert "the grader will flag it" in str(report) or "earn no points" in str(report)


def test_check_without_cell_text_leaves_the_students_own_class_alone():
    """The grader's rule: a class the notebook defines is the student's, whatever its name."""
    code = ("class CountTable:\n    pass\n"
            "def merge_counts(a, b):\n    CountTable()\n"
            "    return {k: a.get(k, 0) + b.get(k, 0) for k in sorted(set(a) | set(b))}\n")
    report = _checker("07_merging").run("q1", _answer(code, "merge_counts"))
    assert report.flags == [], str(report)


def test_validate_names_a_forbidden_module_the_library_does_not_have(tmp_path):
    from nbcourse.cli import main
    from nbcourse.grading.validate import errors, validate
    main(["new", "06_laplace", "--source", str(tmp_path)])
    spec = tmp_path / "06_laplace.grading.py"
    text = spec.read_text(encoding="utf-8")
    assert '# forbidden=("laplace",),' in text
    spec.write_text(text.replace('# forbidden=("laplace",),',
                                 'forbidden=("laplace", "nbcourse.smoothing.*"),'),
                    encoding="utf-8")
    assert not errors(validate("06_laplace", tmp_path))  # a module the library has
    spec.write_text(text.replace('# forbidden=("laplace",),',
                                 'forbidden=("nbcourse.smoothnig.*",),'), encoding="utf-8")
    found = errors(validate("06_laplace", tmp_path))
    assert [p.message for p in found] == [
        "q1: forbidden entry 'nbcourse.smoothnig.*': nbcourse.smoothnig is not a module of "
        "nbcourse"], found


def test_the_scan_reads_the_plans_strings_and_imports_no_library():
    """The worker's scan flags an expanded name without importing numpy or the library's
    modules: the expansion happened on the instructor's side."""
    import subprocess
    import sys
    code = ("import sys\nfrom nbcourse.grading.forbidden import find\n"
            "found = find(['import nbcourse.scale as s\\ndef f(x):\\n    return "
            "s.union_words(x)\\n'], 'f', ['nbcourse.scale.union_words'])\n"
            "print(found, 'numpy' in sys.modules, 'nbcourse.scale' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "['nbcourse.scale.union_words'] False False", out


#: (exercise, a graded function written with a forbidden helper, the questions flagged)
CALLED_WITH_A_HELPER = [
    ("03_mle", "from nbcourse.mle import class_prior_mle\n"
               "def class_priors(labels):\n    return class_prior_mle(labels).to_dict()\n",
     {"q4": ["class_prior_mle"]}),
    ("04_linearity", "from nbcourse.linear import decision_function\n"
                     "def decide(w0, w, X):\n"
                     "    return (decision_function(w0, w, X) >= 0).astype(int)\n",
     {"q2": ["decision_function"]}),
    ("07_merging", UNION, {"q3": ["nbcourse.scale.union_words"]}),
]


@pytest.mark.parametrize("name, code, flags", CALLED_WITH_A_HELPER, ids=lambda v: str(v)[:20])
def test_a_value_computed_with_a_flagged_function_is_not_flagged_with_it(name, code, flags):
    """A value whose cell calls a flagged graded function (its ``calls``) is not flagged
    too: the function's question forbids the same names and loses its points; the value is
    marked by follow-through, as over a wrong function."""
    cells = _solution_code(name) + [code]
    assert flagged_answers(cells, specs.load(name, SOURCE).probe_plan()) == flags
