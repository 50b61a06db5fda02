"""Grade a batch of submissions: what ``nbcourse grade`` runs, from start to end.

``grade_batch`` reads the exercise, finds one submission per student (``collection``),
has them run in sandboxed kernels, on this machine (``scheduling``, through the workers
of ``workers``) or on a Dask cluster (``cluster``), scores each run (``scoring``) and
writes the output folder (``gradebook``); ``summary`` is what the terminal shows.
Whatever a submission does, it ends as one row with a status: a worker that dies is
replaced and its submission is reported as a grader error, never dropped.  Before any
kernel starts, ``integrity`` reads the submissions' code for the class report's hints.
"""
from __future__ import annotations

import secrets
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, TextIO

from . import specs
from .collection import collect_submissions
from .execution.limits import GradingLimits
from .execution.sandbox import SANDBOX_MODES
from .gradebook import BatchResult, remove_planted, snapshot
from .integrity import check_batch
from .late import settings
from .merge import load_previous, select, settle
from .overrides import OVERRIDES_FILE, read_overrides
from .roster import ROSTER_ROW, absent, normalise, read_roster, row_name, still_absent
from .saved_outputs import strip_oversized
from .scheduling import Rows, grade_locally
from .scoring import SubmissionResult
from .site import GradingSite, leftover_warnings


#: What ``grade_batch`` (and ``nbcourse grade``, which shows them in its help) uses when
#: not told: two grading workers, and a sandbox wherever bubblewrap can isolate.
DEFAULT_JOBS = 2
DEFAULT_SANDBOX = "auto"


def grade_batch(exercise_name: str, paths: list[str | Path], out_dir: str | Path, *,
                jobs: int = DEFAULT_JOBS, timeout: float | None = None,
                memory_mb: int | None = None, source_dir: str | Path | None = None,
                sandbox: str = DEFAULT_SANDBOX,
                progress: TextIO | None = sys.stderr,
                on_result: Callable[[SubmissionResult], None] | None = None,
                notebook: str | None = None, scheduler: str | None = None,
                tls: str | Path | None = None, insecure: bool = False,
                only: list[str] | None = None, overrides: str | Path | None = None,
                command: str = "", reason: str = "", due: str | None = None,
                late: str | None = None, roster=None,
                roster_column: str | None = None) -> BatchResult:
    """Grade every submission under ``paths`` and write the gradebook into ``out_dir``.

    ``sandbox``: ``auto``/``bwrap`` run every submission in a bubblewrap sandbox of its
    own (``SandboxUnavailable`` when it cannot isolate here); ``off`` runs them unconfined.
    ``notebook``: the file name students hand in (default: the exercise's, ``01_weather``).
    ``scheduler``: a Dask scheduler's address (``tls://host:8786``), ``local:N`` or a
    ``Client``: each submission is graded on a Dask worker, sandboxed there as here (see
    ``cluster``).  ``tls``: the folder of ``nbcourse certs``; ``insecure``: accept a
    scheduler without TLS (``tcp://``), which any machine that reaches it can abuse.
    ``timeout``, ``memory_mb``: see ``GradingLimits.from_options`` (None: its default).
    ``only``, ``overrides``, ``command``, ``reason``, ``due``, ``late``: see ``merge``, ``late``.
    ``roster`` (a file or ``roster.Roster``) and ``roster_column``: every student on it gets
    a row, ``not submitted`` when no submission is theirs (``merge.roster_rows``).
    """
    limits = GradingLimits.from_options(timeout, memory_mb)  # every limit, once, checked
    _check_options(jobs, sandbox, scheduler, tls, insecure)
    started = time.monotonic()
    exercise = specs.load(exercise_name, Path(source_dir) if source_dir else None)
    expected = exercise.expected()  # in this process only
    out_dir = Path(out_dir)
    previous, overrides_file, late_settings = _earlier(out_dir, exercise, overrides, due, late)
    roster = read_roster(roster) if isinstance(roster, (str, Path)) else roster
    submissions, warnings, site = _prepare(
        exercise, paths, notebook, out_dir, None if scheduler is not None else sandbox, limits,
        only, lambda found: _check_overrides(overrides_file, exercise, previous, found,
                                             (roster, roster_column)))
    before, hints, rows, plan = _before_grading(site, out_dir, exercise, expected, submissions,
                                                limits, (progress, on_result))
    if scheduler is not None:  # graded on a Dask cluster; rows and outputs as below
        from .cluster import grade_on_cluster
        try:
            isolation, more = grade_on_cluster(scheduler, rows, plan, limits, sandbox, tls,
                                               insecure)
        finally:
            site.close()
        warnings += more
    else:
        warnings += _grade_here(rows, plan, site, jobs)
        isolation, differ = rows.isolation()  # what the workers reported, as on Dask
        warnings += differ
    warnings += remove_planted(out_dir, before)
    batch = BatchResult(exercise, rows.sorted(), warnings, round(time.monotonic() - started, 2),
                        out_dir, isolation, limits, {s.id: s for s in submissions})
    batch.integrity = hints
    batch.late = late_settings
    settle(batch, previous, overrides_file, command, reason, roster=roster,
           roster_column=roster_column)
    return batch


