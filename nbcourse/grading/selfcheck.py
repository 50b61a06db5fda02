"""The student's ``check("q1", answer)``: public tests, plain verdicts, useful hints.

Public tests use the lesson's own examples, so they reveal nothing the notes do not
already show; hints point at the idea that is probably missing, never at the number.
The real grade comes later, from hidden tests run by the instructor's grader on
inputs the student has not seen; the report says so every time.

An answer that calls the library function it is asked to re-implement is flagged by
the grader; ``check`` runs the same scan (``forbidden.find``) over the cells run so far
in the notebook, so the student hears about it now, not after grading.
"""
from __future__ import annotations

import copy
import importlib
import inspect
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from . import forbidden as forbidden_names
from .values import Tolerance, compare, describe_value, normalise

_PACKAGES = {  # exercise -> module in nbcourse.grading.public
    "01_weather": "weather",
    "02_smoothing": "smoothing",
    "03_mle": "mle",
    "04_linearity": "linearity",
    "05_spam": "spam",
}


@dataclass
class PublicTest:
    """One public test: call the answer on ``args`` (or read it) and compare.

    ``expected`` is a function, called when the test runs, so that importing the
    tests costs nothing.  ``judge(actual, expected)`` replaces the comparison when a
    question accepts more than one right answer.
    """
    name: str
    expected: Callable[[], Any]
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    hint: str = ""
    tolerance: Tolerance = Tolerance()
    exact: bool = False
    judge: Callable[[Any, Any], str | None] | None = None


@dataclass
class PublicQuestion:
    """``forbidden``: the names the grader flags for this question (as in its spec)."""
    name: str
    title: str
    tests: Sequence[PublicTest]
    kind: str = "function"
    forbidden: Sequence[str] = ()


@dataclass
class TestOutcome:
    name: str
    passed: bool
    message: str = ""
    hint: str = ""


@dataclass
class CheckResult:
    """What ``check`` found; printing it gives the report the student reads."""
    question: str
    name: str
    outcomes: list[TestOutcome]
    problem: str = ""
    flags: list[str] = field(default_factory=list)  # forbidden names the answer uses

    @property
    def passed(self) -> int:
        return sum(o.passed for o in self.outcomes)

    @property
    def all_passed(self) -> bool:
        return not self.problem and self.passed == len(self.outcomes)

    def __str__(self) -> str:
        if self.problem:
            return f"{self.question} · {self.name}: {self.problem}"
        lines = [f"{self.question} · {self.name}: {self.passed} of {len(self.outcomes)} "
                 "public tests passed"]
        if self.flags:
            lines.append(f"  ⚠ {self.name} uses {', '.join(self.flags)} (itself or through a "
                         "function or variable it uses), which this exercise asks you to write "
                         "yourself: the grader will flag it and this question will earn no "
                         "points")
        for outcome in self.outcomes:
            mark = "✔" if outcome.passed else "✘"
            line = f"  {mark} {outcome.name}"
            if outcome.message:
                line += f": {outcome.message}"
            lines.append(line)
            if outcome.hint and not outcome.passed:
                lines.append(f"      hint: {outcome.hint}")
        lines.append("Hidden tests with other inputs run when your notebook is graded; "
                     "passing these is a good sign, not a guarantee.")
        return "\n".join(lines)


class Checker:
    """``check = Checker("01_weather")`` then ``check("q1", answer)``."""

    def __init__(self, exercise: str):
        key = _resolve(exercise)
        module = importlib.import_module(f"nbcourse.grading.public.{_PACKAGES[key]}")
        self.exercise = key
        self.questions: dict[str, PublicQuestion] = module.QUESTIONS

    def run(self, question: str, answer, sources: Sequence[str] | None = None) -> CheckResult:
        """Run the public tests of ``question`` on ``answer`` and return what happened.

        ``sources`` is the notebook's code, cell by cell, for the forbidden-name scan;
        by default the cells run so far in this IPython session (or, outside IPython,
        the module that defines the answer).
        """
        if question not in self.questions:
            raise ValueError(f"question must be one of {sorted(self.questions)} for "
                             f"{self.exercise}, got {question!r}")
        spec = self.questions[question]
        if spec.kind == "function" and not callable(answer):
            return CheckResult(question, spec.name, [], problem=(
                f"expected the function itself, got {describe_value(answer)}; write "
                f"check({question!r}, {spec.name}) without parentheses after {spec.name}"))
        outcomes = [self._run_test(spec, test, answer) for test in spec.tests]
        return CheckResult(question, spec.name, outcomes,
                           flags=_forbidden_uses(spec, answer, sources))

    @staticmethod
    def _run_test(spec: PublicQuestion, test: PublicTest, answer) -> TestOutcome:
        if spec.kind == "function":
            try:
                returned = answer(*copy.deepcopy(test.args), **copy.deepcopy(test.kwargs))
            except NotImplementedError:
                return TestOutcome(test.name, False, "not written yet (NotImplementedError)")
            except Exception as error:  # noqa: BLE001 - report it like the grader would
                return TestOutcome(test.name, False, f"raised {type(error).__name__}: {error}",
                                   test.hint)
        else:
            returned = answer
        try:
            actual = normalise(returned)
        except TypeError as error:
            return TestOutcome(test.name, False, f"the result is not plain data ({error})",
                               test.hint)
        expected = normalise(test.expected())
        if test.judge is not None:
            problem = test.judge(actual, expected)
        else:
            problem = compare(actual, expected, test.tolerance, exact=test.exact)
        return TestOutcome(test.name, problem is None, problem or "", test.hint)

    def __call__(self, question: str, answer) -> None:
        """Print the report (and return nothing, so a notebook shows it only once)."""
        print(self.run(question, answer))


def _forbidden_uses(spec: PublicQuestion, answer, sources: Sequence[str] | None) -> list[str]:
    """The names the grader would flag for this answer, found the way the grader finds them."""
    if not spec.forbidden:
        return []
    if sources is None:
        sources = _session_cells() or _defining_module(answer)
    names = {spec.name}
    own_name = getattr(answer, "__name__", "")
    if callable(answer) and own_name.isidentifier() and own_name != "<lambda>":
        names.add(own_name)  # check("q2", my_scores) scans my_scores too
    found: set[str] = set()
    for name in names:
        found.update(forbidden_names.find(sources, name, spec.forbidden))
    return sorted(found)


def _session_cells() -> list[str]:
    """The raw code of every cell run so far, when running inside IPython/Jupyter."""
    ipython = sys.modules.get("IPython")  # never import IPython just to find out
    shell = ipython.get_ipython() if ipython is not None else None
    history = getattr(shell, "history_manager", None)
    cells = getattr(history, "input_hist_raw", None) or []
    return [cell for cell in cells if isinstance(cell, str) and cell.strip()]


def _defining_module(answer) -> list[str]:
    """Outside IPython: the source of the module that defines the answer, if readable."""
    module = inspect.getmodule(answer) if callable(answer) else None
    try:
        return [inspect.getsource(module)] if module is not None else []
    except (OSError, TypeError):
        return []


def check_for(exercise: str) -> Checker:
    """The ``check`` function for one exercise: ``check = check_for("01_weather")``."""
    return Checker(exercise)


def _resolve(exercise: str) -> str:
    if exercise in _PACKAGES:
        return exercise
    matches = [k for k in _PACKAGES if k.split("_", 1)[1] == exercise
               or k.split("_", 1)[0].lstrip("0") == str(exercise).lstrip("0")]
    if len(matches) == 1:
        return matches[0]
    raise ValueError(f"exercise must be one of {sorted(_PACKAGES)}, got {exercise!r}")
