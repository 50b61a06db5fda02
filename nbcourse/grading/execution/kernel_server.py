"""The kernel server: the first program of every sandbox (and of ``--sandbox off``).

``launcher.KernelServer`` runs this file's source as ``python -c SOURCE FOLDER...``
(``launcher.LAUNCHER``), so nothing of the checkout's folders is on its path but what
it imports itself.  It imports the slow modules once, says ``ready`` and serves the
worker on its stdin, one JSON line per request:

- ``{"kernel": job}`` forks a kernel (reply ``{"pid": ...}``): the child writes the
  notebook into the home, sets its limits before any student code and becomes ipykernel;
- ``{"wipe": true}``, sent once the worker has killed every other process, kills anything
  left in the sandbox and empties each FOLDER (reply ``{"left": [...]}``, what stayed).

Nothing of a submission passes through the server's own memory (a fork would carry it to
the next kernel): the job names the notebook's file, the kernel copies it, and the folders
are emptied by a child of the server.  The server is not dumpable, so no kernel may open
its memory.
"""
import ctypes
import json
import os
import random
import resource
import shutil
import signal
import sys
from pathlib import Path

PR_SET_DUMPABLE = 4
#: imported once by the server, so that a forked kernel starts with them: the course's
#: libraries as the exercises import them, and what ipykernel and IPython import while
#: a kernel starts (its debugger, magics) or shows its first traceback (stack_data)
PRELOADED = ("ipykernel.kernelapp", "ipykernel.zmqshell", "numpy", "pandas", "scipy.sparse",
             "scipy.optimize", "nbcourse", "nbcourse.datasets", "nbcourse.naive_bayes",
             "nbcourse.linear", "nbcourse.text", "nbcourse.evaluation",
             "nbcourse.grading.selfcheck", "nbcourse.grading.execution.sandbox",
             "IPython.core.completerlib", "IPython.core.debugger", "IPython.core.logger",
             "IPython.extensions.storemagic", "tornado.queues", "tornado.platform.asyncio",
             "stack_data", "pygments.formatters.terminal256")
MAX_WIPE_REPLY = 60000  # bytes: what stayed is named, never a whole folder's listing


def prepare_interpreter() -> None:
    """Before any import: the kernels' own memory limit (the worker's is a soft
    RLIMIT_DATA), no current folder on the path, no debugger; then the slow imports."""
    resource.setrlimit(resource.RLIMIT_DATA, (resource.getrlimit(resource.RLIMIT_DATA)[1],) * 2)
    if sys.path and sys.path[0] == "":
        del sys.path[0]
    # ipykernel would import debugpy (about 100 modules, 0.2 s of CPU per submission)
    sys.modules["debugpy"] = None
    for name in PRELOADED:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - a kernel imports what it needs anyway
            pass
    from ipykernel.zmqshell import ZMQInteractiveShell
    ZMQInteractiveShell.ask_exit = _ask_exit


def _ask_exit(self) -> None:
    """quit()/exit() in a graded notebook ends nothing: the answers defined so far are
    still read, so the result is the same on every run."""
    self.nbcourse_asked_exit = True


def mount_points() -> list[str]:
    with open("/proc/self/mountinfo") as handle:
        return [line.split()[4].replace("\\040", " ") for line in handle]


def kept_folders(folders: list[str], mounts: list[str]) -> dict:
    """{path: first stat} of what a wipe keeps: the folders, the mount points below them
    (the channel, when the grader's TMPDIR is /tmp) and the folders on the way there."""
    kept = {}
    for folder in folders:
        kept[folder] = os.stat(folder)
        for point in mounts:
            if point.startswith(folder.rstrip("/") + "/"):
                path = point
                while path != folder:
                    kept.setdefault(path, os.stat(path))
                    path = os.path.dirname(path)
    return kept


