"""Every limit, once (issue 36, item 1): each limit a submission is graded under has one
home, ``GradingLimits``, which checks it, and every part of the grader uses the batch's
limits, never a default of its own or a number written again.

The first tests read the grader's source with ``ast`` (fast, no kernel); the last ones
check behaviour that used the default limits instead of the batch's.
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import secrets
from pathlib import Path

import pytest

from course_paths import REPO
from nbcourse.grading.execution.limits import MB, GradingLimits

GRADING = REPO / "nbcourse" / "grading"
HOME = GRADING / "execution" / "limits.py"
DEFAULTS = GradingLimits()
#: where a default ``GradingLimits()`` may be read: the command line shows its defaults
DEFAULTS_SHOWN = {"nbcourse/cli.py"}


def _sources() -> dict[str, ast.AST]:
    paths = [*GRADING.rglob("*.py"), REPO / "nbcourse" / "cli.py"]
    return {p.relative_to(REPO).as_posix(): ast.parse(p.read_text(encoding="utf-8"))
            for p in paths if p != HOME}


SOURCES = _sources()


def _found(test) -> list[str]:
    return [f"{where}:{getattr(node, 'lineno', 0)}" for where, tree in SOURCES.items()
            for node in ast.walk(tree) if test(where, node)]


def _number(node) -> float | None:
    """A number written in the code: a constant, or one among ``min``'s or ``max``'s
    arguments (``time.sleep(min(left, 0.5))`` waits half a second as surely)."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("min", "max"):
        return next((number for number in map(_number, node.args) if number is not None),
                    None)
    return None


#: calls whose timeout, a number written in the call, is no wait of the grader's own
NOT_LIMITS = {"Client": "connecting to the Dask scheduler",
              "wait_procs": "how long the grader waits for processes it killed to go",
              "create_connection": "the sandbox's self-test trying the host's loopback"}
#: the same, only inside one function: (module, function, call) -> why
NOT_LIMITS_IN = {("nbcourse/grading/execution/connection.py", "quick_ready", "get_msg"):
                 "polling a starting kernel, within the batch's start_timeout"}


def _calls_in(places: dict) -> set[int]:
    """The ids of the calls ``places`` names, each inside its module's function."""
    return {id(call) for (where, function, name) in places
            for node in ast.walk(SOURCES[where])
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function
            for call in ast.walk(node) if isinstance(call, ast.Call)
            and ast.unparse(call.func).rpartition(".")[2] == name}


EXEMPT_CALLS = _calls_in(NOT_LIMITS_IN)


