"""Grade a batch on a Dask cluster: the same sandbox on every worker, one gradebook here.

``nbcourse grade ... --scheduler tcp://host:8786`` (or ``local`` for a ``LocalCluster``
on this machine) sends each submission, as bytes, to a Dask worker, two per worker at a
time (``in_flight``: the next is read and sent as one comes back).  The worker grades
it exactly as ``nbcourse grade`` does locally: a grading process of its own
(``worker_main``, which also runs the forbidden-estimator scan there), a fresh kernel
alone in a bubblewrap sandbox, the same limits, and the same start-up self-test on that
machine (a worker that cannot isolate fails the batch instead of grading weaker).  Midway,
as a local run does, it asks the batch which second readings to make (``dask_asks``: the
run's ordinary readings go out, the keys of the readings come back).  What comes back at
the end is the run's report: the values the kernel returned.  The expected values never
leave the instructor's process, where the rows are scored and the gradebook is written
once.

A worker that dies mid-submission loses no row: Dask gives its tasks to another worker;
if a submission kills every worker it is given to (Dask's ``allowed_failures``), its row
says so (``grader error``).

A worker is sent every hidden input and every notebook, and its report becomes the
marks: only the instructor's machines may be workers.  A scheduler's address must be
``tls://`` with the instructor's certificates (``certs``; mutual TLS, so neither a worker
nor a client without a certificate of the instructor's CA gets in), or ``tcp://`` only
when told ``insecure``.  ``local:N`` starts its scheduler and workers on 127.0.0.1 with
throw-away certificates that exist only in this process and its workers, and without the
HTTP server Dask starts even when the dashboard is off.

What is trusted, and what is not.  The workers are trusted as the instructor's own
processes: only a machine holding the batch's certificates joins, and it runs the
grader's code (a worker could change any mark anyway).  What a *submission* produces is
not trusted: it stays in the worker's sandbox and comes back only as the values in a
report.  ``grade_remote`` catches every exception and returns JSON text, always (a
report, ``{"grader_error": text}``, or ``{"sandbox_unavailable": text}`` when the
worker's self-test fails, which stops the batch here with the worker's message, as
locally); the client reads it with ``report_from_worker`` and refuses any other kind of
result rather than unpickle it (``DESERIALIZERS``).  A task that errs anyway (its
worker died, or something in it raised past ``grade_remote``) arrives as a pickle that
Dask's client would unpickle (``clean_exception``): the client made here drops it
unread (``_unread_errors``), and the row says the task failed.  Dask's own replies to
``Client.run`` (the answers on which second readings to make, ``dask_asks.deliver``, and
the clean-up at the end of a batch) are still unpickled on error: that path trusts the
workers, as above.

What each worker needs: the course's Python environment (``pip install nbcourse``, the
same version), bubblewrap, and user namespaces, exactly as for local grading.
"""
from __future__ import annotations

import itertools
import json
import logging
import os
import queue
import shutil
import tempfile
import threading
from pathlib import Path

from distributed import Client, Scheduler, get_worker
from distributed import Worker as DaskWorker

from .dask_asks import Answers, asker
from .execution.cgroups import batch_label, sweep_batch
from .execution.limits import GradingLimits
from .execution.notebook_file import open_untrusted
from .execution.report import RunReport
from .site import GradingSite, leftover_warnings

_STATE: dict[str, "_WorkerState"] = {}
_STATE_LOCK = threading.Lock()


class _WorkerState:
    """Per Dask worker process and batch: the machine's ``GradingSite``, set up once (the
    sandbox's self-test from the batch's limits), and its idle grading processes."""

    def __init__(self, token: str, mode: str, limits: GradingLimits):
        self.site = GradingSite(token, _scratch_prefix(token))
        try:
            self.site.start(mode, limits)  # this machine's self-test
        except BaseException:
            self.site.close()
            raise
        self.inbox = self.site.inbox  # the notebooks: for the grader only
        self.config = self.site.config
        self.idle: queue.Queue = queue.Queue()

    def grader(self):
        try:
            return self.idle.get_nowait()
        except queue.Empty:
            return self.site.new_worker()

    def close(self) -> int:
        """Stop everything of the batch on this worker; how many processes were left."""
        return self.site.close()


