"""Grading on a Dask cluster: the same gradebook as locally, no row lost when a worker
dies, and only the instructor's workers grade.  The cluster of ``--scheduler local:2``
(two worker processes, throw-away TLS certificates) stands in for a real one; each worker
sandboxes every submission with bubblewrap exactly as ``--jobs 2`` does here.  A real
scheduler and worker, started with the README's commands and ``nbcourse certs``, grade
too, and keep out a worker and a client without the instructor's certificates."""
from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import pytest
from cgroup_support import made_by
from nobody_support import as_nobody

from nbcourse.cli import main
from nbcourse.grading import cluster
from nbcourse.grading.batch import grade_batch
from nbcourse.grading.certs import certificate_files, client_security, make_certificates

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "submissions"
# statuses decided by the input, never by the clock (the machine may be busy)
NAMES = ["correct", "wrong", "early_exception", "answer_deleted", "answer_renamed", "not_json",
         "empty", "kernel_killed"]
_spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)
# three batches of nine sandboxed submissions and a cluster's start on two shared cores
pytestmark = pytest.mark.timeout(900)


def _row(result) -> dict:
    """A row as results.json has it, without where the file was (each test has its folder)."""
    row = result.to_json()
    row.pop("path")
    return row


def _class(root: Path) -> Path:
    folder = root / "flat"
    folder.mkdir()
    for name in NAMES:
        (folder / f"{name}.ipynb").write_bytes((FIXTURES / f"{name}.ipynb").read_bytes())
    # flagged by the forbidden-estimator scan, which runs in the grading worker
    (folder / "uses_the_estimator.ipynb").write_text(
        make_fixtures.render(make_fixtures.uses_the_estimator()), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The gradebook of ``--jobs 2`` on this machine, sandboxed: what the cluster must match."""
    root = tmp_path_factory.mktemp("local")
    return grade_batch("01_weather", [_class(root)], root / "out", jobs=2, timeout=30,
                       sandbox="bwrap", progress=None), root / "out"


@pytest.fixture(scope="module")
def client():
    """The cluster ``--scheduler local:2`` starts, and a client of it."""
    client, close, _ = cluster.connect("local:2")
    try:
        yield client
    finally:
        close()


def test_a_cluster_gives_the_same_gradebook_as_two_local_jobs(tmp_path, client, local):
    local, local_out = local
    remote = grade_batch("01_weather", [_class(tmp_path)], tmp_path / "dask", timeout=30,
                         sandbox="bwrap", progress=None, scheduler=client)
    assert [_row(r) for r in remote.results] == [_row(r) for r in local.results]
    assert (tmp_path / "dask" / "grades.csv").read_bytes() == \
        (local_out / "grades.csv").read_bytes()
    assert remote.isolation["sandbox"] == local.isolation["sandbox"] == "bwrap"
    assert remote.isolation["dask_workers"] == 2
    assert remote.integrity == local.integrity and remote.integrity.pairs  # the same hints
    (flagged,) = [r for r in remote.results if r.submission == "uses_the_estimator"]
    # the flag stays with joint_scores; predict and p_no are marked by follow-through
    assert [q.flags for q in flagged.questions[1:4]] == [["uses CategoricalNB"], [], []]
    assert [q.score for q in flagged.questions[1:4]] == [0.0, 2.0, 1.0]


def _scratch_folders() -> set[str]:
    return {path.name for path in Path(tempfile.gettempdir()).glob("nbcourse-dask-*")}


def test_killing_a_worker_mid_batch_loses_no_row(tmp_path, client, local):
    local, _ = local
    folder = _class(tmp_path)
    pids = client.run(os.getpid)
    killed = threading.Event()
    victims: list[int] = []
    before = _scratch_folders()

    def kill_one(result):
        if killed.is_set():
            return
        busy = [address for address, keys in client.processing().items() if keys]
        if busy:  # a worker in the middle of a submission
            killed.set()
            victims.append(pids[busy[0]])
            os.kill(victims[0], signal.SIGKILL)

    remote = grade_batch("01_weather", [folder], tmp_path / "dask", timeout=30,
                         sandbox="bwrap", progress=None, scheduler=client, on_result=kill_one)
    assert killed.is_set()
    assert [r.submission for r in remote.results] == [r.submission for r in local.results]
    for mine, theirs in zip(remote.results, local.results):
        # graded again elsewhere (the same row), or a row that says the worker died
        assert _row(mine) == _row(theirs) or (
            mine.status == "grader error" and "died" in " ".join(mine.reasons)), mine
    regraded = sum(_row(m) == _row(t) for m, t in zip(remote.results, local.results))
    assert regraded == len(local.results)
    # the killed worker could not remove its scratch folder: the batch did
    assert _scratch_folders() == before, "a Dask worker's scratch folder was left on disk"
    # nor its sandboxes' cgroups, in any hierarchy (issue 36: one parent per run was left)
    assert made_by(victims) == set(), "a killed Dask worker's cgroup folders were left"


# --------------------------------------------------------------- only the instructor's workers
def _small_class(root: Path, names: list[str]) -> Path:
    folder = root / "small"
    folder.mkdir()
    for name in names:
        (folder / f"{name}.ipynb").write_bytes((FIXTURES / f"{name}.ipynb").read_bytes())
    return folder


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "127.0.0.1:8786"])
def test_a_scheduler_without_tls_is_refused_in_words_unless_insecure(tmp_path, capsys, address):
    """Issue 33, item 2: a plain TCP scheduler lets any machine that reaches it be a worker."""
    code = main(["grade", "01_weather", str(FIXTURES / "correct.ipynb"), "--out",
                 str(tmp_path / "out"), "--source", str(REPO / "exercises" / "source"),
                 "--scheduler", address])
    error = capsys.readouterr().err
    assert code == 2
    for words in ("any machine that can reach it", "every hidden input", "change any mark",
                  "--insecure", "nbcourse certs"):
        assert words in error, error
    assert not (tmp_path / "out").exists()  # refused before anything was read or written
    cluster.check_scheduler(address, insecure=True)  # told: accepted


def test_a_tls_scheduler_needs_the_instructors_certificates(tmp_path):
    with pytest.raises(ValueError, match="needs --tls DIR"):
        cluster.check_scheduler("tls://127.0.0.1:8786")
    with pytest.raises(ValueError, match="is not tls://"):
        cluster.check_scheduler("tcp://127.0.0.1:8786", tls=tmp_path, insecure=True)
    with pytest.raises(ValueError, match="must be tls://"):
        cluster.check_scheduler("ws://127.0.0.1:8786", tls=tmp_path)
    with pytest.raises(FileNotFoundError, match="nbcourse certs"):
        client_security(tmp_path)  # an empty folder


def test_nbcourse_certs_writes_private_keys_and_never_overwrites(tmp_path, capsys):
    folder = tmp_path / "certs"
    assert main(["certs", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == sorted(certificate_files())
    assert folder.stat().st_mode & 0o777 == 0o700
    for name in certificate_files():
        mode = (folder / name).stat().st_mode & 0o777
        assert mode == (0o600 if name.endswith("-key.pem") else 0o644), name
    assert not any("BEGIN" in p.read_text() and "PRIVATE" in p.read_text()
                   for p in folder.iterdir() if not p.name.endswith("-key.pem"))
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert main(["certs", str(folder)]) == 2
    assert "already holds" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def _started(command: list[str], cwd: Path, log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _connects(address: str, security) -> bool:
    from distributed import Client
    try:
        Client(address, security=security, timeout=10).close()
    except Exception:  # noqa: BLE001 - refused, whatever the way
        return False
    return True


def test_the_readmes_secured_cluster_grades_and_keeps_out_other_machines(tmp_path, local):
    """Issue 33, item 2: `dask scheduler` and `dask worker` started as the README says, with
    the certificates of `nbcourse certs`, grade as locally; a worker or a client holding
    no certificate of the instructor's CA (another CA's, or none) never gets in."""
    from distributed import Security
    local, _ = local
    certs, other = tmp_path / "certs", tmp_path / "other"
    make_certificates(certs)
    make_certificates(other)
    dask = str(Path(sys.executable).with_name("dask"))
    scheduler_file = tmp_path / "scheduler.json"
    tls = ["--tls-ca-file", "ca.pem"]
    processes = [_started([dask, "scheduler", *tls, "--tls-cert", "scheduler.pem",
                           "--tls-key", "scheduler-key.pem", "--host", "tls://127.0.0.1",
                           "--port", "0", "--dashboard-address", "127.0.0.1:0",
                           "--scheduler-file", str(scheduler_file)], certs, tmp_path / "s.log")]
    try:
        for _ in range(600):
            if scheduler_file.exists() and scheduler_file.stat().st_size:
                break
            time.sleep(0.1)
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tls://127.0.0.1:")
        worker = [dask, "worker", address, "--nthreads", "1", "--no-dashboard"]
        processes.append(_started(worker + [*tls, "--tls-cert", "worker.pem", "--tls-key",
                                            "worker-key.pem"], certs, tmp_path / "w.log"))
        rogues = [_started(worker + [*tls, "--tls-cert", "worker.pem", "--tls-key",
                                     "worker-key.pem"], other, tmp_path / "rogue-ca.log"),
                  _started([dask, "worker", "tcp://" + address.partition("://")[2],
                            "--nthreads", "1", "--no-dashboard"], tmp_path,
                           tmp_path / "rogue-tcp.log")]
        processes += rogues
        from distributed import Client
        with Client(address, security=client_security(certs), timeout=60) as ours:
            ours.wait_for_workers(1, timeout=300)
            remote = grade_batch("01_weather", [_small_class(tmp_path, ["correct", "wrong"])],
                                 tmp_path / "dask", timeout=30, sandbox="bwrap",
                                 progress=None, scheduler=address, tls=certs)
            for rogue in rogues:  # each gave up: no certificate the scheduler trusts
                rogue.wait(timeout=300)
            workers = ours.scheduler_info()["workers"]
        assert len(workers) == 1 and all(rogue.returncode != 0 for rogue in rogues)
        theirs = {r.submission: _row(r) for r in local.results}
        assert [_row(r) for r in remote.results] == [theirs["correct"], theirs["wrong"]]
        assert remote.isolation["dask_security"] == cluster.INSTRUCTOR_TLS
        assert not remote.warnings
        # a client with another CA's certificate (trusting ours), or with none
        stranger = Security(require_encryption=True, tls_ca_file=str(certs / "ca.pem"),
                            tls_client_cert=str(other / "client.pem"),
                            tls_client_key=str(other / "client-key.pem"))
        assert not _connects(address, stranger)
        assert not _connects("tcp://" + address.partition("://")[2], None)
        assert _connects(address, client_security(certs))  # the control: ours gets in
    finally:
        for process in reversed(processes):
            _stop(process)


def test_insecure_grades_on_a_plain_scheduler_and_says_what_that_allowed(tmp_path, local):
    from distributed import LocalCluster
    local, _ = local
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None) as plain:
        remote = grade_batch("01_weather", [_small_class(tmp_path, ["correct"])],
                             tmp_path / "dask", timeout=30, sandbox="bwrap", progress=None,
                             scheduler=plain.scheduler_address, insecure=True)
    theirs = {r.submission: _row(r) for r in local.results}
    assert [_row(r) for r in remote.results] == [theirs["correct"]]
    assert remote.isolation["dask_security"] == cluster.NO_TLS
    assert any("--insecure" in w and "every hidden input" in w for w in remote.warnings)


# ------------------------------------------------------------------- the local cluster
def _listening() -> set[tuple[int, str, int]]:
    """(pid, ip, port) of every listening socket of this process and its children."""
    me = psutil.Process()
    found = set()
    for process in [me, *me.children(recursive=True)]:
        try:
            connections = process.net_connections(kind="inet")
        except psutil.Error:
            continue
        found |= {(process.pid, c.laddr.ip, c.laddr.port) for c in connections
                  if c.status == psutil.CONN_LISTEN}
    return found


NOBODY_CONNECTS = r"""
import asyncio, json, sys
from distributed import Security
from distributed.core import rpc

