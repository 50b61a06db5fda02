"""Handing a batch's submissions to grading workers on this machine, and turning each
run that comes back into its gradebook row.

``grade_locally`` keeps ``jobs`` workers (``workers.Worker``) busy from a thread pool;
``cluster.grade_on_cluster`` does the same on Dask workers.  Both score every run the
same way, through ``Rows``: one row per submission whatever happened (a refused
submission is not run, a run that fails is a grader error), one progress line each.
"""
from __future__ import annotations

import os
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, TextIO

from .collection import Submission, display_name
from .execution.report import NotebookVerdict, RunReport
from .scoring import SubmissionResult, points_text, score, second_readings
from .terminal import terminal_safe
from .workers import Worker


def refused_report(submission: Submission) -> RunReport:
    """The report of a submission that is not run (not submitted, a link outside ...)."""
    return RunReport(notebook=NotebookVerdict.NOT_A_NOTEBOOK, notebook_reason=submission.reason)


def score_row(exercise, expected, submission: Submission, report: RunReport) -> SubmissionResult:
    """The gradebook row of one submission, from what its run reported; never raises."""
    shown = submission.shown or display_name(str(submission.path))
    try:
        result = score(exercise, expected, report, submission.id, shown)
        result.seconds = float(report.seconds)
    except Exception as error:  # noqa: BLE001 - one bad row must not stop the batch
        result = score(exercise, expected, RunReport.failed(f"scoring failed: {error}"),
                       submission.id, shown)
    if submission.refused:
        result.status = submission.refused
    return result


def progress_line(n: int, total: int, result: SubmissionResult) -> str:
    width = len(str(total))
    return (f"[{n:>{width}}/{total}] {terminal_safe(result.submission):<30} {result.status:<18} "
            f"{points_text(result.total):>6} / {points_text(result.maximum):<4} "
            f"{result.seconds:5.1f} s")


class Rows:
    """The rows of a batch as their runs come back, from any thread: each is scored
    (``score_row``), announced on ``progress`` and passed to ``on_result``; the isolation
    each run's worker reported is kept for results.json (``isolation``)."""

    def __init__(self, exercise, expected, submissions: list[Submission],
                 progress: TextIO | None, on_result: Callable | None):
        self.exercise, self.expected, self.submissions = exercise, expected, submissions
        self.progress, self.on_result = progress, on_result
        self.results: list[SubmissionResult | None] = [None] * len(submissions)
        self._done = 0
        self._lock = threading.Lock()
        self._isolations: list[dict] = []

    def finish(self, index: int, report: RunReport) -> SubmissionResult:
        result = score_row(self.exercise, self.expected, self.submissions[index], report)
        with self._lock:
            self.results[index] = result
            self._done += 1
            if report.isolation:
                self._isolations.append(report.isolation)
            if self.progress is not None:
                self.progress.write(progress_line(self._done, len(self.submissions), result)
                                    + "\n")
                self.progress.flush()
            if self.on_result:
                self.on_result(result)
        return result

    def second_readings(self, interim: dict) -> list[str] | None:
        """The follow-through and swap probes that can change the marks of a run whose
        ordinary readings are ``interim`` (``scoring.second_readings``); None (every one,
        as before) if those readings cannot be judged."""
        try:
            report = RunReport.from_json(interim)
            if report.grader_error:  # not a report after all: nothing to judge
                return None
            return second_readings(self.exercise, self.expected, report)
        except Exception:  # noqa: BLE001 - a run is never lost to this shortcut
            return None

    def sorted(self) -> list[SubmissionResult]:
        return sorted(self.results, key=lambda r: r.submission)

    def isolation(self) -> tuple[dict, list[str]]:
        """(what the workers that ran the kernels reported they enforced, warnings): one
        table for results.json, the same whether they ran here or on Dask workers, never
        what the grader's own process assumed; empty if no submission ran."""
        with self._lock:
            reported = list(self._isolations)
        if not reported:
            return {}, []
        if any(isolation != reported[0] for isolation in reported):
            return merged_isolation(reported), [
                "the grading workers did not all report the same isolation; results.json "
                "records every value reported where they differ (\"varied: A | B\")"]
        return dict(reported[0]), []


def merged_isolation(reported: list[dict]) -> dict:
    """One table from the workers' ``reported`` tables, whatever order they came in: a
    row all of them agree on as it is, any other as ``"varied: "`` and each distinct value
    in sorted order ("not reported" for a worker without that row), so results.json never
    claims for every submission what only some of them had."""
    merged = {}
    for key in sorted({key for isolation in reported for key in isolation}):
        values = [isolation[key] for isolation in reported if key in isolation]
        if len(values) == len(reported) and all(value == values[0] for value in values):
            merged[key] = values[0]
        else:
            shown = {str(isolation[key]) if key in isolation else "not reported"
                     for isolation in reported}
            merged[key] = "varied: " + " | ".join(sorted(shown))
    return merged


def grade_locally(rows: Rows, plan: dict, site, jobs: int) -> None:
    """Run every submission of ``rows`` on up to ``jobs`` workers of this machine's
    ``site`` (``site.GradingSite``, started: the batch's limits are its configuration's;
    it closes the workers)."""
    submissions = rows.submissions
    idle: queue.Queue[Worker] = queue.Queue()
    workers = [site.new_worker() for _ in range(min(jobs, len(submissions)))]
    for worker in workers:  # started all at once: their start-up overlaps
        idle.put(worker)

    def run(index: int) -> RunReport:
        submission = submissions[index]
        if submission.refused:
            return refused_report(submission)
        worker = idle.get()
        try:
            path = os.fsdecode(os.path.abspath(submission.to_grade))
            job = {"id": index, "path": path, "plan": plan}
            # limits: the worker's config; second readings only where they can count
            return RunReport.from_json(worker.grade(job, ask=rows.second_readings))
        except Exception as error:  # noqa: BLE001 - one submission never stops the batch
            return RunReport.failed(f"{type(error).__name__}: {error}")
        finally:
            idle.put(worker)

    # twice as many threads as workers: while one thread scores a run, another already
    # hands that run's worker its next submission (``idle`` bounds the jobs running)
    with ThreadPoolExecutor(max_workers=2 * len(workers)) as pool:
        list(pool.map(lambda index: rows.finish(index, run(index)), range(len(submissions))))
