"""The bubblewrap sandbox a submission runs in: what it may see and use, and a self-test.

A submission's kernel runs inside ``bwrap`` with new user, PID, IPC, UTS, network and
mount namespaces.  Its file system is built from nothing: the Python environment and
the ``nbcourse`` package read-only, the data folders the loaders read (read-only), a
private size-limited home (its own copy of the notebook), ``/tmp`` and ``/dev/shm``
(the only places it can write: bwrap's own root and ``/dev`` are remounted read-only),
and one folder on the grader's side that holds the kernel's connection file and its
ZeroMQ sockets: the only way out, opened by the grader for that sandbox alone (a small
tmpfs of its own where the worker can make a mount namespace).  A grading worker keeps one sandbox and
runs one submission after another in it, emptied in between (``launcher``).  Nothing else of the machine is there: no
course folder, no other submission, no output folder, no home directory, no network
(not even the host's loopback).

Inside, the kernel has no capability (``--cap-drop ALL``), may not make user
namespaces (``--disable-userns``), and a seccomp filter refuses the system calls a
notebook never needs and an attack does: ``mount``, ``unshare``, ``ptrace`` (so the
sandbox's pid 1 cannot be rewritten), ``memfd_create``, ``keyctl`` and a few more.
Memory and tasks are counted for the whole sandbox by a cgroup where the machine offers
one (``cgroups``), else per process; a grader running as root starts every sandbox as
an unprivileged user, and stops when it cannot (it never runs bwrap as real root).
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
import weakref
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import cgroups, mounts, sandbox_probe, sandbox_stage
from .limits import MB, GradingLimits

SANDBOX_MODES = ("auto", "bwrap", "off")
HOME = "/home/student"
#: a root grader starts its sandboxes as this user (by default 65534, nobody)
UID_VARIABLE = "NBCOURSE_SANDBOX_UID"

#: System calls refused inside the sandbox (EPERM): none is needed by a notebook, each
#: was used by an attack (mounting an unsized tmpfs in a nested namespace, memory that
#: no per-process limit counts, rewriting the sandbox's pid 1) or is kernel attack surface.
DENIED_SYSCALLS = (
    "mount", "umount2", "pivot_root", "unshare", "setns", "fsopen", "fsmount", "fsconfig",
    "move_mount", "open_tree", "mount_setattr", "ptrace", "process_vm_readv",
    "process_vm_writev", "kcmp", "memfd_create", "memfd_secret", "keyctl", "add_key",
    "request_key", "bpf", "perf_event_open", "userfaultfd", "open_by_handle_at",
    "name_to_handle_at", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "swapon", "swapoff", "reboot", "acct", "quotactl", "syslog",
    # System V and POSIX message-queue objects outlive their processes, and no notebook
    # needs them: refused, so nothing one submission makes is there for the next
    "shmget", "semget", "msgget", "mq_open",
    # io_uring does file and network work outside the calls this filter sees, and is
    # much of the kernel's recent attack surface; no notebook needs it
    "io_uring_setup", "io_uring_enter", "io_uring_register",
)


#: Calls that change another process of the same user (the kernel server, which every
#: later kernel is a fork of: its limits, priority) when the pid argument at that
#: position is not 0 (the caller itself); refused then.  The scheduling calls
#: (``sched_setscheduler``, ``sched_setaffinity``) cannot be refused so: ZeroMQ names
#: its own threads by id and aborts on a refusal; a server changed through them is
#: noticed from outside and replaced (``launcher.KernelServer``).
OTHER_PROCESS_CALLS = (("prlimit64", 0), ("setpriority", 1), ("ioprio_set", 1),
                       ("migrate_pages", 0), ("move_pages", 0))


@dataclass(frozen=True)
class CourseFolders:
    """What of the course a sandbox shows, read-only: the installed package, the corpora
    folders (``data``, with the variables that name them, ``env``), and the folders inside
    the package it masks (``hidden``: solutions and specs)."""
    package: str = ""
    data: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    hidden: list[str] = field(default_factory=list)


class SandboxUnavailable(RuntimeError):
    """bwrap cannot isolate a submission on this machine; the message says how to fix it."""


@dataclass
class SandboxConfig:
    """How workers confine kernels.  ``kind`` is ``bwrap`` or ``off``; ``limits``, the
    batch's, are always given (no default: see ``GradingLimits``)."""
    kind: str = "off"
    readonly: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)  # folders inside ``readonly`` masked empty
    env: dict[str, str] = field(default_factory=dict)  # where the corpora are
    limits: GradingLimits = field(kw_only=True)
    cgroups: dict = field(default_factory=dict)  # cgroups.find_parents(), {} without
    run_as: int = -1        # a grader running as root starts sandboxes as this user
    worker_mounts: bool = False  # workers mount each channel's tmpfs (mounts.py)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "SandboxConfig":
        data = dict(data)
        if not isinstance(data.get("limits"), dict):
            raise ValueError("a sandbox configuration holds the batch's limits")
        data["limits"] = GradingLimits.from_json(data["limits"])
        return cls(**data)

    @property
    def private_channel(self) -> bool:
        """Does each channel get a sized tmpfs of its own?  A root grader's workers mount
        it, an ordinary user's where the machine lets them make user namespaces (mounts.py);
        a worker that cannot says so in its own configuration (``worker.own_mounts``)."""
        return self.kind == "bwrap" and self.worker_mounts

    def describe(self) -> dict:
        """What results.json records about the isolation of every submission."""
        limits = self.limits
        enforced = cgroups.describe(self.cgroups, limits, kind=self.kind)
        enforced["worker_memory"] = (
            f"{limits.worker_memory_mb} MB of data for each grading worker, the process "
            "that reads what a kernel sends (RLIMIT_DATA)" if limits.worker_memory_mb > 0
            else "not limited")
        if self.kind == "off":
            if not (self.cgroups or {}).get("pids"):  # see launcher.process_limit
                enforced["tasks"] = ("not limited (--sandbox off runs kernels as the grader's "
                                     "own user, whose every process RLIMIT_NPROC would count)")
            return {"sandbox": "off", "memory_limit": enforced["memory"], **enforced,
                    "file_size": f"{limits.file_size_mb} MB per file (RLIMIT_FSIZE)"}
        channel = (f"a tmpfs of {limits.channel_mb} MB" if self.private_channel else
                   f"a folder in the grader's TMPDIR, files up to {limits.file_size_mb} MB "
                   "each (RLIMIT_FSIZE), their number not limited")
        return {"sandbox": "bwrap", "memory_limit": enforced["memory"], **enforced,
                "network": "none", "tmp_mb": limits.tmp_mb, "home_mb": limits.home_mb,
                "channel": channel, "capabilities": "none (--cap-drop ALL)",
                "user_namespaces": "disabled (--disable-userns)",
                "seccomp": "refuses " + ", ".join(DENIED_SYSCALLS[:12]) + ", ...",
                "file_size": f"{limits.file_size_mb} MB per file (RLIMIT_FSIZE)",
                "writable": "the home, /tmp, /dev/shm and the channel folder (the "
                            "kernel's sockets) only",
                "between_submissions": (
                    "one sandbox per grading worker; its kernel server (pid 1) forks a "
                    "kernel per submission; afterwards every other process is killed, "
                    "the writable folders emptied and the channel folder restored (mode, "
                    "owner, ACLs, attributes, flags), or the sandbox is replaced"),
                "user": f"uid {self.run_as}" if self.run_as >= 0 else "the grader's own user"}