async def identity(address, security):
    async with rpc(address, timeout=10,
                   connection_args=security.get_connection_args("client")) as server:
        return await server.identity()

found = {}
for address in sys.argv[1:]:
    rest = address.partition("://")[2]
    for url, security in [("tcp://" + rest, Security(require_encryption=False)),
                          ("tls://" + rest, Security.temporary())]:
        try:
            asyncio.run(asyncio.wait_for(identity(url, security), 60))
            found[url] = "connected"
        except Exception as error:
            found[url] = type(error).__name__
print(json.dumps(found))
"""


def test_another_local_user_cannot_reach_the_local_cluster(tmp_path):
    """Issue 33, item 3: neither plain TCP nor TLS with a certificate of one's own reaches
    the scheduler, nannies or workers of `--scheduler local:1`; nothing else listens (no
    HTTP server on 8787 or elsewhere).

    As root, the prober is another local user (nobody, through setpriv): the promise as
    stated. As an ordinary user, who cannot become anyone else, the prober is a separate
    process of the same user: the throw-away certificates exist only in the grader's
    memory and its workers' start-up pipes, so this process has what any other local user
    has (the addresses, Dask, certificates of its own) and no more, and must not get in."""
    before = _listening()
    client, close, security = cluster.connect("local:1")
    try:
        info = client.scheduler_info()
        addresses = {info["address"]}
        for address, worker in info["workers"].items():
            addresses |= {address, worker["nanny"]}
        new = {(ip, port) for _, ip, port in _listening() - before}
        assert new == {(a.partition("://")[2].rsplit(":", 1)[0], int(a.rsplit(":", 1)[1]))
                       for a in addresses}, "something else listens"
        assert all(a.startswith("tls://127.0.0.1:") for a in addresses)
        assert client.run(os.getpid)  # the grader's own client gets in
        probe = [sys.executable, "-c", NOBODY_CONNECTS, *addresses]
        run = subprocess.run(as_nobody(probe, tmp_path) if os.geteuid() == 0 else probe,
                             capture_output=True, text=True, timeout=600)
    finally:
        close()
    assert run.returncode == 0, run.stderr[-2000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert len(found) == 2 * len(addresses)
    assert "connected" not in found.values(), found
    assert security == cluster.LOCAL_TLS


# ------------------------------------------------------------------- what a worker returns
class _Runs:
    """An object whose unpickling would leave a file: the grader must never build it."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.mark.parametrize("data, why", [
    ("not JSON {", "not JSON"),
    ('["a", "list"]', "a JSON list, not an object"),
    ('{"notebook": "ok"}', "no table of the isolation it enforced"),
    ('{"isolation": {"sandbox": ["nested"]}}', "no table of the isolation it enforced"),
    (b"\xff\xfe", "not UTF-8 text"),
    ({"notebook": "ok", "isolation": {}}, "dict instead of JSON text"),
    (_Runs(Path("/nonexistent")), "_Runs instead of JSON text"),
])
def test_a_report_that_is_not_json_text_of_the_right_shape_is_a_grader_error(data, why):
    report = cluster.report_from_worker(data)
    assert report.isolation == {}
    assert report.grader_error == f"the Dask worker sent an unreadable report ({why})"


