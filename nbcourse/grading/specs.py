"""Grading specs: one file per exercise holds every test, public and hidden.

Each exercise has an instructor source notebook, ``exercises/source/NN_name.ipynb``,
and next to it a spec, ``NN_name.grading.py``, that defines ``EXERCISE``.  The spec
names the graded answers (functions or values in the student's notebook), the cases
each answer is tested on, the points, the tolerance, a *reference* that computes the
expected value in the grader's process (usually with the nbcourse library), and the
known *mistakes* students make, each with its own reference and a few words of
feedback.

Like otter-grader's ``TestCase.hidden``, a case is public (``hidden=False``: the
student's ``check()`` runs it) or hidden (only the grader runs it).  ``nbcourse
release`` writes the public part (``publish``: public inputs, expected values,
hints, mistakes) next to the student notebooks as ``NN_name.checks.json``; the spec
itself, the hidden cases and the solutions never leave the instructor's folder.
"""
from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence

from .diagnosis import form_note
from .judges import Judge
from .library_names import expand
from .values import Tolerance, both_nan, compare, decimal_problem, encode_input, normalise
from ..resources import CHECKS_SUFFIX, SPEC_SUFFIX, exercise_matches
PROBABILITY = Tolerance(rel=1e-6, abs_=1e-9)
FAILED = object()  # a mistake's reference that raised on a case: it matches nothing


class NotApplicable(Exception):
    """Raised by a mistake's reference on a case where the mistake predicts no value (the
    scores of an optimum on the boundary, say): that case neither confirms nor rules out
    the mistake, and ``nbcourse validate`` does not report it."""


def _origin() -> tuple[str, int]:
    """The spec file and line where the calling constructor was written."""
    frame = inspect.currentframe()
    try:
        while frame is not None:
            filename = frame.f_code.co_filename
            if not filename.endswith(("specs.py", "<string>")) and "dataclass" not in filename \
                    and frame.f_code.co_name not in ("__init__", "__post_init__"):
                return filename, frame.f_lineno
            frame = frame.f_back
        return "", 0
    finally:
        del frame


@dataclass
class Case:
    """One test: a call of a graded function, or one look at a graded value.

    ``name`` is shown to the student in the feedback, so it should say what the case
    is about ("a table where one value never occurs with 'no'") without giving away
    the input or the answer.  ``hidden=False`` makes it a public case: the student's
    ``check()`` runs it, and its inputs and expected value ship with the student
    version.  ``hint`` replaces the question's hint for this case; ``judge`` its
    comparison (for a public case, a judge from ``nbcourse.grading.judges``, since a
    plain function cannot be shipped to students).
    """
    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    hidden: bool = True
    hint: str = ""
    judge: Callable[[Any, Any, "Case"], str | None] | None = None
    origin: tuple = field(default_factory=_origin, repr=False, compare=False)

    def __post_init__(self):
        if not isinstance(self.args, tuple):
            self.args = tuple(self.args) if isinstance(self.args, list) else (self.args,)


@dataclass
class Mistake:
    """A known wrong answer, recognised when a student's answer equals its value.

    ``reference`` computes the mistaken answer from the same inputs as the question's
    reference (nothing, for a value question); ``feedback`` names the misconception in
    a sentence or two and points to the lesson section that clears it up.  The
    diagnosis changes the words of the feedback, never the points.

    ``made_in`` names the graded functions where the mistake is made (05's recipe
    mistakes, made in ``spam_experiment``, seen in the values computed with it): when
    those are right, the answer cannot be making it, and a value that only equals the
    mistake's is not told so (``scoring``).
    """
    name: str
    reference: Callable[..., Any]
    feedback: str
    made_in: Sequence[str] = ()
    origin: tuple = field(default_factory=_origin, repr=False, compare=False)


