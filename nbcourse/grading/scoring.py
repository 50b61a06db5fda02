"""From what a run reported to a status, points and reasons, in the grader's process.

The expected values never leave this process.  Every submission gets exactly one
status; ``statuses.PRECEDENCE`` decides which one when several things went wrong, and every
problem also appears as a reason, so nothing is silently zero.
"""
from __future__ import annotations

import re
import sys
from dataclasses import asdict, dataclass, field
from fractions import Fraction

from . import follow_through
from .diagnosis import (FORM_NOTES, IN_PART, IN_SOME, NO_VALUE, STILL_THE_STUB,
                        case_hint_applies, case_hints_apply, diagnose, diagnose_in_part,
                        explain, in_part_preface, input_changed, raised_hint)
from .execution.limits import MB
from .execution.probe_source import INPUT_CHANGED, STUB_RAISED
from .execution.report import KernelOutcome, NotebookVerdict, RunReport, clean_message
from .forbidden import DYNAMIC, DYNAMIC_WHY, UNREAD, UNREAD_WHY
from .typed_in import TYPED_IN
from .specs import FAILED, Exercise
from .statuses import PRECEDENCE, AnswerStatus, Status
from .swaps import judge_swaps, swaps_read
from .values import (DECIMAL_REFUSED, Unsupported, decode_answer, describe_value, kind_of,
                     rounded_places)

# what IPython calls a cell's code: /tmp/ipykernel_12/836573701.py, <ipython-input-3-...>
_CELL_LINE = re.compile(r"\((?:[^()\s]*/)?\d{5,}\.py, line (\d+)\)")
_CELL_FILE = re.compile(r"(?:[^\s'\"()]*/)?(?:ipykernel_\d+/)?\d{5,}\.py|<ipython-input-[^>]*>")


def student_message(text, limit: int = 300) -> str:
    """Error text a student can read: ``execution.report.clean_message`` (no terminal
    colours or memory addresses), and also no kernel file names (``836573701.py``) or
    dangling ``Error:`` with nothing after it."""
    text = _CELL_LINE.sub(r"(line \1 of the cell)", clean_message(text, limit=sys.maxsize))
    text = _CELL_FILE.sub("the cell", text).strip()
    if text.endswith(":"):
        text = text[:-1].rstrip()
    return clean_message(text, limit)


@dataclass
class CaseResult:
    name: str
    hidden: bool
    passed: bool
    message: str = ""
    mistakes: list[str] = field(default_factory=list)  # known mistakes this case matches
    hint: str = ""  # a failed public case's own hint, as check() shows it (never a hidden one's)


