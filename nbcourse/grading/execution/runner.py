"""Run one submission in a fresh, limited kernel and read its answers as JSON.

This module runs inside a grading worker (``worker.py``), never in the instructor's
main process.  For one notebook it:

1. reads the file defensively (not JSON, not a notebook, empty are results, not crashes);
2. starts a fresh IPython kernel through nbclient from a warm process (``launcher``):
   inside its own bubblewrap sandbox (``sandbox.py``), or, with ``--sandbox off``, in a
   throw-away home; the same launcher, environment and limits either way;
3. runs the student's code cells one by one with a per-cell timeout and a wall-clock
   limit for the whole notebook; a cell that times out is interrupted, and a kernel
   that ignores the interrupt is killed;
4. asks, once per question, for the *values* of the graded answers on the hidden
   inputs (``probe_source``), as a user expression of an empty request, so IPython's
   input transformers and hooks never see the probe; the reply is accepted only between
   two copies of a marker that is random for every run;
5. kills the kernel with everything it started (its cgroup, its sandbox's PID namespace,
   its process group).

It returns a typed ``RunReport`` (which cell failed, what each probe replied); scoring
happens in the instructor's process, where the expected values are.
"""
from __future__ import annotations

import ast
import asyncio
import json
import os
import secrets
import subprocess
import sys
import time
import uuid
from pathlib import Path
from queue import Empty

from .. import forbidden as forbidden_names
from .limits import MB, GradingLimits
from .report import (CellProblem, KernelOutcome, NotebookVerdict, RunReport, clean_message,
                     describe_cell, first_code_line)

MAX_NOTEBOOK_BYTES = GradingLimits().notebook_mb * MB
TIMEOUT_ENAME = "NbcourseCellTimeout"
PROBE_SOURCE = (Path(__file__).with_name("probe_source.py")).read_text(encoding="utf-8")

#: The kernel's options after the launcher; the one place the launcher's argv is made.
KERNEL_OPTIONS = ["-f", "{connection_file}", "--HistoryManager.enabled=False",
                  "--IPKernelApp.quiet=True"]


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
def _kernel_spec_manager():
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    argv = [sys.executable, *KERNEL_OPTIONS]
    # The kernel may be in its own PID namespace: the grader interrupts it through its
    # control channel, not with a signal to a pid it cannot name.
    mode = "message"

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


def _warm_provisioner(km, warm, notebook: str):
    """A jupyter_client provisioner whose kernel is the waiting process ``warm``."""
    from jupyter_client.provisioning import LocalProvisioner

    class WarmProvisioner(LocalProvisioner):
        async def launch_kernel(self, cmd, **kwargs):
            # cmd is [python, *KERNEL_OPTIONS] with the connection file filled in
            if warm.config.run_as >= 0:  # the kernel's user must read its connection file
                os.chown(km.connection_file, warm.config.run_as, warm.config.run_as)
            warm.start_kernel(list(cmd[1:]), notebook)
            self.process = warm.process
            self.pid = warm.pid
            self.pgid = warm.pid
            self.cwd = kwargs.get("cwd")
            return self.connection_info

    return WarmProvisioner(kernel_id=km.kernel_id, kernel_spec=km.kernel_spec, parent=km)


class KernelSession:
    """One fresh kernel for one submission; always torn down with everything it started.

    ``warm`` (a ready ``launcher.WarmKernel``) becomes the kernel, sandboxed or not.
    """

    def __init__(self, limits: GradingLimits, warm, notebook: str):
        from jupyter_client import AsyncKernelManager
        import nbformat

        self.limits = limits
        self.warm = warm
        self.nb = nbformat.v4.new_notebook()
        self.km = AsyncKernelManager(
            kernel_name="nbcourse-grading",
            kernel_spec_manager=_kernel_spec_manager(),
            transport="ipc",
            ip=str(warm.channel / "kernel"),
            connection_file=str(warm.channel / "connection.json"),
        )
        self.client = _notebook_client_class()(
            self.nb, km=self.km, timeout=int(limits.cell_timeout), allow_errors=True,
            interrupt_on_timeout=True, iopub_timeout=max(1, int(limits.interrupt_grace)),
            raise_on_iopub_timeout=False, startup_timeout=60,
            error_on_timeout={"ename": TIMEOUT_ENAME, "evalue": "cell timed out", "traceback": []},
        )
        self.replies: dict[int, dict] = {}
        self.client.on_cell_executed = self._remember_reply
        self.pid: int | None = None
        self.km.kernel_id = uuid.uuid4().hex
        self.km.provisioner = _warm_provisioner(self.km, warm, notebook)

    def _remember_reply(self, cell, cell_index, execute_reply):
        self.replies[cell_index] = (execute_reply or {}).get("content", {})

    async def start(self) -> None:
        await self.client.async_start_new_kernel(
            env={}, cwd=self.warm.home or None,
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
        """Kill the kernel with everything it started, then tidy up.  (Anything that left
        its process group without a sandbox or cgroup is the worker's to sweep: it is a
        child subreaper.)"""
        self.warm.kill()
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
async def _run(path: Path, plan: dict, limits: GradingLimits, warm) -> RunReport:
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

    with open(path, "rb") as handle:
        notebook = handle.read(MAX_NOTEBOOK_BYTES).decode("utf-8-sig", errors="replace")
    warm = warm()  # taken only for a real notebook
    session = KernelSession(limits, warm, notebook)
    started = time.monotonic()
    try:
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
    if warm.out_of_memory:  # the cgroup's memory limit was hit
        report.memory_error = True
        if report.kernel is KernelOutcome.DIED and "memory" not in report.kernel_reason:
            report.kernel_reason += " (after running out of memory)"
    return report


async def _run_student_cells(session: KernelSession, cells, limits: GradingLimits, started: float,
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


async def _run_probes(session: KernelSession, plan: dict, limits: GradingLimits,
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


def run_submission(path: str | Path, plan: dict, limits: GradingLimits, warm) -> RunReport:
    """Grade-side facts for one submission; never raises for anything the file contains.

    ``warm`` returns a ready ``launcher.WarmKernel`` (called only for a real notebook).
    """
    started = time.monotonic()
    report = asyncio.run(_run(Path(path), plan, limits, warm))
    report.seconds = round(time.monotonic() - started, 3)
    return report
