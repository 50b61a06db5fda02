"""Re-run notebooks top to bottom in a fresh kernel and store their outputs.

Maintainers run this after changing a lesson or the library; nbval then checks that
a student's Run All reproduces exactly these stored outputs. Widget state is dropped
(it is a snapshot of one session, not part of the lesson) and the time each notebook
took is printed, because a lesson must run in a few seconds.

    python tools/refresh.py                     # every notebook in notebooks/
    python tools/refresh.py notebooks/02_*.ipynb exercises/source/*.ipynb
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def refresh(path: Path, timeout: int = 120) -> float:
    """Execute ``path`` in a fresh kernel, in its own folder, and save it in place."""
    notebook = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    elapsed = time.perf_counter() - started
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
    nbformat.validate(notebook)
    nbformat.write(notebook, path)
    return elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path,
                        help="notebooks to refresh (default: every notebook in notebooks/)")
    parser.add_argument("--timeout", type=int, default=120, help="seconds allowed per cell")
    args = parser.parse_args(argv)
    paths = args.paths or sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))
    total = 0.0
    for path in paths:
        seconds = refresh(path, timeout=args.timeout)
        total += seconds
        print(f"{seconds:6.1f} s  {path}", file=sys.stderr)
    print(f"{total:6.1f} s  total", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
