"""What a fourth cold review of the grader (issue 36, library A, grader A-) found.

Each test fails on the code the review read (2026-11-29, main at f7ea718)."""
from __future__ import annotations

import ast
import os
import inspect
import re
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import pytest

from nbcourse.cli import build_parser
from nbcourse.grading import batch, saved_outputs
from nbcourse.grading.diagnosis import STILL_THE_STUB
from nbcourse.grading.execution import launcher, worker
from nbcourse.grading.execution.limits import MB, GradingLimits, bytes_or_unlimited
from nbcourse.grading.execution.report import RunReport
from nbcourse.grading.execution.sandbox import SandboxConfig
from nbcourse.grading.integrity import submission_cells
from nbcourse.grading.statuses import AnswerStatus

REPO = Path(__file__).resolve().parents[2]


def test_a_server_that_cannot_be_replaced_keeps_the_row_already_graded(monkeypatch, capsys):
    """R1: ``after_submission`` starts the next kernel server in ``grade_job``'s
    ``finally``; when building it raised (a full disk, no process left), the exception
    escaped, the report just computed was lost and the worker died.  Now the row keeps
    its report and the next row says what failed."""
    class StandIn:  # a server whose submission left a process behind: replaced after it
        healthy = True

        def wait_ready(self):
            return True

        def channel_intact(self):
            return True

        def sweep_after(self):
            return [4242]

        def kill(self):
            self.healthy = False

    built = []

    class Servers(worker.KernelServers):
        def _new(self):
            built.append(True)
            if len(built) > 1:
                raise OSError(28, "No space left on device")
            return StandIn()

    def graded(path, plan, limits, take, *, scan_source, ask=None):
        take()
        return RunReport(code_cells=3, probes={"q1": {"value": 1}})

    monkeypatch.setattr(worker, "run_submission", graded)
    config = SandboxConfig("off", limits=GradingLimits.from_options())
    kernels = Servers(config, None, "token")
    reply = RunReport.from_json(worker.grade_job({"path": "x", "plan": {}}, config, kernels,
                                                 scan_source=None))
    assert reply.grader_error == "" and reply.probes == {"q1": {"value": 1}}
    assert kernels.server is None and "No space left on device" in capsys.readouterr().err
    following = RunReport.from_json(worker.grade_job({"path": "y", "plan": {}}, config,
                                                     kernels, scan_source=None))
    assert following.grader_error.startswith("OSError: [Errno 28] No space left on device")


@pytest.mark.parametrize("depth", [2, 8, 32, 200])
def test_the_readme_states_what_the_hints_parsing_costs_and_it_holds(tmp_path, depth):
    """R4: ``saved_outputs`` said the grader's memory never grows with what a student hands
    in, but the integrity hints parse every notebook (up to ``notebook_mb``) in the
    instructor's process.  The README now gives the bound, and a hostile notebook of the
    worst shape measured stays within it (Python's own allocations, traced)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    factor = int(re.search(r"up to about (\d+)\s+times for a hostile one", readme).group(1))
    assert "integrity.submission_cells" in saved_outputs.__doc__
    head = ('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": '
            '"code", "metadata": {}, "source": "x = 1", "execution_count": null, "outputs": '
            '[]}], "junk": [')
    hostile = tmp_path / "hostile.ipynb"
    # the final review: deeper nesting costs more per byte (32x at depth 2, 45x at 32)
    nested = "[" * depth + "]" * depth
    hostile.write_text(head + ",".join([nested] * (3_200_000 // len(nested))) + "]}",
                       encoding="utf-8")
    tracemalloc.start()
    try:
        cells, why = submission_cells(hostile, GradingLimits.from_options())
        grown = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert cells == ["x = 1"], why
    size = hostile.stat().st_size
    assert 4 * size < grown <= factor * size


def test_the_isolation_record_says_what_is_in_force_with_the_sandbox_off():
    """R6: with ``--sandbox off`` and no pids cgroup, results.json said "at most 64 tasks
    per user (RLIMIT_NPROC)", though ``launcher.process_limit`` sets no task limit there;
    and a bwrap sandbox's "writable" left out the channel, which is bound read-write."""
    limits = GradingLimits.from_options()
    v1 = {"version": 1, "memory": "/m", "pids": ""}
    for parents in ({}, v1):
        off = SandboxConfig("off", limits=limits, cgroups=parents)
        assert launcher.process_limit(off, ["/m/box"] if parents else [], limits.tasks) == -1
        assert off.describe()["tasks"].startswith("not limited")
    counted = SandboxConfig("off", limits=limits, cgroups=dict(v1, pids="/p"))
    assert "pids" in counted.describe()["tasks"]
    boxed = SandboxConfig("bwrap", limits=limits)
    assert "channel" in boxed.describe()["writable"]
    assert "RLIMIT_NPROC" in SandboxConfig("bwrap", limits=limits, cgroups=v1).describe()["tasks"]


