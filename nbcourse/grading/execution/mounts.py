"""A channel of its own for each sandbox: a small tmpfs in the grading worker's own mount
namespace, so no kernel can fill the grader's disk through it, and nothing of it outlives
the worker.

The channel is the one host folder bound into a sandbox (it holds the kernel's sockets),
so it must be mounted outside the sandbox, by the worker.  A root worker needs only a
mount namespace (``CLONE_NEWNS``); an ordinary user's worker first makes a user namespace
that maps its own user to itself (``CLONE_NEWUSER``), which gives it the right to mount in
that namespace and nothing on the host.  Both must happen while the worker has one thread.
Where the machine refuses (user namespaces disabled), the channel stays a plain folder and
``results.json`` says so.
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .limits import MB

MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 16384, 1 << 18
MNT_DETACH = 2
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000

_private = False  # has this process a mount namespace of its own (private_mounts)?
#: Not in GradingLimits (before any submission): how long trying the mounts may take (an
#: interpreter's start and two system calls); slower counts as "cannot", plain folders.
TRY_SECONDS = 15.0

#: A worker's environment: numerical libraries start threads when imported, and a process
#: with more than one thread cannot make a user namespace (the worker computes nothing).
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _map_own_user(uid: int, gid: int) -> None:
    """Inside a new user namespace: be the same user and group as outside, nothing more."""
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")


class HalfMade(OSError):
    """This process has a namespace of its own that could not be finished (its user not
    mapped, or its mounts still shared with the host): it must not grade in it."""


def private_mounts() -> bool:
    """Give this process (a grading worker, single-threaded still) mounts of its own, so
    each channel can be a sized tmpfs that disappears with it whatever happens.  False if
    the machine refuses the namespace (nothing changed); ``HalfMade`` if it was made but
    a later step failed, since there is no way back to the host's."""
    global _private
    libc = _libc()
    flags = CLONE_NEWNS if os.geteuid() == 0 else CLONE_NEWUSER | CLONE_NEWNS
    uid, gid = os.getuid(), os.getgid()  # as the host knows them, before the unshare
    if libc.unshare(flags) != 0:
        return False
    try:
        if flags & CLONE_NEWUSER:
            _map_own_user(uid, gid)
        if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
            raise OSError(ctypes.get_errno(), "cannot make the mounts private")
    except OSError as error:
        raise HalfMade(f"a new mount namespace could not be finished ({error})") from None
    _private = True
    return True


def has_private_mounts() -> bool:
    return _private


def mount_channel(channel: Path, megabytes: int) -> None:
    """Mount a tmpfs of ``megabytes`` (and few files) on ``channel``; needs private_mounts."""
    options = f"size={megabytes * MB},mode=700,nr_inodes=64".encode()
    if _libc().mount(b"nbcourse-channel", str(channel).encode(), b"tmpfs",
                     MS_NOSUID | MS_NODEV | MS_NOEXEC, options) != 0:
        raise OSError(ctypes.get_errno(), "cannot mount the channel's tmpfs")


def unmount_channel(channel: Path) -> None:
    if _private:
        _libc().umount2(str(channel).encode(), MNT_DETACH)


def _try_mounts() -> bool:
    """Make the mounts a worker would make, and undo them: run in a fresh interpreter of
    its own (``user_mounts_work``), so this process keeps its mount namespace."""
    folder = Path(tempfile.mkdtemp())
    try:
        made = private_mounts()
        if made:
            mount_channel(folder, 1)
            unmount_channel(folder)
    finally:
        folder.rmdir()
    return made


def user_mounts_work() -> bool:
    """Can an ordinary user's worker give its channels a tmpfs on this machine?  Asked of
    this module run as a program (``python -I -m``), as ``_try_mounts``."""
    try:
        # -I (isolated, as in workers.Worker): no folder named nbcourse where it starts
        return subprocess.run([sys.executable, "-I", "-m", __name__], capture_output=True,
                              env={**os.environ, **ONE_THREAD}, timeout=TRY_SECONDS).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


if __name__ == "__main__":
    sys.exit(0 if _try_mounts() else 1)
