"""The student's ``check("q1", answer)``: public cases, plain verdicts, useful hints.

The public cases come from the exercise's grading spec (``Case(..., hidden=False)``),
the same file as the hidden ones.  ``nbcourse release`` writes them, with their
expected values, hints and the known mistakes' values, next to the student notebook
as ``NN_name.checks.json``; ``check_for("NN_name")`` reads that file from the
notebook's folder.  So ``check()`` works for any exercise, including one that exists
only in an instructor's private ``--source`` folder, without any change to the
installed package.  Next to the instructor's source notebook (where the spec itself
is) it reads the spec's public cases directly.

Public cases use the lesson's own examples, so they reveal nothing the notes do not
already show; hints point at the idea that is probably missing, never at the number.
When a wrong answer behaves exactly like a known mistake, the report names it.  The
real grade comes later, from hidden cases run by the instructor's grader on inputs
the student has not seen; the report says so every time.

An answer that calls the library function it is asked to re-implement is flagged by
the grader; ``check`` runs the same scan (``forbidden.find``) over the cells run so far
in the notebook, so the student hears about it now, not after grading.
"""
from __future__ import annotations

import inspect
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from . import forbidden as forbidden_names
from . import typed_in as typed_numbers
from .diagnosis import (FORM_NOTES, NO_VALUE, STILL_THE_STUB, case_hint_applies,
                        case_hints_apply, diagnose, explain, form_note, input_changed,
                        raised_hint)
from .execution.probe_source import changed_input, input_snapshot, raised_by_stub
from .judges import from_json
from .rounding_notes import an_allowed_value, value_rounded_to
from .values import (Tolerance, both_nan, compare, decimal_problem, decode_input, describe_value,
                     normalise)
