"""One bubblewrap sandbox per submission: what it may see, what it may use, and a self-test.

A submission's kernel runs inside ``bwrap`` with new user, PID, IPC, UTS, network and
mount namespaces.  Its file system is built from nothing: the Python environment and
the ``nbcourse`` package read-only, the data folders the loaders read (read-only), a
private size-limited home (its own copy of the notebook), ``/tmp`` and ``/dev/shm``,
and one folder on the grader's side that holds the kernel's connection file and its
ZeroMQ sockets: the only way out, opened by the grader for that sandbox alone.
Nothing else of the machine is there: no course folder, no other submission, no
output folder, no home directory, no network (not even the host's loopback).

The sandbox starts *before* the worker needs it (``WarmSandbox``): Python starts and
imports ipykernel, numpy and pandas while the previous submission is still running,
then waits on its stdin.  When the worker hands it a submission it writes the
notebook into its home, sets its limits (before any student code) and becomes the
kernel.  Each sandbox serves exactly one submission.

Memory: a cgroup v2 ``memory.max``/``pids.max`` for the whole sandbox where the grader
can create one (a delegated cgroup v2 tree with the memory controller), otherwise
per-process limits (``RLIMIT_AS``) plus a process count limit (``RLIMIT_NPROC``,
which Linux does not enforce for processes of the real root user).
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

SANDBOX_MODES = ("auto", "bwrap", "off")
HOME = "/home/student"
MAX_TASKS = 64  # processes and threads of one submission (ipykernel alone uses about 8)

#: Run inside the sandbox: import the slow modules, wait for the submission, set the
#: limits, write the notebook into the private home, then become an IPython kernel.
LAUNCHER = r"""
import json, os, resource, sys
if sys.path and sys.path[0] == "":
    del sys.path[0]
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


class SandboxUnavailable(RuntimeError):
    """bwrap cannot isolate a submission on this machine; the message says how to fix it."""


@dataclass
class SandboxConfig:
    """How workers confine kernels.  ``kind`` is ``bwrap`` or ``off``."""
    kind: str = "off"
    readonly: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)  # folders inside ``readonly`` masked empty
    env: dict[str, str] = field(default_factory=dict)
    memory_mb: int = 2048
    tmp_mb: int = 256
    home_mb: int = 128
    memory_limit: str = ""  # what limited memory, for results.json
    cgroup: str = ""        # parent cgroup v2 folder when the cgroup limit applies
    run_as: int = -1        # a grader running as root starts sandboxes as this user

    def to_json(self) -> dict:
        return asdict(self)

    def describe(self) -> dict:
        """What results.json records about the isolation of every submission."""
        if self.kind == "off":
            return {"sandbox": "off", "memory_limit": self.memory_limit}
        return {"sandbox": "bwrap", "memory_limit": self.memory_limit,
                "network": "none", "tmp_mb": self.tmp_mb,
                "user": f"uid {self.run_as}" if self.run_as >= 0 else "the grader's own user"}


# --------------------------------------------------------------------------- building
def _python_paths() -> list[str]:
    """Folders the kernel imports from: the interpreter, the environment, nbcourse."""
    import nbcourse

    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             str(Path(nbcourse.__file__).resolve().parent)}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            paths.add(sysconfig.get_paths()[key])
        except KeyError:
            pass
    for folder in site.getsitepackages():
        paths.add(folder)
    executable = Path(sys.executable)
    paths.add(str(executable.resolve().parent))
    existing = sorted({str(Path(p).resolve()) for p in paths if p and Path(p).exists()}
                      | {p for p in paths if p and Path(p).exists()})
    return _outermost(existing)


def _outermost(paths: list[str]) -> list[str]:
    kept: list[str] = []
    for path in sorted(set(paths)):
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept


