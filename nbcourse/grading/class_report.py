"""One HTML page per batch for the instructor: how the class did, question by question.

``report.html`` beside ``grades.csv``: the students who need attention (named), the
distribution of totals, the pass rate and the known mistakes of every question (and how many failed it with no mistake the spec
recognises, the cases worth reading by hand; an answer right but for a graded function
it calls is counted apart, its mistake under that function), the slowest submissions, and the
isolation and limits the batch ran with, and the integrity hints (``integrity``: pairs of
near-identical answers, copies of the solution) for a person to judge.  Means, medians and
pass rates are over the submissions that carry a mark: a student who submitted nothing
is named and counted apart, never averaged in as a zero.  Every number comes from the
same rows as ``grades.csv``; the plots are PNGs inside the page, so it opens offline, from a mail
attachment or a USB stick.
"""
from __future__ import annotations

import base64
import io
import statistics
from html import escape

from .diagnosis import mistake_counts
from .scoring import mean_text, points_text
from .statuses import NO_MARK, NOT_A_MARK, AnswerStatus, Status

#: A submission below this share of the exercise's points is named among those who need
#: attention, whatever its status.
ATTENTION_BELOW = 0.5
#: Statuses that need a person whatever the total: nothing handed in, a run that did not
#: finish, a file that is not a notebook, or a row the grader could not mark.
ATTENTION_STATUSES = (Status.NOT_SUBMITTED, Status.NOT_A_NOTEBOOK, Status.EMPTY_NOTEBOOK,
                      Status.TIMED_OUT, Status.KERNEL_DIED, Status.MEMORY_LIMIT,
                      Status.ANSWERS_UNREADABLE, *sorted(NOT_A_MARK))

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.small { color: #555; font-size: 0.9rem; }
img { max-width: 100%; }
"""


def _png(figure) -> str:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=96, bbox_inches="tight")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"data:image/png;base64,{data}"


def histogram(totals: list[float], maximum: float) -> str:
    """A PNG data URL: how many students got each total."""
    from matplotlib.figure import Figure
    figure = Figure(figsize=(6, 2.8))
    axes = figure.add_subplot()
    bins = max(1, min(20, int(maximum) if maximum >= 1 else 1))
    axes.hist(totals, bins=bins, range=(0, maximum or 1), color="#4477aa", edgecolor="white")
    axes.set_xlabel(f"total (out of {points_text(maximum)})")
    axes.set_ylabel("students")
    axes.yaxis.get_major_locator().set_params(integer=True)
    return _png(figure)


def pass_rates_plot(labels: list[str], rates: list[float]) -> str:
    from matplotlib.figure import Figure
    figure = Figure(figsize=(6, 0.5 + 0.35 * len(labels)))
    axes = figure.add_subplot()
    axes.barh(labels[::-1], [100 * r for r in rates[::-1]], color="#228833")
    axes.set_xlim(0, 100)
    axes.set_xlabel("passed every test (% of submissions)")
    return _png(figure)


def marked(results) -> list:
    """The rows that are submissions with a mark: not ``not submitted``, and not a row
    the grader could not mark (several notebooks, a grader error, a link)."""
    return [r for r in results if r.status not in NO_MARK]


def attention(batch, below: float = ATTENTION_BELOW) -> list[tuple[str, str, str]]:
    """(student, status, why) of every row that needs a person: a status of
    ``ATTENTION_STATUSES``, or a total under ``below`` of the maximum; in that order of
    statuses, then by name."""
    if not 0 <= below <= 1:
        raise ValueError(f"below must be a share of the points between 0 and 1, got {below!r}")
    maximum = batch.exercise.maximum
    order = {status: i for i, status in enumerate(ATTENTION_STATUSES)}
    found = []
    for result in batch.results:
        if result.status in order:
            why = result.reasons[0] if result.reasons else str(result.status)
            why = why if len(why) <= 200 else why[:199] + "…"
            found.append((order[result.status], result.submission, result.status, why))
        elif maximum and result.total < below * maximum:
            found.append((len(order), result.submission, result.status,
                          f"{points_text(result.total)} of {points_text(maximum)} points"))
    return [(name, status, why) for _, name, status, why in sorted(found)]


def question_table(batch) -> list[dict]:
    """Per question: passed, failed, failed with no recognised mistake, mean points,
    and each known mistake with how many made it.  Computed from the batch's rows that
    carry a mark (``marked``)."""
    rows = marked(batch.results)
    table = []
    for question in batch.exercise.questions:
        answers = [q for r in rows for q in r.questions if q.id == question.id]
        passed = sum(1 for q in answers if q.status == AnswerStatus.PASSED)
        # right with the right functions it calls: their mistake, counted where it is
        carried = sum(1 for q in answers if q.status == AnswerStatus.FOLLOW_THROUGH)
        failed = [q for q in answers if q.status not in (AnswerStatus.PASSED,
                                                         AnswerStatus.FOLLOW_THROUGH)]
        mistakes = mistake_counts(answers)
        table.append({
            "id": question.id, "name": question.name, "title": question.title,
            "points": question.points, "n": len(answers), "passed": passed,
            "failed": len(failed), "right_given_callees": carried,
            "unrecognised": sum(1 for q in failed if not q.mistakes),
            "mean": mean_text(q.score for q in answers),
            "mistakes": sorted(mistakes.items(), key=lambda item: (-item[1], item[0])),
        })
    return table


def render_report(batch) -> str:
    exercise = batch.exercise
    results = batch.results
    rows = marked(results)
    n = len(rows)
    totals = [r.total for r in rows]
    counts = batch.counts()
    title = f"{exercise.name}: {exercise.title}"
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>Class report: {escape(title)}</title>",
             f"<style>{STYLE}</style></head><body>",
             f"<h1>Class report: {escape(title)}</h1>"]
    missing = sum(1 for r in results if r.status == Status.NOT_SUBMITTED)
    unmarked = len(results) - n - missing
    apart = []
    if missing:
        apart.append(f'<span id="not-submitted">{missing}</span> not submitted')
    if unmarked:
        apart.append(f'<span id="unmarked">{unmarked}</span> without a mark (see the statuses)')
    apart_text = (f" Not counted in the mean or the pass rates: {' and '.join(apart)}."
                  if apart else "")
    if n:
        parts.append(f'<p id="overview">{n} submission{"s" if n != 1 else ""} with a mark; '
                     f'mean <span id="mean">{mean_text(totals)}</span>, median '
                     f'{points_text(statistics.median(totals))} out of '
                     f'{points_text(exercise.maximum)} points.{apart_text}</p>')
    else:
        parts.append(f'<p id="overview">No submission with a mark.{apart_text}</p>')
    parts.append('<table id="statuses"><tr><th>status</th><th>submissions</th></tr>'
                 + "".join(f'<tr><td>{escape(s)}</td><td class="n">{c}</td></tr>'
                           for s, c in counts.items()) + "</table>")
    parts.append(_attention_section(batch))
    parts.append(_late_section(batch))
    if n:
        parts.append('<h2>Totals</h2><img id="histogram" alt="histogram of the totals: how '
                     f'many students got each total" src="{histogram(totals, exercise.maximum)}">')
    parts += _questions_section(batch, n)
    slowest = sorted(results, key=lambda r: -r.seconds)[:10]
    if slowest:
        parts.append('<h2>Slowest submissions</h2><table id="slowest"><tr><th>submission'
                     "</th><th>status</th><th>seconds</th></tr>"
                     + "".join(f"<tr><td>{escape(r.submission)}</td><td>{escape(r.status)}</td>"
                               f'<td class="n">{r.seconds:.1f}</td></tr>' for r in slowest)
                     + "</table>")
    parts.append(_integrity_section(getattr(batch, "integrity", None)))
    parts.append(_settings_table(batch))
    if batch.warnings:
        parts.append("<h2>Warnings</h2><ul>" + "".join(f"<li>{escape(w)}</li>"
                                                       for w in batch.warnings) + "</ul>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _questions_section(batch, n: int) -> list[str]:
    """The pass-rate plot and the per-question table."""
    table = question_table(batch)
    parts = ["<h2>Questions</h2>"]
    if n:
        parts.append('<img id="pass-rates" alt="share of submissions that passed every test '
                     'of each question" src="'
                     + pass_rates_plot([f"{q['id']} {q['name']}" for q in table],
                                       [q["passed"] / q["n"] if q["n"] else 0 for q in table])
                     + '">')
    parts.append('<table id="questions"><tr><th>question</th><th>points</th><th>mean</th>'
                 "<th>passed</th><th>right given the functions it calls</th><th>failed</th>"
                 "<th>failed with no recognised mistake</th>"
                 "<th>known mistakes (how many made each)</th></tr>")
    for q in table:
        mistakes = "<br>".join(f"{escape(name)}: {count}" for name, count in q["mistakes"]) \
            or "&mdash;"
        parts.append(
            f'<tr id="q-{escape(q["id"])}"><td>{escape(q["id"])} <code>{escape(q["name"])}'
            f'</code><br><span class="small">{escape(q["title"])}</span></td>'
            f'<td class="n">{points_text(q["points"])}</td><td class="n">{q["mean"]}</td>'
            f'<td class="n">{q["passed"]} of {q["n"]}</td>'
            f'<td class="n">{q["right_given_callees"]}</td><td class="n">{q["failed"]}</td>'
            f'<td class="n">{q["unrecognised"]} of {q["n"]} failed with no recognised '
            f"mistake</td><td>{mistakes}</td></tr>")
    parts.append("</table>")
    return parts


def _attention_section(batch) -> str:
    """Who needs a person, by name: the statuses of ``ATTENTION_STATUSES`` and the totals
    under ``ATTENTION_BELOW`` of the points."""
    found = attention(batch)
    head = ('<h2>Students who need attention</h2><p class="small">Nothing handed in, a run '
            "that did not finish, a file that is not a notebook, a row the grader could not "
            f"mark, or fewer than {ATTENTION_BELOW:.0%} of the points.</p>")
    if not found:
        return head + '<p id="attention">Nobody.</p>'
    return (head + '<table id="attention"><tr><th>student</th><th>status</th><th>why</th></tr>'
            + "".join(f"<tr><td>{escape(name)}</td><td>{escape(status)}</td>"
                      f"<td>{escape(why)}</td></tr>" for name, status, why in found)
            + "</table>")


def _late_section(batch) -> str:
    """With a deadline: who was late, and whose hand-in time is unknown (counted as on
    time, see ``late``), by name."""
    late = getattr(batch, "late", None) or {}
    if not late.get("due"):
        return ""
    overdue = [r for r in batch.results if r.late_days]
    unknown = [r.submission for r in batch.results if r.time_unknown]
    parts = [f'<h2>Late work</h2><p id="late">Due {escape(late["due"])}, policy '
             f'{escape(late.get("policy", "none"))}: {len(overdue)} late'
             + ("" if not overdue else ": " + ", ".join(
                 f"{escape(r.submission)} ({r.late_days} d)" for r in overdue)) + ".</p>"]
    if unknown:
        parts.append('<p id="time-unknown">Hand-in time unknown (no timestamp.txt), counted '
                     f'as on time: {escape(", ".join(unknown))}.</p>')
    return "".join(parts)


def _integrity_section(report) -> str:
    """The integrity hints (``integrity.Report``): pairs of submissions whose graded code
    is near-identical, and submissions that are the instructor's solution."""
    from .integrity import K, MIN_FINGERPRINTS, W
    parts = ['<h2 id="integrity">Integrity hints, for a person to judge</h2>']
    if report is None:
        parts.append("<p>Not computed for this batch.</p>")
        return "\n".join(parts)
    if report.error:
        parts.append(f"<p>Could not be computed: {escape(report.error)}</p>")
        return "\n".join(parts)
    parts.append(
        '<p class="small">The code of the graded answers (and the helpers it uses) is compared '
        "after renaming every name the student chose, dropping layout, comments and literal "
        "values, and ignoring the order of cells; the code the release gives everyone is left "
        f"out. Similarity is the share of fingerprints ({K}-token runs of the syntax tree, "
        f"winnowed over {W}) two submissions share; listed from "
        f'<span id="integrity-threshold">{report.threshold:.0%}</span>. A high similarity is a '
        "reason to read both notebooks, not a finding: short answers to the same question can "
        "coincide, and students may have been allowed to work together. It cannot see code "
        "copied and then rewritten by hand, answers shared by talking, or who copied whom. "
        "No mark depends on it.</p>")
    parts.append(f"<p>{report.compared} submission{'s' if report.compared != 1 else ''} "
                 "compared.</p>")
    if report.pairs:
        parts.append('<table id="integrity-pairs"><tr><th>submission</th><th>submission</th>'
                     "<th>similarity</th><th>answers identical after renaming</th></tr>"
                     + "".join(f"<tr><td>{escape(p.first)}</td><td>{escape(p.second)}</td>"
                               f'<td class="n">{p.similarity:.0%}</td>'
                               f"<td>{escape(', '.join(p.same_answers)) or '&mdash;'}</td></tr>"
                               for p in report.pairs) + "</table>")
    else:
        parts.append('<p id="integrity-pairs">No pair reaches the threshold.</p>')
    if report.solution:
        parts.append("<p>Near-identical to the instructor's solution:</p>"
                     '<table id="integrity-solution"><tr><th>submission</th><th>similarity</th>'
                     "</tr>" + "".join(f"<tr><td>{escape(name)}</td>"
                                       f'<td class="n">{score:.0%}</td></tr>'
                                       for name, score in report.solution) + "</table>")
    else:
        parts.append('<p id="integrity-solution">No submission reaches the threshold against '
                     "the instructor's solution.</p>")
    if report.not_compared:
        parts.append('<p class="small">Not compared (fewer than '
                     f"{MIN_FINGERPRINTS} fingerprints of their own, or not a readable "
                     "notebook): " + ", ".join(escape(name) for name in sorted(report.not_compared))
                     + ".</p>")
    return "\n".join(parts)


def _settings_table(batch) -> str:
    """How the batch was graded: version, spec hash, isolation, limits, time."""
    info = batch.provenance()
    rows = [("nbcourse", info["nbcourse_version"]), ("spec sha256", info["spec_sha256"]),
            *[(f"isolation: {k}", v) for k, v in (batch.isolation or {}).items()],
            *[(f"limit: {k}", v) for k, v in info["limits"].items()
              if k != "enforced"],  # = the isolation rows
            ("wall-clock time", f"{batch.seconds:.1f} s")]
    return ('<h2>How it was graded</h2><table id="settings">'
            + "".join(f"<tr><th>{escape(str(k))}</th><td>{escape(str(v))}</td></tr>"
                      for k, v in rows)
            + "</table>")
