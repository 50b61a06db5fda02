"""Grade a batch of submissions: workers, progress, gradebook, feedback.

``grade_batch`` is what ``nbcourse grade`` runs.  Submissions are handed to ``jobs``
worker processes (``execution/worker.py``); each worker runs one kernel at a time, each
in a bubblewrap sandbox of its own unless ``sandbox="off"``.  Whatever a
submission does, it ends as one row with a status: a worker that dies is replaced
and its submission is reported as a grader error, never dropped.

The output folder is written only at the very end, after every kernel is gone, and
anything that appeared in it while submissions ran is removed and reported, so a
submission cannot plant its own gradebook or feedback.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import queue
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

from . import specs
from .diagnosis import batch_summary, summary_lines
from .feedback import render_html
from .execution.limits import MB, GradingLimits
from .execution.processes import TOKEN_VARIABLE, kill_processes_with_token, kill_tree
from .execution.report import NotebookVerdict, RunReport
from .execution.sandbox import SANDBOX_MODES, SandboxConfig, make_config, release, remove_tree
from .execution.worker import CONFIG_VARIABLE
from .collection import Submission, collect, display_name, without_outputs
from .scoring import STATUSES, SubmissionResult, score
from .terminal import terminal_safe

@dataclass
class BatchResult:
    exercise: specs.Exercise
    results: list[SubmissionResult]
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    out_dir: Path | None = None
    isolation: dict = field(default_factory=dict)
    limits: GradingLimits | None = None
    sources: dict = field(default_factory=dict)  # id -> collection.Submission

    def counts(self) -> dict[str, int]:
        counts = {status: 0 for status in STATUSES}
        for result in self.results:
            counts[result.status] = counts.get(result.status, 0) + 1
        return {k: v for k, v in counts.items() if v}


def collect_submissions(paths: list[str | Path], notebook: str = "",
                        scratch: Path | None = None) -> tuple[list[Submission], list[str]]:
    """One row per student under ``paths`` (see ``collection``): (submissions, warnings)."""
    found = collect(paths, notebook, scratch)
    return found.submissions, found.warnings


# --------------------------------------------------------------------- workers
class Worker:
    """A grading worker process, restarted if it ever dies."""

    def __init__(self, log_dir: Path, token: str, sandbox: SandboxConfig | None = None):
        self.log_dir = log_dir
        self.token = token
        self.sandbox = sandbox or SandboxConfig("off")
        self.process: subprocess.Popen | None = None
        self.log_path: Path | None = None

    def start(self) -> None:
        self.log_path = Path(tempfile.mkstemp(prefix="worker-", suffix=".log",
                                              dir=self.log_dir)[1])
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "nbcourse.grading.execution.worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            text=True, encoding="utf-8", bufsize=1,
            env={**os.environ, TOKEN_VARIABLE: self.token,
                 CONFIG_VARIABLE: json.dumps(self.sandbox.to_json())},
            cwd=self.log_dir)  # not the instructor's folder: a kernel can read /proc/<ppid>/cwd

    def grade(self, job: dict, deadline: float) -> dict:
        if self.process is None or self.process.poll() is not None:
            self.start()
        process = self.process
        # at the deadline the worker goes with every process below it, sandboxes included
        timer = threading.Timer(deadline, kill_tree, args=(process.pid,))
        timer.start()
        try:
            process.stdin.write(json.dumps(job) + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        finally:
            timer.cancel()
        try:
            reply = json.loads(line)
            if reply.get("id") == job["id"]:
                return reply["report"]
        except (ValueError, AttributeError):
            pass
        process.kill()
        process.wait()
        self.process = None
        tail = self._tail()
        return RunReport.failed("the grading process stopped unexpectedly "
                                f"(exit code {process.returncode})"
                                + (f": {tail}" if tail else "")).to_json()

    def _tail(self) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return ""
        return text.splitlines()[-1][-300:] if text else ""

    def close(self) -> None:
        if self.process is None:
            return
        try:
            self.process.stdin.close()
            self.process.wait(timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        self.process = None
        self._log.close()


# --------------------------------------------------------------------- the batch
def grade_batch(exercise_name: str, paths: list[str | Path], out_dir: str | Path, *,
                jobs: int = 2, timeout: float = 30.0, memory_mb: int = 2048,
                source_dir: str | Path | None = None, sandbox: str = "auto",
                progress: TextIO | None = sys.stderr,
                on_result: Callable[[SubmissionResult], None] | None = None,
                notebook: str | None = None, scheduler: str | None = None) -> BatchResult:
    """Grade every submission under ``paths`` and write the gradebook into ``out_dir``.

    ``sandbox``: ``auto``/``bwrap`` run every submission in a bubblewrap sandbox of its
    own (``SandboxUnavailable`` when it cannot isolate here); ``off`` runs them unconfined.
    ``notebook``: the file name students hand in (default: the exercise's, ``01_weather``).
    ``scheduler``: a Dask scheduler's address (``tcp://host:8786``) or a ``Client``: each
    submission is graded on a Dask worker, sandboxed there as here (see ``cluster``).
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if timeout <= 0:
        raise ValueError(f"timeout must be positive (seconds per cell), got {timeout}")
    started = time.monotonic()
    exercise = specs.load(exercise_name, Path(source_dir) if source_dir else None)
    expected = exercise.expected()  # in this process only
    plan = exercise.probe_plan()
    limits = GradingLimits.from_options(timeout, memory_mb)  # every limit, once
    if sandbox not in SANDBOX_MODES:  # checked here too for a cluster, before any upload
        raise ValueError(f"--sandbox must be one of {', '.join(SANDBOX_MODES)}, got {sandbox!r}")
    scratch = Path(tempfile.mkdtemp(prefix="nbcourse-batch-"))
    inbox = scratch / "submissions"  # unpacked zips, stripped copies: for the grader only
    inbox.mkdir(mode=0o700)
    config: SandboxConfig | None = None
    try:
        submissions, warnings = collect_submissions(paths, notebook or exercise.name, inbox)
        if not submissions:
            raise ValueError("no submissions to grade: " + "; ".join(warnings or ["none given"]))
        if scheduler is None:
            config = make_config(sandbox, limits)  # the self-test runs here, before any kernel
            if config.run_as >= 0:
                os.chmod(scratch, 0o711)  # the sandbox's user reaches its channel through it
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
    except BaseException:
        if config is not None:
            release(config)
        remove_tree(scratch)
        raise

    before = _snapshot(out_dir)
    sources = {s.id: s for s in submissions}
    if scheduler is not None:  # graded on a Dask cluster; rows and outputs as below
        from .cluster import grade_on_cluster
        try:
            results, isolation, more = grade_on_cluster(
                scheduler, exercise, expected, plan, submissions, limits, sandbox, inbox,
                progress, on_result)
        finally:
            remove_tree(scratch)
        # what the workers' machines enforced (each made its own config from these limits)
        limits.enforced = {k: v for k, v in isolation.items() if not k.startswith("dask_")}
        warnings += more
        warnings += _remove_planted(out_dir, before)
        batch = BatchResult(exercise, results, warnings, round(time.monotonic() - started, 2),
                            out_dir, isolation, limits, sources)
        write_outputs(batch, out_dir)
        return batch
    token = secrets.token_hex(12)
    workers: queue.Queue[Worker] = queue.Queue()
    all_workers = [Worker(scratch, token, config) for _ in range(min(jobs, len(submissions)))]
    for worker in all_workers:
        worker.start()  # all at once: their start-up overlaps
        workers.put(worker)
    lock = threading.Lock()
    done: list[SubmissionResult] = []

    def grade_one(index: int, submission: Submission) -> SubmissionResult:
        if submission.refused:
            report = refused_report(submission)
        else:
            worker = workers.get()
            try:
                path = without_outputs(submission.path, limits.notebook_mb * MB, inbox)
                job = {"id": index, "path": os.fsdecode(os.path.abspath(path)),
                       "plan": plan, "limits": limits.to_json()}
                report = RunReport.from_json(
                    worker.grade(job, deadline=limits.total_timeout + limits.worker_grace))
            except Exception as error:  # noqa: BLE001 - one submission never stops the batch
                report = RunReport.failed(f"{type(error).__name__}: {error}")
            finally:
                workers.put(worker)
        result = score_row(exercise, expected, submission, report)
        with lock:
            done.append(result)
            if progress is not None:
                progress.write(_progress_line(len(done), len(submissions), result) + "\n")
                progress.flush()
            if on_result:
                on_result(result)
        return result

    try:
        with ThreadPoolExecutor(max_workers=len(all_workers)) as pool:
            results = list(pool.map(grade_one, range(len(submissions)), submissions))
    finally:
        for worker in all_workers:
            worker.close()
        # whatever a killed worker left: its sandboxes' cgroups, then (without cgroups,
        # best effort) processes still carrying the batch's token, then every folder
        leftovers = release(config) + len(kill_processes_with_token(token))
        remove_tree(scratch)
    if leftovers:
        warnings.append(f"{leftovers} process(es) started by submissions were still "
                        "running after grading and were stopped")

    results.sort(key=lambda r: r.submission)
    warnings += _remove_planted(out_dir, before)
    batch = BatchResult(exercise, results, warnings, round(time.monotonic() - started, 2), out_dir,
                        config.describe(), limits, sources)
    write_outputs(batch, out_dir)
    return batch


def refused_report(submission: Submission) -> RunReport:
    """The report of a submission that is not run (not submitted, a link outside ...)."""
    return RunReport(notebook=NotebookVerdict.NOT_A_NOTEBOOK, notebook_reason=submission.reason)


def score_row(exercise, expected, submission: Submission, report: RunReport) -> SubmissionResult:
    """The gradebook row of one submission, from what its run reported; never raises."""
    shown = submission.shown or display_name(str(submission.path))
    try:
        result = score(exercise, expected, report, submission.id, shown)
    except Exception as error:  # noqa: BLE001 - one bad row must not stop the batch
        result = score(exercise, expected, RunReport.failed(f"scoring failed: {error}"),
                       submission.id, shown)
    if submission.refused:
        result.status = submission.refused
    result.seconds = float(report.seconds)
    return result


def _progress_line(n: int, total: int, result: SubmissionResult) -> str:
    width = len(str(total))
    return (f"[{n:>{width}}/{total}] {terminal_safe(result.submission):<30} {result.status:<18} "
            f"{_fmt(result.total):>6} / {_fmt(result.maximum):<4} {result.seconds:5.1f} s")


def _fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


# --------------------------------------------------------------------- output folder
def _snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry under ``folder`` (symlinks not followed) with its identity."""
    entries = {}
    for root, dirs, files in os.walk(folder, followlinks=False):
        for name in dirs + files:
            path = Path(root, name)
            try:
                info = path.lstat()
            except OSError:
                continue
            entries[path.relative_to(folder).as_posix()] = (info.st_ino, info.st_size,
                                                            info.st_mtime_ns, info.st_mode)
    return entries


def _remove_planted(folder: Path, before: dict[str, tuple]) -> list[str]:
    """Delete what appeared in the output folder while submissions ran; report it."""
    after = _snapshot(folder)
    planted = sorted(set(after) - set(before))
    changed = sorted(k for k in set(after) & set(before) if after[k] != before[k]
                     and not Path(folder, k).is_dir())
    warnings = []
    removed = []
    for name in planted:
        if any(name.startswith(parent + "/") for parent in removed):
            continue
        path = folder / name
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
            removed.append(name)
        except OSError:
            pass
    if removed:
        warnings.append("files appeared in the output folder while submissions ran and were "
                        "removed: " + ", ".join(display_name(n) for n in removed[:10])
                        + (" ..." if len(removed) > 10 else ""))
    if changed:
        warnings.append("files in the output folder changed while submissions ran: "
                        + ", ".join(display_name(n) for n in changed[:10]))
    return warnings


def _write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file and rename, replacing (not following) any symlink.

    Text that cannot be encoded (a lone surrogate from a strange name) is escaped, never
    an error: the gradebook is always written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", errors="backslashreplace",
                       newline="") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def feedback_name(submission_id: str) -> str:
    """A file name for the submission's page: readable, and distinct for distinct ids.

    An id made only of safe characters is its own name; any other gets a short hash
    of the full id, so `` alice`` and ``alice`` never share a page.
    """
    safe = re.sub(r"[^A-Za-z0-9._~-]+", "__", submission_id).strip("_.") or "submission"
    if safe == submission_id and len(safe) <= 100:  # a file name has at most 255 bytes
        return safe
    digest = hashlib.sha256(submission_id.encode("utf-8", "backslashreplace")).hexdigest()[:8]
    return f"{safe[:80]}-{digest}"


def feedback_names(submission_ids: list[str]) -> dict[str, str]:
    """{id: file name of its page}, distinct even on a case-insensitive file system:
    names that differ only in case all get a short hash of their id, so no page
    depends on which submission was graded first."""
    plain = {ident: feedback_name(ident) for ident in submission_ids}
    counts: dict[str, int] = {}
    for name in plain.values():
        counts[name.lower()] = counts.get(name.lower(), 0) + 1
    names = {}
    for ident, name in plain.items():
        if counts[name.lower()] > 1:
            digest = hashlib.sha256(ident.encode("utf-8", "backslashreplace")).hexdigest()[:8]
            name = f"{name}-{digest}"
        names[ident] = name
    return names


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "|", "%")


def spreadsheet_safe(text: str) -> str:
    """A cell a spreadsheet shows as text: a leading ``'`` before what could start a formula."""
    text = str(text)
    return "'" + text if text.startswith(_FORMULA_START) else text


def gradebook_csv(batch: BatchResult) -> str:
    questions = [q.id for q in batch.exercise.questions]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["submission", "status", *questions, "total", "maximum", "flags", "reason"])
    for result in batch.results:
        scores = {q.id: _fmt(q.score) for q in result.questions}
        writer.writerow([spreadsheet_safe(result.submission), result.status,
                         *(scores[q] for q in questions),
                         _fmt(result.total), _fmt(result.maximum),
                         spreadsheet_safe("; ".join(result.flags)),
                         spreadsheet_safe(result.reasons[0] if result.reasons else "")])
    return buffer.getvalue()


