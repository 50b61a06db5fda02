"""Run one submission in a fresh, limited kernel and read its answers as JSON.

This module runs inside a grading worker (``worker.py``), never in the instructor's
main process.  For one notebook it:

1. reads the file defensively (``notebook_file``: not JSON, not a notebook, empty are
   results, not crashes), and hands its code cells to ``scan_source``, a function the
   grading side passes in (the forbidden-estimator scan, ``grading/forbidden.py``): the
   student's source is parsed here, in the worker, yet this package holds no policy;
2. starts a fresh IPython kernel through nbclient, forked by the worker's kernel server
   (``launcher``) inside its bubblewrap sandbox (``sandbox.py``), or, with
   ``--sandbox off``, in a throw-away home; the same launcher, environment and limits
   either way;
3. runs the student's code cells one by one with a per-cell timeout and a wall-clock
   limit for the whole notebook; a cell that times out is interrupted, and a kernel
   that ignores the interrupt is killed;
4. asks, once per question, for the *values* of the graded answers on the hidden
   inputs (``probe_source``), as a user expression of an empty request, so IPython's
   input transformers and hooks never see the probe; the reply is accepted only between
   two copies of a marker that is random for every run;
5. then, every answer read, the follow-through probes (``follow_through``);
6. kills the kernel with everything it started, and has the sandbox's writable folders
   emptied (``KernelServer.end_kernel``; a sandbox where that does not hold is ended).

It returns a typed ``RunReport`` (which cell failed, what each probe replied); scoring
happens in the instructor's process, where the expected values are.
"""
from __future__ import annotations

import asyncio
import json
import re
import secrets
import subprocess
import sys
import time
import uuid
from pathlib import Path
from queue import Empty
from typing import Callable

from .connection import (REPLY_POLL_SECONDS, WHOLE_SECOND, bounded_context, dropped,
                         gone, quick_ready, settle_output)
from .follow_through import run_follow_through
from .limits import MB, GradingLimits
from .notebook_file import read_notebook
from .probe_source import is_stub_raise
from .replies import checked_reply, install_expression, parse_probe_result, probe_expression
from .report import (CellProblem, KernelOutcome, NotebookVerdict, RunReport, clean_message,
                     describe_cell, first_code_line)

#: (the notebook's code cells, the probe plan) -> {question id: names}: what the grading
#: side reads in the source, as ``RunReport.forbidden`` (see ``run_submission``).
SourceScan = Callable[[list, dict], dict]

TIMEOUT_ENAME = "NbcourseCellTimeout"
#: What the grader keeps of an error a student's cell raised (its name and message); a
#: length of the report, not a limit on the submission, so not in ``GradingLimits``.
MAX_ERROR_CHARS = 2000

#: The kernel's options after the launcher; the one place the launcher's argv is made.
KERNEL_OPTIONS = ["-f", "{connection_file}", "--HistoryManager.enabled=False",
                  "--IPKernelApp.quiet=True"]


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


def _dig(message, *keys):
    """``message[k1][k2]...`` of a message the kernel sent, or None if it has another shape."""
    for key in keys:
        message = message.get(key) if isinstance(message, dict) else None
    return message


def _as_dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _cut_error(content: dict) -> dict:
    """An error output as the grader keeps it: name and message, cut; no traceback."""
    def text(value, limit):
        value = value if isinstance(value, str) else ""
        return value if len(value) <= limit else value[:limit]
    frames = content.get("traceback")  # kept: whether the innermost frame is a cell
    last = frames[-2] if isinstance(frames, list) and len(frames) >= 2 else ""
    in_cell = isinstance(last, str) and bool(_CELL_FRAME.match(_ANSI.sub("", last[:200])))
    return {"ename": text(content.get("ename"), 200),
            "evalue": text(content.get("evalue"), MAX_ERROR_CHARS),
            "traceback": [_IN_CELL] if in_cell else []}


# IPython's traceback: a rule, a title, one entry per frame (a cell's starts "Cell In[3]",
# older IPythons' "Input In [3]" or "<ipython-input-3-...>"; a file's "File ..."), the error
_CELL_FRAME = re.compile(r"(Cell In ?\[|Input In ?\[|<ipython-input-)")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_IN_CELL = "raised in a notebook cell"