@dataclass
class Swap:
    """A hidden judgement of a computed value: does it follow the functions it should be
    computed from?

    After every answer is read, the value's cell runs again with the graded functions
    ``source`` defines (a deliberately different ``decide``, say) in place of the
    student's, and with the solutions of the question's other ``calls``; the value must
    then equal ``reference()``.  A value that comes out right whatever those functions say
    (typed in, or 1 by construction, like ``len(X) / len(X)``) fails it, and its feedback
    is ``feedback`` (fixed text: what the kernel sends back is never shown).

    ``rebinds`` names notebook values (not graded functions) that ``source`` also defines
    and the replay uses in place of the notebook's: 04's ``agreement`` is run again with a
    ``model`` that errs on the corpus, so that a share taken against the true labels no
    longer lands on the model's 1.0.
    """
    name: str
    replace: Sequence[str]
    source: str
    reference: Callable[[], Any]
    feedback: str
    rebinds: Sequence[str] = ()
    origin: tuple = field(default_factory=_origin, repr=False, compare=False)

    def __post_init__(self):
        self.replace = tuple(self.replace)
        self.rebinds = tuple(self.rebinds)
        if set(self.rebinds) & set(self.replace):
            raise ValueError(f"swap {self.name!r}: a name is either replaced (a graded "
                             "function) or rebound (a value), not both")


