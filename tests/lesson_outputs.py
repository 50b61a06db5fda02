"""A lesson's sentences held to the outputs they quote.

When a lesson writes "the prior pulls +0.59", a test finds the code cell that prints the
pulls, reads its *stored* output (what nbval checks against a fresh run) and the sentence,
and asserts that they agree, so a later change of data or code cannot silently falsify
the prose. Cells are found by a piece of their source, never by index, so adding a cell
above does not break the tests.
"""
from __future__ import annotations

import re
from functools import lru_cache

import nbformat

from course_paths import REPO


@lru_cache(maxsize=None)
def lesson(stem: str):
    """The stored notebook ``notebooks/<stem>*.ipynb`` (outputs included)."""
    [path] = sorted((REPO / "notebooks").glob(f"{stem}*.ipynb"))
    return nbformat.read(path, as_version=4)


def _one(notebook, kind: str, marker: str):
    hits = [c for c in notebook.cells if c.cell_type == kind and marker in c.source]
    assert len(hits) == 1, f"{len(hits)} {kind} cells contain {marker!r}"
    return hits[0]


def output_of(notebook, marker: str) -> str:
    """Everything the one code cell containing ``marker`` printed or displayed, as text."""
    cell = _one(notebook, "code", marker)
    parts = []
    for output in cell.outputs:
        if "text" in output:
            parts.append(output["text"])
        elif "text/plain" in output.get("data", {}):
            parts.append(output["data"]["text/plain"])
    assert parts, f"the cell with {marker!r} has no stored text output"
    return "\n".join(parts)


def markdown_with(notebook, marker: str) -> str:
    """The source of the one Markdown cell containing ``marker``."""
    return _one(notebook, "markdown", marker).source


def markdown(notebook) -> str:
    return "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")


def number_after(text: str, label: str) -> float:
    """The first number printed after ``label`` on its line (a minus sign of either kind)."""
    match = re.search(re.escape(label) + r"[^\n\d\u2212-]*([\u2212-]?[\d,]*\.?\d+)", text)
    assert match, f"no number after {label!r} in:\n{text}"
    return float(match[1].replace("\u2212", "-").replace(",", ""))
