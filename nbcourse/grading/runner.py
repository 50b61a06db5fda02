"""Run one submission in a fresh, limited kernel and read its answers as JSON.

This module runs inside a grading worker (``worker.py``), never in the instructor's
main process.  For one notebook it:

1. reads the file defensively (not JSON, not a notebook, empty are results, not crashes);
2. starts a fresh IPython kernel through nbclient, in a throw-away directory that
   holds only a copy of the submission (also its HOME), with a memory limit and a
   small, explicit environment: no path of the instructor's folders is passed in;
3. runs the student's code cells one by one with a per-cell timeout; a cell that
   times out is interrupted, and a kernel that ignores the interrupt is killed;
4. asks, in one extra cell per question, for the *values* of the graded answers on
   the hidden inputs (``probe_source``); the reply is accepted only from that cell's
   own output, between two copies of a marker that is random for every run;
5. kills the kernel's whole process group and every process it left behind.

It returns plain facts (which cell failed, what each probe printed); scoring happens
in the instructor's process, where the expected values are.
"""
from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty

import psutil

from . import forbidden as forbidden_names
from .processes import TOKEN_VARIABLE, kill_descendants, kill_process_group

MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024
TIMEOUT_ENAME = "NbcourseCellTimeout"
PROBE_SOURCE = (Path(__file__).with_name("probe_source.py")).read_text(encoding="utf-8")

# Started with ``python -c``: set the limits first, so that no student code ever
# runs without them, then hand over to ipykernel exactly as ``ipykernel_launcher``.
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
from ipykernel.kernelapp import launch_new_instance
launch_new_instance()
"""

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@dataclass
class Limits:
    """What a submission may use.  ``total`` bounds the whole notebook."""
    cell_timeout: float = 30.0
    total_timeout: float = 300.0
    memory_mb: int = 2048
    file_size_mb: int = 64
    interrupt_grace: float = 2.0


@dataclass
class CellProblem:
    """A cell that failed.  ``code`` quotes its first line: Jupyter shows no cell numbers,
    so that is how a student finds it; ``cell`` (the position, Markdown cells included)
    is kept for the instructor's results.json."""
    cell: int  # 1-based position in the student's notebook
    error: str
    timed_out: bool = False
    not_implemented: bool = False
    code: str = ""


@dataclass
class RunReport:
    """Facts about one run; ``scoring`` turns them into a status and points."""
    notebook: str = "ok"  # ok | not json | not a notebook | empty | too large
    notebook_reason: str = ""
    code_cells: int = 0
    problems: list[CellProblem] = field(default_factory=list)
    kernel: str = "ok"  # ok | died | stuck | failed to start | too slow
    kernel_reason: str = ""
    memory_error: bool = False
    output_bytes: int = 0
    probes: dict = field(default_factory=dict)
    forbidden: dict = field(default_factory=dict)
    seconds: float = 0.0

    def to_json(self) -> dict:
        data = dict(self.__dict__)
        data["problems"] = [p.__dict__ for p in self.problems]
        return data


def first_code_line(source: str, limit: int = 60) -> str:
    """The line a person recognises a cell by: its first line of code, shortened.

    Blank lines and comment-only lines are skipped (unless the cell has nothing else).
    """
    lines = [line.strip() for line in source.splitlines() if line.strip()]
    code = next((line for line in lines if not line.startswith("#")), lines[0] if lines else "")
    code = clean_message(code, limit=10 * limit)
    return code if len(code) <= limit else code[: limit - 1].rstrip() + "…"


def describe_cell(source: str) -> str:
    """``the cell starting `weather = load_wether()` `` for messages to the student."""
    return f"the cell starting `{first_code_line(source)}`"


def clean_message(text: str, limit: int = 300) -> str:
    """Error text without terminal colours or memory addresses (which change per run)."""
    text = _ADDRESS.sub("0x…", _ANSI.sub("", str(text))).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------------- reading
