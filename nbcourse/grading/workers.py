"""The grader's side of the worker protocol: one grading process, one job at a time.

``Worker`` starts ``python -I -m nbcourse.grading.worker_main`` (the other side:
``execution/worker.py``, given the forbidden-estimator scan), writes one job as a line
of JSON to its stdin and reads one reply line: a ``RunReport`` of that submission.  A worker that dies, hangs past its deadline or answers out of turn is
killed with everything below it and started afresh for the next job; its submission
gets a report that says so, never no row.  Both schedulers (``scheduling`` on this
machine, ``cluster`` on Dask workers) run their submissions through it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from .execution.mounts import ONE_THREAD
from .execution.processes import TOKEN_VARIABLE, kill_tree
from .execution.report import RunReport
from .execution.sandbox import SandboxConfig
from .execution.worker import CONFIG_VARIABLE

#: Not in GradingLimits (no submission is running then): how long a worker may take to
#: end once told to (its sandboxes killed, its folders removed) before it is killed.
CLOSE_SECONDS = 15.0


def _interim(line: str, job_id) -> dict | None:
    """The ordinary readings a worker sends before its second readings, or None."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if isinstance(message, dict) and message.get("id") == job_id and \
            isinstance(message.get("interim"), dict):
        return message["interim"]
    return None


class Worker:
    """A grading worker process, restarted if it ever dies."""

    def __init__(self, log_dir: Path, token: str, sandbox: SandboxConfig):
        self.log_dir = log_dir
        self.token = token
        self.sandbox = sandbox  # with the batch's limits
        self.process: subprocess.Popen | None = None
        self.log_path: Path | None = None

    def start(self) -> None:
        self.log_path = Path(tempfile.mkstemp(prefix="worker-", suffix=".log",
                                              dir=self.log_dir)[1])
        self._log = open(self.log_path, "wb")
        # -I: isolated, so no folder named nbcourse where it starts (nor on PYTHONPATH, nor
        # in the user's site-packages) is the package it imports; -P would need Python 3.11
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-m", "nbcourse.grading.worker_main"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            text=True, encoding="utf-8", bufsize=1,
            env={**os.environ, **ONE_THREAD, TOKEN_VARIABLE: self.token,
                 CONFIG_VARIABLE: json.dumps(self.sandbox.to_json())},
            cwd=self.log_dir)  # not the instructor's folder: a kernel can read /proc/<ppid>/cwd

    def grade(self, job: dict, deadline: float | None = None, ask=None) -> dict:
        """The report of ``job`` (id, path, plan), graded under this worker's sandbox
        limits; ``deadline`` (seconds; by default the limits' ``worker_deadline``) kills a
        worker still busy with it.  ``ask(ordinary readings as JSON)``, when given, returns
        the keys of the second readings the run is to make, or None for all of them
        (``scoring.second_readings``); the worker waits for it after the ordinary probes."""
        job = dict(job, ask=ask is not None)
        if deadline is None:
            deadline = self.sandbox.limits.worker_deadline
        if self.process is None or self.process.poll() is not None:
            self.start()
        process = self.process
        # at the deadline the worker goes with every process below it, sandboxes included
        timer = threading.Timer(deadline, kill_tree, args=(process.pid,))
        timer.start()
        try:
            process.stdin.write(json.dumps(job) + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
            interim = _interim(line, job["id"]) if ask is not None else None
            if interim is not None:  # the run's ordinary readings: which second ones to make
                process.stdin.write(json.dumps({"id": job["id"],
                                                "follow_through": ask(interim)}) + "\n")
                process.stdin.flush()
                line = process.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        finally:
            timer.cancel()
        try:
            reply = json.loads(line)
            if reply.get("id") == job["id"] and "report" in reply:
                return reply["report"]
        except (ValueError, AttributeError, TypeError):
            pass
        kill_tree(process.pid)  # its kernel server too, in a session of its own with --sandbox off
        process.wait()
        self.process = None
        tail = self._tail()
        return RunReport.failed("the grading process stopped unexpectedly "
                                f"(exit code {process.returncode})"
                                + (f": {tail}" if tail else "")).to_json()

    def _tail(self) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return ""
        return text.splitlines()[-1][-300:] if text else ""

    def close(self) -> None:
        if self.process is None:
            return
        try:
            self.process.stdin.close()
            self.process.wait(timeout=CLOSE_SECONDS)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        self.process = None
        self._log.close()