# --------------------------------------------------------------------------- building
def _python_paths(package: str) -> list[str]:
    """Folders the kernel imports from: the interpreter, the environment, ``package``."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, package}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            paths.add(sysconfig.get_paths()[key])
        except KeyError:
            pass
    for folder in site.getsitepackages():
        paths.add(folder)
    executable = Path(sys.executable)
    paths.add(str(executable.resolve().parent))
    existing = sorted({str(Path(p).resolve()) for p in paths if _reachable(p)}
                      | {p for p in paths if _reachable(p)})
    return _outermost(existing)


def _reachable(path: str) -> bool:
    """Does ``path`` exist for this user (an ordinary user may not reach /root/...)?"""
    try:
        return bool(path) and Path(path).exists()
    except OSError:
        return False


def _outermost(paths: list[str]) -> list[str]:
    kept: list[str] = []
    for path in sorted(set(paths)):
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept


def make_config(mode: str, limits: GradingLimits, folders: CourseFolders, batch: str = ""
                ) -> SandboxConfig:
    """The configuration for ``--sandbox MODE`` under the batch's ``limits``, with the
    course's ``folders`` (found by ``grading.course_folders``); raises ``SandboxUnavailable``
    for ``bwrap`` (and ``auto``) when bubblewrap cannot isolate here.  Creates the batch's
    cgroup parents, labelled ``batch`` (``cgroups.batch_label``): ``release`` removes them,
    and so does dropping the configuration or the end of this process, if they are empty."""
    if mode not in SANDBOX_MODES:
        raise ValueError(f"--sandbox must be one of {', '.join(SANDBOX_MODES)}, got {mode!r}")
    if not isinstance(limits, GradingLimits):
        raise TypeError(f"limits must be the batch's GradingLimits, got {type(limits).__name__}")
    env = dict(folders.env)
    if mode == "off":
        config = SandboxConfig("off", env=env, limits=limits)
    else:
        if shutil.which("bwrap") is None:
            raise SandboxUnavailable(
                "bubblewrap (bwrap) is not installed. Install it (Debian/Ubuntu: "
                "`sudo apt install bubblewrap`, Fedora: `sudo dnf install bubblewrap`) "
                "or grade with `--sandbox off` at your own risk (no isolation).")
        readonly = _python_paths(folders.package) + folders.data
        config = SandboxConfig("bwrap", readonly=_outermost(readonly), env=env,
                               limits=limits, hidden=list(folders.hidden))
        if os.geteuid() == 0:
            # Never run a submission as root, nor bwrap with root's capabilities: from
            # root, sandboxes start as an unprivileged user (nobody by default).
            missing = [name for name in ("unshare", "setpriv") if shutil.which(name) is None]
            if missing:
                raise SandboxUnavailable(
                    f"the grader runs as root and {' and '.join(missing)} "
                    f"{'is' if len(missing) == 1 else 'are'} not installed, so a sandbox "
                    "would run as root. Install util-linux (Debian/Ubuntu: `sudo apt install "
                    "util-linux`), or grade as an ordinary user.")
            config.run_as = sandbox_uid()
            config.worker_mounts = True
        else:
            config.worker_mounts = mounts.user_mounts_work()
        seccomp_program()  # fails here, loudly, if the filter cannot be built
    config.cgroups = cgroups.find_parents(batch)
    if config.cgroups:  # a configuration made and never released leaves no folder either
        weakref.finalize(config, _drop_parents, os.getpid(), dict(config.cgroups))
    if mode != "off":
        try:
            self_test(config)
        except BaseException:
            release(config)
            raise
    return config


def sandbox_uid() -> int:
    """The unprivileged user a root grader starts sandboxes as: ``NBCOURSE_SANDBOX_UID``,
    or nobody.  Anything but a whole number above 0 stops the batch: 0 is root, and a
    negative number would start bwrap itself as root."""
    given = os.environ.get(UID_VARIABLE, "65534")
    if not (given.isascii() and given.isdigit() and int(given) > 0):
        raise SandboxUnavailable(
            f"{UID_VARIABLE}={given!r} cannot be the sandbox's user: a root grader starts "
            "every sandbox as an unprivileged user, a whole number above 0 (by default "
            "65534, nobody); 0, or a negative number, would run bwrap or the submissions "
            "as root")
    return int(given)


def _drop_parents(maker: int, parents: dict) -> None:
    """The cgroup parents of a configuration that is gone, removed if empty; only in the
    process that made them (a forked child inherits the finalizer, not the batch)."""
    if os.getpid() == maker:
        cgroups.remove_parents(parents)


def release(config: SandboxConfig) -> int:
    """End every sandbox of the batch still alive (by its cgroup) and remove the cgroups;
    returns how many processes were still there."""
    return cgroups.sweep(config.cgroups)


# --------------------------------------------------------------------------- seccomp
_SECCOMP: bytes | None = None


def seccomp_program() -> bytes:
    """The compiled seccomp filter (classic BPF, built by libseccomp for this machine's
    architectures, x32 included): every call in ``DENIED_SYSCALLS`` fails with EPERM."""
    global _SECCOMP
    if _SECCOMP is None:
        try:
            import pyseccomp
        except (ImportError, OSError, AttributeError) as error:
            raise SandboxUnavailable(
                f"the seccomp filter cannot be built ({error}): libseccomp is missing "
                "(Debian/Ubuntu: `sudo apt install libseccomp2`)") from None
        program = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
        refuse = pyseccomp.ERRNO(errno.EPERM)
        rules = [(name, ()) for name in DENIED_SYSCALLS]
        rules += [(name, (pyseccomp.Arg(position, pyseccomp.NE, 0),))
                  for name, position in OTHER_PROCESS_CALLS]
        # setpriority(PRIO_PGRP or PRIO_USER, 0) reaches the server too; ioprio_set likewise
        rules += [("setpriority", (pyseccomp.Arg(0, pyseccomp.NE, 0),)),
                  ("ioprio_set", (pyseccomp.Arg(0, pyseccomp.NE, 1),))]
        for name, conditions in rules:
            try:
                program.add_rule(refuse, name, *conditions)
            except (OSError, ValueError, RuntimeError):
                pass  # a call this architecture does not have
        with tempfile.TemporaryFile() as handle:
            program.export_bpf(handle)
            handle.seek(0)
            _SECCOMP = handle.read()
    return _SECCOMP


def _seccomp_file(channel: Path) -> Path:
    return channel.with_name(channel.name + ".bpf")


def seccomp_fd(channel: Path) -> int:
    """The seccomp filter ``prepare_channel`` wrote next to ``channel``, open for reading:
    the descriptor ``bwrap_command`` names, handed to bwrap with ``pass_fds`` (the caller
    closes it once the sandbox has started)."""
    return os.open(_seccomp_file(channel), os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)


# --------------------------------------------------------------------------- the sandbox's user
def open_to_sandbox_user(config: SandboxConfig, path: Path, *, own: bool) -> None:
    """The one place the grader opens a host path to the user a root grader's sandboxes run
    as (``run_as``; an ordinary grader's kernels are its own user: nothing changes then).
    ``own``: ``path`` becomes that user's (the channel, and each file the grader hands in
    through it: the notebook, the connection file); otherwise ``path`` is a folder on the
    way to a channel, made traversable but not listable."""
    if config.run_as < 0:
        return
    if own:  # never through a link the sandbox's user may have put in the channel
        os.chown(path, config.run_as, config.run_as, follow_symlinks=False)
    else:
        os.chmod(path, 0o711)


# --------------------------------------------------------------------------- the channel
def prepare_channel(config: SandboxConfig, channel: Path) -> None:
    """Make ``channel`` (and the way to it) usable by the sandbox's user, a sized tmpfs
    when this process has mounts of its own, and write the seccomp filter next to it."""
    if config.kind != "bwrap":
        return
    if config.private_channel and mounts.has_private_mounts():  # in a grading worker
        mounts.mount_channel(channel, config.limits.channel_mb)
    bpf = _seccomp_file(channel)
    with open(os.open(bpf, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as handle:
        handle.write(seccomp_program())
    open_to_sandbox_user(config, channel.parent, own=False)
    open_to_sandbox_user(config, channel, own=True)
    if config.run_as >= 0:
        _stage(channel).mkdir(mode=0o755, exist_ok=True)


def release_channel(channel: Path) -> None:
    """Unmount (if mounted) and remove a channel and what sits next to it."""
    mounts.unmount_channel(channel)
    for path in (channel, _stage(channel), _seccomp_file(channel)):
        remove_tree(path)


def remove_tree(path: Path) -> None:
    """Remove ``path`` whatever the modes inside it (a kernel may leave mode-000 folders).

    Only folders inside ``path`` (or ``path`` itself) are ever made accessible: never its
    parent, which may be ``/tmp`` (another process removing the same tree at the same
    time once set /tmp to mode 700 that way)."""
    top = os.path.abspath(path)

    def fix(function, name, error):
        if isinstance(error[1], FileNotFoundError):
            return  # gone already (removed by someone else): nothing to do
        for folder in (os.path.dirname(name), name):
            folder = os.path.abspath(folder)
            if folder != top and not folder.startswith(top.rstrip("/") + "/"):
                continue
            try:
                if os.path.isdir(folder) and not os.path.islink(folder):
                    os.chmod(folder, 0o700)
            except OSError:
                pass
        try:
            if os.path.isdir(name) and not os.path.islink(name):
                shutil.rmtree(name, onerror=lambda *_: None)
            else:
                os.unlink(name)
        except OSError:
            pass

    path = Path(path)
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, onerror=fix)
            if path.exists():
                shutil.rmtree(path, onerror=fix)
        else:  # a file, a link, a socket, a fifo
            try:
                path.unlink()
            except OSError:
                pass
    except RecursionError:  # nested deeper than Python's limit (3.11's rmtree recurses)
        for command in (["chmod", "-R", "u+rwx", "--", str(path)], ["rm", "-rf", "--", str(path)]):
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=False)


def _stage(channel: Path) -> Path:
    return channel.with_name(channel.name + "-stage")


#: Run as ``python -I -S -c STAGE STAGE_FOLDER SOURCE TARGET ... -- COMMAND``:
#: ``sandbox_stage.py``, a module of its own (read, linted and tested as code), given as
#: its source.
STAGE = Path(sandbox_stage.__file__).read_text(encoding="utf-8")


def bwrap_command(config: SandboxConfig, channel: Path, program: list[str],
                  seccomp: int) -> list[str]:
    """The command line of one sandbox whose only writable host folder is ``channel``;
    it runs ``program``.  ``prepare_channel`` must have run; ``seccomp`` is the filter's
    descriptor (``seccomp_fd``), which the caller hands to the command with ``pass_fds``.

    From root, the command first enters a private mount namespace in which every
    read-only folder is also mounted under a staging folder the unprivileged user can
    reach (``/root/.pyenv`` is not reachable from ``/root``: ``sandbox_stage.py``), then
    drops to that user and starts bwrap, which binds each staged folder back at its own
    path.  No command runs bwrap as real root: from root without an unprivileged user
    (``run_as``) it raises ``SandboxUnavailable``.
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable("bwrap is not installed")
    if os.geteuid() == 0 and config.run_as <= 0:
        raise SandboxUnavailable(f"the grader runs as root and the sandbox has no unprivileged "
                                 f"user ({UID_VARIABLE}): bwrap would run as root")
    limits = config.limits
    sources = {path: path for path in config.readonly}
    if config.run_as >= 0:
        stage = _stage(channel)
        sources = {path: str(stage / str(number)) for number, path in enumerate(config.readonly)}
    # --as-pid-1: the program is the namespace's pid 1, which no process inside can kill
    # or stop (the kernel server: see launcher); when it ends, everything inside ends
    command = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--as-pid-1",
               "--cap-drop", "ALL", "--seccomp", str(seccomp), "--die-with-parent", "--new-session",
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
                "--size", str(limits.tmp_mb * MB), "--tmpfs", "/tmp",
                "--size", str(limits.tmp_mb * MB), "--tmpfs", "/dev/shm",
                "--size", str(limits.home_mb * MB), "--tmpfs", HOME]
    for path in config.readonly:
        command += ["--ro-bind", sources[path], path]
    for path in config.hidden:  # an empty folder over what only the instructor may read
        command += ["--tmpfs", path, "--remount-ro", path]
    # everything else read-only: bwrap's own root and /dev are unsized tmpfs otherwise
    command += ["--bind", str(channel), str(channel), "--remount-ro", "/dev",
                "--remount-ro", "/", "--chdir", HOME, "--clearenv"]
    for name, value in kernel_environment(config, HOME).items():
        command += ["--setenv", name, value]
    command += ["--", *program]
    if config.run_as < 0:
        return command
    staging = [str(_stage(channel))] + [part for item in sources.items() for part in item]
    user = str(config.run_as)
    return ["unshare", "--mount", "--propagation", "private", "--",
            sys.executable, "-I", "-S", "-c", STAGE, *staging, "--",
            "setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *command]


def kernel_environment(config: SandboxConfig, home: str, token: str = "") -> dict[str, str]:
    """The kernel's whole environment, in every mode: nothing of the grader's own, the
    corpora's folders, and a home (``home``) with every cache inside it."""
    tmp = "/tmp" if config.kind == "bwrap" else f"{home}/.tmp"
    env = {"PATH": os.path.dirname(sys.executable) + ":/usr/bin:/bin", "LANG": "C.UTF-8",
           "HOME": home, "TMPDIR": tmp, "MPLBACKEND": "Agg", "MPLCONFIGDIR": f"{tmp}/matplotlib",
           "IPYTHONDIR": f"{home}/.ipython", "JUPYTER_CONFIG_DIR": f"{home}/.jupyter",
           "JUPYTER_DATA_DIR": f"{home}/.jupyter-data",
           "PYTHONHASHSEED": "0",  # same set/dict order on every run: same result twice
           "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    env.update(config.env)
    if token:
        from .processes import TOKEN_VARIABLE
        env[TOKEN_VARIABLE] = token
    return env


# --------------------------------------------------------------------------- self-test
#: Run in a sandbox as ``python -c SELF_TEST PLANTED PORT READONLY MADE``: ``sandbox_probe.py``,
#: a module of its own (read, linted and tested as code), given as its source.
SELF_TEST = Path(sandbox_probe.__file__).read_text(encoding="utf-8")


def self_test(config: SandboxConfig) -> None:
    """Prove that a sandbox really isolates: a file planted outside is invisible, the
    grader's processes are invisible, a server on the host's loopback is unreachable,
    the kernel holds no capability, cannot remount a read-only folder writable, cannot
    make a user namespace, runs under the seccomp filter, and is not root on the host (a
    file it makes in its channel is not root's)."""
    import socket

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
        readonly = config.readonly[0] if config.readonly else "/usr"
        made, seccomp = channel / "made-inside", seccomp_fd(channel)
        try:
            command = bwrap_command(config, channel, [sys.executable, "-c", SELF_TEST, str(planted),
                                                      str(port), readonly, str(made)], seccomp)
            run = subprocess.run(command, capture_output=True, text=True, pass_fds=(seccomp,),
                                 timeout=config.limits.start_timeout)
            owner = os.lstat(made).st_uid if os.path.lexists(made) else None
        except (OSError, subprocess.TimeoutExpired) as error:
            raise SandboxUnavailable(_how_to_fix(str(error))) from None
        finally:
            os.close(seccomp)
            server.close()
            release_channel(channel)
    if run.returncode != 0:
        raise SandboxUnavailable(_how_to_fix(run.stderr.strip()[-500:]))
    try:
        found = json.loads(run.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise SandboxUnavailable(_how_to_fix(f"unexpected self-test output {run.stdout!r}"))
    expected = config.run_as if config.run_as > 0 else os.geteuid()  # as the host sees it
    problems = isolation_problems(dict(found, owner=owner), readonly, expected)
    if problems:
        raise SandboxUnavailable("bubblewrap runs but does not isolate: " + "; ".join(problems)
                                 + ". Grade with `--sandbox off` only at your own risk.")


def isolation_problems(found: dict, readonly: str, expected_owner: int) -> list[str]:
    """What the self-test's probe (``sandbox_probe.probe``) found that a sandbox must not
    allow; a check whose answer is missing counts as failed.  ``owner``: the host's owner
    of the file the probe made in its channel (the sandbox's user as the host sees it,
    which ``/proc/self/uid_map`` inside does not show: bwrap nests user namespaces);
    ``expected_owner``: who that must be (the sandbox's user, or the grader's own)."""
    problems = []
    if found.get("planted_visible", True):
        problems.append("a file planted outside is visible inside")
    if found.get("network", True):
        problems.append("the host's loopback network is reachable")
    processes = found.get("processes")
    if not isinstance(processes, list) or os.getpid() in processes or len(processes) > 3:
        problems.append(f"processes outside are visible ({str(processes)[:60]} ...)")
    if found.get("cap_eff", 1) != 0:
        problems.append(f"the kernel holds capabilities (CapEff {found.get('cap_eff')!r})")
    if found.get("remount", True):
        problems.append(f"a read-only folder ({readonly}) can be remounted writable")
    if found.get("user_namespace", True):
        problems.append("a new user namespace can be made inside")
    if found.get("seccomp") != "2":
        problems.append("the seccomp filter is not in force")
    owner = found.get("owner")
    if owner is None:
        problems.append("the sandbox cannot make a file in its channel")
    elif owner == 0:
        problems.append("the sandbox's user is root on the host")
    elif owner != expected_owner:
        problems.append(f"the sandbox's user is uid {owner} on the host, not {expected_owner}")
    return problems


def _how_to_fix(detail: str) -> str:
    return ("bubblewrap cannot create a sandbox on this machine"
            + (f" ({detail})" if detail else "") + ". It needs unprivileged user namespaces: "
            "on Debian/Ubuntu `sudo sysctl -w kernel.unprivileged_userns_clone=1`, on Ubuntu "
            "24.04+ also `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (or an "
            "AppArmor profile for bwrap); in a container, allow user namespaces (e.g. "
            "`--security-opt seccomp=unconfined`). Or grade with `--sandbox off` at your own "
            "risk: no isolation between submissions and your files.")