from ..resources import CHECKS_SUFFIX, SPEC_SUFFIX, exercise_matches
FORMAT = 1  # the checks file format this nbcourse reads (specs.Exercise.publish writes it)


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
    diagnosis: str = ""  # the known mistake the answer makes, in words
    mistakes: list[str] = field(default_factory=list)
    graded_later: bool = False  # a value only the grader can judge: check() tests its form
    callees_failing: str = ""  # graded functions it calls that fail their own checks
    note: str = ""  # what check() can say of such a value's form (it looks rounded)
    follows: tuple = ()  # what the grader runs the value's cell again with (swaps)

    def _notes(self) -> list[str]:
        """The report's closing notes: the graded functions this answer calls that fail,
        what its form suggests (rounded), and what the grader's swaps ask of a value."""
        lines = []
        fail = 'fail their' if ' and ' in self.callees_failing else 'fails its'
        if self.callees_failing and self.all_passed:
            how = "is computed" if self.graded_later else "passes"  # (its form only checked)
            lines.append(f"  note: {self.name} {how} with your {self.callees_failing}, which "
                         f"{fail} own public tests. When graded, {self.name} is also run with "
                         "the right functions in place: if it passes only because it makes up "
                         "for their mistake, it loses its points.")
        elif self.callees_failing:
            lines.append(f"  {self.name} calls your {self.callees_failing}, which {fail} "
                         "own public tests: fix that first. Until then these results cannot tell "
                         f"whether {self.name} itself is right (when graded, an answer wrong "
                         "only because of a function it calls keeps its points).")
        if self.note:
            lines.append(f"  note: {self.note}")
        if self.follows:
            quoted = [f"`{name}`" for name in self.follows]
            names = ", ".join(quoted[:-1]) + " or " + quoted[-1] if len(quoted) > 1 else quoted[0]
            what, source = (f"another {names}", f"it: compute it from your {names}") \
                if len(quoted) == 1 else (f"other {names}", "them: compute it from them")
            lines.append(f"  note: when graded, the cell also runs again with {what} in place, "
                         f"and {self.name} must follow {source} (a value that does not follow "
                         "earns no point, however it was found)")
        return lines

    @property
    def passed(self) -> int:
        return sum(o.passed for o in self.outcomes)

    @property
    def all_passed(self) -> bool:
        return not self.problem and self.passed == len(self.outcomes)

    def __str__(self) -> str:
        if self.problem:
            return f"{self.question} · {self.name}: {self.problem}"
        if not self.outcomes:
            return (f"{self.question} · {self.name}: no public tests for this question; it is "
                    "checked by hidden tests when your notebook is graded")
        if self.graded_later:
            lines = [f"{self.question} · {self.name}: {self.passed} of {len(self.outcomes)} "
                     "checks of its form passed; whether it is right is decided only when "
                     "your notebook is graded (no check here can tell you)"]
        else:
            lines = [f"{self.question} · {self.name}: {self.passed} of {len(self.outcomes)} "
                     "public tests passed"]
        if self.flags == [typed_numbers.TYPED_IN]:
            lines.append(f"  ⚠ {self.name} is {typed_numbers.TYPED_IN}: this exercise asks "
                         "you to compute it with your own code, and the grader will flag a "
                         "typed-in number: this question would earn no points")
        elif self.flags == [forbidden_names.UNREAD]:
            lines.append(f"  ⚠ {self.name} is {forbidden_names.UNREAD} "
                         f"({forbidden_names.UNREAD_WHY}): the grader will flag it and this "
                         "question will earn no points")
        elif self.flags:
            own = [flag for flag in self.flags if flag == self.name]
            others = [flag for flag in self.flags if flag != self.name]
            if others:
                lines.append(f"  ⚠ {self.name} uses {', '.join(others)} (itself or through a "
                             "function or variable it uses), which this exercise asks you to "
                             "write yourself: the grader will flag it and this question will "
                             "earn no points")
                if forbidden_names.DYNAMIC in others:
                    lines.append(f"    ({forbidden_names.DYNAMIC_WHY})")
            if own:
                lines.append(f"  ⚠ {self.name} calls the library's own {self.name} instead of "
                             "computing the answer itself: the grader will flag it and this "
                             "question will earn no points")
        for outcome in self.outcomes:
            mark = "✔" if outcome.passed else "✘"
            line = f"  {mark} {outcome.name}"
            if outcome.message:
                line += f": {outcome.message}"
            lines.append(line)
            if outcome.hint and not outcome.passed and not self.diagnosis \
                    and not self.callees_failing:
                lines.append(f"      hint: {outcome.hint}")
        if self.diagnosis:
            lines.append(f"  {self.diagnosis}")
        lines += self._notes()
        if not self.graded_later:
            lines.append("Hidden tests with other inputs run when your notebook is graded; "
                         "passing these is a good sign, not a guarantee.")
        return "\n".join(lines)


@dataclass
class PublicCall:
    """A public case's call as a judge reads it: the fields of the grader's ``specs.Case``
    that a judge may look at."""
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    hidden: bool = False


@dataclass
class PublicQuestion:
    """One question as ``check()`` sees it: the public part of its spec."""
    id: str
    name: str
    title: str
    kind: str
    cases: list[dict]
    forbidden: Sequence[str] = ()
    hint: str = ""
    tolerance: Tolerance = Tolerance()
    exact: bool = False
    judge: Any = None
    feedback: dict = field(default_factory=dict)  # mistake name -> its explanation
    graded_later: bool = False
    calls: Sequence[str] = ()  # ids of the graded functions it calls
    computed: bool = False  # a number typed in is flagged (typed_in.TYPED_IN)
    keep_inputs: bool = False  # a call that changes its inputs in place fails
    used_by: Sequence[str] = ()  # ids of the questions that call it (Decimal refused)
    follows: Sequence[str] = ()  # what the grader runs a value's cell again with (swaps)

    @classmethod
    def from_json(cls, data: dict) -> "PublicQuestion":
        return cls(data["id"], data["name"], data["title"], data["kind"], data["cases"],
                   tuple(data.get("forbidden", ())), data.get("hint", ""),
                   Tolerance(*data.get("tolerance", (1e-6, 1e-9))), data.get("exact", False),
                   from_json(data.get("judge")),
                   {m["name"]: m["feedback"] for m in data.get("mistakes", ())},
                   bool(data.get("graded_later", False)), tuple(data.get("calls", ())),
                   bool(data.get("computed", False)), data.get("keep_inputs") is True,
                   tuple(data.get("used_by", ())), tuple(data.get("follows", ())))

    def compare(self, actual, expected, judge=None, case=None) -> str | None:
        """``case``: the public call (its ``args``, ``kwargs``), for a judge that reads
        them as the grader's does (``judges.Optimum``'s floor)."""
        judge = judge or self.judge
        if judge is not None:
            return judge(actual, expected, case)
        problem = compare(actual, expected, self.tolerance, exact=self.exact,
                          strip=self.kind == "value")  # as the grader (specs.judge_case)
        if problem is None:
            return decimal_problem(actual, expected, floats=bool(self.used_by)) \
                if self.kind == "function" else None
        return form_note(actual, expected, self.tolerance) or problem

    def same(self, actual, value) -> bool:
        try:
            return both_nan(actual, value) or self.compare(actual, value) is None
        except Exception:  # noqa: BLE001
            return False


