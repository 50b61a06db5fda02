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
#: The pause between two rounds of ``kill_descendants`` (a process forking while it is
#: killed shows up in the next round): how often, not how long (``rounds`` bounds that).
ROUND_SECONDS = 0.01


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


def _sessions(pids) -> set[int]:
    """The sessions of ``pids`` (and of this process): never signalled as a whole."""
    found = {os.getsid(0)}
    for pid in pids:
        try:
            found.add(os.getsid(pid))
        except OSError:
            pass
    return found


def _kill_with_group(process: psutil.Process, kept_sessions: set[int]) -> bool:
    """SIGKILL ``process`` and, when it is in a session a submission made (not one of
    ``kept_sessions``), its whole process group at once; True when there was such a group.
    A process that forks and exits over and over is gone before a kill by pid reaches it,
    but its children inherit its group, and the kernel signals a group in one step that
    no fork slips through."""
    foreign = False
    try:
        if os.getsid(process.pid) not in kept_sessions:
            foreign = True
            os.killpg(os.getpgid(process.pid), signal.SIGKILL)
    except OSError:
        pass
    _kill(process)
    return foreign


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
                     rounds: int = 50, spare_below: int | None = None) -> list[int]:
    """Kill every descendant of ``root`` (default: this process) but the processes ``spare``
    (not what is below them) and, if given, ``spare_below`` with all below it; reap them.

    Repeats until none are left, so a process that forks while being killed is caught
    on the next round.  A zombie counts too: one that a submission's process left in a
    session of its own names that session's group, whose live members (a process that
    forks and exits over and over is short-lived enough to be missed by every list)
    are killed with it.  Returns the pids that were killed.
    """
    root = root or psutil.Process()
    kept = _sessions([root.pid, *spare, *([spare_below] if spare_below else [])])
    killed: list[int] = []
    for _ in range(rounds):
        try:
            children = [p for p in root.children(recursive=True) if p.pid not in spare
                        and not _below(p, spare_below)]
        except psutil.NoSuchProcess:
            break
        if not children:
            break
        for child in children:
            foreign = _kill_with_group(child, kept)
            if _is_alive(child) or (foreign and _parent(child) == root.pid):  # an orphan
                killed.append(child.pid)
        psutil.wait_procs(children, timeout=1)
        for child in children:
            _reap(child.pid)
        time.sleep(ROUND_SECONDS)
    return killed


def _parent(process: psutil.Process) -> int | None:
    try:
        return process.ppid()
    except psutil.Error:
        return None


def _is_alive(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _below(process: psutil.Process, ancestor: int | None) -> bool:
    if ancestor is None:
        return False
    try:
        return process.pid == ancestor or any(p.pid == ancestor for p in process.parents())
    except psutil.Error:
        return False


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
    kept = _sessions([])
    for process in victims:
        _kill_with_group(process, kept)
    psutil.wait_procs(victims, timeout=2)
    for process in victims:
        _reap(process.pid)
    return [p.pid for p in victims]
