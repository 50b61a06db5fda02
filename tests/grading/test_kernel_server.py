"""The programs the grader runs inside a sandbox, tested as the modules they are (issue
36, item 2): the kernel server's tidy-up (``kernel_server.py``), the self-test's probe
(``sandbox_probe.py``) and a root grader's staging (``sandbox_stage.py``).  Their end-to-end behaviour is in test_grading_sandbox.py."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

from nbcourse.grading.execution import kernel_server, launcher, sandbox, sandbox_stage


def test_the_launcher_and_the_self_test_run_the_modules_own_source():
    assert launcher.LAUNCHER.startswith('"""The kernel server')
    assert "def serve(" in launcher.LAUNCHER and "def probe(" in sandbox.SELF_TEST


def test_the_staging_step_binds_each_folder_and_becomes_its_command(tmp_path):
    """A root grader's first step of every sandbox (``sandbox_stage.py``, once a shell
    script): each folder bound under the stage, in its own mount namespace only."""
    assert sandbox_stage.parse(["/s", "/a", "/s/0", "--", "setpriv", "x"]) == (
        "/s", [("/a", "/s/0")], ["setpriv", "x"])
    for bad in (["/s", "/a", "--", "x"], ["/s", "/a", "/s/0"], ["/s", "--"]):
        with pytest.raises(ValueError, match="STAGE SOURCE TARGET"):
            sandbox_stage.parse(bad)
    source, stage = tmp_path / "private", tmp_path / "stage"
    source.mkdir()
    stage.mkdir()
    (source / "seen.txt").write_text("inside")
    namespace = ["unshare", "--mount", "--propagation", "private"] if os.geteuid() == 0 else \
        ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]
    run = subprocess.run([*namespace, "--", sys.executable, "-I", "-S", "-c", sandbox.STAGE,
                          str(stage), str(source), str(stage / "0"), "--",
                          "cat", str(stage / "0" / "seen.txt")],
                         capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout) == (0, "inside"), run.stderr
    assert os.listdir(stage) == []  # the mounts stayed in that namespace


def test_a_wipe_brings_a_folder_back_to_its_first_state(tmp_path):
    """What a kernel leaves in a folder the server empties: files, a locked folder inside,
    an extended attribute, another mode, other times."""
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    kept = kernel_server.kept_folders([str(home)], [])
    (home / "left.txt").write_text("planted")
    (home / "locked" / "inner").mkdir(parents=True)
    os.chmod(home / "locked", 0)
    os.setxattr(home, "user.planted", b"x")
    os.chmod(home, 0o755)
    os.utime(home, (1, 1))
    assert kernel_server.wipe([str(home)], kept, []) == []
    assert os.listdir(home) == [] and os.listxattr(home) == []
    first = kept[str(home)]
    now = os.stat(home)
    assert (now.st_mode, now.st_mtime_ns) == (first.st_mode, first.st_mtime_ns)


def test_a_wipe_keeps_the_mount_points_below_a_folder(tmp_path):
    """The channel may be mounted inside /tmp: the server keeps it (and the folders on the
    way to it) and leaves emptying it to the worker."""
    tmp = tmp_path / "tmp"
    channel = tmp / "grader" / "channel"
    channel.mkdir(parents=True)
    (channel / "kernel.json").write_text("{}")
    (tmp / "other.txt").write_text("planted")
    kept = kernel_server.kept_folders([str(tmp)], [str(channel)])
    assert set(kept) == {str(tmp), str(tmp / "grader"), str(channel)}
    assert kernel_server.wipe([str(tmp)], kept, [str(channel)]) == []
    assert sorted(os.listdir(tmp)) == ["grader"] and os.listdir(channel) == ["kernel.json"]


def test_the_probe_sees_what_an_unconfined_process_sees(tmp_path):
    """Outside a sandbox every check of the self-test must come out the other way, or the
    self-test could not fail: the planted file is seen, the loopback server reached, the
    host's processes listed."""
    planted = tmp_path / "planted.txt"
    planted.write_text("seen")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    try:
        run = subprocess.run([sys.executable, "-c", sandbox.SELF_TEST, str(planted),
                              str(server.getsockname()[1]), str(tmp_path),
                              str(tmp_path / "made")],
                             capture_output=True, text=True, timeout=60)
    finally:
        server.close()
    found = json.loads(run.stdout)
    assert found["planted_visible"] and found["network"]
    assert os.getpid() in found["processes"]
    assert found["seccomp"] == "0"
    found["owner"] = (tmp_path / "made").stat().st_uid
    problems = sandbox.isolation_problems(found, str(tmp_path), os.geteuid())
    assert {"a file planted outside is visible inside", "the seccomp filter is not in force",
            "the host's loopback network is reachable"} <= set(problems)
    assert ("the sandbox's user is root on the host" in problems) == (os.geteuid() == 0)


