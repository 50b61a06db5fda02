"""The one way a grading kernel starts, sandboxed or not: forked from a kernel server.

``LAUNCHER`` is the only kernel launcher.  It imports the slow modules (ipykernel,
numpy, pandas, nbcourse) once, says ``ready`` and serves the worker on its stdin: for
each submission it forks a child that writes the notebook into the home, sets its
limits before any student code, makes ``quit()`` harmless and becomes the IPython
kernel; between submissions it empties the folders a kernel may write (its home,
``/tmp``, ``/dev/shm``).  Importing costs about a second of CPU; a fork costs a few
milliseconds, which is what makes a sandboxed batch fast.

``KernelServer`` runs it inside one bubblewrap sandbox per grading worker
(``--sandbox bwrap``) or as a plain process with a throw-away home (``--sandbox off``),
in a cgroup of its own where the machine offers one.  After each submission the worker
(from outside, by pid) kills every process of the sandbox but its pid 1 and the
server, the server empties the writable folders and says what is left, and the worker
checks both again and restores the channel folder itself (``folder_state.reset_folder``: its
mode, owner, ACLs, attributes, flags and times, which the sandbox's user may change);
the next submission gets the sandbox only if all of it held.
Anything else (a server that does not answer, a process that survived, a file left,
a kill at the deadline) ends the whole sandbox, and the next submission gets a new one.

Nothing a kernel does reaches the server: the server is not dumpable (no
``/proc/<pid>/mem``), the seccomp filter refuses ``ptrace`` and ``process_vm_writev``,
and its pipes to the worker are closed in every kernel.  A kernel can only kill or
stop it, which ends the sandbox as above.
"""
from __future__ import annotations

import dataclasses
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from . import cgroups
from .folder_state import folder_state, reset_folder
from .limits import bytes_or_unlimited
from .processes import kill_descendants
from .sandbox import (HOME, SandboxConfig, bwrap_command, kernel_environment, prepare_channel,
                      release_channel, remove_tree)

