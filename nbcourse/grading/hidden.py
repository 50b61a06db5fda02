"""Hidden tests inside the instructor's solution notebook.

A source notebook's ``### BEGIN HIDDEN TESTS`` cell calls ``run_hidden_tests``: it
evaluates the solution on the spec's hidden cases exactly as the grader does (same
probe, same JSON round trip, same comparison) and raises AssertionError if any case
fails.  Because nbval runs every solution notebook in ``pytest``, a spec whose
expected values disagree with the instructor's own solution is caught before any
student is graded against it.  The release removes these cells.

``grade_answer`` is the same path for any answer object, so tests can check that a
spec's hidden cases catch plausible wrong answers.
"""
from __future__ import annotations

import json
from pathlib import Path

from . import specs
from .execution.probe_source import nbcourse_probe
from .scoring import QuestionResult, score_question
from .statuses import AnswerStatus


def grade_answer(exercise: str | specs.Exercise, question: str, answer,
                 source_dir: Path | None = None) -> QuestionResult:
    """Score ``answer`` on ``question``'s cases as the grader would (without a kernel).

    The answer goes through the probe and its JSON report, and is compared in
    ``score_question``; only the forbidden-name scan (which needs the notebook's
    source, and runs in the grading worker: ``forbidden.flagged_answers``) is left out.
    """
    spec = exercise if isinstance(exercise, specs.Exercise) else specs.load(exercise, source_dir)
    return grade_question(spec.question(question), answer)


def grade_question(q: specs.Question, answer) -> QuestionResult:
    """``grade_answer`` for a question object (validation grades each known mistake)."""
    captured: list[str] = []
    nbcourse_probe({q.name: answer}, "", json.dumps(q.probe_request()), emit=captured.append)
    return score_question(q, json.loads(captured[0]), q.expected(), 0.0, [])


def run_hidden_tests(exercise: str, question: str, answer) -> None:
    """Assert that ``answer`` passes every case of ``question``; print a one-line summary.

    Where the specs cannot be read, for instance inside the grader's sandbox, which hides
    them from every notebook it runs, the cell says so and passes: the grader judges the
    answers itself, outside the kernel, whether or not this cell ran.
    """
    try:
        spec = specs.load(exercise)  # the notebook's own folder when it holds the specs
    except FileNotFoundError as error:
        print(f"{question}: hidden tests not run here ({error})")
        return
    result = grade_answer(spec, question, answer)
    failed = [case for case in result.cases if not case.passed]
    if failed or result.status != AnswerStatus.PASSED:
        details = "; ".join(f"{c.name}: {c.message}" for c in failed) or "; ".join(result.notes)
        raise AssertionError(f"{spec.name} {question} ({result.name}): {details}")
    print(f"{question}: {len(result.cases)} of {len(result.cases)} grading cases pass")