def _notebook_client_class():
    from nbclient import NotebookClient

    class LimitedClient(NotebookClient):
        """Keeps the errors; counts and drops the rest of what the student's cells print.

        A submission that prints megabytes costs the grader nothing but the transfer.
        ``complete``: the last cell whose output all arrived (its kernel said idle).
        """

        def process_message(self, msg, cell, cell_index):  # only the cell's own messages
            if _dig(msg, "content", "execution_state") == "idle":
                self.complete = cell_index
            return super().process_message(msg, cell, cell_index)

        def output(self, outs, msg, display_id, cell_index):
            content = _as_dict(_dig(msg, "content"))
            self.student_bytes = getattr(self, "student_bytes", 0) + len(
                json.dumps(content, default=str))
            if msg["msg_type"] == "error":
                if len(outs) >= 3:  # a cell raises once; more is a flood, not news
                    return None
                msg = dict(msg, content=_cut_error(content))
                return super().output(outs, msg, display_id, cell_index)
            return None

    return LimitedClient


def _server_provisioner(km, server, notebook: str):
    """A jupyter_client provisioner whose kernel is forked by ``server``."""
    from jupyter_client.provisioning import LocalProvisioner

    class ServerProvisioner(LocalProvisioner):
        async def launch_kernel(self, cmd, **kwargs):
            # cmd is [python, *KERNEL_OPTIONS] with the connection file filled in
            server.hand_over(km.connection_file)  # the kernel's user reads it
            kernel = server.start_kernel(list(cmd[1:]), notebook)
            self.process = kernel
            self.pid = kernel.pid
            self.pgid = kernel.pid  # the kernel leads a session of its own
            self.cwd = kwargs.get("cwd")
            return self.connection_info

    return ServerProvisioner(kernel_id=km.kernel_id, kernel_spec=km.kernel_spec, parent=km)


