"""One HTML page per batch for the instructor: how the class did, question by question.

``report.html`` beside ``grades.csv``: the distribution of totals, the pass rate and
the known mistakes of every question (and how many failed it with no mistake the spec
recognises, the cases worth reading by hand; an answer right but for a graded function
it calls is counted apart, its mistake under that function), the slowest submissions, and the
isolation and limits the batch ran with.  Every number comes from the same rows as
``grades.csv``; the plots are PNGs inside the page, so it opens offline, from a mail
attachment or a USB stick.
"""
from __future__ import annotations

import base64
import io
import statistics
from html import escape

from .scoring import points_text
from .statuses import AnswerStatus

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


def question_table(batch) -> list[dict]:
    """Per question: passed, failed, failed with no recognised mistake, mean points,
    and each known mistake with how many made it.  Computed from the batch's rows."""
    rows = batch.results
    table = []
    for question in batch.exercise.questions:
        answers = [q for r in rows for q in r.questions if q.id == question.id]
        passed = sum(1 for q in answers if q.status == AnswerStatus.PASSED)
        # right with the right functions it calls: their mistake, counted where it is
        carried = sum(1 for q in answers if q.status == AnswerStatus.FOLLOW_THROUGH)
        failed = [q for q in answers if q.status not in (AnswerStatus.PASSED,
                                                         AnswerStatus.FOLLOW_THROUGH)]
        mistakes: dict[str, int] = {}
        for answer in answers:
            for name in answer.mistakes:
                mistakes[name] = mistakes.get(name, 0) + 1
        table.append({
            "id": question.id, "name": question.name, "title": question.title,
            "points": question.points, "n": len(answers), "passed": passed,
            "failed": len(failed), "right_given_callees": carried,
            "unrecognised": sum(1 for q in failed if not q.mistakes),
            "mean": sum(q.score for q in answers) / len(answers) if answers else 0.0,
            "mistakes": sorted(mistakes.items(), key=lambda item: (-item[1], item[0])),
        })
    return table


def render_report(batch) -> str:
    exercise = batch.exercise
    results = batch.results
    n = len(results)
    totals = [r.total for r in results]
    counts = batch.counts()
    title = f"{exercise.name}: {exercise.title}"
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>Class report: {escape(title)}</title>",
             f"<style>{STYLE}</style></head><body>",
             f"<h1>Class report: {escape(title)}</h1>"]
    if n:
        parts.append(f'<p id="overview">{n} submission{"s" if n != 1 else ""}; mean '
                     f'<span id="mean">{statistics.fmean(totals):.2f}</span>, median '
                     f'{points_text(statistics.median(totals))} out of '
                     f'{points_text(exercise.maximum)} '
                     f'points.</p>')
    parts.append('<table id="statuses"><tr><th>status</th><th>submissions</th></tr>'
                 + "".join(f'<tr><td>{escape(s)}</td><td class="n">{c}</td></tr>'
                           for s, c in counts.items()) + "</table>")
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
            f'<td class="n">{points_text(q["points"])}</td><td class="n">{q["mean"]:.2f}</td>'
            f'<td class="n">{q["passed"]} of {q["n"]}</td>'
            f'<td class="n">{q["right_given_callees"]}</td><td class="n">{q["failed"]}</td>'
            f'<td class="n">{q["unrecognised"]} of {q["n"]} failed with no recognised '
            f"mistake</td><td>{mistakes}</td></tr>")
    parts.append("</table>")
    return parts


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