@dataclass
class Question:
    """A graded answer: a function called on cases, or a value read as it is.

    ``reference(*case.args, **case.kwargs)`` (``reference()`` for a value) gives the
    expected answer; ``judge(actual, expected, case)``, when given, replaces the
    default comparison and returns None or a reason.  A value question's cases all
    look at the same value, each with its own judge if it has one (for example a
    public "is it a probability" case and a hidden exact one).  ``forbidden`` lists
    names the answer must not use (the estimator it re-implements), or library modules
    and objects by their full name (``"nbcourse.linear.*"``, ``"nbcourse.adversary.
    good_word_attack"``), which the plan and the checks file list under every name of the
    library that reaches them (``library_names.expand``); see
    ``Exercise.forbidden_penalty``.  ``mistakes`` are the known wrong answers.

    ``calls`` names the graded functions this answer calls (``predict`` calls
    ``joint_scores``; a value, the functions its cell calls): when one of them fails, the
    answer is graded again with their references in place (follow-through marking, see
    ``grading/follow_through.py``), and right that way it earns ``follow_through`` of
    its points (1.0: all of them) when a function it calls directly is wrong itself, and
    all of them when the mistake is deeper down (in a function that one calls).
    ``swaps`` (a computed value only) are hidden judgements that its cell really uses
    those functions (``Swap``).

    ``computed=True`` (a value the notebook asks to compute, not to type in) flags an
    answer that is, or hides, a number typed in (``typed_in.typed_in``: ``TYPED_IN``),
    like a forbidden name: it earns what ``Exercise.forbidden_penalty`` leaves.  A swap
    judges the same value on behaviour, where the text names the function to use.

    A graded function must leave its inputs as it was given them: a call that sorts,
    fills or pops from one fails that case, in ``check()`` and at grading, with a note
    that says so (``probe_source.changed_input``).  ``changes_inputs=True`` is for a
    function the notebook asks to change its input in place.
    """
    id: str
    name: str
    points: float
    title: str
    kind: str = "function"
    cases: Sequence[Case] = ()
    reference: Callable[..., Any] | None = None
    tolerance: Tolerance = PROBABILITY
    exact: bool = False
    judge: Callable[[Any, Any, Case], str | None] | None = None
    forbidden: Sequence[str] = ()
    hint: str = ""
    mistakes: Sequence[Mistake] = ()
    calls: Sequence[str] = ()
    follow_through: float = 1.0
    swaps: Sequence[Swap] = ()

    computed: bool = False
    changes_inputs: bool = False
    origin: tuple = field(default_factory=_origin, repr=False, compare=False)
    #: the ids of the questions that call this one (``Exercise`` fills it in): a right
    #: value given as a Decimal is refused where they would mix it with floats
    used_by: tuple = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self):
        if isinstance(self.calls, str):
            raise TypeError(f"question {self.id}: calls must be a list of names, "
                            f"got {self.calls!r}")
        self.calls = tuple(self.calls)
        self.swaps = list(self.swaps)
        if self.swaps and (self.kind != "value" or
                           any(set(s.replace) - set(self.calls) for s in self.swaps)):
            raise ValueError(f"question {self.id}: a swap replaces functions a value's "
                             "cell calls (its calls)")
        if not 0 <= self.follow_through <= 1:
            raise ValueError(f"question {self.id}: follow_through must be between 0 and 1, "
                             f"got {self.follow_through}")
        if self.kind not in ("function", "value"):
            raise ValueError(f"question {self.id}: kind must be 'function' or 'value', got {self.kind!r}")
        if self.points <= 0:
            raise ValueError(f"question {self.id}: points must be positive, got {self.points}")
        if self.reference is None:
            raise ValueError(f"question {self.id}: a reference that computes the expected value is required")
        if self.kind == "value" and not self.cases:
            # hidden: a public case would ship the answer itself in the checks file
            self.cases = (Case(f"the value of {self.name}", origin=self.origin),)
        if self.kind == "function" and not self.cases:
            raise ValueError(f"question {self.id}: a function question needs at least one case")
        if self.kind == "value" and any(case.args or case.kwargs for case in self.cases):
            raise ValueError(f"question {self.id}: the cases of a value question take no inputs")
        if self.kind == "value" and not any(case.hidden for case in self.cases):
            # a public case without a hidden one would ship the graded value to students
            raise ValueError(f"question {self.id}: a value question is graded on a hidden "
                             "case; its public cases can only check the form (give them a "
                             "judge such as Within)")
        if self.kind == "value" and any(not case.hidden and case.judge is None
                                        for case in self.cases):
            raise ValueError(f"question {self.id}: a public case of a value question needs a "
                             "judge that checks the form, or it would judge the value itself")
        names = [m.name for m in self.mistakes]
        if len(set(names)) != len(names):
            raise ValueError(f"question {self.id}: mistake names must be unique, got {names}")
        self.cases = list(self.cases)
        self.mistakes = list(self.mistakes)
        self._expected = None
        self._mistaken = None

    def _call(self, function, case: Case):
        if self.kind == "value":
            return function()
        return function(*case.args, **case.kwargs)

    def expected(self) -> list:
        """Expected answers, case by case, in the form the student's answers arrive in."""
        if self._expected is None:
            if self.kind == "value":
                value = normalise(self.reference())
                self._expected = [value for _ in self.cases]
            else:
                self._expected = [normalise(self._call(self.reference, case)) for case in self.cases]
        return self._expected

    def mistaken(self) -> dict[str, list]:
        """{mistake name: its value on each case} (``FAILED`` where it raised)."""
        if self._mistaken is None:
            table = {}
            self.mistake_errors = {}
            for mistake in self.mistakes:
                values = []
                for index, case in enumerate(self.cases):
                    if self.kind == "value" and index:
                        values.append(values[0])  # one value, looked at by every case
                        continue
                    try:
                        values.append(normalise(self._call(mistake.reference, case)))
                    except NotApplicable:
                        values.append(FAILED)
                    except Exception as error:  # noqa: BLE001 - validate reports it
                        values.append(FAILED)
                        self.mistake_errors.setdefault(mistake.name, (index, error))
                table[mistake.name] = values
            self._mistaken = table
        return self._mistaken

    def same_as(self, actual, value, case: Case) -> bool:
        """Whether ``actual`` equals ``value`` the way this question grades (a mistake's
        value, say): its own judge or comparison, never a case's looser judge."""
        try:
            if both_nan(actual, value):
                return True
            if self.judge is not None:
                return self.judge(actual, value, case) is None
            return compare(actual, value, self.tolerance, exact=self.exact,
                           strip=self.kind == "value") is None
        except Exception:  # noqa: BLE001 - a strange answer simply matches nothing
            return False

    def judge_case(self, actual, expected, case: Case) -> str | None:
        judge = case.judge or self.judge
        if judge is not None:
            return judge(actual, expected, case)
        # a function's text is compared as it is (its callers compare it with ==)
        problem = compare(actual, expected, self.tolerance, exact=self.exact,
                          strip=self.kind == "value")
        if problem is None:
            return decimal_problem(actual, expected, floats=bool(self.used_by)) \
                if self.kind == "function" else None
        # "rounded" would tell a hidden case's answer is near: public cases only (a hidden
        # value's page gets a note made from the student's value alone: scoring)
        return form_note(actual, expected, self.tolerance, rounded=not case.hidden) or problem

    @property
    def keeps_inputs(self) -> bool:
        """Whether a call that changes its inputs in place fails its case."""
        return self.kind == "function" and not self.changes_inputs

    @property
    def graded_later(self) -> bool:
        """A value whose right answer only the grader knows (a graded reasoning item):
        ``check()`` can test its form, never whether it is right."""
        return self.kind == "value" and any(case.hidden for case in self.cases)

    def probe_request(self) -> dict:
        """What the kernel is told: names and hidden inputs only, never expected values."""
        request = {"question": self.id, "name": self.name, "kind": self.kind,
                   "forbidden": expand(self.forbidden), "computed": self.computed}
        if self.kind == "function":
            request["keep_inputs"] = self.keeps_inputs
            request["cases"] = [{"args": encode_input(tuple(case.args)),
                                 "kwargs": encode_input(dict(case.kwargs)),
                                 "hidden": case.hidden}  # the runner probes these last
                                for case in self.cases]
        return request

    def publish(self) -> dict:
        """What a student's ``check()`` needs: public cases only, with expected values."""
        expected = self.expected()
        # a graded value's known mistakes are the wrong choices: shipping their values or
        # their explanations would tell the student which choice is left
        mistaken = {} if self.graded_later else self.mistaken()
        cases = []
        for index, case in enumerate(self.cases):
            if case.hidden:
                continue
            entry = {"name": case.name, "hint": case.hint,
                     "judge": case.judge.to_json() if isinstance(case.judge, Judge) else None,
                     # a graded value's public case tests the form with its judge: the
                     # value itself stays with the grader
                     "expected": None if self.graded_later else
                     encode_input(_canonical(expected[index])),
                     "mistakes": {name: encode_input(_canonical(values[index]))
                                  for name, values in mistaken.items()
                                  if values[index] is not FAILED}}
            if self.kind == "function":
                entry["args"] = encode_input(tuple(case.args))
                entry["kwargs"] = encode_input(dict(case.kwargs))
            cases.append(entry)
        return {"id": self.id, "name": self.name, "title": self.title, "kind": self.kind,
                "forbidden": expand(self.forbidden), "computed": self.computed,
                "keep_inputs": self.keeps_inputs, "hint": self.hint,
                "tolerance": [self.tolerance.rel, self.tolerance.abs_], "exact": self.exact,
                "judge": self.judge.to_json() if isinstance(self.judge, Judge) else None,
                "mistakes": [] if self.graded_later else
                [{"name": m.name, "feedback": m.feedback} for m in self.mistakes],
                "graded_later": self.graded_later, "cases": cases,
                # what the swaps run the value's cell with (names only, never a value)
                "follows": sorted({name for swap in self.swaps
                                   for name in (*swap.replace, *swap.rebinds)})}


