"""A notebook code cell read as Python: the one rule every reader of a cell shares.

A cell is turned into Python the way IPython turns it before running it
(``TransformerManager``): a line magic (``%time f()``) becomes
``get_ipython().run_line_magic('time', 'f()')``, a shell line a ``system`` call, ``name?``
a ``pinfo`` magic.  IPython reads the cell by its tokens, so a continuation line that
starts with ``%`` or ``!=`` inside brackets stays Python (a reader that blanked every line
starting with ``%`` hid a whole cell from the scan, and failed a right value's swap: red
team 8).  A cell magic that runs its body as Python (``%%time``) has its first line
blanked instead, so the body is read as code, with its line numbers.  What is left either
parses or does not: a cell that does not (a syntax error, a literal too big for the
parser) is ``None``, never an exception, since a cell is text a student wrote.

The forbidden-estimator scan, follow-through (both its plan and the worker's probes)
and the integrity hints all call ``parse_cell``, so they agree on what a cell says.  The
scan also reads the code a line magic runs (``magic_statements``).
"""
from __future__ import annotations

import ast
import functools

_UNREADABLE = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)

#: Magics that run their argument (a line magic) or body (a cell magic) as Python.
_RUNS_CODE = {"time", "timeit", "prun", "capture", "debug"}


@functools.lru_cache(maxsize=1)
def _transformer():
    from IPython.core.inputtransformer2 import TransformerManager
    return TransformerManager()


def parse_cell(source: str) -> ast.Module | None:
    """``source`` as Python, as IPython runs it (see the module's notes); None if not Python."""
    lines = source.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%") and \
            (lines[first].lstrip()[2:].split() or [""])[0] in _RUNS_CODE:
        lines[first] = ""
    try:
        return ast.parse(_transformer().transform_cell("\n".join(lines) + "\n"))
    except _UNREADABLE:
        return None
    except Exception:  # noqa: BLE001 - IPython's reader on text it cannot tokenize
        return None


def magic_statements(statement: ast.stmt) -> list[ast.stmt]:
    """The statements a line magic in ``statement`` runs (``%time from x import y``,
    ``t = %timeit -o f()``), parsed from its literal argument, for the scan to read
    (red team 8); none if it is not such a magic or its argument is not Python."""
    found = []
    for node in ast.walk(statement):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "run_line_magic" \
                and len(node.args) == 2 and all(isinstance(a, ast.Constant) and
                                                isinstance(a.value, str) for a in node.args) \
                and node.args[0].value in _RUNS_CODE:
            words = node.args[1].value.split(" ")
            while words:  # options first (``-n1 -r1``), then the code
                try:
                    found += ast.parse(" ".join(words)).body
                    break
                except _UNREADABLE:
                    words = words[1:] if words[0].startswith("-") else []
    return found
