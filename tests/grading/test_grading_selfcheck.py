"""The student's check(...) and the instructor's command line."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from nbcourse.cli import build_parser, main
from nbcourse.grading.scoring import HIDDEN_RAISED
from nbcourse.datasets import load_weather
from nbcourse.grading import check_for
from nbcourse.grading import specs
from nbcourse.grading.library_names import expand
from nbcourse.grading.selfcheck import Checker

REPO = Path(__file__).resolve().parents[2]
NAMES = specs.available(REPO / "exercises" / "source")

WEATHER = load_weather()


def right_likelihood(table, feature, value, target, label):
    rows = table[table[target] == label]
    return Fraction(int((rows[feature] == value).sum()), len(rows))


def wrong_likelihood(table, feature, value, target, label):
    rows = table[table[target] == label]
    return Fraction(int((rows[feature] == value).sum()), len(table))  # the whole table


def test_a_right_answer_passes_and_the_report_mentions_hidden_tests(capsys):
    check = check_for("01_weather")
    assert check.run("q1", right_likelihood).all_passed
    check("q1", right_likelihood)
    printed = capsys.readouterr().out
    assert "q1 · likelihood: 5 of 5 public tests passed" in printed
    assert "Hidden tests with other inputs run when your notebook is graded" in printed


def test_a_wrong_answer_fails_with_a_hint_but_without_the_answer():
    result = check_for("weather").run("q1", wrong_likelihood)
    assert not result.all_passed and result.passed == 1
    text = str(result)
    assert "✘ P(outlook = sunny | play = yes)" in text
    assert "got Fraction(1, 7)" in text          # the student's own value
    assert "2/9" not in text and "Fraction(2, 9)" not in text  # not the answer
    # the known mistake is named, with the lesson section that clears it up
    assert "Known mistake (divided by the whole table)" in text and "lesson 01, §4" in text
    odd = str(check_for("weather").run("q1", lambda *args: Fraction(1, 3)))
    assert "Known mistake" not in odd and "hint: count only the rows of the class" in odd


def test_unfinished_and_misused_answers_get_clear_messages():
    def stub(*args):
        raise NotImplementedError()

    check = Checker("01_weather")
    assert "not answered yet" in str(check.run("q1", stub))
    passed_a_value = check.run("q2", {"yes": 0.1})
    assert "without parentheses" in passed_a_value.problem
    crashing = check.run("q3", lambda table, query, target: table["nope"])
    assert "raised KeyError" in str(crashing)
    with pytest.raises(ValueError, match="question must be one of"):
        check.run("q9", stub)
    # no checks file: a message, never an exception (the notebook must still run, e.g. in
    # the grader's sandbox, which holds only the submission)
    assert "no public checks found for 'quantum'" in str(check_for("quantum").run("q1", stub))


def test_an_answer_that_exits_is_a_failed_case_in_check_as_at_grading():
    # The probe reports SystemExit as the case's error; check() used to let it end the check.
    def leaves(*args):
        sys.exit(3)

    def interrupted(*args):
        raise KeyboardInterrupt

    result = Checker("01_weather").run("q1", leaves)
    assert not result.all_passed and "raised SystemExit: 3" in str(result)
    with pytest.raises(KeyboardInterrupt):  # the student stopping the check still stops it
        Checker("01_weather").run("q1", interrupted)


def test_the_stub_sentence_is_written_once():
    # check() and the grader's pages say it with the same words, from diagnosis.py
    homes = [path.relative_to(REPO).as_posix() for path in (REPO / "nbcourse").rglob("*.py")
             if "(it still raises NotImplementedError)" in path.read_text(encoding="utf-8")]
    assert homes == ["nbcourse/grading/diagnosis.py"]


def test_value_questions_are_checked_as_values():
    check = check_for("01_weather")
    assert not check.run("q4", 1.5).all_passed
    assert "between 0 and 1" in str(check.run("q4", 1.5))
    assert check.run("q4", Fraction(486, 611)).all_passed


@pytest.mark.parametrize("exercise", NAMES)
def test_every_exercise_has_public_tests_for_every_graded_question(exercise):
    checker = check_for(exercise)
    graded = specs.load(exercise)
    assert sorted(checker.questions) == sorted(q.id for q in graded.questions)
    for question in graded.questions:
        assert checker.questions[question.id].name == question.name
        public = [case.name for case in question.cases if not case.hidden]
        assert public and [case["name"] for case in checker.questions[question.id].cases] == public


def _all_actions(parser: argparse.ArgumentParser):
    for action in parser._actions:
        yield parser, action
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _all_actions(sub)


def test_every_command_and_option_has_help_text():
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert {"init", "list", "new", "validate", "release", "grade"} <= set(commands.choices)
    for sub in commands.choices.values():
        assert sub.description
    for owner, action in _all_actions(parser):
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        assert action.help, f"{owner.prog}: {action.option_strings or action.dest} has no help"


def test_grade_help_shows_the_documented_usage():
    usage = subprocess.run([sys.executable, "-m", "nbcourse.cli", "grade", "--help"],
                           capture_output=True, text=True, check=True).stdout
    for text in ("EXERCISE", "SUBMISSION", "--out DIR", "--jobs N", "--timeout SECONDS"):
        assert text in usage


def test_list_shows_every_exercise_with_points(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "01_weather: Exercise 1: the weather example by hand (10 points)" in out
    assert "05_spam" in out and "q3  choose_alpha" in out


def test_usage_errors_exit_2_with_a_message(tmp_path, capsys):
    assert main(["grade", "quantum", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "unknown exercise 'quantum'" in capsys.readouterr().err
    assert main(["grade", "weather", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "no submissions" in capsys.readouterr().err
    with pytest.raises(SystemExit) as error:
        main(["grade", "weather", "x.ipynb", "--out", "o", "--jobs", "0"])
    assert error.value.code == 2


# ---------------------------------------------------------------- common mistakes
def _decide(w0, w, X, use_w0=True):
    scores = (w0 if use_w0 else 0.0) + np.asarray(X @ np.asarray(w, dtype=float)).ravel()
    return (scores > 0).astype(int)


def _posterior(w0, w, X, use_w0=True):
    scores = (w0 if use_w0 else 0.0) + np.asarray(X @ np.asarray(w, dtype=float)).ravel()
    return 1 / (1 + np.exp(-scores))


def _choose_alpha(X_train, y_train, X_validation, y_validation, alphas, score_on="validation",
                  last_of_ties=False):
    from nbcourse import MultinomialNB
    best, best_accuracy = None, -1.0
    for alpha in alphas:
        model = MultinomialNB(alpha=alpha).fit(X_train, y_train)
        X, y = (X_validation, y_validation) if score_on == "validation" else (X_train, y_train)
        accuracy = float(np.mean(model.predict(X) == np.asarray(y)))
        if accuracy > best_accuracy or (last_of_ties and accuracy == best_accuracy):
            best, best_accuracy = alpha, accuracy
    return best


def _smoothed_p_no(prior):
    day = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}
    scores = {}
    for label in ("no", "yes"):
        rows = WEATHER[WEATHER["play"] == label]
        score = prior(len(rows), len(WEATHER))
        for feature, value in day.items():
            score *= Fraction(int((rows[feature] == value).sum()) + 1,
                              len(rows) + WEATHER[feature].nunique())
        scores[label] = score
    return scores["no"] / sum(scores.values())


def _predict(table, query, target, with_prior=True):
    scores = {}
    for label in table[target].unique():
        rows = table[table[target] == label]
        score = Fraction(len(rows), len(table)) if with_prior else Fraction(1)
        for feature, value in query.items():
            score *= Fraction(int((rows[feature] == value).sum()), len(rows))
        scores[label] = score
    return max(scores, key=scores.get)


# exercise, question, right answer, wrong answer, what the report must say about it
MISTAKES = [
    ("04_linearity", "q2", _decide, lambda w0, w, X: _decide(w0, w, X, use_w0=False),
     "Your score leaves out w0"),
    ("04_linearity", "q3", _posterior, lambda w0, w, X: _posterior(w0, w, X, use_w0=False),
     "Your score leaves out w0"),
    ("04_linearity", "q4", 1.0, 0.0, "they never compare equal"),
    ("04_linearity", "q4", 1.0, 0.96, "keep w0 in the score"),
    ("05_spam", "q3", _choose_alpha,
     lambda *args: _choose_alpha(*args, score_on="training"),
     "You chose alpha by its accuracy on the training part"),
    ("05_spam", "q3", _choose_alpha, lambda *args: _choose_alpha(*args, last_of_ties=True),
     "Keep the first (the smallest)"),
    ("02_smoothing", "q4", lambda k, n: (k, n - k), lambda k, n: (k + 1, n - k + 1),
     "it is the MAP (the mode) that equals"),
    ("02_smoothing", "q4", lambda k, n: (k, n - k), lambda k, n: (1, 1),
     "for every number of heads and tails"),
    ("02_smoothing", "q6", _smoothed_p_no(lambda n, total: Fraction(n, total)),
     _smoothed_p_no(lambda n, total: Fraction(n + 1, total + 2)),
     "the prior P(play) stays the plain share of rows"),
    ("02_smoothing", "q6", _smoothed_p_no(lambda n, total: Fraction(n, total)),
     _smoothed_p_no(lambda n, total: Fraction(1)), "The class prior P(play) is missing"),
    ("01_weather", "q3", _predict, lambda t, q, y: _predict(t, q, y, with_prior=False),
     "The class prior P(y) is missing"),
]


@pytest.mark.parametrize("exercise, question, right, wrong, says", MISTAKES)
def test_public_checks_catch_the_common_mistake_with_a_hint(exercise, question, right, wrong,
                                                            says):
    check = check_for(exercise)
    assert check.run(question, right).all_passed, str(check.run(question, right))
    report = check.run(question, wrong)
    if report.graded_later:
        # a value's answer never ships (issue 34): check() sees its form, the grader the rest
        from nbcourse.grading.hidden import grade_answer
        result = grade_answer(exercise, question, wrong, REPO / "exercises" / "source")
        assert result.score == 0
        assert says in " ".join(result.notes), result.notes
        return
    assert not report.all_passed
    assert says in str(report)


def test_public_hints_do_not_give_the_answer_away():
    report = str(check_for("05_spam").run(
        "q3", lambda *args: _choose_alpha(*args, score_on="training")))
    assert "1.0" not in report and "alpha = 1" not in report
    report = str(check_for("02_smoothing").run("q4", lambda k, n: (k + 1, n - k + 1)))
    assert "n - k)" not in report and "Beta(k, " not in report
    report = str(check_for("02_smoothing").run("q6", 0.7))
    assert "0.72" not in report


# ---------------------------------------------------------------- forbidden names
def test_public_checks_flag_the_same_names_as_the_grader():
    for exercise in NAMES:
        graded = specs.load(exercise)
        public = check_for(exercise).questions
        plan = {q["question"]: q for q in graded.probe_plan()["questions"]}
        for question in graded.questions:
            # module entries (``nbcourse.scale.*``) arrive expanded, the same on both sides
            assert tuple(public[question.id].forbidden) == tuple(expand(question.forbidden)) \
                == tuple(plan[question.id]["forbidden"]), f"{exercise} {question.id}"


CALLS_THE_ESTIMATOR = [
    "import pandas as pd\nfrom nbcourse import CategoricalNB as NB",
    "def helper(table, query, target):\n"
    "    model = NB(alpha=0).fit(table[list(query)], table[target])\n"
    "    row = model.joint_proba(pd.DataFrame([query]), exact=True).iloc[0]\n"
    "    return {label: row[label] for label in model.classes_}",
    "def joint_scores(table, query, target):\n    return helper(table, query, target)",
]


def test_check_warns_when_the_answer_calls_the_estimator_it_should_rewrite():
    namespace: dict = {}
    for cell in CALLS_THE_ESTIMATOR:
        exec(cell, namespace)  # noqa: S102 - the student's cells
    check = check_for("01_weather")
    report = check.run("q2", namespace["joint_scores"], sources=CALLS_THE_ESTIMATOR)
    assert report.flags == ["CategoricalNB"]
    text = str(report)
    assert "3 of 3 public tests passed" in text
    assert "⚠ joint_scores uses CategoricalNB" in text and "the grader will flag it" in text
    honest = check.run("q1", right_likelihood, sources=CALLS_THE_ESTIMATOR)
    assert honest.flags == [] and "⚠" not in str(honest)


def test_check_reads_the_notebook_cells_in_a_real_ipython_session(tmp_path):
    """In Jupyter, check() scans the cells run so far, the way the grader scans the file."""
    script = f"""
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
cells = {CALLS_THE_ESTIMATOR!r} + [
    "from nbcourse.grading import check_for\\ncheck = check_for('01_weather')",
    "check('q2', joint_scores)",
    "def joint_scores(table, query, target):\\n    return {{}}",
    "check('q2', joint_scores)",
]
for cell in cells:
    assert shell.run_cell(cell, store_history=True).success, cell