def reap(*_) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def wipe(folders: list[str], kept: dict, mounts: list[str]) -> list[str]:
    """Each folder as it was: empty, no extended attribute (ACLs included), its first
    mode and times; returns what could not be removed."""
    from nbcourse.grading.execution.sandbox import remove_tree
    left = []
    for folder, first in kept.items():
        if folder in mounts and folder not in folders:
            continue  # a mount of the grader's (the channel): emptied from outside
        try:
            for name in os.listxattr(folder):
                os.removexattr(folder, name)
            os.chmod(folder, first.st_mode & 0o7777)
            for name in os.listdir(folder):
                if os.path.join(folder, name) not in kept:
                    remove_tree(Path(folder, name))
            left += [path for path in (os.path.join(folder, name) for name in os.listdir(folder))
                     if path not in kept]
            left += [f"{folder}: {name}" for name in os.listxattr(folder)]
            os.utime(folder, ns=(first.st_atime_ns, first.st_mtime_ns))
        except OSError as error:
            left.append(f"{folder}: {error.strerror}")
    return left


def kill_the_rest() -> None:
    """As the sandbox's pid 1, kill every other process in it at once (-1: no process
    forking meanwhile escapes), and collect them."""
    if os.getpid() != 1:
        return
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    try:
        while True:
            os.wait()
    except ChildProcessError:
        pass
    signal.signal(signal.SIGCHLD, reap)


def tidy(folders: list[str], kept: dict, mounts: list[str]) -> list[str]:
    """Kill every other process of the sandbox, then empty its folders in a child."""
    kill_the_rest()
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(reading)
        try:
            os.write(writing, json.dumps(wipe(folders, kept, mounts)).encode()[:MAX_WIPE_REPLY])
        finally:
            os._exit(0)
    os.close(writing)
    with os.fdopen(reading, "rb") as handle:
        reply = handle.read(MAX_WIPE_REPLY + 1)
    try:
        os.waitpid(child, 0)  # gone before the reply: the worker counts what is left
    except ChildProcessError:
        pass  # reaped already, by the SIGCHLD handler
    try:
        return json.loads(reply)
    except ValueError:
        return ["the folders could not be emptied"]


def close_inherited() -> None:
    """Close every descriptor above 2, whatever its number: up to the highest open one and
    the hard ``RLIMIT_NOFILE`` (a fixed bound missed those above it)."""
    try:
        highest = max(int(name) for name in os.listdir("/proc/self/fd"))
    except (OSError, ValueError):
        highest = 0
    os.closerange(3, max(highest, resource.getrlimit(resource.RLIMIT_NOFILE)[1]) + 1)


def become_kernel(job: dict, libc) -> None:
    """In the forked child: a session of its own, no inherited descriptor (the server's
    pipes to the worker among them), the submission's limits, then ipykernel."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # how a kernel is interrupted
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    close_inherited()
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")  # out of memory, a kernel goes first, not the server
    except OSError:
        pass
    os.makedirs(os.environ["TMPDIR"], exist_ok=True)
    shutil.copyfile(job["notebook"], job["notebook_path"])
    for which, value in ((resource.RLIMIT_AS, job["memory"]),
                         (resource.RLIMIT_FSIZE, job["file_size"]),
                         (resource.RLIMIT_NPROC, job["tasks"]), (resource.RLIMIT_CORE, 0)):
        if value >= 0:
            resource.setrlimit(which, (value, value))
    random.seed()  # a fork shares the server's random state: each kernel draws its own
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    sys.argv = ["nbcourse-grading-kernel"] + job["args"]
    from ipykernel.kernelapp import launch_new_instance
    launch_new_instance()


def serve(folders: list[str]) -> None:
    """Answer the worker's requests until it closes the pipe."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no kernel may open this process's memory
    mounts = mount_points()
    kept = kept_folders(folders, mounts)
    signal.signal(signal.SIGCHLD, reap)  # kernels, and in a sandbox every orphan inside
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests, replies = sys.stdin, sys.stdout
    replies.write("ready\n")
    replies.flush()
    for line in requests:
        request = json.loads(line)
        if "wipe" in request:
            reap()
            reply = {"left": tidy(folders, kept, mounts)}
        else:
            pid = os.fork()
            if pid == 0:
                try:
                    become_kernel(request["kernel"], libc)
                finally:
                    os._exit(0)
            reply = {"pid": pid}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


if __name__ == "__main__":
    prepare_interpreter()
    serve(sys.argv[1:])
