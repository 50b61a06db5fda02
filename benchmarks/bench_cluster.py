"""Grading on Dask: submissions per second against the number of workers, and the
overhead per submission of going through Dask instead of local worker processes.

The batch is bench_grading's 40 submissions of exercise 1 (16 correct, 12 wrong, 12
broken; ``--submissions N`` takes the first N).  It is graded sandboxed (``--sandbox
bwrap``) on the cluster of ``--scheduler local:N`` (TLS with throw-away certificates)
with 1, 2 and 4 worker processes (one thread each), and locally with ``--jobs`` 1, 2 and
4 in the same run, alternating (local first in the first repeat, Dask first in the
second, and so on).  Overhead per submission = (Dask seconds - local seconds) /
submissions at the same parallelism: shipping the notebook and the plan to a worker, the
task's round trip, and the worker's own start.  The cluster's own start
(scheduler, workers, certificates) is timed apart and not in the batch times.  On one
machine the cluster competes for the same cores as the local run, so this measures the
cost of the machinery, not the gain of more machines (each extra machine adds its cores).

    python benchmarks/bench_cluster.py [--repeats 1] [--workers 1 2 4] [--submissions 40]
                                       [--sandbox bwrap] [--json FILE] [--write-results]
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_grading import make_batch  # noqa: E402  (the same 40 submissions)
from shared import keep_results  # noqa: E402

BEGIN, END = "<!-- bench_cluster: begin -->", "<!-- bench_cluster: end -->"


def _grade(folder: Path, out: Path, sandbox: str, **how):
    from nbcourse.grading.batch import grade_batch

    started = time.perf_counter()
    batch = grade_batch("01_weather", [folder], out, timeout=30, sandbox=sandbox,
                        progress=None, **how)
    return batch, time.perf_counter() - started


def one_run(n_workers: int, sandbox: str, dask: bool, limit: int | None) -> dict:
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        folder, out = Path(tmp, "submitted"), Path(tmp, "out")
        folder.mkdir()
        n = make_batch(folder, limit)
        start_up = None
        if dask:
            from nbcourse.grading.cluster import connect
            started = time.perf_counter()
            client, close, _ = connect(f"local:{n_workers}")
            try:
                client.wait_for_workers(n_workers)
                start_up = time.perf_counter() - started
                batch, seconds = _grade(folder, out, sandbox, scheduler=client)
            finally:
                close()
        else:
            batch, seconds = _grade(folder, out, sandbox, jobs=n_workers)
    return {"workers": n_workers, "dask": dask, "submissions": n, "seconds": seconds,
            "per_second": n / seconds, "start_up": start_up, "load": load,
            "load_after": os.getloadavg()[0], "scores": sorted(r.total for r in batch.results)}


def table(runs: list[dict], workers: list[int]) -> list[str]:
    """The Markdown table: best run of each kind, submissions per second and overhead."""
    lines = ["| workers | local subm./s | Dask subm./s | ratio Dask / local time "
             "| Dask overhead per submission | cluster start |", "|---|---|---|---|---|---|"]
    n = runs[0]["submissions"]
    for count in workers:
        local = min(r["seconds"] for r in runs if r["workers"] == count and not r["dask"])
        mine = [r for r in runs if r["workers"] == count and r["dask"]]
        dask = min(r["seconds"] for r in mine)
        start = min(r["start_up"] for r in mine)
        lines.append(f"| {count} | {n / local:.2f} | {n / dask:.2f} | {dask / local:.2f}x |"
                     f" {(dask - local) / n:+.3f} s | {start:.1f} s |")
    return lines


def section(runs: list[dict], args, load: str) -> str:
    """The bench_cluster section of benchmarks/results.md."""
    import distributed
    n = runs[0]["submissions"]
    each = ", ".join(f"{'Dask' if r['dask'] else 'local'} {r['workers']}: {r['seconds']:.1f} s"
                     f" (load {r['load']:.1f} -> {r['load_after']:.1f})" for r in runs)
    same = all(r["scores"] == runs[0]["scores"] for r in runs)
    return "\n".join([
        BEGIN, "## Grading on a Dask cluster (benchmarks/bench_cluster.py)", "",
        f"Written by `python benchmarks/bench_cluster.py --write-results --repeats "
        f"{args.repeats}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"distributed {distributed.__version__}; load average at the start {load}.", "",
        f"{n} submissions of exercise 1 (bench_grading's mix), `--sandbox {args.sandbox}`; "
        "Dask on `--scheduler local:N` (worker processes with one thread each) against "
        "`--jobs N` locally, alternating in one process (local first, then Dask first on the "
        "next repeat). Best of the runs; the cluster's "
        "start is not in the batch times.", "", *table(runs, args.workers), "",
        f"Every run (load average, 1 min, before -> after): {each}.", "",
        "Every run gave the same scores." if same else
        "WARNING: the runs did not all give the same scores.", END])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--submissions", type=int, default=None,
                        help="grade only the first N of the 40 submissions")
    parser.add_argument("--sandbox", default="bwrap", choices=("bwrap", "off"))
    parser.add_argument("--json", type=Path, help="also write every run to this file")
    parser.add_argument("--write-results", action="store_true",
                        help="replace the bench_cluster section of benchmarks/results.md")
    args = parser.parse_args(argv)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average at the start {load}; sandbox {args.sandbox}")
    runs = []
    for repeat in range(args.repeats):
        for workers in args.workers:
            # local first, then Dask first: a load that rises or falls during the run is
            # not always against the same one
            for dask in ((False, True) if repeat % 2 == 0 else (True, False)):
                runs.append(one_run(workers, args.sandbox, dask, args.submissions))
                r = runs[-1]
                print(f"  {'dask ' if dask else 'local'} workers={workers}: {r['seconds']:.1f} s,"
                      f" {r['per_second']:.2f} submissions/s; load average {r['load']:.2f}"
                      f" -> {r['load_after']:.2f}", flush=True)
    print("\n" + "\n".join(table(runs, args.workers)))
    same = all(r["scores"] == runs[0]["scores"] for r in runs)
    print("\nEvery run gave the same scores." if same else
          "\nWARNING: the runs did not all give the same scores.")
    keep_results(args, {"load": load, "runs": runs}, lambda: section(runs, args, load),
                 BEGIN, END)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