def find_checks(exercise: str, folders: Sequence[Path] | None = None) -> Path | None:
    """``NN_name.checks.json`` (or, in an instructor's folder, ``NN_name.grading.py``).

    Looked for in ``$NBCOURSE_CHECKS`` if set, then in the current folder (Jupyter's is
    the notebook's own), then in ``exercises/`` below it.  ``exercise`` may be the
    full name or, if it is unambiguous there, ``weather`` or ``1``.
    """
    if folders is None:
        folders = [Path(p) for p in os.environ.get("NBCOURSE_CHECKS", "").split(os.pathsep) if p]
        folders += [Path.cwd(), Path.cwd() / "exercises"]
    for folder in folders:
        for suffix in (CHECKS_SUFFIX, SPEC_SUFFIX):
            candidates = sorted(folder.glob(f"*{suffix}")) if folder.is_dir() else []
            names = {p.name[: -len(suffix)]: p for p in candidates}
            matches = exercise_matches(exercise, list(names))
            if len(matches) == 1:
                return names[matches[0]]
    return None


def load_public(path: Path) -> dict:
    """The public part of an exercise, from its checks file or from its spec."""
    if path.name.endswith(SPEC_SUFFIX):
        from . import specs  # only instructors have specs: load them only for them
        exercise = specs.load(path.name[: -len(SPEC_SUFFIX)], path.parent)
        return json.loads(json.dumps(exercise.publish()))
    return json.loads(path.read_text(encoding="utf-8"))


def _plain(answer):
    """The answer as the grader reads it (numpy and pandas values as plain data); None if
    it cannot be."""
    try:
        return normalise(answer)
    except (TypeError, ValueError):
        return None


