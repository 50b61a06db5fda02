"""Every reader of a submitted cell reads it by one rule (``execution/cells.py``).

The forbidden-estimator scan, follow-through's plan (the instructor's solutions), the
worker's follow-through replay and the integrity hints each decide, for the same cell,
whether it is Python; they must all agree with ``parse_cell``.
"""
import json
from types import SimpleNamespace

import pytest

from nbcourse.grading import follow_through, forbidden, integrity
from nbcourse.grading.execution import follow_through as replay
from nbcourse.grading.execution.cells import parse_cell

#: A cell body that defines ``answer`` with a forbidden estimator, after ``prefix``.
ANSWER = "from nbcourse import CategoricalNB\ndef answer():\n    return CategoricalNB()\n"

CELLS = {
    "plain": ("", True),
    "line magic": ("%matplotlib inline\n", True),
    "shell line": ("!pip install nothing\n", True),
    "captured shell": ("files = !ls\n", True),
    "captured magic": ("t = %timeit -o 1 + 1\n", True),
    "time cell magic": ("%%time\n", True),
    "syntax error": ("def broken(:\n", False),
    "huge literal": ("x = " + "9" * 5000 + "\n", False),
    "deep nesting": ("x = " + "(" * 400 + ")" * 400 + "\n", False),
    "null byte": ("x = '\x00'\n", False),
}


def _by_forbidden_scan(cell: str) -> bool:
    return forbidden.find([cell], "answer", ["CategoricalNB"]) == ["CategoricalNB"]


def _by_replay(cell: str) -> bool:
    return replay.replay_source([("code", cell)], "answer", ["helper"]) is not None


def _by_integrity(cell: str) -> bool:
    return not any(s.words for s in integrity.statements([cell], frozenset({"answer"})))


def _by_reference(cell: str, tmp_path) -> bool:
    source = tmp_path / "source.ipynb"
    notebook = {"cells": [{"cell_type": "code", "source": cell, "metadata": {}}]}
    source.write_text(json.dumps(notebook), encoding="utf-8")
    exercise = SimpleNamespace(source=source, questions=[])
    return follow_through.reference_source(exercise, ["answer"]) is not None


@pytest.mark.parametrize("name", sorted(CELLS))
def test_every_reader_agrees_on_a_cell(name, tmp_path):
    prefix, python = CELLS[name]
    cell = prefix + ANSWER
    assert (parse_cell(cell) is not None) is python
    assert _by_forbidden_scan(cell) is python
    assert _by_replay(cell) is python
    assert _by_integrity(cell) is python
    assert _by_reference(cell, tmp_path) is python


def test_a_bash_cell_is_a_call_of_its_magic_and_defines_nothing():
    cell = "%%bash\necho hi\n" + ANSWER
    assert parse_cell(cell) is not None
    assert not _by_forbidden_scan(cell) and not _by_replay(cell)


def test_line_numbers_are_kept():
    tree = parse_cell("%time\nx = !ls\ny = 1\n")
    assert tree.body[-1].lineno == 3


def test_a_continuation_line_that_starts_with_a_percent_sign_is_python():
    """Red team 8: a line inside brackets starting with ``%`` or ``!=`` was blanked as a
    magic, so the cell did not parse: the scan skipped it, and a right value's swap had no
    cell to run again."""
    cell = ("from sklearn.metrics import accuracy_score\n"
            "def answer(y, p):\n    print('checking %s'\n% y)\n"
            "    return accuracy_score(y, p) if (len(y)\n"
            "!= 0) else 0.0\n")
    assert parse_cell(cell) is not None
    assert forbidden.find([cell], "answer", ["accuracy_score"]) == ["accuracy_score"]
    assert replay.replay_source([("code", "p_no = (3\n% 2)\n")], "p_no", ["f"]) is not None


def test_the_code_a_line_magic_runs_is_read():
    """Red team 8: ``%time from ... import ...`` ran in the kernel and the scan read none of it."""
    cells = ["%time from sklearn.metrics import accuracy_score as measure\n",
             "def answer(y, p):\n    return measure(y, p)\nanswer?\n"]
    assert forbidden.find(cells, "answer", ["accuracy_score"]) == ["accuracy_score"]