def read_cells(path: Path) -> tuple[str, str, list[tuple[str, str]]]:
    """(verdict, reason, [(cell_type, source)]) without trusting the file at all."""
    try:
        if not path.is_file():  # a folder, a device such as /dev/zero, a pipe ...
            return "not a notebook", "not a regular file", []
        with open(path, "rb") as handle:
            raw = handle.read(MAX_NOTEBOOK_BYTES + 1)
    except OSError as error:
        return "not a notebook", f"cannot read the file: {error.strerror}", []
    if len(raw) > MAX_NOTEBOOK_BYTES:
        return ("not a notebook", "the file is larger than "
                f"{MAX_NOTEBOOK_BYTES // 2**20} MB; a notebook for this exercise is far smaller",
                [])
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return "not a notebook", "the file is not text (not UTF-8); is it a PDF or a zip?", []
    except (ValueError, RecursionError):
        return "not a notebook", "the file is not valid JSON, so it is not a Jupyter notebook", []
    if not isinstance(data, dict):
        return "not a notebook", "the file is JSON but not a Jupyter notebook (no 'cells')", []
    if "worksheets" in data and "cells" not in data:  # nbformat 3
        try:
            import nbformat
            data = nbformat.convert(nbformat.from_dict(data), 4)
        except Exception as error:  # noqa: BLE001 - any failure means "not a notebook"
            return "not a notebook", f"an old-format notebook that cannot be read ({error})", []
    cells = data.get("cells")
    if not isinstance(cells, list) or not isinstance(data.get("nbformat", 4), int):
        return "not a notebook", "the file is JSON but not a Jupyter notebook (no 'cells' list)", []
    result = []
    for position, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            return "not a notebook", f"cell {position} is not a notebook cell", []
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            return "not a notebook", f"cell {position} has no readable source", []
        result.append((cell["cell_type"], source))
    if not any(kind == "code" and text.strip() for kind, text in result):
        return "empty", "the notebook has no code in it", result
    return "ok", "", result


# ---------------------------------------------------------------------- the kernel
def kernel_environment(workdir: Path, cache_dir: Path, token: str) -> dict[str, str]:
    """A small environment: nothing that points at the instructor's folders."""
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


def _kernel_spec_manager(limits: Limits):
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    argv = [sys.executable, "-c", KERNEL_LAUNCHER,
            str(_bytes(limits.memory_mb)), str(_bytes(limits.file_size_mb)),
            "-f", "{connection_file}",
            "--HistoryManager.enabled=False",
            "--IPKernelApp.quiet=True"]

    class GradingKernelSpecs(KernelSpecManager):
        """One kernel spec, built here, so no installed kernelspec can change it."""

        def get_kernel_spec(self, kernel_name, *args, **kwargs):
            return KernelSpec(argv=argv, name=kernel_name, display_name="nbcourse grading",
                              language="python", env={}, interrupt_mode="signal")

    return GradingKernelSpecs()


def _notebook_client_class():
    from nbclient import NotebookClient

    class LimitedClient(NotebookClient):
        """Keeps the probe cells' output and the errors; counts and drops the rest.

        A submission that prints megabytes costs the grader nothing but the transfer.
        """
        probe_limit = 16 * 2**20

        def output(self, outs, msg, display_id, cell_index):
            content = msg.get("content", {})
            size = len(json.dumps(content, default=str))
            cell = self.nb.cells[cell_index]
            if cell.metadata.get("nbcourse_probe"):
                used = cell.metadata.setdefault("nbcourse_bytes", 0) + size
                cell.metadata["nbcourse_bytes"] = used
                if used > self.probe_limit:
                    return None
                return super().output(outs, msg, display_id, cell_index)
            self.student_bytes = getattr(self, "student_bytes", 0) + size
            if msg["msg_type"] == "error":
                return super().output(outs, msg, display_id, cell_index)
            return None

    return LimitedClient


