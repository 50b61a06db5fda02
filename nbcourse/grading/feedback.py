"""Per-student feedback pages: each test by name, and why it failed.

A page never shows hidden test code, hidden inputs or expected values: only the
name the instructor gave each case, the student's own result, what is wrong with it
("expected a number, got a string", "raised KeyError: 'windy'") and, when the answer
behaves exactly like a known mistake of the spec, that mistake's name and
explanation.
Everything is HTML-escaped, because student-controlled text (error messages, their
own values) appears on the page.
"""
from __future__ import annotations

from html import escape

from .forbidden import DYNAMIC, DYNAMIC_WHY, UNREAD, UNREAD_WHY
from .typed_in import TYPED_IN
from .scoring import QuestionResult, SubmissionResult, points_text
from .statuses import Status

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.45; color: #1b1b1b; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 1.6rem; }
.score { font-size: 1.2rem; font-weight: 600; }
.status { display: inline-block; padding: 0 .5rem; border-radius: .3rem; background: #eee; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0; }
td, th { border-bottom: 1px solid #ddd; padding: .25rem .4rem; text-align: left; vertical-align: top; }
.pass { color: #176f2c; } .fail { color: #a4161a; }
.note { color: #444; } code { background: #f4f4f4; padding: 0 .2rem; }
.diagnosis { border-left: .25rem solid #a4161a; padding-left: .6rem; }
.mistake { color: #a4161a; }
"""


def _verdict(question: QuestionResult) -> str:
    """What happened to the answer, in words; a flag comes first, since it decides the score."""
    if not question.flags:
        return escape(question.status)
    if question.flags == [f"uses {TYPED_IN}"]:
        text = (f"it is {TYPED_IN}, where this exercise asks you to compute it with your "
                "own code")
    elif question.flags == [f"uses {UNREAD}"]:
        text = f"it is {UNREAD} ({UNREAD_WHY})"
    elif question.flags == [f"uses {question.name}"]:
        text = (f"it calls the library's own {question.name} instead of computing the answer, "
                "which this exercise asks you to write yourself")
    else:  # a run-time lookup alone is no helper the exercise asks you to write
        why = "the grader cannot check" if question.flags == [f"uses {DYNAMIC}"] else \
            "this exercise asks you to write yourself"
        text = (f"it {'; '.join(question.flags)} (itself or through a function it calls), "
                f"which {why}")
        if any(DYNAMIC in flag for flag in question.flags):
            text += f" ({DYNAMIC_WHY})"
    if question.withheld and question.score == 0:
        text += f", so it scores 0 of {points_text(question.points)} points"
    elif question.withheld:
        text += (f", so {points_text(question.withheld)} of the points its tests earned "
                 f"{'is' if question.withheld == 1 else 'are'} withheld")
    text += f". Its tests on their own: {question.status}."
    return f'<span class="fail">flagged</span>: {escape(text)}'


def _changes(result: SubmissionResult) -> list[str]:
    """What lateness and the instructor changed in the marks, with the reasons."""
    parts = []
    if result.late_days:
        when = f" ({escape(result.submitted_at[:16].replace('T', ' '))} UTC)" \
            if result.submitted_at else ""
        cost = (f": {points_text(result.penalty)} points off the "
                f"{points_text(result.total + result.penalty)} earned") if result.penalty else ""
        parts.append(f"<p>Handed in {result.late_days} day{'s' if result.late_days != 1 else ''}"
                     f" late{when}{cost}.</p>")
    if result.overrides:
        parts.append("<p>Changed by your instructor:</p><ul>" + "".join(
            f"<li>{escape(change['question'])}: {points_text(change['points'])} points "
            f"instead of the {points_text(change['graded'])} the tests gave &mdash; "
            f"{escape(change['reason'])}</li>" for change in result.overrides) + "</ul>")
    return parts


#: What a student's page says of a grader error (the grader's own text stays with the instructor).
GRADER_FAILED = ("The grader itself failed on this submission: this is not a mark of your "
                 "notebook. Your instructor can see what went wrong and grade it again.")


def render_html(result: SubmissionResult, exercise_title: str) -> str:
    """A self-contained HTML page for one submission."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Feedback: {escape(exercise_title)} ({escape(result.submission)})</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{escape(exercise_title)}</h1>",
        f"<p>Submission <code>{escape(result.submission)}</code></p>",
        f'<p class="score">{points_text(result.total)} / {points_text(result.maximum)} points</p>',
        f'<p>Status: <span class="status">{escape(result.status)}</span></p>',
    ]
    parts += _changes(result)
    # a grader error's text is the grader's own (an exception's message may quote what it
    # held, hidden inputs included): the student reads a fixed sentence, the instructor
    # the text in grades.csv and results.json
    reasons = [GRADER_FAILED] if result.status == Status.GRADER_ERROR else result.reasons
    if reasons:
        parts.append("<ul>" + "".join(f"<li>{escape(r)}</li>" for r in reasons) + "</ul>")
    if result.notes:
        parts.append('<ul class="note">' + "".join(f"<li>{escape(n)}</li>" for n in result.notes)
                     + "</ul>")
    for question in result.questions:
        parts.append(f"<h2>{escape(question.id)}: {escape(question.title)} "
                     f"({points_text(question.score)} / {points_text(question.points)})</h2>")
        parts.append(f"<p>Graded answer: <code>{escape(question.name)}</code> "
                     f"&mdash; {_verdict(question)}</p>")
        if question.cases:
            rows = []
            for case in question.cases:
                label = "hidden test" if case.hidden else "public test"
                mark = '<span class="pass">passed</span>' if case.passed else \
                    '<span class="fail">failed</span>'
                why = escape(case.message)
                if case.mistakes:
                    why += (f' <span class="mistake">(known mistake: '
                            f'{escape(" or ".join(case.mistakes))})</span>')
                elif case.hint and not case.hidden:
                    why += f'<br><span class="note">hint: {escape(case.hint)}</span>'
                rows.append(f"<tr><td>{label}: {escape(case.name)}</td><td>{mark}</td>"
                            f"<td>{why}</td></tr>")
            parts.append("<table><tr><th>test</th><th>result</th><th>why</th></tr>"
                         + "".join(rows) + "</table>")
        for note in question.notes:
            if question.flags and note.startswith((f"`{question.name}` uses ",
                                                   f"`{question.name}` calls the library")):
                continue  # the verdict above already says it
            if question.diagnosis and note == question.diagnosis:
                parts.append(f'<p class="diagnosis">{escape(note)}</p>')
                continue
            parts.append(f'<p class="note">{escape(note)}</p>')
    parts.append('<p class="note">Hidden tests call your functions on inputs you have not '
                 "seen. Their inputs and expected values stay with the grader; the messages "
                 "above say what went wrong without giving the answer away.</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