def test_a_report_as_json_text_is_read():
    text = json.dumps({"notebook": "ok", "code_cells": 3, "isolation": {"sandbox": "bwrap"}})
    for data in (text, text.encode()):
        report = cluster.report_from_worker(data)
        assert (report.code_cells, report.grader_error, report.isolation) == \
            (3, "", {"sandbox": "bwrap"})



@pytest.mark.parametrize("field, value", [
    ("seconds", "soon"), ("seconds", True), ("code_cells", "3"), ("memory_error", 1),
    ("probes", []), ("grader_error", 7), ("problems", {"cell": 1}),
    ("problems", [{"cell": "one", "error": "x"}]), ("problems", ["cell 1"]),
    ("problems", [{"cell": 1, "error": "x", "planted": True}]), ("kernel", ["ok"]),
])
def test_a_report_with_a_field_of_another_type_is_a_grader_error_row(field, value):
    """Review of issue 36: ``from_json`` checked no field's type and ``float(seconds)`` ran
    outside ``score_row``'s try, so a Dask worker's report (anyone's, with ``--insecure``)
    holding ``"seconds": "soon"`` raised out of ``Rows.finish`` and stopped the batch."""
    from nbcourse.grading import specs
    from nbcourse.grading.collection import Submission
    from nbcourse.grading.execution.report import RunReport
    from nbcourse.grading.scheduling import Rows

    exercise = specs.load("01_weather")
    text = json.dumps({"notebook": "ok", "isolation": {"sandbox": "bwrap"}, field: value})
    report = cluster.report_from_worker(text)
    assert "sent an unreadable report" in report.grader_error, report
    rows = Rows(exercise, exercise.expected(), [Submission("eve", Path("eve.ipynb"))], None, None)
    assert rows.finish(0, report).status == "grader error"
    # and a report that reaches scoring with a bad time anyway is a row, not a crash
    odd = RunReport(seconds="soon")  # type: ignore[arg-type]
    assert rows.finish(0, odd).status == "grader error"