class Checker:
    """``check = Checker("01_weather")`` then ``check("q1", answer)``."""

    def __init__(self, exercise: str, path: str | Path | None = None):
        self.exercise = exercise
        self.path = Path(path) if path else find_checks(exercise)
        self.questions: dict[str, PublicQuestion] = {}
        self.missing = ""
        if self.path is None:
            # never an exception: the notebook must still run, e.g. in the grader's sandbox
            self.missing = (f"no public checks found for {exercise!r}: the file "
                            f"{exercise}{CHECKS_SUFFIX} should be next to this notebook "
                            "(your instructor's 'nbcourse release' writes it)")
            return
        data = load_public(self.path)
        if data.get("format", 1) > FORMAT:
            self.missing = (f"{self.path.name} was written by a newer nbcourse than this one; "
                            "upgrade nbcourse (pip install -U nbcourse) to run its checks")
            return
        self.exercise = data["exercise"]
        self.title = data.get("title", "")
        self.questions = {q["id"]: PublicQuestion.from_json(q) for q in data["questions"]}

    def run(self, question: str, answer, sources: Sequence[str] | None = None,
            namespace: dict | None = None) -> CheckResult:
        """Run the public cases of ``question`` on ``answer`` and return what happened.

        ``sources`` is the notebook's code, cell by cell, for the forbidden-name scan;
        by default the cells run so far in this IPython session (or, outside IPython,
        the module that defines the answer).  ``namespace`` holds the notebook's names,
        where a value's graded functions are looked up; by default IPython's.
        """
        if self.missing:
            return CheckResult(question, "?", [], problem=self.missing)
        if question not in self.questions:
            raise ValueError(f"question must be one of {sorted(self.questions)} for "
                             f"{self.exercise}, got {question!r}")
        spec = self.questions[question]
        if spec.kind == "function" and not callable(answer):
            return CheckResult(question, spec.name, [], problem=(
                f"expected the function itself, got {describe_value(answer)}; write "
                f"check({question!r}, {spec.name}) without parentheses after {spec.name}"))
        outcomes, actuals = [], []
        for case in spec.cases:
            outcome, actual = self._run_case(spec, case, answer)
            outcomes.append(outcome)
            actuals.append(actual)
        if not case_hints_apply([o.passed for o in outcomes],  # then the question's hint
                                [bool(case.get("hint")) for case in spec.cases]):
            for outcome, case in zip(outcomes, spec.cases):
                if case.get("hint") and outcome.hint == case["hint"]:
                    outcome.hint = spec.hint
        result = CheckResult(question, spec.name, outcomes,
                             flags=_forbidden_uses(spec, answer, sources, self._stop(spec)) or
                             self._flags_from_callees(spec, answer, sources, namespace),
                             graded_later=spec.graded_later, follows=tuple(spec.follows))
        mistaken = {name: [] for name in spec.feedback}
        missing = object()
        for case in spec.cases:
            for name in mistaken:
                value = case.get("mistakes", {}).get(name, missing)
                mistaken[name].append(missing if value is missing else decode_input(value))
        names = diagnose([o.passed for o in outcomes], actuals, mistaken,
                         lambda a, b, i: spec.same(a, b), skip=(missing,))
        result.mistakes = names
        result.diagnosis = explain(names, spec.feedback)
        failing = self._failing_callees(spec, answer, namespace)
        if failing and not result.all_passed:  # the mistake may be theirs: naming one here
            result.mistakes, result.diagnosis = [], ""  # would blame the wrong code
        if failing:  # (passing, it may only make up for their mistake: said too)
            result.callees_failing = " and ".join(f"`{q.name}` ({q.id})" for q in failing)
        found = value_rounded_to(spec, _plain(answer)) \
            if spec.graded_later and spec.kind == "value" \
            and not an_allowed_value(spec, _plain(answer)) else None  # (a dict's, a list's)
        if found:
            places, where = found
            result.note = (f"{spec.name}{where} has only {places} decimal places: if you "
                           "rounded it, store it unrounded, since the grader compares it with "
                           "the exact value and a rounded one loses the points (round only "
                           "what you print)")
        return result

    def _callees(self, spec: PublicQuestion, answer, namespace: dict | None):
        """(question, function) for each graded function ``answer`` calls (``spec.calls``),
        looked up where the answer looks them up (a value: the notebook's names)."""
        if spec.kind == "function":
            namespace = getattr(answer, "__globals__", None)
        if namespace is None:
            ipython = sys.modules.get("IPython")
            shell = ipython.get_ipython() if ipython is not None else None
            namespace = getattr(shell, "user_ns", None)
        if not isinstance(namespace, dict):
            return []
        callees = [self.questions.get(callee_id) for callee_id in spec.calls]
        found = [(callee, namespace.get(callee.name)) for callee in callees
                 if callee is not None and callable(namespace.get(callee.name))]
        if spec.kind == "function":  # not one it never names (student 13: counted itself)
            used = _names_used(answer, namespace)
            found = [(callee, function) for callee, function in found if callee.name in used]
        return found

    def _stop(self, spec: PublicQuestion) -> set[str]:
        """The graded functions the scan of ``spec``'s answer does not follow, as at grading
        (``forbidden.graded_callees_to_stop``)."""
        return forbidden_names.graded_callees_to_stop(
            [(q.name, q.kind, q.forbidden) for q in self.questions.values()],
            spec.name, spec.forbidden)

    def _flags_from_callees(self, spec: PublicQuestion, answer, sources, namespace) -> list[str]:
        """What the grader flags in a value through the graded functions it calls, when no
        cell text shows the way there (a harness that runs cells with ``exec``): the
        value's forbidden names in those functions' compiled code, as for a function."""
        if spec.kind != "value" or not spec.forbidden or \
                (sources if sources is not None else _session_cells()):
            return []
        found: set[str] = set()
        stop = self._stop(spec)
        for callee, function in self._callees(spec, answer, namespace):
            if callee.name not in stop:
                found |= _compiled_uses(function, set(spec.forbidden), stop)
        return forbidden_names.fewest_names(found)

    def _failing_callees(self, spec: PublicQuestion, answer,
                         namespace: dict | None = None) -> list[PublicQuestion]:
        """The graded functions ``answer`` calls (``spec.calls``) whose own public tests
        fail."""
        failing, roots = [], []
        for callee, function in self._callees(spec, answer, namespace):
            checked = self.run(callee.id, function, sources=[])
            if not checked.all_passed:
                failing.append(callee)
                if not checked.callees_failing:  # not itself failing through another
                    roots.append(callee)
        return roots or failing

    @staticmethod
    def _run_case(spec: PublicQuestion, case: dict, answer) -> tuple[TestOutcome, Any]:
        hint = case.get("hint") or spec.hint
        name = case["name"]
        if spec.kind == "function":
            args = decode_input(case.get("args", {"$tuple": []}))
            kwargs = decode_input(case.get("kwargs", {"$dict": []}))
            snapshot = input_snapshot(args, kwargs) if spec.keep_inputs else None
            try:
                returned = answer(*args, **kwargs)
            except BaseException as error:  # noqa: BLE001 - report it like the grader would
                if isinstance(error, KeyboardInterrupt):  # the student stopped the check
                    raise
                if raised_by_stub(error, answer):
                    return TestOutcome(name, False, STILL_THE_STUB), NO_VALUE
                text = str(error)
                message = f"raised {type(error).__name__}" + (f": {text}" if text else "")
                return TestOutcome(name, False, message, raised_hint(message, hint)), NO_VALUE
            where = changed_input(snapshot, args, kwargs) if spec.keep_inputs else None
            if where is not None:  # the same rule and words as the grader's
                return TestOutcome(name, False, input_changed(where, len(args), tuple(kwargs))
                                   ), NO_VALUE
        else:
            returned = answer
        try:
            actual = normalise(returned)
        except TypeError as error:
            return TestOutcome(name, False, f"the result is not plain data ({error})",
                               spec.hint), NO_VALUE
        expected = decode_input(case["expected"])
        try:
            call = PublicCall(args, kwargs) if spec.kind == "function" else None
            problem = spec.compare(actual, expected, from_json(case.get("judge")), call)
        except Exception as error:  # noqa: BLE001
            problem = f"the result could not be compared ({type(error).__name__})"
        if problem and problem.startswith(FORM_NOTES):
            hint = ""  # the message says what is wrong; the hint would point elsewhere
        elif problem and not case_hint_applies(problem):
            hint = spec.hint  # a wrong form: the case's own hint is about a wrong value
        return TestOutcome(name, problem is None, problem or "", hint), actual

    def __call__(self, question: str, answer) -> None:
        """Print the report (and return nothing, so a notebook shows it only once).  A value's
        graded functions are looked up among the names of the code that calls ``check``."""
        print(self.run(question, answer, namespace=sys._getframe(1).f_globals))


