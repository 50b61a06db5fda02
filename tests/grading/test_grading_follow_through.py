"""Follow-through marking: an answer that is right but calls a wrong graded function.

The sandboxed test grades three fixtures of exercise 1 through the real grader; the
others check the spec's declarations and the plan sent to the kernel.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from nbcourse.grading import specs
from nbcourse.grading.batch import grade_batch
from nbcourse.grading.class_report import question_table
from nbcourse.grading.diagnosis import batch_summary
from nbcourse.grading.execution.follow_through import replay_source
from nbcourse.grading.specs import Case, Exercise, Question

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "submissions"
_spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)

BUILDERS = ("only_likelihood_wrong", "likelihood_and_predict_wrong", "follow_through_talks",
            "likelihood_raises")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("follow-through")
    paths = []
    for name in BUILDERS:
        path = folder / f"{name}.ipynb"
        path.write_text(make_fixtures.render(getattr(make_fixtures, name)()), encoding="utf-8")
        paths.append(path)
    batch = grade_batch("01_weather", paths, folder / "out", jobs=1, progress=None)
    results = {r.submission: r for r in batch.results}
    pages = {name: (folder / "out" / "feedback" / f"{name}.html").read_text(encoding="utf-8")
             for name in BUILDERS}
    return batch, results, pages, folder / "out"


def _questions(result):
    return {q.name: q for q in result.questions}


def test_right_answers_that_call_a_wrong_likelihood_keep_their_points(graded):
    _, results, pages, _ = graded
    result = results["only_likelihood_wrong"]
    assert result.status == "graded", result.reasons
    q = _questions(result)
    assert q["likelihood"].score < 2
    for name, points in (("joint_scores", 3.0), ("predict", 2.0), ("p_no", 1.0)):
        assert q[name].score == points, (name, q[name].notes)
        assert q[name].status == "right given the functions it calls"
        assert q[name].follow_through == ["q1"]
        assert q[name].mistakes == [] and q[name].diagnosis == ""
        assert not any(note.startswith("hint: ") for note in q[name].notes)
    assert result.total == round(q["likelihood"].score + 3 + 2 + 1 + 2, 2)
    page = pages["only_likelihood_wrong"]
    assert "Your `predict` is right: it fails only because it calls your `likelihood` (q1)" \
        in page.replace("&#x27;", "'")
    # the symptom is not blamed on predict: no "always the most common label" and co.
    predict_section = page.split("<h2>q3")[1].split("<h2>")[0]
    assert "Known mistake" not in predict_section and "known mistake" not in predict_section


def test_a_value_whose_cell_failed_through_a_wrong_function_is_not_missing(graded):
    _, results, _, _ = graded
    result = results["likelihood_raises"]
    q = _questions(result)
    assert q["likelihood"].score == 0.0
    for name in ("joint_scores", "predict", "p_no"):
        assert q[name].status == "right given the functions it calls", (name, q[name].notes)
    assert result.total == 3 + 2 + 1 + 2
    assert result.status == "cell error"  # the cells that raised are still reported
    assert not any("not defined" in reason for reason in result.reasons)


def test_the_class_report_counts_the_cause_not_the_symptom(graded):
    batch, _, _, _ = graded
    table = {row["id"]: row for row in question_table(batch)}
    assert table["q1"]["mistakes"] == [("divided by the whole table", 3)]
    assert table["q2"]["mistakes"] == [] and table["q2"]["right_given_callees"] == 4
    assert table["q2"]["unrecognised"] == 0
    # predict is wrong on its own in one submission: that one mistake is counted
    assert batch_summary(batch.results, batch.exercise)["q3"] == {"the smallest score": 1}


def test_a_caller_wrong_on_its_own_gets_no_follow_through_credit(graded):
    _, results, pages, _ = graded
    q = _questions(results["likelihood_and_predict_wrong"])
    assert q["joint_scores"].score == 3.0 and q["p_no"].score == 1.0
    predict = q["predict"]
    assert predict.status in ("failed", "partly passed") and predict.score < 2.0
    assert predict.follow_through == []
    # its mistake is named from its own logic, with the right likelihood in place
    assert predict.mistakes == ["the smallest score"]
    assert any("still fails some tests, so it has a mistake of its own" in note
               for note in predict.notes)


def test_what_the_kernel_says_during_follow_through_never_reaches_a_page(graded):
    _, results, pages, out = graded
    q = _questions(results["follow_through_talks"])
    assert q["predict"].follow_through == [] and q["predict"].score < 2.0
    assert q["joint_scores"].score == 3.0
    texts = [pages["follow_through_talks"], (out / "results.json").read_text(),
             (out / "grades.csv").read_text()]
    for text in texts:
        assert "FOLLOW-THROUGH-SAYS" not in text
    # what is said about predict is the ordinary reading and fixed text
    assert any("still fails some tests, so it has a mistake of its own" in note
               for note in q["predict"].notes)


def _exercise(**calls):
    def question(qid, name, kind="function"):
        return Question(qid, name, points=1, title=name, kind=kind, reference=lambda *a: 1,
                        cases=[Case("a case", (1,))] if kind == "function" else (),
                        calls=calls.get(name, ()))
    return Exercise("t", [question("q1", "f"), question("q2", "g"), question("q3", "h"),
                          question("q4", "v", kind="value")])


def test_calls_must_name_other_graded_functions_without_cycles():
    assert [q.name for q in _exercise(g=("f",), h=("g",)).callees(
        _exercise(g=("f",), h=("g",)).question("q3"))] == ["f", "g"]
    with pytest.raises(ValueError, match="not another graded function"):
        _exercise(g=("nothing",))
    with pytest.raises(ValueError, match="not another graded function"):
        _exercise(g=("v",))  # a value is not called
    with pytest.raises(ValueError, match="cycle"):
        _exercise(f=("g",), g=("h",), h=("f",))
    with pytest.raises(ValueError, match="follow_through"):
        Question("q1", "f", points=1, title="f", reference=lambda: 1,
                 cases=[Case("a", (1,))], follow_through=1.5)


def test_the_kernel_gets_the_callees_solutions_only_and_callees_first():
    exercise = specs.load("01_weather")
    probes = exercise.probe_plan()["follow_through"]
    swaps = [p for p in probes if "/swap/" in p.get("key", "")]  # q4's swap comes last
    assert [p["question"] for p in swaps] == ["q4"] and probes[-1] is swaps[0]
    probes = [p for p in probes if p not in swaps]
    assert [p["question"] for p in probes] == ["q2", "q3", "q4"]
    by_id = {p["question"]: p for p in probes}
    assert by_id["q2"]["replace"] == ["likelihood"]
    assert "def likelihood(" in by_id["q2"]["reference"]
    assert "def joint_scores(" not in by_id["q2"]["reference"]  # q2's own solution
    assert "def predict(" not in by_id["q3"]["reference"]
    for probe in probes:
        assert "expected" not in json.dumps(probe)
        assert "BEGIN" not in probe["reference"]  # markers and comments are gone


def test_a_value_is_read_again_from_the_cell_that_assigns_it_without_redefinitions():
    cells = [("code", "def likelihood(t):\n    return 0\nx = 1"),
             ("markdown", "p_no = 2"),
             ("code", "%time y = 1\ndef joint_scores():\n    pass\np_no = joint_scores()"),
             ("code", "print(p_no)")]
    source = replay_source(cells, "p_no", ["joint_scores"])
    assert "p_no = joint_scores()" in source and "def joint_scores" not in source
    assert "%time" not in source and "x = 1" not in source
    assert replay_source(cells, "nothing", []) is None


def test_a_later_cell_that_assigns_the_value_only_in_a_branch_keeps_the_earlier_cell():
    """A later cell that assigns ``p_no`` only when something is wrong (``if found:``) was
    read again alone: the swapped ``joint_scores`` never reached ``p_no``, and a right
    answer failed its swap (the sandbox_12 fixtures lost q4's point)."""
    cells = [("code", "def joint_scores():\n    pass"),
             ("code", "scores = joint_scores()\np_no = scores['no']"),
             ("code", "found = set()\nif found:\n    p_no = 'odd'")]
    source = replay_source(cells, "p_no", ["joint_scores"])
    assert source.splitlines() == ["scores = joint_scores()", "p_no = scores['no']",
                                   "found = set()", "if found:", "    p_no = 'odd'"]


def test_a_cell_too_deep_to_write_back_is_not_replayed_and_does_not_stop_the_grader():
    """Red team 3: a sum of a thousand terms parses and runs, but ``ast.unparse``
    recurses past Python's limit: the RecursionError ended the grading of the whole
    submission ("grader error").  Such a cell is not read again (ordinary marking)."""
    deep = "_sum = " + " + ".join(["1"] * 1000)
    cells = [("code", "def f(x):\n    return x"), ("code", f"p = f(2)\n{deep}")]
    assert replay_source(cells, "p", ["f"]) is None
    assert replay_source([("code", "p = f(2)")], "p", ["f"]) == "p = f(2)"


def test_a_value_is_read_again_with_the_earlier_cells_it_reads_that_used_a_swapped_function():
    """Issue 34: exercise 04's ``agreement`` and ``free_shift`` read ``w0, w``, computed two
    cells before by ``linear_weights``: swapping the function alone left them as they were."""
    cells = [("code", "import numpy as np\nmodel = fit()"),
             ("code", "def linear_weights(m):\n    return 0, [1]"),
             ("code", "check('q1', linear_weights)"),
             ("code", "w0, w = linear_weights(model)\nwords = list(w)"),
             ("code", "unrelated = np.zeros(3)"),
             ("code", "top = sorted(words)"),
             ("code", "free_shift = float(top[0]) + w0")]
    source = replay_source(cells, "free_shift", ["linear_weights"])
    assert source.splitlines() == ["w0, w = linear_weights(model)", "words = list(w)",
                                   "top = sorted(words)", "free_shift = float(top[0]) + w0"]


def _solved(exercise: str, replace: dict[str, str]) -> str:
    """The instructor's solution of ``exercise`` as a student hands it in, with the cells
    that define each name in ``replace`` replaced by its code."""
    notebook = json.loads((REPO / "exercises" / "source" / f"{exercise}.ipynb").read_text())
    cells = []
    for cell in notebook["cells"]:
        text = "".join(cell["source"])
        if "BEGIN HIDDEN TESTS" in text:
            continue
        for name, code in replace.items():
            if cell["cell_type"] == "code" and f"def {name}(" in text:
                cell = dict(cell, source=code, outputs=[], execution_count=None)
        cells.append(cell)
    return json.dumps(dict(notebook, cells=cells))


ERROR_RATE = '''
def fraction_correct(y_true, y_pred):
    return float(np.mean(np.asarray(y_true) != np.asarray(y_pred)))  # the error rate
'''


def test_one_wrong_accuracy_function_costs_only_its_own_point(tmp_path):
    """Issue 34: a wrong fraction_correct cost 7.8 of 12 points, with hints to rewrite
    choose_alpha, spam_experiment and the values computed from them."""
    path = tmp_path / "error_rate.ipynb"
    path.write_text(_solved("05_spam", {"fraction_correct": ERROR_RATE}), encoding="utf-8")
    batch = grade_batch("05_spam", [path], tmp_path / "out", jobs=1, progress=None)
    (result,) = batch.results
    q = _questions(result)
    assert q["fraction_correct"].score < 1.0
    assert q["fraction_correct"].mistakes == ["the error rate"]
    # the two values are one call each of a spam_experiment that is right given
    # fraction_correct: they are marked as it is, with all their points (issue 34, a fifth
    # student: they kept half while spam_experiment kept all)
    for name in ("choose_alpha", "spam_experiment", "best_alpha", "test_accuracy"):
        assert q[name].status == "right given the functions it calls", (name, q[name].notes)
        assert q[name].score == q[name].points, (name, q[name].notes)
        assert q[name].follow_through == ["q2"]
        assert any(note.startswith(f"Your `{name}` is right:") for note in q[name].notes)
        assert not q[name].mistakes
        assert not any(note.startswith("hint: ") for note in q[name].notes)
    assert result.total == batch.exercise.maximum - 1 + q["fraction_correct"].score


def test_an_empty_recipe_does_not_buy_the_values_it_computes(tmp_path):
    """Red team: spam_experiment written as `return 0, 0` made best_alpha and test_accuracy
    (one call each) "right given the functions they call": 3 points for an empty recipe.
    The spec gives such values half their points through follow-through."""
    path = tmp_path / "empty_recipe.ipynb"
    empty = "def spam_experiment(texts, labels, alphas, seed):\n    return 0, 0\n"
    path.write_text(_solved("05_spam", {"spam_experiment": empty}), encoding="utf-8")
    batch = grade_batch("05_spam", [path], tmp_path / "out", jobs=1, progress=None)
    (result,) = batch.results
    q = _questions(result)
    assert q["spam_experiment"].score == 0
    assert q["best_alpha"].score + q["test_accuracy"].score == 1.5  # not 3
    for name in ("best_alpha", "test_accuracy"):  # half marks are not called simply right
        assert not any("is right" in note for note in q[name].notes), q[name].notes
        assert any("only part of its points" in note for note in q[name].notes), q[name].notes


def test_no_alpha_choice_at_all_is_not_called_choosing_on_the_test_part():
    from nbcourse.grading.hidden import grade_question
    exercise = specs.load("05_spam")
    question = exercise.question("q4")
    mistake = next(m for m in question.mistakes if m.name == "no alpha chosen: alpha = 1")
    result = grade_question(question, mistake.reference)
    assert result.mistakes == ["no alpha chosen: alpha = 1"]
    assert "alpha chosen on the test part" not in result.diagnosis


def test_validate_warns_when_a_called_function_has_no_solution(tmp_path):
    from nbcourse.grading.validate import validate
    source = REPO / "exercises" / "source"
    for suffix in (".grading.py", ".ipynb"):
        name = f"01_weather{suffix}"
        (tmp_path / name).write_bytes((source / name).read_bytes())
    assert not [p for p in validate("01_weather", tmp_path) if "follow-through" in p.message]
    notebook = json.loads((tmp_path / "01_weather.ipynb").read_text())
    for cell in notebook["cells"]:
        cell["source"] = "".join(cell["source"]).replace("def likelihood(", "def likelihood_(")
    (tmp_path / "01_weather.ipynb").write_text(json.dumps(notebook))
    warned = [p for p in validate("01_weather", tmp_path) if "follow-through" in p.message]
    assert [p.level for p in warned] == ["warning"] * 3  # q2, q3, q4
    assert "q2 calls likelihood" in warned[0].message


def test_check_blames_the_function_that_fails_not_the_one_that_calls_it():
    """check("q3", predict) with a wrong likelihood: no "always the most common label",
    no hint to rewrite predict, and the name of the function to fix."""
    from nbcourse.grading.selfcheck import Checker
    namespace: dict = {}
    exec("from fractions import Fraction\n" + make_fixtures.WRONG_LIKELIHOOD + """
def joint_scores(table, query, target):
    scores = {}
    for label in table[target].unique():
        score = Fraction(int((table[target] == label).sum()), len(table))
        for feature, value in query.items():
            score *= likelihood(table, feature, value, target, label)
        scores[label] = score
    return scores

def predict(table, query, target):
    scores = joint_scores(table, query, target)
    return max(scores, key=scores.get)
""", namespace)
    checker = Checker("01_weather", path=REPO / "exercises" / "01_weather.checks.json")
    report = checker.run("q3", namespace["predict"], sources=[])
    assert not report.all_passed  # the wrong likelihood shows
    assert report.mistakes == [] and report.diagnosis == ""
    assert report.callees_failing == "`likelihood` (q1)"
    text = str(report)
    assert "hint:" not in text and "fix that first" in text
    # the function to fix is still told its own mistake
    assert checker.run("q1", namespace["likelihood"], sources=[]).mistakes == \
        ["divided by the whole table"]


def test_the_probe_puts_the_students_functions_back():
    from nbcourse.grading.execution import probe_source
    namespace: dict = {}
    exec("def f(x):\n    return -1\n\ndef g(x):\n    return f(x) + 1\n", namespace)
    own = namespace["f"]
    request = {"question": "q2", "name": "g", "kind": "function", "replace": ["f"],
               "graded": ["f", "g"], "reference": "def f(x):\n    return 2 * x\n",
               "cases": [{"args": [3], "kwargs": {"$dict": []}}]}
    report = probe_source._report(namespace, request)
    assert report["cases"] == [{"value": 7}]
    assert namespace["f"] is own and namespace["g"](3) == 0
    # a reference that cannot be defined: no reading, and still the student's own f
    report = probe_source._report(namespace, dict(request, reference="def f(:"))
    assert "unreadable" in report and namespace["f"] is own



LEAKY = """
from functools import lru_cache

kept = []

@lru_cache
def scaled(y):
    return f(y)

def f(x):
    return -x

def h(y):
    return 0

def g(y):
    return h(y) + x  # reads the global x, which a cell computes with f

def keeper(y):
    kept.append(f)  # keeps whatever f is when it is called
    return f(y)

def later(y):
    return kept[0](y) if kept else f(y)

x = f(1)
v = x
"""


def _probe(namespace, **request):
    from nbcourse.grading.execution import probe_source
    base = {"question": "q", "kind": "function",
            "graded": ["f", "h", "g", "keeper", "later", "scaled"],
            "cases": [{"args": [5], "kwargs": {"$dict": []}}]}
    return probe_source._report(namespace, dict(base, **request))


def test_a_follow_through_probe_leaves_nothing_for_the_next_one():
    """Issue 34: callee sets need not nest (04's agreement swaps linear_weights and decide,
    free_shift only linear_weights). A value's probe runs its cell again with the solutions:
    what that cell binds must not shape a later probe that swaps other functions."""
    namespace: dict = {}
    exec(LEAKY, namespace)
    own = {name: namespace[name] for name in ("f", "x", "v")}
    first = _probe(namespace, name="v", kind="value", replace=["f"], cell="x = f(1)\nv = x",
                   reference="def f(x):\n    return 10 * x\n")
    assert first["value"] == 10  # read with the solution of f
    assert all(namespace[name] is value for name, value in own.items())
    second = _probe(namespace, name="g", replace=["h"],
                    reference="def h(y):\n    return y\n")
    assert second["cases"] == [{"value": 5 + own["x"]}]  # the student's x, not 10


def test_a_solution_a_students_function_kept_is_retired_after_its_probe():
    namespace: dict = {}
    exec(LEAKY, namespace)
    first = _probe(namespace, name="keeper", replace=["f"],
                   reference="def f(x):\n    return 10 * x\n")
    assert first["cases"] == [{"value": 50}] and len(namespace["kept"]) == 1
    with pytest.raises(RuntimeError, match="not available later"):
        namespace["kept"][0](5)
    second = _probe(namespace, name="later", replace=["h"],
                    reference="def h(y):\n    return y\n")
    assert "error" in second["cases"][0]  # never the solution's 50



def test_a_memoised_function_forgets_what_it_computed_around_a_probe():
    namespace: dict = {}
    exec(LEAKY, namespace)
    assert namespace["scaled"](5) == -5  # memoised in the ordinary run
    first = _probe(namespace, name="scaled", replace=["f"],
                   reference="def f(x):\n    return 10 * x\n")
    assert first["cases"] == [{"value": 50}]  # not the ordinary run's -5
    assert namespace["scaled"](5) == -5  # not the solution's 50


W0_IN_EVERY_WEIGHT = '''
def linear_weights(class_log_prior, feature_log_prob):
    class_log_prior = np.asarray(class_log_prior, dtype=float)
    feature_log_prob = np.asarray(feature_log_prob, dtype=float)
    w0 = class_log_prior[1] - class_log_prior[0]
    return float(w0), feature_log_prob[1] - feature_log_prob[0] + w0  # w0 in every weight
'''


def test_a_wrong_function_two_cells_up_costs_only_its_own_points(tmp_path):
    """Issue 34: in exercise 04 a wrong ``linear_weights`` also cost ``agreement`` (q4) and
    ``free_shift`` (q7), which read ``w0, w`` from a cell that calls it: both are now
    read again with that cell run on the solution's function, and keep their points."""
    path = tmp_path / "w0_everywhere.ipynb"
    path.write_text(_solved("04_linearity", {"linear_weights": W0_IN_EVERY_WEIGHT}),
                    encoding="utf-8")
    batch = grade_batch("04_linearity", [path], tmp_path / "out", jobs=1, progress=None)
    (result,) = batch.results
    q = _questions(result)
    assert q["linear_weights"].score < q["linear_weights"].points
    for name in ("agreement", "free_shift"):
        assert q[name].status == "right given the functions it calls", (name, q[name].notes)
        assert q[name].score == q[name].points
        assert q[name].follow_through == ["q1"]
    assert result.total == batch.exercise.maximum - (q["linear_weights"].points
                                                     - q["linear_weights"].score)


# -- one replay for the values one cell computes (exercise 05's best_alpha and test_accuracy)

PAIR = "def pair(x):\n    return -x, -2 * x\n\nfirst, second = pair(1)\n"
PAIR_CELLS = [("code", "def pair(x):\n    return -x, -2 * x\n"), ("code", "first, second = pair(1)\n")]


def _value_request(question, name):
    return {"question": question, "name": name, "kind": "value", "replace": ["pair"],
            "graded": ["pair", "first", "second"],
            "reference": "def pair(x):\n    return x, 2 * x\n"}


def test_one_replay_reads_every_value_its_cell_computes():
    from nbcourse.grading.execution import probe_source
    namespace: dict = {}
    exec(PAIR, namespace)
    own = {name: namespace[name] for name in ("pair", "first", "second")}
    request = dict(_value_request("q2", "first"), cell="first, second = pair(1)",
                   also=[["q3", "second"]])
    report = probe_source._report(namespace, request)
    assert report["value"] == 1  # read with the solution of pair
    assert report["also"] == [{"question": "q3", "name": "second", "value": 2}]
    assert all(namespace[name] is value for name, value in own.items())


def _run_follow_through(requests, reply_for):
    import asyncio

    from nbcourse.grading.execution.follow_through import run_follow_through
    from nbcourse.grading.execution.report import RunReport
    from nbcourse.grading.execution.replies import checked_reply

    sent = []

    async def probe(session, request, indices, limits, report, deadline, extra):
        full = dict(request, **extra)
        sent.append(full)
        return checked_reply(reply_for(full), full)

    report = RunReport()
    stopped = asyncio.run(run_follow_through(None, {"follow_through": requests}, PAIR_CELLS,
                                             None, report, 0.0, probe))
    assert not stopped
    return sent, report.follow_through


def test_values_of_the_same_replay_share_one_probe():
    requests = [_value_request("q2", "first"), _value_request("q3", "second")]

    def reply_for(request):
        also = [{"question": q, "name": n, "value": 2} for q, n in request.get("also", [])]
        return {"question": request["question"], "name": request["name"], "value": 1, "also": also}

    sent, replies = _run_follow_through(requests, reply_for)
    assert len(sent) == 1 and sent[0]["also"] == [["q3", "second"]]
    assert replies == {"q2": {"question": "q2", "name": "first", "value": 1},
                       "q3": {"question": "q3", "name": "second", "value": 2}}


def test_a_value_the_shared_replay_did_not_report_gets_its_own_probe():
    requests = [_value_request("q2", "first"), _value_request("q3", "second")]

    def reply_for(request):  # the kernel's reply says nothing of q3, or names another value
        also = [{"question": "q9", "name": "other", "value": 5}] if request.get("also") else []
        value = 1 if request["question"] == "q2" else 2
        return {"question": request["question"], "name": request["name"], "value": value,
                "also": also}

    sent, replies = _run_follow_through(requests, reply_for)
    assert [request["question"] for request in sent] == ["q2", "q3"]
    assert "also" not in sent[1]
    assert replies["q3"] == {"question": "q3", "name": "second", "value": 2}


# -- a function that changes its input in place (student 9: likelihood dropping rows)

def test_the_data_a_function_changed_in_place_is_made_again_before_the_value():
    """The replay re-ran only the value's cell, on a table the student's ``likelihood``
    had emptied of rows in place: a right ``p_no`` lost its point.  When a graded function
    was seen changing its input, the cells that made what was handed to a replaced
    function run again first (and only then)."""
    cells = [("code", "import pandas as pd\nweather = load()\nday = {'a': 1}"),
             ("code", "def likelihood(t):\n    t.drop(t.index, inplace=True)\n    return 0"),
             ("code", "likelihood(weather)"),
             ("code", "unrelated = load()"),
             ("code", "s = joint_scores(weather, day)\np_no = s['no'] / sum(s.values())")]
    replaced = ["likelihood", "joint_scores"]
    assert replay_source(cells, "p_no", replaced).splitlines() == cells[-1][1].splitlines()
    source = replay_source(cells, "p_no", replaced, inputs_changed=True)
    assert source.splitlines() == ["import pandas as pd", "weather = load()", "day = {'a': 1}",
                                   "s = joint_scores(weather, day)",
                                   "p_no = s['no'] / sum(s.values())"]


DROPS_ROWS = '''
def likelihood(table, feature, value, target, label):
    table.drop(table.index[table[target] != label], inplace=True)  # changes the caller's table
    return Fraction(int((table[feature] == value).sum()), len(table))
'''


def test_a_right_value_keeps_its_point_when_a_function_emptied_its_table(tmp_path):
    """Student 9: with ``likelihood`` dropping rows of the table it is given, ``p_no``'s cell
    (right) lost its point: the replay ran on the already emptied ``weather``."""
    path = tmp_path / "drops_rows.ipynb"
    path.write_text(_solved("01_weather", {"likelihood": DROPS_ROWS}), encoding="utf-8")
    batch = grade_batch("01_weather", [path], tmp_path / "out", jobs=1, progress=None)
    (result,) = batch.results
    q = _questions(result)
    assert q["likelihood"].score < q["likelihood"].points
    for name in ("joint_scores", "predict", "p_no"):
        assert q[name].score == q[name].points, (name, q[name].status, q[name].notes)
        assert q[name].follow_through == ["q1"], name