#: Run as ``python -c LAUNCHER FOLDER...``: import the slow modules, then serve the worker.
#: A line ``{"kernel": job}`` forks a kernel (reply ``{"pid": ...}``); ``{"wipe": true}``,
#: sent once the worker has killed every other process, kills anything left in the
#: sandbox and empties each FOLDER (reply ``{"left": [...]}``, what could not be removed).
#: Nothing of a submission passes through the server's own memory (a fork would carry
#: it to the next kernel): the job names the notebook's file, the kernel copies it, and
#: the folders are emptied by a child of the server.
LAUNCHER = r"""
import ctypes, json, os, random, resource, shutil, signal, sys
from pathlib import Path
# the grading worker bounds its own memory with a soft RLIMIT_DATA; kernels have their own
resource.setrlimit(resource.RLIMIT_DATA, (resource.getrlimit(resource.RLIMIT_DATA)[1],) * 2)
if sys.path and sys.path[0] == "":
    del sys.path[0]
# no debugger in a grading kernel: ipykernel would import debugpy (about 100 modules,
# 0.2 s of CPU for every submission) when it starts
sys.modules["debugpy"] = None
for name in ("ipykernel.kernelapp", "ipykernel.zmqshell", "numpy", "pandas", "scipy.sparse",
             "nbcourse", "nbcourse.datasets"):
    try:
        __import__(name)
    except Exception:
        pass
from ipykernel.kernelapp import launch_new_instance
from ipykernel.zmqshell import ZMQInteractiveShell
from nbcourse.grading.execution.sandbox import remove_tree

def _ask_exit(self):
    # quit()/exit() in a graded notebook ends nothing: the answers defined so far are
    # still read, so the result is the same on every run
    self.nbcourse_asked_exit = True
ZMQInteractiveShell.ask_exit = _ask_exit
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_DUMPABLE = 4
libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no kernel may open this process's memory
# what a wipe keeps: the mount points below the folders (the channel, when the grader's
# TMPDIR is /tmp) and the folders on the way to them, each with its first mode
mounts = [line.split()[4].replace("\\040", " ") for line in open("/proc/self/mountinfo")]
kept = {}
for folder in sys.argv[1:]:
    kept[folder] = os.stat(folder)
    for point in mounts:
        if point.startswith(folder.rstrip("/") + "/"):
            path = point
            while path != folder:
                kept.setdefault(path, os.stat(path))
                path = os.path.dirname(path)

def reap(*_):
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return

def wipe():
    # each folder as it was: empty, no extended attribute (ACLs included), its first mode
    # and times; returns the names of what could not be removed
    left = []
    for folder, first in kept.items():
        if folder in mounts and folder not in sys.argv[1:]:
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

def tidy():
    # kill every other process of the sandbox, then empty its folders in a child
    if os.getpid() == 1:  # the sandbox's pid 1: -1 is every process of the sandbox but this
        # one, killed at once (no process forking meanwhile escapes it)
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
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(reading)
        try:
            os.write(writing, json.dumps(wipe()).encode()[:60000])
        finally:
            os._exit(0)
    os.close(writing)
    with os.fdopen(reading, "rb") as handle:
        reply = handle.read(60001)
    try:
        os.waitpid(child, 0)  # gone before the reply: the worker counts what is left
    except ChildProcessError:
        pass  # reaped already, by the SIGCHLD handler
    try:
        return json.loads(reply)
    except ValueError:
        return ["the folders could not be emptied"]

def become_kernel(job):
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # how a kernel is interrupted
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, 65536)  # the server's pipes to the worker among them
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")  # out of memory, a kernel goes first, not the server
    except OSError:
        pass
    os.makedirs(os.environ["TMPDIR"], exist_ok=True)
    shutil.copyfile(job["notebook"], job["notebook_path"])
    for which, value in ((resource.RLIMIT_AS, job["memory"]), (resource.RLIMIT_FSIZE, job["file_size"]),
                         (resource.RLIMIT_NPROC, job["tasks"]), (resource.RLIMIT_CORE, 0)):
        if value >= 0:
            resource.setrlimit(which, (value, value))
    random.seed()  # a fork shares the server's random state: each kernel draws its own
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    sys.argv = ["nbcourse-grading-kernel"] + job["args"]
    launch_new_instance()

signal.signal(signal.SIGCHLD, reap)  # kernels, and in a sandbox every orphan inside
signal.signal(signal.SIGINT, signal.SIG_IGN)
requests, replies = sys.stdin, sys.stdout
replies.write("ready\n")
replies.flush()
for line in requests:
    request = json.loads(line)
    if "wipe" in request:
        reap()
        reply = {"left": tidy()}
    else:
        pid = os.fork()
        if pid == 0:
            try:
                become_kernel(request["kernel"])
            finally:
                os._exit(0)
        reply = {"pid": pid}
    replies.write(json.dumps(reply) + "\n")
    replies.flush()
"""


