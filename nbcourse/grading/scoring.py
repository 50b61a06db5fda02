"""From what a run reported to a status, points and reasons, in the grader's process.

The expected values never leave this process.  Every submission gets exactly one
status; the order below decides which one when several things went wrong, and every
problem also appears as a reason, so nothing is silently zero.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from fractions import Fraction

from .diagnosis import IN_PART, NO_VALUE, diagnose, diagnose_in_part, explain
from .execution.report import KernelOutcome, NotebookVerdict, RunReport
from .specs import FAILED, Exercise
from .values import Unsupported, decode_answer, describe_value, kind_of

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
# what IPython calls a cell's code: /tmp/ipykernel_12/836573701.py, <ipython-input-3-...>
_CELL_LINE = re.compile(r"\((?:[^()\s]*/)?\d{5,}\.py, line (\d+)\)")
_CELL_FILE = re.compile(r"(?:[^\s'\"()]*/)?(?:ipykernel_\d+/)?\d{5,}\.py|<ipython-input-[^>]*>")


def clean_message(text, limit: int = 300) -> str:
    """Error text a student can read: no terminal colours, memory addresses, kernel file
    names (``836573701.py``) or dangling ``Error:`` with nothing after it."""
    text = _ANSI.sub("", str(text))
    text = _ADDRESS.sub("0x…", text)
    text = _CELL_LINE.sub(r"(line \1 of the cell)", text)
    text = _CELL_FILE.sub("the cell", text).strip()
    if text.endswith(":"):
        text = text[:-1].rstrip()
    return text if len(text) <= limit else text[: limit - 1] + "…"

STATUSES = (
    "not a notebook",   # not JSON, JSON but not a notebook, unreadable, too large
    "empty notebook",   # a notebook with no code in it
    "grader error",     # the grading machinery failed; the instructor should look
    "memory limit",     # a cell (or an answer) ran out of the memory it is allowed
    "kernel died",      # the kernel process ended (os._exit, a crash)
    "timed out",        # a cell or an answer ran longer than the timeout
    "cell error",       # a cell raised an exception (answers still graded)
    "answer missing",   # a graded name is not defined after running the notebook
    "answers unreadable",  # the grader could not read the probe's reply
    "graded",           # everything ran; the points are the answers' points
)


@dataclass
class CaseResult:
    name: str
    hidden: bool
    passed: bool
    message: str = ""
    mistakes: list[str] = field(default_factory=list)  # known mistakes this case matches


@dataclass
class QuestionResult:
    id: str
    name: str
    title: str
    points: float
    score: float
    status: str  # passed | partly passed | failed | missing | not run | not callable ...
    cases: list[CaseResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    withheld: float = 0.0  # points the tests earned but a flag took away
    mistakes: list[str] = field(default_factory=list)  # known mistakes the answer makes
    diagnosis: str = ""  # the words that name them


@dataclass
class SubmissionResult:
    submission: str
    path: str
    status: str
    reasons: list[str]
    total: float
    maximum: float
    questions: list[QuestionResult]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def flags(self) -> list[str]:
        return [f"{q.id}: {flag}" for q in self.questions for flag in q.flags]

    def to_json(self) -> dict:
        data = asdict(self)
        data.pop("seconds")  # timings differ between runs; results must not
        data["flags"] = self.flags
        return data


def _round(value: Fraction) -> float:
    return float(round(value, 2))


def flag_note(name: str, names: str, lost) -> str:
    """The note on a flagged answer, kept in results.json (the feedback page turns it into
    the answer's verdict instead)."""
    if names == name:
        note = (f"`{name}` calls the library's own {names} instead of computing the answer, "
                "which this exercise asks you to write yourself")
    else:
        note = (f"`{name}` uses {names} (itself or through a function it calls), "
                "which this exercise asks you to write yourself")
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
                                float(question.points), 0.0, "unreadable")
        result.notes.append("the grader could not read the reply for this question")
        return result


def _text(value, fallback: str, limit: int = 200) -> str:
    """A string field of a report, cleaned and cut; ``fallback`` if it is not a string."""
    return clean_message(value, limit) if isinstance(value, str) else fallback