def _names_used(function, namespace: dict) -> set[str]:
    """The global names a function's code reads, and those of the notebook's own functions
    it reads (helpers calling a graded function count)."""
    used, todo, seen = set(), [getattr(function, "__code__", None)], set()
    while todo:
        code = todo.pop()
        if code is None or id(code) in seen:
            continue
        seen.add(id(code))
        used |= set(code.co_names)
        todo += [c for c in code.co_consts if hasattr(c, "co_names")]
        todo += [getattr(namespace.get(name), "__code__", None) for name in code.co_names
                 if inspect.isfunction(namespace.get(name))]
    return used


def _forbidden_uses(spec: PublicQuestion, answer, sources: Sequence[str] | None,
                    stop: set[str] = frozenset()) -> list[str]:
    """The names the grader would flag for this answer, found the way the grader finds them
    (not through the graded functions in ``stop``: ``Checker._stop``)."""
    if not spec.forbidden and not spec.computed:
        return []
    if sources is None:
        sources = _session_cells() or _defining_module(answer)
    if spec.computed and typed_numbers.typed_in(sources, spec.name):
        return [typed_numbers.TYPED_IN]
    if not spec.forbidden:
        return []
    names = {spec.name}
    own_name = getattr(answer, "__name__", "")
    if callable(answer) and own_name.isidentifier() and own_name != "<lambda>":
        names.add(own_name)  # check("q2", my_scores) scans my_scores too
    found: set[str] = set()
    # an answer defined where no scan reads it: said of the notebook's own name only (a
    # function handed to check under another name is read by that name)
    whole = not callable(answer) or own_name == spec.name
    for name in names:
        found.update(forbidden_names.find(sources, name, spec.forbidden, stop,
                                          unreadable=whole and name == spec.name))
    if callable(answer) and not any(_defines(source, own_name) for source in sources):
        found.update(_compiled_uses(answer, set(spec.forbidden), stop))
    return forbidden_names.fewest_names(found)