def _canonical(value):
    """Dicts in a fixed key order, so a release writes the same bytes whatever the order a
    reference built them in (a dict from a set differs between runs)."""
    if isinstance(value, dict):
        return {k: _canonical(value[k]) for k in sorted(value, key=repr)}
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    return value


@dataclass
class Exercise:
    """An exercise's questions.  ``name`` and ``source`` are filled in when loaded.

    ``forbidden_penalty`` is the share of a question's points lost when its answer
    uses a forbidden name (1.0: the question scores zero; 0.0: only a note).
    """
    title: str
    questions: Sequence[Question]
    forbidden_penalty: float = 1.0
    name: str = ""
    source: Path | None = None

    def __post_init__(self):
        ids = [q.id for q in self.questions]
        if len(set(ids)) != len(ids):
            raise ValueError(f"question ids must be unique, got {ids}")
        if not self.questions:
            raise ValueError("an exercise needs at least one question")
        if not 0 <= self.forbidden_penalty <= 1:
            raise ValueError("forbidden_penalty must be between 0 and 1")
        functions = {q.name for q in self.questions if q.kind == "function"}
        for question in self.questions:
            for name in question.calls:
                if name == question.name or name not in functions:
                    raise ValueError(f"question {question.id}: calls names {name!r}, which is "
                                     "not another graded function of this exercise")
            if question in self.callees(question):
                raise ValueError(f"question {question.id}: its calls lead back to "
                                 f"{question.name!r} (a cycle)")
        for question in self.questions:
            question.used_by = tuple(q.id for q in self.questions if question.name in q.calls)

    def callees(self, question: Question) -> list[Question]:
        """The graded functions ``question`` calls, directly or through one another, in
        the exercise's order."""
        by_name = {q.name: q for q in self.questions}
        found, todo = set(), list(question.calls)
        while todo:
            name = todo.pop()
            if name in found or name not in by_name:
                continue
            found.add(name)
            if name != question.name:
                todo.extend(by_name[name].calls)
        return [q for q in self.questions if q.name in found]

    @property
    def maximum(self) -> float:
        return float(sum(Fraction(str(q.points)) for q in self.questions))

    def question(self, question_id: str) -> Question:
        for question in self.questions:
            if question.id == question_id:
                return question
        raise KeyError(f"{self.name} has no question {question_id!r}; "
                       f"it has {[q.id for q in self.questions]}")

    def probe_plan(self) -> dict:
        """What the grading worker asks the kernel: every answer, then the follow-through
        probes (``follow_through.plan``), which run after every answer is read."""
        from .follow_through import plan
        from .swaps import swap_plan
        return {"exercise": self.name, "questions": [q.probe_request() for q in self.questions],
                "follow_through": plan(self) + swap_plan(self)}

    def expected(self) -> dict[str, list]:
        return {q.id: q.expected() for q in self.questions}

    def publish(self) -> dict:
        """The student side of the spec, as plain JSON (see ``selfcheck``)."""
        questions = []
        for question in self.questions:
            entry = question.publish()
            callees = self.callees(question)
            if callees:  # check() says when one of them is why this answer fails
                entry["calls"] = [q.id for q in callees]
            if question.used_by:  # check() refuses a Decimal as the grader does
                entry["used_by"] = list(question.used_by)
            questions.append(entry)
        return {"format": 1, "exercise": self.name, "title": self.title,
                "questions": questions}


