"""Grade a batch on a Dask cluster: the same sandbox on every worker, one gradebook here.

``nbcourse grade ... --scheduler tcp://host:8786`` (or ``local`` for a ``LocalCluster``
on this machine) sends each submission, as bytes, to a Dask worker.  The worker grades
it exactly as ``nbcourse grade`` does locally: a grading process of its own
(``execution/worker.py``), a fresh bubblewrap sandbox per submission, the same limits,
and the same start-up self-test on that machine (a worker that cannot isolate fails
the batch instead of grading weaker).  What comes back is the run's report: the values
the kernel returned.  The expected values never leave the instructor's process, where
the rows are scored and the gradebook is written once.

A worker that dies mid-submission loses no row: Dask gives its tasks to another worker;
if a submission kills every worker it is given to (Dask's ``allowed_failures``), its row
says so (``grader error``).

What each worker needs: the course's Python environment (``pip install nbcourse``, the
same version), bubblewrap, and user namespaces, exactly as for local grading.
"""
from __future__ import annotations

import os
import queue
import shutil
import tempfile
import threading
from pathlib import Path

from .collection import without_outputs
from .execution.report import RunReport

_STATE: dict[str, "_WorkerState"] = {}
_STATE_LOCK = threading.Lock()


class _WorkerState:
    """Per Dask worker process and batch: the sandbox config, idle grading processes."""

    def __init__(self, token: str, mode: str, memory_mb: int):
        from .execution.sandbox import make_config
        self.config = make_config(mode, memory_mb)  # this machine's self-test
        self.token = token
        self.scratch = Path(tempfile.mkdtemp(prefix="nbcourse-dask-"))
        os.chmod(self.scratch, 0o700)
        self.cache_dir = self.scratch / "cache"
        self.cache_dir.mkdir()
        self.idle: queue.Queue = queue.Queue()
        self.all = []

    def grader(self):
        from .batch import Worker
        try:
            return self.idle.get_nowait()
        except queue.Empty:
            worker = Worker(self.scratch, self.token, self.config)
            self.all.append(worker)
            return worker

    def close(self) -> None:
        from .execution.processes import kill_processes_with_token
        for worker in self.all:
            worker.close()
        kill_processes_with_token(self.token)
        shutil.rmtree(self.scratch, ignore_errors=True)


def _state(token: str, mode: str, memory_mb: int) -> _WorkerState:
    with _STATE_LOCK:
        if token not in _STATE:
            _STATE[token] = _WorkerState(token, mode, memory_mb)
        return _STATE[token]


def grade_remote(job: dict, notebook: bytes, mode: str, memory_mb: int) -> dict:
    """Run on a Dask worker: grade one notebook (its bytes), return the run's report."""
    state = _state(job["token"], mode, memory_mb)
    handle, path = tempfile.mkstemp(prefix="submission-", suffix=".ipynb", dir=state.scratch)
    with os.fdopen(handle, "wb") as out:
        out.write(notebook)
    worker = state.grader()
    try:
        job = {**job, "path": path, "cache_dir": str(state.cache_dir)}
        report = worker.grade(job, deadline=job["limits"]["total_timeout"] + 120)
    finally:
        state.idle.put(worker)
        Path(path).unlink(missing_ok=True)
    report["isolation"] = report.get("isolation") or state.config.describe()
    return report


def close_remote(token: str) -> bool:
    """Run on every worker at the end of a batch: stop its grading processes."""
    with _STATE_LOCK:
        state = _STATE.pop(token, None)
    if state is not None:
        state.close()
    return True


def _read_for_worker(path: Path, limit: int, scratch: Path) -> bytes:
    """The bytes a worker grades: outputs stripped when too large, read at most limit + 1
    bytes (so the worker refuses an oversized notebook exactly as a local run would)."""
    path = without_outputs(path, limit, scratch)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        with open(os.open(path, flags), "rb") as handle:
            return handle.read(limit + 1)
    except OSError:
        return b""


def connect(scheduler):
    """(client, close) for an address, ``local`` or ``local:N``, or a ``Client`` itself."""
    from distributed import Client, LocalCluster
    if not isinstance(scheduler, str):
        return scheduler, lambda: None
    if scheduler == "local" or scheduler.startswith("local:"):
        n = int(scheduler.partition(":")[2] or 2)
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)

        def close():
            client.close()
            cluster.close()
        return client, close
    client = Client(scheduler, timeout=30)
    return client, client.close


def grade_on_cluster(scheduler, exercise, expected, plan, submissions, limits, mode: str,
                     memory_mb: int, scratch: Path, progress, on_result):
    """Grade ``submissions`` on the cluster; (rows in submission order, isolation, warnings)."""
    import secrets
    from distributed import as_completed

    from .batch import _progress_line, refused_report, score_row
    from .execution.runner import MAX_NOTEBOOK_BYTES

    client, close = connect(scheduler)
    token = secrets.token_hex(12)
    warnings: list[str] = []
    results = [None] * len(submissions)
    isolations: list[dict] = []
    done = 0
    futures = {}
    address, n_workers = client.scheduler.address, len(client.scheduler_info().get("workers", {}))
    try:
        for index, submission in enumerate(submissions):
            if submission.refused:
                continue
            job = {"id": index, "plan": plan, "limits": dict(limits.__dict__), "token": token}
            notebook = _read_for_worker(submission.path, MAX_NOTEBOOK_BYTES, scratch)
            future = client.submit(grade_remote, job, notebook, mode, memory_mb, pure=False,
                                   key=f"nbcourse-grade-{token}-{index}")
            futures[future] = index

        def finish(index, report):
            nonlocal done
            result = score_row(exercise, expected, submissions[index], report)
            results[index] = result
            done += 1
            if progress is not None:
                progress.write(_progress_line(done, len(submissions), result) + "\n")
                progress.flush()
            if on_result:
                on_result(result)

        for index, submission in enumerate(submissions):
            if submission.refused:
                finish(index, refused_report(submission))
        for future in as_completed(list(futures)):
            index = futures.pop(future)
            try:
                data = future.result()
                isolations.append(data.get("isolation") or {})
                report = RunReport.from_json(data)
            except Exception as error:  # noqa: BLE001 - a row that says what happened
                if type(error).__name__ == "SandboxUnavailable":
                    raise
                if type(error).__name__ == "KilledWorker":
                    text = ("every Dask worker given this submission died while grading it "
                            f"({error})")
                else:
                    text = f"{type(error).__name__} on the Dask worker: {error}"
                report = RunReport.failed(text)
            future.release()  # done: a worker that dies later need not compute it again
            finish(index, report)
    finally:
        for future in futures:
            future.cancel()
        try:
            client.run(close_remote, token)
        except Exception as error:  # noqa: BLE001
            warnings.append(f"the Dask workers could not all be cleaned up ({error})")
        from .execution.processes import kill_processes_with_token
        kill_processes_with_token(token)  # a LocalCluster's leftovers run on this machine
        close()
    isolation = dict(isolations[0]) if isolations else {}
    if any(i != isolations[0] for i in isolations):
        warnings.append("the Dask workers did not all report the same isolation")
    isolation["dask_scheduler"] = address
    isolation["dask_workers"] = n_workers
    results.sort(key=lambda r: r.submission)
    return results, isolation, warnings
