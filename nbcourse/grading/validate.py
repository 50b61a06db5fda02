"""``nbcourse validate``: find the mistakes in an exercise before students do.

Run by ``nbcourse validate``, by ``nbcourse release`` (which writes nothing when an
error is found) and by ``pytest``.  Every message names the file and, where there is
one, the notebook cell or the spec line, so the instructor can go straight to it:

* the markers of the source notebook (``### BEGIN SOLUTION`` ...), near misses
  included (``## BEGIN SOLUTION``, ``BEGIN SOLUTIONS``, wrong case): a near miss
  would ship the solution;
* the spec loads and defines ``EXERCISE``;
* every reference runs on every case (a case with the wrong number of inputs is
  named), and its result can be compared;
* every answer name of the spec is defined by the source notebook's cells;
* every function question has at least one hidden case;
* every public case can be shipped to students (plain-data inputs, a judge from
  ``nbcourse.grading.judges``);
* every known mistake runs on every case, loses points, is caught by a hidden case
  (function questions) and is recognised by the diagnosis;
* a question that declares ``calls`` finds the solutions of what it calls in the source
  notebook (follow-through marking).
"""
from __future__ import annotations

import ast
import difflib
import json
import traceback
from dataclasses import dataclass
from pathlib import Path

import nbformat

from . import authoring, specs
from .execution.cells import parse_cell
from .judges import Judge
from .library_names import expand
from .values import encode_input


@dataclass
class Problem:
    level: str  # "error" | "warning"
    where: str  # file, cell, line
    message: str

    def __str__(self) -> str:
        return f"{self.level}: {self.where}: {self.message}"


def _at(origin, fallback: Path) -> str:
    filename, line = origin if origin else ("", 0)
    if filename and Path(filename).name.endswith(specs.SPEC_SUFFIX):
        return f"{filename}, line {line}"
    return str(fallback)


def _case_label(question, index: int) -> str:
    case = question.cases[index]
    kind = "hidden" if case.hidden else "public"
    return f"{question.id} {kind} case {index + 1} ({case.name!r})"


def defined_names(notebook: nbformat.NotebookNode) -> set[str]:
    """Names the code cells bind at the top level (functions, classes, assignments)."""
    names: set[str] = set()
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        tree = parse_cell(cell.source)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.alias):
                names.add((node.asname or node.name).split(".")[0])
    return names


def check_markers(path: Path) -> list[Problem]:
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception as error:  # noqa: BLE001
        return [Problem("error", str(path), f"not a readable notebook ({error})")]
    try:
        authoring.student_notebook(notebook, str(path))
    except authoring.MarkerError as error:
        text = str(error)
        where, _, message = text.partition(": ")
        return [Problem("error", where, message)]
    return []


def _load(name: str, source_dir: Path) -> tuple[specs.Exercise | None, list[Problem]]:
    path = source_dir / f"{name}{specs.SPEC_SUFFIX}"
    try:
        return specs.load(name, source_dir), []
    except Exception as error:  # noqa: BLE001
        frames = [f for f in traceback.extract_tb(error.__traceback__)
                  if Path(f.filename).resolve() == path.resolve()]
        where = f"{path}, line {frames[-1].lineno}" if frames else str(path)
        return None, [Problem("error", where, f"the spec does not load: "
                                              f"{type(error).__name__}: {error}")]


def validate(name: str, source_dir: Path | None = None) -> list[Problem]:
    """Every problem found in exercise ``name`` of ``source_dir``."""
    source_dir = Path(source_dir or specs.default_source_dir())
    name = specs.resolve_name(name, source_dir)
    spec_path = source_dir / f"{name}{specs.SPEC_SUFFIX}"
    notebook_path = source_dir / f"{name}.ipynb"
    problems: list[Problem] = []
    if notebook_path.is_file():
        problems += check_markers(notebook_path)
    else:
        problems.append(Problem("error", str(notebook_path),
                                "no source notebook next to the spec"))
    exercise, load_problems = _load(name, source_dir)
    problems += load_problems
    if exercise is None:
        return problems
    defined = defined_names(nbformat.read(notebook_path, as_version=4)) \
        if notebook_path.is_file() else set()
    for question in exercise.questions:
        problems += _check_question(question, spec_path, notebook_path, defined)
    problems += _check_follow_through(exercise, spec_path)
    return problems


def _check_follow_through(exercise, spec_path: Path) -> list[Problem]:
    """A question that declares ``calls`` needs the solutions of what it calls, as
    top-level functions of the source notebook, or follow-through marking is off for it."""
    from .follow_through import reference_source
    problems = []
    for question in exercise.questions:
        callees = [q.name for q in exercise.callees(question)]
        if callees and reference_source(exercise, callees) is None:
            problems.append(Problem("warning", _at(question.origin, spec_path), (
                f"{question.id} calls {', '.join(callees)}, but the source notebook does not "
                "define them all as top-level functions: no follow-through marking for "
                f"{question.id}")))
    return problems


def _check_question(question, spec_path: Path, notebook_path: Path,
                    defined: set[str]) -> list[Problem]:
    """The question as a whole, then its references on every case, then (when those
    hold) its known mistakes."""
    problems = _check_question_shape(question, _at(question.origin, spec_path), notebook_path,
                                     defined)
    expected = _check_cases(question, spec_path, problems)
    if expected is not None and not errors(problems):
        problems += _check_mistakes(question, spec_path)
    return problems


