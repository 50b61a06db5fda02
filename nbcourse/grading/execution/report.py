"""What running one submission produced: the typed report that execution hands to scoring.

This module is the whole interface between the two sides.  It imports nothing heavy
(no jupyter, no sandbox), so ``scoring`` can read a report without pulling in the
machinery that made it.  A report crosses the worker's pipe as JSON
(``to_json``/``from_json``); everything else about it is typed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

#: The JSON type of a field of each kind (the enums and the problems are rebuilt apart).
_JSON_TYPES = {"str": str, "int": int, "bool": bool, "dict": dict, "float": (int, float)}
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class NotebookVerdict(str, Enum):
    """Could the file be read as a notebook at all?"""
    OK = "ok"
    NOT_A_NOTEBOOK = "not a notebook"  # not JSON, not a notebook, unreadable, too large
    EMPTY = "empty"


class KernelOutcome(str, Enum):
    """How the kernel (and the sandbox around it) ended."""
    OK = "ok"
    DIED = "died"
    STUCK = "stuck"                  # a cell ignored the interrupt and was killed
    TOO_SLOW = "too slow"            # the whole notebook ran past its wall-clock limit
    FAILED_TO_START = "failed to start"


@dataclass
class CellProblem:
    """A cell that failed.  ``code`` quotes its first line: Jupyter shows no cell numbers,
    so that is how a student finds it; ``cell`` (the position, Markdown cells included)
    is kept for the instructor's results.json."""
    cell: int  # 1-based position in the student's notebook
    error: str
    timed_out: bool = False
    not_implemented: bool = False
    code: str = ""


@dataclass
class RunReport:
    """Facts about one run; ``scoring`` turns them into a status and points.

    ``probes`` maps a question id to the probe's JSON reply for it (values and errors
    as the student's kernel produced them, or why there is no reply);
    ``follow_through`` the same for the follow-through probes (``grading/follow_through.py``).  ``isolation``
    says how the submission was confined (sandbox, memory limit that applied).
    ``grader_error`` is set when the grading machinery itself failed.
    """
    notebook: NotebookVerdict = NotebookVerdict.OK
    notebook_reason: str = ""
    code_cells: int = 0
    problems: list[CellProblem] = field(default_factory=list)
    kernel: KernelOutcome = KernelOutcome.OK
    kernel_reason: str = ""
    memory_error: bool = False
    output_bytes: int = 0
    probes: dict = field(default_factory=dict)
    follow_through: dict = field(default_factory=dict)  # question id -> second reading
    forbidden: dict = field(default_factory=dict)
    isolation: dict = field(default_factory=dict)
    grader_error: str = ""
    seconds: float = 0.0

    @classmethod
    def failed(cls, message: str) -> "RunReport":
        """The report of a run the grading machinery could not finish."""
        return cls(grader_error=message)

    def to_json(self) -> dict:
        data = dict(self.__dict__)
        data["notebook"] = self.notebook.value
        data["kernel"] = self.kernel.value
        data["problems"] = [dict(p.__dict__) for p in self.problems]
        return data

    @classmethod
    def from_json(cls, data: dict) -> "RunReport":
        """Rebuild a report sent by a worker; anything malformed (a field of another type
        than its own included) is a grader error."""
        try:
            known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
            known["notebook"] = NotebookVerdict(known.get("notebook", "ok"))
            known["kernel"] = KernelOutcome(known.get("kernel", "ok"))
            problems = known.get("problems", [])
            if not isinstance(problems, list):
                raise TypeError(f"problems is {type(problems).__name__}, not list")
            known["problems"] = [_typed(CellProblem, p) for p in problems]
            return _typed(cls, known)
        except (TypeError, ValueError, AttributeError) as error:
            return cls.failed(f"the grading worker sent an unreadable report ({error})")


def _typed(kind, values: dict):
    """``kind(**values)``, each value of its field's JSON type (a bool is no number)."""
    if not isinstance(values, dict):
        raise TypeError(f"a {kind.__name__} is {type(values).__name__}, not an object")
    for name, value in values.items():
        field = kind.__dataclass_fields__.get(name)  # an unknown name: kind() refuses it
        wanted = _JSON_TYPES.get(field.type) if field is not None else None
        if wanted is not None and (not isinstance(value, wanted)
                                   or isinstance(value, bool) and wanted is not bool):
            raise TypeError(f"{name} is {type(value).__name__}, not {field.type}")
    return kind(**values)


def clean_message(text: str, limit: int = 300) -> str:
    """Error text without terminal colours or memory addresses (which change per run)."""
    text = _ADDRESS.sub("0x…", _ANSI.sub("", str(text))).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def first_code_line(source: str, limit: int = 60) -> str:
    """The line a person recognises a cell by: its first line of code, shortened.

    Blank lines and comment-only lines are skipped (unless the cell has nothing else).
    """
    lines = [line.strip() for line in source.splitlines() if line.strip()]
    code = next((line for line in lines if not line.startswith("#")), lines[0] if lines else "")
    code = clean_message(code, limit=10 * limit)
    return code if len(code) <= limit else code[: limit - 1].rstrip() + "…"


def describe_cell(source: str) -> str:
    """``the cell starting `weather = load_wether()` `` for messages to the student."""
    return f"the cell starting `{first_code_line(source)}`"
