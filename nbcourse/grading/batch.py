"""Grade a batch of submissions: workers, progress, gradebook, feedback.

``grade_batch`` is what ``nbcourse grade`` runs.  Submissions are handed to ``jobs``
worker processes (``worker.py``); each worker runs one kernel at a time.  Whatever a
submission does, it ends as one row with a status: a worker that dies is replaced
and its submission is reported as a grader error, never dropped.

The output folder is written only at the very end, after every kernel is gone, and
anything that appeared in it while submissions ran is removed and reported, so a
submission cannot plant its own gradebook or feedback.
"""
from __future__ import annotations

import csv
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
from .processes import TOKEN_VARIABLE, kill_processes_with_token
from .runner import Limits
from .scoring import STATUSES, SubmissionResult, score

SKIP_DIRS = {".ipynb_checkpoints", "__pycache__", ".git"}


@dataclass(frozen=True)
class Submission:
    id: str
    path: Path


@dataclass
class BatchResult:
    exercise: specs.Exercise
    results: list[SubmissionResult]
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    out_dir: Path | None = None

    def counts(self) -> dict[str, int]:
        counts = {status: 0 for status in STATUSES}
        for result in self.results:
            counts[result.status] = counts.get(result.status, 0) + 1
        return {k: v for k, v in counts.items() if v}


# --------------------------------------------------------------------- submissions
def collect_submissions(paths: list[str | Path]) -> tuple[list[Submission], list[str]]:
    """Files are taken as given (whatever their name); folders are searched for *.ipynb.

    A submission's id is its file name without ``.ipynb``, or, inside a folder, its
    path relative to that folder (``alice/01_weather``), so nbgrader-style trees with
    the same file name for every student stay distinct.
    """
    found: list[tuple[str, Path]] = []
    warnings: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            notebooks = sorted(
                p for p in path.rglob("*.ipynb")
                if p.is_file() and not (set(p.relative_to(path).parts[:-1]) & SKIP_DIRS))
            if not notebooks:
                warnings.append(f"no notebooks (*.ipynb) found in {path}")
            for notebook in notebooks:
                found.append((notebook.relative_to(path).with_suffix("").as_posix(), notebook))
        else:
            found.append((path.name.removesuffix(".ipynb"), path))
    submissions, used = [], set()
    for ident, path in found:
        unique, n = ident, 1
        while unique in used:
            n += 1
            unique = f"{ident}~{n}"
        used.add(unique)
        submissions.append(Submission(unique, path))
    return submissions, warnings