def _score_question(question, probe: dict, expected: list, penalty: float,
                    forbidden: list[str]) -> QuestionResult:
    points = Fraction(str(question.points))
    result = QuestionResult(question.id, question.name, question.title, float(points), 0.0,
                            "failed")
    if not isinstance(probe, dict):
        probe = {"unreadable_report": "the probe's reply is malformed"}
    if "not_run" in probe:
        result.status = "not run"
        result.notes.append(f"not checked: {_text(probe['not_run'], 'the kernel stopped', 500)}")
        return result
    if "timed_out" in probe:
        seconds = probe["timed_out"]
        limit = (f"{seconds:.0f} s" if isinstance(seconds, (int, float))
                 and not isinstance(seconds, bool) else "its time limit")
        result.status = "timed out"
        result.notes.append(f"evaluating {question.name} took longer than {limit} "
                            "and was stopped")
        return result
    if "unreadable_report" in probe:
        result.status = "unreadable"
        result.notes.append(_text(probe["unreadable_report"], "the probe's reply is malformed"))
        return result
    if probe.get("name") != question.name or probe.get("question") != question.id:
        result.status = "unreadable"
        result.notes.append("the probe's reply does not belong to this question")
        return result
    if probe.get("missing") is True:
        result.status = "missing"
        result.notes.append(f"`{question.name}` is not defined after running your notebook "
                            "(was the cell deleted, renamed, or did it fail?)")
        return result
    if "not_callable" in probe:
        result.status = "not callable"
        result.notes.append(f"`{question.name}` should be a function, but it is a "
                            f"{_text(probe['not_callable'], 'something else', 80)}")
        return result

    if question.kind == "value":
        outcome = {"value": probe["value"]} if "value" in probe \
            else {"unreadable": _text(probe.get("unreadable"), "no value")}
        outcomes = [outcome] * len(question.cases)  # every case looks at the same value
    else:
        outcomes = probe.get("cases")
        if not isinstance(outcomes, list) or len(outcomes) != len(question.cases):
            result.status = "unreadable"
            result.notes.append("the probe's reply has the wrong number of results")
            return result

    passed = 0
    not_implemented = 0
    verdicts, actuals = [], []
    for case, outcome, want in zip(question.cases, outcomes, expected):
        message, actual = _judge(question, case, outcome, want)
        ok = message is None
        passed += ok
        if message and message.startswith(NOT_ANSWERED):
            not_implemented += 1
        verdicts.append(ok)
        actuals.append(actual)
        result.cases.append(CaseResult(case.name, case.hidden, ok, message or ""))

    if question.kind == "value":  # one value: right or not, whatever checks it passes
        earned = points if passed == len(question.cases) else Fraction(0)
    else:
        earned = points * passed / len(question.cases)
    if any(isinstance(o, dict) and o.get("not_run") == "timeout" for o in outcomes):
        result.status = "timed out"
    elif not_implemented == len(question.cases):
        result.status = "not answered"
    elif passed == len(question.cases):
        result.status = "passed"
    elif passed and question.kind == "function":
        result.status = "partly passed"
    _diagnose(question, result, verdicts, actuals)
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
    elif question.hint and result.status in ("failed", "partly passed") and not all(
            case.passed or case.message.startswith(FORM_NOTES) for case in result.cases):
        # (a message that says "rounded" or "floats" already says what is wrong)
        result.notes.append(f"hint: {question.hint}")
    return result


NOT_ANSWERED = "not answered yet"
FORM_NOTES = ("the numbers are right but", "the value looks rounded")


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
    result.diagnosis = (IN_PART if in_part else "") + explain(
        names, {m.name: m.feedback for m in question.mistakes})
    for index, (case, ok) in enumerate(zip(result.cases, verdicts)):
        if not ok and (not in_part or any(
                actuals[index] is not NO_VALUE and mistaken[name][index] is not FAILED
                and same(actuals[index], mistaken[name][index], index) for name in names)):
            case.mistakes = list(names)


#: Why a hidden case has no result (the runner's codes, in words).
_NOT_RUN = {"timeout": "not run: evaluating it took longer than the time limit",
            "stopped": "not run: the kernel had stopped",
            "malformed": "the grader could not read this result"}
HIDDEN_WRONG = "the value is not the expected one"
HIDDEN_UNREADABLE = "the result cannot be read as plain data"
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
        kind = text.split(":", 1)[0].strip()
        if kind == "NotImplementedError" and not text.partition(":")[2].strip():
            # the stub's bare raise; a library's NotImplementedError with a message (scipy
            # refusing np.dot on a sparse matrix) is an error like any other
            return f"{NOT_ANSWERED} (it still raises NotImplementedError)", NO_VALUE
        if case.hidden:  # its message may quote the hidden input: only a known type's name
            return (f"raised {kind if _builtin_exception(kind) else 'an exception of its own class'}",
                    NO_VALUE)
        return f"raised {clean_message(text, 200)}", NO_VALUE
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
                f"{clean_message(error, 120)}); got {describe_value(actual)}"), actual
    if message and case.hidden:
        return _hidden_verdict(actual, expected), actual
    return (clean_message(message, 300) if message else message), actual


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


