"""Every path that makes a batch's cgroup parents removes them (issue 36): one empty
``nbcourse-<pid>-<random>`` folder per run of the grading tests was left in the pids,
cpu and memory hierarchies (memory's inside the container's own cgroup, out of sight
of ``ls /sys/fs/cgroup/*/``).  It was a Dask worker killed mid-batch: nobody removed
what it had made.  Also covered: a batch process killed outright, and a configuration
made and dropped without ``release``.

Each test fails on the code before the fix.  As root here the machine offers cgroups;
where it offers none there is nothing to leave, and the tests check that."""
from __future__ import annotations

import gc
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from nbcourse.grading.course_folders import course_folders
from nbcourse.grading.execution import cgroups
from nbcourse.grading.execution.limits import GradingLimits
from nbcourse.grading.execution.processes import kill_processes_with_token
from nbcourse.grading.execution.sandbox import SandboxConfig, make_config, remove_tree
from nbcourse.grading.execution.worker import release_orphaned

LIMITS = GradingLimits.from_options()
#: How long a grading worker whose batch was killed may take to notice and end: a
#: bound on a wait, never a measured time
ORPHAN_SECONDS = 120


def _offered() -> bool:
    """Does this machine give the tests' user cgroup parents?  Root, here."""
    parents = cgroups.find_parents()
    cgroups.remove_parents(parents)
    assert parents or os.geteuid() != 0, "root has cgroups on this machine"
    return bool(parents)


def _folders(parents: dict) -> set[str]:
    return {parents[key] for key in ("memory", "pids", "cpu") if parents.get(key)}


def _start(script: str, *args: str) -> tuple[subprocess.Popen, dict]:
    """A Python process running ``script``, and the JSON line it prints once ready."""
    process = subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE,
                               text=True)
    return process, json.loads(process.stdout.readline())


MAKER = """
import json, subprocess, sys, time
from nbcourse.grading.execution import cgroups
from nbcourse.grading.execution.limits import GradingLimits
parents = cgroups.find_parents(sys.argv[1])
paths = cgroups.create(parents, "channel-test", GradingLimits.from_options())
sleeper = subprocess.Popen(["sleep", "600"], preexec_fn=lambda: cgroups.enter(paths))
print(json.dumps({"parents": parents, "sleeper": sleeper.pid}), flush=True)
time.sleep(600)
"""


def test_the_batch_sweeps_the_cgroups_of_a_dask_worker_killed_mid_batch():
    """A Dask worker killed mid-batch cannot remove its parents, nor kill what still runs
    in its sandbox's cgroup: the batch does, on that machine, by the batch's label."""
    label = cgroups.batch_label(secrets.token_hex(12))
    maker, made = _start(MAKER, label)
    maker.kill()
    maker.wait()
    parents = made["parents"]
    try:
        assert all(Path(folder).name.endswith("-" + label) for folder in _folders(parents))
        assert cgroups.sweep_batch(label) == (1 if _offered() else 0)
    finally:
        try:
            os.kill(made["sleeper"], signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert not any(Path(folder).exists() for folder in _folders(parents))
    if parents:
        assert not _running(made["sleeper"])


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def test_the_batch_leaves_a_live_workers_cgroups_to_it():
    """At the end of a batch every Dask worker sweeps the batch's parents on its machine
    while the others close their own: a live worker's sandboxes are not leftovers."""
    label = cgroups.batch_label(secrets.token_hex(12))
    parents = cgroups.find_parents(label)  # made by this process, alive
    try:
        assert cgroups.sweep_batch(label) == 0
        assert all(Path(folder).is_dir() for folder in _folders(parents))
    finally:
        cgroups.sweep(parents)


def test_sweeping_one_batch_leaves_another_batch_alone():
    mine, theirs = (cgroups.batch_label(secrets.token_hex(12)) for _ in range(2))
    maker, made = _start(MAKER, theirs)
    maker.kill()
    maker.wait()
    try:
        assert cgroups.sweep_batch(mine) == 0
        assert all(Path(folder).is_dir() for folder in _folders(made["parents"]))
    finally:
        assert cgroups.sweep_batch(theirs) == (1 if made["parents"] else 0)
    assert not any(Path(folder).exists() for folder in _folders(made["parents"]))


BATCH = """
import json, sys, time
from nbcourse.grading.execution.limits import GradingLimits
from nbcourse.grading.site import GradingSite
site = GradingSite(sys.argv[1])
config = site.start("off", GradingLimits.from_options())
site.new_worker()
print(json.dumps({"parents": config.cgroups, "scratch": str(site.scratch)}), flush=True)
time.sleep(600)
"""


def test_the_workers_of_a_killed_batch_remove_its_cgroup_parents():
    """A batch process killed outright (SIGKILL: no ``finally`` runs) left its parents.
    Its grading workers see their input close, end their sandboxes and, their batch
    gone, remove the parents that are empty."""
    token = f"nbcourse-test-{secrets.token_hex(6)}"
    batch, made = _start(BATCH, token)
    parents = made["parents"]
    try:
        assert bool(parents) == _offered()
        batch.kill()
        batch.wait()
        deadline = time.monotonic() + ORPHAN_SECONDS
        while any(Path(f).exists() for f in _folders(parents)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(Path(folder).exists() for folder in _folders(parents)), parents
    finally:
        kill_processes_with_token(token)
        cgroups.sweep(parents)
        remove_tree(Path(made["scratch"]))


def test_a_worker_removes_the_parents_only_once_its_batch_is_gone():
    parents = cgroups.find_parents()
    config = SandboxConfig("off", limits=LIMITS, cgroups=parents)
    try:
        assert cgroups.maker(parents) == (os.getpid() if parents else 0)
        assert release_orphaned(config, os.getppid()) is False  # the batch is alive
        assert all(Path(folder).is_dir() for folder in _folders(parents))
        assert release_orphaned(config, -1) is bool(parents)  # its batch is gone
        assert not any(Path(folder).exists() for folder in _folders(parents))
    finally:
        cgroups.sweep(parents)


def test_a_configuration_made_and_dropped_leaves_no_cgroup_parent():
    config = make_config("off", LIMITS, course_folders())
    parents = dict(config.cgroups)
    assert bool(parents) == _offered()
    assert all(Path(folder).is_dir() for folder in _folders(parents))
    del config
    gc.collect()
    assert not any(Path(folder).exists() for folder in _folders(parents))


@pytest.mark.parametrize("token", ["", None, 12])
def test_a_batch_label_needs_the_batchs_token(token):
    with pytest.raises(ValueError, match="token"):
        cgroups.batch_label(token)


@pytest.mark.parametrize("label", ["../x", "ABC", "a b"])
def test_a_parent_is_named_only_after_a_batch_label(label):
    with pytest.raises(ValueError, match="batch label"):
        cgroups.find_parents(label)
    with pytest.raises(ValueError, match="batch label"):
        cgroups.sweep_batch(label)
