"""Each isolation property of the grading sandbox, proved from inside one.

These tests run a small script in exactly the sandbox a submission gets
(``sandbox.bwrap_command``) and look at what it could see and do.  They need
bubblewrap, like the hostile batch in ``test_grading_batch.py``: CI installs it and
never skips them.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from nobody_support import as_nobody

from nbcourse.grading import gradebook
from nbcourse.grading.batch import grade_batch
from nbcourse.grading.course_folders import course_folders
from nbcourse.grading.collection import collect_submissions
from nbcourse.grading.gradebook import feedback_names, spreadsheet_safe
from nbcourse.grading.execution import launcher, sandbox
from nbcourse.grading.execution.limits import GradingLimits

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "submissions"
LIMITS = GradingLimits.from_options()  # the batch's, as `nbcourse grade` makes them


@pytest.fixture(scope="module")
def config():
    made = sandbox.make_config("bwrap", LIMITS, course_folders())  # runs the start-up self-test too
    yield made
    sandbox.release(made)


def _inside(config, tmp_path, script: str, *args: str) -> dict:
    """Run ``script`` in a submission's sandbox; it prints one JSON object."""
    # like a worker's folder: under the system's temporary folder, which the sandbox's
    # unprivileged user (when the grader is root) can traverse; pytest's tmp_path is not
    folder = Path(tempfile.mkdtemp(prefix="nbcourse-sandbox-test-"))
    try:
        channel = folder / "channel"
        channel.mkdir()
        sandbox.prepare_channel(config, channel)
        seccomp = sandbox.seccomp_fd(channel)
        try:
            command = sandbox.bwrap_command(config, channel, [sys.executable, "-c", script, *args],
                                            seccomp)
            run = subprocess.run(command, capture_output=True, text=True, timeout=60,
                                 pass_fds=(seccomp,))
        finally:
            os.close(seccomp)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_no_network_not_even_the_hosts_loopback(config, tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(3)
    accepted = []

    def accept():
        try:
            accepted.append(server.accept())
        except OSError:
            pass

    waiter = threading.Thread(target=accept)
    waiter.start()
    found = _inside(config, tmp_path, """
import json, socket, sys
result = {}
for name, address in (("loopback", ("127.0.0.1", int(sys.argv[1]))), ("internet", ("1.1.1.1", 53))):
    try:
        socket.create_connection(address, timeout=2).close()
        result[name] = "connected"
    except OSError as error:
        result[name] = type(error).__name__
result["interfaces"] = sorted(name for _, name in socket.if_nameindex())
print(json.dumps(result))
""", str(server.getsockname()[1]))
    waiter.join()
    server.close()
    assert found["loopback"] != "connected" and found["internet"] != "connected"
    assert accepted == [] and found["interfaces"] == ["lo"]


def test_no_process_outside_is_visible(config, tmp_path):
    secret = secrets.token_hex(6)
    outside = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                                f"nbcourse-visible-{secret}"])
    try:
        found = _inside(config, tmp_path, """
import json, os, sys
pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
lines = []
for pid in pids:
    try:
        lines.append(open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace"))
    except OSError:
        pass
token = "nbcourse-visible-" + sys.argv[1]  # never whole on this script's own command line
print(json.dumps({"pids": pids, "token_seen": any(token in line for line in lines)}))
""", secret)
    finally:
        outside.kill()
        outside.wait()
    assert not found["token_seen"]
    assert len(found["pids"]) <= 3  # bwrap's init, the script, nothing else


def test_the_course_folder_home_and_other_files_are_invisible(config, tmp_path):
    planted = tmp_path / "outside.txt"
    planted.write_text("secret")
    found = _inside(config, tmp_path, """
import json, os, sys
print(json.dumps({path: os.path.exists(path) for path in sys.argv[1:]}))
""", str(planted), str(REPO / "exercises" / "source"), str(REPO / "README.md"),
        str(REPO / "tests"), str(Path.home() / ".bashrc"), "/etc/passwd",
        str(Path(__file__).resolve()))
    assert not any(found.values()), found


def test_tmp_is_private_and_limited_and_the_package_read_only(config, tmp_path):
    token = secrets.token_hex(6)
    host_file = Path("/tmp") / f"nbcourse-host-{token}"
    host_file.write_text("host")
    try:
        found = _inside(config, tmp_path, """
import json, os, sys, nbcourse
token = sys.argv[1]
result = {"sees_host_tmp": os.path.exists(f"/tmp/nbcourse-host-{token}")}
open(f"/tmp/nbcourse-inside-{token}", "w").write("inside")
try:
    with open("/tmp/filler", "wb") as handle:
        for _ in range(2000):
            handle.write(bytes(2**20))
    result["filled_mb"] = 2000
except OSError as error:
    result["filled_mb"] = os.path.getsize("/tmp/filler") // 2**20
try:
    open(os.path.join(os.path.dirname(nbcourse.__file__), "planted.py"), "w")
    result["package_writable"] = True
except OSError:
    result["package_writable"] = False
print(json.dumps(result))
""", token)
    finally:
        host_file.unlink()
    assert not found["sees_host_tmp"]
    assert not Path(f"/tmp/nbcourse-inside-{token}").exists()
    assert found["filled_mb"] <= config.limits.tmp_mb
    assert not found["package_writable"]