def _before_grading(site, out_dir, exercise, expected, submissions, limits, report_to):
    """(the output folder's snapshot, the integrity hints, the rows to fill, the probe plan);
    the site is closed if any of it fails (grading, which comes next, closes it itself)."""
    try:
        before = snapshot(out_dir)
        hints = check_batch(exercise, submissions, limits)  # never run
        plan = exercise.probe_plan()  # reads the reference solutions' files
        return before, hints, Rows(exercise, expected, submissions, *report_to), plan
    except BaseException:
        site.close()
        raise


def _check_options(jobs, sandbox, scheduler, tls, insecure) -> None:
    """Refuse bad options before any submission is read or uploaded (the limits are
    checked by ``GradingLimits``)."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if sandbox not in SANDBOX_MODES:  # checked here too for a cluster, before any upload
        raise ValueError(f"--sandbox must be one of {', '.join(SANDBOX_MODES)}, got {sandbox!r}")
    if scheduler is not None:
        from .cluster import check_scheduler
        check_scheduler(scheduler, tls, insecure)


def _earlier(out_dir: Path, exercise, overrides, due, late):
    """(the gradebook already in ``out_dir`` or None, the overrides file or None, the late
    settings), read before any submission runs."""
    previous = load_previous(out_dir, exercise)
    late_settings = settings(due, late, previous.late if previous is not None else None)
    overrides_file = Path(overrides) if overrides is not None else (
        out_dir / OVERRIDES_FILE if (out_dir / OVERRIDES_FILE).is_file() else None)
    if overrides_file is not None and not overrides_file.is_file():
        raise FileNotFoundError(f"--overrides {overrides_file}: no such file")
    return previous, overrides_file, late_settings


def _check_overrides(overrides_file, exercise, previous, submissions, roster=(None, None)
                     ) -> None:
    """A bad overrides file (or roster column) stops the batch before any kernel runs;
    the roster's students with no submission may be overridden too."""
    roster, column = roster
    students = {s.id for s in submissions}
    earlier = {r.submission: vars(previous.sources.get(r.submission, SimpleNamespace()))
               for r in (previous.results if previous is not None else [])}
    if roster is not None:  # the rows ``merge.roster_rows`` will keep or add
        rows = [{"submission": s.id, "source": {"lms": s.lms, "lms_id": s.lms_id}}
                for s in submissions] + [{"submission": name, "source": source}
                                         for name, source in earlier.items()]
        missing = absent(roster, rows, column)
        earlier = {name: source for name, source in earlier.items()
                   if source.get("lms") != ROSTER_ROW
                   or still_absent(roster, str(source.get("lms_id", "")), missing)}
        taken = {normalise(name) for name in students | set(earlier)}
        students |= {row_name(s, column, taken) for s in missing.values()}
    students |= set(earlier)
    if overrides_file is not None:
        read_overrides(overrides_file, exercise, sorted(students))


def _prepare(exercise, paths, notebook, out_dir: Path, local, limits: GradingLimits,
             only=None, check=None):
    """(submissions, warnings, this machine's ``GradingSite``), or nothing left behind and
    the error raised.  ``local`` is the sandbox mode when the batch runs on this
    machine: its sandbox's self-test then runs here, before any kernel.  A notebook over
    ``limits.notebook_mb`` is stripped of its saved outputs here, once."""
    site = GradingSite(secrets.token_hex(12))
    try:
        submissions, warnings = collect_submissions(paths, notebook or exercise.name,
                                                    site.inbox)
        if only:
            submissions = select(submissions, only)
        if check is not None:
            check(submissions)
        if not submissions:
            raise ValueError("no submissions to grade: " + "; ".join(warnings or ["none given"]))
        submissions = strip_oversized(submissions, limits.notebook_bytes, site.inbox)
        if local is not None:
            site.start(local, limits)
        out_dir.mkdir(parents=True, exist_ok=True)
    except BaseException:
        site.close()
        raise
    return submissions, warnings, site


def _grade_here(rows: Rows, plan, site: GradingSite, jobs: int) -> list[str]:
    """Grade on this machine's workers (under the limits ``site`` was started with), then
    leave nothing running; the warnings."""
    try:
        grade_locally(rows, plan, site, jobs)
    finally:
        leftovers = site.close()
    return leftover_warnings(leftovers)
