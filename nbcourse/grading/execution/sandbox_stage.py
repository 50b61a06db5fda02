"""A root grader's first step of every sandbox: run by ``sandbox.bwrap_command`` (as
``unshare --mount -- python -I -S -c SOURCE STAGE SOURCE TARGET ... -- COMMAND...``) in a
mount namespace of its own, before it drops to the sandbox's unprivileged user.

That user cannot reach every folder the sandbox shows (a Python under ``/root`` is not
reachable from ``/root``), so each is bound, in this namespace only, under ``STAGE``, a
small tmpfs anyone may traverse: ``SOURCE`` at ``TARGET``, a folder made inside ``STAGE``.
Then it becomes ``COMMAND`` (``setpriv`` to that user, then bwrap).  Nothing of it is a
shell script; a failed mount ends it with the reason, before any sandbox starts.
"""
import ctypes
import os
import sys

MS_BIND, MS_REC = 4096, 16384


def _mount(libc, source: str, target: str, kind, flags: int, options) -> None:
    if libc.mount(source.encode(), target.encode(), kind, flags, options) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"cannot mount {source} on {target}: {os.strerror(number)}")


def stage(folder: str, pairs: list[tuple[str, str]]) -> None:
    """Mount a 1 MB tmpfs on ``folder``, then bind each (source, target) there."""
    libc = ctypes.CDLL(None, use_errno=True)
    _mount(libc, "nbcourse-stage", folder, b"tmpfs", 0, b"mode=755,size=1m")
    for source, target in pairs:
        os.mkdir(target)
        _mount(libc, source, target, None, MS_BIND | MS_REC, None)


def parse(argv: list[str]) -> tuple[str, list[tuple[str, str]], list[str]]:
    """(STAGE, [(SOURCE, TARGET), ...], COMMAND) from the arguments."""
    if "--" not in argv:
        raise ValueError("expected STAGE SOURCE TARGET ... -- COMMAND")
    split = argv.index("--")
    folder, *paths = argv[:split]
    command = argv[split + 1:]
    if len(paths) % 2 or not command:
        raise ValueError("expected STAGE SOURCE TARGET ... -- COMMAND")
    return folder, list(zip(paths[::2], paths[1::2])), command


if __name__ == "__main__":
    stage_folder, staged, then = parse(sys.argv[1:])
    stage(stage_folder, staged)
    os.execvp(then[0], then)