def test_auto_stops_with_a_way_out_when_bwrap_is_missing(monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(sandbox.SandboxUnavailable) as error:
        sandbox.make_config("auto", LIMITS, course_folders())
    assert "apt install bubblewrap" in str(error.value)
    assert "--sandbox off" in str(error.value)


def test_the_self_test_notices_a_sandbox_that_does_not_isolate(monkeypatch, config):
    """bwrap being present is not enough: the probe must not see a file planted outside."""
    monkeypatch.setattr(sandbox, "bwrap_command",
                        lambda config, channel, program, seccomp: ["env", "--", *program])
    with pytest.raises(sandbox.SandboxUnavailable, match="does not isolate"):
        sandbox.self_test(config)


def test_the_command_line_refuses_to_grade_unconfined_by_surprise(monkeypatch, tmp_path, capsys):
    from nbcourse import cli

    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    status = cli.main(["grade", "01_weather", str(FIXTURES / "correct.ipynb"),
                       "--out", str(tmp_path / "out")])
    assert status == 2
    assert "--sandbox off" in capsys.readouterr().err
    assert not (tmp_path / "out" / "grades.csv").exists()


def test_sandbox_off_grades_honest_submissions(tmp_path):
    paths = [FIXTURES / "correct.ipynb", FIXTURES / "wrong.ipynb"]
    result = grade_batch("01_weather", paths, tmp_path / "out", jobs=2, sandbox="off",
                         progress=None)
    assert [(r.submission, r.status, r.total) for r in result.results] == [
        ("correct", "graded", 10.0), ("wrong", "graded", 3.65)]
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert data["isolation"]["sandbox"] == "off"


def test_results_json_records_what_the_workers_enforced(tmp_path, monkeypatch):
    """Issue 36: local grading recorded the grader process's own idea of the sandbox
    (its configuration's ``describe``), while grading on Dask recorded what the workers
    reported.  Both now record the workers' reports: the grader's idea is made wrong here
    on purpose, and results.json still says what the ``--sandbox off`` worker set up
    (no sandbox: no network, capability or namespace rows)."""
    from nbcourse.grading.execution.sandbox import SandboxConfig
    monkeypatch.setattr(SandboxConfig, "describe", lambda self: {"sandbox": "bwrap"})
    grade_batch("01_weather", [FIXTURES / "correct.ipynb"], tmp_path / "out", sandbox="off",
                progress=None)
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    isolation = data["isolation"]
    assert isolation["sandbox"] == "off", isolation
    assert not {"network", "capabilities", "user_namespaces"} & set(isolation)
    assert isolation["memory_limit"] == isolation["memory"]
    assert data["limits"]["enforced"] == isolation


def test_workers_that_disagree_on_the_isolation_are_named_in_a_warning(monkeypatch):
    """The one table both grading paths record: the workers' report, a warning when they
    differ, nothing from a run that failed before it.  Review 4, finding 3: where they
    differed, results.json recorded the first report to arrive (not deterministic, and
    perhaps the stronger one); now every distinct value, sorted, whatever the order."""
    from nbcourse.grading import scheduling
    from nbcourse.grading.execution.report import RunReport

    monkeypatch.setattr(scheduling, "score_row", lambda *args: None)
    rows = scheduling.Rows(None, None, [None] * 3, None, None)
    assert rows.isolation() == ({}, [])  # nothing ran: nothing is claimed
    rows.finish(0, RunReport.failed("the worker died"))
    rows.finish(1, RunReport(isolation={"sandbox": "bwrap"}))
    assert rows.isolation() == ({"sandbox": "bwrap"}, [])
    rows.finish(2, RunReport(isolation={"sandbox": "off"}))
    isolation, warnings = rows.isolation()
    assert isolation == {"sandbox": "varied: bwrap | off"}
    assert warnings == ["the grading workers did not all report the same isolation; "
                        "results.json records every value reported where they differ "
                        "(\"varied: A | B\")"]
    tmpfs = {"sandbox": "bwrap", "channel": "a tmpfs of 8 MB", "tmp_mb": 256}
    plain = {"sandbox": "bwrap", "channel": "a folder in the grader's TMPDIR"}
    merged = {"channel": "varied: a folder in the grader's TMPDIR | a tmpfs of 8 MB",
              "sandbox": "bwrap", "tmp_mb": "varied: 256 | not reported"}
    assert scheduling.merged_isolation([tmpfs, plain]) == merged
    assert scheduling.merged_isolation([plain, tmpfs, plain]) == merged  # any order


# ------------------------------------------------------------------ names and gradebook
def test_formulas_are_neutralised_in_the_csv():
    for text in ("=HYPERLINK(\"x\")", "+1", "-2", "@SUM(A1)", "\tx"):
        assert spreadsheet_safe(text).startswith("'")
    assert spreadsheet_safe("alice") == "alice"


def test_feedback_pages_are_distinct_for_distinct_ids():
    ids = ["alice", " alice", "alice ", "a/lice", "a__lice", "M\\xfcller", "Müller", "", "bob"]
    names = feedback_names(ids)
    assert len({name.lower() for name in names.values()}) == len(ids)
    assert names["bob"] == "bob"  # no collision: the readable name as it is
    assert feedback_names(list(reversed(ids))) == names  # whatever the order


def test_ids_are_stable_and_unique(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "alice.ipynb").write_text("{}")
    raw = os.path.join(os.fsencode(tmp_path), b"Ren\xe9.ipynb")
    open(raw, "w").close()
    first, _ = collect_submissions([tmp_path], "alice")
    second, _ = collect_submissions([tmp_path], "alice")
    assert [s.id for s in first] == [s.id for s in second] == ["Ren\\xe9", "a", "b"]


def test_a_planted_undecodable_name_in_the_output_folder_loses_nothing(tmp_path):
    """Row 12: the gradebook, results.json and feedback are written whatever is planted."""
    out = tmp_path / "out"
    out.mkdir()
    before = gradebook.snapshot(out)
    open(os.path.join(os.fsencode(out), b"planted-\xff.html"), "w").close()
    warnings = gradebook.remove_planted(out, before)
    assert warnings and "planted-\\xff.html" in warnings[0]
    result = grade_batch("01_weather", [FIXTURES / "not_json.ipynb"], out, jobs=1,
                         sandbox="off", progress=None)
    result.warnings += warnings
    gradebook.write_outputs(result, out)
    data = json.loads((out / "results.json").read_text())
    assert data["warnings"][-1].endswith("planted-\\xff.html")
    assert (out / "grades.csv").is_file() and (out / "feedback" / "not_json.html").is_file()


def test_the_process_count_limit_holds_inside(config, tmp_path):
    """The limit the kernel launcher sets before any student code (RLIMIT_NPROC) stops a
    fork loop; from root this needs the unprivileged sandbox user, which the grader uses."""
    found = _inside(config, tmp_path, """
import json, os, resource, time
resource.setrlimit(resource.RLIMIT_NPROC, (int(os.environ.get("TASKS", "64")),) * 2)
children, error = [], ""
for _ in range(200):
    try:
        pid = os.fork()
    except OSError as failure:
        error = type(failure).__name__
        break
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    children.append(pid)
print(json.dumps({"forked": len(children), "error": error}))
""")
    assert found["error"] == "BlockingIOError" and found["forked"] < config.limits.tasks


def test_a_root_grader_never_runs_a_submission_as_root(config):
    """Seen from the host: every process of a ready sandbox has an unprivileged user
    (nobody when the grader is root, else the grader's own user)."""
    import psutil

    expected = config.run_as if os.geteuid() == 0 else os.getuid()
    assert expected != 0
    base = Path(tempfile.mkdtemp(prefix="nbcourse-sandbox-test-"))
    os.chmod(base, 0o711)
    warm = launcher.KernelServer(config, base)
    try:
        assert warm.wait_ready()
        inside = psutil.Process(warm.pid).children(recursive=True)
        assert inside and all(p.uids().real == p.uids().effective == expected for p in inside)
    finally:
        warm.kill()
        shutil.rmtree(base, ignore_errors=True)


def test_exercise_sources_inside_an_installed_package_are_masked(config):
    """A wheel never ships the solutions and specs (``.ci/check_wheel.py``), but a package
    whose course copy holds them anyway has them masked."""
    import dataclasses

    package = Path(tempfile.mkdtemp(prefix="nbcourse-fake-package-"))
    source = package / "_course" / "exercises" / "source"
    source.mkdir(parents=True)
    (source / "01_weather.grading.py").write_text("SECRET = 1\n")
    (package / "_course" / "data").mkdir()
    (package / "_course" / "data" / "weather.csv").write_text("outlook\n")
    os.chmod(package, 0o755)
    masked = dataclasses.replace(config, readonly=config.readonly + [str(package)],
                                 hidden=[str(source)])
    try:
        found = _inside(masked, None, """
import json, os, sys
print(json.dumps({"spec": os.path.exists(sys.argv[1]), "data": os.path.exists(sys.argv[2])}))
""", str(source / "01_weather.grading.py"), str(package / "_course" / "data" / "weather.csv"))
    finally:
        shutil.rmtree(package, ignore_errors=True)
    assert found == {"spec": False, "data": True}
    hidden = course_folders().hidden
    assert hidden == [] or all("exercises" in p for p in hidden)


# ------------------------------------------------------------------ round two (issue 23)
def test_a_root_grader_without_setpriv_stops_instead_of_running_bwrap_as_root(monkeypatch):
    """Row 1: without unshare/setpriv a root grader would start bwrap as real root, with
    every capability; it must stop loudly, as when bwrap is missing."""
    real_which = shutil.which
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    monkeypatch.setattr(sandbox.shutil, "which",
                        lambda name: None if name in ("setpriv", "unshare") else real_which(name))
    with pytest.raises(sandbox.SandboxUnavailable, match="root") as error:
        sandbox.make_config("bwrap", LIMITS, course_folders())
    assert "setpriv" in str(error.value) and "unshare" in str(error.value)


@pytest.mark.parametrize("given", ["-1", "0", "-65534", "nobody", "", " 7"])
def test_a_root_grader_refuses_a_sandbox_uid_that_is_not_an_unprivileged_user(monkeypatch,
                                                                              given):
    """Review of issue 36: ``NBCOURSE_SANDBOX_UID=-1`` passed the ``== 0`` check, and a
    negative user made the grader start bwrap directly, as real root."""
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    monkeypatch.setenv(sandbox.UID_VARIABLE, given)
    with pytest.raises(sandbox.SandboxUnavailable, match="NBCOURSE_SANDBOX_UID") as error:
        sandbox.make_config("bwrap", LIMITS, course_folders())
    assert "root" in str(error.value)


def test_no_command_runs_bwrap_as_real_root(monkeypatch, config):
    """Whatever configuration reaches it (a worker reads its own from the environment),
    a command for a root grader always drops to an unprivileged user before bwrap."""
    import dataclasses

    channel = Path("/nonexistent/channel")
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    for run_as in (-1, 0):
        with pytest.raises(sandbox.SandboxUnavailable, match="bwrap would run as root"):
            sandbox.bwrap_command(dataclasses.replace(config, run_as=run_as), channel,
                                  ["true"], 3)
    command = sandbox.bwrap_command(dataclasses.replace(config, run_as=65534), channel,
                                    ["true"], 3)
    drop = command.index("setpriv")
    assert command[drop + 1:drop + 4] == ["--reuid=65534", "--regid=65534", "--clear-groups"]
    assert command.index(shutil.which("bwrap")) > drop


def test_the_self_test_refuses_a_sandbox_whose_user_is_root_on_the_host(monkeypatch, config):
    """The probe reported ``uid_map`` and nothing read it (nor could it tell: bwrap nests
    user namespaces, so inside, the map's outside is the outer namespace's): a bwrap
    started by root passed the self-test.  Now the host's owner of a file the probe
    makes in its channel is checked."""
    clean = {"planted_visible": False, "network": False, "processes": [1, 2], "cap_eff": 0,
             "remount": False, "user_namespace": False, "seccomp": "2"}
    assert sandbox.isolation_problems(dict(clean, owner=65534), "/usr", 65534) == []
    assert sandbox.isolation_problems(dict(clean, owner=0), "/usr", 65534) == [
        "the sandbox's user is root on the host"]
    assert sandbox.isolation_problems(clean, "/usr", 65534) == [
        "the sandbox cannot make a file in its channel"]
    if os.geteuid() != 0:  # an ordinary user cannot start a sandbox that is root outside
        sandbox.self_test(config)
        return
    as_root, tested = _as_real_root(monkeypatch, config)
    monkeypatch.setattr(sandbox, "bwrap_command", as_root)
    with pytest.raises(sandbox.SandboxUnavailable) as error:
        sandbox.self_test(tested)
    problems = str(error.value).partition("does not isolate: ")[2]
    assert problems.startswith("the sandbox's user is root on the host"), problems


def test_no_sandbox_command_holds_a_shell_script(monkeypatch, config):
    """The seccomp filter reached bwrap through ``/bin/sh -c 'exec "$@" 9<FILE'``, and a
    root grader's staging mounts were a shell script: now the filter's descriptor is
    handed over (``pass_fds``) and the staging is ``sandbox_stage.py``, run as its source."""
    channel = Path("/nonexistent/channel")
    command = sandbox.bwrap_command(config, channel, ["true"], 7)
    assert command[command.index("--seccomp") + 1] == "7"
    assert not {"/bin/sh", "sh", "-ec"} & set(command)
    if config.run_as >= 0:
        code = command.index("-c") + 1
        assert command[code] == sandbox.STAGE and command[:2] == ["unshare", "--mount"]
        assert command[code + 1] == str(channel.with_name("channel-stage"))
        staged = command[code + 2:command.index("--", code)]
        assert staged[::2] == config.readonly


ESCAPES = r"""
import ctypes, json, os, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines()
              if ":" in line)
found = {"cap_eff": int(status["CapEff"], 16), "cap_bnd": int(status["CapBnd"], 16),
         "no_new_privs": status["NoNewPrivs"].strip(), "seccomp": status["Seccomp"].strip()}
run = subprocess.run(["unshare", "-Urm", "sh", "-c", "mount -t tmpfs none /tmp && echo mounted"],
                     capture_output=True, text=True)
found["nested_namespace"] = "mounted" in run.stdout
found["unshare"] = libc.unshare(0x10000000 | 0x00020000) == 0
found["remount"] = libc.mount(b"none", sys.prefix.encode(), None, 32 | 4096, None) == 0
found["mount_tmpfs"] = libc.mount(b"none", b"/tmp", b"tmpfs", 0, b"size=1g") == 0
found["ptrace_pid1"] = libc.ptrace(16, 1, None, None) == 0
try:
    os.close(os.memfd_create("hoard"))
    found["memfd"] = True
except OSError:
    found["memfd"] = False
found["keyctl"] = libc.syscall(250, 0, 0, 0, 0, 0) >= 0  # x86-64 keyctl
# io_uring_setup(8 entries, zeroed io_uring_params): a ring's file descriptor if allowed
found["io_uring"] = libc.syscall(425, 8, ctypes.create_string_buffer(120)) >= 0
print(json.dumps(found))
"""


def test_inside_no_capability_no_namespace_no_mount_no_ptrace_no_memfd(config, tmp_path):
    """Rows 1, 5 and 6, from inside: CapEff is 0, no nested user namespace (the unsized
    tmpfs of the report), no remount of a read-only folder, no ptrace of pid 1, no
    memfd, no keyring, no io_uring (issue 33); the seccomp filter is in force."""
    found = _inside(config, tmp_path, ESCAPES)
    assert found["cap_eff"] == 0 and found["cap_bnd"] == 0
    assert found["seccomp"] == "2"
    escaped = [name for name in ("nested_namespace", "unshare", "remount", "mount_tmpfs",
                                 "ptrace_pid1", "memfd", "keyctl", "io_uring") if found[name]]
    assert escaped == []


def test_the_self_test_refuses_a_sandbox_with_capabilities(monkeypatch, config):
    """The start-up self-test checks CapEff and tries the remount itself: a sandbox that
    keeps capabilities (the escape of row 1) is refused.

    As root, the sandbox is a bwrap that root starts without ``--cap-drop``: it keeps
    root's capabilities on the host, and is refused. An ordinary user has no capability
    on the host to keep; the sandbox that user can arrange is a bwrap told to keep every
    capability of its user namespace (``--cap-add ALL`` instead of ``--cap-drop ALL``),
    with which code inside could mount, remount and unshare there: it is refused too."""
    root = os.geteuid() == 0

    def with_capabilities(config, channel, program, seccomp):
        command = real(config, channel, program, seccomp)
        position = command.index("--cap-drop")
        kept = [] if root else ["--cap-add", "ALL"]
        return command[:position] + kept + command[position + 2:]

    real, tested = _as_real_root(monkeypatch, config) if root else (sandbox.bwrap_command, config)
    monkeypatch.setattr(sandbox, "bwrap_command", with_capabilities)
    with pytest.raises(sandbox.SandboxUnavailable,
                       match="capabilities|remounted" if root else "capabilities"):
        sandbox.self_test(tested)


def test_the_self_test_refuses_a_sandbox_that_allows_user_namespaces(monkeypatch, config):
    """Issue 33: the self-test asked for a user namespace with ``unshare``, which the
    seccomp filter refuses anyway, so it passed without ``--disable-userns`` too; it now
    asks as a fork would (``clone``), which only ``--disable-userns`` refuses."""
    def without_disable_userns(config, channel, program, seccomp):
        return [part for part in real(config, channel, program, seccomp)
                if part != "--disable-userns"]

    real = sandbox.bwrap_command
    monkeypatch.setattr(sandbox, "bwrap_command", without_disable_userns)
    with pytest.raises(sandbox.SandboxUnavailable, match="user namespace"):
        sandbox.self_test(config)


def _as_real_root(monkeypatch, config):
    """(``bwrap_command``, configuration) as they were for a root grader given
    ``NBCOURSE_SANDBOX_UID=-1``: bwrap started by root itself, which no grader may do
    (the self-test must refuse it)."""
    import dataclasses

    real = sandbox.bwrap_command

    def build(config, channel, program, seccomp):
        with monkeypatch.context() as patch:
            patch.setattr(sandbox.os, "geteuid", lambda: 1000)  # past the refusal
            return real(config, channel, program, seccomp)
    return build, dataclasses.replace(config, run_as=-1)


def _limits_of(pid: int) -> dict:
    """``/proc/<pid>/limits`` as {name: soft limit}."""
    lines = Path(f"/proc/{pid}/limits").read_text().splitlines()[1:]
    return {line[:26].strip(): line[26:].split()[0] for line in lines}


def _a_kernel_starts(warm) -> int:
    """Fork a kernel in the warm sandbox; its host pid once it runs as a kernel (its limits
    are set before ipykernel writes its connection file)."""
    connection = warm.channel / "kernel.json"
    kernel = warm.start_kernel(["-f", str(connection), "--HistoryManager.enabled=False",
                                "--IPKernelApp.quiet=True"], "{}")
    deadline = time.monotonic() + 120
    while not connection.exists() and kernel.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert connection.exists(), "the kernel did not start"
    return kernel.pid


def _still_running(pids: set[int]) -> set[int]:
    """Those of ``pids`` that run on after a minute (zombies have ended). Without a cgroup
    to empty, ``kill`` returns once bwrap has ended, while the kernel is still tearing
    down the namespace's processes: their end is waited for, not assumed."""
    import psutil

    def running() -> set[int]:
        left = set()
        for pid in pids:
            try:
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    left.add(pid)
            except psutil.NoSuchProcess:
                pass
        return left

    deadline = time.monotonic() + 60
    while running() and time.monotonic() < deadline:
        time.sleep(0.1)
    return running()


def test_the_cgroup_counts_the_whole_sandbox_and_kills_everything(config):
    """Row 5 and 6: where the machine offers a cgroup, a sandbox gets one with its memory
    and task limits; killing the sandbox leaves no process and no cgroup behind.

    Root has cgroups on this machine (v1 memory and pids): the sandbox's cgroup holds
    every process inside and carries both limits. An ordinary user has none here
    (``cgroups.find_parents()`` is empty), and the grader then limits each process: the
    sandbox has no cgroup, and a kernel forked inside carries the memory limit as its
    address space and the task limit as its number of processes (RLIMIT_AS, RLIMIT_NPROC),
    which everything it starts inherits. Either way, killing the sandbox ends it all."""
    import psutil

    if os.geteuid() == 0:
        assert config.cgroups, "this machine offers cgroups (v1 memory and pids here)"
    base = Path(tempfile.mkdtemp(prefix="nbcourse-sandbox-test-"))
    os.chmod(base, 0o711)
    warm = launcher.KernelServer(config, base)
    try:
        assert warm.wait_ready()
        if config.cgroups:
            members = [int(p) for path in warm.cgroup
                       for p in Path(path, "cgroup.procs").read_text().split()]
            limits = {name: Path(path, name).read_text().strip() for path in warm.cgroup
                      for name in ("memory.limit_in_bytes", "memory.max", "pids.max")
                      if Path(path, name).exists()}
            assert str(config.limits.memory_mb * 2**20) in limits.values()
            assert limits["pids.max"] == str(config.limits.tasks)
        else:
            assert not warm.cgroup
            kernel = _limits_of(_a_kernel_starts(warm))
            assert kernel["Max address space"] == str(config.limits.memory_mb * 2**20)
            assert kernel["Max processes"] == str(config.limits.tasks)
        inside = {p.pid for p in psutil.Process(warm.pid).children(recursive=True)}
        assert inside and (not config.cgroups or inside <= set(members))
        assert warm.init_pid in inside  # the namespace's pid 1, seen from the host
    finally:
        warm.kill()
        shutil.rmtree(base, ignore_errors=True)
    assert not _still_running(inside)
    assert not any(Path(path).exists() for path in warm.cgroup or ())
    assert not warm.channel.exists()


def _cpu_controller_offered() -> bool:
    """Does this machine mount a cgroup v1 ``cpu`` hierarchy, or list ``cpu`` among this
    process's cgroup v2 controllers?"""
    from nbcourse.grading.execution import cgroups
    for point, kind, options in cgroups._mounts():
        if kind == "cgroup" and "cpu" in options:
            return True
        if kind == "cgroup2":
            own = cgroups._own_paths().get("", "/").lstrip("/")
            try:
                return "cpu" in Path(point, own, "cgroup.controllers").read_text().split()
            except OSError:
                continue
    return False


def test_each_submission_shares_the_cpu_as_one_group():
    """Red team 3: with no CPU cgroup, a submission's forty busy processes (each in a
    session of its own, so the scheduler's autogroups counted them apart) slowed the
    classmate graded alongside from 8 to 38 s, past a cell's timeout.  Root here may
    make a cpu cgroup: every process of a sandbox is then in one, the sandbox's own."""
    from nbcourse.grading.execution import cgroups

    offered = cgroups.find_parents()
    name = f"channel-test-{secrets.token_hex(4)}"
    try:
        paths = cgroups.create(offered, name, GradingLimits(cell_timeout=30))
        enforced = cgroups.describe(offered, GradingLimits(cell_timeout=30), kind="bwrap")
        if os.geteuid() != 0 or not offered or not _cpu_controller_offered():
            assert enforced["cpu"] == "each process its own share of the CPU"
            return
        assert offered.get("cpu") and enforced["cpu"].startswith("one share of the CPU")
        child = subprocess.Popen(["sleep", "30"], preexec_fn=lambda: cgroups.enter(paths))
        try:
            lines = Path(f"/proc/{child.pid}/cgroup").read_text().splitlines()
        finally:
            child.kill()
            child.wait()
        cpu = [line for line in lines if "cpu" in line.split(":")[1].split(",")] \
            if offered["version"] == 1 else [line for line in lines if line.startswith("0::")]
        assert cpu and all(line.endswith("/" + name) for line in cpu), lines
    finally:
        cgroups.kill([str(Path(offered[key]) / name) for key in ("memory", "pids", "cpu")
                      if offered.get(key)])
        cgroups.remove_parents(offered)


def test_results_record_the_limits_in_force(tmp_path):
    """Issue 26: one GradingLimits, recorded whole, with what this machine enforced: a
    cgroup for the whole submission where the machine offers one to whoever grades
    (root, here), and otherwise the limit on each process, said as "rlimit only"."""
    from nbcourse.grading.execution import cgroups

    offered = cgroups.find_parents()
    cgroups.remove_parents(offered)
    result = grade_batch("01_weather", [FIXTURES / "correct.ipynb"], tmp_path / "out",
                         jobs=1, sandbox="bwrap", timeout=20, memory_mb=1500, progress=None)
    assert result.results[0].total == 10.0
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    limits = data["limits"]
    assert limits["cell_timeout"] == 20 and limits["memory_mb"] == 1500
    assert limits["total_timeout"] == 300 and limits["tasks"] > 0
    enforced = limits["enforced"]
    if offered.get("memory"):
        assert enforced["mechanism"].startswith("cgroup v")
        assert "1500 MB for the whole submission" in enforced["memory"]
    else:
        assert os.geteuid() != 0, "root has memory cgroups on this machine"
        assert enforced["mechanism"].startswith("rlimit only")
        assert "1500 MB of address space per process" in enforced["memory"]
    assert enforced["capabilities"].startswith("none") and "disabled" in enforced["user_namespaces"]
    assert data["isolation"]["mechanism"] == enforced["mechanism"]


ORDINARY_USER_BATCH = r"""
import json, os, sys
from nbcourse.grading.batch import grade_batch
batch = grade_batch("01_weather", [sys.argv[1]], sys.argv[2], jobs=int(sys.argv[3]),
                    sandbox="bwrap", progress=None)
print(json.dumps({"uid": os.getuid(), "enforced": batch.enforced,
                  "rows": {r.submission: [r.status, r.total] for r in batch.results}}))
"""


def _batch_as_ordinary_user(fixtures: tuple[str, ...], jobs: int = 2, in_order: bool = False,
                            tmp_name: str = "tmp"):
    """Grade ``fixtures`` with ``ORDINARY_USER_BATCH`` as an ordinary user (``nobody`` when
    the tests run as root): (the finished process, what is left in its TMPDIR, named
    ``tmp_name``).  With ``in_order``, each is named ``NN_<fixture>`` by its place, so a
    fixture may come twice and ``jobs=1`` grades them in the order given."""
    folder = Path(tempfile.mkdtemp(prefix="nbcourse-ordinary-"))
    try:
        submitted, tmp = folder / "submitted", folder / tmp_name
        submitted.mkdir()
        tmp.mkdir()
        for number, name in enumerate(fixtures):
            label = f"{number:02d}_{name}" if in_order else name
            shutil.copyfile(FIXTURES / f"{name}.ipynb", submitted / f"{label}.ipynb")
        command = [sys.executable, "-c", ORDINARY_USER_BATCH, str(submitted), str(folder / "out"),
                   str(jobs)]
        if os.geteuid() == 0:
            for path in (folder, submitted, tmp, *submitted.iterdir()):
                os.chown(path, 65534, 65534)
            command = as_nobody(command, folder)
        env = {**os.environ, "HOME": str(folder), "TMPDIR": str(tmp)}
        run = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env,
                             cwd=folder)
        return run, sorted(os.listdir(tmp))
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