def _timed_literals(where, node) -> bool:
    """A keyword ``...timeout...=N`` / ``deadline=N``, or a parameter's default of such a
    name, with N any number: a wait is one of the limits, or a named constant that says
    why it is not (``WIPE_SECONDS``, ``CLOSE_SECONDS`` ...)."""
    pairs = []
    if isinstance(node, ast.Call):
        function = node.func.attr if isinstance(node.func, ast.Attribute) else \
            getattr(node.func, "id", "")
        if function in NOT_LIMITS or id(node) in EXEMPT_CALLS:
            return False
        if _positional_wait(function, node.args):
            return True
        pairs = [(k.arg or "", k.value) for k in node.keywords]
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = node.args
        positional = args.posonlyargs + args.args
        pairs = list(zip([a.arg for a in positional[len(positional) - len(args.defaults):]],
                         args.defaults))
        pairs += [(a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d]
    return any(any(word in name for word in WAIT_WORDS) and _number(value) is not None
               for name, value in pairs)


#: calls that wait, and where their wait is among the positional arguments (``p.wait(5)``,
#: ``threading.Timer(30, f)``, ``time.sleep(2)``, ``q.get(True, 5)`` slipped past a test that
#: read keywords only); ``select.select(r, w, x, 5)`` has it fourth
POSITIONAL_WAITS = {"wait": 0, "join": 0, "Timer": 0, "sleep": 0, "select": 0, "poll": 0,
                    "result": 0, "exception": 0, "settimeout": 0, "alarm": 0, "wait_for": 1,
                    "communicate": 1, "acquire": 1, "get": 1, "put": 2}


def _positional_wait(function: str, args: list) -> bool:
    """A number written as a call's wait, given by position; 0 (a poll that does not
    wait) aside.  ``get`` and ``put`` are a queue's only with a block flag before the
    wait (``counts.get(name, 0)`` is a dictionary's default)."""
    if function not in POSITIONAL_WAITS:
        return False
    where = 3 if function == "select" and len(args) == 4 else POSITIONAL_WAITS[function]
    if function in ("get", "put") and not (
            len(args) > where and isinstance(args[where - 1], ast.Constant)
            and isinstance(args[where - 1].value, bool)):
        return False
    return len(args) > where and _number(args[where]) not in (None, 0)


#: what a wait's name holds (``gone(patience=2.0)`` and ``kill(seconds=5.0)`` slipped past a
#: test that looked for "timeout" and "deadline" only)
WAIT_WORDS = ("timeout", "deadline", "seconds", "patience", "grace", "wait")


def test_no_time_limit_is_written_outside_grading_limits():
    """The 60 s kernel start was written in runner, connection, launcher and the
    sandbox's self-test: each is now ``start_timeout``.  Forking a kernel waited a fixed
    10 s, the wipe 5 s, a worker's end 15 s, numbers no default of the limits had: the
    first is ``start_timeout``, the others are named, each with its reason.  A wait given
    by position counts too (the polls' pauses were ``time.sleep(0.02)`` and the like)."""
    assert _found(_timed_literals) == []
    for code in ("f(startup_timeout=60)", "s._send(r, timeout=5.0)", "p.wait(timeout=15)",
                 "p.wait(5)", "threading.Timer(30, f)", "time.sleep(0.5)", "q.get(True, 5)",
                 "q.put(x, True, 2.0)", "select.select([a], [], [], 5)", "t.join(10)",
                 "p.communicate(b'', 3)", "asyncio.wait_for(f, 2)", "socket.poll(100)",
                 # review 4, finding 5: a pause inside min() and a get_msg poll passed
                 "time.sleep(min(left, 0.5))", "kc.shell_channel.get_msg(timeout=min(left, 0.2))",
                 "kc.iopub_channel.get_msg(timeout=1)"):
        assert _timed_literals("", ast.parse(code).body[0].value), code
    for code in ("counts.get(name, 0)", "socket.poll(0)", "time.sleep(POLL_SECONDS)",
                 "', '.join(names)", "q.get(True, WAIT_SECONDS)", "data.get('format', 1)"):
        assert not _timed_literals("", ast.parse(code).body[0].value), code
    assert _timed_literals("", ast.parse("def _send(self, r, timeout=10.0): pass").body[0])
    assert not _timed_literals("", ast.parse("p.wait(timeout=CLOSE_SECONDS)").body[0].value)
    for code in ("async def gone(kernel, patience=2.0): pass",
                 "def kill(paths, seconds=5.0): pass"):
        assert _timed_literals("", ast.parse(code).body[0]), code


def _deadline_sum(where, node) -> bool:
    if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Add):
        return False
    names = {side.attr for side in (node.left, node.right) if isinstance(side, ast.Attribute)}
    return names == {"total_timeout", "worker_grace"}


def test_the_worker_deadline_is_one_property():
    assert _found(_deadline_sum) == []
    assert DEFAULTS.worker_deadline == DEFAULTS.total_timeout + DEFAULTS.worker_grace
    from nbcourse.grading.workers import Worker
    assert inspect.signature(Worker.grade).parameters["deadline"].default is None


def _default_read(where, node) -> bool:
    """``GradingLimits().x``: a default limit read where the batch's should be."""
    return (where not in DEFAULTS_SHOWN and isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "")
            == "GradingLimits" and not node.value.args and not node.value.keywords)


