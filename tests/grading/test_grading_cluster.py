"""Grading on a Dask cluster: the same gradebook as locally, and no row lost when a
worker dies.  A ``LocalCluster`` of two worker processes stands in for a real one; each
worker sandboxes every submission with bubblewrap exactly as ``--jobs 2`` does here."""
from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

from nbcourse.grading.batch import grade_batch

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "submissions"
NAMES = ["correct", "wrong", "early_exception", "answer_deleted", "not_json", "empty",
         "infinite_loop", "kernel_killed"]


def _class(root: Path) -> Path:
    folder = root / "flat"
    folder.mkdir()
    for name in NAMES:
        (folder / f"{name}.ipynb").write_bytes((FIXTURES / f"{name}.ipynb").read_bytes())
    return folder


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    with Client(cluster) as client:
        yield client
    cluster.close()


def test_a_cluster_gives_the_same_gradebook_as_two_local_jobs(tmp_path, client):
    folder = _class(tmp_path)
    local = grade_batch("01_weather", [folder], tmp_path / "local", jobs=2, timeout=5,
                        sandbox="bwrap", progress=None)
    remote = grade_batch("01_weather", [folder], tmp_path / "dask", timeout=5,
                         sandbox="bwrap", progress=None, scheduler=client)
    assert [r.to_json() for r in remote.results] == [r.to_json() for r in local.results]
    assert (tmp_path / "dask" / "grades.csv").read_bytes() == \
        (tmp_path / "local" / "grades.csv").read_bytes()
    assert remote.isolation["sandbox"] == local.isolation["sandbox"] == "bwrap"
    assert remote.isolation["dask_workers"] == 2


def test_killing_a_worker_mid_batch_loses_no_row(tmp_path, client):
    folder = _class(tmp_path)
    local = grade_batch("01_weather", [folder], tmp_path / "local", jobs=2, timeout=5,
                        sandbox="bwrap", progress=None)
    pids = client.run(os.getpid)
    killed = threading.Event()

    def kill_one(result):
        if killed.is_set():
            return
        busy = [address for address, keys in client.processing().items() if keys]
        if busy:  # a worker in the middle of a submission
            killed.set()
            os.kill(pids[busy[0]], signal.SIGKILL)

    remote = grade_batch("01_weather", [folder], tmp_path / "dask", timeout=5,
                         sandbox="bwrap", progress=None, scheduler=client, on_result=kill_one)
    assert killed.is_set()
    assert [r.submission for r in remote.results] == [r.submission for r in local.results]
    for mine, theirs in zip(remote.results, local.results):
        # graded again elsewhere (the same row), or a row that says the worker died
        assert mine.to_json() == theirs.to_json() or (
            mine.status == "grader error" and "died" in " ".join(mine.reasons)), mine
    regraded = sum(m.to_json() == t.to_json() for m, t in zip(remote.results, local.results))
    assert regraded == len(local.results)
