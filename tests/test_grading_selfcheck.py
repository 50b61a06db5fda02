"""The student's check(...) and the instructor's command line."""
from __future__ import annotations

import argparse
import subprocess
import sys
from fractions import Fraction

import pytest

from nbcourse.cli import build_parser, main
from nbcourse.datasets import load_weather
from nbcourse.grading import check_for
from nbcourse.grading.selfcheck import _PACKAGES, Checker

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
    assert "q1 · likelihood: 2 of 2 public tests passed" in printed
    assert "Hidden tests with other inputs run when your notebook is graded" in printed


def test_a_wrong_answer_fails_with_a_hint_but_without_the_answer():
    result = check_for("weather").run("q1", wrong_likelihood)
    assert not result.all_passed and result.passed == 1
    text = str(result)
    assert "✘ P(outlook = sunny | play = yes)" in text
    assert "got Fraction(1, 7)" in text          # the student's own value
    assert "2/9" not in text and "Fraction(2, 9)" not in text  # not the answer
    assert "hint: count only the rows where play == 'yes'" in text


def test_unfinished_and_misused_answers_get_clear_messages():
    def stub(*args):
        raise NotImplementedError()

    check = Checker("01_weather")
    assert "not written yet" in str(check.run("q1", stub))
    passed_a_value = check.run("q2", {"yes": 0.1})
    assert "without parentheses" in passed_a_value.problem
    crashing = check.run("q3", lambda table, query, target: table["nope"])
    assert "raised KeyError" in str(crashing)
    with pytest.raises(ValueError, match="question must be one of"):
        check.run("q9", stub)
    with pytest.raises(ValueError, match="exercise must be one of"):
        check_for("quantum")


def test_value_questions_are_checked_as_values():
    check = check_for("01_weather")
    assert not check.run("q4", 1.5).all_passed
    assert "between 0 and 1" in str(check.run("q4", 1.5))
    assert check.run("q4", Fraction(486, 611)).all_passed


@pytest.mark.parametrize("exercise", sorted(_PACKAGES))
def test_every_exercise_has_public_tests_for_every_graded_question(exercise):
    from nbcourse.grading import specs
    checker = check_for(exercise)
    graded = specs.load(exercise)
    assert sorted(checker.questions) == sorted(q.id for q in graded.questions)
    for question in graded.questions:
        assert checker.questions[question.id].name == question.name
        assert checker.questions[question.id].tests


def _all_actions(parser: argparse.ArgumentParser):
    for action in parser._actions:
        yield parser, action
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _all_actions(sub)


def test_every_command_and_option_has_help_text():
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(commands.choices) == {"list", "release", "grade"}
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
    assert "01_weather: Exercise 1: the weather example by hand (8 points)" in out
    assert "05_spam" in out and "q3  choose_alpha" in out


def test_usage_errors_exit_2_with_a_message(tmp_path, capsys):
    assert main(["grade", "quantum", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "unknown exercise 'quantum'" in capsys.readouterr().err
    assert main(["grade", "weather", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "no notebooks" in capsys.readouterr().err
    with pytest.raises(SystemExit) as error:
        main(["grade", "weather", "x.ipynb", "--out", "o", "--jobs", "0"])
    assert error.value.code == 2