def test_no_part_of_the_grader_reads_a_default_limit():
    """notebook_file and integrity read the notebook size from ``GradingLimits()``."""
    assert _found(_default_read) == []


def _default_made(where, node) -> bool:
    """``GradingLimits()``, or ``GradingLimits`` as a default factory: limits made up where
    the batch's must be handed in (``GradingLimits.from_options``, in limits.py, is the
    one place that makes them; the command line shows their defaults)."""
    if where in DEFAULTS_SHOWN:
        return False
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "GradingLimits":
        return not node.args and not node.keywords
    return (isinstance(node, ast.keyword) and node.arg == "default_factory"
            and getattr(node.value, "id", "") == "GradingLimits")


def test_the_limits_are_always_handed_in():
    """``make_config`` and ``SandboxConfig`` made default limits when given none, and a
    worker's configuration without limits took the defaults."""
    from nbcourse.grading.execution.sandbox import CourseFolders, SandboxConfig, make_config

    assert _found(_default_made) == []
    with pytest.raises(TypeError, match="limits"):
        SandboxConfig("off")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="limits"):
        SandboxConfig.from_json({"kind": "off"})
    with pytest.raises(TypeError, match="GradingLimits"):
        make_config("off", None, CourseFolders())  # type: ignore[arg-type]
    config = SandboxConfig("off", limits=GradingLimits(cell_timeout=7))
    assert SandboxConfig.from_json(json.loads(json.dumps(config.to_json()))) == config


def test_local_grading_reads_the_limits_from_its_site_alone():
    """``grade_locally`` took ``limits`` beside a site whose configuration holds them."""
    from nbcourse.grading.scheduling import grade_locally

    assert "limits" not in inspect.signature(grade_locally).parameters


def _module_cap(where, node) -> bool:
    """A module-level ``MAX_*`` or ``*_LIMIT`` constant in the execution package, where
    every limit comes from the batch (a cap that is not a per-batch limit says why in a
    comment, and lives elsewhere: the probe's encoder, which runs in the kernel, and the
    kernel server's cap on its own replies to the worker, which runs in the sandbox)."""
    if "execution/" not in where or where.endswith(("probe_source.py", "kernel_server.py")):
        return False
    if not isinstance(node, ast.Module):
        return False
    names = [t.id for stmt in node.body if isinstance(stmt, ast.Assign)
             for t in stmt.targets if isinstance(t, ast.Name)]
    return any(n.startswith("MAX_") and n != "MAX_ERROR_CHARS" for n in names)


def test_the_execution_package_keeps_no_cap_of_its_own():
    """MAX_MESSAGE_BYTES, MAX_QUEUED_MESSAGES, MAX_NOTEBOOK_BYTES and MAX_REPLY_CHARS
    were module constants; they are ``message_mb``, ``queued_messages``,
    ``notebook_mb`` and ``reply_mb``."""
    assert _found(_module_cap) == []


def _limits_written(where, node) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else (
        [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
    return any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Attribute)
               and t.value.attr == "limits" or isinstance(t, ast.Attribute)
               and getattr(t.value, "id", "") == "limits" for t in targets)


def test_nothing_writes_into_the_limits():
    """The sandbox wrote ``limits.enforced``, and so did the batch after a cluster run."""
    assert _found(_limits_written) == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULTS.memory_mb = 1  # type: ignore[misc]


def _job_with_limits(where, node) -> bool:
    """A job dict with ``"limits"``, or a job's ``["limits"]`` read: the worker has them
    in its sandbox config, once."""
    if isinstance(node, ast.Dict):
        keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
        return {"id", "limits"} <= keys
    return (isinstance(node, ast.Subscript) and getattr(node.value, "id", "") == "job"
            and isinstance(node.slice, ast.Constant) and node.slice.value == "limits")


def _size_by_hand(where, node) -> bool:
    """``limits.notebook_mb * MB``, written out where ``notebook_bytes`` says it once."""
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and any(
        isinstance(side, ast.Attribute) and side.attr == "notebook_mb"
        for side in (node.left, node.right))


