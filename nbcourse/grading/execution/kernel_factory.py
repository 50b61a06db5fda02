"""Fresh kernels in a tenth of the time: fork them from a process that has imported everything.

Starting an IPython kernel and importing numpy, pandas and nbcourse costs about
0.6 s of CPU, more than running a whole exercise.  A *kernel factory* pays it once:
it imports those modules (running no student code, starting no thread), then, for
each submission, forks a child that sets its limits, moves into the submission's
throw-away folder, replaces its environment and becomes the kernel.  Every kernel is
still a new process with its own memory, so one submission cannot see another.

The grading worker starts one factory and talks to it over a pipe; if the factory
dies (a hostile kernel may kill its parent), the worker starts a new one.  When the
factory cannot be used at all, kernels are started the ordinary way; setting
``NBCOURSE_GRADING_FACTORY=0`` does that on purpose (to compare, or to debug).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

#: Imported once by the factory; a student's ``import pandas`` is then instant.
PRELOAD = ("ipykernel.kernelapp", "numpy", "pandas", "scipy.sparse", "nbcourse",
           "nbcourse.datasets", "nbcourse.grading")

FACTORY_CODE = """\
# nbcourse-kernel-factory
import json, os, resource, signal, sys
if sys.path and sys.path[0] == "":
    del sys.path[0]
for name in sys.argv[1:]:
    try:
        __import__(name)
    except Exception:
        pass
from ipykernel.kernelapp import launch_new_instance

def reap(*_):
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return

signal.signal(signal.SIGCHLD, reap)
requests, replies = sys.stdin, sys.stdout
for line in requests:
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:
        try:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.setsid()
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.closerange(3, 65536)
            memory, file_size = request["memory"], request["file_size"]
            for which, value in ((resource.RLIMIT_AS, memory),
                                 (resource.RLIMIT_FSIZE, file_size), (resource.RLIMIT_CORE, 0)):
                if value >= 0:
                    resource.setrlimit(which, (value, value))
            os.chdir(request["cwd"])
            os.environ.clear()
            os.environ.update(request["env"])
            sys.argv = ["nbcourse-grading-kernel"] + request["args"]
            launch_new_instance()
        finally:
            os._exit(0)
    replies.write(json.dumps({"pid": pid}) + "\\n")
    replies.flush()
"""


class KernelFactory:
    """The worker's handle on its factory process."""

    def __init__(self, env: dict[str, str], cwd: Path):
        self.env = env
        self.cwd = cwd
        self.process: subprocess.Popen | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", FACTORY_CODE, *PRELOAD],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=self.env, cwd=self.cwd, text=True, bufsize=1)

    def spawn(self, args: list[str], cwd: str, env: dict[str, str], memory: int,
              file_size: int) -> int:
        """Fork a kernel; returns its pid (also its process group and session id)."""
        for attempt in range(2):
            if self.process is None or self.process.poll() is not None:
                self.close()
                self.start()
            request = {"args": args, "cwd": cwd, "env": env, "memory": memory,
                       "file_size": file_size}
            try:
                self.process.stdin.write(json.dumps(request) + "\n")
                self.process.stdin.flush()
                line = self.process.stdout.readline()
                return int(json.loads(line)["pid"])
            except (OSError, ValueError, KeyError, TypeError):
                self.close()
        raise RuntimeError("the kernel factory did not answer")

    def close(self) -> None:
        if self.process is None:
            return
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdout,):
            try:
                stream.close()
            except OSError:
                pass
        self.process = None


class ForkedProcess:
    """Enough of ``subprocess.Popen`` for jupyter_client to manage a forked kernel."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None
        try:
            self._process = psutil.Process(pid)
        except psutil.NoSuchProcess:
            self._process = None
            self.returncode = -signal.SIGKILL

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                running = self._process.is_running() and \
                    self._process.status() != psutil.STATUS_ZOMBIE
            except psutil.NoSuchProcess:
                running = False
            if not running:
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
        try:
            os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


def forked_provisioner(km, factory: KernelFactory, limits_memory: int, limits_file_size: int):
    """A jupyter_client provisioner whose kernels come from ``factory``."""
    from jupyter_client.provisioning import LocalProvisioner

    class ForkedProvisioner(LocalProvisioner):
        async def launch_kernel(self, cmd, **kwargs):
            # cmd is [python, -c, LAUNCHER, memory, file_size, -f, connection, options...]
            pid = factory.spawn(list(cmd[5:]), cwd=str(kwargs.get("cwd") or os.getcwd()),
                                env=dict(kwargs.get("env") or {}), memory=limits_memory,
                                file_size=limits_file_size)
            self.process = ForkedProcess(pid)
            self.pid = pid
            self.pgid = pid
            self.cwd = kwargs.get("cwd")
            return self.connection_info

    return ForkedProvisioner(kernel_id=km.kernel_id or "nbcourse", kernel_spec=km.kernel_spec,
                             parent=km)
