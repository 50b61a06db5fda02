"""A grading worker: a process that grades submissions one at a time, on request.

The batch starts one worker per ``--jobs`` and keeps it for the whole batch, so the
slow imports (nbclient, jupyter_client) happen once per worker, not per submission.
The worker is a child subreaper (see ``processes``): after each submission every
process still below it was started by that submission, and is killed.

The worker keeps one *kernel server* (``launcher.KernelServer``), in its own
bubblewrap sandbox unless ``--sandbox off``: it has imported ipykernel, numpy and
pandas once and forks a fresh kernel for each submission; after each one everything
the submission started is killed and the sandbox's writable folders are emptied, or,
if anything of that does not hold, the server is replaced by a new one.  Where it can
(as root, or as an ordinary user where user namespaces allow mounts), the worker first
takes a mount namespace of its own, so every sandbox's channel is a small tmpfs that
vanishes with the worker; otherwise the channel is a plain folder and results.json says so.  Its folder is inside
the batch's, which the batch removes whatever happens to the worker.

The worker is the process that reads what a kernel sends, so a kernel could try to
drive *its* memory (ZeroMQ assembles a message of many parts before any of it is
read): it limits its own memory first (``limit_own_memory``), and a kernel that takes
it over that limit loses its own row only (``runner`` reports it; a worker that dies of
it is replaced by the batch).

Protocol: one JSON job per line on stdin, one JSON reply per line on the original
stdout.  File descriptor 1 is pointed at stderr before any job runs, so nothing a
kernel or a library prints can corrupt the replies.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import os
import resource
import sys
import tempfile
import traceback
from pathlib import Path

from . import cgroups
from .connection import socket_folder
from .launcher import KernelServer
from .limits import bytes_or_unlimited
from .processes import TOKEN_VARIABLE, become_subreaper, kill_descendants
from .report import RunReport
from .runner import SourceScan, run_submission
from .mounts import HalfMade, private_mounts
from .sandbox import SandboxConfig, SandboxUnavailable, remove_tree

CONFIG_VARIABLE = "NBCOURSE_GRADING_SANDBOX"


class KernelServers:
    """The worker's kernel server (``launcher.KernelServer``): started with the worker,
    kept while every submission ends cleanly, replaced at once when one does not."""

    def __init__(self, config: SandboxConfig, base: Path, token: str,
                 sockets: Path | None = None):
        self.config = config
        self.base = base
        self.token = token
        self.sockets = sockets or base  # where the channels go (see connection.socket_folder)
        self.server: KernelServer | None = self._new_or_none()

    def _new(self) -> KernelServer:
        return KernelServer(self.config, self.base, self.token, sockets=self.sockets)

    def _new_or_none(self) -> KernelServer | None:
        """A new server started ahead of the next submission, or None when it cannot be
        started, e.g. its cgroup cannot be made (``take`` tries again, and the row it is
        taken for says why): a failure here must not cost the row just graded."""
        try:
            return self._new()
        except cgroups.Unavailable:
            return None
        except Exception:  # noqa: BLE001 - the next take() reports it on its row
            traceback.print_exc(limit=8)  # stderr: the worker's log
            return None

    def take(self) -> KernelServer:
        if self.server is None or not self.server.healthy or not self.server.channel_intact():
            self.close()
            self.server = self._new()
        if not self.server.wait_ready():
            self.close()
            raise RuntimeError("the kernel did not start"
                               + (" (is bubblewrap still working?)"
                                  if self.config.kind == "bwrap" else ""))
        return self.server

    def after_submission(self) -> None:
        """Kill what a submission left below the worker (without a sandbox, a kernel's
        orphans come here); a server whose submission left anything is not used again,
        and its successor starts now, importing while the reply goes out.

        A successor that cannot be built (a full disk, no process left, bubblewrap gone)
        must not cost the row just graded: the failure goes to the worker's log and
        ``take`` tries again for the next submission, whose row then says what failed."""
        server = self.server
        killed = server.sweep_after() if server is not None else kill_descendants()
        if killed and server is not None:
            server.kill()
        if self.server is None or not self.server.healthy:
            self.close()
            self.server = self._new_or_none()

    def close(self) -> None:
        if self.server is not None:
            self.server.kill()
            self.server = None


def limit_own_memory(megabytes: int) -> None:
    """Bound the memory this worker may write to (``RLIMIT_DATA``, soft limit only).

    Not ``RLIMIT_AS``: the address space of a process with ZeroMQ's threads holds
    reserved but unused malloc arenas and thread stacks; ``RLIMIT_DATA`` counts the
    private memory it can actually write, which is what a flood of messages fills.
    The hard limit stays, so a kernel this worker starts takes its own limits
    (``kernel_server.prepare_interpreter`` raises the soft limit again before anything
    else).
    """
    wanted = bytes_or_unlimited(megabytes)
    if wanted < 0:
        return
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (wanted, hard))


def skip_uri_grammar() -> None:
    """Keep jsonschema (imported by nbformat) from building its RFC 3987 grammar.

    Where the optional ``rfc3987-syntax`` package is installed (Jupyter's own packages
    pull it in), ``import jsonschema`` compiles a full IRI grammar: about 3 s of CPU for
    every worker, three times all its other imports.  A worker never checks that a
    string is an IRI, so it tells Python the package is not there.
    """
    sys.modules.setdefault("rfc3987_syntax", None)


def own_mounts(config: SandboxConfig) -> SandboxConfig:
    """``config`` as this worker can keep it: where it cannot make a mount namespace of its
    own, root or not, its channels are plain folders, and its configuration (whose
    ``describe`` results.json records) says so.  A namespace made but not finished
    (``mounts.HalfMade``) fails closed: ``SandboxUnavailable``, and the worker grades
    nothing (each of its rows says why)."""
    try:
        if not config.private_channel or private_mounts():
            return config
    except HalfMade as error:
        raise SandboxUnavailable(f"this grading worker cannot isolate its submissions: {error}; "
                                 "none is run in it") from None
    print("nbcourse: this grading worker could not make a mount namespace, so its "
          "sandboxes' channels are plain folders (no size limit)." + ("" if os.geteuid() == 0
          else " Grade as root, or allow unprivileged user namespaces (sysctl "
          "kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0), for a small "
          "tmpfs."), file=sys.stderr)
    return dataclasses.replace(config, worker_mounts=False)


def release_orphaned(config: SandboxConfig, batch: int) -> bool:
    """When the batch process that started this worker (``batch``, which made the cgroup
    parents) was killed, nothing of its own clean-up ran: the worker removes the batch's
    parents that are empty, once its own sandbox is gone (one that another worker still
    uses is not empty, and the last worker to end removes it).  True when it did."""
    if not config.cgroups or os.getppid() == batch:
        return False
    cgroups.remove_parents(config.cgroups)
    return True


def grade_job(job: dict, config: SandboxConfig, kernels: KernelServers,
              scan_source: SourceScan, ask=None) -> dict:
    """The report of one job, as JSON.  When the grading machinery itself fails, the row's
    grader error says what and where, and the whole traceback goes to the worker's log."""
    try:
        report = run_submission(job["path"], job["plan"], config.limits, kernels.take,
                                scan_source=scan_source, ask=ask)
        report.isolation = config.describe()
        return report.to_json()
    except Exception as error:  # noqa: BLE001 - report it, keep the worker alive
        traceback.print_exc(limit=8)  # stderr: the worker's log
        frames = traceback.extract_tb(error.__traceback__)
        where = (f" (at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}, "
                 f"{frames[-1].name})") if frames else ""
        return RunReport.failed(f"{type(error).__name__}: {error}{where}").to_json()
    finally:
        kernels.after_submission()