def _data_paths() -> tuple[list[str], dict[str, str]]:
    """The corpora the loaders read, read-only, and the variables that point at them."""
    from nbcourse import datasets

    env: dict[str, str] = {}
    paths: list[str] = []
    try:
        shipped = datasets.shipped_data_dir()
        env["NBCOURSE_SHIPPED_DATA"] = str(shipped)
        paths.append(str(shipped))
    except Exception:  # noqa: BLE001 - no shipped data: the exercise will say so
        pass
    if os.environ.get("NBCOURSE_DATA") and Path(os.environ["NBCOURSE_DATA"]).is_dir():
        env["NBCOURSE_DATA"] = os.environ["NBCOURSE_DATA"]
        paths.append(os.environ["NBCOURSE_DATA"])
    cache = os.environ.get("NBCOURSE_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "nbcourse")
    if Path(cache).is_dir():
        env["NBCOURSE_CACHE"] = cache
        paths.append(cache)
    return [str(Path(p).resolve()) for p in paths], env


def _instructor_only() -> list[str]:
    """Folders of an installed package that hold solutions and grading specs.

    A wheel carries the whole course inside the package (``nbcourse/_course``), the
    exercise sources included; the sandbox sees the package, so those are masked."""
    import nbcourse
    from nbcourse import resources

    course = Path(nbcourse.__file__).resolve().parent / resources.PACKAGE_FOLDER
    hidden = []
    for prefix in resources.INSTRUCTOR_ONLY:
        path = course / prefix.rstrip("/")
        if prefix.endswith("/") and path.is_dir():
            hidden.append(str(path))
    return hidden


def make_config(mode: str, memory_mb: int = 2048) -> SandboxConfig:
    """The configuration for ``--sandbox MODE``; raises ``SandboxUnavailable`` for ``bwrap``
    (and ``auto``) when bubblewrap cannot isolate here."""
    if mode not in SANDBOX_MODES:
        raise ValueError(f"--sandbox must be one of {', '.join(SANDBOX_MODES)}, got {mode!r}")
    if mode == "off":
        return SandboxConfig("off", memory_mb=memory_mb,
                             memory_limit=f"per-process address space {memory_mb} MB (RLIMIT_AS); "
                                          "no sandbox")
    data, env = _data_paths()
    config = SandboxConfig("bwrap", readonly=_outermost(_python_paths() + data), env=env,
                           memory_mb=memory_mb, hidden=_instructor_only())
    if os.geteuid() == 0 and shutil.which("unshare") and shutil.which("setpriv"):
        # Never run a submission as root: from root, sandboxes start as an unprivileged
        # user (nobody by default), which also makes RLIMIT_NPROC count.
        config.run_as = int(os.environ.get("NBCOURSE_SANDBOX_UID", "65534"))
    config.cgroup = _cgroup_parent(memory_mb)
    if config.cgroup:
        config.memory_limit = (f"cgroup v2: {memory_mb} MB and {MAX_TASKS} tasks for the whole "
                               "submission")
    else:
        config.memory_limit = (f"per-process address space {memory_mb} MB (RLIMIT_AS) and at "
                               f"most {MAX_TASKS} tasks (RLIMIT_NPROC)")
        if os.geteuid() == 0 and config.run_as < 0:
            config.memory_limit += "; Linux does not enforce RLIMIT_NPROC for root"
    self_test(config)
    return config


def prepare_channel(config: SandboxConfig, channel: Path) -> None:
    """Make ``channel`` (and the way to it) usable by the sandbox's user."""
    if config.run_as >= 0:
        os.chmod(channel.parent, 0o711)  # traversable, not listable
        os.chown(channel, config.run_as, config.run_as)
        stage = _stage(channel)
        stage.mkdir(mode=0o755, exist_ok=True)


def _stage(channel: Path) -> Path:
    return channel.with_name(channel.name + "-stage")


def bwrap_command(config: SandboxConfig, channel: Path,
                  program: list[str] | None = None) -> list[str]:
    """The command line of one sandbox whose only writable host folder is ``channel``;
    it runs ``program`` (default: the kernel launcher).

    From root, the command first enters a private mount namespace in which every
    read-only folder is also mounted under a staging folder the unprivileged user can
    reach (``/root/.pyenv`` is not reachable from ``/root``), then drops to that user
    and starts bwrap, which binds each staged folder back at its own path.
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable("bwrap is not installed")
    sources = {path: path for path in config.readonly}
    if config.run_as >= 0:
        stage = _stage(channel)
        sources = {path: str(stage / str(number)) for number, path in enumerate(config.readonly)}
    command = [bwrap, "--unshare-all", "--die-with-parent", "--new-session",
               "--hostname", "nbcourse-sandbox"]
    for top in ("usr", "bin", "lib", "lib32", "lib64", "libx32", "sbin"):
        path = Path("/", top)
        if path.is_symlink():
            command += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            command += ["--ro-bind", str(path), str(path)]
    for name in ("ld.so.cache", "localtime", "nsswitch.conf"):
        if Path("/etc", name).exists():
            command += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    command += ["--proc", "/proc", "--dev", "/dev",
                "--size", str(config.tmp_mb * 2**20), "--tmpfs", "/tmp",
                "--size", str(config.tmp_mb * 2**20), "--tmpfs", "/dev/shm",
                "--size", str(config.home_mb * 2**20), "--tmpfs", HOME]
    for path in config.readonly:
        command += ["--ro-bind", sources[path], path]
    for path in config.hidden:  # an empty folder over what only the instructor may read
        command += ["--tmpfs", path, "--remount-ro", path]
    command += ["--bind", str(channel), str(channel), "--chdir", HOME, "--clearenv"]
    env = sandbox_environment(config)
    for name, value in env.items():
        command += ["--setenv", name, value]
    command += ["--", *(program or [sys.executable, "-c", LAUNCHER])]
    if config.run_as < 0:
        return command
    stage = _stage(channel)
    script = [f"mount -t tmpfs -o mode=755,size=1m nbcourse-stage {shlex.quote(str(stage))}"]
    for path, staged in sources.items():
        script.append(f"mkdir {shlex.quote(staged)} && mount --rbind {shlex.quote(path)} "
                      f"{shlex.quote(staged)}")
    user = str(config.run_as)
    script.append(f"exec setpriv --reuid={user} --regid={user} --clear-groups "
                  '"$@"')
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-ec",
            " && ".join(script), "nbcourse-sandbox", *command]


def sandbox_environment(config: SandboxConfig) -> dict[str, str]:
    env = {"PATH": os.path.dirname(sys.executable) + ":/usr/bin:/bin", "LANG": "C.UTF-8",
           "HOME": HOME, "TMPDIR": "/tmp", "MPLBACKEND": "Agg", "MPLCONFIGDIR": "/tmp/matplotlib",
           "IPYTHONDIR": f"{HOME}/.ipython", "JUPYTER_CONFIG_DIR": f"{HOME}/.jupyter",
           "JUPYTER_DATA_DIR": f"{HOME}/.jupyter-data", "PYTHONHASHSEED": "0",
           "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    env.update(config.env)
    return env


# --------------------------------------------------------------------------- cgroup v2
def _cgroup_parent(memory_mb: int) -> str:
    """A cgroup v2 folder under which this grader may create one cgroup per submission
    with ``memory.max`` and ``pids.max``; "" when the machine does not allow it."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
        relative = next(line.split("::", 1)[1] for line in lines if line.startswith("0::"))
        mounts = Path("/proc/self/mounts").read_text().splitlines()
        roots = [m.split()[1] for m in mounts if m.split()[2] == "cgroup2"]
    except (OSError, StopIteration, IndexError):
        return ""
    for root in roots:
        mine = Path(root) / relative.lstrip("/")
        try:
            controllers = (mine / "cgroup.controllers").read_text().split()
        except OSError:
            continue
        if "memory" not in controllers or "pids" not in controllers:
            continue
        parent = mine / f"nbcourse-{os.getpid()}"
        try:
            parent.mkdir(exist_ok=True)
            (parent / "cgroup.subtree_control").write_text("+memory +pids")
            return str(parent)
        except OSError:
            try:
                parent.rmdir()
            except OSError:
                pass
    return ""


def cgroup_for(config: SandboxConfig, name: str) -> str:
    """Create the cgroup of one sandbox; "" when cgroups are not used."""
    if not config.cgroup:
        return ""
    path = Path(config.cgroup) / name
    try:
        path.mkdir()
        (path / "memory.max").write_text(str(config.memory_mb * 2**20))
        (path / "memory.swap.max").write_text("0") if (path / "memory.swap.max").exists() else None
        (path / "pids.max").write_text(str(MAX_TASKS))
        return str(path)
    except OSError:
        return ""


def oom_kills(path: str) -> int:
    """How many processes of the cgroup the kernel killed for going over memory.max."""
    try:
        for line in Path(path, "memory.events").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def remove_cgroup(path: str) -> None:
    if not path:
        return
    try:
        Path(path, "cgroup.kill").write_text("1")
    except OSError:
        pass
    for _ in range(50):
        try:
            os.rmdir(path)
            return
        except OSError:
            time.sleep(0.02)


# --------------------------------------------------------------------------- warm sandboxes
class WarmSandbox:
    """A started sandbox that has imported everything and waits for one submission."""

    def __init__(self, config: SandboxConfig, base: Path):
        self.config = config
        self.channel = Path(tempfile.mkdtemp(prefix="channel-", dir=base))
        os.chmod(self.channel, 0o700)
        prepare_channel(config, self.channel)
        self.cgroup = cgroup_for(config, self.channel.name)
        self.out_of_memory = False
        cgroup = self.cgroup

        def enter_cgroup():  # runs in the child before bwrap starts: nothing escapes it
            if cgroup:
                with open(os.path.join(cgroup, "cgroup.procs"), "w") as handle:
                    handle.write(str(os.getpid()))

        self.process = subprocess.Popen(
            bwrap_command(config, self.channel), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
            preexec_fn=enter_cgroup if cgroup else None)
        self.pid = self.process.pid

    def wait_ready(self, timeout: float = 60.0) -> bool:
        """True once the sandbox has imported its modules and waits for a job."""
        import selectors
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if selector.select(timeout=max(0.0, deadline - time.monotonic())):
                line = self.process.stdout.readline()
                selector.close()
                return line.strip() == b"ready"
        selector.close()
        return False

    def start_kernel(self, args: list[str], notebook: str, memory: int, file_size: int) -> None:
        job = {"args": args, "notebook": notebook, "notebook_path": f"{HOME}/submission.ipynb",
               "memory": -1 if self.cgroup else memory, "file_size": file_size,
               "tasks": -1 if self.cgroup else MAX_TASKS}
        self.process.stdin.write((json.dumps(job) + "\n").encode())
        self.process.stdin.flush()
        self.process.stdin.close()

    def kill(self) -> None:
        """Kill the sandbox: bwrap's death takes its whole PID namespace with it."""
        try:
            os.killpg(self.pid, 9)
        except OSError:
            pass
        try:
            self.process.kill()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        if self.cgroup and oom_kills(self.cgroup):
            self.out_of_memory = True
        remove_cgroup(self.cgroup)
        shutil.rmtree(self.channel, ignore_errors=True)
        shutil.rmtree(_stage(self.channel), ignore_errors=True)


# --------------------------------------------------------------------------- self-test
SELF_TEST = r"""
import json, os, socket, sys
planted = sys.argv[1]
found = {"planted_visible": os.path.exists(planted),
         "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
         "uid_map": open("/proc/self/uid_map").read().split()}
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=2).close()
    found["network"] = True
except OSError:
    found["network"] = False
print(json.dumps(found))
"""


def self_test(config: SandboxConfig) -> None:
    """Prove that a sandbox really isolates: a file planted outside is invisible, the
    grader's processes are invisible, a server on the host's loopback is unreachable."""
    import socket

    if shutil.which("bwrap") is None:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed. Install it (Debian/Ubuntu: "
            "`sudo apt install bubblewrap`, Fedora: `sudo dnf install bubblewrap`) "
            "or grade with `--sandbox off` at your own risk (no isolation).")
    with tempfile.TemporaryDirectory(prefix="nbcourse-selftest-") as folder:
        planted = Path(folder, "planted-outside.txt")
        planted.write_text("the sandbox must not see this")
        channel = Path(folder, "channel")
        channel.mkdir()
        prepare_channel(config, channel)
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        command = bwrap_command(config, channel,
                                [sys.executable, "-c", SELF_TEST, str(planted), str(port)])
        try:
            run = subprocess.run(command, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise SandboxUnavailable(_how_to_fix(str(error))) from None
        finally:
            server.close()
    if run.returncode != 0:
        raise SandboxUnavailable(_how_to_fix(run.stderr.strip()[-500:]))
    try:
        found = json.loads(run.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise SandboxUnavailable(_how_to_fix(f"unexpected self-test output {run.stdout!r}"))
    problems = []
    if found["planted_visible"]:
        problems.append("a file planted outside is visible inside")
    if found["network"]:
        problems.append("the host's loopback network is reachable")
    if os.getpid() in found["processes"] or len(found["processes"]) > 3:
        problems.append(f"processes outside are visible ({found['processes'][:5]} ...)")
    if problems:
        raise SandboxUnavailable("bubblewrap runs but does not isolate: " + "; ".join(problems)
                                 + ". Grade with `--sandbox off` only at your own risk.")


def _how_to_fix(detail: str) -> str:
    return ("bubblewrap cannot create a sandbox on this machine"
            + (f" ({detail})" if detail else "") + ". It needs unprivileged user namespaces: "
            "on Debian/Ubuntu `sudo sysctl -w kernel.unprivileged_userns_clone=1`, on Ubuntu "
            "24.04+ also `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (or an "
            "AppArmor profile for bwrap); in a container, allow user namespaces (e.g. "
            "`--security-opt seccomp=unconfined`). Or grade with `--sandbox off` at your own "
            "risk: no isolation between submissions and your files.")
