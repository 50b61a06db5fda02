"""Run a command as an ordinary user (nobody) from root, as the grader's tests need.

Used by the tests that check a promise holds for a grader that is not root (issue 23).
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def blocked_folder(path: Path) -> Path | None:
    """The outermost folder on the way to ``path`` that others may not traverse."""
    for parent in reversed(path.parents):
        if parent != Path("/") and not parent.stat().st_mode & 0o001:
            return parent
    return None


def as_nobody(command: list[str], scratch: Path) -> list[str]:
    """``command`` run as nobody (from root), with the Python installation readable.

    pyenv keeps the interpreter under /root (mode 700), where nobody cannot load its
    library or standard library.  Then the command runs in a mount namespace of its
    own where that folder is a tmpfs holding only the installation, bound read-only at
    its own path; nothing changes on the host."""
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    installation = Path(sys.base_prefix).resolve()
    blocked = blocked_folder(installation)
    if blocked is None:
        return drop
    assert blocked_folder(REPO) is None and blocked_folder(Path(sys.prefix)) is None, \
        "the course and its environment must be readable by an ordinary user"
    kept = blocked / installation.relative_to(blocked).parts[0]
    stage = scratch / "stage"
    stage.mkdir()
    script = (f"mount --rbind {kept} {stage} && mount -t tmpfs -o mode=755 nbcourse-test "
              f"{blocked} && mkdir -p {kept} && mount --move {stage} {kept} && "
              f"mount -o remount,bind,ro {kept} && exec \"$@\"")
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-ec", script,
            "as-nobody", *drop]
