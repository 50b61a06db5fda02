"""The one way a grading kernel starts, sandboxed or not: forked from a kernel server.

``LAUNCHER`` (the source of ``kernel_server.py``) is the only kernel launcher.  It
imports the slow modules (ipykernel, numpy, pandas, nbcourse) once, says ``ready`` and serves the worker on its stdin: for
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
and its pipes to the worker are closed in every kernel.  In a sandbox the server is
pid 1, which no process inside can kill or stop (see ``sandbox.bwrap_command``); only
with ``--sandbox off`` can a kernel kill or stop it, which ends the server as above.
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

from . import cgroups, kernel_server
from .folder_state import folder_state, reset_folder
from .limits import bytes_or_unlimited
from .processes import kill_descendants
from .sandbox import (HOME, SandboxConfig, bwrap_command, kernel_environment,
                      open_to_sandbox_user, prepare_channel, release_channel, remove_tree,
                      seccomp_fd)

#: Run as ``python -c LAUNCHER FOLDER...``: the kernel server (``kernel_server.py``, a
#: module of its own so that it is read, linted and tested as code), given as its source
#: so that nothing but what it imports itself is on its path.
LAUNCHER = Path(kernel_server.__file__).read_text(encoding="utf-8")

# Not in GradingLimits: waits of the grader's own, which no submission can lengthen.
#: How long the server may take to empty the sandbox's folders after a submission (tmpfs
#: folders of a few hundred MB: well under a second); a slower wipe counts as failed and
#: the sandbox is replaced, which is always safe.
WIPE_SECONDS = 5.0
#: How long ``kill`` waits for bwrap to end once it and its cgroup are killed; its end is
#: not needed for safety (nothing inside outlives its namespace's pid 1).
KILLED_SECONDS = 5.0
#: The pause between two looks at a forked kernel (``ForkedKernel.wait``): how often, not
#: how long (its caller's timeout bounds that).
POLL_SECONDS = 0.02


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
            time.sleep(POLL_SECONDS)
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
        if config.cgroups and not self.cgroup:  # fail closed: never weaker than recorded
            release_channel(self.channel)
            raise cgroups.Unavailable(
                f"the sandbox's cgroup could not be made under {config.cgroups['memory']}, "
                "so its memory and tasks would not be bounded as results.json records "
                f"(cgroup v{config.cgroups['version']}); the submission was not run")
        passed: list[int] = []  # the seccomp filter's descriptor, for bwrap
        try:
            self.process = self._start(config, base, token, passed)
        except BaseException:  # nothing of a server that never started is left behind
            for fd in passed:
                os.close(fd)
            cgroups.kill(self.cgroup)
            release_channel(self.channel)
            if self.home:
                remove_tree(Path(self.home))
            raise
        self.pid = self.process.pid

    def _start(self, config: SandboxConfig, base: Path, token: str,
               passed: list[int]) -> subprocess.Popen:
        """Prepare the channel (and, without a sandbox, the home) and start the server;
        ``passed`` receives the descriptors handed to it, closed here once it has them.

        ``python -c`` without ``-I``: ``-I`` implies ``-E``, which would drop the kernels'
        ``PYTHONHASHSEED=0`` (``kernel_environment``) and with it the same set order, so
        the same result, on every run; the current folder ``-c`` puts on ``sys.path`` is
        removed first thing (``kernel_server.prepare_interpreter``)."""
        if config.kind == "bwrap":
            prepare_channel(config, self.channel)
            folders = [HOME, "/tmp", "/dev/shm"]
            program = [sys.executable, "-c", LAUNCHER, *folders]
            passed.append(seccomp_fd(self.channel))
            command, env, cwd = bwrap_command(config, self.channel, program, *passed), None, None
        else:
            self.home = tempfile.mkdtemp(prefix="home-", dir=base)
            os.mkdir(os.path.join(self.home, ".tmp"))
            command = [sys.executable, "-c", LAUNCHER, self.home]
            env, cwd = kernel_environment(config, self.home, token), self.home
        # the channel as every kernel must find it: restored to this after each (end_kernel)
        self._channel_first = folder_state(self.channel)
        paths = self.cgroup
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True, env=env, cwd=cwd, pass_fds=tuple(passed),
            preexec_fn=(lambda: cgroups.enter(paths)) if paths else None)
        while passed:  # bwrap has its own copy
            os.close(passed.pop())
        return process

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

    def _send(self, request: dict, timeout: float) -> dict:
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

    def hand_over(self, path: str | Path) -> None:
        """Make ``path``, a file the grader wrote into the channel (the notebook, the
        connection file), the sandbox user's, who must read it (a root grader's sandboxes
        run as ``config.run_as``; otherwise the kernel is the grader's own user)."""
        open_to_sandbox_user(self.config, Path(path), own=True)

    def start_kernel(self, args: list[str], notebook: str) -> ForkedKernel:
        """Fork the kernel for one submission: it starts with ``args`` (ipykernel's options)."""
        limits = self.config.limits
        # RLIMIT_AS as well as the cgroup: one process that asks for too much gets a
        # MemoryError it can recover from; the cgroup bounds the sum of all of them
        # the notebook (its code cells' sources only: notebook_file.for_the_kernel) reaches the
        # kernel as a file in the channel, never through the server's memory (which every
        # later kernel is a fork of)
        handed = self.channel / "submission.ipynb"
        with open(os.open(handed, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w",
                  encoding="utf-8") as handle:
            handle.write(notebook)
        self.hand_over(handed)
        job = {"args": args, "notebook": str(handed), "notebook_path": self.notebook_path,
               "memory": bytes_or_unlimited(limits.memory_mb),
               "file_size": bytes_or_unlimited(limits.file_size_mb),
               "tasks": process_limit(self.config, self.cgroup, limits.tasks)}
        self.out_of_memory = False
        self._oom_before = cgroups.oom_kills(self.cgroup) if self.cgroup else 0
        pid = self._send({"kernel": job}, timeout=limits.start_timeout).get("pid")
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
            reply = self._send({"wipe": True}, timeout=WIPE_SECONDS) if self.healthy else {}
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
            self.process.wait(timeout=KILLED_SECONDS)
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


def process_limit(config, cgroup: list, tasks: int) -> int:
    """RLIMIT_NPROC for a kernel: -1 (none) where a cgroup's ``pids.max`` already bounds
    the whole submission, or where the kernel's user is not the sandbox's own (the limit
    counts every process of a user); ``tasks`` otherwise, also in a cgroup v1 without a
    pids controller (``cgroups.describe`` then says RLIMIT_NPROC too)."""
    if config.kind != "bwrap":
        return -1
    if cgroup and (config.cgroups or {}).get("pids"):
        return -1
    return tasks