# --------------------------------------------------------------------- workers
class Worker:
    """A grading worker process, restarted if it ever dies."""

    def __init__(self, log_dir: Path, token: str):
        self.log_dir = log_dir
        self.token = token
        self.process: subprocess.Popen | None = None
        self.log_path: Path | None = None

    def start(self) -> None:
        self.log_path = Path(tempfile.mkstemp(prefix="worker-", suffix=".log",
                                              dir=self.log_dir)[1])
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "nbcourse.grading.worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            text=True, encoding="utf-8", bufsize=1,
            env={**os.environ, TOKEN_VARIABLE: self.token},
            cwd=self.log_dir)  # not the instructor's folder: a kernel can read /proc/<ppid>/cwd

    def grade(self, job: dict, deadline: float) -> dict:
        if self.process is None or self.process.poll() is not None:
            self.start()
        process = self.process
        timer = threading.Timer(deadline, process.kill)
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
        return {"grader_error": "the grading process stopped unexpectedly "
                                f"(exit code {process.returncode})" + (f": {tail}" if tail else "")}

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
                source_dir: str | Path | None = None,
                progress: TextIO | None = sys.stderr,
                on_result: Callable[[SubmissionResult], None] | None = None) -> BatchResult:
    """Grade every submission under ``paths`` and write the gradebook into ``out_dir``."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if timeout <= 0:
        raise ValueError(f"timeout must be positive (seconds per cell), got {timeout}")
    started = time.monotonic()
    exercise = specs.load(exercise_name, Path(source_dir) if source_dir else None)
    expected = exercise.expected()  # in this process only
    plan = exercise.probe_plan()
    submissions, warnings = collect_submissions(paths)
    if not submissions:
        raise ValueError("no submissions to grade: " + "; ".join(warnings or ["none given"]))

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    before = _snapshot(out_dir)
    limits = Limits(cell_timeout=timeout, total_timeout=max(300.0, 10 * timeout),
                    memory_mb=memory_mb)
    token = secrets.token_hex(12)
    scratch = Path(tempfile.mkdtemp(prefix="nbcourse-batch-"))
    cache_dir = scratch / "cache"
    cache_dir.mkdir()
    workers: queue.Queue[Worker] = queue.Queue()
    all_workers = [Worker(scratch, token) for _ in range(min(jobs, len(submissions)))]
    for worker in all_workers:
        worker.start()  # all at once: their start-up overlaps
        workers.put(worker)
    lock = threading.Lock()
    done: list[SubmissionResult] = []

    def grade_one(index: int, submission: Submission) -> SubmissionResult:
        worker = workers.get()
        try:
            job = {"id": index, "path": os.path.abspath(submission.path), "plan": plan,
                   "limits": limits.__dict__, "cache_dir": str(cache_dir), "token": token}
            report = worker.grade(job, deadline=limits.total_timeout + 120)
        except Exception as error:  # noqa: BLE001 - one submission never stops the batch
            report = {"grader_error": f"{type(error).__name__}: {error}"}
        finally:
            workers.put(worker)
        try:
            result = score(exercise, expected, report, submission.id, str(submission.path))
        except Exception as error:  # noqa: BLE001 - one bad row must not stop the batch
            result = score(exercise, expected, {"grader_error": f"scoring failed: {error}"},
                           submission.id, str(submission.path))
        result.seconds = float(report.get("seconds", 0.0))
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
        leftovers = kill_processes_with_token(token)
        shutil.rmtree(scratch, ignore_errors=True)
    if leftovers:
        warnings.append(f"{len(leftovers)} process(es) started by submissions were still "
                        "running after grading and were stopped")

    results.sort(key=lambda r: r.submission)
    warnings += _remove_planted(out_dir, before)
    batch = BatchResult(exercise, results, warnings, round(time.monotonic() - started, 2), out_dir)
    write_outputs(batch, out_dir)
    return batch


def _progress_line(n: int, total: int, result: SubmissionResult) -> str:
    width = len(str(total))
    return (f"[{n:>{width}}/{total}] {result.submission:<30} {result.status:<18} "
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
                        "removed: " + ", ".join(removed[:10]) + (" ..." if len(removed) > 10 else ""))
    if changed:
        warnings.append("files in the output folder changed while submissions ran: "
                        + ", ".join(changed[:10]))
    return warnings


def _write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file and rename, replacing (not following) any symlink."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
        out.write(text)
    os.replace(temporary, path)


def feedback_name(submission_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._~-]+", "__", submission_id).strip("_") or "submission"


def gradebook_csv(batch: BatchResult) -> str:
    questions = [q.id for q in batch.exercise.questions]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["submission", "status", *questions, "total", "maximum", "flags", "reason"])
    for result in batch.results:
        scores = {q.id: _fmt(q.score) for q in result.questions}
        writer.writerow([result.submission, result.status, *(scores[q] for q in questions),
                         _fmt(result.total), _fmt(result.maximum), "; ".join(result.flags),
                         result.reasons[0] if result.reasons else ""])
    return buffer.getvalue()


def results_json(batch: BatchResult) -> str:
    exercise = batch.exercise
    data = {
        "exercise": exercise.name,
        "title": exercise.title,
        "maximum": exercise.maximum,
        "questions": [{"id": q.id, "name": q.name, "title": q.title, "points": q.points,
                       "cases": len(q.cases)} for q in exercise.questions],
        "submissions": [r.to_json() for r in batch.results],
        "summary": batch.counts(),
        "mistakes": batch_summary(batch.results, exercise),  # per question: how many made each
        "warnings": batch.warnings,
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def write_outputs(batch: BatchResult, out_dir: Path) -> None:
    """grades.csv, results.json and feedback/<submission>.html."""
    _write_atomic(out_dir / "grades.csv", gradebook_csv(batch))
    _write_atomic(out_dir / "results.json", results_json(batch))
    names: set[str] = set()
    for result in batch.results:
        name = feedback_name(result.submission)
        while name in names:
            name += "_"
        names.add(name)
        _write_atomic(out_dir / "feedback" / f"{name}.html",
                      render_html(result, batch.exercise.title))


def summary(batch: BatchResult) -> str:
    """A few lines for the terminal: counts by status, the mean, where the files are."""
    n = len(batch.results)
    lines = [f"Graded {n} submission{'s' if n != 1 else ''} of {batch.exercise.name} in "
             f"{batch.seconds:.1f} s ({batch.seconds / max(n, 1):.2f} s per submission)."]
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
    if batch.out_dir is not None:
        lines.append(f"  gradebook: {batch.out_dir / 'grades.csv'}")
        lines.append(f"  details:   {batch.out_dir / 'results.json'}")
        lines.append(f"  feedback:  {batch.out_dir / 'feedback'}/")
    return "\n".join(lines)
