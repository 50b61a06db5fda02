"""Hidden tests inside the instructor's solution notebook.

A source notebook's ``### BEGIN HIDDEN TESTS`` cell calls ``run_hidden_tests``: it
evaluates the solution on the spec's hidden cases exactly as the grader does (same
probe, same JSON round trip, same comparison) and raises AssertionError if any case
fails.  Because nbval runs every solution notebook in ``pytest``, a spec whose
expected values disagree with the instructor's own solution is caught before any
student is graded against it.  The release removes these cells.
"""
from __future__ import annotations

import json

from . import specs
from .probe_source import nbcourse_probe
from .scoring import score_question


def run_hidden_tests(exercise: str, question: str, answer) -> None:
    """Assert that ``answer`` passes every case of ``question``; print a one-line summary."""
    spec = specs.load(exercise)  # the notebook's own folder when it holds the specs
    q = spec.question(question)
    captured: list[str] = []
    request = q.probe_request()
    nbcourse_probe({q.name: answer}, "", json.dumps(request), emit=captured.append)
    result = score_question(q, json.loads(captured[0]), q.expected(), 0.0, [])
    failed = [case for case in result.cases if not case.passed]
    if failed or result.status not in ("passed",):
        details = "; ".join(f"{c.name}: {c.message}" for c in failed) or "; ".join(result.notes)
        raise AssertionError(f"{spec.name} {question} ({q.name}): {details}")
    print(f"{question}: {len(result.cases)} of {len(result.cases)} grading cases pass")
