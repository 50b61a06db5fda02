"""Grading on a Dask cluster: the same gradebook as locally, and no row lost when a
worker dies.  A ``LocalCluster`` of two worker processes stands in for a real one; each
worker sandboxes every submission with bubblewrap exactly as ``--jobs 2`` does here."""
from __future__ import annotations

import importlib.util
import os
import signal
import tempfile
import threading
from pathlib import Path

import pytest

from nbcourse.grading.batch import grade_batch

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "submissions"
# statuses decided by the input, never by the clock (the machine may be busy)
NAMES = ["correct", "wrong", "early_exception", "answer_deleted", "answer_renamed", "not_json",
         "empty", "kernel_killed"]
_spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)
# three batches of nine sandboxed submissions and a cluster's start on two shared cores
pytestmark = pytest.mark.timeout(900)


def _row(result) -> dict:
    """A row as results.json has it, without where the file was (each test has its folder)."""
    row = result.to_json()
    row.pop("path")
    return row


def _class(root: Path) -> Path:
    folder = root / "flat"
    folder.mkdir()
    for name in NAMES:
        (folder / f"{name}.ipynb").write_bytes((FIXTURES / f"{name}.ipynb").read_bytes())
    # flagged by the forbidden-estimator scan, which runs in the grading worker
    (folder / "uses_the_estimator.ipynb").write_text(
        make_fixtures.render(make_fixtures.uses_the_estimator()), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The gradebook of ``--jobs 2`` on this machine, sandboxed: what the cluster must match."""
    root = tmp_path_factory.mktemp("local")
    return grade_batch("01_weather", [_class(root)], root / "out", jobs=2, timeout=30,
                       sandbox="bwrap", progress=None), root / "out"


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    with Client(cluster) as client:
        yield client
    cluster.close()


def test_a_cluster_gives_the_same_gradebook_as_two_local_jobs(tmp_path, client, local):
    local, local_out = local
    remote = grade_batch("01_weather", [_class(tmp_path)], tmp_path / "dask", timeout=30,
                         sandbox="bwrap", progress=None, scheduler=client)
    assert [_row(r) for r in remote.results] == [_row(r) for r in local.results]
    assert (tmp_path / "dask" / "grades.csv").read_bytes() == \
        (local_out / "grades.csv").read_bytes()
    assert remote.isolation["sandbox"] == local.isolation["sandbox"] == "bwrap"
    assert remote.isolation["dask_workers"] == 2
    (flagged,) = [r for r in remote.results if r.submission == "uses_the_estimator"]
    assert [q.flags for q in flagged.questions[1:4]] == [["uses CategoricalNB"]] * 3


def _scratch_folders() -> set[str]:
    return {path.name for path in Path(tempfile.gettempdir()).glob("nbcourse-dask-*")}


def test_killing_a_worker_mid_batch_loses_no_row(tmp_path, client, local):
    local, _ = local
    folder = _class(tmp_path)
    pids = client.run(os.getpid)
    killed = threading.Event()
    before = _scratch_folders()

    def kill_one(result):
        if killed.is_set():
            return
        busy = [address for address, keys in client.processing().items() if keys]
        if busy:  # a worker in the middle of a submission
            killed.set()
            os.kill(pids[busy[0]], signal.SIGKILL)

    remote = grade_batch("01_weather", [folder], tmp_path / "dask", timeout=30,
                         sandbox="bwrap", progress=None, scheduler=client, on_result=kill_one)
    assert killed.is_set()
    assert [r.submission for r in remote.results] == [r.submission for r in local.results]
    for mine, theirs in zip(remote.results, local.results):
        # graded again elsewhere (the same row), or a row that says the worker died
        assert _row(mine) == _row(theirs) or (
            mine.status == "grader error" and "died" in " ".join(mine.reasons)), mine
    regraded = sum(_row(m) == _row(t) for m, t in zip(remote.results, local.results))
    assert regraded == len(local.results)
    # the killed worker could not remove its scratch folder: the batch did
    assert _scratch_folders() == before, "a Dask worker's scratch folder was left on disk"
