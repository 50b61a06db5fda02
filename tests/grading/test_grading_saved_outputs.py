"""Saved outputs are removed from an oversized notebook without the grader's memory growing
(issue 33, row 9): the copy is made by a child process with a memory limit."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nbcourse.grading.saved_outputs import without_outputs

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "submissions"


def _with_output(output: dict) -> dict:
    """The correct fixture, its last code cell carrying ``output`` as a saved output."""
    notebook = json.loads((FIXTURES / "correct.ipynb").read_text(encoding="utf-8"))
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    code[-1]["outputs"] = [output]
    return notebook


def _plots(megabytes: int) -> dict:
    """An honest notebook: one saved plot of ``megabytes`` MB (a few large strings)."""
    return _with_output({"output_type": "display_data", "metadata": {},
                         "data": {"image/png": "A" * (megabytes * 2**20)}})


def _tiny_outputs(megabytes: int) -> dict:
    """A hostile one: ``megabytes`` MB of empty objects (``{},``), each a Python dict once
    parsed: about 25 times the file's size in memory."""
    return _with_output({"output_type": "display_data", "metadata": {},
                         "data": {"application/json": [{}] * (megabytes * 2**20 // 3)}})


def _write(path: Path, notebook: dict) -> Path:
    path.write_text(json.dumps(notebook, separators=(",", ":")), encoding="utf-8")
    return path


def test_outputs_are_removed_from_a_copy_only_when_the_file_is_too_large(tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    path = _write(tmp_path / "plots.ipynb", _plots(3))
    assert without_outputs(path, 5 * 2**20, scratch) == path  # under the limit: itself
    copy = without_outputs(path, 2**20, scratch)
    assert copy.parent == scratch and copy.stat().st_size < 2**20
    stripped = json.loads(copy.read_text(encoding="utf-8"))
    original = json.loads(path.read_text(encoding="utf-8"))
    assert [c["source"] for c in stripped["cells"]] == [c["source"] for c in original["cells"]]
    assert all(c.get("outputs", []) == [] for c in stripped["cells"])
    not_json = tmp_path / "not_json.ipynb"
    not_json.write_text("x" * 2 * 2**20)
    assert without_outputs(not_json, 2**20, scratch) == not_json


def test_a_notebook_that_needs_more_memory_than_allowed_is_left_as_it_is(tmp_path):
    """Its parsing would need about 250 MB; at 100 MB the child gives up, the file is
    graded as it is (too large), and no half-written copy is left."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    path = _write(tmp_path / "tiny.ipynb", _tiny_outputs(10))
    assert without_outputs(path, 2**20, scratch, memory_mb=100) == path
    assert list(scratch.iterdir()) == []
    assert without_outputs(path, 2**20, scratch, memory_mb=1024) != path  # enough: stripped


GRADE = r"""
import json, sys
from nbcourse.grading.batch import grade_batch
batch = grade_batch("01_weather", [sys.argv[1]], sys.argv[2], jobs=1, sandbox="off",
                    progress=None)
# VmHWM, not ru_maxrss: Linux carries the parent's peak into ru_maxrss across exec (the
# pytest process of a whole suite, 759 MB once), VmHWM is this program's own memory only
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status")
               if line.startswith("VmHWM:"))
print(json.dumps({"peak_mb": peak_kb // 1024,
                  "rows": {r.submission: [r.status, r.total, r.reasons] for r in batch.results}}))
"""


def test_the_graders_own_memory_stays_bounded_by_a_huge_notebook(tmp_path):
    """Issue 33, row 9: a 48 MB notebook of tiny outputs was parsed in the grader's own
    process to remove them, which took 1.35 GB (2.6 GB for 96 MB, per job).  Now the
    grader's process stays small; that notebook is its student's row (too large: its
    outputs need more memory than allowed), an honest 25 MB of saved plots is graded on
    its code, and the classmate after them is graded as usual."""
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    _write(submitted / "00_plots.ipynb", _plots(25))
    _write(submitted / "01_tiny_outputs.ipynb", _tiny_outputs(48))
    (submitted / "02_correct.ipynb").write_bytes((FIXTURES / "correct.ipynb").read_bytes())
    run = subprocess.run([sys.executable, "-c", GRADE, str(submitted), str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=600, cwd=REPO)
    assert run.returncode == 0, run.stderr[-3000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    rows = found["rows"]
    assert rows["00_plots"][:2] == ["graded", 10.0], rows["00_plots"]
    assert rows["02_correct"][:2] == ["graded", 10.0], rows["02_correct"]
    status, total, reasons = rows["01_tiny_outputs"]
    assert (status, total) == ("not a notebook", 0.0)
    assert any("larger than 20 MB" in reason and "saved outputs" in reason
               for reason in reasons), reasons
    # parsing the 48 MB notebook alone took 1.35 GB in the grader's process
    assert found["peak_mb"] < 700, found["peak_mb"]


def test_a_batch_strips_an_oversized_notebook_once(tmp_path, monkeypatch):
    """Issue 36: the integrity hints and the run each stripped an oversized notebook (two
    child processes of up to ``STRIP_SECONDS`` each, one keeping a worker idle).  Now it is
    stripped once, when the batch has collected it, and both read that copy."""
    from nbcourse.grading import saved_outputs
    from nbcourse.grading.batch import grade_batch

    folder = tmp_path / "submitted"
    folder.mkdir()
    _write(folder / "alice.ipynb", _plots(21))  # over the default 20 MB
    _write(folder / "bob.ipynb", _plots(1))
    stripped = []
    real_run = subprocess.run

    def run(command, *args, **kwargs):
        if saved_outputs.STRIP in command:
            stripped.append(command)
        return real_run(command, *args, **kwargs)

    monkeypatch.setattr(saved_outputs.subprocess, "run", run)
    batch = grade_batch("01_weather", [folder], tmp_path / "out", jobs=1, timeout=60,
                        sandbox="off", progress=None)
    assert len(stripped) == 1
    rows = {row.submission: row for row in batch.results}
    assert rows["alice"].total == rows["bob"].total == rows["bob"].maximum
    assert "larger than" not in batch.integrity.not_compared.get("alice", "")  # the copy


def test_the_child_clears_outputs_under_a_name_of_its_own():
    """Issue 36: the child's function had the name of ``saved_outputs.without_outputs``,
    with another contract (a parsed notebook, changed in place).  It is ``clear_outputs``."""
    from nbcourse.grading import saved_outputs, strip_outputs

    notebook = _plots(1)
    notebook["cells"][0]["attachments"] = {"a.png": {}}
    assert strip_outputs.clear_outputs(notebook) is True
    assert all(c.get("outputs", []) == [] and "attachments" not in c for c in notebook["cells"])
    assert strip_outputs.clear_outputs({"cells": "no"}) is False
    assert not hasattr(strip_outputs, "without_outputs")
    assert "def clear_outputs" in saved_outputs.STRIP


@pytest.mark.parametrize("mode", ["bwrap", "off"])
def test_an_honest_notebook_under_the_size_limit_keeps_its_marks_in_the_sandbox(tmp_path, mode):
    """Review 4, finding 1: a 12 MB notebook (the solution and a saved plot) is under
    ``notebook_mb``, so its outputs were not stripped, and the whole file was written into
    the kernel's channel, an 8 MB tmpfs in the sandbox: "the kernel did not start: No
    space left on device".  The kernel is handed the cells' sources only, so it keeps every
    mark with the sandbox as without; a hostile oversized notebook is still refused."""
    from nbcourse.grading.batch import grade_batch

    folder = tmp_path / "submitted"
    folder.mkdir()
    _write(folder / "00_plots.ipynb", _plots(12))
    _write(folder / "01_tiny_outputs.ipynb", _tiny_outputs(48))
    batch = grade_batch("01_weather", [folder], tmp_path / "out", jobs=1, sandbox=mode,
                        progress=None)
    rows = {row.submission: (row.status, row.total, row.reasons) for row in batch.results}
    assert rows["00_plots"][:2] == ("graded", 10.0), rows["00_plots"]
    assert rows["01_tiny_outputs"][:2] == ("not a notebook", 0.0), rows["01_tiny_outputs"]
    assert any("larger than 20 MB" in reason for reason in rows["01_tiny_outputs"][2])
