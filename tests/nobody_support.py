"""Run a command as an ordinary user (nobody) from root, as the grader's tests need.

Used by the tests that check a promise holds for a grader that is not root (issue 23).
The command needs to read the Python installation, the virtual environment and the
checkout; any of them may sit in a private folder (pyenv's under /root, a clone in
/root, in a home of mode 700 or in ``mktemp -d``: issue 39).  The tests arrange that
access themselves, inside a mount namespace of their own; nothing changes on the host.
"""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def blocked_folders(path: Path) -> list[Path]:
    """The folders on the way to ``path`` that others may not traverse, outermost first."""
    return [parent for parent in reversed(path.parents)
            if parent != Path("/") and not parent.stat().st_mode & 0o001]


def needed_paths() -> list[Path]:
    """What a command of the tests reads: the installation, the venv and the checkout."""
    found = []
    for path in (Path(sys.base_prefix).resolve(), Path(sys.prefix), Path(sys.prefix).resolve(),
                 REPO):
        if path not in found:
            found.append(path)
    return found


def exposing_script(paths: list[Path], scratch: Path) -> list[str]:
    """Shell commands that, run in a private mount namespace (as root, or as the root of
    a user namespace of its own), make every path of ``paths`` reachable by anyone at its
    own path, read-only.

    Each private folder on the way becomes, in the namespace only, a tmpfs of mode 755
    holding just the entries that lead to ``paths`` (each bound back in, read-only);
    outer folders first, so a private folder inside another is handled in turn."""
    kept: dict[Path, list[Path]] = {}
    for path in paths:
        for blocked in blocked_folders(path):
            child = blocked / path.relative_to(blocked).parts[0]
            if child not in kept.setdefault(blocked, []):
                kept[blocked].append(child)
    commands, stages = [], 0
    for blocked in sorted(kept, key=lambda folder: len(folder.parts)):
        binds = []
        for child in kept[blocked]:
            stage = scratch / f"stage-{stages}"
            stages += 1
            stage.mkdir()
            commands.append(f"mount --rbind {shlex.quote(str(child))} {shlex.quote(str(stage))}")
            binds.append((stage, child))
        commands.append(f"mount -t tmpfs -o mode=755 nbcourse-test {shlex.quote(str(blocked))}")
        for stage, child in binds:
            where = shlex.quote(str(child))
            commands += [f"mkdir -p {where}", f"mount --rbind {shlex.quote(str(stage))} {where}",
                         f"mount -o remount,bind,ro {where}"]
    return commands


def exposed(command: list[str], paths: list[Path], scratch: Path,
            unshare: tuple[str, ...] = ("--mount",)) -> list[str]:
    """``command`` run in a new mount namespace (``unshare``'s options) where ``paths``
    are reachable (``exposing_script``); ``command`` itself when none is private."""
    commands = exposing_script(paths, scratch)
    if not commands:
        return command
    script = " && ".join([*commands, 'exec "$@"'])
    return ["unshare", *unshare, "--propagation", "private", "--", "/bin/sh", "-ec", script,
            "exposed", *command]


def as_nobody(command: list[str], scratch: Path) -> list[str]:
    """``command`` run as nobody (from root), with the installation, the venv and the
    checkout readable (``exposed``); ``scratch``: an empty folder of the test's."""
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    return exposed(drop, needed_paths(), scratch)