def test_an_ordinary_user_grades_a_sandboxed_batch():
    """Issue 23: the sandbox holds for a grader that is an ordinary user too, not only for
    root (CI's case).  As root, the batch runs as nobody (setpriv), with no capability
    and no cgroup it may create; as anyone else, as that user.  Honest, broken and
    hostile rows get their usual result, and nothing of the batch is left on disk."""
    run, left = _batch_as_ordinary_user(("correct", "wrong", "kernel_killed",
                                         "sandbox_01_escape", "sandbox_04_locked_folders",
                                         "sandbox_03_fill_channel"))
    assert run.returncode == 0, run.stderr[-3000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["uid"] != 0
    assert found["rows"] == {"correct": ["graded", 10.0], "wrong": ["graded", 3.65],
                             "kernel_killed": ["kernel died", 0.0],
                             "sandbox_01_escape": ["graded", 10.0],
                             "sandbox_04_locked_folders": ["graded", 10.0],
                             # its channel is a small tmpfs here too: 16 MB never fit
                             "sandbox_03_fill_channel": ["graded", 10.0]}
    assert found["enforced"]["sandbox"] == "bwrap"
    assert found["enforced"]["channel"].startswith("a tmpfs of")
    assert found["enforced"]["capabilities"].startswith("none")
    assert left == []  # no channel, connection file, home or locked folder remains


# ------------------------------------------------- one sandbox, one submission after another
def test_only_the_submissions_folders_are_writable_inside(config, tmp_path):
    """A sandbox serves one submission after another, so every place a kernel may write
    must be one the kernel server empties: its home, /tmp and /dev/shm (and the channel,
    emptied from outside).  bwrap's own root and /dev are unsized tmpfs unless remounted
    read-only, which they are."""
    found = _inside(config, tmp_path, """
import json, os
writable = []
for place in ("/", "/etc", "/home", "/dev", "/usr", "/var", "/run", "/home/student", "/tmp",
              "/dev/shm"):
    try:
        with open(os.path.join(place, "planted"), "w") as handle:
            handle.write("x")
        writable.append(place)
    except OSError:
        pass
print(json.dumps({"writable": writable}))
""")
    assert found["writable"] == ["/home/student", "/tmp", "/dev/shm"]


def test_objects_that_outlive_their_process_cannot_be_made(config, tmp_path):
    """System V shared memory, semaphores, message queues and POSIX message queues
    survive the process that made them: the seccomp filter refuses them."""
    found = _inside(config, tmp_path, """
import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
IPC_PRIVATE, IPC_CREAT = 0, 0o1000
made = {"shm": libc.shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0o600) >= 0,
        "sem": libc.semget(IPC_PRIVATE, 1, IPC_CREAT | 0o600) >= 0,
        "msg": libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600) >= 0}
try:
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    made["mq"] = rt.mq_open(b"/planted", 0o100 | 2, 0o600, None) >= 0
except OSError:
    made["mq"] = libc.mq_open(b"/planted", 0o100 | 2, 0o600, None) >= 0
print(json.dumps(made))
""")
    assert found == {"shm": False, "sem": False, "msg": False, "mq": False}


def _grade_in_order(names: list[str], tmp_path: Path, sandbox_mode: str = "bwrap") -> dict:
    """Grade fixtures one after another in ONE worker (``--jobs 1``), so each submission
    gets the sandbox its predecessor used, if any is reused at all."""
    folder = tmp_path / "submitted"
    folder.mkdir()
    order = {}
    for number, name in enumerate(names):
        label = f"{number:02d}_{name}"
        shutil.copyfile(FIXTURES / f"{name}.ipynb", folder / f"{label}.ipynb")
        order[label] = name
    batch = grade_batch("01_weather", [folder], tmp_path / "out", jobs=1,
                        sandbox=sandbox_mode, progress=None)
    return {label: (r.status, r.total) for label in order
            for r in batch.results if r.submission == label}


@pytest.mark.parametrize("mode", ["bwrap", "off"])
def test_a_submission_leaves_nothing_for_the_next_one(tmp_path, mode):
    """Issue 23 (speed): kernels are forked by a kernel server that serves one
    submission after another.  What one submission plants for the next (a module that
    shadows ``fractions``, an IPython start-up file that exits, a daemon that plants them
    again after the tidy-up, an unwritable home, locked folders), a server stopped or
    killed by its kernel: the classmate graded next by the same worker keeps 10 of 10."""
    names = ["sandbox_05_poison_next", "correct", "sandbox_06_stop_server", "correct",
             "attack_03_daemon_rewrites", "correct"]
    rows = _grade_in_order(names, tmp_path, mode)
    assert list(rows.values()) == [("graded", 10.0)] * len(names), rows


@pytest.mark.parametrize("mode", ["bwrap", "off"])
def test_a_submission_cannot_copy_the_one_graded_before_it(tmp_path, mode):
    """Red team: the kernel server receives each notebook on its stdin, and every kernel
    is a fork of the server, so a kernel's memory holds what the server freed but did not
    erase.  ``sandbox_07_copy_previous`` hands in no answer of its own and runs the answer
    cells it finds there: graded after a classmate (three times, since what survives in
    freed memory varies), every one of its answers must still be missing."""
    folder = tmp_path / "submitted"
    folder.mkdir()
    for number in range(3):
        shutil.copyfile(FIXTURES / "correct.ipynb", folder / f"{2 * number:02d}_correct.ipynb")
        shutil.copyfile(FIXTURES / "sandbox_07_copy_previous.ipynb",
                        folder / f"{2 * number + 1:02d}_copy.ipynb")
    batch = grade_batch("01_weather", [folder], tmp_path / "out", jobs=1, sandbox=mode,
                        progress=None)
    rows = {r.submission: (r.status, r.total, r.reasons) for r in batch.results}
    missing = "not defined after running the notebook: likelihood, joint_scores, predict, " \
              "p_no, p_win_given_free"
    assert all(rows[f"{2 * n:02d}_correct"] == ("graded", 10.0, []) for n in range(3)), rows
    for number in range(3):  # its scan of memory may outlast the cell limit on a busy machine
        status, total, reasons = rows[f"{2 * number + 1:02d}_copy"]
        assert total == 0.0 and status in ("answer missing", "timed out"), rows
        assert missing in reasons, rows


def test_nothing_is_left_on_the_emptied_folders_themselves(tmp_path):
    """Red team: the wipe empties the home, /tmp and /dev/shm and restores each folder's
    mode, but an extended attribute or a time stamp set on the folder itself stays for
    the next submission (here one that shows it as its answer to q4).  Sandboxed only:
    without a sandbox a kernel's /dev/shm is the machine's (no isolation, as documented)."""
    rows = _grade_in_order(["sandbox_08_plant_metadata", "sandbox_08_find_metadata"],
                           tmp_path, "bwrap")
    assert list(rows.values()) == [("graded", 10.0)] * 2, rows


@pytest.mark.parametrize("mode", ["bwrap", "off"])
@pytest.mark.parametrize("names", [
    ["sandbox_11_limit_server", "correct", "correct"],
    ["sandbox_12_nice_server", "sandbox_12_find_priority"],
], ids=["open_files_limit", "priority"])
def test_a_kernel_cannot_change_the_server_for_the_next_kernels(tmp_path, mode, names):
    """Red team: the kernel server runs as the same user as its kernels, so a kernel may
    lower the server's limits (``prlimit``) and priority (``setpriority``,
    ``sched_setscheduler``) although it cannot trace or signal it; every kernel forked
    afterwards inherits them.  The submissions after it keep 10 of 10."""
    rows = _grade_in_order(names, tmp_path, mode)
    assert list(rows.values()) == [("graded", 10.0)] * len(names), rows


#: Issue 33, row 1: each attack on the channel folder itself, then classmates (one of
#: which shows what it finds left on the channel), all in one worker.
CHANNEL_ORDER = ["sandbox_13_chmod_channel", "correct", "sandbox_13_acl_channel", "correct",
                 "sandbox_13_xattr_channel", "sandbox_13_find_channel", "correct"]


@pytest.mark.parametrize("mode", ["bwrap", "off"])
def test_a_submission_cannot_change_the_channel_for_the_next_ones(tmp_path, mode):
    """Red team (issue 33): the channel is the one host folder bound into the long-lived
    sandbox, owned by the sandbox's user.  A correct notebook that ends by making it
    unwritable (mode 500), or gives it a default ACL (files made in it later unreadable),
    scored 10 and every later kernel of its worker died before replying to kernel_info;
    an extended attribute or inode flags on it were there for the next submission to
    read.  With ``--jobs 1`` every classmate after them keeps 10 of 10."""
    rows = _grade_in_order(CHANNEL_ORDER, tmp_path, mode)
    assert list(rows.values()) == [("graded", 10.0)] * len(CHANNEL_ORDER), rows


def test_a_submission_cannot_change_the_channel_as_an_ordinary_user():
    """Issue 33, row 1, for a grader that is an ordinary user: the channel is then a
    folder on the grader's disk, owned by the grader's own user, which the kernel is
    inside the sandbox; the classmates after each attack keep 10 of 10 all the same."""
    run, left = _batch_as_ordinary_user(tuple(CHANNEL_ORDER), jobs=1, in_order=True)
    assert run.returncode == 0, run.stderr[-3000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["uid"] != 0
    assert list(found["rows"].values()) == [["graded", 10.0]] * len(CHANNEL_ORDER), found["rows"]
    assert left == []


def test_a_worker_without_mounts_of_its_own_records_a_plain_channel(monkeypatch, capsys):
    """Review of issue 36: a root grader's worker that could not make a mount namespace
    kept "a tmpfs of 8 MB" in results.json, though its channels were plain folders."""
    from nbcourse.grading.execution import worker

    monkeypatch.setattr(worker, "private_mounts", lambda: False)
    for run_as in (65534, -1):  # a root grader's worker, an ordinary user's
        given = sandbox.SandboxConfig("bwrap", limits=LIMITS, run_as=run_as, worker_mounts=True)
        assert given.describe()["channel"].startswith("a tmpfs")
        kept = worker.own_mounts(given)
        assert not kept.private_channel
        assert kept.describe()["channel"].startswith("a folder in the grader's TMPDIR")
    assert "plain folders" in capsys.readouterr().err
    monkeypatch.setattr(worker, "private_mounts", lambda: True)
    assert worker.own_mounts(given) is given


def test_a_mount_namespace_made_but_not_finished_fails_closed(monkeypatch):
    """Review 4, finding 8: when ``unshare`` worked but a later step did not (here the
    remount that keeps the worker's mounts from the host's), ``private_mounts`` returned
    False and the worker went on grading, with plain-folder channels, inside the half-made
    namespace.  Now it is ``HalfMade``, and the worker's sandbox is unavailable, saying why."""
    from nbcourse.grading.execution import mounts, worker

    class Libc:  # unshare works, the remount is refused; nothing real is changed
        def unshare(self, flags):
            return 0

        def mount(self, *args):
            return -1

    monkeypatch.setattr(mounts, "_libc", Libc)
    monkeypatch.setattr(mounts.os, "geteuid", lambda: 0)  # no user namespace to map
    with pytest.raises(mounts.HalfMade, match="could not be finished"):
        mounts.private_mounts()
    assert not mounts.has_private_mounts()
    given = sandbox.SandboxConfig("bwrap", limits=LIMITS, run_as=65534, worker_mounts=True)
    with pytest.raises(sandbox.SandboxUnavailable, match="cannot isolate its submissions"):
        worker.own_mounts(given)


def test_a_folder_is_reset_to_its_first_state_whatever_its_owner_did(tmp_path):
    """``folder_state.reset_folder`` undoes what the folder's owner may do to the folder
    itself (no write access, an access and a default ACL, an extended attribute, inode
    flags, times), empties it, and says when it cannot (the folder swapped for a link)."""
    import fcntl
    import struct

    from nbcourse.grading.execution import folder_state as state

    folder = tmp_path / "channel"
    folder.mkdir(mode=0o700)
    first = state.folder_state(folder)
    (folder / "locked" / "inner").mkdir(parents=True)
    os.chmod(folder / "locked", 0)
    acl = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", tag, 0, 0xFFFFFFFF)
                                          for tag in (0x01, 0x04, 0x20))
    # in the order an owner who is not root must: the access ACL (mode 000) last
    os.setxattr(folder, "user.planted", b"left behind")
    try:
        with open(folder) as handle:
            fcntl.ioctl(handle, state.FS_IOC_SETFLAGS, struct.pack("i", 0x40))  # no dump
    except OSError:
        pass  # a file system without inode flags
    os.setxattr(folder, "system.posix_acl_default", acl)
    os.setxattr(folder, "system.posix_acl_access", acl)
    os.utime(folder, (1234567890, 1234567890))
    assert os.lstat(folder).st_mode != first.mode  # (its xattrs: unreadable at mode 000)
    assert state.reset_folder(folder, first) == []
    assert state.folder_state(folder) == first and os.listdir(folder) == []
    folder.rmdir()
    folder.symlink_to(tmp_path)
    assert state.reset_folder(folder, first) != []


def test_a_channel_that_cannot_be_restored_ends_its_sandbox(config, monkeypatch):
    """When the channel cannot be brought back as it was, the next submission gets a new
    sandbox (and a new channel), never the changed one."""
    from nbcourse.grading import specs
    from nbcourse.grading.execution.runner import run_submission
    from nbcourse.grading.execution.worker import KernelServers
    from nbcourse.grading.forbidden import flagged_answers

    monkeypatch.setattr(launcher, "reset_folder", lambda path, first: [f"{path}: planted"])
    exercise = specs.load("01_weather")
    base = Path(tempfile.mkdtemp(prefix="nbcourse-sandbox-test-"))
    os.chmod(base, 0o711)
    servers = KernelServers(config, base, "token")
    seen = []
    try:
        for _ in range(2):
            report = run_submission(FIXTURES / "correct.ipynb", exercise.probe_plan(),
                                    config.limits, servers.take, scan_source=flagged_answers)
            seen.append((report.kernel.value, servers.server.pid, servers.server.channel))
            servers.after_submission()
    finally:
        servers.close()
        shutil.rmtree(base, ignore_errors=True)
    assert [outcome for outcome, _, _ in seen] == ["ok", "ok"]
    assert seen[0][1] != seen[1][1] and seen[0][2] != seen[1][2]


def test_a_changed_channel_is_never_handed_to_a_kernel(config):
    """Before every kernel the worker looks at the channel once more: a channel changed
    since the last check (here by hand) means a new sandbox, with a channel of its own."""
    from nbcourse.grading.execution.worker import KernelServers

    base = Path(tempfile.mkdtemp(prefix="nbcourse-sandbox-test-"))
    os.chmod(base, 0o711)
    servers = KernelServers(config, base, "token")
    try:
        first = servers.take()
        assert servers.take() is first  # as it was: kept
        os.chmod(first.channel, 0o500)
        second = servers.take()
        assert second is not first and second.channel != first.channel and second.healthy
    finally:
        servers.close()
        shutil.rmtree(base, ignore_errors=True)


def _socket_folders() -> set[str]:
    """The short folders that hold kernels' sockets when TMPDIR is long, on the machine."""
    return {name for name in os.listdir("/tmp") if name.startswith("nbcourse-sockets-")}


@pytest.mark.parametrize("mode", ["bwrap", "off"])
def test_a_long_tmpdir_still_grades(tmp_path, mode, monkeypatch):
    """Issue 33, row 11: a kernel's ZeroMQ sockets were made in the batch's folder under
    TMPDIR, and a Unix socket's path holds 107 bytes: with a TMPDIR over about 41
    characters every row was "grader error" (File name too long).  With a TMPDIR of 130
    characters the batch grades as usual and leaves nothing, there or in /tmp."""
    outer = Path(tempfile.mkdtemp(prefix="nbcourse-long-"))
    long = outer / ("d" * 100)
    long.mkdir()
    for folder in (outer, long):
        os.chmod(folder, 0o755)  # as root, the sandbox's user reaches its channel through it
    monkeypatch.setattr(tempfile, "tempdir", str(long))
    monkeypatch.setenv("TMPDIR", str(long))
    before = _socket_folders()
    try:
        rows = _grade_in_order(["correct", "wrong"], tmp_path, mode)
        left = os.listdir(long)
    finally:
        shutil.rmtree(outer, ignore_errors=True)
    assert len(str(long)) > 100
    assert rows == {"00_correct": ("graded", 10.0), "01_wrong": ("graded", 3.65)}, rows
    assert left == [] and _socket_folders() == before


def test_the_socket_folder_of_a_killed_worker_is_removed_by_its_batch(tmp_path):
    """A worker removes its short socket folder when it ends; for a worker that was
    killed, the batch removes it by the batch's token, and nobody else's."""
    from nbcourse.grading.execution import connection

    deep = tmp_path / ("d" * 100)
    assert connection.socket_folder(tmp_path, "ours") == tmp_path  # short enough: as it is
    ours, theirs = (connection.socket_folder(deep, token) for token in ("ours", "theirs"))
    try:
        assert ours.parent == theirs.parent == Path("/tmp") and ours != theirs
        assert len(str(ours / "channel-12345678" / "kernel-99999")) <= 107
        connection.remove_socket_folders("ours")
        assert not ours.exists() and theirs.is_dir()
    finally:
        shutil.rmtree(ours, ignore_errors=True)
        shutil.rmtree(theirs, ignore_errors=True)


def test_a_long_tmpdir_as_an_ordinary_user():
    """Issue 33, row 11, for a grader that is an ordinary user (whose workers mount each
    channel in a user namespace of their own): a TMPDIR of over 120 characters grades as
    usual."""
    before = _socket_folders()
    run, left = _batch_as_ordinary_user(("correct",), tmp_name="t" * 100)
    assert run.returncode == 0, run.stderr[-3000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["rows"] == {"correct": ["graded", 10.0]}
    assert left == [] and _socket_folders() == before


def _chain_processes() -> list[int]:
    """Pids of the processes ``sandbox_09_fork_chain`` starts, on the whole machine."""
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                if b"server, notebook = int(sys.argv[1])" in handle.read():
                    found.append(int(name))
        except (OSError, ValueError):
            pass
    return found


@pytest.mark.parametrize("mode", ["bwrap", "off"])
def test_a_process_that_keeps_forking_does_not_outlive_its_submission(tmp_path, mode):
    """Red team: ``sandbox_09_fork_chain`` starts a process that forks and exits at once,
    over and over; each grader scan lists pids, then reads their parents, by which time
    the one listed is gone and its child was never listed.  When it survives the tidy-up
    it kills the next classmate's kernel.  Three attacker/classmate pairs: every
    classmate keeps 10 of 10, and nothing of the chain runs after the batch."""
    names = ["sandbox_09_fork_chain", "correct"] * 3
    try:
        rows = _grade_in_order(names, tmp_path, mode)
        # a process killed a moment ago may not have run its exit yet on a loaded machine;
        # a chain that still forks after 10 s is one the grader missed
        deadline = time.monotonic() + 10
        while (left := _chain_processes()) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        for _ in range(50):  # never leave one spinning on the machine: its group at once
            for pid in _chain_processes():
                try:
                    os.killpg(os.getpgid(pid), 9)
                except OSError:
                    pass
    assert list(rows.values()) == [("graded", 10.0)] * len(names), rows
    assert left == []


@pytest.mark.parametrize("mode", ["bwrap", "off"])
def test_deeply_nested_folders_are_removed_and_cost_nobody_a_point(tmp_path, mode, monkeypatch):
    """Red team: ``sandbox_10_deep_folders`` nests 3000 folders in its channel and its
    home.  The batch still grades everyone (the classmate after it keeps 10 of 10) and
    leaves nothing in the temporary folder; where the channel or the home is a folder on
    the grader's disk (``--sandbox off``; bwrap for an ordinary user), the grader itself
    removes them."""
    # a short path (a ZeroMQ socket's path must fit in 107 bytes), reachable by nobody
    scratch = Path(tempfile.mkdtemp(prefix="nbcourse-deep-"))
    os.chmod(scratch, 0o711)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    try:
        rows = _grade_in_order(["sandbox_10_deep_folders", "correct"], tmp_path, mode)
        left = os.listdir(scratch)
    finally:
        subprocess.run(["rm", "-rf", str(scratch)], check=False)
    assert list(rows.values()) == [("graded", 10.0)] * 2, rows
    assert left == []


def test_deeply_nested_folders_as_an_ordinary_user():
    """Red team: as an ordinary user the channel is a folder on the grader's disk (no
    tmpfs of 64 inodes), so the grader removes ``sandbox_10_deep_folders``' 3000 nested
    folders itself: the batch must finish, grade the classmate, and leave nothing."""
    run, left = _batch_as_ordinary_user(("sandbox_10_deep_folders", "correct"))
    assert run.returncode == 0, run.stderr[-1000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["rows"] == {"sandbox_10_deep_folders": ["graded", 10.0],
                             "correct": ["graded", 10.0]}
    assert left == []


def test_a_clean_submission_hands_its_sandbox_to_the_next(config):
    """The speed of a sandboxed batch comes from reusing one sandbox (and its imports)
    while submissions end cleanly: two honest notebooks, one kernel server, two kernels."""
    from nbcourse.grading import specs
    from nbcourse.grading.execution.runner import run_submission
    from nbcourse.grading.execution.worker import KernelServers
    from nbcourse.grading.forbidden import flagged_answers

    exercise = specs.load("01_weather")
    base = Path(tempfile.mkdtemp(prefix="nbcourse-sandbox-test-"))
    os.chmod(base, 0o711)
    servers = KernelServers(config, base, "token")
    seen = []
    try:
        for name in ("correct", "wrong", "correct"):
            report = run_submission(FIXTURES / f"{name}.ipynb", exercise.probe_plan(),
                                    config.limits, servers.take, scan_source=flagged_answers)
            servers.after_submission()
            seen.append((report.kernel.value, servers.server.pid, servers.server.healthy))
    finally:
        servers.close()
        shutil.rmtree(base, ignore_errors=True)
    assert [outcome for outcome, _, _ in seen] == ["ok"] * 3
    assert len({pid for _, pid, _ in seen}) == 1 and all(healthy for _, _, healthy in seen)


def test_a_sweep_while_the_server_imports_spares_it(config):
    """A submission that is not a notebook ends before the worker's kernel server has
    finished importing: the sweep after it kills nothing of that server."""
    from nbcourse.grading.execution.worker import KernelServers

    base = Path(tempfile.mkdtemp(prefix="nbcourse-sandbox-test-"))
    os.chmod(base, 0o711)
    servers = KernelServers(config, base, "token")
    try:
        first = servers.server
        servers.after_submission()  # at once: the server is still importing
        assert servers.server is first and servers.take() is first and first.healthy
    finally:
        servers.close()
        shutil.rmtree(base, ignore_errors=True)


def test_removing_a_tree_twice_at_once_never_touches_its_parent(tmp_path):
    """``remove_tree`` makes locked folders removable, but only inside the tree: two
    processes removing the same grading folder at once once set its parent, /tmp, to mode
    700, and every sandbox's self-test on the machine failed after that."""
    from nbcourse.grading.execution.sandbox import remove_tree

    for trial in range(5):
        parent = tmp_path / f"parent{trial}"
        parent.mkdir()
        os.chmod(parent, 0o1777)
        tree = parent / "tree"
        for number in range(30):
            (tree / f"d{number}" / "inner").mkdir(parents=True)
            (tree / f"d{number}" / "inner" / "file").write_text("x")
        (tree / "locked" / "inner").mkdir(parents=True)
        os.chmod(tree / "locked" / "inner", 0)
        os.chmod(tree / "locked", 0)
        threads = [threading.Thread(target=remove_tree, args=(tree,)) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not tree.exists()
        assert oct(parent.stat().st_mode & 0o7777) == oct(0o1777)


def test_corpora_reached_through_a_link_are_found_inside(tmp_path, monkeypatch):
    """``NBCOURSE_DATA`` may name a folder through a link: the sandbox binds the real
    folder, so the kernel must be told the real path too (it was told the link's, which
    does not exist inside: exercise 05 failed on every solution)."""
    folder = Path(tempfile.mkdtemp(prefix="nbcourse-data-test-"))
    try:
        os.chmod(folder, 0o755)
        real = folder / "real"
        real.mkdir(mode=0o755)
        (real / "corpus.txt").write_text("spam\n")
        os.chmod(real / "corpus.txt", 0o644)
        (folder / "link").symlink_to(real)
        monkeypatch.setenv("NBCOURSE_DATA", str(folder / "link"))
        linked = sandbox.make_config("bwrap", LIMITS, course_folders())
        try:
            found = _inside(linked, tmp_path, """
import json, os
place = os.environ["NBCOURSE_DATA"]
print(json.dumps({"place": place, "files": sorted(os.listdir(place))}))
""")
        finally:
            sandbox.release(linked)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert found == {"place": str(real.resolve()), "files": ["corpus.txt"]}