def _state(token: str, mode: str, limits: dict) -> _WorkerState:
    with _STATE_LOCK:
        if token not in _STATE:
            _STATE[token] = _WorkerState(token, mode, GradingLimits.from_json(limits))
        return _STATE[token]


def grade_remote(job: dict, notebook: bytes, mode: str, token: str, limits: dict) -> str:
    """Run on a Dask worker: grade one notebook (its bytes), return the run's report as
    JSON text (``report_from_worker`` reads it).

    ``job`` is what a local grading process is sent (id, plan), without a path, and
    its ticket for the batch's answer about its second readings (``dask_asks``);
    ``token`` names the batch (its state here, and the processes it may leave);
    ``limits`` (``GradingLimits.to_json``) make this machine's sandbox config once.
    Never raises: an error becomes JSON text too (no exception is pickled for the client)."""
    from .execution.sandbox import SandboxUnavailable
    try:
        return _grade_here(job, notebook, mode, token, limits)
    except SandboxUnavailable as error:
        return json.dumps({"sandbox_unavailable": str(error)})
    except Exception as error:  # noqa: BLE001 - sent back as words, never as an object
        return json.dumps({"grader_error": f"{type(error).__name__} on the Dask worker: "
                                           f"{error}"})


def _grade_here(job: dict, notebook: bytes, mode: str, token: str, limits: dict) -> str:
    state = _state(token, mode, limits)
    job = dict(job)
    ticket = job.pop("ask", None)  # for the batch's answer (dask_asks), not the grader's
    # the batch answers which second readings to make, as locally (``Rows.second_readings``)
    ask = asker(get_worker(), token, job["id"], ticket, state.config.limits.cell_timeout) \
        if isinstance(ticket, dict) and all(isinstance(ticket.get(key), str)
                                            for key in ("topic", "secret")) else None
    handle, path = tempfile.mkstemp(prefix="submission-", suffix=".ipynb", dir=state.inbox)
    with os.fdopen(handle, "wb") as out:
        out.write(notebook)
    worker = state.grader()
    try:
        report = worker.grade({**job, "path": path}, ask=ask)  # limits: the worker's config
    finally:
        state.idle.put(worker)
        Path(path).unlink(missing_ok=True)
    # what the grading worker that ran the kernel reported; none if it failed first (never
    # this process's own idea of it: ``Rows.isolation`` reads only what workers report)
    report.setdefault("isolation", {})
    return json.dumps(report)


def _scratch_prefix(token: str) -> str:
    return f"nbcourse-dask-{token}-"


def remove_scratch(token: str) -> None:
    """Remove the batch's scratch folders on this machine, also those of Dask workers
    that died (killed mid-batch, a worker cannot tidy up after itself)."""
    from .execution.sandbox import remove_tree
    for folder in Path(tempfile.gettempdir()).glob(_scratch_prefix(token) + "*"):
        remove_tree(folder)


def remove_leftovers(token: str) -> int:
    """Remove what the batch left on this machine, also where a Dask worker died (killed
    mid-batch, a worker cannot tidy up after itself): its scratch folders, and its
    sandboxes' cgroups with whatever still ran in them (how many processes that was)."""
    remove_scratch(token)
    return sweep_batch(batch_label(token))


def close_remote(token: str) -> int:
    """Run on every worker at the end of a batch: stop its grading processes and sandboxes
    and remove the batch's scratch folders and cgroups; returns how many processes started
    by submissions were still running."""
    with _STATE_LOCK:
        state = _STATE.pop(token, None)
    left = 0
    try:
        left = state.close() if state is not None else 0
    finally:
        left += remove_leftovers(token)
    return left


def _read_for_worker(path: Path, limit: int) -> bytes:
    """The bytes a worker grades (``Submission.to_grade``: an oversized notebook's outputs
    are already stripped), read at most limit + 1 bytes (so the worker refuses an
    oversized notebook exactly as a local run would)."""
    try:
        with open_untrusted(path) as handle:
            return handle.read(limit + 1)
    except OSError:
        return b""


