#!/usr/bin/env python3
"""Time the course website's build (``jupyter-book build book/``) and record it.

    python benchmarks/bench_site.py [--repeats 3]

Each repeat is a clean build (a new output folder) with the README's command, run from
the notebooks' stored outputs. MathJax is fetched first if missing, outside the timing.
The report (wall time, CPU time, load average) replaces the "Course website build"
section of benchmarks/results.md, between its markers, and leaves the rest of the file
as it is. The target is a whole build in at most 30 s on a 2-core machine.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from shared import replace_section

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results.md"
BEGIN, END = "<!-- site-build: begin -->", "<!-- site-build: end -->"
TARGET_SECONDS = 30.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build_once(out: Path) -> tuple[float, float]:
    jupyter_book = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) \
        or shutil.which("jupyter-book")
    cpu_before, started = _children_cpu(), time.perf_counter()
    done = subprocess.run([jupyter_book, "build", str(REPO / "book"), "--path-output", str(out)],
                          capture_output=True, text=True)
    wall, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
    if done.returncode != 0:
        raise SystemExit(f"the site build failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return wall, cpu


def report(walls: list[float], cpus: list[float], pages: int) -> str:
    median = statistics.median(walls)
    load = os.getloadavg()
    verdict = "met" if median <= TARGET_SECONDS else "not met"
    return "\n".join([
        BEGIN,
        "## Course website build",
        "",
        f"Written by `python benchmarks/bench_site.py --repeats {len(walls)}` on "
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC ({platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}); load average when "
        f"written {load[0]:.2f} (1 min), {load[1]:.2f} (5 min).",
        "",
        "Clean `jupyter-book build book/` from the stored outputs (nothing executed), "
        f"{pages} HTML pages; MathJax already fetched.",
        "",
        "| | median | runs |",
        "|---|---|---|",
        f"| wall time | {median:.1f} s | {', '.join(f'{w:.1f}' for w in walls)} s |",
        f"| CPU time (user + system) | {statistics.median(cpus):.1f} s | "
        f"{', '.join(f'{c:.1f}' for c in cpus)} s |",
        "",
        f"Target: a whole build in at most {TARGET_SECONDS:.0f} s: **{verdict}** "
        f"({median:.1f} s). On a busy machine the wall time grows while the CPU time stays.",
        END,
    ])


def write(section: str) -> None:
    replace_section(section, BEGIN, END, RESULTS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    subprocess.run([sys.executable, str(REPO / "book" / "fetch_mathjax.py")], check=True)
    walls, cpus, pages = [], [], 0
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="nbcourse-site-") as tmp:
            wall, cpu = build_once(Path(tmp))
            pages = len(list((Path(tmp) / "_build" / "html").rglob("*.html")))
        walls.append(wall)
        cpus.append(cpu)
        print(f"build: {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
    section = report(walls, cpus, pages)
    print(section)
    if not args.no_write:
        write(section)
        print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