def _builtin_exception(name: str) -> bool:
    import builtins
    kind = getattr(builtins, name, None)
    return isinstance(kind, type) and issubclass(kind, BaseException)


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
    reasons: list[str] = []
    notes: list[str] = []
    empty = [QuestionResult(q.id, q.name, q.title, float(q.points), 0.0, "not run")
             for q in exercise.questions]

    if report.grader_error:
        return SubmissionResult(submission, path, "grader error",
                                [clean_message(report.grader_error, 500)], 0.0, maximum, empty)
    if report.notebook is NotebookVerdict.NOT_A_NOTEBOOK:
        return SubmissionResult(submission, path, "not a notebook",
                                [report.notebook_reason], 0.0, maximum, empty)
    if report.notebook is NotebookVerdict.EMPTY:
        return SubmissionResult(submission, path, "empty notebook",
                                [report.notebook_reason], 0.0, maximum, empty)

    problems = [p.__dict__ for p in report.problems]
    missing_names = {q.name for q in exercise.questions
                     if isinstance(report.probes, dict) and isinstance(
                         report.probes.get(q.id), dict) and report.probes[q.id].get("missing") is True}
    statuses = set()
    kernel = report.kernel
    if kernel is KernelOutcome.FAILED_TO_START:
        statuses.add("grader error")
        reasons.append(f"the kernel did not start: {report.kernel_reason}")
    elif kernel is KernelOutcome.DIED:
        statuses.add("kernel died")
        reasons.append(report.kernel_reason or "the kernel died")
    elif kernel in (KernelOutcome.STUCK, KernelOutcome.TOO_SLOW):
        statuses.add("timed out")
        reasons.append(report.kernel_reason or "timed out")
    if report.memory_error:
        statuses.add("memory limit")
        reasons.append("the notebook ran out of memory (it is limited while grading)")
    problems = [dict(problem, error=clean_message(problem.get("error", "")))
                for problem in problems]
    stubs_left = any(problem.get("not_implemented") for problem in problems)
    for problem in problems:
        if problem.get("timed_out"):
            statuses.add("timed out")
            reasons.append(f"{_cell(problem)} was {problem['error']} and was interrupted")
        elif problem.get("not_implemented"):
            notes.append(f"{_cell(problem)} is not answered yet (it still raises "
                         "NotImplementedError)")
        elif _names_missing_answer(problem.get("error", ""), missing_names):
            # e.g. check("q3", predict) after the predict cell was deleted: that is the
            # missing answer again, reported once as "answer missing"
            notes.append(f"{_cell(problem)} raised {problem['error']}")
        elif "MemoryError" not in problem.get("error", ""):
            statuses.add("cell error")
            reasons.append(f"{_cell(problem)} raised {problem['error']}")
    output_bytes = report.output_bytes
    if output_bytes > 1_000_000:
        notes.append(f"the notebook printed {output_bytes / 1e6:.0f} MB of output; "
                     "the grader ignored it")

    questions = []
    probes = report.probes
    forbidden = report.forbidden
    for question in exercise.questions:
        probe = probes.get(question.id, {"not_run": "the answer was not evaluated"}) \
            if isinstance(probes, dict) else {"not_run": "the answer was not evaluated"}
        result = score_question(question, probe, expected[question.id],
                                 exercise.forbidden_penalty, forbidden.get(question.id, []))
        if result.status == "missing" and question.kind == "value" and stubs_left:
            # a blank notebook: the cell that defines the value still raises
            # NotImplementedError, so the name was never bound
            result.status = "not answered"
            result.notes = [f"`{question.name}` is not defined: not answered yet (a cell "
                            "still raises NotImplementedError)"]
        questions.append(result)
        if result.status == "missing":
            statuses.add("answer missing")
        elif result.status == "unreadable":
            statuses.add("answers unreadable")
        elif result.status == "timed out":
            statuses.add("timed out")
    missing = [q.name for q in questions if q.status == "missing"]
    if missing:
        reasons.append("not defined after running the notebook: " + ", ".join(missing))
    unreadable = [q for q in questions if q.status == "unreadable"]
    for question in unreadable:
        reasons.append(f"{question.name}: " + "; ".join(question.notes))
    for question in questions:
        if question.status == "timed out":
            reasons.append(f"evaluating {question.name} on the grader's inputs timed out")

    status = next((s for s in STATUSES if s in statuses), "graded")
    total = _round(sum(Fraction(str(q.score)) for q in questions))
    return SubmissionResult(submission, path, status, reasons, total, maximum, questions, notes,
                            seconds=float(report.seconds))