class KernelSession:
    """One fresh kernel for one submission; always torn down with everything it started."""

    def __init__(self, workdir: Path, private: Path, cache_dir: Path, limits: Limits, token: str,
                 factory=None):
        from jupyter_client import AsyncKernelManager
        import nbformat

        self.limits = limits
        self.factory = factory
        self.nb = nbformat.v4.new_notebook()
        self.km = AsyncKernelManager(
            kernel_name="nbcourse-grading",
            kernel_spec_manager=_kernel_spec_manager(limits),
            transport="ipc",
            ip=str(private / "kernel"),
            connection_file=str(private / "connection.json"),
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
        if factory is not None:
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

    async def run(self, source: str, timeout: float, probe: bool = False):
        """Execute one cell; returns (outcome, cell) with outcome in ok/error/timeout/died."""
        import nbformat
        from nbclient.exceptions import DeadKernelError

        cell = nbformat.v4.new_code_cell(source)
        if probe:
            cell.metadata["nbcourse_probe"] = True
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
        """Kill the kernel's process group and every process left behind, then tidy up."""
        if self.pid:
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
        # The worker is a child subreaper: anything that escaped the group is ours now.
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
    """The code of one probe cell: the probe function, one call, then it removes itself."""
    literal = json.dumps(json.dumps(request, allow_nan=False))  # a valid Python str literal
    return (f"{PROBE_SOURCE}\n"
            f"nbcourse_probe(globals(), {json.dumps(mark)}, {literal})\n"
            f"del nbcourse_probe\n")


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


# ---------------------------------------------------------------------- one run
async def _run(path: Path, plan: dict, limits: Limits, base: Path, cache_dir: Path,
               token: str, factory) -> RunReport:
    report = RunReport()
    verdict, reason, cells = read_cells(path)
    report.notebook, report.notebook_reason = verdict, reason
    report.code_cells = sum(1 for kind, text in cells if kind == "code" and text.strip())
    if verdict != "ok":
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
    shutil.copyfile(path, workdir / "submission.ipynb")
    session = KernelSession(workdir, private, cache_dir, limits, token, factory)
    started = time.monotonic()
    try:
        try:
            await session.start()
        except Exception as error:  # noqa: BLE001
            if factory is None:
                report.kernel = "failed to start"
                report.kernel_reason = clean_message(error)
                return report
            # the factory could not help: start this kernel the ordinary way
            await session.close()
            session = KernelSession(workdir, private, cache_dir, limits, token)
            try:
                await session.start()
            except Exception as error:  # noqa: BLE001
                report.kernel = "failed to start"
                report.kernel_reason = clean_message(error)
                return report
        await _run_student_cells(session, cells, limits, started, report)
        await _run_probes(session, plan, limits, report)
        report.output_bytes = getattr(session.client, "student_bytes", 0)
    finally:
        await session.close()
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)
    return report


async def _run_student_cells(session: KernelSession, cells, limits: Limits, started: float,
                             report: RunReport) -> None:
    for position, (kind, source) in enumerate(cells, start=1):
        if kind != "code" or not source.strip():
            continue
        left = limits.total_timeout - (time.monotonic() - started)
        if left <= 1:
            report.kernel = "too slow"
            report.kernel_reason = (f"the notebook ran for more than {limits.total_timeout:.0f} s "
                                    f"in total; stopped before {describe_cell(source)}")
            return
        outcome, cell = await session.run(source, min(limits.cell_timeout, left))
        if outcome == "died":
            report.kernel = "died"
            report.kernel_reason = f"the kernel died while running {describe_cell(source)}"
            if report.memory_error:
                report.kernel_reason += " (after running out of memory)"
            return
        if outcome == "timeout":
            report.problems.append(CellProblem(
                position, f"still running after {min(limits.cell_timeout, left):.0f} s", True,
                code=first_code_line(source)))
            if not await session.responsive(limits.interrupt_grace):
                report.kernel = "stuck"
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
        if report.kernel != "ok":
            report.probes[qid] = {"not_run": report.kernel_reason or "the kernel stopped"}
            continue
        mark = f"@@nbcourse-{secrets.token_hex(16)}@@"
        request = {k: question[k] for k in ("question", "name", "kind", "cases") if k in question}
        outcome, cell = await session.run(probe_cell(mark, request), limits.cell_timeout,
                                          probe=True)
        if outcome == "died":
            report.kernel = "died"
            report.kernel_reason = f"the kernel died while the grader evaluated {question['name']}"
            report.probes[qid] = {"not_run": report.kernel_reason}
        elif outcome == "timeout":
            report.probes[qid] = {"timed_out": limits.cell_timeout}
            if not await session.responsive(limits.interrupt_grace):
                report.kernel = "stuck"
                report.kernel_reason = (f"evaluating {question['name']} did not stop when "
                                        "interrupted, so the kernel was stopped")
        elif outcome == "error":
            report.probes[qid] = {"unreadable_report": "the grader's probe failed in your kernel: "
                                  + _error_text(cell)}
        else:
            report.probes[qid] = parse_probe_output(cell, mark)
        if _error_name(cell) == "MemoryError" or "MemoryError" in json.dumps(report.probes[qid]):
            report.memory_error = True


def run_submission(path: str | Path, plan: dict, limits: Limits, base: Path, cache_dir: Path,
                   token: str, factory=None) -> RunReport:
    """Grade-side facts for one submission; never raises for anything the file contains.

    ``factory`` (a ``KernelFactory``) makes kernel start-up cheap; without it each
    kernel is started from scratch.
    """
    started = time.monotonic()
    report = asyncio.run(_run(Path(path), plan, limits, base, cache_dir, token, factory))
    report.seconds = round(time.monotonic() - started, 3)
    return report