def test_the_docs_say_who_can_end_the_kernel_server():
    """R6: the launcher said a kernel can kill or stop its server; in a sandbox the server
    is pid 1 (``--as-pid-1``), which nothing inside can kill."""
    words = " ".join(launcher.__doc__.split())
    assert "only with ``--sandbox off`` can a kernel kill or stop it" in words
    assert "pid 1, which no process inside can kill or stop" in words
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "the only places it can write, with the channel folder" in readme


def _strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string literal of a module but its docstrings (an f-string's
    literal parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


def _written_outside(phrase: str, home: str) -> list[str]:
    return [f"{path.relative_to(REPO)}:{line}" for path in sorted((REPO / "nbcourse").rglob("*.py"))
            if path.relative_to(REPO).as_posix() != home
            for line, text in _strings(path) if phrase in text]


def test_each_of_the_graders_words_and_numbers_has_one_home():
    """R7: the MB factor was written again in four modules (and the worker kept its own
    "0 means unlimited" rule); "not answered" had two constants with different words, and
    the blank-notebook note its own "(a cell still raises NotImplementedError)"."""
    powers = [f"{path.relative_to(REPO)}:{node.lineno}"
              for path in sorted((REPO / "nbcourse" / "grading").rglob("*.py"))
              if path.name != "limits.py"
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.BinOp) and ast.unparse(node) in (
                  "2 ** 20", "1 << 20", "1024 * 1024", "1024 ** 2", "1024 ** 3")]
    assert powers == []
    assert _written_outside("not answered", "nbcourse/grading/statuses.py") == []
    assert _written_outside("still raises NotImplementedError",
                            "nbcourse/grading/diagnosis.py") == []
    assert STILL_THE_STUB.startswith(AnswerStatus.NOT_ANSWERED + " ")


def test_limit_own_memory_reads_zero_as_unlimited_by_the_one_rule(monkeypatch):
    """The worker's own memory limit, 0 meaning none, as every other limit
    (``bytes_or_unlimited``)."""
    unlimited = worker.resource.RLIM_INFINITY
    set_to = []
    monkeypatch.setattr(worker.resource, "getrlimit", lambda kind: (unlimited, unlimited))
    monkeypatch.setattr(worker.resource, "setrlimit", lambda kind, value: set_to.append(value))
    for megabytes in (0, -3):
        worker.limit_own_memory(megabytes)
    assert set_to == [] and bytes_or_unlimited(0) == -1
    worker.limit_own_memory(3)
    assert set_to == [(3 * MB, unlimited)]