INSECURE = (
    "a Dask scheduler without TLS lets any machine that can reach it join as a worker: "
    "that machine is sent every hidden input and every student's notebook, can change "
    "any mark without a trace, and can run code in this grader")


def check_scheduler(scheduler, tls=None, insecure: bool = False) -> None:
    """Raise ValueError, before any work, for a scheduler that ``connect`` would refuse."""
    if isinstance(scheduler, str) and (scheduler == "local" or scheduler.startswith("local:")):
        count = scheduler.partition(":")[2] or "2"
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--scheduler {scheduler}: local:N needs a number of workers "
                             "of at least 1")
        return
    if isinstance(scheduler, str):
        address = scheduler
    elif isinstance(scheduler, Client):
        address = scheduler.scheduler.address
    else:
        raise TypeError(f"scheduler must be an address, local, local:N or a Dask Client, "
                        f"got {type(scheduler).__name__}")
    scheme, found, _ = address.partition("://")
    scheme = scheme if found else ("tls" if tls is not None else "tcp")
    if scheme == "tls":
        if tls is None and isinstance(scheduler, str):
            raise ValueError(f"--scheduler {address} needs --tls DIR: the folder where "
                             "'nbcourse certs DIR' wrote ca.pem, client.pem and client-key.pem")
        return
    if scheme == "tcp":
        if tls is not None:
            raise ValueError(f"--tls was given but --scheduler {address} is not tls://")
        if not insecure:
            raise ValueError(
                f"refusing --scheduler {address}: {INSECURE}. Start the scheduler and workers "
                "with the certificates of 'nbcourse certs DIR' and grade with --scheduler "
                "tls://HOST:PORT --tls DIR (see the README), or pass --insecure to accept "
                "this risk on a network that only you can reach")
        return
    raise ValueError(f"--scheduler {address}: the address must be tls://HOST:PORT (or "
                     "tcp://HOST:PORT with --insecure), local or local:N")


# how the grader reached the cluster, in results.json's isolation (dask_security)
LOCAL_TLS = "TLS with throw-away certificates (a cluster on this machine)"
INSTRUCTOR_TLS = "mutual TLS with the instructor's certificates"
NO_TLS = "none: plain TCP (--insecure)"

# What a client accepts from a worker: msgpack's plain data (the worker returns JSON
# text).  Dask's default also unpickles, which runs whatever code a result names.
DESERIALIZERS = ["msgpack"]


def connect(scheduler, tls=None, insecure: bool = False):
    """(client, close, security) for an address, ``local`` or ``local:N``, or a ``Client``
    (whose scheduler is reached again by a client of ours, with its security).

    ``security`` says in words how the connection is protected (``LOCAL_TLS``,
    ``INSTRUCTOR_TLS`` or ``NO_TLS``)."""
    check_scheduler(scheduler, tls, insecure)
    if isinstance(scheduler, str) and (scheduler == "local" or scheduler.startswith("local:")):
        # the workers' own folder (Dask's "dask-scratch-space"), removed with the cluster
        workspace = tempfile.mkdtemp(prefix="nbcourse-dask-")
        try:
            cluster = _local_cluster(int(scheduler.partition(":")[2] or 2), workspace)
        except BaseException:
            shutil.rmtree(workspace, ignore_errors=True)
            raise
        try:
            client = _unread_errors(Client(cluster, security=cluster.security,
                                           deserializers=DESERIALIZERS))
        except BaseException:
            cluster.close()
            shutil.rmtree(workspace, ignore_errors=True)
            raise

        def close():
            try:
                client.close()
                cluster.close()
            finally:
                shutil.rmtree(workspace, ignore_errors=True)
        return client, close, LOCAL_TLS
    if isinstance(scheduler, str):
        address = scheduler if "://" in scheduler else (
            ("tls://" if tls is not None else "tcp://") + scheduler)
        if address.startswith("tls://"):
            from .certs import client_security
            security = client_security(tls)
        else:
            from distributed import Security
            security = Security(require_encryption=False)
    else:
        address, security = scheduler.scheduler.address, scheduler.security
    client = _unread_errors(Client(address, security=security, timeout=30,
                                   deserializers=DESERIALIZERS))
    return client, client.close, INSTRUCTOR_TLS if address.startswith("tls://") else NO_TLS


