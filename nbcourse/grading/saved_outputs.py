"""Removing the saved outputs of an oversized notebook without the grader's memory growing.

A notebook over the size limit is usually an honest one with saved plots, and the
grader grades only its code: it grades a copy without outputs and attachments.  Parsing
JSON takes far more memory than the file's size, though (a 48 MB notebook of many tiny
outputs took 1.35 GB), so the copy is made by a child process whose address space is
limited (``RLIMIT_AS``).  A notebook that needs more than that, or is not a readable
notebook at all, is left as it is, and its row says it is too large: removing outputs
never makes the grader's own memory grow with what a student hands in.  (What is left
under the limit is parsed in the grader's process once, for the integrity hints: see
``integrity.submission_cells`` for what that costs.)

A batch strips each oversized notebook once, when it has collected them
(``strip_oversized``): the integrity hints and the run both read that copy.
"""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from . import strip_outputs
from .collection import MAX_COPY_BYTES, Submission
from .execution.limits import MB
from .execution.notebook_file import open_untrusted

# Not in GradingLimits: bounds of the grader's own helper, not of what a submission may use.
#: The file is read at most this far to remove its outputs: all of a collected copy.
MAX_RAW_NOTEBOOK_BYTES = MAX_COPY_BYTES
#: The address space of the process that removes them (its parsing included).
STRIP_MEMORY_MB = 1024
#: How long it may take (a few seconds for the largest honest notebook).
STRIP_SECONDS = 120

#: Run as ``python -I -S -c STRIP FD TARGET MEMORY MOST``: ``strip_outputs.py``, a module
#: of its own (read, linted and tested as code), given as its source.
STRIP = Path(strip_outputs.__file__).read_text(encoding="utf-8")


def without_outputs(path: Path, limit: int, scratch: Path,
                    memory_mb: int = STRIP_MEMORY_MB) -> Path:
    """The notebook to grade: ``path`` itself, or, when it is over ``limit`` bytes, a copy
    in ``scratch`` without its saved outputs and attachments, made in a child process of
    at most ``memory_mb`` MB.  When no such copy can be made (not a notebook, too large to
    read, out of memory, too slow), ``path`` as it is: the runner then says why."""
    try:
        info = os.lstat(path)
    except OSError:
        return path
    if not stat.S_ISREG(info.st_mode) or info.st_size <= limit:
        return path
    try:
        source = open_untrusted(path)  # the child reads the file the grader opened
    except OSError:
        return path
    handle, copy = tempfile.mkstemp(prefix="stripped-", suffix=".ipynb", dir=scratch)
    os.close(handle)
    command = [sys.executable, "-I", "-S", "-c", STRIP, str(source.fileno()), copy,
               str(memory_mb * MB), str(MAX_RAW_NOTEBOOK_BYTES)]
    try:
        with source:
            done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, timeout=STRIP_SECONDS,
                                  check=False, pass_fds=(source.fileno(),))
        stripped = done.returncode == 0
    except (OSError, subprocess.TimeoutExpired):  # run() has killed it
        stripped = False
    if stripped:
        return Path(copy)
    try:
        os.unlink(copy)
    except OSError:
        pass
    return path


def strip_oversized(submissions: list[Submission], limit: int, scratch: Path) -> list[Submission]:
    """The ``submissions``, each one to grade that is over ``limit`` bytes with its copy
    without outputs as ``stripped`` (``without_outputs``, run once per notebook)."""
    found = []
    for submission in submissions:
        copy = submission.path if submission.refused else without_outputs(
            submission.path, limit, scratch)
        found.append(submission if copy == submission.path
                     else replace(submission, stripped=copy))
    return found