def test_the_notebooks_size_in_bytes_has_one_home():
    """Review 4, nit: ``limits.notebook_mb * MB`` was written out four times."""
    assert _found(_size_by_hand) == []
    assert _size_by_hand("", ast.parse("limits.notebook_mb * MB").body[0].value)
    assert DEFAULTS.notebook_bytes == DEFAULTS.notebook_mb * MB


def test_a_worker_receives_the_limits_once():
    assert _found(_job_with_limits) == []


# ----------------------------------------------------------------- one check, one default
@pytest.mark.parametrize("given, error", [
    ({"cell_timeout": 0}, ValueError), ({"cell_timeout": float("inf")}, ValueError),
    ({"cell_timeout": float("nan")}, ValueError), ({"total_timeout": -1}, ValueError),
    ({"start_timeout": "60"}, TypeError), ({"memory_mb": 0}, ValueError),
    ({"tasks": True}, TypeError), ({"notebook_mb": 2.5}, TypeError),
    ({"reply_mb": 0}, ValueError), ({"worker_memory_mb": -1}, ValueError),
    # review 4, finding 2: sizes had no upper bound (RLIMIT_AS overflowed in every kernel)
    ({"memory_mb": 10**13}, ValueError), ({"home_mb": 2**20 + 1}, ValueError),
    ({"tasks": 2**22 + 1}, ValueError), ({"queued_messages": 10**19}, ValueError),
])
def test_grading_limits_refuses_a_bad_limit(given, error):
    with pytest.raises(error, match=f"GradingLimits.{next(iter(given))}"):
        GradingLimits(**given)


@pytest.mark.parametrize("value, said", [(float("inf"), "is infinite"), (float("-inf"), "is infinite"),
                                         (float("nan"), "is NaN")])
def test_a_limit_that_is_nan_or_infinite_is_named_so(value, said):
    """Review 5: "cell_timeout must be positive, got inf" broke the rule the library keeps
    (NaN and infinity are named before any other complaint)."""
    with pytest.raises(ValueError, match=f"GradingLimits.cell_timeout {said}"):
        GradingLimits(cell_timeout=value)
    with pytest.raises(ValueError, match=f"{said}.*the option --timeout SECONDS"):
        GradingLimits.from_options(timeout=value)


def test_from_options_and_from_json_check_through_grading_limits():
    assert GradingLimits(worker_memory_mb=0).worker_memory_mb == 0  # not limited
    assert GradingLimits.from_options() == DEFAULTS
    assert GradingLimits.from_options(60).total_timeout == 600.0
    with pytest.raises(ValueError, match="--timeout"):
        GradingLimits.from_options(-3)
    with pytest.raises(ValueError, match=r"at most 1048576 MB \(1 TiB\).*the option --memory-mb"):
        GradingLimits.from_options(30, 10**13)
    assert GradingLimits.from_options(30, 2**20).memory_mb == 2**20  # the largest size
    recorded = {**GradingLimits(cell_timeout=12).to_json(), "enforced": {"sandbox": "off"}}
    assert GradingLimits.from_json(json.loads(json.dumps(recorded))).cell_timeout == 12.0
    with pytest.raises(ValueError, match="unknown limits: surprise"):
        GradingLimits.from_json({"surprise": 1})


def test_the_command_line_and_grade_batch_take_their_defaults_from_grading_limits():
    from nbcourse.cli import build_parser
    from nbcourse.grading.batch import grade_batch

    parameters = inspect.signature(grade_batch).parameters
    assert parameters["timeout"].default is None and parameters["memory_mb"].default is None
    args = build_parser().parse_args(["grade", "01_weather", "x.ipynb", "--out", "out"])
    assert args.timeout is None and args.memory_mb is None
    grade = next(a for a in build_parser()._subparsers._group_actions[0].choices["grade"]
                 ._actions if "--timeout" in a.option_strings)
    assert f"(default: {DEFAULTS.cell_timeout:g})" in grade.help