class KernelSession:
    """One fresh kernel for one submission; always torn down with everything it started.

    ``server`` (a ready ``launcher.KernelServer``) forks the kernel, sandboxed or not.
    """

    def __init__(self, limits: GradingLimits, server, notebook: str):
        from jupyter_client import AsyncKernelManager
        import nbformat

        self.limits = limits
        self.server = server
        self.nb = nbformat.v4.new_notebook()
        self.km = AsyncKernelManager(
            kernel_name="nbcourse-grading",
            kernel_spec_manager=_kernel_spec_manager(),
            transport="ipc",
            ip=str(server.channel / "kernel"),
            connection_file=str(server.channel / "connection.json"),
        )
        self.client = _notebook_client_class()(
            self.nb, km=self.km, timeout=int(limits.cell_timeout), allow_errors=True,
            interrupt_on_timeout=True, iopub_timeout=max(WHOLE_SECOND, int(limits.interrupt_grace)),
            raise_on_iopub_timeout=False, startup_timeout=int(limits.start_timeout),
            error_on_timeout={"ename": TIMEOUT_ENAME, "evalue": "cell timed out", "traceback": []},
        )
        self.replies: dict[int, dict] = {}
        self.client.on_cell_executed = self._remember_reply
        self.context = bounded_context(limits)
        make_client = self.km.client
        self.km.client = lambda **kwargs: quick_ready(make_client(context=self.context,
                                                                   **kwargs))
        self.probe_class = ""
        self.monitors: list = []  # see _watch_connections
        self.refused_once = False
        self.pid: int | None = None
        self.km.kernel_id = uuid.uuid4().hex
        self.km.provisioner = _server_provisioner(self.km, server, notebook)

    def _remember_reply(self, cell, cell_index, execute_reply):
        self.replies[cell_index] = _as_dict(_dig(execute_reply, "content"))

    async def start(self) -> None:
        await self.client.async_start_new_kernel(
            env={}, cwd=self.server.home or None,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.pid = self.km.provisioner.pid if self.km.provisioner else None
        await self.client.async_start_new_kernel_client()
        self._watch_connections()

    def _watch_connections(self) -> None:
        """Be told when ZeroMQ drops a connection to the kernel: it does so, before the
        grader reads anything, for a message part over ``limits.message_mb`` and for a
        message the worker has no memory left to hold (its own limit, see ``worker``)."""
        import zmq

        kc = self.client.kc
        sockets = [kc.iopub_channel.socket, kc.shell_channel.socket,
                   kc.control_channel.socket, getattr(self.km, "_control_socket", None)]
        self.monitors = [socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
                         for socket in sockets if socket is not None]

    async def refused(self) -> bool:
        """Has ZeroMQ dropped a connection to a kernel that is still alive (a kernel that
        exits closes its connections too; see ``_watch_connections``)?"""
        self.refused_once |= await dropped(self.monitors)
        return self.refused_once and await self.alive()

    async def run(self, source: str, timeout: float):
        """Execute one cell; returns (outcome, cell) with outcome in ok/error/timeout/died."""
        import nbformat
        from nbclient.exceptions import DeadKernelError

        cell = nbformat.v4.new_code_cell(source)
        self.nb.cells.append(cell)
        index = len(self.nb.cells) - 1
        self.client.timeout = max(WHOLE_SECOND, int(round(timeout)))
        try:
            await self.client.async_execute_cell(cell, index, execution_count=index + 1)
        except DeadKernelError:
            return "died", cell
        except (RuntimeError, asyncio.TimeoutError) as error:
            if not await self.alive():
                return "died", cell
            raise error
        except MemoryError:
            raise  # the worker's own limit: see _run
        except Exception:  # noqa: BLE001 - a message nbclient could not digest (forged?)
            return ("garbled" if await self.alive() else "died"), cell
        reply = self.replies.get(index, {})
        if reply.get("ename") == TIMEOUT_ENAME:
            return "timeout", cell
        if getattr(self.client, "complete", None) != index:  # its output may still be coming
            self.refused_once |= await settle_output(self.client.kc, self.monitors,
                                                     self.limits.cell_timeout)
        if reply.get("status") == "error":
            return "error", cell
        return "ok", cell

    async def install_probe(self, timeout: float) -> bool:
        """Define the probe in the fresh kernel, before any student cell runs.

        It keeps its own copy of the builtins and of the modules it uses, and is found
        later by its random class name through ``object.__subclasses__()``: a probe
        expression resolves no name in the student's namespace.
        """
        name = f"NbcourseProbe{secrets.token_hex(8)}"
        outcome, result = await self.probe(install_expression(name), timeout)
        if outcome == "ok" and result.get("status") == "ok":
            self.probe_class = name
            return True
        return False

    async def probe(self, expression: str, timeout: float) -> tuple[str, dict]:
        """Evaluate ``expression`` as a *user expression* of an empty, silent request.

        IPython returns early for an empty cell, before input transformers, AST
        transformers and pre/post-run hooks, and evaluates user expressions with plain
        ``eval``: what a student installs in IPython does not see the probe (what a
        student does to the kernel itself can change anything; see ``probe_source``).
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
        return "ok", _as_dict(_dig(reply, "content", "user_expressions", "probe"))

    async def _drain_iopub(self) -> None:
        """Drop what the kernel printed during a probe, unread, so it never piles up."""
        socket = self.client.kc.iopub_channel.socket
        for _ in range(10_000):
            if not await socket.poll(0):
                return
            await socket.recv_multipart(copy=False)

    async def _reply(self, msg_id: str, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        kc = self.client.kc
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            await self._drain_iopub()
            try:
                msg = await kc.shell_channel.get_msg(timeout=min(left, REPLY_POLL_SECONDS))
            except Empty:
                if not await self.alive():
                    return None
                continue
            if _dig(msg, "parent_header", "msg_id") == msg_id:
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
            if _dig(msg, "parent_header", "msg_id") == msg_id:
                return True

    async def close(self) -> None:
        """Kill the kernel with everything it started, then tidy up.  (Anything that left
        its process group without a sandbox or cgroup is the worker's to sweep: it is a
        child subreaper.)"""
        kernel = self.server.kernel
        if kernel is not None:  # first: nothing of the submission runs on
            kernel.kill()
            await gone(kernel)
        try:
            if self.client.kc is not None:
                self.client.kc.stop_channels()
        except Exception:  # noqa: BLE001 - the kernel may be long gone
            pass
        control = getattr(self.km, "_control_socket", None)
        if control is not None:  # what shutdown queues for the dead kernel is dropped at
            control.linger = 0   # once, not waited for (0.1 s per submission)
        try:
            await self.km.shutdown_kernel(now=True)
        except Exception:  # noqa: BLE001
            pass
        try:
            await self.km.cleanup_resources()
        except Exception:  # noqa: BLE001
            pass
        self.context.destroy(linger=0)
        self.server.end_kernel()


def _error_text(cell) -> str:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return clean_message(f"{output.get('ename', 'Error')}: {output.get('evalue', '')}",
                                 200)
    return "the cell failed"


def _error_name(cell) -> str:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return str(output.get("ename", ""))
    return ""


def _stub_raised(cell) -> bool:
    """Whether the cell's error is the exercise stub's (``probe_source.is_stub_raise``)."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return is_stub_raise(output.get("ename"), output.get("evalue"),
                                 output.get("traceback") == [_IN_CELL])
    return False


