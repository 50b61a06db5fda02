"""Grading on Dask: submissions per second against the number of workers, and the
overhead per submission of going through Dask instead of local worker processes.

The batch is bench_grading's 40 submissions of exercise 1 (16 correct, 12 wrong, 12
broken).  It is graded sandboxed (``--sandbox bwrap``) on the cluster of ``--scheduler
local:N`` (TLS with throw-away certificates) with 1 and 2 worker processes (one thread
each), and locally with ``--jobs`` 1 and 2 in the same run,
alternating.  Overhead per submission = (Dask seconds - local seconds) / submissions at
the same parallelism: shipping the notebook and the plan to a worker, the task's round
trip, and the worker's own start.  On one machine the cluster competes for the same cores
as the local run, so this measures the cost of the machinery, not the gain of more
machines (each extra machine adds its cores).

    python benchmarks/bench_cluster.py [--repeats 1] [--workers 1 2] [--sandbox bwrap]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_grading import make_batch  # noqa: E402  (the same 40 submissions)


def one_run(n_workers: int, sandbox: str, dask: bool) -> dict:
    from nbcourse.grading.batch import grade_batch

    with tempfile.TemporaryDirectory() as tmp:
        folder, out = Path(tmp, "submitted"), Path(tmp, "out")
        folder.mkdir()
        n = make_batch(folder)
        if dask:
            from nbcourse.grading.cluster import connect
            client, close, _ = connect(f"local:{n_workers}")
            try:
                client.wait_for_workers(n_workers)
                started = time.perf_counter()
                batch = grade_batch("01_weather", [folder], out, timeout=30, sandbox=sandbox,
                                    progress=None, scheduler=client)
                seconds = time.perf_counter() - started
            finally:
                close()
        else:
            started = time.perf_counter()
            batch = grade_batch("01_weather", [folder], out, jobs=n_workers, timeout=30,
                                sandbox=sandbox, progress=None)
            seconds = time.perf_counter() - started
    return {"workers": n_workers, "dask": dask, "submissions": n, "seconds": seconds,
            "per_second": n / seconds, "scores": sorted(r.total for r in batch.results)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--sandbox", default="bwrap", choices=("bwrap", "off"))
    args = parser.parse_args(argv)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average at the start {load}; sandbox {args.sandbox}")
    runs = []
    for _ in range(args.repeats):
        for workers in args.workers:
            for dask in (False, True):
                runs.append(one_run(workers, args.sandbox, dask))
                r = runs[-1]
                print(f"  {'dask ' if dask else 'local'} workers={workers}: {r['seconds']:.1f} s,"
                      f" {r['per_second']:.2f} submissions/s; load average after it"
                      f" {os.getloadavg()[0]:.2f}", flush=True)
    print("\n| workers | local subm./s | Dask subm./s | ratio Dask / local time | Dask overhead per submission |")
    print("|---|---|---|---|---|")
    for workers in args.workers:
        local = min(r["seconds"] for r in runs if r["workers"] == workers and not r["dask"])
        dask = min(r["seconds"] for r in runs if r["workers"] == workers and r["dask"])
        n = runs[0]["submissions"]
        print(f"| {workers} | {n / local:.2f} | {n / dask:.2f} | {dask / local:.2f}x |"
              f" {(dask - local) / n:+.3f} s |")
    same = all(r["scores"] == runs[0]["scores"] for r in runs)
    print("\nEvery run gave the same scores." if same else
          "\nWARNING: the runs did not all give the same scores.")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