def test_a_well_typed_report_reads_back_as_it_was_sent():
    from nbcourse.grading.execution.report import CellProblem, KernelOutcome, RunReport

    sent = RunReport(code_cells=3, kernel=KernelOutcome.STUCK, seconds=1, memory_error=True,
                     problems=[CellProblem(2, "NameError: x", timed_out=True, code="x")],
                     probes={"q1": {"cases": []}}, isolation={"sandbox": "off"})
    assert RunReport.from_json(json.loads(json.dumps(sent.to_json()))) == sent


ROGUE = """
import json
from pathlib import Path
from distributed.protocol.serialize import Serialized, serialize
import nbcourse.grading.cluster as cluster

class Runs:
    def __reduce__(self):
        return (Path.touch, (Path(MARKER),))

def rogue(job, notebook, mode, token, limits):
    kind = job["id"] % 4
    if kind == 0:
        return "not JSON {"
    if kind == 1:
        return json.dumps(["a", "list"])
    if kind == 2:
        return Runs()
    return Serialized(*serialize(Runs(), serializers=["pickle"]))  # a pickle, sent as is

cluster.honest = getattr(cluster, "honest", cluster.grade_remote)
cluster.grade_remote = rogue
"""


def test_what_a_worker_returns_is_parsed_as_json_never_unpickled(tmp_path, client):
    """Issue 33, item 2: task results are JSON text read here.  Workers that return text
    that is not a report, an object, or a pickle (which unpickled would create a file in
    the grader) give those submissions a grader-error row, and nothing is unpickled."""
    marker = tmp_path / "unpickled-in-the-grader"
    folder = _small_class(tmp_path, ["correct"])
    for name in ("a", "b", "c"):
        (folder / f"{name}.ipynb").write_bytes((FIXTURES / "correct.ipynb").read_bytes())
    client.run(exec, ROGUE.replace("MARKER", repr(str(marker))), {})
    try:
        remote = grade_batch("01_weather", [folder], tmp_path / "dask", timeout=30,
                             sandbox="bwrap", progress=None, scheduler=client)
    finally:
        client.run(exec, "import nbcourse.grading.cluster as c\n"
                         "c.grade_remote = getattr(c, 'honest', c.grade_remote)", {})
    assert not marker.exists(), "the grader unpickled a worker's result"
    assert [r.status for r in remote.results] == ["grader error"] * 4
    reasons = sorted(" ".join(r.reasons) for r in remote.results)
    assert sum("unreadable report (not JSON)" in r for r in reasons) == 1, reasons
    assert sum("a JSON list, not an object" in r for r in reasons) == 1, reasons
    assert not marker.exists()


