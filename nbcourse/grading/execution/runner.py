"""Run one submission in a fresh, limited kernel and read its answers as JSON.

This module runs inside a grading worker (``worker.py``), never in the instructor's
main process.  For one notebook it:

1. reads the file defensively (not JSON, not a notebook, empty are results, not crashes);
2. starts a fresh IPython kernel through nbclient: inside its own bubblewrap sandbox
   (``sandbox.py``), or, with ``--sandbox off``, forked from a preloaded factory in a
   throw-away folder with a memory limit and a small environment;
3. runs the student's code cells one by one with a per-cell timeout and a wall-clock
   limit for the whole notebook; a cell that times out is interrupted, and a kernel
   that ignores the interrupt is killed;
4. asks, once per question, for the *values* of the graded answers on the hidden
   inputs (``probe_source``), as a user expression of an empty request, so IPython's
   input transformers and hooks never see the probe; the reply is accepted only between
   two copies of a marker that is random for every run;
5. kills the sandbox (or the kernel's process group) and every process left behind.

It returns a typed ``RunReport`` (which cell failed, what each probe replied); scoring
happens in the instructor's process, where the expected values are.
"""
from __future__ import annotations

import ast
import asyncio
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from queue import Empty

import psutil

from .. import forbidden as forbidden_names
from .processes import TOKEN_VARIABLE, kill_descendants, kill_process_group
from .report import (CellProblem, KernelOutcome, NotebookVerdict, RunReport, clean_message,
                     describe_cell, first_code_line)

MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024
TIMEOUT_ENAME = "NbcourseCellTimeout"
PROBE_SOURCE = (Path(__file__).with_name("probe_source.py")).read_text(encoding="utf-8")

# Started with ``python -c`` when there is no sandbox: set the limits first, so that no
# student code ever runs without them, then hand over to ipykernel.
KERNEL_LAUNCHER = """\
import resource, sys
memory, file_size = int(sys.argv[1]), int(sys.argv[2])
for which, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_FSIZE, file_size),
                     (resource.RLIMIT_CORE, 0)):
    if value >= 0:
        resource.setrlimit(which, (value, value))
sys.argv = ["nbcourse-grading-kernel"] + sys.argv[3:]
if sys.path and sys.path[0] == "":
    del sys.path[0]
from ipykernel.zmqshell import ZMQInteractiveShell
ZMQInteractiveShell.ask_exit = lambda self: setattr(self, "nbcourse_asked_exit", True)
from ipykernel.kernelapp import launch_new_instance
launch_new_instance()
"""


@dataclass
class Limits:
    """What a submission may use.  ``total`` bounds the whole notebook."""
    cell_timeout: float = 30.0
    total_timeout: float = 300.0
    memory_mb: int = 2048
    file_size_mb: int = 64
    interrupt_grace: float = 2.0


# ---------------------------------------------------------------------- reading
def read_cells(path: Path) -> tuple[NotebookVerdict, str, list[tuple[str, str]]]:
    """(verdict, reason, [(cell_type, source)]) without trusting the file at all."""
    try:
        if not path.is_file():  # a folder, a device such as /dev/zero, a pipe ...
            return NotebookVerdict.NOT_A_NOTEBOOK, "not a regular file", []
        # O_NOFOLLOW|O_NONBLOCK: the file may have been swapped for a link or a pipe since
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        with open(os.open(path, flags), "rb") as handle:
            raw = handle.read(MAX_NOTEBOOK_BYTES + 1)
    except OSError as error:
        return NotebookVerdict.NOT_A_NOTEBOOK, f"cannot read the file: {error.strerror}", []
    if len(raw) > MAX_NOTEBOOK_BYTES:
        return (NotebookVerdict.NOT_A_NOTEBOOK, "the file is larger than "
                f"{MAX_NOTEBOOK_BYTES // 2**20} MB; a notebook for this exercise is far smaller",
                [])
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return NotebookVerdict.NOT_A_NOTEBOOK, "the file is not text (not UTF-8); is it a PDF or a zip?", []
    except (ValueError, RecursionError):
        return NotebookVerdict.NOT_A_NOTEBOOK, "the file is not valid JSON, so it is not a Jupyter notebook", []
    if not isinstance(data, dict):
        return NotebookVerdict.NOT_A_NOTEBOOK, "the file is JSON but not a Jupyter notebook (no 'cells')", []
    if "worksheets" in data and "cells" not in data:  # nbformat 3
        try:
            import nbformat
            data = nbformat.convert(nbformat.from_dict(data), 4)
        except Exception as error:  # noqa: BLE001 - any failure means "not a notebook"
            return NotebookVerdict.NOT_A_NOTEBOOK, f"an old-format notebook that cannot be read ({error})", []
    cells = data.get("cells")
    if not isinstance(cells, list) or not isinstance(data.get("nbformat", 4), int):
        return NotebookVerdict.NOT_A_NOTEBOOK, "the file is JSON but not a Jupyter notebook (no 'cells' list)", []
    result = []
    for position, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            return NotebookVerdict.NOT_A_NOTEBOOK, f"cell {position} is not a notebook cell", []
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            return NotebookVerdict.NOT_A_NOTEBOOK, f"cell {position} has no readable source", []
        result.append((cell["cell_type"], source))
    if not any(kind == "code" and text.strip() for kind, text in result):
        return NotebookVerdict.EMPTY, "the notebook has no code in it", result
    return NotebookVerdict.OK, "", result


