"""Student versions from instructor sources, with the markers nbgrader users know.

In a source notebook (``exercises/source/*.ipynb``):

* lines between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` are replaced by
  ``# YOUR CODE HERE`` / ``raise NotImplementedError()`` at the same indentation
  (in a Markdown cell, by ``YOUR ANSWER HERE``), as nbgrader does;
* lines between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS`` are removed
  (a cell left empty is dropped);
* outputs, execution counts and cell metadata other than tags are cleared;
* a line that looks like a marker but is not one exactly (``## BEGIN SOLUTION``,
  ``### BEGIN SOLUTIONS``, ``### begin solution``) is an error, never ignored: it
  would ship the solution.

Next to the student notebooks, ``build`` also makes ``NN_name.checks.json`` for
each spec: the public cases, hints and known mistakes the student's ``check()`` runs
(``specs.Exercise.publish``), never a hidden case or a solution.

The writer is deterministic (fixed notebook metadata, keys sorted, cell ids kept),
so regenerating the release changes no byte unless a source changed, and a test can
compare the committed student files with a fresh build.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"
CODE_STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
MARKDOWN_STUB = ("YOUR ANSWER HERE",)
STUDENT_METADATA = {
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                   "name": "python3"},
    "language_info": {"name": "python"},
}
_MARKER = re.compile(r"^(\s*)(### (?:BEGIN|END) (?:SOLUTION|HIDDEN TESTS))\s*$")
# anything a person may have meant as a marker: any number of #, any case, plurals
_NEAR_MISS = re.compile(r"^\s*(?:#+\s*(BEGIN|END)[\s_-]*(SOLUTIONS?|HIDDEN[\s_-]*TESTS?)\b"
                        r"|(BEGIN|END)\s+(SOLUTIONS?|HIDDEN\s+TESTS?)\s*$)", re.IGNORECASE)


class MarkerError(ValueError):
    """Unbalanced or nested markers; the message names the notebook and the cell."""


@dataclass
class Blocks:
    """The text a release must hide: solution lines and hidden-test lines."""
    solution: list[str]
    hidden: list[str]


def _split_markers(source: str, where: str, cell_type: str) -> tuple[list[str], Blocks]:
    """Student lines of one cell, and the solution / hidden lines that were taken out."""
    kept: list[str] = []
    blocks = Blocks([], [])
    mode = None  # None | "solution" | "hidden"
    for number, line in enumerate(source.split("\n"), start=1):
        match = _MARKER.match(line)
        marker = match.group(2) if match else None
        stripped = line.strip().upper()
        if marker is None and (_NEAR_MISS.match(line) or stripped.startswith("###") and (
                "SOLUTION" in stripped or "HIDDEN TEST" in stripped)):
            raise MarkerError(f"{where}, line {number}: {line.strip()!r} looks like a marker "
                              "but is not one; write exactly '### BEGIN SOLUTION', "
                              "'### END SOLUTION', '### BEGIN HIDDEN TESTS' or "
                              "'### END HIDDEN TESTS'")
        if marker == BEGIN_SOLUTION or marker == BEGIN_HIDDEN:
            if mode is not None:
                raise MarkerError(f"{where}, line {number}: {marker} inside an open {mode} block")
            mode = "solution" if marker == BEGIN_SOLUTION else "hidden"
            if mode == "solution":
                indent = match.group(1)
                stub = CODE_STUB if cell_type == "code" else MARKDOWN_STUB
                kept.extend(indent + text for text in stub)
            continue
        if marker == END_SOLUTION or marker == END_HIDDEN:
            wanted = "solution" if marker == END_SOLUTION else "hidden"
            if mode != wanted:
                raise MarkerError(f"{where}, line {number}: {marker} without its BEGIN")
            mode = None
            continue
        if mode == "solution":
            blocks.solution.append(line)
        elif mode == "hidden":
            blocks.hidden.append(line)
        else:
            kept.append(line)
    if mode is not None:
        raise MarkerError(f"{where}: a {mode} block is never closed")
    return kept, blocks


def student_notebook(source: nbformat.NotebookNode, name: str = "notebook"
                     ) -> tuple[nbformat.NotebookNode, Blocks]:
    """The student version of ``source`` and the hidden text that was removed from it."""
    cells = []
    removed = Blocks([], [])
    for index, cell in enumerate(source.cells, start=1):
        kept, blocks = _split_markers(cell.source, f"{name}, cell {index}", cell.cell_type)
        removed.solution += blocks.solution
        removed.hidden += blocks.hidden
        text = "\n".join(kept)
        if blocks.hidden and not text.strip():
            continue  # a hidden-tests cell: gone entirely
        tags = list(cell.get("metadata", {}).get("tags", []))
        metadata = {"tags": tags} if tags else {}
        if cell.cell_type == "code":
            new = nbformat.v4.new_code_cell(text.strip("\n"), metadata=metadata)
        elif cell.cell_type == "markdown":
            new = nbformat.v4.new_markdown_cell(text.strip("\n"), metadata=metadata)
        else:
            new = nbformat.v4.new_raw_cell(text.strip("\n"), metadata=metadata)
        new["id"] = cell.get("id") or f"cell-{index}"
        cells.append(new)
    student = nbformat.v4.new_notebook(cells=cells, metadata=json.loads(json.dumps(STUDENT_METADATA)))
    student.nbformat, student.nbformat_minor = 4, 5
    nbformat.validate(student)
    return student, removed


def render(notebook: nbformat.NotebookNode) -> str:
    """nbformat's own JSON layout (indent 1, sorted keys) plus a final newline."""
    text = nbformat.writes(notebook, version=4)
    return text if text.endswith("\n") else text + "\n"


def source_notebooks(source_dir: Path) -> list[Path]:
    return sorted(p for p in Path(source_dir).glob("*.ipynb") if p.is_file())


def build(source_dir: Path) -> dict[str, str]:
    """{file name: text} for every student notebook and every checks file."""
    from . import specs
    out = {}
    for path in source_notebooks(source_dir):
        notebook = nbformat.read(path, as_version=4)
        student, _ = student_notebook(notebook, str(path))
        out[path.name] = render(student)
    for name in specs.available(source_dir):
        exercise = specs.load(name, source_dir)
        out[f"{name}{specs.CHECKS_SUFFIX}"] = render_checks(exercise.publish())
    return out


def render_checks(data: dict) -> str:
    """The checks file's JSON, byte for byte the same for the same spec."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


RELEASE_TOLERANCE = 1e-9  # relative: the last digits another processor computes differently


def _same_data(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool) or \
                not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        return a == b or math.isclose(a, b, rel_tol=RELEASE_TOLERANCE, abs_tol=1e-300)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_data(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_data(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def same_release(name: str, current: bytes | None, text: str) -> bool:
    """Whether a released file is what a fresh build writes.

    Notebooks byte for byte.  A checks file may also differ in the last digits of a float
    (numpy's exp and log, and BLAS, give results a few units apart on other processors):
    a fresh release on any machine then leaves the committed file as it is.
    """
    if current is None:
        return False
    if current == text.encode("utf-8"):
        return True
    if not name.endswith(".checks.json"):
        return False
    try:
        return _same_data(json.loads(current.decode("utf-8")), json.loads(text))
    except ValueError:
        return False