def test_a_local_cluster_leaves_nothing_in_tmpdir(tmp_path, monkeypatch):
    """Issue 33, item 11: `--scheduler local` left $TMPDIR/dask-scratch-space behind (the
    scheduler's and the workers' own folder); it now lives in a folder removed with them."""
    import shutil
    private = Path(tempfile.mkdtemp(prefix="nbcourse-tmpdir-"))
    os.chmod(private, 0o755)  # as root, the sandbox's user goes through it
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    monkeypatch.setenv("TMPDIR", str(private))
    try:
        batch = grade_batch("01_weather", [FIXTURES / "correct.ipynb"], tmp_path / "out",
                            scheduler="local:1", progress=None)
        left = sorted(os.listdir(private))
    finally:
        shutil.rmtree(private, ignore_errors=True)
    assert [r.total for r in batch.results] == [10]
    assert left == []


QUICK = """
import json, time
import nbcourse.grading.cluster as cluster

def quick(job, notebook, mode, token, limits):
    time.sleep(0.2)
    return json.dumps({"notebook": "ok", "code_cells": len(notebook), "isolation": {}})

cluster.honest = getattr(cluster, "honest", cluster.grade_remote)
cluster.grade_remote = quick
"""


def test_the_cluster_is_sent_a_few_notebooks_at_a_time(tmp_path, client, monkeypatch):
    """Issue 36: every notebook was read and submitted before any result was collected
    (a class of 20 MB notebooks all in the grader's memory).  Now at most two per worker
    are on the cluster at once, the next sent as one comes back; every row still comes."""
    from types import SimpleNamespace

    from nbcourse.grading.collection import Submission
    from nbcourse.grading.execution.limits import GradingLimits
    from nbcourse.grading.statuses import Status

    submissions = []
    for n in range(12):
        path = tmp_path / f"s{n}.ipynb"
        path.write_bytes(b"x" * (n + 1))
        submissions.append(Submission(f"s{n}", path))
    submissions.append(Submission("absent", tmp_path / "none", Status.NOT_SUBMITTED))
    sent, done, most = [], [], [0]
    real_read = cluster._read_for_worker

    def read(path, limit):
        sent.append(path)
        most[0] = max(most[0], len(sent) - len(done))
        return real_read(path, limit)

    def finish(index, report):
        if not submissions[index].refused:
            done.append((index, report.code_cells))

    monkeypatch.setattr(cluster, "_read_for_worker", read)
    rows = SimpleNamespace(submissions=submissions, finish=finish, isolation=lambda: ({}, []),
                           second_readings=lambda interim: None)
    client.run(exec, QUICK, {})
    try:
        cluster.grade_on_cluster(client, rows, {}, GradingLimits(), "off")
    finally:
        client.run(exec, "import nbcourse.grading.cluster as c\n"
                         "c.grade_remote = getattr(c, 'honest', c.grade_remote)", {})
    assert sorted(done) == [(n, n + 1) for n in range(12)]
    assert cluster.in_flight(client) == 4  # the two workers of local:2
    assert 1 <= most[0] <= 4, most[0]


