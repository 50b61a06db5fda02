"""A folder as a process of its owner may leave it, and how the grader brings it back.

The kernel's channel is a folder of the grader's bound into the sandbox and owned by the
sandbox's user: besides what is in it, a kernel can change the folder itself (its mode,
an ACL, an extended attribute, inode flags, times), and the next kernel of that sandbox
would find it so.  ``folder_state`` takes the folder as the grader made it;
``reset_folder`` restores it after each kernel, empties it, and says what still differs.
"""
from __future__ import annotations

import array
import fcntl
import os
import stat
import struct
from dataclasses import dataclass
from pathlib import Path

from .sandbox import remove_tree

#: ioctls of the inode flags ``chattr`` sets (no dump, no access times, ...): an owner may
#: set some of them without any capability.
FS_IOC_GETFLAGS, FS_IOC_SETFLAGS = 0x80086601, 0x40086602


@dataclass(frozen=True)
class FolderState:
    """What a process of the folder's owner can change on a folder itself, not in it:
    mode, owner, extended attributes (POSIX ACLs are two of them), inode flags, times."""
    mode: int
    uid: int
    gid: int
    xattrs: tuple
    flags: int | None
    times: tuple


def _inode_flags(path: Path) -> int | None:
    """The folder's inode flags, or None where its file system has none."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        flags = array.array("i", [0])
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, flags)
        return flags[0]
    except OSError:
        return None
    finally:
        os.close(fd)


def folder_state(path: Path) -> FolderState:
    """The state of folder ``path`` itself (``reset_folder`` brings it back)."""
    info = os.lstat(path)
    names = sorted(os.listxattr(path, follow_symlinks=False))
    xattrs = tuple((name, os.getxattr(path, name, follow_symlinks=False)) for name in names)
    return FolderState(info.st_mode, info.st_uid, info.st_gid, xattrs, _inode_flags(path),
                       (info.st_atime_ns, info.st_mtime_ns))


def chmod_folder(path, mode: int) -> None:
    """Set the mode of folder ``path`` itself, never of what a link there points to.

    ``os.chmod(..., follow_symlinks=False)`` is ``fchmodat(AT_SYMLINK_NOFOLLOW)``, which
    glibc before 2.32 refuses for every file (Python raises NotImplementedError): there the
    mode is set through ``/proc/self/fd`` on a descriptor opened without following a link,
    which is what newer glibc does itself."""
    try:
        os.chmod(path, mode, follow_symlinks=False)
    except NotImplementedError:
        fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY)
        try:
            os.chmod(f"/proc/self/fd/{fd}", mode)
        finally:
            os.close(fd)


def reset_folder(path: Path, first: FolderState) -> list[str]:
    """Bring folder ``path`` back to ``first`` and empty it; then check it: returns what
    differs still (nothing when it is as it was).

    The grader is the folder's owner or root, so it can undo whatever a process of the
    owner did to it: a mode without write access (given first, so that the rest can be
    undone), an ACL, an extended attribute, inode flags, another owner, times."""
    left: list[str] = []
    try:
        if os.path.islink(path) or not os.path.isdir(path):
            return [f"{path} is no longer a folder"]
        chmod_folder(path, 0o700)
        kept = dict(first.xattrs)
        for name in os.listxattr(path, follow_symlinks=False):
            if name not in kept:
                os.removexattr(path, name, follow_symlinks=False)
        for name, value in first.xattrs:
            if os.getxattr(path, name, follow_symlinks=False) != value:
                os.setxattr(path, name, value, follow_symlinks=False)
        if first.flags is not None and _inode_flags(path) != first.flags:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            try:
                fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("i", first.flags))
            finally:
                os.close(fd)
        if (os.lstat(path).st_uid, os.lstat(path).st_gid) != (first.uid, first.gid):
            os.chown(path, first.uid, first.gid, follow_symlinks=False)
        chmod_folder(path, stat.S_IMODE(first.mode))
        for entry in os.listdir(path):
            remove_tree(Path(path, entry))
        left += [f"{path}: {name} is left" for name in os.listdir(path)]
        os.utime(path, ns=first.times, follow_symlinks=False)
        now = folder_state(path)
    except OSError as error:
        return left + [f"{path}: {error.strerror or error}"]
    for what in ("mode", "uid", "gid", "xattrs", "flags", "times"):
        if getattr(now, what) != getattr(first, what):
            left.append(f"{path}: its {what} cannot be restored")
    return left
