"""Submissions built from an exercise's source, for the grading tests and the grading
benchmarks (which import this file): the solution as a student would hand it in, and the
solution with one more cell (an answer deleted, a known mistake made).

Notebooks are plain dicts (nbformat's JSON), ready for ``json.dumps``.
"""
from __future__ import annotations

import json
from pathlib import Path

from nbcourse.resources import SPEC_SUFFIX

SOURCE = Path(__file__).resolve().parents[1] / "exercises" / "source"


def solved(name: str, source: Path = SOURCE) -> dict:
    """The instructor's solution of exercise ``name`` without its hidden-test cells and
    without outputs: a perfect submission."""
    notebook = json.loads((source / f"{name}.ipynb").read_text(encoding="utf-8"))
    notebook["cells"] = [c for c in notebook["cells"]
                         if "BEGIN HIDDEN TESTS" not in "".join(c["source"])]
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    return notebook


def with_cell(notebook: dict, ident: str, source: str) -> dict:
    """``notebook`` with a last code cell ``source`` (cell id ``ident``)."""
    notebook["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [],
                              "execution_count": None, "id": ident, "source": source})
    return notebook


def making_mistake(name: str, question, index: int = 0, source: Path = SOURCE) -> dict:
    """The solution whose answer to ``question`` is the spec's ``index``-th known mistake.

    The last cell runs the spec's own text (pasted in, since the sandbox hides the course
    folder) and binds the answer's name to the mistake's reference or value.
    """
    text = (source / f"{name}{SPEC_SUFFIX}").read_text(encoding="utf-8")
    pick = f"_spec.EXERCISE.question({question.id!r}).mistakes[{index}].reference"
    return with_cell(solved(name, source), "making-a-mistake", (
        "import types as _types\n_spec = _types.ModuleType('spec')\n"
        f"exec({text!r}, _spec.__dict__)\n"
        f"{question.name} = {pick}{'()' if question.kind == 'value' else ''}\n"))


def encoded_value(value) -> dict:
    """A value as an honest probe's reply carries it (the kernel's own encoder: a tuple
    comes back as a list, as JSON has no tuples)."""
    from nbcourse.grading.execution.probe_source import _Encoder
    return {"value": _Encoder().encode(value)}


def perfect_probes(exercise) -> dict:
    """The probe replies of a run that answered every question of ``exercise`` right."""
    probes = {}
    for question in exercise.questions:
        values = [question.reference(*c.args, **c.kwargs) for c in question.cases]
        probe = {"question": question.id, "name": question.name}
        if question.kind == "value":
            probe.update(encoded_value(values[0]))
        else:
            probe["cases"] = [encoded_value(v) for v in values]
        probes[question.id] = probe
    return probes


def perfect_swaps(exercise) -> dict:
    """The swap replies (``report.follow_through``) of a run whose computed values follow
    the functions they are computed from: without them a planned swap fails its value."""
    from nbcourse.grading.swaps import key
    return {key(question, swap): {"question": question.id, "name": question.name,
                                  **encoded_value(swap.reference())}
            for question in exercise.questions for swap in question.swaps}


def lost_marks(questions) -> dict:
    """{question id: what explains it} for each graded question (a results.json row's
    ``questions``) short of its points: empty when every mark was kept.  Asserting it is
    empty makes a rare failure say which question lost what, and why."""
    return {q["id"]: {k: q.get(k) for k in ("score", "points", "status", "notes", "flags",
                                            "follow_through")}
            for q in questions if q["score"] != q["points"]}
