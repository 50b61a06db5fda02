"""Grade a batch on a Dask cluster: the same sandbox on every worker, one gradebook here.

``nbcourse grade ... --scheduler tcp://host:8786`` (or ``local`` for a ``LocalCluster``
on this machine) sends each submission, as bytes, to a Dask worker.  The worker grades
it exactly as ``nbcourse grade`` does locally: a grading process of its own
(``worker_main``, which also runs the forbidden-estimator scan there), a fresh kernel
alone in a bubblewrap sandbox, the same limits, and the same start-up self-test on that
machine (a worker that cannot isolate fails the batch instead of grading weaker).  What
comes back is the run's report: the values the kernel returned.  The expected values
never leave the instructor's process, where the rows are scored and the gradebook is
written once.

A worker that dies mid-submission loses no row: Dask gives its tasks to another worker;
if a submission kills every worker it is given to (Dask's ``allowed_failures``), its row
says so (``grader error``).

What each worker needs: the course's Python environment (``pip install nbcourse``, the
same version), bubblewrap, and user namespaces, exactly as for local grading.
"""
from __future__ import annotations

import os
import queue
import tempfile
import threading
from pathlib import Path

from .collection import without_outputs
from .execution.limits import MB, GradingLimits
from .execution.report import RunReport

_STATE: dict[str, "_WorkerState"] = {}
_STATE_LOCK = threading.Lock()


class _WorkerState:
    """Per Dask worker process and batch: what ``grade_batch`` sets up locally, once.

    The same steps as the local path of ``batch.grade_batch``: the sandbox config from the
    batch's limits (this machine's self-test and cgroups), a scratch folder the sandbox's
    user can traverse, grading processes (``workers.Worker``) started on demand and kept
    for the batch, and at the end ``release`` and the token's leftovers."""

    def __init__(self, token: str, mode: str, limits: GradingLimits):
        from .execution.sandbox import make_config
        self.config = make_config(mode, limits)  # this machine's self-test
        self.token = token
        self.scratch = Path(tempfile.mkdtemp(prefix=_scratch_prefix(token)))
        if self.config.run_as >= 0:
            os.chmod(self.scratch, 0o711)  # the sandbox's user reaches its channel through it
        self.inbox = self.scratch / "submissions"  # the notebooks: for the grader only
        self.inbox.mkdir(mode=0o700)
        self.idle: queue.Queue = queue.Queue()
        self.all = []

    def grader(self):
        from .workers import Worker
        try:
            return self.idle.get_nowait()
        except queue.Empty:
            worker = Worker(self.scratch, self.token, self.config)
            worker.start()
            with _STATE_LOCK:
                self.all.append(worker)
            return worker

    def close(self) -> int:
        """Stop everything of the batch on this worker; how many processes were left."""
        from .execution.processes import kill_processes_with_token
        from .execution.sandbox import release, remove_tree
        try:
            for worker in self.all:
                worker.close()
        finally:
            leftovers = release(self.config) + len(kill_processes_with_token(self.token))
            remove_tree(self.scratch)
        return leftovers


def _state(token: str, mode: str, limits: dict) -> _WorkerState:
    with _STATE_LOCK:
        if token not in _STATE:
            _STATE[token] = _WorkerState(token, mode, GradingLimits.from_json(limits))
        return _STATE[token]


def grade_remote(job: dict, notebook: bytes, mode: str, token: str) -> dict:
    """Run on a Dask worker: grade one notebook (its bytes), return the run's report.

    ``job`` is what a local grading process is sent (id, plan, limits), without a path;
    ``token`` names the batch (its state here, and the processes it may leave)."""
    state = _state(token, mode, job["limits"])
    limits = GradingLimits.from_json(job["limits"])
    handle, path = tempfile.mkstemp(prefix="submission-", suffix=".ipynb", dir=state.inbox)
    with os.fdopen(handle, "wb") as out:
        out.write(notebook)
    worker = state.grader()
    try:
        report = worker.grade({**job, "path": path},
                              deadline=limits.total_timeout + limits.worker_grace)
    finally:
        state.idle.put(worker)
        Path(path).unlink(missing_ok=True)
    report["isolation"] = report.get("isolation") or state.config.describe()
    return report


def _scratch_prefix(token: str) -> str:
    return f"nbcourse-dask-{token}-"


def remove_scratch(token: str) -> None:
    """Remove the batch's scratch folders on this machine, also those of Dask workers
    that died (killed mid-batch, a worker cannot tidy up after itself)."""
    from .execution.sandbox import remove_tree
    for folder in Path(tempfile.gettempdir()).glob(_scratch_prefix(token) + "*"):
        remove_tree(folder)


def close_remote(token: str) -> int:
    """Run on every worker at the end of a batch: stop its grading processes and sandboxes
    and remove the batch's scratch folders; returns how many processes started by
    submissions were still running."""
    with _STATE_LOCK:
        state = _STATE.pop(token, None)
    try:
        return state.close() if state is not None else 0
    finally:
        remove_scratch(token)


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


def grade_on_cluster(scheduler, rows, plan, limits: GradingLimits, mode: str,
                     scratch: Path) -> tuple[dict, list[str]]:
    """Grade the submissions of ``rows`` (``scheduling.Rows``) on the cluster, each row
    finished as its run comes back; (isolation, warnings)."""
    import secrets

    from .scheduling import refused_report

    client, close = connect(scheduler)
    token = secrets.token_hex(12)
    warnings: list[str] = []
    address, n_workers = client.scheduler.address, len(client.scheduler_info().get("workers", {}))
    futures = {}
    try:
        for index, submission in enumerate(rows.submissions):
            if submission.refused:
                continue
            job = {"id": index, "plan": plan, "limits": limits.to_json()}
            notebook = _read_for_worker(submission.path, limits.notebook_mb * MB, scratch)
            future = client.submit(grade_remote, job, notebook, mode, token, pure=False,
                                   key=f"nbcourse-grade-{token}-{index}")
            futures[future] = index
        for index, submission in enumerate(rows.submissions):
            if submission.refused:
                rows.finish(index, refused_report(submission))
        isolations = _collect(futures, rows)
    finally:
        for future in futures:
            future.cancel()
        leftovers = _clean_up(client, token, warnings)
        close()
    if leftovers:
        warnings.append(f"{leftovers} process(es) started by submissions were still "
                        "running after grading and were stopped")
    isolation = dict(isolations[0]) if isolations else {}
    if any(i != isolations[0] for i in isolations):
        warnings.append("the Dask workers did not all report the same isolation")
    isolation["dask_scheduler"] = address
    isolation["dask_workers"] = n_workers
    return isolation, warnings


def _collect(futures: dict, rows) -> list[dict]:
    """Finish each row as its future completes; the isolation every worker reported."""
    from distributed import as_completed

    isolations: list[dict] = []
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
        rows.finish(index, report)
    return isolations


def _clean_up(client, token: str, warnings: list[str]) -> int:
    """Stop the batch's processes on every worker, and here; how many were still running."""
    from .execution.processes import kill_processes_with_token
    leftovers = 0
    try:
        leftovers = sum(client.run(close_remote, token).values())
    except Exception as error:  # noqa: BLE001
        warnings.append(f"the Dask workers could not all be cleaned up ({error})")
    # a LocalCluster's (or a killed worker's) leftovers on this machine
    leftovers += len(kill_processes_with_token(token))
    remove_scratch(token)
    return leftovers
