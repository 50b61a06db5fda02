"""One cgroup per submission: memory and tasks counted for the whole sandbox, and a way to
end everything in it that nothing inside can change.

Per-process limits (``RLIMIT_AS``) miss memfd and tmpfs pages and add nothing up across
processes; a memory cgroup counts every page any process of the submission uses, and
its OOM killer picks a process of *that* submission.  The grader uses cgroup v2 where
its own cgroup is delegated to it (``memory`` and ``pids`` controllers), otherwise the
cgroup v1 ``memory`` (and ``pids``) hierarchies when it may create folders there
(root, usually).  Where it can, it also puts each sandbox in a ``cpu`` cgroup of its own, so
a submission shares the CPU with the one graded alongside as one group, however many
processes (or sessions, which the scheduler's autogroups count apart) it starts: forty
busy processes otherwise slowed a classmate's cells about fifteen times, past their
timeout.  On a machine with neither, ``find_parents`` returns nothing and the
grader falls back to per-process limits; ``results.json`` says which held.  Where the
batch found a parent but one sandbox's cgroup cannot be made, that sandbox does not start
(``Unavailable``): results.json would say a cgroup bounds it.

The batch creates one parent folder (``nbcourse-<pid>-<random>``) per hierarchy; each sandbox
gets a child named after its channel.  Ending a sandbox kills every process listed in
its cgroup (``cgroup.kill`` on v2); ``sweep`` does that for every child left when the
batch ends, whatever happened to the worker that created it.  A parent whose maker
cannot remove it is still removed: a batch's parents carry its label (``batch_label``),
so what a Dask worker killed mid-batch made is swept by the batch (``sweep_batch``), and
the grading workers of a batch process that was killed remove its empty parents as
they end.
"""
from __future__ import annotations

import hashlib
import itertools
import os
import secrets
import signal
import time
from pathlib import Path

import psutil

from .limits import MB, GradingLimits

#: How long emptying a sandbox's cgroup may take (a grader's own wait, which no submission
#: can lengthen: the cgroup's members are killed with SIGKILL and forking is stopped first).
EMPTY_SECONDS = 5.0
#: The pause between two looks at a cgroup being emptied or removed: how often, not how
#: long (``EMPTY_SECONDS`` bounds that).
STEP_SECONDS = 0.01
#: How a batch's parent folders are named: ``<prefix><pid>-<random>[-<batch label>]``.
PARENT_PREFIX = "nbcourse-"


class Unavailable(RuntimeError):
    """A sandbox's cgroup could not be made under the batch's parents: the sandbox is not
    started, since results.json records that a cgroup bounds every submission."""