# ----------------------------------------------------------------- Dask: words, never pickles
NOT_ISOLATED = ["a file planted outside is visible inside"]
ON_WORKERS = """
import nbcourse.grading.execution.sandbox as s
s.honest = getattr(s, "honest", s.isolation_problems)
s.isolation_problems = lambda found, readonly, owner: PROBLEMS
"""
HONEST_AGAIN = """
import nbcourse.grading.cluster as c
import nbcourse.grading.execution.sandbox as s
s.isolation_problems = getattr(s, "honest", s.isolation_problems)
c.grade_remote = getattr(c, "honest", c.grade_remote)
c._WorkerState.grader = getattr(c._WorkerState, "honest", c._WorkerState.grader)
"""


def test_a_worker_that_cannot_isolate_stops_the_batch_as_local_grading_does(
        tmp_path, client, monkeypatch):
    """G6: the worker's ``SandboxUnavailable`` reached the grader as a pickled exception,
    recognised by its class's name; it now comes back as words, and the batch stops with
    the message local grading gives."""
    from nbcourse.grading.execution import sandbox

    folder = _small_class(tmp_path, ["correct"])
    monkeypatch.setattr(sandbox, "isolation_problems", lambda *args: NOT_ISOLATED)
    with pytest.raises(sandbox.SandboxUnavailable) as here:
        grade_batch("01_weather", [folder], tmp_path / "here", sandbox="bwrap", progress=None)
    client.run(exec, ON_WORKERS.replace("PROBLEMS", repr(NOT_ISOLATED)), {})
    try:
        with pytest.raises(sandbox.SandboxUnavailable) as there:
            grade_batch("01_weather", [folder], tmp_path / "there", sandbox="bwrap",
                        progress=None, scheduler=client)
    finally:
        client.run(exec, HONEST_AGAIN, {})
    assert "does not isolate: a file planted outside is visible inside" in str(here.value)
    assert str(there.value) == str(here.value)