def test_a_bad_timeout_stops_the_batch_before_anything_is_read(tmp_path):
    from nbcourse.grading.batch import grade_batch
    with pytest.raises(ValueError, match="GradingLimits.cell_timeout"):
        grade_batch("no such exercise", [tmp_path / "nothing"], tmp_path / "out", timeout=0)
    assert not (tmp_path / "out").exists()


# ----------------------------------------------------------------- the batch's own limits
def _big_notebook(path: Path, megabytes: float) -> Path:
    import nbformat
    code = "x = 1\n# " + "a" * int(megabytes * MB) + "\n"
    path.write_text(nbformat.writes(nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(code)])))
    return path


def test_the_notebook_size_limit_is_the_batchs(tmp_path):
    """A 1.5 MB notebook (all code: no output to strip) under ``notebook_mb=1`` is not
    read further, and no kernel is asked for; under the default 20 MB it would run."""
    from nbcourse.grading import specs
    from nbcourse.grading.execution.runner import run_submission
    from nbcourse.grading.integrity import submission_cells

    path = _big_notebook(tmp_path / "big.ipynb", 1.5)
    limits = GradingLimits(notebook_mb=1)

    def no_kernel():
        raise AssertionError("a kernel was asked for a notebook over the batch's size limit")

    report = run_submission(path, specs.load("01_weather").probe_plan(), limits, no_kernel,
                            scan_source=lambda cells, plan: {})
    assert report.notebook == "not a notebook", report.notebook
    assert "larger than 1 MB" in report.notebook_reason
    cells, why = submission_cells(path, limits)
    assert cells is None and "larger than 1 MB" in why
    assert submission_cells(path, DEFAULTS)[0] is not None


def test_the_message_and_reply_caps_are_the_batchs():
    import zmq

    from nbcourse.grading.execution.connection import bounded_context
    from nbcourse.grading.execution.replies import (install_expression, parse_probe_result,
                                                    probe_expression)

    context = bounded_context(GradingLimits(message_mb=3, queued_messages=5))
    try:
        assert context.getsockopt(zmq.MAXMSGSIZE) == 3 * MB
        assert context.getsockopt(zmq.RCVHWM) == 5
    finally:
        context.destroy(linger=0)
    # the probe itself cuts its reply at the batch's bound, and the grader refuses above it
    namespace = {"answer": list(range(5000))}
    name = f"NbcourseProbeLimit{secrets.token_hex(8)}"
    eval(install_expression(name), namespace)  # noqa: S307 - our own probe code
    mark = f"@@nbcourse-{secrets.token_hex(16)}@@"
    request = {"question": "q1", "name": "answer", "kind": "value"}
    for most, fits in ((1000, False), (DEFAULTS.reply_mb * MB, True)):
        value = eval(probe_expression(name, mark, request, most), namespace)  # noqa: S307
        assert (len(repr(value)) <= 1000) is not fits
        reply = parse_probe_result({"status": "ok", "data": {"text/plain": repr(value)}},
                                   mark, most)
        assert ("unreadable_report" not in reply) is fits, reply
    refused = parse_probe_result({"status": "ok", "data": {"text/plain": "x" * 2001}}, mark,
                                 2000)
    assert "larger than the grader reads" in refused["unreadable_report"]


def test_results_json_records_what_was_enforced_beside_the_limits():
    """``enforced`` is no field of the limits any more: the gradebook adds it from the
    isolation table (without a Dask cluster's own rows), as results.json had it."""
    from nbcourse.grading import specs
    from nbcourse.grading.gradebook import BatchResult

    assert "enforced" not in DEFAULTS.to_json()
    batch = BatchResult(specs.load("01_weather"), [], isolation={
        "sandbox": "bwrap", "dask_workers": 2}, limits=DEFAULTS)
    recorded = batch.provenance()["limits"]
    assert recorded == {**DEFAULTS.to_json(), "enforced": {"sandbox": "bwrap"}}
    assert list(recorded)[-1] == "enforced"  # where it always was
