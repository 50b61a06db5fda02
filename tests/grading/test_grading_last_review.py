"""What the last cold review of the grader (issue 36) left: the record of a sandbox whose
cgroup cannot be made, and what RLIMIT_NPROC really bounds.

Each test fails on the code the review read (main at f7ea718)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from nbcourse.grading import specs
from nbcourse.grading.execution import cgroups, launcher
from nbcourse.grading.execution import worker as worker_module
from nbcourse.grading.execution.limits import GradingLimits
from nbcourse.grading.execution.sandbox import SandboxConfig, sandbox_uid

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "submissions"
#: where the batch found cgroup parents; the sandbox's own cgroup then cannot be made
PARENTS = {"version": 2, "memory": "/sys/fs/cgroup/nbcourse-test", "pids": "/sys/fs/cgroup/x"}


def _config() -> SandboxConfig:
    return SandboxConfig("off", limits=GradingLimits.from_options(), cgroups=dict(PARENTS))


def test_a_sandbox_whose_cgroup_cannot_be_made_does_not_start(tmp_path, monkeypatch):
    """G8: ``cgroups.create`` failing gave [] and the sandbox ran with RLIMIT_AS alone,
    while results.json said a cgroup bounded its memory and tasks."""
    monkeypatch.setattr(cgroups, "create", lambda parents, name, limits: [])
    config = _config()
    assert config.describe()["mechanism"] == "cgroup v2"  # what results.json would say
    try:
        server = launcher.KernelServer(config, tmp_path)
    except cgroups.Unavailable as error:
        message = str(error)
    else:
        server.kill()
        pytest.fail("a sandbox started without the cgroup results.json records")
    assert "cgroup could not be made" in message and "was not run" in message
    assert os.listdir(tmp_path) == []  # its channel is gone too


def test_its_row_is_a_grader_error_and_the_worker_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(cgroups, "create", lambda parents, name, limits: [])
    # the worker sweeps below itself after each job: here, that would be pytest's children
    monkeypatch.setattr(worker_module, "kill_descendants", lambda *args, **kwargs: [])
    config = _config()
    kernels = worker_module.KernelServers(config, tmp_path, "token")  # no server, no crash
    assert kernels.server is None
    notebook = tmp_path / "alice.ipynb"
    notebook.write_bytes((FIXTURES / "correct.ipynb").read_bytes())
    job = {"id": 1, "path": str(notebook), "plan": specs.load("01_weather").probe_plan()}
    for _ in range(2):  # and again for the next submission
        report = worker_module.grade_job(job, config, kernels, lambda cells, plan: {})
        assert "the sandbox's cgroup could not be made" in report["grader_error"]
        assert report["probes"] == {}
    assert kernels.server is None


# ----------------------------------------------------------------- RLIMIT_NPROC's count
@pytest.mark.parametrize("release, per_namespace", [
    ("5.13.19-generic", False), ("5.14.0-1-amd64", True), ("6.18.44-fc-v509", True),
    ("4.19.0-27-cloud-amd64", False), ("5.15", True), ("weird", False)])
def test_the_kernel_release_says_how_rlimit_nproc_counts(release, per_namespace):
    assert cgroups.nproc_per_namespace(release) is per_namespace


@pytest.mark.parametrize("per_namespace, words", [
    (True, "at most 64 tasks per sandbox"), (False, "across every sandbox on this machine")])
def test_results_json_says_what_rlimit_nproc_bounds(monkeypatch, per_namespace, words):
    """G9: without a pids cgroup the record said "tasks per user (RLIMIT_NPROC)", though
    every sandbox runs as one uid: before Linux 5.14 that count is shared by all of them."""
    monkeypatch.setattr(cgroups, "nproc_per_namespace", lambda release=None: per_namespace)
    limits = GradingLimits(tasks=64)
    assert words in cgroups.describe({}, limits, kind="bwrap")["tasks"]
    assert words in cgroups.describe({"version": 1, "memory": "/m", "pids": ""}, limits,
                                     kind="bwrap")["tasks"]
    # without a sandbox no RLIMIT_NPROC is set (launcher.process_limit): not claimed
    assert cgroups.describe({}, limits, kind="off")["tasks"].startswith("not limited")
    assert "pids" in cgroups.describe({"version": 2, "memory": "/u", "pids": "/u"}, limits,
                                      kind="off")["tasks"]


#: run in a sandbox of its own as ``python -c NPROC fill|try``: under RLIMIT_NPROC 8,
#: ``fill`` starts processes until refused and says so; ``try`` says how many of 3 it started
NPROC = """
import os, resource, sys, time
resource.setrlimit(resource.RLIMIT_NPROC, (8, 8))
made = 0
for _ in range(20 if sys.argv[1] == "fill" else 3):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60 if sys.argv[1] == "fill" else 0)
        os._exit(0)
    made += 1