# ---------------------------------------------------------------------- one run
async def _run(path: Path, plan: dict, limits: GradingLimits, server,
               scan_source: SourceScan, ask=None) -> RunReport:
    report = RunReport()
    verdict, reason, cells, notebook = read_notebook(path, limits)
    report.notebook, report.notebook_reason = verdict, reason
    report.code_cells = sum(1 for kind, text in cells if kind == "code" and text.strip())
    if verdict is not NotebookVerdict.OK:
        return report

    report.forbidden = scan_source([text for kind, text in cells if kind == "code"], plan)

    server = server()  # taken only for a real notebook; it gets the sources read above
    session = KernelSession(limits, server, notebook)
    started = time.monotonic()
    stopped = False  # by a follow-through probe: its memory is not the submission's
    try:
        try:
            await session.start()
        except Exception as error:  # noqa: BLE001
            report.kernel = KernelOutcome.FAILED_TO_START
            report.kernel_reason = clean_message(error)
            return report
        if not await session.install_probe(limits.cell_timeout):
            report.kernel = KernelOutcome.FAILED_TO_START
            report.kernel_reason = "the grader could not set up its probe in the new kernel"
            return report
        await _run_student_cells(session, cells, limits, started, report)
        await _run_probes(session, plan, limits, report, started + limits.total_timeout)
        stopped = await run_follow_through(session, plan, cells, limits, report,
                                           started + limits.total_timeout, _probe, ask)
        report.output_bytes = getattr(session.client, "student_bytes", 0)
    except MemoryError:  # what the kernel sent took this worker over its own limit
        _stop_refused(report, limits, "")
    finally:
        await session.close()
    if server.out_of_memory and not stopped:  # the cgroup's memory limit was hit
        report.memory_error = True
        if report.kernel is KernelOutcome.DIED and "memory" not in report.kernel_reason:
            report.kernel_reason += " (after running out of memory)"
    return report


def _stop_refused(report: RunReport, limits: GradingLimits, when: str) -> None:
    """The kernel sent the grader more than it reads: it is stopped, and the row says so."""
    report.kernel = KernelOutcome.DIED
    report.kernel_reason = (
        f"the kernel sent the grader more than it reads (a message part over "
        f"{limits.message_mb} MB, or more than the {limits.worker_memory_mb} MB the "
        f"grading worker may hold), so it was stopped{' ' + when if when else ''}")


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
        if outcome != "died" and await session.refused():
            _stop_refused(report, limits, f"after {describe_cell(source)}")
            return
        if outcome == "garbled":
            report.kernel = KernelOutcome.DIED
            report.kernel_reason = (f"the kernel sent messages the grader cannot read while "
                                    f"running {describe_cell(source)}, so it was stopped")
            return
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
                                               not_implemented=_stub_raised(cell),
                                               code=first_code_line(source)))


async def _run_probes(session: KernelSession, plan: dict, limits: GradingLimits, report: RunReport,
                      deadline: float) -> None:
    """Every public case of every question first, then the hidden ones.

    The kernel lives across questions, so a value shown on the page must come from a
    kernel that has not yet seen any hidden input: values and public cases are read in
    a first pass, hidden cases in a second, whose replies are never shown (scoring turns
    them into fixed text).  Every probe fits in what is left of the notebook's time.
    """
    questions = plan["questions"]
    public = {}
    for question in questions:
        cases = question.get("cases", [])
        shown = [i for i, case in enumerate(cases) if case.get("hidden") is False]
        public[question["question"]] = (shown, await _probe(session, question, shown, limits,
                                                            report, deadline))
    for question in questions:
        qid = question["question"]
        shown, reply = public[qid]
        if question["kind"] != "function" or "cases" not in reply:
            report.probes[qid] = reply
            continue
        cases = question["cases"]
        hidden = [i for i in range(len(cases)) if i not in shown]
        outcomes = [None] * len(cases)
        for index, outcome in zip(shown, reply["cases"]):
            outcomes[index] = outcome
        if hidden:
            secret = await _probe(session, question, hidden, limits, report, deadline)
            if "cases" in secret:
                found = secret["cases"]
            else:  # why the hidden cases have no result, as a code scoring words itself
                why = ("timeout" if "timed_out" in secret else
                       "stopped" if "not_run" in secret else "malformed")
                found = [{"not_run": why}] * len(hidden)
            for index, outcome in zip(hidden, found):
                outcomes[index] = outcome
        report.probes[qid] = dict(reply, cases=outcomes)