"""
    env = dict(os.environ, IPYTHONDIR=str(tmp_path / "ipython"),
               NBCOURSE_CHECKS=str(REPO / "exercises"))  # cwd is elsewhere
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    first, second = out.stdout.split("q2 · joint_scores:")[1:]
    assert "⚠ joint_scores uses CategoricalNB" in first
    assert "⚠" not in second  # rewritten without the estimator: no warning any more


# ---------------------------------------------------------------- issue 19: the exercises as a student
def _spec_module(name):
    """The spec's own functions (the known mistakes are written there)."""
    import importlib.util
    path = REPO / "exercises" / "source" / f"{name}.grading.py"
    module_spec = importlib.util.spec_from_file_location(f"spec_{name}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def test_19_1_a_correct_spam_recipe_is_never_marked_wrong_on_the_mini_corpus():
    """Without the real corpus, q5/q6's public checks test the form only, and q4's public
    case runs on its own small corpus, so a correct answer passes whatever the data."""
    from nbcourse.datasets import load_sms_mini
    spam = _spec_module("05_spam")
    mini = load_sms_mini()
    best, accuracy = spam.ref_experiment(mini["text"].tolist(), mini["label"].tolist(),
                                         spam.ALPHAS, 0)
    check = check_for("05_spam")
    assert check.run("q4", spam.ref_experiment).all_passed
    assert check.run("q5", best).all_passed, str(check.run("q5", best))
    assert check.run("q6", accuracy).all_passed, str(check.run("q6", accuracy))
    assert check.run("q6", 0.75).all_passed  # the mini-corpus accuracy


def test_19_2_a_leaky_pipeline_fails_a_public_check_and_is_named():
    spam = _spec_module("05_spam")
    check = check_for("05_spam")
    leaky = str(check.run("q4", lambda *a: spam.ref_experiment(*a, leaky=True)))
    assert "✘" in leaky and "the vocabulary built from every message" in leaky
    on_training = str(check.run("q4", lambda *a: spam.ref_experiment(*a, choose_on="train")))
    assert "✘" in on_training and "alpha scored on the training part" in on_training
    validation = str(check.run("q4", lambda *a: spam.ref_experiment(*a, report_on="validation")))
    assert "✘" in validation and "the validation accuracy reported" in validation


def test_19_3_the_switch_table_is_judged_at_grading_and_its_form_checked_here():
    """Issue 35 replaced the comparison table (a copy of lesson 04's) by accuracies to
    compute: check() tests the dict's keys only, right or wrong values alike."""
    linearity = _spec_module("04_linearity")
    check = check_for("04_linearity")
    right = linearity.ref_switches()
    assert check.run("q5", right).all_passed
    assert check.run("q5", linearity.ref_switches("majority")).all_passed  # not told here
    report = str(check.run("q5", {"majority": 0.5, "best": 0.7}))
    assert "✘" in report and "best_linear" in report


def test_same_keys_can_name_the_keys_of_a_value_the_checks_file_does_not_hold():
    from nbcourse.grading.judges import SameKeys, from_json
    judge = SameKeys("give the keys a and b", keys=["a", "b"])
    assert judge({"b": 0.1, "a": 2}, None) is None
    assert judge({"a": 2}, None) == "give the keys a and b"
    assert "['a', 'b']" in SameKeys(keys=["a", "b"])({"a": 2}, None)
    assert from_json(judge.to_json()) == judge
    assert SameKeys()({"x": 1}, {"x": 3}) is None  # without keys, the expected value's


def test_19_4_a_cut_at_int_0_9_n_fails_a_public_check():
    spam = _spec_module("05_spam")
    report = check_for("05_spam").run("q1", spam.split_cut_at_ninety)
    assert not report.all_passed
    assert "the validation part cut at int(0.9 n)" in str(report)
    assert spam.split_cut_at_ninety(500, 0) == spam.ref_split(500, 0)  # why 500 was not enough


HINTS = [  # exercise, question, what the student's report must now say
    ("02_smoothing", "q3", "the mean of the posterior Beta(a + heads, b + tails), not of the prior"),
    ("02_smoothing", "q3", "uses your posterior_parameters from question 1"),
    ("02_smoothing", "q2", "uses your posterior_parameters from question 1"),
    ("02_smoothing", "q5", "in the whole table, not within one class"),
    ("05_spam", "q1", "keep the permutation's order, do not sort the parts"),
    ("05_spam", "q2", "element-wise"),
]


@pytest.mark.parametrize("exercise, question, says", HINTS)
def test_19_hints_name_the_actual_rule(exercise, question, says):
    """A wrong answer that is no known mistake gets the question's hint, which says the rule."""
    spec = specs.load(exercise)
    q = spec.question(question)
    odd = (lambda *args: [123456, 654321]) if question == "q1" and exercise == "05_spam" \
        else (lambda *args: 0.123456)
    report = str(check_for(exercise).run(question, odd, sources=[]))
    assert "✘" in report and says in report, report
    assert says in q.hint


def test_19_misleading_hints_are_replaced_by_the_mistake_actually_made():
    """02 q6 not normalised, 04 q3 a wrong sign, 02 q3 the prior's mean: the report names what
    the student did, never something they did not do."""
    smoothing, linearity = _spec_module("02_smoothing"), _spec_module("04_linearity")
    report = str(check_for("02_smoothing").run("q6", 0.6))  # wrong, but flips nothing
    assert "softens the lesson's answer" not in report and "does not flip" not in report
    sign = str(check_for("04_linearity").run("q3", linearity.posterior_sign_flipped))
    assert "the sign in the sigmoid flipped" in sign and "is w0 part of your score" not in sign
    prior_mean = str(check_for("02_smoothing").run("q3", smoothing.mean_of_the_prior))
    assert "the prior's mean, without the data" in prior_mean


def test_19_03_a_dataframe_instead_of_a_dict_says_what_was_expected():
    import pandas as pd
    mle = _spec_module("03_mle")

    def as_frame(X, y):
        return pd.DataFrame(mle.ref_word_probabilities(X, y)).T  # labels as the index

    report = str(check_for("03_mle").run("q5", as_frame))
    assert "unexpected keys: 0, 1, 2" not in report
    assert "expected a dict with one entry per label" in report and "DataFrame" in report


def test_19_what_the_exercises_assume_is_now_in_the_exercises():
    import nbformat
    source = REPO / "exercises" / "source"
    text = {name: "\n".join(c.source for c in nbformat.read(source / f"{name}.ipynb",
                                                            as_version=4).cells)
            for name in ("02_smoothing", "03_mle", "05_spam")}
    # 03 q3: scipy.optimize.minimize and the softmax, shown on a toy problem
    assert "minimize(lambda z: np.sum((z - np.array([1.0, 2.0])) ** 2)" in text["03_mle"]
    assert "def softmax(z):" in text["03_mle"]
    # 03: one tolerance, the one the question states
    assert "< 1e-6" not in text["03_mle"] and "< 1e-4" in text["03_mle"]
    assert "within $10^{-4}$" in text["03_mle"]
    # 02 q6: where joint_scores comes from, and the loop to fill in otherwise
    assert "exercise 1's `joint_scores` (question 2)" in text["02_smoothing"]
    # 05: how to get the texts and labels out of the table
    assert 'texts = sms["text"].tolist()' in text["05_spam"]
    assert 'labels = sms["label"].to_numpy()' in text["05_spam"]
    student = "\n".join(c.source for c in nbformat.read(REPO / "exercises" / "05_spam.ipynb",
                                                        as_version=4).cells)
    assert 'texts = sms["text"].tolist()' in student  # not inside a solution block


# ---------------------------------------------------------------- one test model (issues 10, 18)
def test_check_works_for_an_exercise_that_exists_only_in_an_instructors_folder(tmp_path,
                                                                                monkeypatch):
    """nbcourse new + release into a private folder: the student's check() needs no change
    to the installed package, only the checks file next to the notebook."""
    source, release = tmp_path / "private", tmp_path / "handout"
    assert main(["new", "06_laplace", "--source", str(source)]) == 0
    assert main(["release", "--source", str(source), "--release-dir", str(release)]) == 0
    assert sorted(p.name for p in release.iterdir()) == ["06_laplace.checks.json",
                                                         "06_laplace.ipynb"]
    monkeypatch.chdir(release)  # Jupyter runs a notebook in its own folder
    check = check_for("06_laplace")
    right = check.run("q1", lambda counts, key: Fraction(counts.get(key, 0),
                                                         sum(counts.values())))
    assert right.all_passed and "1 of 1 public tests passed" in str(right)
    wrong = check.run("q1", lambda counts, key: Fraction(counts.get(key, 0),
                                                         max(counts.values())))
    assert "Known mistake (divided by the largest count)" in str(wrong)
    shipped = (release / "06_laplace.checks.json").read_text()
    assert "an outcome never seen" not in shipped  # a hidden case's name


def test_public_cases_and_hidden_cases_come_from_one_spec():
    """What check() runs is exactly the spec's hidden=False cases, with the spec's hints."""
    for name in NAMES:
        exercise = specs.load(name)
        shipped = check_for(name).questions
        for question in exercise.questions:
            public = [case for case in question.cases if not case.hidden]
            assert [c["name"] for c in shipped[question.id].cases] == [c.name for c in public]
            assert shipped[question.id].hint == question.hint
            # a value graded only by the grader ships no mistake: a wrong choice ruled out
            # would tell which one is left
            assert shipped[question.id].feedback == (
                {} if question.graded_later else {m.name: m.feedback for m in question.mistakes})


def test_a_checks_file_from_a_newer_nbcourse_is_said_so(tmp_path, monkeypatch):
    import json
    data = json.loads((REPO / "exercises" / "01_weather.checks.json").read_text())
    data["format"] = 99
    (tmp_path / "01_weather.checks.json").write_text(json.dumps(data))
    monkeypatch.chdir(tmp_path)
    assert "newer nbcourse" in str(check_for("01_weather").run("q1", right_likelihood))


# ------------------------------------------------------------------ issue 25: what a student tried
# Each wrong answer below passed the public check() once; each right variant was rejected.
def _likelihood_play(table, feature, value, target, label):
    return right_likelihood(table, feature, value, "play", label)  # ignores `target`


def _joint(table, query, target, labels=None):
    scores = {}
    for label in labels or table[target].unique():
        rows = table[table[target] == label]
        score = Fraction(len(rows), len(table))
        for feature, value in query.items():
            score *= Fraction(int((rows[feature] == value).sum()), max(len(rows), 1))
        scores[label] = score
    return scores


def _map(a, b, heads, tails):
    return Fraction(a + heads - 1) / (a + b + heads + tails - 2)


def _mean(a, b, heads, tails):
    return Fraction(a + heads) / (a + b + heads + tails)


def _smoothed(table, feature, value, target, label, alpha, k=None, below=None):
    rows = table[table[target] == label]
    k = table[feature].nunique() if k is None else k(table, rows, feature)
    below = alpha * k if below is None else below(alpha, k)
    return (int((rows[feature] == value).sum()) + alpha) / (len(rows) + below)


def _m(n_vc, n_c, m, Q):
    return (n_vc + m * Fraction(Q)) / (n_c + m)


def _counts(values, K):
    naive = (K - 1) + K * sum(v - 1 for v in values)
    full = K - 1
    for v in values:
        full = (full + 1) * v - 1
    return [naive, full]  # exact: np.prod's int64 overflows (02 q8's 70 attributes)


def _log_likelihood(counts, theta, finite=False):
    counts, theta = np.asarray(counts, float), np.asarray(theta, float)
    seen = counts > 0
    if finite:
        seen &= theta > 0
    with np.errstate(divide="ignore"):
        return float(np.sum(counts[seen] * np.log(theta[seen])))


def _numeric(counts, smallest=0.0, sign=-1.0):
    from scipy.optimize import minimize
    counts = np.asarray(counts, float)
    k = len(counts)

    def theta_of(z):
        return smallest + (1 - k * smallest) * np.exp(z - np.logaddexp.reduce(z))

    def f(z):
        theta = theta_of(z)
        return sign * np.sum(counts[counts > 0] * np.log(theta[counts > 0]))

    return theta_of(minimize(f, np.zeros(k), method="BFGS",
                             options={"gtol": 1e-10, "maxiter": 5000}).x).tolist()


def _closed_form(counts, smallest=0.0):
    counts = np.asarray(counts, float)
    return (counts / counts.sum()).tolist()


def _scores(w0, w, X):
    return w0 + np.asarray(X @ np.asarray(w, dtype=float)).ravel()


def _sigmoid_naive(w0, w, X):
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(_scores(w0, w, X))
        return e / (1 + e)


def _sigmoid(w0, w, X):
    s = _scores(w0, w, X)
    return np.where(s >= 0, 1 / (1 + np.exp(-np.abs(s))),
                    np.exp(-np.abs(s)) / (1 + np.exp(-np.abs(s))))


def _accuracy(y_true, y_pred):
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def _means_variances(X, y, var_smoothing, order=None, spread=np.var):
    X, y = np.asarray(X, float), np.asarray(y)
    classes = np.unique(y) if order is None else list(dict.fromkeys(y.tolist()))
    epsilon = var_smoothing * float(np.max(X.var(axis=0)))
    return ([X[y == c].mean(axis=0).tolist() for c in classes],
            [(spread(X[y == c], axis=0) + epsilon).tolist() for c in classes])


def _bins(is_positive, p, n_bins, right=False):
    p, is_positive = np.asarray(p, float), np.asarray(is_positive, float)
    if right:
        b = np.digitize(p, np.linspace(0, 1, n_bins + 1)[1:-1], right=True)
    else:
        b = np.minimum((p * n_bins).astype(int), n_bins - 1)
    return [[int(k), float(p[b == k].mean()), float(is_positive[b == k].mean()),
             int(np.sum(b == k))] for k in np.unique(b)]


def _merge(a, b, classes=None):
    found = list(dict.fromkeys(list(a["classes"]) + list(b["classes"])))
    classes = sorted(found) if classes is None else classes(a, b, found)
    n = max((len(row) for table in (a, b) for row in table["feature_count"]), default=0)
    count = {c: 0 for c in classes}
    rows = {c: [0] * n for c in classes}
    for table in (a, b):
        for i, c in enumerate(table["classes"]):
            if c in count:
                count[c] += table["class_count"][i]
                rows[c] = [x + y for x, y in zip(rows[c], table["feature_count"][i])]
    return {"classes": classes, "class_count": [count[c] for c in classes],
            "feature_count": [rows[c] for c in classes]}


# exercise, question, wrong answer, what the report must say (a mistake's name or a hint)
WRONG_25 = [
    ("01_weather", "q1", _likelihood_play, "KeyError: 'play'"),
    ("01_weather", "q1", _likelihood_play, "`target` argument"),
    ("01_weather", "q1", lambda t, f, v, y, label: Fraction(
        int((t[t[y] == label][f] == v).sum()), int((t[y] == label).sum()) + 1),
     "class size + 1 in the denominator"),
    ("01_weather", "q2", lambda t, q, y: _joint(t, q, y, labels=["yes", "no"]),
     "never a fixed list such as ['yes', 'no']"),
    ("02_smoothing", "q2", lambda a, b, h, t: Fraction(h, h + t), "the prior left out"),
    ("02_smoothing", "q3", lambda a, b, h, t: Fraction(h, h + t), "the prior left out"),
    ("02_smoothing", "q5", lambda *a: _smoothed(*a, below=lambda alpha, k: 2 * alpha),
     "2 alpha below the bar"),
    ("02_smoothing", "q5", lambda t, f, v, y, label, alpha: _smoothed(t, f, v, y, label, 1),
     "not the expected one"),
    ("02_smoothing", "q5", lambda *a: _smoothed(*a, below=lambda alpha, k: 0),
     "alpha only above the bar"),
    ("02_smoothing", "q5", lambda *a: _smoothed(*a, below=lambda alpha, k: alpha * (k + 1)),
     "J one too large"),
    ("02_smoothing", "q5", lambda *a: _smoothed(*a, below=lambda alpha, k: alpha * (k - 1)),
     "J one too small"),
    ("02_smoothing", "q5", lambda t, f, v, y, label, alpha: _smoothed(t, f, v, y, label, 0),
     "smoothing forgotten"),
    ("02_smoothing", "q5", lambda *a: _smoothed(*a, k=lambda t, rows, f: rows[f].nunique()),
     "J counted within the class"),
    ("02_smoothing", "q7", lambda n_vc, n_c, m, Q: _m(0, n_c, m, Q), "n_vc left out"),
    ("02_smoothing", "q8", lambda values, K: [(K - 1) + len(values) * K,
                                               2 ** len(values) * K - 1],
     "every attribute treated as yes/no"),
    ("03_mle", "q1", lambda c, t: _log_likelihood(c, t, finite=True),
     "impossible data treated as merely unlikely"),
    ("03_mle", "q3", _closed_form, "the closed form, the floor ignored"),
    ("03_mle", "q3", lambda counts, smallest=0.0: _numeric(counts, smallest, sign=1.0),
     "the optimiser went downhill"),
    ("04_linearity", "q2", lambda w0, w, X: (_scores(w0, w, X) >= 0).astype(int),
     "a tie counted as class 1"),
    ("04_linearity", "q2", lambda w0, w, X: (w0 + np.dot(X, w) > 0).astype(int),
     "X may be a scipy.sparse matrix"),
    ("04_linearity", "q3", _sigmoid_naive, "exp(s) / (1 + exp(s)) overflowing"),
    ("04_linearity", "q4", 0.0, "the share where the rules disagree"),
    ("04_linearity", "q5", {"majority": 0.575, "best_linear": 0.7},
     "switch_accuracies should be a dict with the keys"),
    ("05_spam", "q2", lambda t, p: 1 - _accuracy(t, p), "the error rate"),
    ("05_spam", "q2", lambda t, p: 100 * _accuracy(t, p), "a percentage, not a share"),
    ("05_spam", "q2", lambda t, p: int(np.sum(np.asarray(t) == np.asarray(p))) // len(t),
     "integer division"),
    ("05_spam", "q3", lambda Xt, yt, Xv, yv, alphas: alphas[0], "the first alpha, never compared"),
    ("06_gaussian", "q1", lambda X, y, v: _means_variances(X, y, v, order="seen"),
     "classes in order of appearance"),
    ("06_gaussian", "q1", lambda X, y, v: _means_variances(X, y, v, spread=np.std),
     "standard deviation instead of variance"),
    ("06_gaussian", "q5", lambda t, p, n: _bins(t, p, n, right=True),
     "a p on an edge put in the bin below"),
    ("07_merging", "q1", lambda a, b: _merge(a, b, classes=lambda a, b, found: sorted(a["classes"])),
     "a class only the second table has dropped"),
    ("07_merging", "q1", lambda a, b: _merge(a, b, classes=lambda a, b, found: found),
     "classes not sorted"),
]


@pytest.mark.parametrize("exercise, question, wrong, says", WRONG_25)
def test_25_each_wrong_answer_a_student_tried_fails_and_is_named(exercise, question, wrong, says):
    report = check_for(exercise).run(question, wrong)
    if report.graded_later and report.all_passed:  # issue 34: only the grader judges a value
        from nbcourse.grading.hidden import grade_answer
        result = grade_answer(exercise, question, wrong, REPO / "exercises" / "source")
        assert result.score == 0
        assert says in " ".join(result.notes), result.notes
        return
    assert not report.all_passed, str(report)
    assert says in str(report), str(report)


RIGHT_25 = [
    ("01_weather", "q1", right_likelihood),
    ("01_weather", "q2", _joint),
    ("02_smoothing", "q2", _map),
    ("02_smoothing", "q3", _mean),
    ("02_smoothing", "q5", _smoothed),
    ("02_smoothing", "q7", _m),
    ("02_smoothing", "q8", _counts),
    ("03_mle", "q1", _log_likelihood),
    ("03_mle", "q3", _numeric),
    ("04_linearity", "q2", lambda w0, w, X: (_scores(w0, w, X) > 0).astype(int)),
    ("04_linearity", "q3", _sigmoid),
    ("05_spam", "q2", _accuracy),
    ("06_gaussian", "q1", _means_variances),
    ("06_gaussian", "q5", _bins),
    ("07_merging", "q1", _merge),
]


@pytest.mark.parametrize("exercise, question, right", RIGHT_25)
def test_25_each_right_variant_passes(exercise, question, right):
    report = check_for(exercise).run(question, right)
    assert report.all_passed, str(report)


def test_25_a_rounded_answer_is_told_it_is_rounded_not_given_a_misleading_hint():
    report = check_for("01_weather").run("q4", 0.7954)
    text = str(report)
    assert "has only 4 decimal places: if you rounded it" in text  # a value: form only
    assert "joint score divided by the sum" not in text
    from nbcourse.grading.hidden import grade_answer
    result = grade_answer("01_weather", "q4", 0.7954, REPO / "exercises" / "source")
    assert result.score == 0
    assert "has only 4 decimal places: if you rounded it" in result.cases[-1].message
    assert not any("joint score divided by the sum" in note for note in result.notes)


def test_25_float_counts_that_are_whole_numbers_are_right_at_check_and_grading():
    """One rule for integers as floats (issue 34): 9.0 is the count 9 in every question, the
    exact ones (07 q1) included; a count that is not a whole number is still wrong."""
    from nbcourse.grading.hidden import grade_question
    question = specs.load("07_merging", REPO / "exercises" / "source").question("q1")
    def as_float(a, b):  # every count a float (numpy sums of a float table give these)
        merged = question.reference(a, b)
        return {**merged, "class_count": [float(c) for c in merged["class_count"]],
                "feature_count": [[float(x) for x in row] for row in merged["feature_count"]]}
    assert check_for("07_merging").run("q1", as_float).all_passed
    assert grade_question(question, as_float).score == question.points
    halves = lambda a, b: {**as_float(a, b), "class_count": [  # noqa: E731
        c + 0.5 for c in as_float(a, b)["class_count"]]}
    assert not check_for("07_merging").run("q1", halves).all_passed
    # every case with a class fails (two empty offices have no count to get wrong)
    halved = grade_question(question, halves)
    assert halved.score == round(question.points / len(question.cases), 2)  # that one case
    assert all(not case.passed for case in halved.cases
               if case.name != "two offices that received no messages")


@pytest.mark.parametrize("exercise, question, value", [
    ("01_weather", "q5", 0.5), ("02_smoothing", "q9", dict.fromkeys("abcd", 0.25)),
    ("03_mle", "q6", dict.fromkeys("abc", 0.3)),
    ("04_linearity", "q5", dict.fromkeys(("majority", "best_linear", "best_any"), 0.5)),
    ("04_linearity", "q7", 1.0), ("05_spam", "q5", 0.01), ("05_spam", "q6", 0.5),
    ("05_spam", "q7", 0.5), ("05_spam", "q8", 0.5), ("06_gaussian", "q9", 0.5),
    ("07_merging", "q4", 0), ("07_merging", "q4", 9),
    ("08_beyond_naive", "q5", dict.fromkeys(("baseline", "spread_a", "mean_difference",
                                             "b_wins"), 0)),
])
def test_25_a_graded_value_is_never_marked_right_or_wrong_by_check(exercise, question, value):
    """Any value of the right form gets the same report: it says the grader decides."""
    text = str(check_for(exercise).run(question, value))
    assert "whether it is right is decided only when your notebook is graded" in text
    assert "Known mistake" not in text and "✘" not in text


def test_25_a_hard_coded_class_column_is_named_with_its_key_on_the_feedback_page():
    from nbcourse.grading.hidden import grade_answer
    result = grade_answer("01_weather", "q1", _likelihood_play, REPO / "exercises" / "source")
    public = [case for case in result.cases if not case.hidden and not case.passed]
    assert public and "KeyError: 'play'" in public[0].message
    assert all(case.message == HIDDEN_RAISED for case in result.cases
               if case.hidden and not case.passed)
