"""One machine's side of a batch: what grading needs there, and nothing left after it.

Local grading (``batch``) and each Dask worker (``cluster``) grade the same way on their
machine: a scratch folder the sandbox's user may traverse, its ``submissions`` inbox for
the grader only, this machine's sandbox configuration (its self-test and cgroups, made
before any kernel starts) and grading processes (``workers.Worker``) started on demand.
Closing the site ends them all the same way: the workers closed, then whatever a killed
worker left (its sandboxes' cgroups, then processes still carrying the batch's token,
best effort without cgroups), the sockets' folders and the scratch folder removed.
"""
from __future__ import annotations

import tempfile
import threading
from pathlib import Path

from .course_folders import course_folders
from .execution.cgroups import batch_label
from .execution.connection import remove_socket_folders
from .execution.limits import GradingLimits
from .execution.processes import kill_processes_with_token
from .execution.sandbox import (SandboxConfig, make_config, open_to_sandbox_user, release,
                                remove_tree)
from .workers import Worker


class GradingSite:
    """A batch's folders, sandbox configuration and grading processes on this machine."""

    def __init__(self, token: str, prefix: str = "nbcourse-batch-"):
        self.token = token
        self.scratch = Path(tempfile.mkdtemp(prefix=prefix))
        self.inbox = self.scratch / "submissions"  # unpacked zips, stripped copies
        self.inbox.mkdir(mode=0o700)
        self.config: SandboxConfig | None = None
        self.workers: list[Worker] = []
        self._lock = threading.Lock()

    def start(self, mode: str, limits: GradingLimits) -> SandboxConfig:
        """This machine's sandbox configuration; its self-test runs now."""
        self.config = make_config(mode, limits, course_folders(), batch_label(self.token))
        # the sandbox's user reaches its channel through it
        open_to_sandbox_user(self.config, self.scratch, own=False)
        return self.config

    def new_worker(self) -> Worker:
        """A grading process of this batch, started (and closed with the site)."""
        worker = Worker(self.scratch, self.token, self.config)
        with self._lock:
            self.workers.append(worker)
        worker.start()
        return worker

    def close(self) -> int:
        """End everything of the batch here; how many processes submissions left running."""
        try:
            for worker in self.workers:
                worker.close()
        finally:
            leftovers = release(self.config) if self.config is not None else 0
            leftovers += len(kill_processes_with_token(self.token))
            remove_tree(self.scratch)
            remove_socket_folders(self.token)
        return leftovers


def leftover_warnings(leftovers: int) -> list[str]:
    if not leftovers:
        return []
    return [f"{leftovers} process(es) started by submissions were still running after "
            "grading and were stopped"]