def _defines(source, name: str) -> bool:
    return isinstance(source, str) and bool(name) and \
        re.search(rf"^\s*(async\s+)?def\s+{re.escape(name)}\b", source, re.M) is not None


def _compiled_uses(answer, forbidden: set[str], stop: set[str] = frozenset()) -> set[str]:
    """The forbidden names a function answer's compiled code refers to, itself or through
    the notebook's functions it uses: what ``check()`` can still see when no cell's text
    can be read (code run outside IPython, or by ``exec``)."""
    if not inspect.isfunction(answer):
        return set()
    found: set[str] = set()
    seen: set[int] = set()
    todo = [answer]
    while todo:
        function = todo.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        codes, names, strings = [function.__code__], set(), set()
        while codes:
            code = codes.pop()
            names.update(code.co_names)
            strings.update(c for c in code.co_consts if isinstance(c, str))
            codes.extend(c for c in code.co_consts if inspect.iscode(c))
        namespace = getattr(function, "__globals__", {})
        own = {n: namespace.get(n) for n in names
               if inspect.isfunction(namespace.get(n)) and namespace[n].__globals__ is namespace}
        todo.extend(f for n, f in own.items() if n not in stop)  # not into other graded answers
        classes = {n for n in names if inspect.isclass(namespace.get(n))
                   and namespace[n].__module__ == namespace.get("__name__")}
        own.update(dict.fromkeys(classes))  # so is a class of their own (CountTable)
        found |= (names & forbidden) - set(own)  # the student's own logsumexp is theirs
        # a name the grader reads as an attribute: getattr(ev, "accu" + "racy") is folded
        # into the constant "accuracy" when compiled
        attributes = names | (strings if "getattr" in names else set())
        found |= _library_objects(attributes, namespace, set(own)) & forbidden
    return found


def _library_objects(names: set[str], namespace: dict, own: set[str]) -> set[str]:
    """What a compiled function reaches through its globals, as the grader names it: an
    imported function by its own name (``me`` for ``m_estimate``), a function of nbcourse
    by its home (``nbcourse._numerics.sigmoid``), and ``module.attribute`` for a global
    bound to a module of nbcourse (``_s.combine_moments``)."""
    found = set()
    for name in names - own:
        value = namespace.get(name)
        home = str(getattr(value, "__module__", "") or "")
        if home and home == namespace.get("__name__"):
            continue  # a class or function the student's cells define
        if inspect.ismodule(value) and value.__name__.split(".")[0] == "nbcourse":
            found |= {f"{value.__name__}.{attribute}" for attribute in names}
        elif inspect.isfunction(value) or inspect.isclass(value) or inspect.isbuiltin(value):
            found.add(str(getattr(value, "__name__", "")))
            if home.split(".")[0] == "nbcourse":
                found.add(f"{home}.{value.__name__}")
    return found


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
