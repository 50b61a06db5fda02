"""How long does grading take?  40 submissions of exercise 1, two at a time.

The batch mixes 16 correct, 12 wrong and 12 broken submissions (an exception in an
early cell, a deleted or renamed answer, not JSON, not a notebook, a kernel that
kills itself), built from the committed grader fixtures.  It reports wall-clock
seconds per submission for ``--jobs 2`` (and, with ``--serial``, one at a time).

For comparison: nbgrader needed about 1.7 s per submission one at a time on a small
exercise, otter-grader's local runner 3.5-4.3 s.  The target here is under 1 s per
submission with two jobs.

    python benchmarks/bench_grading.py [--jobs 2] [--serial] [--json results.json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "submissions"
MIX = {
    "correct": 16, "wrong": 12,
    "early_exception": 2, "answer_deleted": 2, "answer_renamed": 2,
    "not_json": 2, "not_a_notebook": 2, "kernel_killed": 2,
}


def make_batch(folder: Path) -> int:
    """Copy the fixtures into ``folder`` as student-001.ipynb ... in a shuffled order."""
    names = [name for name, count in MIX.items() for _ in range(count)]
    order = sorted(range(len(names)), key=lambda i: (i * 7919) % len(names))
    for number, index in enumerate(order, start=1):
        shutil.copyfile(FIXTURES / f"{names[index]}.ipynb", folder / f"student-{number:03d}.ipynb")
    return len(names)


def kernel_start_seconds(forked: bool, repeats: int = 3) -> float:
    """Median time to start, use and stop one limited grading kernel.

    ``forked``: from a warm kernel factory (what the grader does); else from scratch.
    """
    import asyncio

    from nbcourse.grading.kernel_factory import KernelFactory
    from nbcourse.grading.runner import KernelSession, Limits
    from nbcourse.grading.worker import factory_environment

    base = Path(tempfile.mkdtemp())
    factory = KernelFactory(factory_environment(base, "bench"), base) if forked else None
    times = []
    try:
        for i in range(repeats + forked):
            work, private = base / f"work{i}", base / f"private{i}"
            work.mkdir()
            private.mkdir()

            async def once():
                session = KernelSession(work, private, base, Limits(), "bench", factory)
                started = time.perf_counter()
                await session.start()
                await session.run("import pandas, nbcourse", 30)
                await session.close()
                return time.perf_counter() - started

            times.append(asyncio.run(once()))
    finally:
        if factory is not None:
            factory.close()
        shutil.rmtree(base, ignore_errors=True)
    times = times[1:] if forked else times  # the first fork waits for the factory's imports
    return sorted(times)[len(times) // 2]


def run(jobs: int) -> dict:
    from nbcourse.grading.batch import grade_batch

    with tempfile.TemporaryDirectory() as tmp:
        submissions, out = Path(tmp, "submitted"), Path(tmp, "out")
        submissions.mkdir()
        n = make_batch(submissions)
        started = time.perf_counter()
        batch = grade_batch("01_weather", [submissions], out, jobs=jobs, timeout=30,
                            progress=None)
        seconds = time.perf_counter() - started
    statuses = Counter(r.status for r in batch.results)
    return {"jobs": jobs, "submissions": n, "seconds": round(seconds, 2),
            "seconds_per_submission": round(seconds / n, 3), "statuses": dict(statuses)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="parallel kernels (default 2)")
    parser.add_argument("--serial", action="store_true", help="also time --jobs 1")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    args = parser.parse_args(argv)
    os.environ.setdefault("NBCOURSE_DATA", str(REPO.parent / "shared" / "data"))

    results = {"machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python "
                          f"{platform.python_version()}",
               "kernel_from_scratch_seconds": round(kernel_start_seconds(False), 3),
               "kernel_from_factory_seconds": round(kernel_start_seconds(True), 3),
               "runs": [run(args.jobs)]}
    if args.serial:
        results["runs"].append(run(1))
    print(f"machine: {results['machine']}")
    print("one kernel, start + import pandas and nbcourse + stop: "
          f"{results['kernel_from_scratch_seconds']:.2f} s from scratch, "
          f"{results['kernel_from_factory_seconds']:.2f} s forked from the kernel factory")
    for r in results["runs"]:
        print(f"--jobs {r['jobs']}: {r['submissions']} submissions in {r['seconds']:.1f} s = "
              f"{r['seconds_per_submission']:.2f} s per submission  {r['statuses']}")
    print("reference: nbgrader ~1.7 s/submission (serial), otter-grader 3.5-4.3 s; "
          "target < 1 s with --jobs 2")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