def results_json(batch: BatchResult) -> str:
    exercise = batch.exercise
    submissions = []
    names = feedback_names([r.submission for r in batch.results])
    for result in batch.results:
        row = result.to_json()
        row["feedback"] = f"feedback/{names[result.submission]}.html"
        source = batch.sources.get(result.submission)
        if source is not None:
            row["source"] = {"lms": source.lms, "lms_id": source.lms_id, "late": source.late}
        submissions.append(row)
    data = {
        "exercise": exercise.name,
        "title": exercise.title,
        "maximum": exercise.maximum,
        "isolation": batch.isolation,
        **provenance(exercise, batch.limits),
        "questions": [{"id": q.id, "name": q.name, "title": q.title, "points": q.points,
                       "cases": len(q.cases)} for q in exercise.questions],
        "submissions": submissions,
        "summary": batch.counts(),
        "mistakes": batch_summary(batch.results, exercise),  # per question: how many made each
        "warnings": batch.warnings,
    }
    return json.dumps(data, indent=1, ensure_ascii=True) + "\n"


def provenance(exercise: specs.Exercise, limits: GradingLimits | None) -> dict:
    """What a regrade must match to give the same marks: the package's version, the hash
    of the spec file (every case, point and reference) and the limits applied (with what
    the machine enforced)."""
    from .. import __version__
    spec_hash = ""
    if exercise.source is not None:
        spec_file = Path(exercise.source).with_name(exercise.name + specs.SPEC_SUFFIX)
        if spec_file.is_file():
            spec_hash = hashlib.sha256(spec_file.read_bytes()).hexdigest()
    return {"nbcourse_version": __version__, "spec_sha256": spec_hash,
            "limits": limits.to_json() if limits else {}}