@dataclass
class QuestionResult:
    id: str
    name: str
    title: str
    points: float
    score: float
    status: AnswerStatus
    cases: list[CaseResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    withheld: float = 0.0  # points the tests earned but a flag took away
    mistakes: list[str] = field(default_factory=list)  # known mistakes the answer makes
    diagnosis: str = ""  # the words that name them
    follow_through: list[str] = field(default_factory=list)  # failed callees it was right without


@dataclass
class SubmissionResult:
    submission: str
    path: str
    status: Status
    reasons: list[str]
    total: float
    maximum: float
    questions: list[QuestionResult]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    overrides: list[dict] = field(default_factory=list)  # see ``overrides``
    submitted_at: str = ""   # when it was handed in, if known (see ``late``)
    late_days: int = 0
    penalty: float = 0.0     # taken off for lateness: total = the questions' points - penalty
    time_unknown: bool = False  # a deadline, but no hand-in time (counted as on time)

    @property
    def flags(self) -> list[str]:
        return [f"{q.id}: {flag}" for q in self.questions for flag in q.flags]

    def to_json(self) -> dict:
        data = asdict(self)
        data.pop("seconds")  # timings differ between runs; results must not
        if not data["overrides"]:
            data.pop("overrides")  # a row without overrides reads as it always has
        if not data["time_unknown"]:
            data.pop("time_unknown")
        data["flags"] = self.flags
        data["raw"] = float(round(sum(Fraction(str(q.score)) for q in self.questions), 2))
        return data

    @classmethod
    def from_json(cls, data: dict) -> "SubmissionResult":
        """The result ``to_json`` wrote (results.json), for a gradebook that is merged
        into rather than rewritten; ``to_json`` of it gives ``data`` back."""
        questions = []
        for q in data["questions"]:
            q = dict(q)
            q["cases"] = [CaseResult(**c) for c in q.get("cases", [])]
            q["status"] = _member(AnswerStatus, q["status"])
            questions.append(QuestionResult(**q))
        return cls(data["submission"], data["path"], _member(Status, data["status"]),
                   list(data["reasons"]), data["total"], data["maximum"], questions,
                   list(data.get("notes", [])), 0.0,
                   [dict(o) for o in data.get("overrides", [])], data.get("submitted_at", ""),
                   data.get("late_days", 0), data.get("penalty", 0.0),
                   bool(data.get("time_unknown", False)))


def _member(kind, value):
    try:
        return kind(value)
    except ValueError:
        return value


def _round(value: Fraction) -> float:
    return float(round(value, 2))


def points_text(points) -> str:
    """Points as every page and gradebook writes them: ``7.5``, ``10``, ``0.33``."""
    return f"{float(points):.2f}".rstrip("0").rstrip(".")


def mean_text(points) -> str:
    """The mean of some points with two decimals, as the class report writes it, worked
    out on the points' decimal values (as the gradebook writes them): a float's last
    digits never decide a half (3 x 10 and 3 x 3.15 average to exactly 6.575)."""
    values = [Fraction(str(p)) for p in points]
    return f"{_round(sum(values) / len(values)) if values else 0.0:.2f}"


def flag_note(name: str, names: str, lost) -> str:
    """The note on a flagged answer, kept in results.json (the feedback page turns it into
    the answer's verdict instead)."""
    if names == TYPED_IN:
        note = (f"`{name}` uses {TYPED_IN} instead of computing it, which this exercise "
                "asks you to do with your own code")
    elif names == UNREAD:
        note = f"`{name}` is {UNREAD} ({UNREAD_WHY})"
    elif names == name:
        note = (f"`{name}` calls the library's own {names} instead of computing the answer, "
                "which this exercise asks you to write yourself")
    else:  # a run-time lookup alone is no helper the exercise asks you to write
        why = "the grader cannot check" if names == DYNAMIC else \
            "this exercise asks you to write yourself"
        note = f"`{name}` uses {names} (itself or through a function it calls), which {why}"
    if DYNAMIC in names:
        note += f" ({DYNAMIC_WHY})"
    if lost:
        note += f"; {_round(lost):g} point{'s' if lost != 1 else ''} withheld"
    return note


def score_question(question, probe: dict, expected: list, penalty: float,
                   forbidden: list[str]) -> QuestionResult:
    """Points and messages for one question; a reply of the wrong shape fails it alone."""
    try:
        return _score_question(question, probe, expected, penalty, forbidden)
    except Exception:  # noqa: BLE001 - a field of the wrong type from the kernel
        result = QuestionResult(question.id, question.name, question.title,
                                float(question.points), 0.0, AnswerStatus.UNREADABLE)
        result.notes.append("the grader could not read the reply for this question")
        return result


def _text(value, fallback: str, limit: int = 200) -> str:
    """A string field of a report, cleaned and cut; ``fallback`` if it is not a string."""
    return student_message(value, limit) if isinstance(value, str) else fallback


def _score_question(question, probe: dict, expected: list, penalty: float,
                    forbidden: list[str]) -> QuestionResult:
    result = QuestionResult(question.id, question.name, question.title,
                            float(Fraction(str(question.points))), 0.0, AnswerStatus.FAILED)
    if not isinstance(probe, dict):
        probe = {"unreadable_report": "the probe's reply is malformed"}
    if _not_judged(question, probe, result):
        return result
    if question.kind == "value":
        outcome = {"value": probe["value"]} if "value" in probe \
            else {"unreadable": _text(probe.get("unreadable"), "no value")}
        outcomes = [outcome] * len(question.cases)  # every case looks at the same value
    else:
        outcomes = probe.get("cases")
        if not isinstance(outcomes, list) or len(outcomes) != len(question.cases):
            result.status = AnswerStatus.UNREADABLE
            result.notes.append("the probe's reply has the wrong number of results")
            return result
    earned = _judge_cases(question, outcomes, expected, result)
    if forbidden:
        names = ", ".join(forbidden)
        result.flags.append(f"uses {names}")
        lost = earned * Fraction(str(penalty))
        earned -= lost
        result.withheld = _round(lost)
        result.notes.append(flag_note(question.name, names, lost))
    result.score = _round(earned)
    if result.diagnosis:
        result.notes.append(result.diagnosis)
    elif question.hint and result.status in (AnswerStatus.FAILED, AnswerStatus.PARTLY_PASSED) \
            and not all(case.passed or case.message.startswith(FORM_NOTES)
                        or HIDDEN_ROUNDED in case.message for case in result.cases):
        # (a message that says "rounded" or "floats" already says what is wrong)
        result.notes.append(f"hint: {question.hint}")
    return result


def _not_judged(question, probe: dict, result: QuestionResult) -> bool:
    """When the probe brought back no answer to judge (not run, timed out, unreadable,
    missing, not callable): ``result`` says why, and True."""
    if "not_run" in probe:
        result.status = AnswerStatus.NOT_RUN
        result.notes.append(f"not checked: {_text(probe['not_run'], 'the kernel stopped', 500)}")
    elif "timed_out" in probe:
        seconds = probe["timed_out"]
        limit = (f"{seconds:.0f} s" if isinstance(seconds, (int, float))
                 and not isinstance(seconds, bool) else "its time limit")
        result.status = AnswerStatus.TIMED_OUT
        result.notes.append(f"evaluating {question.name} took longer than {limit} "
                            "and was stopped")
    elif "unreadable_report" in probe:
        result.status = AnswerStatus.UNREADABLE
        result.notes.append(_text(probe["unreadable_report"], "the probe's reply is malformed"))
    elif probe.get("name") != question.name or probe.get("question") != question.id:
        result.status = AnswerStatus.UNREADABLE
        result.notes.append("the probe's reply does not belong to this question")
    elif probe.get("missing") is True:
        result.status = AnswerStatus.MISSING
        result.notes.append(follow_through.missing_note(question))
    elif "not_callable" in probe:
        result.status = AnswerStatus.NOT_CALLABLE
        result.notes.append(f"`{question.name}` should be a function, but it is a "
                            f"{_text(probe['not_callable'], 'something else', 80)}")
    else:
        return False
    return True


def _judge_cases(question, outcomes: list, expected: list, result: QuestionResult) -> Fraction:
    """Judge every case into ``result`` (its cases, status and diagnosis); the points earned."""
    points = Fraction(str(question.points))
    passed = not_implemented = 0
    verdicts, actuals = [], []
    for case, outcome, want in zip(question.cases, outcomes, expected):
        message, actual = _judge(question, case, outcome, want)
        ok = message is None
        passed += ok
        not_implemented += outcome == {"error": STUB_RAISED}  # the probe's own verdict
        verdicts.append(ok)
        actuals.append(actual)
        hint = case.hint if not ok and not case.hidden and case.hint and \
            case_hint_applies(message or "") else ""
        if not ok and not case.hidden:
            hint = raised_hint(message or "", hint)
        result.cases.append(CaseResult(case.name, case.hidden, ok, message or "", hint=hint))
    public = [(ok, bool(c.hint)) for c, ok in zip(question.cases, verdicts) if not c.hidden]
    if not case_hints_apply([p[0] for p in public], [p[1] for p in public]):  # as check()
        for case, judged in zip(question.cases, result.cases):
            judged.hint = "" if judged.hint == case.hint else judged.hint
    if question.kind == "value":  # one value: right or not, whatever checks it passes
        earned = points if passed == len(question.cases) else Fraction(0)
    else:
        earned = points * passed / len(question.cases)
    if any(isinstance(o, dict) and o.get("not_run") == "timeout" for o in outcomes):
        result.status = AnswerStatus.TIMED_OUT
    elif not_implemented == len(question.cases):
        result.status = AnswerStatus.NOT_ANSWERED
    elif passed == len(question.cases):
        result.status = AnswerStatus.PASSED
    elif passed and question.kind == "function":
        result.status = AnswerStatus.PARTLY_PASSED
    _diagnose(question, result, verdicts, actuals)
    return earned


def _diagnose(question, result: QuestionResult, verdicts, actuals) -> None:
    """Name the known mistake the answer makes, if it behaves exactly like one."""
    if not question.mistakes or all(verdicts):
        return
    mistaken = question.mistaken()
    same = lambda a, b, i: question.same_as(a, b, question.cases[i])  # noqa: E731
    names = diagnose(verdicts, actuals, mistaken, same, skip=(FAILED,))
    in_part = False
    if not names:  # two mistakes at once: keep the one check() named on the public cases
        names = diagnose_in_part(verdicts, actuals, mistaken, same,
                                 [not case.hidden for case in question.cases], skip=(FAILED,))
        in_part = bool(names)
    if not names:
        return
    result.mistakes = names
    preface = in_part_preface(verdicts, actuals, mistaken, names, same) if in_part else ""
    result.diagnosis = preface + explain(names, {m.name: m.feedback for m in question.mistakes})
    for index, (case, ok) in enumerate(zip(result.cases, verdicts)):
        if not ok and (not in_part or any(
                actuals[index] is not NO_VALUE and mistaken[name][index] is not FAILED
                and same(actuals[index], mistaken[name][index], index) for name in names)):
            case.mistakes = list(names)
            case.hint = ""  # the mistake's words say why; the case's hint is about another


#: Why a hidden case has no result (the runner's codes, in words).
_NOT_RUN = {"timeout": "not run: evaluating it took longer than the time limit",
            "stopped": "not run: the kernel had stopped",
            "malformed": "the grader could not read this result"}
HIDDEN_WRONG = "the value is not the expected one"
HIDDEN_UNREADABLE = "the result cannot be read as plain data"
HIDDEN_RAISED = "raised an exception (which one is not shown for a hidden case)"
#: The kinds a hidden case's message may name: grader-made words, whatever came back.
_FIXED_KINDS = {"True/False", "a number", "a string", "a list", "a dict", "None"}


def _judge(question, case, outcome, expected):
    """(None or why the case failed, the decoded answer or NO_VALUE).

    A hidden case's message is grader-made text chosen from a fixed list, whatever the
    kernel sent (its value, its error message, its class names may all be made of the
    hidden inputs); a public case's quotes the student's own text, cut short.
    """
    if not isinstance(outcome, dict) or len(outcome) != 1:
        return _NOT_RUN["malformed"], NO_VALUE
    (key, body), = outcome.items()
    if key == "not_run":
        return _NOT_RUN.get(body, _NOT_RUN["malformed"]) if isinstance(body, str) \
            else _NOT_RUN["malformed"], NO_VALUE
    if key == "error":
        text = str(body)
        if text == STUB_RAISED:  # the probe applied probe_source.is_stub_raise
            return STILL_THE_STUB, NO_VALUE
        if text.startswith(INPUT_CHANGED + ": ") and question.keeps_inputs:
            return input_changed(text[len(INPUT_CHANGED) + 2:], len(case.args),
                                 tuple(case.kwargs)), NO_VALUE
        if case.hidden:  # its message, even its class's name, is the kernel's choice
            return HIDDEN_RAISED, NO_VALUE
        return f"raised {student_message(text, 200)}", NO_VALUE
    if key == "unreadable":
        if case.hidden:
            return HIDDEN_UNREADABLE, NO_VALUE
        return f"{HIDDEN_UNREADABLE} ({_text(body, 'no reason given')})", NO_VALUE
    if key == "grader_error":
        if case.hidden:
            return "the grader could not rebuild its inputs in your kernel", NO_VALUE
        return f"grader error: {_text(body, 'no reason given')}", NO_VALUE
    if key != "value":
        return _NOT_RUN["malformed"], NO_VALUE
    try:
        actual = decode_answer(body)
    except Exception as error:  # noqa: BLE001 - e.g. Fraction(1, 0): fails the case only
        if case.hidden:
            return "the result cannot be read", NO_VALUE
        return f"the result cannot be read ({type(error).__name__})", NO_VALUE
    try:
        message = question.judge_case(actual, expected, case)
    except Exception as error:  # noqa: BLE001 - a strange answer must not stop the batch
        if case.hidden:
            return "the result could not be compared", actual
        return (f"the result could not be compared ({type(error).__name__}: "
                f"{student_message(error, 120)}); got {describe_value(actual)}"), actual
    # a form note is grader-made text; a value's, or a right number given as a Decimal
    # (constant words), says on a hidden case too what is wrong, not "not the expected one"
    if message and case.hidden and not (message.startswith(FORM_NOTES) and (
            question.kind == "value" or message.startswith(DECIMAL_REFUSED))):
        verdict = _hidden_verdict(actual, expected)
        places = rounded_places(actual, question.tolerance, expected=expected)
        if places:  # the expected value rounded to the student's places, nothing else
            verdict += (f"; your value has only {places} decimal place"
                        f"{'s' if places > 1 else ''}: {HIDDEN_ROUNDED}")
        return verdict, actual
    return (student_message(message, 300) if message else message), actual


#: Said of a wrong hidden value that is the expected one rounded to its own few decimals
#: (the words are fixed; only the student's number of places is filled in).
HIDDEN_ROUNDED = "if you rounded it, store it unrounded (round only what you print)"


def _fixed_kind(value) -> str:
    if isinstance(value, Unsupported):
        return "an object that is not plain data"
    kind = kind_of(value)
    return kind if kind in _FIXED_KINDS else "something else"


def _hidden_verdict(actual, expected) -> str:
    """What is wrong with a hidden case's answer, in words that carry none of its text.

    Its value, the keys it was compared at, the class name it chose: all may be made of
    the hidden inputs, so the page keeps the kind of thing that is wrong and no more.
    """
    got, want = _fixed_kind(actual), _fixed_kind(expected)
    if got != want:
        return f"expected {want}, got {got}"
    return HIDDEN_WRONG


def _cell(problem: dict) -> str:
    """How the student finds the cell: by its first line (Jupyter shows no cell numbers)."""
    code = problem.get("code")
    return f"the cell starting `{code}`" if code else f"cell {problem.get('cell', '?')}"


def _names_missing_answer(error: str, missing: set[str]) -> bool:
    match = re.match(r"NameError: name '([^']+)' is not defined", error)
    return bool(match) and match.group(1) in missing


def score(exercise: Exercise, expected: dict[str, list], report: RunReport, submission: str,
          path: str) -> SubmissionResult:
    """Status, points and reasons for one submission from its run report."""
    maximum = exercise.maximum
    empty = [QuestionResult(q.id, q.name, q.title, float(q.points), 0.0, AnswerStatus.NOT_RUN)
             for q in exercise.questions]
    if report.grader_error:
        return SubmissionResult(submission, path, Status.GRADER_ERROR,
                                [student_message(report.grader_error, 500)], 0.0, maximum, empty)
    if report.notebook is NotebookVerdict.NOT_A_NOTEBOOK:
        return SubmissionResult(submission, path, Status.NOT_A_NOTEBOOK,
                                [report.notebook_reason], 0.0, maximum, empty)
    if report.notebook is NotebookVerdict.EMPTY:
        return SubmissionResult(submission, path, Status.EMPTY_NOTEBOOK,
                                [report.notebook_reason], 0.0, maximum, empty)

    statuses, reasons, notes = set(), [], []
    stubs_left = _notebook_problems(exercise, report, statuses, reasons, notes)
    questions = _score_answers(exercise, expected, report, stubs_left, statuses)
    reasons += _answer_reasons(questions)
    status = next((s for s in PRECEDENCE if s in statuses), Status.GRADED)
    total = _round(sum(Fraction(str(q.score)) for q in questions))
    return SubmissionResult(submission, path, status, reasons, total, maximum, questions, notes,
                            seconds=float(report.seconds))


def _notebook_problems(exercise: Exercise, report: RunReport, statuses: set, reasons: list,
                       notes: list) -> bool:
    """What went wrong with the kernel and the cells, added to ``statuses``, ``reasons``
    and ``notes``; whether a cell still raises the stub's NotImplementedError."""
    kernel = report.kernel
    if kernel is KernelOutcome.FAILED_TO_START:
        statuses.add(Status.GRADER_ERROR)
        reasons.append(f"the kernel did not start: {report.kernel_reason}")
    elif kernel is KernelOutcome.DIED:
        statuses.add(Status.KERNEL_DIED)
        reasons.append(report.kernel_reason or "the kernel died")
    elif kernel in (KernelOutcome.STUCK, KernelOutcome.TOO_SLOW):
        statuses.add(Status.TIMED_OUT)
        reasons.append(report.kernel_reason or "timed out")
    if report.memory_error:
        statuses.add(Status.MEMORY_LIMIT)
        reasons.append("the notebook ran out of memory (it is limited while grading)")
    probes = report.probes if isinstance(report.probes, dict) else {}
    missing_names = {q.name for q in exercise.questions if isinstance(probes.get(q.id), dict)
                     and probes[q.id].get("missing") is True}
    problems = [dict(p.__dict__, error=student_message(p.__dict__.get("error", "")))
                for p in report.problems]
    for problem in problems:
        if problem.get("timed_out"):
            statuses.add(Status.TIMED_OUT)
            reasons.append(f"{_cell(problem)} was {problem['error']} and was interrupted")
        elif problem.get("not_implemented"):
            notes.append(f"{_cell(problem)} is {STILL_THE_STUB}")
        elif _names_missing_answer(problem.get("error", ""), missing_names):
            # e.g. check("q3", predict) after the predict cell was deleted: that is the
            # missing answer again, reported once as "answer missing"
            notes.append(f"{_cell(problem)} raised {problem['error']}")
        elif "MemoryError" not in problem.get("error", ""):
            statuses.add(Status.CELL_ERROR)
            reasons.append(f"{_cell(problem)} raised {problem['error']}")
    if report.output_bytes > MB:
        notes.append(f"the notebook printed {report.output_bytes / MB:.0f} MB of output; "
                     "the grader ignored it")
    return any(problem.get("not_implemented") for problem in problems)


def _score_answers(exercise: Exercise, expected: dict[str, list], report: RunReport,
                   stubs_left: bool, statuses: set) -> list[QuestionResult]:
    """Every question's result; the statuses its answers give the submission added."""
    questions = _ordinary_answers(exercise, expected, report, stubs_left)
    # a value missing only because its cell called a wrong graded function is not missing
    follow_through.credit(exercise, expected, report, questions, exercise.forbidden_penalty,
                          score_question, points_text)
    judge_swaps(exercise, report, questions, score_question)
    _not_made_here(exercise, questions)
    _flags_from_callees(exercise, questions)
    for result in questions:
        if result.status == AnswerStatus.MISSING:
            statuses.add(Status.ANSWER_MISSING)
        elif result.status == AnswerStatus.UNREADABLE:
            statuses.add(Status.ANSWERS_UNREADABLE)
        elif result.status == AnswerStatus.TIMED_OUT:
            statuses.add(Status.TIMED_OUT)
    return questions


def _ordinary_answers(exercise: Exercise, expected: dict[str, list], report: RunReport,
                      stubs_left: bool) -> list[QuestionResult]:
    """Every question's result from its ordinary reading (no second reading yet)."""
    questions = []
    probes = report.probes
    for question in exercise.questions:
        probe = probes.get(question.id, {"not_run": "the answer was not evaluated"}) \
            if isinstance(probes, dict) else {"not_run": "the answer was not evaluated"}
        result = score_question(question, probe, expected[question.id],
                                exercise.forbidden_penalty, report.forbidden.get(question.id, []))
        if result.status == AnswerStatus.MISSING and question.kind == "value" and stubs_left:
            # a blank notebook: the cell that defines the value still raises
            # NotImplementedError, so the name was never bound
            result.status = AnswerStatus.NOT_ANSWERED
            result.notes = [follow_through.stub_note(question)]
        questions.append(result)
    return questions


def second_readings(exercise: Exercise, expected: dict[str, list], report: RunReport) -> list[str]:
    """The follow-through and swap probes whose replies can change this run's marks, from
    its ordinary readings (``report`` before those probes): the keys of
    ``report.follow_through`` that ``follow_through.credit`` and ``swaps.judge_swaps``
    read.  The batch sends them to the grading worker, which makes no other (exercise 05's
    replays on the SMS messages are most of its grader's work)."""
    stubs_left = _notebook_problems(exercise, report, set(), [], [])
    ordinary = _ordinary_answers(exercise, expected, report, stubs_left)
    credited = follow_through.read_again(exercise, ordinary)
    return sorted(credited | swaps_read(exercise, ordinary, credited))


def _not_made_here(exercise: Exercise, questions: list[QuestionResult]) -> None:
    """Take back a diagnosis whose mistake is made in graded functions that are right
    (``Mistake.made_in``): the value only equals that mistake's by chance (05's
    ``best_alpha`` of a cell that passes other alphas is not "the largest alpha kept on a
    tie" when ``choose_alpha`` keeps the first)."""
    by_id = {r.id: r for r in questions}
    by_name = {q.name: by_id[q.id] for q in exercise.questions}
    for question in exercise.questions:
        result = by_id[question.id]
        where = {m.name: m.made_in for m in question.mistakes if m.made_in}
        ruled_out = [name for name in result.mistakes if name in where and all(
            by_name[f].status == AnswerStatus.PASSED and not by_name[f].flags
            for f in where[name] if f in by_name)]
        if not ruled_out:
            continue
        kept = [name for name in result.mistakes if name not in ruled_out]
        said = result.diagnosis
        result.mistakes = kept
        kept_preface = next((p for p in (IN_PART, IN_SOME) if said.startswith(p)), "")
        result.diagnosis = (kept_preface + explain(
            kept, {m.name: m.feedback for m in question.mistakes})) if kept else ""
        result.notes = [n for n in result.notes if n != said]
        if result.diagnosis or question.hint:
            result.notes.append(result.diagnosis or f"hint: {question.hint}")
        for case in result.cases:
            case.mistakes = [name for name in case.mistakes if name not in ruled_out]


def _flags_from_callees(exercise: Exercise, questions: list[QuestionResult]) -> None:
    """Say, on an answer whose points a flag withheld, that a graded function it calls
    carries the same flag: fixing that function may give these points back."""
    by_id = {r.id: r for r in questions}
    for question in exercise.questions:
        result = by_id[question.id]
        if not result.withheld or not result.flags:
            continue
        sources = [c for c in exercise.callees(question)
                   if set(result.flags) <= set(by_id[c.id].flags)]
        if sources:
            named = " and ".join(f"`{c.name}` ({c.id})" for c in sources)
            result.notes.append(
                f"`{question.name}` calls your {named}, flagged for the same name. If "
                f"`{question.name}` does not use it itself, the flag comes from there: once "
                f"{named} no longer {'uses' if len(sources) == 1 else 'use'} it, the "
                f"{points_text(result.withheld)} "
                f"{'point withheld here comes' if result.withheld == 1 else 'points withheld here come'}"
                " back.")


def _answer_reasons(questions: list[QuestionResult]) -> list[str]:
    """The reasons a row gives for its answers: missing, unreadable, timed out."""
    reasons = []
    missing = [q.name for q in questions if q.status == AnswerStatus.MISSING]
    if missing:
        reasons.append("not defined after running the notebook: " + ", ".join(missing))
    for question in questions:
        if question.status == AnswerStatus.UNREADABLE:
            reasons.append(f"{question.name}: " + "; ".join(question.notes))
    for question in questions:
        if question.status == AnswerStatus.TIMED_OUT:
            reasons.append(f"evaluating {question.name} on the grader's inputs timed out")
    return reasons
