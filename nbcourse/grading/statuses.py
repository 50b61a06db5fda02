"""Every status the grader writes, defined once: a submission's (``Status``) and an
answer's (``AnswerStatus``).

A status is a string too (``Status.TIMED_OUT == "timed out"``), printed, hashed and
written to JSON and CSV as its words, so grades.csv, results.json and the pages read the
same as they always have, and a status read back from results.json compares equal to
the member.
"""
from __future__ import annotations

from enum import Enum


class _Words(str, Enum):
    """A status that behaves as its words everywhere (``f"{s}"``, ``str(s)``, sets, JSON)."""
    __str__ = str.__str__
    __format__ = str.__format__
    __hash__ = str.__hash__


class Status(_Words):
    """The one status of a submission (a row of the gradebook)."""
    # from the collection step: the submission is not run at all
    NOT_SUBMITTED = "not submitted"           # the student's folder holds no notebook
    SEVERAL_NOTEBOOKS = "several notebooks"   # which one to grade is the instructor's call
    LINK_OUTSIDE = "link outside submissions"  # a symbolic link out of the class's folder
    DANGLING_LINK = "dangling link"           # a symbolic link to nothing
    # from running and scoring it, in PRECEDENCE order
    NOT_A_NOTEBOOK = "not a notebook"   # not JSON, JSON but not a notebook, unreadable, too large
    EMPTY_NOTEBOOK = "empty notebook"   # a notebook with no code in it
    GRADER_ERROR = "grader error"       # the grading machinery failed; the instructor should look
    MEMORY_LIMIT = "memory limit"       # a cell (or an answer) ran out of the memory it is allowed
    KERNEL_DIED = "kernel died"         # the kernel process ended (os._exit, a crash)
    TIMED_OUT = "timed out"             # a cell or an answer ran longer than the timeout
    CELL_ERROR = "cell error"           # a cell raised an exception (answers still graded)
    ANSWER_MISSING = "answer missing"   # a graded name is not defined after running the notebook
    ANSWERS_UNREADABLE = "answers unreadable"  # the grader could not read the probe's reply
    GRADED = "graded"                   # everything ran; the points are the answers' points


#: Which status a submission gets when several things went wrong: the first that applies.
PRECEDENCE = (
    Status.NOT_A_NOTEBOOK, Status.EMPTY_NOTEBOOK, Status.GRADER_ERROR, Status.MEMORY_LIMIT,
    Status.KERNEL_DIED, Status.TIMED_OUT, Status.CELL_ERROR, Status.ANSWER_MISSING,
    Status.ANSWERS_UNREADABLE, Status.GRADED,
)

#: Rows handed in that the grader could not mark: the instructor must look at them.
NOT_A_MARK = frozenset({Status.SEVERAL_NOTEBOOKS, Status.GRADER_ERROR, Status.LINK_OUTSIDE,
                        Status.DANGLING_LINK})
#: Rows that carry no mark of the student's work: those, and nothing handed in.  An LMS
#: gradebook leaves them blank (``export``) and the class report's numbers leave them out.
NO_MARK = NOT_A_MARK | {Status.NOT_SUBMITTED}


class AnswerStatus(_Words):
    """What happened to one answer (a question of the exercise)."""
    PASSED = "passed"
    PARTLY_PASSED = "partly passed"  # a function that passes some of its cases
    # failed, but passes every case with the right functions it calls (follow-through)
    FOLLOW_THROUGH = "right given the functions it calls"
    FAILED = "failed"
    NOT_ANSWERED = "not answered"    # still the stub that raises NotImplementedError
    MISSING = "missing"              # the name is not defined after running the notebook
    NOT_CALLABLE = "not callable"    # a function question whose answer is not a function
    NOT_RUN = "not run"              # the kernel stopped before the answer was read
    TIMED_OUT = "timed out"
    UNREADABLE = "unreadable"        # the probe's reply could not be read
