"""How long does grading take?  40 submissions of exercise 1, two at a time, sandboxed and not.

The batch mixes 16 correct, 12 wrong and 12 broken submissions (an exception in an
early cell, a deleted or renamed answer, not JSON, not a notebook, a kernel that
kills itself), built from the committed grader fixtures.  It grades the same batch
with ``--sandbox bwrap`` (each submission in its own bubblewrap sandbox) and with
``--sandbox off`` in one run, alternating, and reports wall-clock seconds per
submission for ``--jobs 2`` (and, with ``--serial``, one at a time).

For comparison: nbgrader needed about 1.7 s per submission one at a time on a small
exercise, otter-grader's local runner 3.5-4.3 s.  The target (issue 38) is 0.3 s per
submission sandboxed with two jobs (`TARGET_SECONDS`).

    python benchmarks/bench_grading.py [--jobs 2] [--repeats 2] [--serial] [--json FILE]
                                       [--submissions 40] [--write-results]
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from shared import keep_results, use_default_data

#: Seconds per submission of exercise 1's mix, sandboxed, --jobs 2, quiet 2-core machine.
TARGET_SECONDS = 0.3

REPO = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- bench_grading: begin -->", "<!-- bench_grading: end -->"
FIXTURES = REPO / "tests" / "fixtures" / "submissions"
MIX = {
    "correct": 16, "wrong": 12,
    "early_exception": 2, "answer_deleted": 2, "answer_renamed": 2,
    "not_json": 2, "not_a_notebook": 2, "kernel_killed": 2,
}


def make_batch(folder: Path, limit: int | None = None) -> int:
    """Copy the fixtures into ``folder`` as student-001.ipynb ... in a shuffled order
    (the first ``limit`` of them when given)."""
    names = [name for name, count in MIX.items() for _ in range(count)]
    order = sorted(range(len(names)), key=lambda i: (i * 7919) % len(names))[:limit]
    for number, index in enumerate(order, start=1):
        shutil.copyfile(FIXTURES / f"{names[index]}.ipynb", folder / f"student-{number:03d}.ipynb")
    return len(order)


def sandbox_config(mode: str):
    """The sandbox configuration ``nbcourse grade --sandbox MODE`` would use (with the
    course's folders where the grader asks for them)."""
    from nbcourse.grading.course_folders import course_folders
    from nbcourse.grading.execution.limits import GradingLimits
    from nbcourse.grading.execution.sandbox import make_config
    return make_config(mode, GradingLimits.from_options(), course_folders())


def server_ready_seconds(mode: str, repeats: int = 3) -> float:
    """Median time from starting a kernel server (``--sandbox MODE``) to its having
    imported ipykernel, numpy, pandas and nbcourse: what each grading worker pays once."""
    from nbcourse.grading.execution.launcher import KernelServer
    from nbcourse.grading.execution.sandbox import release

    config = sandbox_config(mode)
    base = Path(tempfile.mkdtemp())
    os.chmod(base, 0o711)
    times = []
    try:
        for _ in range(repeats):
            started = time.perf_counter()
            server = KernelServer(config, base)
            ready = server.wait_ready()
            times.append(time.perf_counter() - started)
            server.kill()
            assert ready, "the kernel did not start"
    finally:
        release(config)
        shutil.rmtree(base, ignore_errors=True)
    return sorted(times)[len(times) // 2]


class CpuClock:
    """CPU seconds of this process and everything it starts (workers, sandboxes, kernels).

    On a shared machine wall time says as much about the neighbours as about the grader;
    CPU time does not.  A cgroup v1 ``cpuacct`` folder of our own counts every descendant,
    however it ends (a kernel killed inside its sandbox is never waited for by anything
    that would add it to ``RUSAGE_CHILDREN``); where we cannot make one, ``read`` is None.
    """

    def __init__(self):
        self.folder = None
        root = Path("/sys/fs/cgroup/cpuacct")
        try:
            folder = root / f"nbcourse-bench-{os.getpid()}"
            folder.mkdir()
            (folder / "cgroup.procs").write_text(str(os.getpid()))
            self.folder, self.root = folder, root
        except OSError:
            pass

    def read(self) -> float | None:
        if self.folder is None:
            return None
        return int((self.folder / "cpuacct.usage").read_text()) / 1e9

    def close(self) -> None:
        if self.folder is not None:
            (self.root / "cgroup.procs").write_text(str(os.getpid()))
            for _ in range(50):
                try:
                    self.folder.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)


CLOCK: CpuClock | None = None


def run(jobs: int, sandbox: str, limit: int | None = None) -> dict:
    from nbcourse.grading.batch import grade_batch

    with tempfile.TemporaryDirectory() as tmp:
        submissions, out = Path(tmp, "submitted"), Path(tmp, "out")
        submissions.mkdir()
        n = make_batch(submissions, limit)
        load = os.getloadavg()[0]
        cpu = CLOCK.read() if CLOCK else None
        started = time.perf_counter()
        batch = grade_batch("01_weather", [submissions], out, jobs=jobs, timeout=30,
                            sandbox=sandbox, progress=None)
        seconds = time.perf_counter() - started
        cpu = CLOCK.read() - cpu if cpu is not None else None
    statuses = Counter(r.status for r in batch.results)
    return {"jobs": jobs, "sandbox": sandbox, "submissions": n, "seconds": round(seconds, 2),
            "seconds_per_submission": round(seconds / n, 3), "statuses": dict(statuses),
            "cpu_per_submission": round(cpu / n, 3) if cpu is not None else None,
            "load": round(load, 2), "scores": sorted(r.total for r in batch.results)}


def markdown(results: dict) -> str:
    """The grading section of benchmarks/results.md."""
    best = {}
    for r in results["runs"]:
        key = (r["jobs"], r["sandbox"])
        best[key] = min(best.get(key, 1e9), r["seconds_per_submission"])
    lines = [BEGIN, "## Grading (benchmarks/bench_grading.py)", "",
             f"Written by `python benchmarks/bench_grading.py --write-results` on "
             f"{results['date']}; {results['machine']}; load average at the start "
             f"{results['load']}.", "",
             "40 submissions of exercise 1 (16 correct, 12 wrong, 12 broken), graded by "
             "`nbcourse grade`; sandboxed and unsandboxed runs alternate in the same process.",
             "", "| --jobs | sandbox | s / submission (best) | all runs (load average at "
             "their start) | CPU s / submission, all processes |", "|---|---|---|---|---|"]
    for (jobs, sandbox), value in sorted(best.items()):
        mine = [r for r in results["runs"] if (r["jobs"], r["sandbox"]) == (jobs, sandbox)]
        runs = ", ".join(f"{r['seconds_per_submission']:.2f} ({r.get('load', '?')})"
                         for r in mine)
        cpu = ", ".join(f"{r['cpu_per_submission']:.2f}" for r in mine
                        if r.get("cpu_per_submission") is not None) or "not measured"
        lines.append(f"| {jobs} | {sandbox} | {value:.2f} | {runs} | {cpu} |")
    lines += ["", "A kernel server (Python started, ipykernel, numpy, pandas and nbcourse "
              f"imported) is ready {results['kernel_ready_seconds']:.2f} s after it is started "
              f"without a sandbox, {results['sandbox_ready_seconds']:.2f} s in a bubblewrap "
              "sandbox; both modes use the same launcher. Each grading worker starts one and "
              "keeps it while submissions end cleanly: each submission's kernel is a fork of "
              "it, so those imports are paid once per worker, not once per submission.", ""]
    sandboxed, unconfined = best.get((2, "bwrap")), best.get((2, "off"))
    cpu = {}
    for mode in ("bwrap", "off"):
        values = sorted(r["cpu_per_submission"] for r in results["runs"]
                        if (r["jobs"], r["sandbox"]) == (2, mode)
                        and r.get("cpu_per_submission") is not None)
        if values:
            cpu[mode] = values[len(values) // 2]
    cpus = os.cpu_count() or 1
    if sandboxed and unconfined:
        ratio = sandboxed / unconfined
        lines += [f"**What the sandbox costs:** {ratio:.2f}x the unconfined wall time with "
                  f"`--jobs 2` (+{sandboxed - unconfined:.2f} s per submission in this run)"
                  + (f"; in CPU time (every process of the batch, median of the runs) "
                     f"{cpu['bwrap']:.2f} s against {cpu['off']:.2f} s per submission"
                     if len(cpu) == 2 else "")
                  + ".", ""]
    if "bwrap" in cpu:
        lines += [f"Target: at most {TARGET_SECONDS} s per submission sandboxed with `--jobs 2` "
                  f"on a quiet "
                  f"2-core machine. A batch cannot take less than its CPU time divided by the "
                  f"{cpus} CPUs: {cpu['bwrap'] / cpus:.2f} s per submission for "
                  f"this run's {cpu['bwrap']:.2f} s of CPU (the target needs at most "
                  f"{TARGET_SECONDS * min(cpus, 2):.2f} s of CPU per submission with two jobs). "
                  + (f"Load average {results['load']} on {cpus} CPUs: not a quiet machine, so "
                     "the wall times above say as much about the other processes as about "
                     "the grader." if os.getloadavg()[0] > 0.5 * cpus else
                     "This run was on a quiet machine."), ""]
    same = all(r["scores"] == results["runs"][0]["scores"] for r in results["runs"])
    lines.append("Every run gave the same scores." if same else
                 "WARNING: the runs did not all give the same scores.")
    lines.append(END)
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="parallel kernels (default 2)")
    parser.add_argument("--repeats", type=int, default=2,
                        help="runs of each configuration, alternating (default 2)")
    parser.add_argument("--serial", action="store_true", help="also time --jobs 1")
    parser.add_argument("--submissions", type=int, default=None,
                        help="grade only the first N of the 40 submissions")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    parser.add_argument("--write-results", action="store_true",
                        help="write the grading section of benchmarks/results.md")
    args = parser.parse_args(argv)
    use_default_data()

    global CLOCK
    CLOCK = CpuClock()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    results = {"machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python "
                          f"{platform.python_version()}",
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load": load,
               "kernel_ready_seconds": round(server_ready_seconds("off"), 3),
               "sandbox_ready_seconds": round(server_ready_seconds("bwrap"), 3),
               "runs": []}
    for _ in range(args.repeats):
        for sandbox in ("bwrap", "off"):
            results["runs"].append(run(args.jobs, sandbox, args.submissions))
            if args.serial:
                results["runs"].append(run(1, sandbox, args.submissions))
    print(f"machine: {results['machine']}; load average {load}")
    print("a kernel server has imported ipykernel, pandas and nbcourse after "
          f"{results['kernel_ready_seconds']:.2f} s without a sandbox, "
          f"{results['sandbox_ready_seconds']:.2f} s in a sandbox")
    CLOCK.close()
    for r in results["runs"]:
        cpu = (f", CPU {r['cpu_per_submission']:.2f} s per submission"
               if r["cpu_per_submission"] is not None else "")
        print(f"--jobs {r['jobs']} --sandbox {r['sandbox']}: {r['submissions']} submissions in "
              f"{r['seconds']:.1f} s = {r['seconds_per_submission']:.2f} s per submission"
              f"{cpu} (load {r['load']})  {r['statuses']}")
    print("reference: nbgrader ~1.7 s/submission (serial), otter-grader 3.5-4.3 s; "
          f"target <= {TARGET_SECONDS} s sandboxed with --jobs 2")
    keep_results(args, results, lambda: markdown(results), BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
