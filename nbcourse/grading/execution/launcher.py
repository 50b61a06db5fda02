"""The one way a grading kernel starts, sandboxed or not: a warm process that becomes it.

``LAUNCHER`` is the only kernel launcher.  It imports the slow modules (ipykernel,
numpy, pandas, nbcourse), says ``ready`` and waits on its stdin; given a submission it
writes the notebook into its home, sets its limits before any student code, makes
``quit()`` harmless, and becomes the IPython kernel.  ``WarmKernel`` starts it ahead of
need, inside bubblewrap (``--sandbox bwrap``) or as a plain process in a throw-away home
(``--sandbox off``), in a cgroup of its own where the machine offers one; the imports
run while the previous submission is graded.  Each warm kernel serves one submission.

Ending one never depends on anything its inside can change: its cgroup is emptied, the
sandbox's pid 1 (which takes its whole PID namespace with it) and the process group are
killed, and the worker, a child subreaper, kills anything else below it.
"""
from __future__ import annotations

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
from .limits import bytes_or_unlimited
from .sandbox import (HOME, SandboxConfig, bwrap_command, kernel_environment, prepare_channel,
                      release_channel, remove_tree)

#: Run as ``python -c LAUNCHER``: import the slow modules, wait for the submission, set
#: the limits, write the notebook into the home, then become an IPython kernel.
LAUNCHER = r"""
import json, os, resource, sys
# the grading worker bounds its own memory with a soft RLIMIT_DATA; the kernel has its own
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
sys.stdout.write("ready\n")
sys.stdout.flush()
line = sys.stdin.readline()
if not line:
    os._exit(0)
job = json.loads(line)
with open(job["notebook_path"], "w", encoding="utf-8") as handle:
    handle.write(job["notebook"])
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
for which, value in ((resource.RLIMIT_AS, job["memory"]), (resource.RLIMIT_FSIZE, job["file_size"]),
                     (resource.RLIMIT_NPROC, job["tasks"]), (resource.RLIMIT_CORE, 0)):
    if value >= 0:
        resource.setrlimit(which, (value, value))
from ipykernel.zmqshell import ZMQInteractiveShell
def _ask_exit(self):
    # quit()/exit() in a graded notebook ends nothing: the answers defined so far are
    # still read, so the result is the same on every run
    self.nbcourse_asked_exit = True
ZMQInteractiveShell.ask_exit = _ask_exit
sys.argv = ["nbcourse-grading-kernel"] + job["args"]
from ipykernel.kernelapp import launch_new_instance
launch_new_instance()
"""


class WarmKernel:
    """A started kernel process that has imported everything and waits for one submission."""

    def __init__(self, config: SandboxConfig, base: Path, token: str = ""):
        self.config = config
        self.channel = Path(tempfile.mkdtemp(prefix="channel-", dir=base))
        os.chmod(self.channel, 0o700)
        self.home = ""  # without a sandbox: the kernel's throw-away home on the host
        self.init_pid: int | None = None  # the sandbox's pid 1, seen from the host
        self.out_of_memory = False
        self.cgroup = cgroups.create(config.cgroups, self.channel.name, config.limits)
        program = [sys.executable, "-c", LAUNCHER]
        if config.kind == "bwrap":
            prepare_channel(config, self.channel)
            command, env, cwd = bwrap_command(config, self.channel, program), None, None
        else:
            self.home = tempfile.mkdtemp(prefix="home-", dir=base)
            os.mkdir(os.path.join(self.home, ".tmp"))
            command, cwd = program, self.home
            env = kernel_environment(config, self.home, token)
        paths = self.cgroup
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True, env=env, cwd=cwd,
            preexec_fn=(lambda: cgroups.enter(paths)) if paths else None)
        self.pid = self.process.pid

    @property
    def notebook_path(self) -> str:
        return f"{self.home or HOME}/submission.ipynb"

    def wait_ready(self, timeout: float = 60.0) -> bool:
        """True once the kernel has imported its modules and waits for a job."""
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                if selector.select(timeout=max(0.0, deadline - time.monotonic())):
                    ready = self.process.stdout.readline().strip() == b"ready"
                    if ready and self.config.kind == "bwrap":
                        self.init_pid = self._namespace_init()
                    return ready
            return False
        finally:
            selector.close()

    def _namespace_init(self) -> int | None:
        """bwrap's child: pid 1 of the sandbox's PID namespace."""
        try:
            children = psutil.Process(self.pid).children()
        except psutil.Error:
            return None
        return children[0].pid if len(children) == 1 else None

    def start_kernel(self, args: list[str], notebook: str) -> None:
        """Hand over the submission: the kernel starts with ``args`` (ipykernel's options)."""
        limits = self.config.limits
        # RLIMIT_AS as well as the cgroup: one process that asks for too much gets a
        # MemoryError it can recover from; the cgroup bounds the sum of all of them
        job = {"args": args, "notebook": notebook, "notebook_path": self.notebook_path,
               "memory": bytes_or_unlimited(limits.memory_mb),
               "file_size": bytes_or_unlimited(limits.file_size_mb),
               # RLIMIT_NPROC counts every process of the user: only for the sandbox's user
               "tasks": -1 if self.cgroup or self.config.kind != "bwrap" else limits.tasks}
        self.process.stdin.write((json.dumps(job) + "\n").encode())
        self.process.stdin.flush()
        self.process.stdin.close()

    def kill(self) -> None:
        """End everything the kernel started, then remove its folders and cgroup."""
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
            self.out_of_memory = cgroups.oom_kills(self.cgroup) > 0
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