async def _probe(session: KernelSession, question: dict, indices: list[int], limits: GradingLimits,
                 report: RunReport, deadline: float, extra: dict | None = None) -> dict:
    """One probe of ``question`` on the cases at ``indices``: its checked reply, or why not.
    ``extra`` joins the request (a follow-through probe's, see ``follow_through``)."""
    if report.kernel is not KernelOutcome.OK:
        return {"not_run": report.kernel_reason or "the kernel stopped"}
    # an interrupted probe may need two grace periods more (the interrupt, the check)
    left = deadline - time.monotonic() - 2 * limits.interrupt_grace
    if left < 1:
        report.kernel = KernelOutcome.TOO_SLOW
        report.kernel_reason = (f"the notebook ran for more than {limits.total_timeout:.0f} s "
                                f"in total; {question['name']} could not be evaluated in time")
        return {"not_run": report.kernel_reason}
    timeout = min(limits.cell_timeout, left)
    request = {k: question[k] for k in ("question", "name", "kind", "keep_inputs")
               if k in question}
    if question["kind"] == "function":
        request["cases"] = [{"args": question["cases"][i]["args"],
                             "kwargs": question["cases"][i].get("kwargs", {"$dict": []})}
                            for i in indices]
    request.update(extra or {})
    mark = f"@@nbcourse-{secrets.token_hex(16)}@@"
    outcome, result = await session.probe(
        probe_expression(session.probe_class, mark, request, limits.reply_mb * MB), timeout)
    if outcome != "died" and await session.refused():
        _stop_refused(report, limits, f"while the grader evaluated {question['name']}")
        return {"not_run": report.kernel_reason}
    if outcome == "died":
        report.kernel = KernelOutcome.DIED
        report.kernel_reason = f"the kernel died while the grader evaluated {question['name']}"
        return {"not_run": report.kernel_reason}
    if outcome == "timeout":
        if timeout < limits.cell_timeout:
            report.kernel = KernelOutcome.TOO_SLOW
            report.kernel_reason = (f"the notebook ran for more than "
                                    f"{limits.total_timeout:.0f} s in total, the last "
                                    f"{timeout:.0f} s evaluating {question['name']}")
        elif not await session.responsive(limits.interrupt_grace):
            report.kernel = KernelOutcome.STUCK
            report.kernel_reason = (f"evaluating {question['name']} did not stop when "
                                    "interrupted, so the kernel was stopped")
        return {"timed_out": round(float(timeout), 1)}
    reply = checked_reply(parse_probe_result(result, mark, limits.reply_mb * MB), request)
    if result.get("ename") == "MemoryError" or any(
            "MemoryError" in str(case.get("error", "")) for case in reply.get("cases", [])) or \
            "MemoryError" in str(reply.get("unreadable", "")):
        report.memory_error = True
    return reply


def run_submission(path: str | Path, plan: dict, limits: GradingLimits, server, *,
                   scan_source: SourceScan, ask=None) -> RunReport:
    """Grade-side facts for one submission; never raises for anything the file contains.

    ``server`` returns a ready ``launcher.KernelServer`` (called only for a real notebook).
    ``scan_source(code cells, plan)`` reads the notebook's source before its kernel
    starts; what it returns is the report's ``forbidden`` (the grader passes
    ``forbidden.flagged_answers``, see ``grading/worker_main.py``).  ``ask``: see
    ``follow_through.run_follow_through`` (which second readings to make).
    """
    started = time.monotonic()
    report = asyncio.run(_run(Path(path), plan, limits, server, scan_source, ask))
    report.seconds = round(time.monotonic() - started, 3)
    return report
