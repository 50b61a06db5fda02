"""Dask grading makes exactly the second readings local grading makes (issue 36, review 5).

Locally, the grading worker sends a run's ordinary readings to the batch, which answers
which follow-through and swap readings can change a mark (``Rows.second_readings``);
only those are made.  A Dask worker made every one of them.  Readings run in order and
one that stops the kernel ends the rest, so a reading the batch would not have asked for
could cost a later one that decides a mark: the same notebook got a lower mark on Dask.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from nbcourse.grading import cluster
from nbcourse.grading.batch import grade_batch

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "submissions"
_spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)
pytestmark = pytest.mark.timeout(600)

#: Every answer right, but ``joint_scores`` ends its kernel, or runs until the grader
#: gives up on the kernel, when it runs with the grader's ``likelihood`` in place: only q2's
#: follow-through reading does that, and the batch never asks for it (q2 is right).
#: q4's swap reading, asked for, comes after it.
WHEN_FOLLOWED_THROUGH = """
    if likelihood is not MY_LIKELIHOOD:  # the grader's likelihood
        STOP
"""
STOPS = {"ends its kernel": "import os; os._exit(1)",
         "never returns, even when interrupted":
             "while True:\n            try:\n                while True:\n"
             "                    pass\n            except KeyboardInterrupt:\n"
             "                pass"}


def _stops_when_followed_through(folder: Path, how: str) -> Path:
    notebook = make_fixtures.correct()
    cell = notebook.cells[make_fixtures._index(notebook, "def joint_scores(")]
    head = "def joint_scores(table, query, target):\n"
    assert head in cell.source
    guard = WHEN_FOLLOWED_THROUGH.strip("\n").replace("STOP", STOPS[how])
    cell.source = "MY_LIKELIHOOD = likelihood\n" + cell.source.replace(head, head + guard + "\n")
    folder.mkdir()
    path = folder / "stops_when_followed_through.ipynb"
    path.write_text(make_fixtures.render(notebook), encoding="utf-8")
    return path


def _row(result) -> dict:
    row = result.to_json()
    row.pop("path")
    return row


@pytest.mark.parametrize("how", sorted(STOPS))
def test_dask_makes_only_the_second_readings_local_grading_makes(tmp_path, how):
    folder = tmp_path / "class"
    _stops_when_followed_through(folder, how)
    # a probe's time is --timeout: short, for the reading that never returns (when made)
    here = grade_batch("01_weather", [folder], tmp_path / "here", jobs=1, timeout=5,
                       sandbox="bwrap", progress=None)
    there = grade_batch("01_weather", [folder], tmp_path / "there", timeout=5,
                        sandbox="bwrap", progress=None, scheduler="local:1")
    (row,) = here.results
    assert row.status == "graded" and row.total == row.maximum, _row(row)  # q4's swap read
    assert [_row(r) for r in there.results] == [_row(r) for r in here.results]
    assert (tmp_path / "there" / "grades.csv").read_bytes() == \
        (tmp_path / "here" / "grades.csv").read_bytes()
