"""The grader's own Python processes import the installed ``nbcourse``, never a folder of
that name where they start (review 5): the grading worker and the mounts check run
``python -I -m`` (isolated; ``-P`` would need Python 3.11), so neither the folder they
start in nor ``PYTHONPATH`` nor the user's site-packages comes first on ``sys.path``."""
from __future__ import annotations

import secrets
from pathlib import Path

from nbcourse.grading import specs
from nbcourse.grading.execution import mounts
from nbcourse.grading.execution.limits import GradingLimits
from nbcourse.grading.execution.processes import kill_processes_with_token
from nbcourse.grading.execution.sandbox import SandboxConfig
from nbcourse.grading.workers import Worker

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "submissions"


def _shadow(folder: Path, marker: Path) -> None:
    """A package named nbcourse in ``folder`` that leaves ``marker`` when imported."""
    (folder / "nbcourse").mkdir(parents=True)
    (folder / "nbcourse" / "__init__.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n"
        "raise SystemExit('the nbcourse folder of the current folder was imported')\n",
        encoding="utf-8")


def test_a_grading_worker_imports_the_installed_nbcourse_not_a_folder_where_it_starts(
        tmp_path, monkeypatch):
    marker = tmp_path / "shadow-imported"
    scratch = tmp_path / "scratch"  # the worker's working folder
    _shadow(scratch, marker)
    _shadow(tmp_path / "here", marker)
    monkeypatch.chdir(tmp_path / "here")  # and the instructor's
    token = f"nbcourse-test-{secrets.token_hex(6)}"
    job = {"id": 1, "path": str(FIXTURES / "correct.ipynb"),
           "plan": specs.load("01_weather").probe_plan()}
    worker = Worker(scratch, token, SandboxConfig("off", limits=GradingLimits(cell_timeout=30)))
    try:
        report = worker.grade(job, deadline=300)
    finally:
        worker.close()
        kill_processes_with_token(token)
    assert not marker.exists()
    assert report.get("grader_error", "") == "" and report["kernel"] == "ok", report


def test_the_mounts_check_imports_the_installed_nbcourse(tmp_path, monkeypatch):
    marker = tmp_path / "shadow-imported"
    _shadow(tmp_path, marker)
    monkeypatch.chdir(tmp_path)
    mounts.user_mounts_work()  # True or False, as this machine allows
    assert not marker.exists()