# ----------------------------------------------------------------------- finding specs
def default_source_dir() -> Path:
    """Where the instructor's sources are when no folder is given: the folder the
    command line finds (``resources.find_exercise_source``: ``$NBCOURSE_EXERCISES``, the
    current folder, ``exercises/source`` here or above); else the one nbcourse ships.

    A ``$NBCOURSE_EXERCISES`` without specs is returned as it is, so the error names it
    instead of grading against the shipped exercises.
    """
    from ..resources import course_root, find_exercise_source
    found, _ = find_exercise_source()
    if found is not None:
        return found
    override = os.environ.get("NBCOURSE_EXERCISES")
    if override:
        return Path(override)
    return Path(course_root()) / "exercises" / "source"  # the package's copy, or the checkout


def available(source_dir: Path | None = None) -> list[str]:
    source_dir = Path(source_dir or default_source_dir())
    return sorted(p.name[: -len(SPEC_SUFFIX)] for p in source_dir.glob(f"*{SPEC_SUFFIX}"))


def resolve_name(name: str, source_dir: Path | None = None) -> str:
    """Accept ``01_weather``, ``weather``, ``1`` or ``01`` for the same exercise."""
    source_dir = Path(source_dir or default_source_dir())
    names = available(source_dir)
    if not names:
        raise FileNotFoundError(f"no grading specs (*{SPEC_SUFFIX}) in {source_dir}")
    matches = exercise_matches(name, names)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ValueError(f"unknown exercise {name!r}; available: {', '.join(names)}")
    raise ValueError(f"exercise {name!r} is ambiguous: {', '.join(matches)}")


def load(name: str, source_dir: Path | None = None) -> Exercise:
    """Import ``<source_dir>/<name>.grading.py`` and return its ``EXERCISE``."""
    source_dir = Path(source_dir or default_source_dir())
    name = resolve_name(name, source_dir)
    path = source_dir / f"{name}{SPEC_SUFFIX}"
    module_spec = importlib.util.spec_from_file_location(f"nbcourse_spec_{name}", path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_spec.name] = module  # so dataclasses and pickling see the module
    try:
        module_spec.loader.exec_module(module)
    finally:
        sys.modules.pop(module_spec.name, None)
    exercise = getattr(module, "EXERCISE", None)
    if not isinstance(exercise, Exercise):
        raise ValueError(f"{path} must define EXERCISE = Exercise(...)")
    exercise.name = name
    exercise.source = source_dir / f"{name}.ipynb"
    return exercise