#: A failed task's row: what it raised is not read (it would be a pickle from the worker).
TASK_FAILED = ("every Dask worker given this submission died while grading it, or its task "
               "failed without a report (what it raised is not read)")


class TaskFailed(Exception):
    """What a failed task's future holds in the grader, in place of the worker's pickle."""


def _unread_errors(client):
    """``client`` with Dask's handler of a failed task replaced: Dask unpickles the error
    a worker (or the scheduler) sends as soon as it arrives; this one drops it unread and
    marks the future failed with ``TaskFailed(TASK_FAILED)``."""
    def task_erred(key=None, exception=None, traceback=None):
        state = client.futures.get(key)
        if state is not None:
            state.set_error(TaskFailed(TASK_FAILED), None)

    handlers = getattr(client, "_stream_handlers", None)
    if not isinstance(handlers, dict) or "task-erred" not in handlers:  # fail closed
        client.close()
        raise RuntimeError("this version of distributed has no 'task-erred' handler to "
                           "replace, so a failed task's error would be unpickled here; "
                           "install the distributed version nbcourse lists")
    handlers["task-erred"] = task_erred
    return client


class _WithoutHTTP:
    """A Dask server (scheduler or worker) that starts no HTTP server.

    Dask's scheduler serves HTTP (its info pages, JSON and metrics) on port 8787 even with
    ``dashboard_address=None``: ``None`` only turns the dashboard's plots off.  That server
    has no authentication; a cluster of the grader's own needs none of it."""

    def start_http_server(self, routes, dashboard_address, default_port=0, ssl_options=None):
        from distributed.http.routing import RoutingApplication
        from tornado.httpserver import HTTPServer
        self.http_application = RoutingApplication([])
        self.http_server = HTTPServer(self.http_application)  # never listens


class QuietScheduler(_WithoutHTTP, Scheduler):
    """Dask's scheduler without its HTTP server."""


class QuietWorker(_WithoutHTTP, DaskWorker):
    """Dask's worker without its HTTP server (a class of this module, so that a worker
    process started by a ``Nanny`` finds it by name)."""


def _local_cluster(n: int, workspace: str):
    """``n`` Dask worker processes and their scheduler on 127.0.0.1, reached only with
    throw-away certificates (``Security.temporary``: made in memory, handed to the worker
    processes through their start-up pipes) and serving no HTTP."""
    from distributed import Nanny, Security, SpecCluster

    security = Security.temporary()
    common = {"host": "127.0.0.1", "protocol": "tls://", "security": security}
    scheduler = {"cls": QuietScheduler,
                 "options": {**common, "port": 0, "dashboard": False, "dashboard_address": None,
                             "local_directory": workspace}}
    worker = {"cls": Nanny,
              "options": {**common, "nthreads": 1, "dashboard": False,
                          "worker_class": QuietWorker, "silence_logs": logging.WARN,
                          "local_directory": workspace}}
    return SpecCluster(scheduler=scheduler, workers={i: worker for i in range(n)},
                       worker=worker, security=security, silence_logs=logging.WARN)


