"""The few lines ``nbcourse grade`` prints when a batch is done."""
from __future__ import annotations

from .class_report import marked
from .diagnosis import summary_lines
from .gradebook import BatchResult
from .scoring import points_text
from .terminal import terminal_safe


def summary(batch: BatchResult) -> str:
    """A few lines for the terminal: counts by status, the mean, where the files are."""
    n = len(batch.results) if batch.regraded is None else len(batch.regraded)
    lines = [f"Graded {n} submission{'s' if n != 1 else ''} of {batch.exercise.name} in "
             f"{batch.seconds:.1f} s ({batch.seconds / max(n, 1):.2f} s per submission)."]
    if batch.isolation:
        isolation = batch.isolation
        lines.append(f"  sandbox: {isolation.get('sandbox')}; memory: "
                     f"{isolation.get('memory_limit')}")
    lines.append("  " + ", ".join(f"{count} {status}" for status, count in batch.counts().items()))
    rows = marked(batch.results)  # as the class report: non-submissions are not zeros
    if rows:
        mean = sum(r.total for r in rows) / len(rows)
        apart = f" (over {len(rows)} submissions with a mark)" if len(rows) != n else ""
        lines.append(f"  mean score {mean:.2f} / {points_text(batch.exercise.maximum)}{apart}")
    flagged = [f"{r.submission} ({'; '.join(r.flags)})" for r in batch.results if r.flags]
    if flagged:  # each with what it was flagged for: a forbidden helper or a typed number
        lines.append(f"  flagged: {', '.join(flagged)}")
    lines += [f"  {line}" for line in summary_lines(batch.results, batch.exercise)]
    for warning in batch.warnings:
        lines.append(f"  warning: {warning}")
    if batch.out_dir is not None:
        lines.append(f"  gradebook: {batch.out_dir / 'grades.csv'}")
        lines.append(f"  details:   {batch.out_dir / 'results.json'}")
        lines.append(f"  feedback:  {batch.out_dir / 'feedback'}/")
        lines.append(f"  report:    {batch.out_dir / 'report.html'}")
    return "\n".join(terminal_safe(line) for line in lines)