def test_the_batch_defaults_have_one_home_and_the_timeout_is_named():
    """R7: jobs=2 and sandbox="auto" were written in both cli.py and batch.py (and "(default:
    2)" in the help); ``from_options(1e308)`` failed on ``total_timeout`` without naming
    the option."""
    parser = build_parser()
    args = parser.parse_args(["grade", "01_weather", "x.ipynb", "--out", "out"])
    defaults = inspect.signature(batch.grade_batch).parameters
    assert args.jobs == defaults["jobs"].default == batch.DEFAULT_JOBS
    assert args.sandbox == defaults["sandbox"].default == batch.DEFAULT_SANDBOX
    cli_source = (REPO / "nbcourse" / "cli.py").read_text(encoding="utf-8")
    assert "default=2" not in cli_source and 'default="auto"' not in cli_source
    assert "(default: 2)" not in cli_source
    with pytest.raises(ValueError, match="--timeout"):
        GradingLimits.from_options(1e308)


def test_a_folder_is_reset_where_the_c_library_cannot_chmod_without_following_links(
        tmp_path, monkeypatch):
    """Final review, finding 1: glibc before 2.32 refuses ``fchmodat(AT_SYMLINK_NOFOLLOW)``
    for every file, which Python raises as NotImplementedError; ``reset_folder`` caught only
    OSError, so every row of a batch would have become a grader error there."""
    from nbcourse.grading.execution import folder_state

    real_chmod = os.chmod

    def old_glibc_chmod(path, mode, *, dir_fd=None, follow_symlinks=True):
        if not follow_symlinks:
            raise NotImplementedError("chmod: follow_symlinks unavailable on this platform")
        return real_chmod(path, mode, dir_fd=dir_fd)

    folder = tmp_path / "home"
    folder.mkdir(mode=0o700)
    first = folder_state.folder_state(folder)
    (folder / "left.txt").write_text("planted")
    real_chmod(folder, 0o500)
    monkeypatch.setattr(folder_state.os, "chmod", old_glibc_chmod)
    assert folder_state.reset_folder(folder, first) == []
    assert os.listdir(folder) == [] and os.stat(folder).st_mode & 0o777 == 0o700


FAILED_START = """
import os, sys
from pathlib import Path
from nbcourse.grading.execution import launcher
from nbcourse.grading.execution.limits import GradingLimits
from nbcourse.grading.execution.sandbox import SandboxConfig

def refuse(*args, **kwargs):
    raise BlockingIOError(11, "Resource temporarily unavailable")

failing, base = sys.argv[1], Path(sys.argv[2])
setattr(launcher.subprocess if failing == "Popen" else launcher, failing, refuse)
config = SandboxConfig("off", limits=GradingLimits.from_options())
open_before = set(os.listdir("/proc/self/fd"))
try:
    launcher.KernelServer(config, base)
except BlockingIOError:
    pass
else:
    sys.exit("the server started")
print(sorted(os.listdir(base)), sorted(set(os.listdir("/proc/self/fd")) - open_before))
"""


@pytest.mark.parametrize("failing", ["Popen", "kernel_environment"])
def test_a_server_that_fails_to_start_leaves_nothing_behind(tmp_path, failing):
    """Final review, finding 2: after its channel (and, without a sandbox, its home) was
    made, a failure to start the server (fork refused with EAGAIN, say) left them, and any
    descriptor handed over, until the batch ended: one set for every row it was retried.

    Run in a fresh interpreter: in the test process another thread (a kernel's, a
    client's) may open a descriptor in the window, which is not the launcher's."""
    done = subprocess.run([sys.executable, "-c", FAILED_START, failing, str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "[]"]  # no channel, no home; no descriptor left


@pytest.mark.parametrize("seconds", [1e9, 1e5])
def test_a_timeout_too_large_for_a_timer_is_refused_with_its_option(seconds):
    """Final review, finding 8: ``--timeout 1e9`` was accepted; the worker's deadline of
    about 1e10 s made ``threading.Timer`` fail in its own thread at once (OverflowError),
    so the batch ran without a deadline.  Every time limit is now at most a week."""
    with pytest.raises(ValueError, match="--timeout"):
        GradingLimits.from_options(seconds)
    with pytest.raises(ValueError, match="at most 604800 seconds"):
        GradingLimits(worker_grace=1e10)
    assert GradingLimits.from_options(60480.0).worker_deadline < threading.TIMEOUT_MAX
