"""A gradebook that only grows: what an earlier run left in the output folder, merged with
what this run graded, and the history of every change.

``nbcourse grade`` into a folder that already holds a gradebook of the same exercise
keeps every row it does not grade again, as it was (the same bytes in grades.csv and
results.json, the same feedback page): a student graded again replaces their own row, a
new student adds one, and no row is ever dropped.  A folder holding another exercise's
gradebook, or one graded with other questions or points, is refused: the rows would not
line up.  Every run appends a line to ``history.jsonl``: when, what was graded, the
spec's hash and the command (or the reason given).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from .scoring import SubmissionResult

HISTORY_FILE = "history.jsonl"


@dataclass
class Previous:
    """The gradebook an earlier run wrote into the folder."""
    results: list[SubmissionResult] = field(default_factory=list)
    sources: dict = field(default_factory=dict)  # id -> where the row came from (LMS ids)
    spec_sha256: str = ""
    late: dict = field(default_factory=dict)  # the deadline and late policy used


def load_previous(out_dir: Path, exercise) -> Previous | None:
    """The earlier gradebook in ``out_dir``, or None when there is none; a ValueError when
    the folder holds something this run must not merge into."""
    results_file, grades_file = out_dir / "results.json", out_dir / "grades.csv"
    if not results_file.is_file():
        if grades_file.exists():
            raise ValueError(f"{out_dir} holds a grades.csv but no results.json, so its rows "
                             "cannot be kept: choose another --out (nothing was graded)")
        return None
    where = f"{out_dir} already holds a gradebook"
    try:
        data = json.loads(results_file.read_text(encoding="utf-8"))
        rows = [SubmissionResult.from_json(row) for row in data["submissions"]]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{where}, but its results.json cannot be read ({error}): choose "
                         "another --out (nothing was graded)") from None
    if data.get("exercise") != exercise.name:
        raise ValueError(f"{where} of {data.get('exercise')!r}, not of {exercise.name}: "
                         "grade each exercise into a folder of its own (nothing was graded)")
    questions = [(q.id, float(q.points)) for q in exercise.questions]
    before = [(q.get("id"), float(q.get("points", 0))) for q in data.get("questions", [])]
    if before != questions:
        raise ValueError(f"{where} of {exercise.name} graded with other questions or points "
                         f"({_listing(before)}; now {_listing(questions)}): its rows would not "
                         "line up. Grade the whole class into a new --out (nothing was graded)")
    sources = {row["submission"]: SimpleNamespace(**row["source"])
               for row in data["submissions"] if isinstance(row.get("source"), dict)}
    late = data.get("late") if isinstance(data.get("late"), dict) else {}
    return Previous(rows, sources, data.get("spec_sha256", ""), late)


def _listing(questions) -> str:
    return ", ".join(f"{q} {points:g}" for q, points in questions)


def merge(previous: Previous | None, results: list[SubmissionResult]) -> list[SubmissionResult]:
    """Every earlier row not graded again, and every row of this run, by submission."""
    if previous is None:
        return list(results)
    fresh = {r.submission for r in results}
    kept = [r for r in previous.results if r.submission not in fresh]
    return sorted(kept + list(results), key=lambda r: r.submission)


def select(submissions: list, only: list[str]) -> list:
    """The submissions named by ``--only`` (each must be found)."""
    import unicodedata

    def key(name: str) -> str:
        return unicodedata.normalize("NFC", name)

    wanted = {key(name): name for name in only}
    chosen = [s for s in submissions if key(s.id) in wanted]
    missing = sorted(set(wanted) - {key(s.id) for s in chosen})
    if missing:
        names = sorted(s.id for s in submissions)
        raise ValueError(f"--only {', '.join(wanted[m] for m in missing)}: no such student "
                         f"among the submissions given (found: {', '.join(names[:10])}"
                         f"{' ...' if len(names) > 10 else ''})")
    return chosen


def append_history(out_dir: Path, entry: dict) -> None:
    """One line of ``history.jsonl``, with the time (UTC) first."""
    from .gradebook import write_atomic

    line = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **entry}
    path = out_dir / HISTORY_FILE
    try:  # a link in its place is replaced, never followed (as every file of the folder)
        earlier = "" if path.is_symlink() else path.read_text(encoding="utf-8",
                                                                 errors="replace")
    except FileNotFoundError:
        earlier = ""
    if earlier and not earlier.endswith("\n"):
        earlier += "\n"
    write_atomic(path, earlier + json.dumps(line, ensure_ascii=True) + "\n")


def _keep_rows_found_elsewhere(batch, previous: Previous | None) -> None:
    """A row graded before from one file is not replaced by a file found elsewhere under the
    same name (a student's subfolder named like a classmate, graded alone, is named after
    that subfolder): the earlier row stays and the instructor is told."""
    from .gradebook import collected_from
    if previous is None:
        return
    for result in list(batch.results):
        before = getattr(previous.sources.get(result.submission), "path", "")
        now = batch.sources.get(result.submission)
        found = collected_from(now) if now is not None else ""
        if before and found and before != found:
            batch.results.remove(result)
            batch.sources.pop(result.submission, None)
            batch.warnings.append(
                f"{result.submission}: not regraded: the row graded before came from {before}, "
                f"this run found {found}; move the new notebook there, or grade into a new "
                "--out")


def _row_dict(result, source) -> dict:
    """What ``roster.match`` reads of a row: its name and where it came from."""
    return {"submission": result.submission, "source": {
        "lms": getattr(source, "lms", ""), "lms_id": getattr(source, "lms_id", "")}}


def roster_rows(batch, roster, column: str | None = None) -> None:
    """A ``not submitted`` row for every roster student no row of ``batch`` can be, kept
    (with its overrides) from the earlier gradebook when it was there; a roster row whose
    student now has a submission, or who left the roster, is taken out."""
    from .collection import Submission
    from .roster import ROSTER_ROW, absent, normalise, row_name, still_absent
    from .scheduling import refused_report, score_row
    from .statuses import Status
    if roster is None:
        return
    placeholder = {r.submission: str(getattr(batch.sources.get(r.submission), "lms_id", ""))
                   for r in batch.results
                   if getattr(batch.sources.get(r.submission), "lms", "") == ROSTER_ROW}
    missing = absent(roster, [_row_dict(r, batch.sources.get(r.submission))
                              for r in batch.results], column)
    kept = set()
    for name, ident in placeholder.items():  # found again by the surest name, as at export
        now = still_absent(roster, ident, missing)
        if now and now not in kept:
            kept.add(now)
            batch.sources[name] = SimpleNamespace(**{**vars(batch.sources[name]),
                                                     "lms_id": now})  # the roster's today
            placeholder[name] = ""
    batch.results = [r for r in batch.results if not placeholder.get(r.submission)]
    taken = {normalise(r.submission) for r in batch.results}
    for ident, student in sorted(missing.items()):
        if ident in kept:
            continue
        name = row_name(student, column, taken)
        taken.add(normalise(name))
        source = Submission(name, "", Status.NOT_SUBMITTED,
                            f"no submission was found for {student.name}, who is on the roster",
                            f"roster: {student.name}", ROSTER_ROW, ident)
        batch.sources[name] = source
        batch.results.append(score_row(batch.exercise, {}, source, refused_report(source)))
    batch.results.sort(key=lambda r: r.submission)


def settle(batch, previous: Previous | None, overrides_file: Path | None,
           command: str = "", reason: str = "", always_recorded: bool = True,
           roster=None, roster_column: str | None = None) -> None:
    """Merge ``batch`` (this run's rows) into the earlier gradebook, add ``roster_rows``,
    apply the overrides, write the folder and add a line to the history.  ``batch.results``
    becomes the merged gradebook; ``batch.regraded`` the students this run graded."""
    from .gradebook import write_outputs
    from .late import apply_late, unknown_time_warning
    from .overrides import apply_overrides, describe, read_overrides, undo_overrides
    out_dir = Path(batch.out_dir)
    _keep_rows_found_elsewhere(batch, previous)
    batch.regraded = [r.submission for r in batch.results]
    batch.results = merge(previous, batch.results)
    if previous is not None:
        batch.sources = {**previous.sources, **batch.sources}
        kept = len(batch.results) - len(batch.regraded)
        if kept and batch.regraded:
            batch.warnings.append(f"{kept} row{'s' if kept != 1 else ''} kept as graded "
                                  "before (this run graded "
                                  f"{len(batch.regraded)}; a gradebook only grows)")
    roster_rows(batch, roster, roster_column)
    earlier = {r.submission: r.overrides for r in previous.results} if previous else {}
    changes = []
    if overrides_file is None:  # the overrides applied before stay where they are
        lost = sorted(s for s in batch.regraded if earlier.get(s))
        if lost:
            batch.warnings.append(
                f"graded again without the overrides they had before: {', '.join(lost)} "
                f"(keep overrides in {out_dir / 'overrides.csv'} so they are applied "
                "on every run)")
    else:  # the file says every override there is
        for result in batch.results:
            undo_overrides(result)
        changes = read_overrides(overrides_file, batch.exercise,
                                 [r.submission for r in batch.results])
        apply_overrides(batch.results, changes)
    apply_late(batch.results, batch.sources, batch.late, batch.exercise.maximum)
    batch.warnings += unknown_time_warning(batch.results)
    for result in batch.results:
        for change in result.overrides:
            batch.warnings.append(f"override for {result.submission}: {describe(change)}")
    previous_hash = previous.spec_sha256 if previous is not None else ""
    provenance = batch.provenance()
    if previous_hash and provenance["spec_sha256"] != previous_hash and batch.regraded \
            and len(batch.regraded) < len(batch.results):
        batch.warnings.append("the spec changed since the other rows were graded (see "
                              f"{HISTORY_FILE}): grade the whole class again to mark them "
                              "all by the same spec")
    write_outputs(batch, out_dir)
    overridden = sorted(r.submission for r in batch.results
                        if r.overrides != earlier.get(r.submission, []))
    if not always_recorded and not overridden:
        return
    append_history(out_dir, {
        "command": command, "reason": reason, "exercise": batch.exercise.name,
        "spec_sha256": provenance["spec_sha256"],
        "nbcourse_version": provenance["nbcourse_version"],
        "graded": batch.regraded, "rows": len(batch.results),
        "overrides": len(changes), "overrides_changed": overridden,
        "overrides_file": str(overrides_file) if overrides_file is not None else ""})


def reapply_overrides(out_dir: Path, overrides_file: Path | None, source_dir: Path | None,
                      command: str = "", reason: str = "") -> None:
    """Apply the overrides again to the gradebook in ``out_dir`` without regrading (what
    ``nbcourse export`` does first): totals, gradebook and the pages that change."""
    from . import specs
    from .execution.limits import GradingLimits
    from .gradebook import BatchResult

    try:
        data = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
        name = data["exercise"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{out_dir}: no gradebook to apply overrides to ({error})") from None
    exercise = specs.load(name, source_dir)
    previous = load_previous(out_dir, exercise)
    limits = GradingLimits.from_json(data["limits"]) if data.get("limits") else None
    from .late import UNKNOWN_TIME_WARNING
    warnings = [w for w in data.get("warnings", [])  # these two are said again by settle
                if not w.startswith(("override for ", UNKNOWN_TIME_WARNING))]
    batch = BatchResult(exercise, [], warnings, 0.0, out_dir, data.get("isolation", {}),
                        limits, {})
    batch.late = previous.late or batch.late
    settle(batch, previous, overrides_file, command, reason, always_recorded=False)
