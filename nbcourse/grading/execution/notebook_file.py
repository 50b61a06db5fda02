"""Reading a submitted file without trusting anything about it.

Not JSON, not a notebook, too large, a link or a pipe in its place, an old format, no
code at all: each is a verdict with a reason the student can act on, never a crash.
"""
from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import BinaryIO

from .limits import MB, GradingLimits
from .report import NotebookVerdict


class NotRegularFile(OSError):
    """What ``open_untrusted`` found is a pipe, a device, a folder or a socket."""


def open_untrusted(path, *, dir_fd: int | None = None) -> BinaryIO:
    """Open for reading a file a student handed in, or the grader's copy of it: the one
    way the grader opens one.

    What was checked a moment ago may have been swapped since: a symbolic link is not
    followed (``OSError`` ELOOP), and a pipe or a device is opened without blocking and
    refused (``NotRegularFile``), so nothing can make the grader read another file or
    wait forever.  ``dir_fd``: ``path`` is relative to that open folder.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file", os.fsdecode(path))
        return open(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_cells(path: Path, max_bytes: int) -> tuple[NotebookVerdict, str, list[tuple[str, str]]]:
    """(verdict, reason, [(cell_type, source)]) without trusting the file at all; a file
    over ``max_bytes`` (the batch's ``GradingLimits.notebook_mb``) is not read further."""
    return _read(path, max_bytes, None)[:3]


def read_notebook(path: Path, limits: GradingLimits
                  ) -> tuple[NotebookVerdict, str, list[tuple[str, str]], str]:
    """``read_cells``, and the notebook the kernel is handed (``for_the_kernel``: its
    code cells' sources only; the file is read once).  Code larger than the kernel may be
    handed (``GradingLimits.kernel_bytes``) is a verdict too, in every sandbox mode."""
    return _read(path, limits.notebook_bytes, limits.kernel_bytes)


def _read(path: Path, max_bytes: int, kernel_bytes: int | None
          ) -> tuple[NotebookVerdict, str, list[tuple[str, str]], str]:
    try:
        if not path.is_file():  # a folder, a device such as /dev/zero, a pipe ...
            return NotebookVerdict.NOT_A_NOTEBOOK, "not a regular file", [], ""
        with open_untrusted(path) as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as error:
        return NotebookVerdict.NOT_A_NOTEBOOK, f"cannot read the file: {error.strerror}", [], ""
    verdict, reason, cells = _cells(raw, max_bytes)
    if verdict is not NotebookVerdict.OK:
        return verdict, reason, cells, ""
    notebook = for_the_kernel(cells)
    size = len(notebook.encode("utf-8"))
    if kernel_bytes is not None and size > kernel_bytes:
        return (NotebookVerdict.NOT_A_NOTEBOOK, f"its code cells come to {size:,} bytes as "
                f"the grader hands them to a kernel, more than the {kernel_bytes:,} "
                f"({kernel_bytes / MB:g} MB) it hands one; a notebook for this exercise has far "
                "less: remove the data typed or pasted into code cells and hand it in again",
                [], "")
    return verdict, reason, cells, notebook


def for_the_kernel(cells: list[tuple[str, str]]) -> str:
    """The notebook a kernel is handed (its home's ``submission.ipynb``): each cell's type
    and a code cell's source, without saved outputs, attachments, metadata or the text of
    other cells.  The runner executes the code only, and the file passes through the
    kernel's channel, a small tmpfs in the sandbox (``GradingLimits.channel_mb``), which
    an honest notebook's saved plots, or an image pasted into a Markdown cell as a data
    URI (up to ``notebook_mb``), would overflow: the kernel would not start."""
    def bare(kind: str, source: str) -> dict:
        cell = {"cell_type": kind, "metadata": {}, "source": source if kind == "code" else ""}
        return {**cell, "execution_count": None, "outputs": []} if kind == "code" else cell
    return json.dumps({"cells": [bare(kind, source) for kind, source in cells], "metadata": {},
                       "nbformat": 4, "nbformat_minor": 4}, ensure_ascii=False)


def _cells(raw: bytes, max_bytes: int) -> tuple[NotebookVerdict, str, list[tuple[str, str]]]:
    """``read_cells`` of the bytes read."""
    if len(raw) > max_bytes:
        return (NotebookVerdict.NOT_A_NOTEBOOK, "the file is larger than "
                f"{max_bytes / MB:g} MB, even after the grader tried to remove its "
                "saved outputs (or it needed more memory for that than the grader allows); "
                "a notebook for this exercise is far smaller: clear all outputs, save it and "
                "hand it in again", [])
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return NotebookVerdict.NOT_A_NOTEBOOK, "the file is not text (not UTF-8); is it a PDF or a zip?", []
    except (ValueError, RecursionError):
        return NotebookVerdict.NOT_A_NOTEBOOK, "the file is not valid JSON, so it is not a Jupyter notebook", []
    if not isinstance(data, dict):
        return NotebookVerdict.NOT_A_NOTEBOOK, "the file is JSON but not a Jupyter notebook (no 'cells')", []
    if "worksheets" in data and "cells" not in data:  # nbformat 3
        try:
            import nbformat
            data = nbformat.convert(nbformat.from_dict(data), 4)
        except Exception as error:  # noqa: BLE001 - any failure means "not a notebook"
            return NotebookVerdict.NOT_A_NOTEBOOK, f"an old-format notebook that cannot be read ({error})", []
    cells = data.get("cells")
    if not isinstance(cells, list) or not isinstance(data.get("nbformat", 4), int):
        return NotebookVerdict.NOT_A_NOTEBOOK, "the file is JSON but not a Jupyter notebook (no 'cells' list)", []
    result = []
    for position, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            return NotebookVerdict.NOT_A_NOTEBOOK, f"cell {position} is not a notebook cell", []
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            return NotebookVerdict.NOT_A_NOTEBOOK, f"cell {position} has no readable source", []
        result.append((cell["cell_type"], source))
    if not any(kind == "code" and text.strip() for kind, text in result):
        return NotebookVerdict.EMPTY, "the notebook has no code in it", result
    return NotebookVerdict.OK, "", result