print(made, flush=True)
if sys.argv[1] == "fill":
    time.sleep(60)
"""


#: any Python will do (the probe needs its standard library only); the system's, which
#: the sandbox's user can run where this one (in /root, say) is out of its reach
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def _sandboxed(role: str) -> list[str]:
    command = [shutil.which("bwrap"), "--unshare-all", "--unshare-user", "--die-with-parent",
               "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--",
               PYTHON, "-c", NPROC, role]
    if os.geteuid() == 0:  # as a root grader's sandboxes run
        uid = str(sandbox_uid())
        command = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *command]
    return command


def test_what_results_json_says_of_rlimit_nproc_holds_on_this_machine():
    """Two sandboxes of the same uid: one starts processes until RLIMIT_NPROC refuses, then
    the other tries to start three.  It can exactly when the record says the limit is
    per sandbox (this kernel counts per user namespace)."""
    filler = subprocess.Popen(_sandboxed("fill"), stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        full = int(filler.stdout.readline())
        assert 0 < full < 20, "RLIMIT_NPROC did not stop the first sandbox"
        other = subprocess.run(_sandboxed("try"), capture_output=True, text=True, check=True)
        started = int(other.stdout)
    finally:
        os.killpg(filler.pid, signal.SIGKILL)
        filler.wait()
    words = cgroups.describe({}, GradingLimits(tasks=8), kind="bwrap")["tasks"]
    assert (started == 3) is ("per sandbox" in words), (started, words)


# ----------------------------------------------------------------- the same row on every run
def test_a_flood_is_refused_after_the_cell_that_sent_it_on_every_run(tmp_path):
    """The flood fixture's row named the flooding cell on some runs and the next cell on
    others: nbclient stops waiting for a cell's output after ``iopub_timeout``, and the
    1.5 GB message could still be arriving then.  The grader now waits for the output to
    arrive or be refused before it looks, so the row is the same bytes every time."""
    from nbcourse.grading.batch import grade_batch

    rows = []
    for run in range(2):
        grade_batch("01_weather", [FIXTURES / "attack_22_worker_flood.ipynb"],
                    tmp_path / f"out{run}", progress=None)
        rows.append((tmp_path / f"out{run}" / "grades.csv").read_bytes().splitlines()[1:])
    assert rows[0] == rows[1]
    assert b"stopped after the cell starting `kernel = get_ipython().kernel`" in rows[0][0]


def test_a_dask_client_whose_error_handler_cannot_be_replaced_is_refused():
    """The client drops a failed task's pickle by replacing Dask's 'task-erred' handler;
    a distributed without that handler would unpickle it, so no batch starts there."""
    from types import SimpleNamespace

    from nbcourse.grading import cluster

    closed = []
    other = SimpleNamespace(_stream_handlers={}, close=lambda: closed.append(True))
    with pytest.raises(RuntimeError, match="task-erred"):
        cluster._unread_errors(other)
    assert closed == [True]
    kept = SimpleNamespace(_stream_handlers={"task-erred": print}, futures={})
    assert cluster._unread_errors(kept)._stream_handlers["task-erred"] is not print