def write_outputs(batch: BatchResult, out_dir: Path) -> None:
    """grades.csv, results.json and feedback/<submission>.html; one page failing to
    render never stops the others or the gradebook."""
    _write_atomic(out_dir / "grades.csv", gradebook_csv(batch))
    _write_atomic(out_dir / "results.json", results_json(batch))
    names = feedback_names([r.submission for r in batch.results])
    for result in batch.results:
        try:
            page = render_html(result, batch.exercise.title)
        except Exception as error:  # noqa: BLE001
            page = f"<p>feedback could not be rendered ({type(error).__name__})</p>\n"
        _write_atomic(out_dir / "feedback" / f"{names[result.submission]}.html", page)
    try:
        from .class_report import render_report
        _write_atomic(out_dir / "report.html", render_report(batch))
    except Exception as error:  # noqa: BLE001 - the gradebook is written whatever happens
        batch.warnings.append(f"the class report could not be written ({type(error).__name__}: "
                              f"{error})")


def summary(batch: BatchResult) -> str:
    """A few lines for the terminal: counts by status, the mean, where the files are."""
    n = len(batch.results)
    lines = [f"Graded {n} submission{'s' if n != 1 else ''} of {batch.exercise.name} in "
             f"{batch.seconds:.1f} s ({batch.seconds / max(n, 1):.2f} s per submission)."]
    if batch.isolation:
        isolation = batch.isolation
        lines.append(f"  sandbox: {isolation.get('sandbox')}; memory: "
                     f"{isolation.get('memory_limit')}")
    lines.append("  " + ", ".join(f"{count} {status}" for status, count in batch.counts().items()))
    if n:
        mean = sum(r.total for r in batch.results) / n
        lines.append(f"  mean score {mean:.2f} / {_fmt(batch.exercise.maximum)}")
    flagged = [r.submission for r in batch.results if r.flags]
    if flagged:
        lines.append(f"  flagged (used a forbidden estimator): {', '.join(flagged)}")
    lines += [f"  {line}" for line in summary_lines(batch.results, batch.exercise)]
    for warning in batch.warnings:
        lines.append(f"  warning: {warning}")
    lines = [terminal_safe(line) for line in lines]
    if batch.out_dir is not None:
        lines.append(f"  gradebook: {batch.out_dir / 'grades.csv'}")
        lines.append(f"  details:   {batch.out_dir / 'results.json'}")
        lines.append(f"  feedback:  {batch.out_dir / 'feedback'}/")
        lines.append(f"  report:    {batch.out_dir / 'report.html'}")
    return "\n".join(lines)