def asking(job_id, replies, requests=sys.stdin):
    """``run_submission``'s ``ask`` for a job that says ``"ask": true``: the run's ordinary
    readings go out as ``{"id", "interim"}``, and the next line in is ``{"id",
    "follow_through": [keys] or null}`` (``workers.Worker.grade``).  A line of another
    shape, or none, means every second reading, as without asking."""
    def ask(report: RunReport):
        replies.write(json.dumps({"id": job_id, "interim": report.to_json()}) + "\n")
        replies.flush()
        try:
            answer = json.loads(requests.readline())
        except ValueError:
            return None
        keys = answer.get("follow_through") if isinstance(answer, dict) and \
            answer.get("id") == job_id else None
        if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            return set(keys)
        return None
    return ask


def main(scan_source: SourceScan) -> int:
    """Serve jobs until stdin closes.  ``scan_source`` is ``runner.run_submission``'s (the
    grading side's source scan): ``grading/worker_main.py`` is this process's entry point
    and passes it, so the scan runs here, under this worker's memory limit."""
    config = SandboxConfig.from_json(json.loads(os.environ.get(CONFIG_VARIABLE, "{}")))
    batch = cgroups.maker(config.cgroups)  # the batch's process, which started this one
    limit_own_memory(config.limits.worker_memory_mb)
    config = own_mounts(config)  # first, while single-threaded
    replies = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    logging.getLogger("traitlets").setLevel(logging.CRITICAL)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    become_subreaper()
    base = Path(tempfile.mkdtemp(prefix="worker-", dir=os.getcwd()))
    os.chmod(base, 0o700)
    token = os.environ.get(TOKEN_VARIABLE, "")
    sockets = socket_folder(base, token)
    kernels = KernelServers(config, base, token, sockets)  # imports overlap with the worker's
    skip_uri_grammar()
    import nbclient  # noqa: F401  (slow; imported once, while the kernel server starts)

    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            job = json.loads(line)
            ask = asking(job["id"], replies) if job.get("ask") is True else None
            report = grade_job(job, config, kernels, scan_source, ask)
            replies.write(json.dumps({"id": job["id"], "report": report}) + "\n")
            replies.flush()
    finally:
        kernels.close()
        release_orphaned(config, batch)
        kill_descendants()
        remove_tree(base)
        if sockets != base:
            remove_tree(sockets)
    return 0