# ---------------------------------------------------------------------- the kernel
def kernel_environment(workdir: Path, cache_dir: Path, token: str) -> dict[str, str]:
    """Without a sandbox: a small environment that points at none of the instructor's folders."""
    env = {name: os.environ[name] for name in ("PATH", "LANG", "LC_ALL", "TZ", "NBCOURSE_DATA",
                                                "NBCOURSE_SHIPPED_DATA") if name in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    # The kernel's HOME is a throw-away folder, so tell it where this machine keeps the
    # downloaded corpora: an exercise must read the same data as its grading spec.
    cache = os.environ.get("NBCOURSE_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "nbcourse")
    if Path(cache).is_dir():
        env["NBCOURSE_CACHE"] = cache
    scratch = workdir / ".tmp"
    scratch.mkdir(exist_ok=True)
    env.update({
        "HOME": str(workdir),
        "TMPDIR": str(scratch),
        "IPYTHONDIR": str(workdir / ".ipython"),
        "JUPYTER_CONFIG_DIR": str(workdir / ".jupyter"),
        "JUPYTER_DATA_DIR": str(workdir / ".jupyter-data"),
        "MPLCONFIGDIR": str(cache_dir / "matplotlib"),
        "MPLBACKEND": "Agg",
        "PYTHONHASHSEED": "0",  # same set/dict order on every run: same result twice
        "PYTHONNOUSERSITE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        TOKEN_VARIABLE: token,
    })
    return env


def _bytes(megabytes: int) -> int:
    return megabytes * 2**20 if megabytes > 0 else -1


def _kernel_spec_manager(limits: Limits, sandboxed: bool):
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    argv = [sys.executable, "-c", KERNEL_LAUNCHER,
            str(_bytes(limits.memory_mb)), str(_bytes(limits.file_size_mb)),
            "-f", "{connection_file}",
            "--HistoryManager.enabled=False",
            "--IPKernelApp.quiet=True"]
    # A sandboxed kernel is in its own PID namespace: the grader interrupts it through
    # its control channel, not with a signal to a pid it cannot name.
    mode = "message" if sandboxed else "signal"

    class GradingKernelSpecs(KernelSpecManager):
        """One kernel spec, built here, so no installed kernelspec can change it."""

        def get_kernel_spec(self, kernel_name, *args, **kwargs):
            return KernelSpec(argv=argv, name=kernel_name, display_name="nbcourse grading",
                              language="python", env={}, interrupt_mode=mode)

    return GradingKernelSpecs()


def _notebook_client_class():
    from nbclient import NotebookClient

    class LimitedClient(NotebookClient):
        """Keeps the errors; counts and drops the rest of what the student's cells print.

        A submission that prints megabytes costs the grader nothing but the transfer.
        """

        def output(self, outs, msg, display_id, cell_index):
            content = msg.get("content", {})
            self.student_bytes = getattr(self, "student_bytes", 0) + len(
                json.dumps(content, default=str))
            if msg["msg_type"] == "error":
                return super().output(outs, msg, display_id, cell_index)
            return None

    return LimitedClient


def _sandbox_provisioner(km, sandbox, notebook: str, limits: Limits):
    """A jupyter_client provisioner whose kernel is the waiting process in ``sandbox``."""
    from jupyter_client.provisioning import LocalProvisioner

    class SandboxProvisioner(LocalProvisioner):
        async def launch_kernel(self, cmd, **kwargs):
            # cmd is [python, -c, LAUNCHER, memory, file_size, -f, connection, options...]
            if sandbox.config.run_as >= 0:  # the kernel's user must read its connection file
                os.chown(km.connection_file, sandbox.config.run_as, sandbox.config.run_as)
            sandbox.start_kernel(list(cmd[5:]), notebook, _bytes(limits.memory_mb),
                                 _bytes(limits.file_size_mb))
            self.process = sandbox.process
            self.pid = sandbox.pid
            self.pgid = sandbox.pid
            self.cwd = kwargs.get("cwd")
            return self.connection_info

    return SandboxProvisioner(kernel_id=km.kernel_id, kernel_spec=km.kernel_spec, parent=km)


class KernelSession:
    """One fresh kernel for one submission; always torn down with everything it started.

    ``sandbox`` (a ``WarmSandbox``) runs the kernel in bubblewrap; without it the kernel
    is forked from ``factory`` or started the ordinary way, unconfined.
    """

    def __init__(self, workdir: Path, private: Path, cache_dir: Path, limits: Limits, token: str,
                 factory=None, sandbox=None, notebook: str = ""):
        from jupyter_client import AsyncKernelManager
        import nbformat

        self.limits = limits
        self.factory = factory
        self.sandbox = sandbox
        self.nb = nbformat.v4.new_notebook()
        channel = sandbox.channel if sandbox is not None else private
        self.km = AsyncKernelManager(
            kernel_name="nbcourse-grading",
            kernel_spec_manager=_kernel_spec_manager(limits, sandbox is not None),
            transport="ipc",
            ip=str(channel / "kernel"),
            connection_file=str(channel / "connection.json"),
        )
        self.client = _notebook_client_class()(
            self.nb, km=self.km, timeout=int(limits.cell_timeout), allow_errors=True,
            interrupt_on_timeout=True, iopub_timeout=max(1, int(limits.interrupt_grace)),
            raise_on_iopub_timeout=False, startup_timeout=60,
            error_on_timeout={"ename": TIMEOUT_ENAME, "evalue": "cell timed out", "traceback": []},
        )
        self.replies: dict[int, dict] = {}
        self.client.on_cell_executed = self._remember_reply
        self.env = kernel_environment(workdir, cache_dir, token)
        self.workdir = workdir
        self.pid: int | None = None
        if sandbox is not None:
            self.km.kernel_id = uuid.uuid4().hex
            self.km.provisioner = _sandbox_provisioner(self.km, sandbox, notebook, limits)
        elif factory is not None:
            from .kernel_factory import forked_provisioner

            self.km.kernel_id = uuid.uuid4().hex
            self.km.provisioner = forked_provisioner(
                self.km, factory, _bytes(limits.memory_mb), _bytes(limits.file_size_mb))

    def _remember_reply(self, cell, cell_index, execute_reply):
        self.replies[cell_index] = (execute_reply or {}).get("content", {})

    async def start(self) -> None:
        await self.client.async_start_new_kernel(
            env=self.env, cwd=str(self.workdir),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.pid = self.km.provisioner.pid if self.km.provisioner else None
        await self.client.async_start_new_kernel_client()

    async def run(self, source: str, timeout: float):
        """Execute one cell; returns (outcome, cell) with outcome in ok/error/timeout/died."""
        import nbformat
        from nbclient.exceptions import DeadKernelError

        cell = nbformat.v4.new_code_cell(source)
        self.nb.cells.append(cell)
        index = len(self.nb.cells) - 1
        self.client.timeout = max(1, int(round(timeout)))
        try:
            await self.client.async_execute_cell(cell, index, execution_count=index + 1)
        except DeadKernelError:
            return "died", cell
        except (RuntimeError, asyncio.TimeoutError) as error:
            if not await self.alive():
                return "died", cell
            raise error
        reply = self.replies.get(index, {})
        if reply.get("ename") == TIMEOUT_ENAME:
            return "timeout", cell
        if reply.get("status") == "error":
            return "error", cell
        return "ok", cell

    async def probe(self, expression: str, timeout: float) -> tuple[str, dict]:
        """Evaluate ``expression`` as a *user expression* of an empty, silent request.

        IPython returns early for an empty cell, before input transformers, AST
        transformers and pre/post-run hooks, and evaluates user expressions with plain
        ``eval``: nothing a student installed in IPython rewrites the grader's probe.
        Returns (outcome, the expression's result) with outcome ok/timeout/died.
        """
        kc = self.client.kc
        msg_id = kc.execute("", silent=True, store_history=False,
                            user_expressions={"probe": expression}, allow_stdin=False)
        reply = await self._reply(msg_id, timeout)
        if reply is None:
            if not await self.alive():
                return "died", {}
            await self.km.interrupt_kernel()
            reply = await self._reply(msg_id, self.limits.interrupt_grace)
            if reply is None and not await self.alive():
                return "died", {}
            return "timeout", {}
        result = reply.get("content", {}).get("user_expressions", {}).get("probe", {})
        return "ok", result if isinstance(result, dict) else {}

    async def _reply(self, msg_id: str, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        kc = self.client.kc
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                msg = await kc.shell_channel.get_msg(timeout=min(left, 1.0))
            except Empty:
                if not await self.alive():
                    return None
                continue
            if msg.get("parent_header", {}).get("msg_id") == msg_id:
                return msg

    async def alive(self) -> bool:
        try:
            return bool(await self.km.is_alive())
        except Exception:  # noqa: BLE001
            return False

    async def responsive(self, grace: float) -> bool:
        """After an interrupt: does the kernel answer again, or is it stuck in the loop?"""
        if not await self.alive():
            return False
        kc = self.client.kc
        msg_id = kc.kernel_info()
        deadline = time.monotonic() + grace
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                msg = await kc.shell_channel.get_msg(timeout=left)
            except Empty:
                return False
            if msg.get("parent_header", {}).get("msg_id") == msg_id:
                return True

    async def close(self) -> None:
        """Kill the kernel (its whole sandbox) and every process left behind, then tidy up."""
        if self.sandbox is not None:
            self.sandbox.kill()
        elif self.pid:
            try:
                kernel = psutil.Process(self.pid)
                leftovers = kernel.children(recursive=True)
            except psutil.NoSuchProcess:
                leftovers = []
            kill_process_group(self.pid)
            for process in leftovers:
                try:
                    process.kill()
                except psutil.Error:
                    pass
        try:
            if self.client.kc is not None:
                self.client.kc.stop_channels()
        except Exception:  # noqa: BLE001 - the kernel may be long gone
            pass
        try:
            await self.km.shutdown_kernel(now=True)
        except Exception:  # noqa: BLE001
            pass
        try:
            await self.km.cleanup_resources()
        except Exception:  # noqa: BLE001
            pass
        if self.sandbox is None:
            # The worker is a child subreaper: anything that escaped the group is ours now.
            # (A sandbox needs no sweep: its PID namespace died with it.)
            spare = {self.factory.pid} if self.factory is not None and self.factory.pid else set()
            kill_descendants(spare=spare)


def _error_text(cell) -> str:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return clean_message(f"{output.get('ename', 'Error')}: {output.get('evalue', '')}")
    return "the cell failed"


def _error_name(cell) -> str:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return str(output.get("ename", ""))
    return ""


def probe_cell(mark: str, request: dict) -> str:
    """The code of one probe: the probe function, one call, then it removes itself.

    Run as is (``exec``) it prints the report between two markers.
    """
    literal = json.dumps(json.dumps(request, allow_nan=False))  # a valid Python str literal
    return (f"{PROBE_SOURCE}\n"
            f"nbcourse_probe(globals(), {json.dumps(mark)}, {literal})\n"
            f"del nbcourse_probe\n")


def probe_expression(mark: str, request: dict) -> str:
    """One Python *expression* whose value is the probe's report between two markers.

    The probe runs in a namespace of its own, reading the student's through ``globals()``
    of the expression (the kernel's user namespace); the student's namespace gains nothing.
    """
    literal = json.dumps(json.dumps(request, allow_nan=False))
    code = (f"{PROBE_SOURCE}\n"
            f"nbcourse_probe(__user_ns__, {json.dumps(mark)}, {literal}, emit=__box__.append)\n")
    return (f"(lambda __box__: (exec({code!r}, {{'__user_ns__': globals(), '__box__': __box__}}), "
            f"{mark!r} + __box__[0] + {mark!r})[1])([])")


def parse_probe_output(cell, mark: str) -> dict:
    """The one JSON report between two markers in this cell's stdout, or why not."""
    text = "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")
    pieces = text.split(mark)
    if len(pieces) != 3:
        if len(pieces) == 1:
            return {"unreadable_report": "the grader's probe printed nothing it could read"}
        return {"unreadable_report": "the probe's output was tampered with (marker seen "
                                     f"{len(pieces) - 1} times)"}
    try:
        report = json.loads(pieces[1])
    except (ValueError, RecursionError):
        return {"unreadable_report": "the probe's output is not valid JSON"}
    if not isinstance(report, dict):
        return {"unreadable_report": "the probe's output is not a report"}
    return report


def parse_probe_result(result: dict, mark: str) -> dict:
    """The report in a user expression's result (``{"status", "data": {"text/plain"}}``)."""
    if result.get("status") != "ok":
        name = clean_message(str(result.get("ename", "an error")), 80)
        return {"unreadable_report": f"the grader's probe failed in your kernel ({name})"}
    text = result.get("data", {}).get("text/plain", "")
    try:
        value = ast.literal_eval(text) if isinstance(text, str) and len(text) < 64 * 2**20 else None
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        value = None
    if not isinstance(value, str):
        return {"unreadable_report": "the grader's probe printed nothing it could read"}
    return parse_probe_output({"outputs": [{"output_type": "stream", "name": "stdout",
                                            "text": value}]}, mark)


# ---------------------------------------------------------------------- one run
async def _run(path: Path, plan: dict, limits: Limits, base: Path, cache_dir: Path,
               token: str, factory, sandbox) -> RunReport:
    report = RunReport()
    verdict, reason, cells = read_cells(path)
    report.notebook, report.notebook_reason = verdict, reason
    report.code_cells = sum(1 for kind, text in cells if kind == "code" and text.strip())
    if verdict is not NotebookVerdict.OK:
        return report

    sources = [text for kind, text in cells if kind == "code"]
    for question in plan["questions"]:
        if question.get("forbidden"):
            found = forbidden_names.find(sources, question["name"], question["forbidden"])
            if found:
                report.forbidden[question["question"]] = found

    workdir = Path(tempfile.mkdtemp(prefix="submission-", dir=base))
    private = Path(tempfile.mkdtemp(prefix="kernel-", dir=base))
    os.chmod(private, 0o700)
    notebook = ""
    sandbox = sandbox() if sandbox is not None else None  # taken only for a real notebook
    if sandbox is None:
        shutil.copyfile(path, workdir / "submission.ipynb")
    else:
        with open(path, "rb") as handle:
            notebook = handle.read(MAX_NOTEBOOK_BYTES).decode("utf-8-sig", errors="replace")
    session = KernelSession(workdir, private, cache_dir, limits, token, factory, sandbox, notebook)
    started = time.monotonic()
    try:
        try:
            await session.start()
        except Exception as error:  # noqa: BLE001
            if factory is None or sandbox is not None:
                report.kernel = KernelOutcome.FAILED_TO_START
                report.kernel_reason = clean_message(error)
                return report
            # the factory could not help: start this kernel the ordinary way
            await session.close()
            session = KernelSession(workdir, private, cache_dir, limits, token)
            try:
                await session.start()
            except Exception as error:  # noqa: BLE001
                report.kernel = KernelOutcome.FAILED_TO_START
                report.kernel_reason = clean_message(error)
                return report
        await _run_student_cells(session, cells, limits, started, report)
        await _run_probes(session, plan, limits, report)
        report.output_bytes = getattr(session.client, "student_bytes", 0)
    finally:
        await session.close()
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)
    if sandbox is not None and sandbox.out_of_memory:  # the cgroup's memory.max was hit
        report.memory_error = True
        if report.kernel is KernelOutcome.DIED and "memory" not in report.kernel_reason:
            report.kernel_reason += " (after running out of memory)"
    return report


async def _run_student_cells(session: KernelSession, cells, limits: Limits, started: float,
                             report: RunReport) -> None:
    for position, (kind, source) in enumerate(cells, start=1):
        if kind != "code" or not source.strip():
            continue
        left = limits.total_timeout - (time.monotonic() - started)
        if left <= 1:
            report.kernel = KernelOutcome.TOO_SLOW
            report.kernel_reason = (f"the notebook ran for more than {limits.total_timeout:.0f} s "
                                    f"in total; stopped before {describe_cell(source)}")
            return
        outcome, cell = await session.run(source, min(limits.cell_timeout, left))
        if outcome == "died":
            report.kernel = KernelOutcome.DIED
            report.kernel_reason = f"the kernel died while running {describe_cell(source)}"
            if report.memory_error:
                report.kernel_reason += " (after running out of memory)"
            return
        if outcome == "timeout":
            report.problems.append(CellProblem(
                position, f"still running after {min(limits.cell_timeout, left):.0f} s", True,
                code=first_code_line(source)))
            if not await session.responsive(limits.interrupt_grace):
                report.kernel = KernelOutcome.STUCK
                report.kernel_reason = (f"{describe_cell(source)} did not stop when interrupted, "
                                        "so the kernel was stopped; later cells and answers "
                                        "could not run")
                return
        elif outcome == "error":
            name = _error_name(cell)
            if name == "MemoryError":
                report.memory_error = True
            report.problems.append(CellProblem(position, _error_text(cell),
                                               not_implemented=name == "NotImplementedError",
                                               code=first_code_line(source)))


async def _run_probes(session: KernelSession, plan: dict, limits: Limits,
                      report: RunReport) -> None:
    for question in plan["questions"]:
        qid = question["question"]
        if report.kernel is not KernelOutcome.OK:
            report.probes[qid] = {"not_run": report.kernel_reason or "the kernel stopped"}
            continue
        mark = f"@@nbcourse-{secrets.token_hex(16)}@@"
        request = {k: question[k] for k in ("question", "name", "kind", "cases") if k in question}
        outcome, result = await session.probe(probe_expression(mark, request),
                                              limits.cell_timeout)
        if outcome == "died":
            report.kernel = KernelOutcome.DIED
            report.kernel_reason = f"the kernel died while the grader evaluated {question['name']}"
            report.probes[qid] = {"not_run": report.kernel_reason}
        elif outcome == "timeout":
            report.probes[qid] = {"timed_out": limits.cell_timeout}
            if not await session.responsive(limits.interrupt_grace):
                report.kernel = KernelOutcome.STUCK
                report.kernel_reason = (f"evaluating {question['name']} did not stop when "
                                        "interrupted, so the kernel was stopped")
        else:
            report.probes[qid] = parse_probe_result(result, mark)
        if result.get("ename") == "MemoryError" or "MemoryError" in json.dumps(report.probes[qid]):
            report.memory_error = True


def run_submission(path: str | Path, plan: dict, limits: Limits, base: Path, cache_dir: Path,
                   token: str, factory=None, sandbox=None) -> RunReport:
    """Grade-side facts for one submission; never raises for anything the file contains.

    ``sandbox`` (a function returning a ready ``WarmSandbox``) confines the kernel;
    without it, ``factory``
    (a ``KernelFactory``) makes an unconfined kernel's start-up cheap.
    """
    started = time.monotonic()
    report = asyncio.run(_run(Path(path), plan, limits, base, cache_dir, token, factory, sandbox))
    report.seconds = round(time.monotonic() - started, 3)
    return report