def test_the_runner_asks_the_server_to_hand_the_connection_file_over(tmp_path):
    """The kernel's user must read its connection file.  Which user that is, is the
    server's to know (``KernelServer.hand_over``): the runner's provisioner asks it, and
    reads nothing of the server's configuration (this server has none)."""
    import asyncio
    from types import SimpleNamespace

    from nbcourse.grading.execution.limits import GradingLimits
    from nbcourse.grading.execution.runner import KernelSession

    handed, started = [], []

    class Server:
        channel, home = tmp_path, ""

        def hand_over(self, path):
            handed.append(str(path))

        def start_kernel(self, args, notebook):
            started.append((args, notebook))
            return SimpleNamespace(pid=os.getpid())

    session = KernelSession(GradingLimits.from_options(), Server(), "the notebook")
    try:
        asyncio.run(session.km.provisioner.launch_kernel([sys.executable, "-f", "x.json"]))
    finally:
        session.context.destroy(linger=0)
    assert handed == [session.km.connection_file]
    assert started == [(["-f", "x.json"], "the notebook")]


def test_the_server_hands_a_file_to_the_sandboxs_user_only_as_root(tmp_path):
    from types import SimpleNamespace

    handed = tmp_path / "connection.json"
    handed.write_text("{}")
    owner = handed.stat().st_uid
    launcher.KernelServer.hand_over(SimpleNamespace(config=SimpleNamespace(run_as=-1)), handed)
    assert handed.stat().st_uid == owner  # the kernel runs as the grader's own user
    if os.geteuid() == 0:
        launcher.KernelServer.hand_over(SimpleNamespace(config=SimpleNamespace(run_as=1001)),
                                        handed)
        assert (handed.stat().st_uid, handed.stat().st_gid) == (1001, 1001)


HIGH_DESCRIPTOR = r"""
import os, resource
from nbcourse.grading.execution import kernel_server
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
high = min(hard - 1, 70000)  # above 65535 wherever the machine allows it
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
os.dup2(os.open(os.devnull, os.O_RDONLY), high, inheritable=True)
os.open(os.devnull, os.O_RDONLY)
resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))  # below it, once it is open
kernel_server.close_inherited()
print(high, sorted(int(fd) for fd in os.listdir("/proc/self/fd")))
"""


def test_a_kernel_inherits_no_descriptor_however_high(tmp_path):
    """Review of issue 36: ``os.closerange(3, 65536)`` left open a descriptor above 65535,
    which a server whose RLIMIT_NOFILE is higher may hold (where the hard limit allows,
    the descriptor is 70000); one above the soft limit, lowered after it was opened, is
    closed too."""
    run = subprocess.run([sys.executable, "-c", HIGH_DESCRIPTOR], capture_output=True,
                         text=True, timeout=60, cwd=tmp_path, check=True)
    high, left = run.stdout.split(" ", 1)
    # 0-2, and the descriptor listdir opened to read the folder
    assert int(high) > 1000 and json.loads(left)[:3] == [0, 1, 2] and len(json.loads(left)) <= 4


def _opened_to_a_user(tree) -> set[str]:
    """The functions of ``tree`` that change a path's owner or make it traversable (0o711)."""
    import ast

    found = set()
    for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        for node in ast.walk(function):
            if (isinstance(node, ast.Call) and ast.unparse(node.func) == "os.chown") or (
                    isinstance(node, ast.Constant) and node.value == 0o711
                    and type(node.value) is int):
                found.add(function.name)
    return found


def test_paths_are_opened_to_the_sandboxs_user_in_one_place(tmp_path):
    """Review of issue 36: the channel's way and owner were set in three places (the site,
    ``prepare_channel`` and ``KernelServer.hand_over``); each now asks
    ``sandbox.open_to_sandbox_user`` (``folder_state`` only restores a first owner)."""
    import ast
    from types import SimpleNamespace

    from course_paths import REPO

    grading = REPO / "nbcourse" / "grading"
    found = {f"{path.relative_to(grading).as_posix()}: {name}" for path in grading.rglob("*.py")
             for name in _opened_to_a_user(ast.parse(path.read_text(encoding="utf-8")))}
    assert found == {"execution/sandbox.py: open_to_sandbox_user",
                     "execution/folder_state.py: reset_folder"}, found
    assert _opened_to_a_user(ast.parse("def f(p):\n    os.chmod(p, 0o711)\n")) == {"f"}
    folder = tmp_path / "way"
    folder.mkdir(mode=0o700)
    sandbox.open_to_sandbox_user(SimpleNamespace(run_as=-1), folder, own=False)
    assert folder.stat().st_mode & 0o777 == 0o700  # an ordinary grader: nothing changes
    if os.geteuid() == 0:
        sandbox.open_to_sandbox_user(SimpleNamespace(run_as=1001), folder, own=False)
        assert folder.stat().st_mode & 0o777 == 0o711