def _mounts() -> list[tuple[str, str, list[str]]]:
    """(mount point, type, options) of every cgroup file system."""
    found = []
    try:
        for line in Path("/proc/self/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) >= 4 and parts[2] in ("cgroup", "cgroup2"):
                found.append((parts[1], parts[2], parts[3].split(",")))
    except OSError:
        pass
    return found


def _own_paths() -> dict[str, str]:
    """{controller list or "" for v2: this process's cgroup path} from /proc/self/cgroup."""
    paths = {}
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            paths[controllers] = path
    except (OSError, ValueError):
        pass
    return paths


def _try_parent(mine: Path, version: int, name: str) -> str:
    parent = mine / name
    try:
        parent.mkdir()
        if version == 2:
            (parent / "cgroup.subtree_control").write_text("+memory +pids")
        return str(parent)
    except OSError:
        try:
            parent.rmdir()
        except OSError:
            pass
        return ""


def batch_label(token: str) -> str:
    """The label in the names of a batch's cgroup parents: a hash of its token (every user
    can list /sys/fs/cgroup; the token itself stays with the batch)."""
    if not isinstance(token, str) or not token:
        raise ValueError(f"a batch's token is a non-empty string, got {token!r}")
    return hashlib.sha256(token.encode()).hexdigest()[:12]


def _parent_name(batch: str) -> str:
    if not isinstance(batch, str) or not all(c in "0123456789abcdef" for c in batch):
        raise ValueError(f"a batch label is lower-case hex (batch_label), got {batch!r}")
    name = f"{PARENT_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"  # one per batch and machine
    return f"{name}-{batch}" if batch else name


def maker(parents: dict) -> int:
    """The pid of the process that made ``parents`` (``find_parents``), read from their
    name; 0 for none."""
    name = Path((parents or {}).get("memory") or "").name
    pid = name[len(PARENT_PREFIX):].split("-")[0] if name.startswith(PARENT_PREFIX) else ""
    return int(pid) if pid.isdigit() else 0


def find_parents(batch: str = "") -> dict:
    """``{"version": 1 or 2, "memory": folder, "pids": folder or ""}`` under which this
    process may create one cgroup per submission; ``{}`` where the machine offers none.
    ``batch`` (``batch_label``) names the folders after their batch (``sweep_batch``)."""
    name = _parent_name(batch)
    own = _own_paths()
    mounts = _mounts()
    for point, kind, _ in mounts:  # cgroup v2, delegated to us
        if kind != "cgroup2" or "" not in own:
            continue
        mine = Path(point) / own[""].lstrip("/")
        try:
            controllers = (mine / "cgroup.controllers").read_text().split()
        except OSError:
            continue
        if "memory" in controllers and "pids" in controllers:
            parent = _try_parent(mine, 2, name)
            if parent:
                return {"version": 2, "memory": parent, "pids": parent,
                        "cpu": parent if "cpu" in controllers and _enable_cpu(parent) else ""}
    found = {}
    for controller in ("memory", "pids", "cpu"):  # cgroup v1
        for point, kind, options in mounts:
            if kind != "cgroup" or controller not in options:
                continue
            relative = next((path for names, path in own.items()
                             if controller in names.split(",")), None)
            if relative is None:
                continue
            parent = _try_parent(Path(point) / relative.lstrip("/"), 1, name)
            if parent:
                found[controller] = parent
                break
    if "memory" not in found:
        remove_parents({"version": 1, **found})
        return {}
    return {"version": 1, "memory": found["memory"], "pids": found.get("pids", ""),
            "cpu": found.get("cpu", "")}


def _enable_cpu(parent: str) -> bool:
    """cgroup v2: give each sandbox below ``parent`` a CPU weight of its own, if allowed."""
    try:
        Path(parent, "cgroup.subtree_control").write_text("+cpu")
        return True
    except OSError:
        return False


def create(parents: dict, name: str, limits: GradingLimits) -> list[str]:
    """The cgroup folders of one sandbox, limits written; [] when they cannot be made."""
    if not parents:
        return []
    memory = str(limits.memory_mb * MB)
    made: list[str] = []
    try:
        if parents["version"] == 2:
            path = Path(parents["memory"]) / name
            path.mkdir()
            made.append(str(path))
            (path / "memory.max").write_text(memory)
            if (path / "memory.swap.max").exists():
                (path / "memory.swap.max").write_text("0")
            (path / "pids.max").write_text(str(limits.tasks))
            return made
        path = Path(parents["memory"]) / name
        path.mkdir()
        made.append(str(path))
        (path / "memory.limit_in_bytes").write_text(memory)
        if (path / "memory.memsw.limit_in_bytes").exists():  # no escape into swap
            (path / "memory.memsw.limit_in_bytes").write_text(memory)
        if parents.get("pids"):
            path = Path(parents["pids"]) / name
            path.mkdir()
            made.append(str(path))
            (path / "pids.max").write_text(str(limits.tasks))
        if parents.get("cpu"):  # the default share: the same for every sandbox
            path = Path(parents["cpu"]) / name
            path.mkdir()
            made.append(str(path))
        return made
    except OSError:
        kill(made)
        return []


def enter(paths: list[str]) -> None:
    """Move the calling process into ``paths`` (run in the child before it starts bwrap,
    so nothing the sandbox starts is ever outside)."""
    for path in paths:
        with open(os.path.join(path, "cgroup.procs"), "w") as handle:
            handle.write(str(os.getpid()))


def _members(path: str) -> list[int]:
    try:
        return [int(pid) for pid in Path(path, "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def kill(paths: list[str], seconds: float = EMPTY_SECONDS) -> bool:
    """SIGKILL every process in the cgroups, until none is left, then remove them.
    True when every folder is gone."""
    deadline = time.monotonic() + seconds
    for path in paths:
        for name, value in (("pids.max", "0"), ("cgroup.kill", "1")):  # no fork meanwhile
            try:
                Path(path, name).write_text(value)
            except OSError:
                pass
    _kill_members(paths, set(), deadline)
    removed = True
    for path in paths:
        while True:
            try:
                os.rmdir(path)
                break
            except FileNotFoundError:
                break
            except OSError:
                if time.monotonic() > deadline:
                    removed = False
                    break
                time.sleep(STEP_SECONDS)
    return removed


def _kill_members(paths: list[str], keep: set[int], deadline: float) -> bool:
    """SIGKILL the cgroups' members but ``keep`` until none is left (True) or the deadline."""
    while time.monotonic() < deadline:
        others = {pid for path in paths for pid in _members(path)} - keep
        if not others:
            return True
        for pid in others:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(STEP_SECONDS)
    return False


def kill_all_but(paths: list[str], keep: set[int], tasks: int, seconds: float = EMPTY_SECONDS
                 ) -> bool:
    """Kill every process of the cgroups but ``keep``, with no new task allowed meanwhile
    (``pids.max`` 0), so a process that forks and exits over and over cannot slip between
    two lists of members.  True when only ``keep`` is left; False without a pids cgroup."""
    limits = [Path(path, "pids.max") for path in paths if Path(path, "pids.max").exists()]
    if not limits:
        return False
    try:
        for limit in limits:
            limit.write_text("0")
        return _kill_members(paths, keep, time.monotonic() + seconds)
    except OSError:
        return False
    finally:
        for limit in limits:
            try:
                limit.write_text(str(tasks))
            except OSError:
                pass


def oom_kills(paths: list[str]) -> int:
    """How many processes of the cgroup the kernel killed for going over its memory limit."""
    for path in paths:
        for name in ("memory.events", "memory.oom_control"):  # v2, v1
            try:
                for line in Path(path, name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
            except (OSError, ValueError):
                continue
    return 0


def sweep(parents: dict) -> int:
    """Kill whatever is left in any sandbox's cgroup under ``parents`` and remove them
    all; returns how many processes were still there."""
    left = 0
    if not parents:
        return 0
    for key in ("memory", "pids", "cpu"):
        parent = parents.get(key)
        if not parent or not Path(parent).is_dir():
            continue
        children = [str(child) for child in Path(parent).iterdir() if child.is_dir()]
        left += sum(len(_members(child)) for child in children)
        kill(children)
    remove_parents(parents)
    return left


def remove_parents(parents: dict) -> None:
    """Remove the batch's parent folders that are empty (rmdir leaves any other)."""
    for key in ("memory", "pids", "cpu"):
        if parents.get(key):
            try:
                os.rmdir(parents[key])
            except OSError:
                pass


def _own_folders() -> list[tuple[int, Path]]:
    """(version, this process's folder) in every cgroup hierarchy mounted here: where
    ``find_parents`` makes a batch's parents."""
    own = _own_paths()
    found = []
    for point, kind, options in _mounts():
        if kind == "cgroup2":
            relative = own.get("")
        else:
            relative = next((path for names, path in own.items()
                             if names and set(names.split(",")) & set(options)), None)
        if relative is not None:
            found.append((2 if kind == "cgroup2" else 1, Path(point) / relative.lstrip("/")))
    return found


def _gone(pid: int) -> bool:
    """Has process ``pid`` ended (a zombie runs nothing)?"""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:
        return False


def sweep_batch(batch: str) -> int:
    """``sweep`` every parent of the batch labelled ``batch`` (``batch_label``) on this
    machine whose maker has ended without removing it: a Dask worker killed mid-batch.
    A live worker's are its own to release (its sandboxes are not leftovers).  Returns
    how many processes were still in them."""
    if not batch:
        raise ValueError("sweep_batch needs the batch's label (batch_label), got none")
    _parent_name(batch)  # checks it
    left = 0
    for version, folder in _own_folders():
        try:
            parents = [str(path) for path in folder.glob(f"{PARENT_PREFIX}*-{batch}")
                       if path.is_dir()]
        except OSError:
            continue
        for parent in parents:
            if _gone(maker({"memory": parent})):
                left += sweep({"version": version, "memory": parent})
    return left


def nproc_per_namespace(release: str | None = None) -> bool:
    """Does this Linux (``release``, by default the running one) count ``RLIMIT_NPROC`` per
    user namespace (5.14 and later), so that each sandbox, a namespace of its own, has its
    own count?  Before 5.14 it counts every process of the uid on the machine."""
    release = os.uname().release if release is None else release
    numbers = []
    for part in release.split(".")[:2]:
        digits = "".join(itertools.takewhile(str.isdigit, part))
        numbers.append(int(digits) if digits else 0)
    return tuple(numbers) >= (5, 14)


def _tasks_words(parents: dict, limits: GradingLimits, kind: str) -> str:
    """What bounds a submission's tasks (``launcher.process_limit`` decides which applies)."""
    if parents.get("pids"):
        return (f"at most {limits.tasks} tasks for the whole submission (cgroup "
                f"v{parents['version']} pids)")
    if kind != "bwrap":
        return "not limited (no sandbox, no pids cgroup)"
    if nproc_per_namespace():
        return (f"at most {limits.tasks} tasks per sandbox (RLIMIT_NPROC, counted per user "
                "namespace since Linux 5.14; each sandbox is one)")
    return (f"at most {limits.tasks} tasks for the sandbox's uid across every sandbox on this "
            "machine (RLIMIT_NPROC, counted per uid before Linux 5.14): one submission's "
            "processes count against every other sandbox of that uid")


def describe(parents: dict, limits: GradingLimits, *, kind: str) -> dict:
    """What limits memory and tasks on this machine, in words for results.json; ``kind``
    is the sandbox's (``bwrap`` or ``off``)."""
    tasks = _tasks_words(parents, limits, kind)
    if parents:
        version = parents["version"]
        return {"mechanism": f"cgroup v{version}",
                "memory": f"{limits.memory_mb} MB for the whole submission (cgroup v{version}: "
                          "every process, tmpfs and memfd pages included), and as address "
                          "space per process (RLIMIT_AS)",
                "tasks": tasks,
                "cpu": (f"one share of the CPU for the whole submission (cgroup v{version} cpu)"
                        if parents.get("cpu") else "each process its own share of the CPU")}
    return {"mechanism": "rlimit only (no cgroup on this machine)",
            "memory": f"{limits.memory_mb} MB of address space per process (RLIMIT_AS); "
                      "memfd and tmpfs pages and the sum over processes are not limited",
            "tasks": tasks,
            "cpu": "each process its own share of the CPU"}