def _check_question_shape(question, here: str, notebook_path: Path,
                          defined: set[str]) -> list[Problem]:
    """What the spec says of the question: its name is defined, it has hidden and public
    cases, it does not forbid itself, it lists known mistakes."""
    problems: list[Problem] = []
    if notebook_path.is_file() and question.name not in defined:
        close = difflib.get_close_matches(question.name, sorted(defined), n=1)
        problems.append(Problem("error", here, (
            f"{question.id} grades `{question.name}`, but no cell of {notebook_path.name} "
            "defines it" + (f" (did you mean `{close[0]}`?)" if close else ""))))
    if question.kind == "function" and not any(case.hidden for case in question.cases):
        problems.append(Problem("error", here, (
            f"{question.id} has no hidden case: the grade would rest on the public cases "
            "alone, which students see")))
    if not any(not case.hidden for case in question.cases):
        problems.append(Problem("warning", here, (
            f"{question.id} has no public case: the student's check() cannot test it (a public "
            "case of a value question ships its expected value, so give it a judge such as "
            "Within or OneOf when the value is the answer)")))
    try:
        expand(question.forbidden)
    except (TypeError, ValueError) as exc:
        problems.append(Problem("error", here, f"{question.id}: {exc}"))
    if question.name in question.forbidden:
        problems.append(Problem("warning", here, (
            f"{question.id} forbids `{question.name}`, which is also the name students must "
            "define: only a use of the library's own function is flagged, and the message "
            "says so")))
    if len(question.mistakes) < 2:
        problems.append(Problem("warning", here, (
            f"{question.id} lists {len(question.mistakes)} known mistake(s); list at least two "
            "(Mistake(name, reference, feedback)) so the feedback can name them")))
    return problems


def _check_cases(question, spec_path: Path, problems: list[Problem]) -> list | None:
    """The reference and the judge on every case (public ones shippable to students);
    the expected values, or None when the reference fails (no case after it is checked)."""
    expected = []
    for index, case in enumerate(question.cases):
        where, label = _at(case.origin, spec_path), _case_label(question, index)
        try:
            if question.kind == "value":
                expected.append(expected[0] if expected else specs.normalise(question.reference()))
            else:
                expected.append(specs.normalise(question.reference(*case.args, **case.kwargs)))
        except Exception as exc:  # noqa: BLE001
            problems.append(Problem("error", where, f"{label}: the reference fails: "
                                                    f"{type(exc).__name__}: {exc}"))
            return None
        if not case.hidden:
            problems += _check_public_case(question, case, expected[-1], where, label)
        try:
            question.judge_case(expected[-1], expected[-1], case)
        except Exception as exc:  # noqa: BLE001
            problems.append(Problem("error", where, (
                f"{label}: the judge fails on the expected value itself: "
                f"{type(exc).__name__}: {exc}")))
    return expected


def _check_public_case(question, case, expected, where: str, label: str) -> list[Problem]:
    """A public case ships to students: a judge they can run, plain-data inputs and value."""
    problems = []
    judge = case.judge or question.judge
    if question.graded_later and judge is None:
        problems.append(Problem("error", where, (
            f"{label} is public without a judge, so the checks file would ship the value that "
            f"{question.id}'s hidden case grades: give it a judge that tests the form "
            "(Within, OneOf)")))
    if judge is not None and not isinstance(judge, Judge):
        problems.append(Problem("error", where, (
            f"{label} is public, so its judge must come from nbcourse.grading.judges (a plain "
            "function cannot be shipped to students); make the case hidden or use one of them")))
    try:
        json.dumps(encode_input(tuple(case.args)))
        json.dumps(encode_input(dict(case.kwargs)))
        json.dumps(encode_input(expected))
    except (TypeError, ValueError) as exc:
        problems.append(Problem("error", where, (
            f"{label} is public but its inputs or expected value cannot be written for "
            f"students: {exc}")))
    return problems


def _check_mistakes(question, spec_path: Path) -> list[Problem]:
    """Every known mistake runs, loses points, is caught by a hidden case (function
    questions) and is named by the diagnosis."""
    from .hidden import grade_question
    problems = []
    mistaken = question.mistaken()
    for mistake in question.mistakes:
        where = _at(mistake.origin, spec_path)
        label = f"{question.id} mistake {mistake.name!r}"
        if mistake.name in question.mistake_errors:
            index, exc = question.mistake_errors[mistake.name]
            problems.append(Problem("error", where, (
                f"{label} fails on {_case_label(question, index)}: {type(exc).__name__}: {exc}")))
            continue
        answer = mistaken[mistake.name][0] if question.kind == "value" else mistake.reference
        result = grade_question(question, answer)
        if result.score >= result.points:
            problems.append(Problem("error", where, (
                f"{label} passes every case: it loses no points, so no case tells it from the "
                "right answer")))
            continue
        if question.kind == "function" and not any(
                c.hidden and not c.passed for c in result.cases):
            problems.append(Problem("error", where, (
                f"{label} fails only public cases: add a hidden case that catches it")))
        if mistake.name not in result.mistakes:
            problems.append(Problem("error", where, (
                f"{label} is not recognised by the diagnosis (another mistake gives different "
                "values on some case?)")))
    return problems


def validate_all(source_dir: Path | None = None) -> dict[str, list[Problem]]:
    source_dir = Path(source_dir or specs.default_source_dir())
    found = {name: validate(name, source_dir) for name in specs.available(source_dir)}
    for notebook in authoring.source_notebooks(source_dir):
        stem = notebook.name[: -len(".ipynb")]
        if stem not in found:
            found[stem] = check_markers(notebook) + [Problem(
                "error", str(notebook), f"no grading spec {stem}{specs.SPEC_SUFFIX} next to it "
                                        "(nbcourse new writes one)")]
    return found


def errors(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.level == "error"]
