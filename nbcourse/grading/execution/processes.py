"""Leave no process behind: every process a submission starts is found and killed.

A student's kernel runs in its own session (so its process group can be signalled as
a whole), but a child can leave that group (``start_new_session=True``) or detach by
forking twice.  The grading worker therefore registers as a *child subreaper*
(Linux): orphaned descendants are re-parented to it instead of to init, so after each
submission "all my descendants" is exactly "everything this submission started".
A kernel without a sandbox also carries a per-batch token in its environment, which
the batch uses for a last sweep; that is best effort (the kernel can rewrite its own
environment), so nothing relies on it where a cgroup or a PID namespace can end a sandbox.
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys
import time

import psutil

PR_SET_CHILD_SUBREAPER = 36
TOKEN_VARIABLE = "NBCOURSE_GRADING_RUN"


def become_subreaper() -> bool:
    """Adopt orphaned descendants (Linux >= 3.4); False where the OS cannot do it."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _kill(process: psutil.Process) -> None:
    try:
        process.kill()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        pass


def kill_process_group(pid: int) -> None:
    """SIGKILL the process group led by ``pid`` (the kernel's session)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and every process below it, stopped first so none forks meanwhile.

    A sandbox's processes are all below its bwrap (their pid namespace's init is bwrap's
    child), and an unconfined kernel's orphans are re-parented to the worker (a child
    subreaper): killing a worker's tree this way needs nothing from inside a sandbox."""
    try:
        root = psutil.Process(pid)
        root.suspend()
        tree = root.children(recursive=True)
    except psutil.Error:
        tree, root = [], None
    for process in tree:
        try:
            process.suspend()
        except psutil.Error:
            pass
    for process in [root, *tree]:
        if process is not None:
            _kill(process)


def kill_descendants(root: psutil.Process | None = None, spare: set[int] = frozenset(),
                     rounds: int = 50) -> list[int]:
    """Kill every descendant of ``root`` (default: this process) but the processes ``spare``
    (not what is below them); reap them.

    Repeats until none are left, so a process that forks while being killed is caught
    on the next round.  Returns the pids that were killed.
    """
    root = root or psutil.Process()
    killed: list[int] = []
    for _ in range(rounds):
        try:
            children = [p for p in root.children(recursive=True) if p.pid not in spare]
        except psutil.NoSuchProcess:
            break
        alive = []
        for child in children:
            try:
                if child.status() == psutil.STATUS_ZOMBIE:
                    _reap(child.pid)
                    continue
            except psutil.NoSuchProcess:
                continue
            alive.append(child)
        if not alive:
            break
        for child in alive:
            _kill(child)
            killed.append(child.pid)
        psutil.wait_procs(alive, timeout=1)
        for child in alive:
            _reap(child.pid)
        time.sleep(0.01)
    return killed


def _reap(pid: int) -> None:
    """Collect the exit status of a direct child so it does not linger as a zombie."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    except OSError:
        pass


def processes_with_token(token: str) -> list[psutil.Process]:
    """Processes whose environment carries this batch's token (best effort)."""
    found = []
    needle = f"{TOKEN_VARIABLE}={token}"
    for process in psutil.process_iter(["pid"]):
        if process.pid == os.getpid():
            continue
        try:
            with open(f"/proc/{process.pid}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            try:
                environ = "\0".join(f"{k}={v}" for k, v in process.environ().items()).encode()
            except (psutil.Error, OSError):
                continue
        if needle.encode() in environ.split(b"\0"):
            found.append(process)
    return found


def kill_processes_with_token(token: str) -> list[int]:
    """Kill whatever still carries the token; returns their pids."""
    victims = processes_with_token(token)
    for process in victims:
        _kill(process)
    psutil.wait_procs(victims, timeout=2)
    for process in victims:
        _reap(process.pid)
    return [p.pid for p in victims]
