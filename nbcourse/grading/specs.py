"""Grading specs: what to ask a submission, on which inputs, for how many points.

Each exercise has an instructor source notebook, ``exercises/source/NN_name.ipynb``,
and next to it a spec, ``NN_name.grading.py``, that defines ``EXERCISE``.  The spec
names the graded answers (functions or values in the student's notebook), the hidden
inputs each function is called on, the points, the tolerance, and a *reference* that
computes the expected value in the grader's process (usually with the nbcourse
library).  The student release contains neither file; the grader reads the spec from
the instructor's folder and never from a submission.
"""
from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence

from .values import Tolerance, compare, encode_input, normalise

SPEC_SUFFIX = ".grading.py"
PROBABILITY = Tolerance(rel=1e-6, abs_=1e-9)


@dataclass
class Case:
    """One call of a graded function.

    ``name`` is shown to the student in the feedback, so it should say what the case
    is about ("a table where one value never occurs with 'no'") without giving away
    the input or the answer.  ``hidden=False`` marks cases the notebook shows openly.
    """
    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    hidden: bool = True


@dataclass
class Question:
    """A graded answer: a function called on cases, or a value read as it is.

    ``reference(*case.args, **case.kwargs)`` (or ``reference()`` for a value) gives the
    expected answer; ``judge(actual, expected, case)``, when given, replaces the
    default comparison and returns None or a reason.  ``forbidden`` lists names the
    answer must not use (the estimator it re-implements); see ``Exercise.forbidden_penalty``.
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

    def __post_init__(self):
        if self.kind not in ("function", "value"):
            raise ValueError(f"question {self.id}: kind must be 'function' or 'value', got {self.kind!r}")
        if self.points <= 0:
            raise ValueError(f"question {self.id}: points must be positive, got {self.points}")
        if self.reference is None:
            raise ValueError(f"question {self.id}: a reference that computes the expected value is required")
        if self.kind == "value" and not self.cases:
            self.cases = (Case(f"the value of {self.name}", hidden=False),)
        if self.kind == "function" and not self.cases:
            raise ValueError(f"question {self.id}: a function question needs at least one case")

    def expected(self) -> list:
        """Expected answers, case by case, in the form the student's answers arrive in."""
        return [normalise(self.reference(*case.args, **case.kwargs)) for case in self.cases]

    def judge_case(self, actual, expected, case: Case) -> str | None:
        if self.judge is not None:
            return self.judge(actual, expected, case)
        return compare(actual, expected, self.tolerance, exact=self.exact)

    def probe_request(self) -> dict:
        """What the kernel is told: names and hidden inputs only, never expected values."""
        request = {"question": self.id, "name": self.name, "kind": self.kind,
                   "forbidden": list(self.forbidden)}
        if self.kind == "function":
            request["cases"] = [{"args": encode_input(tuple(case.args)),
                                 "kwargs": encode_input(dict(case.kwargs))}
                                for case in self.cases]
        return request


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
        return {"exercise": self.name, "questions": [q.probe_request() for q in self.questions]}

    def expected(self) -> dict[str, list]:
        return {q.id: q.expected() for q in self.questions}


# ----------------------------------------------------------------------- finding specs
def default_source_dir() -> Path:
    """Where the instructor's sources are when no folder is given.

    ``$NBCOURSE_EXERCISES``; else the current folder if it holds specs; else
    ``exercises/source`` under the current folder; else the one nbcourse ships.
    """
    override = os.environ.get("NBCOURSE_EXERCISES")
    if override:
        return Path(override)
    if any(Path.cwd().glob(f"*{SPEC_SUFFIX}")):
        return Path.cwd()
    here = Path.cwd() / "exercises" / "source"
    if here.is_dir():
        return here
    from ..resources import course_root  # the package's copy of the course, or the checkout
    return Path(course_root()) / "exercises" / "source"


def available(source_dir: Path | None = None) -> list[str]:
    source_dir = Path(source_dir or default_source_dir())
    return sorted(p.name[: -len(SPEC_SUFFIX)] for p in source_dir.glob(f"*{SPEC_SUFFIX}"))


def resolve_name(name: str, source_dir: Path | None = None) -> str:
    """Accept ``01_weather``, ``weather``, ``1`` or ``01`` for the same exercise."""
    source_dir = Path(source_dir or default_source_dir())
    names = available(source_dir)
    if not names:
        raise FileNotFoundError(f"no grading specs (*{SPEC_SUFFIX}) in {source_dir}")
    if name in names:
        return name
    key = name.lower().removesuffix(".ipynb")
    tiers = [  # the first tier with any match decides
        [n for n in names if n == key or n.split("_", 1)[-1] == key],
        [n for n in names if key.isdigit() and n.split("_", 1)[0].lstrip("0") == key.lstrip("0")],
        [n for n in names if len(key) >= 3 and key in n],
    ]
    matches = next((tier for tier in tiers if tier), [])
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
    module_spec.loader.exec_module(module)
    exercise = getattr(module, "EXERCISE", None)
    if not isinstance(exercise, Exercise):
        raise ValueError(f"{path} must define EXERCISE = Exercise(...)")
    exercise.name = name
    exercise.source = source_dir / f"{name}.ipynb"
    return exercise
