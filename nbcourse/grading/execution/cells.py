"""A notebook code cell read as Python: the one rule every reader of a cell shares.

IPython lines that are not Python are blanked first (kept as empty lines, so line
numbers stay right): a line magic (``%time``, ``%matplotlib inline``), a cell magic's
first line (``%%time``), a shell line (``!pip install``) and a captured shell or magic
(``files = !ls``, ``t = %timeit -o f()``).  What is left either parses or does not: a
cell that does not (a syntax error, a ``%%bash`` body, a literal too big for the parser)
is ``None``, never an exception, since a cell is text a student wrote.

The forbidden-estimator scan, follow-through (both its plan and the worker's probes)
and the integrity hints all call ``parse_cell``, so they agree on what a cell says.
"""
from __future__ import annotations

import ast
import re

_MAGIC = re.compile(r"^\s*[%!]|^\s*\w+\s*=\s*[%!]")
_UNREADABLE = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


def parse_cell(source: str) -> ast.Module | None:
    """``source`` as Python with IPython magics and shell lines blanked; None if not Python."""
    lines = ["" if _MAGIC.match(line) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except _UNREADABLE:
        return None