BROKEN = """
import os
import nbcourse.grading.cluster as c

class Unpickled(Exception):
    def __reduce__(self):  # unpickling it leaves a file named after the unpickling process
        return (exec, ("import os; open(MARKER + str(os.getpid()), 'w').close()",))

def grader(self):
    raise RuntimeError("no grading process could start")

def rogue(job, notebook, mode, token, limits):
    if job["id"] == 0:
        raise Unpickled()  # past grade_remote: what a worker could send anyway
    return c.honest(job, notebook, mode, token, limits)

c._WorkerState.honest = getattr(c._WorkerState, "honest", c._WorkerState.grader)
c._WorkerState.grader = grader
c.honest = getattr(c, "honest", c.grade_remote)
c.grade_remote = rogue
"""


def test_no_error_from_a_worker_reaches_the_grader_as_a_pickle(tmp_path, client, monkeypatch):
    """G6: Dask's client unpickles a failed task's exception as it arrives
    (``clean_exception``): a worker's error could run code in the grader.  A worker whose
    grading fails sends words (the row's grader error); a task that raises anyway is
    dropped unread (its row says the task failed), and the grader unpickles nothing but
    plain data."""
    import distributed.client

    errors, results = [], []  # what reached the client: each error, each task's result
    clean, read = distributed.client.clean_exception, cluster.report_from_worker
    monkeypatch.setattr(distributed.client, "clean_exception", lambda exception=None, *a, **k:
                        errors.append(exception) or clean(exception, *a, **k))
    monkeypatch.setattr(cluster, "report_from_worker", lambda data: results.append(data)
                        or read(data))
    folder = _small_class(tmp_path, ["correct"])
    (folder / "bob.ipynb").write_bytes((FIXTURES / "correct.ipynb").read_bytes())
    marker = str(tmp_path / "unpickled-in-")
    client.run(exec, BROKEN.replace("MARKER", repr(marker)), {})
    try:
        batch = grade_batch("01_weather", [folder], tmp_path / "out", sandbox="bwrap",
                            progress=None, scheduler=client)
    finally:
        client.run(exec, HONEST_AGAIN, {})
    assert not os.path.exists(marker + str(os.getpid())), "the grader unpickled a worker's error"
    assert errors and not any(isinstance(e, (bytes, bytearray)) for e in errors), errors
    assert [type(data) for data in results] == [str], results  # the other's: JSON text
    assert [r.status for r in batch.results] == ["grader error"] * 2
    reasons = [" ".join(r.reasons) for r in batch.results]
    assert sum("RuntimeError on the Dask worker: no grading process could start" in r
               for r in reasons) == 1, reasons
    assert sum("died while grading it, or its task failed" in r for r in reasons) == 1, reasons
