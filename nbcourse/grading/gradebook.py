"""The output folder of a batch: the gradebook (grades.csv), results.json, one feedback
page per submission and the class report, written from a ``BatchResult``.

Written only at the very end, after every kernel is gone; ``snapshot`` and
``remove_planted`` take away anything that appeared in the folder while submissions ran,
so a submission cannot plant its own gradebook or feedback.  Every file is written
whole or not at all (``write_atomic``).
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import specs
from .collection import display_name
from .diagnosis import batch_summary
from .execution.limits import GradingLimits
from .feedback import render_html
from .overrides import describe
from .scoring import SubmissionResult, points_text
from .statuses import PRECEDENCE


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
    integrity: object = None  # integrity.Report: hints for the class report, or None
    regraded: list[str] | None = None  # graded by this run, when merged into earlier rows
    late: dict = field(default_factory=lambda: {"due": "", "policy": "none"})

    def counts(self) -> dict[str, int]:
        counts = {status: 0 for status in PRECEDENCE}
        for result in self.results:
            counts[result.status] = counts.get(result.status, 0) + 1
        return {k: v for k, v in counts.items() if v}

    def provenance(self) -> dict:
        """What a regrade must match to give the same marks: the package's version, the
        hash of the spec file (every case, point and reference) and the limits applied
        (with what the machine enforced)."""
        from .. import __version__
        exercise, spec_hash = self.exercise, ""
        if exercise.source is not None:
            spec_file = Path(exercise.source).with_name(exercise.name + specs.SPEC_SUFFIX)
            if spec_file.is_file():
                spec_hash = hashlib.sha256(spec_file.read_bytes()).hexdigest()
        limits = {**self.limits.to_json(), "enforced": self.enforced} if self.limits else {}
        return {"nbcourse_version": __version__, "spec_sha256": spec_hash, "limits": limits}

    @property
    def enforced(self) -> dict:
        """What the machines that ran the kernels enforced of the limits: the isolation
        table without the Dask cluster's own rows."""
        return {k: v for k, v in self.isolation.items() if not k.startswith("dask_")}


def snapshot(folder: Path) -> dict[str, tuple]:
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


def remove_planted(folder: Path, before: dict[str, tuple]) -> list[str]:
    """Delete what appeared in the output folder while submissions ran; report it."""
    after = snapshot(folder)
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


def write_atomic(path: Path, content: str | bytes) -> None:
    """Write via a temporary file and rename, replacing (not following) any symlink.

    Text that cannot be encoded (a lone surrogate from a strange name) is escaped, never
    an error: the gradebook is always written.  Bytes (an LMS workbook) are written as
    they are.
    """
    data = content if isinstance(content, bytes) else \
        content.encode("utf-8", errors="backslashreplace")
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
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


# every line break Python's str.splitlines knows: a reader may end a record at any of them
_LINE_BREAKS = re.compile("[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+")


def spreadsheet_safe(text: str) -> str:
    """A cell a spreadsheet shows as text on one line: line breaks (a lone CR included)
    become a blank, and a leading ``'`` goes before what could start a formula."""
    text = _LINE_BREAKS.sub(" ", str(text))
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_text(rows: list[list]) -> str:
    """Every CSV the grader writes: each cell quoted and made ``spreadsheet_safe``, so
    no cell can end a record or start a formula, whatever a file name or error said."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_ALL)
    for row in rows:
        writer.writerow([spreadsheet_safe(cell) for cell in row])
    return buffer.getvalue()


def gradebook_csv(batch: BatchResult) -> str:
    questions = [q.id for q in batch.exercise.questions]
    rows = [["submission", "status", *questions, "total", "maximum", "flags", "reason",
             "overrides", "raw", "penalty", "days late"]]
    for result in batch.results:
        scores = {q.id: points_text(q.score) for q in result.questions}
        rows.append([result.submission, result.status, *(scores[q] for q in questions),
                     points_text(result.total), points_text(result.maximum),
                     "; ".join(result.flags), result.reasons[0] if result.reasons else "",
                     "; ".join(describe(change) for change in result.overrides),
                     points_text(result.total + result.penalty), points_text(result.penalty),
                     str(result.late_days)])
    return csv_text(rows)


def collected_from(source) -> str:
    """Where a row's notebook was found (absolute), so that a later regrade can tell a
    student's own notebook from another file that came out under the same name."""
    where = getattr(source, "origin", None) or getattr(source, "path", "")
    return os.path.abspath(where) if where else ""


def results_json(batch: BatchResult) -> str:
    exercise = batch.exercise
    submissions = []
    names = feedback_names([r.submission for r in batch.results])
    for result in batch.results:
        row = result.to_json()
        row["feedback"] = f"feedback/{names[result.submission]}.html"
        source = batch.sources.get(result.submission)
        if source is not None:
            row["source"] = {"lms": source.lms, "lms_id": source.lms_id, "late": source.late,
                             "path": collected_from(source)}
        submissions.append(row)
    data = {
        "exercise": exercise.name,
        "title": exercise.title,
        "maximum": exercise.maximum,
        "isolation": batch.isolation,
        **batch.provenance(),
        "late": batch.late,
        "questions": [{"id": q.id, "name": q.name, "title": q.title, "points": q.points,
                       "cases": len(q.cases)} for q in exercise.questions],
        "submissions": submissions,
        "summary": batch.counts(),
        "mistakes": batch_summary(batch.results, exercise),  # per question: how many made each
        "warnings": batch.warnings,
    }
    return json.dumps(data, indent=1, ensure_ascii=True) + "\n"


def _holds(path: Path, text: str) -> bool:
    """``path`` is a plain file with exactly ``text`` (as ``write_atomic`` writes it)."""
    try:
        return (not path.is_symlink() and path.is_file()
                and path.read_bytes() == text.encode("utf-8", "backslashreplace"))
    except OSError:
        return False


def write_outputs(batch: BatchResult, out_dir: Path) -> None:
    """grades.csv, results.json and feedback/<submission>.html; one page failing to
    render never stops the others or the gradebook.  A page whose text is already in the
    folder is left as it is, so a regrade rewrites only what changed."""
    write_atomic(out_dir / "grades.csv", gradebook_csv(batch))
    write_atomic(out_dir / "results.json", results_json(batch))
    names = feedback_names([r.submission for r in batch.results])
    for result in batch.results:
        try:
            page = render_html(result, batch.exercise.title)
        except Exception as error:  # noqa: BLE001
            page = f"<p>feedback could not be rendered ({type(error).__name__})</p>\n"
        target = out_dir / "feedback" / f"{names[result.submission]}.html"
        if not _holds(target, page):
            write_atomic(target, page)
    try:
        from .class_report import render_report
        write_atomic(out_dir / "report.html", render_report(batch))
    except Exception as error:  # noqa: BLE001 - the gradebook is written whatever happens
        batch.warnings.append(f"the class report could not be written ({type(error).__name__}: "
                              f"{error})")