def grade_on_cluster(scheduler, rows, plan, limits: GradingLimits, mode: str,
                     tls=None, insecure: bool = False) -> tuple[dict, list[str]]:
    """Grade the submissions of ``rows`` (``scheduling.Rows``) on the cluster, each row
    finished as its run comes back; (isolation, warnings).  ``tls``: the folder of the
    instructor's certificates; ``insecure``: accept a plain ``tcp://`` scheduler."""
    import secrets

    from .scheduling import refused_report

    client, close, security = connect(scheduler, tls, insecure)
    token = secrets.token_hex(12)
    warnings: list[str] = []
    if security == NO_TLS:
        warnings.append(f"graded with --insecure: {INSECURE}")
    futures, answers = {}, None

    def submit(index: int):
        """Send one submission (read only now: a batch is never all in memory)."""
        job = {"id": index, "plan": plan, "ask": answers.ticket(index)}
        notebook = _read_for_worker(rows.submissions[index].to_grade, limits.notebook_bytes)
        future = client.submit(grade_remote, job, notebook, mode, token, limits.to_json(),
                               pure=False, key=f"nbcourse-grade-{token}-{index}")
        futures[future] = index
        return future

    try:  # from here on the client is closed whatever happens
        address = client.scheduler.address
        n_workers = len(client.scheduler_info().get("workers", {}))
        answers = Answers(client, token, rows.second_readings)  # before any job is sent
        for index, submission in enumerate(rows.submissions):
            if submission.refused:
                rows.finish(index, refused_report(submission))
        jobs = (submit(index) for index, submission in enumerate(rows.submissions)
                if not submission.refused)
        _collect(futures, rows, jobs, lambda: in_flight(client), answers.forget)
    finally:
        for future in futures:
            future.cancel()
        if answers is not None:
            answers.close()
        leftovers = _clean_up(client, token, warnings)
        close()
    warnings += leftover_warnings(leftovers)
    isolation, differ = rows.isolation()  # what the workers reported, as locally
    warnings += differ
    isolation["dask_scheduler"] = address
    isolation["dask_workers"] = n_workers
    isolation["dask_security"] = security
    return isolation, warnings


def in_flight(client) -> int:
    """How many submissions may be on the cluster at once: two per worker (one graded,
    one waiting), so no worker idles while the grader keeps little of the batch in memory."""
    return 2 * max(1, len(client.scheduler_info().get("workers", {})))


def _collect(futures: dict, rows, jobs, room, finished=lambda index: None) -> None:
    """Submit from ``jobs`` (an iterator that sends one submission and returns its future)
    while fewer than ``room()`` are pending, finish each row (with the isolation its
    worker reported) as its future completes (``finished(index)`` then) and submit the
    next."""
    from distributed import as_completed

    waiting = as_completed(list(itertools.islice(jobs, room())))
    for future in waiting:
        index = futures.pop(future)
        try:  # a failed task holds TaskFailed, never the worker's pickle (_unread_errors)
            data = future.result()
        except Exception:  # noqa: BLE001 - TaskFailed, or a task cancelled meanwhile
            report = RunReport.failed(TASK_FAILED)
        else:
            report = report_from_worker(data)  # its isolation checked, in the report
        future.release()  # done: a worker that dies later need not compute it again
        finished(index)
        rows.finish(index, report)
        for following in itertools.islice(jobs, max(0, room() - len(futures))):
            waiting.add(following)


def report_from_worker(data) -> RunReport:
    """The report ``grade_remote`` returned: JSON text of a report whose ``isolation`` is
    a flat table of words and numbers (``Rows.isolation`` reads it there), or of its error
    in words (``{"grader_error": text}``: the row's; ``{"sandbox_unavailable": text}``:
    raised here as ``SandboxUnavailable``, which stops the batch).  Anything else is the
    row's grader error, never an object built from the worker's data."""
    def unreadable(why: str) -> RunReport:
        return RunReport.failed(f"the Dask worker sent an unreadable report ({why})")

    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            return unreadable("not UTF-8 text")
    if not isinstance(data, str):
        return unreadable(f"{type(data).__name__} instead of JSON text")
    try:
        parsed = json.loads(data)
    except (ValueError, RecursionError):
        return unreadable("not JSON")
    if not isinstance(parsed, dict):
        return unreadable(f"a JSON {type(parsed).__name__}, not an object")
    for key in ("sandbox_unavailable", "grader_error"):  # grade_remote's errors, as words
        if set(parsed) == {key} and isinstance(parsed[key], str):
            if key == "sandbox_unavailable":  # the worker cannot isolate: stop, as locally
                from .execution.sandbox import SandboxUnavailable
                raise SandboxUnavailable(parsed[key])
            return RunReport.failed(parsed[key])
    isolation = parsed.get("isolation")
    if not (isinstance(isolation, dict) and all(
            isinstance(key, str) and (value is None or isinstance(value, (str, int, float)))
            for key, value in isolation.items())):
        return unreadable("no table of the isolation it enforced")
    return RunReport.from_json(parsed)


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
    return leftovers + remove_leftovers(token)