class ForkedKernel:
    """The kernel as jupyter_client sees its process (``poll``, ``kill``, ...): a child of
    the kernel server, so nothing here waits for it; it is watched by pid."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None
        try:
            self._process: psutil.Process | None = psutil.Process(pid)
        except psutil.Error:
            self._process, self.returncode = None, -signal.SIGKILL

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                if self._process.status() == psutil.STATUS_ZOMBIE:
                    self.returncode = -signal.SIGKILL
            except psutil.Error:
                self.returncode = -signal.SIGKILL
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired("kernel", timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            try:
                self._process.send_signal(signum)
            except psutil.Error:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


class KernelServer:
    """A started kernel server (in a sandbox, or not) that forks one kernel per submission.

    ``healthy`` turns False when anything about a submission's end did not hold; the
    worker then kills the server (``kill``) and starts a new one.
    """

    def __init__(self, config: SandboxConfig, base: Path, token: str = "",
                 sockets: Path | None = None):
        self.config = config
        # the channel holds the kernel's sockets: in ``sockets`` when ``base`` is too deep
        self.channel = Path(tempfile.mkdtemp(prefix="channel-", dir=sockets or base))
        os.chmod(self.channel, 0o700)
        self.home = ""  # without a sandbox: the kernels' throw-away home on the host
        self.init_pid: int | None = None  # the sandbox's pid 1, seen from the host
        self.server_pid: int | None = None  # the process that forks kernels, seen from the host
        self.kernel: ForkedKernel | None = None
        self.out_of_memory = False  # of the last kernel
        self.healthy = True
        self.ready = False
        self._oom_before = 0
        self._killed = False
        self._first_state: tuple | None = None
        self.cgroup = cgroups.create(config.cgroups, self.channel.name, config.limits)
        if config.kind == "bwrap":
            prepare_channel(config, self.channel)
            folders = [HOME, "/tmp", "/dev/shm"]
            program = [sys.executable, "-c", LAUNCHER, *folders]
            command, env, cwd = bwrap_command(config, self.channel, program), None, None
        else:
            self.home = tempfile.mkdtemp(prefix="home-", dir=base)
            os.mkdir(os.path.join(self.home, ".tmp"))
            command = [sys.executable, "-c", LAUNCHER, self.home]
            env, cwd = kernel_environment(config, self.home, token), self.home
        # the channel as every kernel must find it: restored to this after each (end_kernel)
        self._channel_first = folder_state(self.channel)
        paths = self.cgroup
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True, env=env, cwd=cwd,
            preexec_fn=(lambda: cgroups.enter(paths)) if paths else None)
        self.pid = self.process.pid

    @property
    def notebook_path(self) -> str:
        return f"{self.home or HOME}/submission.ipynb"

    def _read_line(self, timeout: float) -> bytes:
        """One line from the server, or b"" if none came in time (or it is gone)."""
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        try:
            if selector.select(timeout=timeout):
                return self.process.stdout.readline()
            return b""
        finally:
            selector.close()

    def _send(self, request: dict, timeout: float = 10.0) -> dict:
        try:
            self.process.stdin.write((json.dumps(request) + "\n").encode())
            self.process.stdin.flush()
            return json.loads(self._read_line(timeout) or b"{}")
        except (OSError, ValueError):
            return {}

    def wait_ready(self, timeout: float | None = None) -> bool:
        """True once the server has imported its modules and waits for a submission
        (within ``timeout`` seconds; by default the limits' ``start_timeout``)."""
        if not self.ready and self.healthy:
            if timeout is None:
                timeout = self.config.limits.start_timeout
            self.ready = self._read_line(timeout).strip() == b"ready"
            if self.ready and self.config.kind == "bwrap":  # the server is the sandbox's pid 1
                self.init_pid = self.server_pid = self._only_child(self.pid)
                self.ready = self.server_pid is not None
            elif self.ready:
                self.server_pid = self.pid
            self.healthy = self.ready
            self._first_state = self._server_state() if self.ready else None
        return self.ready

    def channel_intact(self) -> bool:
        """Is the channel empty, and the folder itself as the grader made it (its times
        aside)?  Checked before every kernel (``worker.KernelServers.take``)."""
        try:
            now = folder_state(self.channel)
            empty = not os.listdir(self.channel)
        except OSError:
            return False
        return empty and dataclasses.replace(now, times=self._channel_first.times) == \
            self._channel_first

    def _server_state(self) -> tuple | None:
        """What every kernel inherits from the server and a kernel of the same user could
        change from outside it: its resource limits, priority, scheduling and CPUs."""
        try:
            server = psutil.Process(self.server_pid)
            with open(f"/proc/{self.server_pid}/limits") as handle:  # prlimit may be refused
                limits = handle.read()
            return (limits, server.nice(), tuple(server.ionice()), tuple(server.cpu_affinity()),
                    os.sched_getscheduler(self.server_pid))
        except (psutil.Error, OSError):
            return None

    @staticmethod
    def _only_child(pid: int | None) -> int | None:
        try:
            children = psutil.Process(pid).children() if pid else []
        except psutil.Error:
            return None
        return children[0].pid if len(children) == 1 else None

    def chain(self) -> set[int]:
        """The processes that outlive a submission: bwrap and the server (its pid 1)."""
        return {pid for pid in (self.pid, self.init_pid, self.server_pid) if pid}

    def sweep_after(self) -> list[int]:
        """Kill what a submission left below this worker: all but the chain, or, while the
        server is still importing (no submission has been inside yet), all but the server
        and what is below it (as root, its start-up runs short-lived mount commands)."""
        if self.healthy and not self.ready:
            return kill_descendants(spare_below=self.pid)
        return kill_descendants(spare=self.chain() if self.healthy else set())

    def start_kernel(self, args: list[str], notebook: str) -> ForkedKernel:
        """Fork the kernel for one submission: it starts with ``args`` (ipykernel's options)."""
        limits = self.config.limits
        # RLIMIT_AS as well as the cgroup: one process that asks for too much gets a
        # MemoryError it can recover from; the cgroup bounds the sum of all of them
        # the notebook reaches the kernel as a file in the channel, never through the
        # server's memory (which every later kernel is a fork of)
        handed = self.channel / "submission.ipynb"
        with open(os.open(handed, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w",
                  encoding="utf-8") as handle:
            handle.write(notebook)
        if self.config.run_as >= 0:
            os.chown(handed, self.config.run_as, self.config.run_as)
        job = {"args": args, "notebook": str(handed), "notebook_path": self.notebook_path,
               "memory": bytes_or_unlimited(limits.memory_mb),
               "file_size": bytes_or_unlimited(limits.file_size_mb),
               # RLIMIT_NPROC counts every process of the user: only for the sandbox's user
               "tasks": -1 if self.cgroup or self.config.kind != "bwrap" else limits.tasks}
        self.out_of_memory = False
        self._oom_before = cgroups.oom_kills(self.cgroup) if self.cgroup else 0
        pid = self._send({"kernel": job}).get("pid")
        if not isinstance(pid, int):
            self.healthy = False
            raise RuntimeError("the kernel server did not start a kernel")
        self.kernel = ForkedKernel(self._host_pid(pid))
        return self.kernel

    def _host_pid(self, pid: int) -> int:
        """The kernel's pid on the host, from its pid inside the sandbox."""
        if self.config.kind != "bwrap":
            return pid
        try:
            for child in psutil.Process(self.server_pid).children():
                with open(f"/proc/{child.pid}/status") as handle:
                    for line in handle:
                        if line.startswith("NSpid:") and int(line.split()[-1]) == pid:
                            return child.pid
        except (psutil.Error, OSError, ValueError):
            pass
        self.healthy = False
        raise RuntimeError("the kernel server's new kernel cannot be found")

    def end_kernel(self) -> bool:
        """After a submission: kill everything it started, empty the writable folders and
        check that nothing is left; False (and the server killed) if anything did not hold.

        The killing and the checks are done from outside, by pid: below bwrap (whose
        descendants are every process of the sandbox) or below the server without one."""
        if self.kernel is not None:
            self.kernel.kill()
            self.kernel = None
        if self.cgroup:
            self.out_of_memory = cgroups.oom_kills(self.cgroup) > self._oom_before
        if self.healthy and self.ready:
            root = psutil.Process(self.pid)
            if self.cgroup:  # forking stopped while the cgroup's members are killed
                self.healthy = cgroups.kill_all_but(self.cgroup, self.chain(),
                                                    self.config.limits.tasks)
            kill_descendants(root, spare=self.chain())
            reply = self._send({"wipe": True}, timeout=5.0) if self.healthy else {}
            self.healthy = (reply.get("left") == [] and self._only_chain_left(root)
                            and self._server_state() == self._first_state is not None)
        # the channel is the one host folder bound into the sandbox, and its user's: a
        # kernel may have changed the folder itself (its mode, an ACL, an attribute), not
        # only what is in it.  It is restored and checked, or the sandbox is replaced.
        channel_left = reset_folder(self.channel, self._channel_first)
        self.healthy = self.healthy and channel_left == []
        if not self.healthy:
            self.kill()
        return self.healthy

    def _only_chain_left(self, root: psutil.Process) -> bool:
        """Are bwrap and the server alive, and nothing else below them?"""
        try:
            below = {p.pid for p in root.children(recursive=True)
                     if p.status() != psutil.STATUS_ZOMBIE}
            alive = root.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False
        return alive and below | {root.pid} == self.chain()

    def kill(self) -> None:
        """End the server and everything in its sandbox, then remove its folders and cgroup."""
        self.healthy = False
        if self._killed:
            return
        self._killed = True
        if self.init_pid is not None:  # its death ends every process in the namespace
            try:
                init = psutil.Process(self.init_pid)
                if init.ppid() == self.pid:
                    init.kill()
            except psutil.Error:
                pass
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.process.kill()
        except OSError:
            pass
        if self.cgroup:
            self.out_of_memory |= cgroups.oom_kills(self.cgroup) > self._oom_before
            cgroups.kill(self.cgroup)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        release_channel(self.channel)
        if self.home:
            remove_tree(Path(self.home))
