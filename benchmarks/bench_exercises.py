"""What grading costs on each exercise: graded time against the floor of the same notebooks.

For each exercise a small class is made the way the grader's tests make one: the
instructor's solution without its hidden tests (correct), the released student notebook
handed in untouched (every answer raises NotImplementedError), the solution with one
known mistake per question (the spec's first mistake of each question, pasted in as the
tests do), and the solution with its first answer deleted.  ``--per-exercise`` keeps the
first N of that list (default 8).

Each class is graded by ``nbcourse grade``'s own function with ``--jobs`` (default 2) and
``--sandbox`` (default bwrap), and then run without any grading: ``--jobs`` plain kernels
(ipykernel, no sandbox), started and warmed up beforehand (the grader's kernel server's
imports, then the class's first notebook once), each running its share of the notebooks
one after the other, every code cell even after an error as the grader does, the
namespace reset between notebooks.  That is the **floor**: the notebooks' own compute
in an already started kernel.  The grader's overhead = graded - floor, per submission, in
wall time and in CPU time of every process (a cgroup v1 ``cpuacct`` folder, as
bench_grading).  One kernel server's start (measured in the same run) is printed apart;
the overhead with it taken out is what grading a large class tends to.

    python benchmarks/bench_exercises.py [--exercises 01_weather ...] [--per-exercise 8]
                                         [--jobs 2] [--sandbox bwrap] [--repeats 2] [--json FILE]
                                         [--write-results]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import string
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_grading import CpuClock, sandbox_config  # noqa: E402  (the same clock)
from shared import keep_results, use_default_data  # noqa: E402

from nbcourse.grading.execution import kernel_server  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
# the submissions the grading tests build, built the same way here
from submission_support import making_mistake, solved, with_cell  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "exercises" / "source"
RELEASED = REPO / "exercises"
BEGIN, END = "<!-- bench_exercises: begin -->", "<!-- bench_exercises: end -->"
#: what the grader's kernel server imports before a submission (launcher.LAUNCHER)
PRELOADED = "import " + ", ".join(kernel_server.PRELOADED)


# ----------------------------------------------------------------------------- the class

def make_class(name: str, folder: Path, limit: int) -> dict[str, str]:
    """Write the class into ``folder``; {file stem: kind of submission}."""
    from nbcourse.grading import specs

    exercise = specs.load(name, SOURCE)
    made = {"solution": ("correct", solved(name, SOURCE)),
            "untouched": ("released, untouched",
                          json.loads((RELEASED / f"{name}.ipynb").read_text(encoding="utf-8")))}
    for question in exercise.questions:
        if question.mistakes:
            made[f"mistake-{question.id}"] = ("a known mistake",
                                              making_mistake(name, question, 0, SOURCE))
    first = exercise.questions[0].name
    deleted = with_cell(solved(name, SOURCE), "answer-deleted", f"del {first}\n")
    items = list(made.items())[: max(limit - 1, 1)] + [("answer-deleted",
                                                        ("answer deleted", deleted))]
    kinds = {}
    for stem, (kind, notebook) in items[:limit]:
        (folder / f"{stem}.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
        kinds[stem] = kind
    return kinds


# ----------------------------------------------------------------------------- graded
def server_start(sandbox: str) -> dict:
    """Wall and CPU seconds of starting one kernel server (what each grading worker pays)."""
    from nbcourse.grading.execution.launcher import KernelServer
    from nbcourse.grading.execution.sandbox import release

    config = sandbox_config(sandbox)
    base = Path(tempfile.mkdtemp())
    os.chmod(base, 0o711)
    try:
        cpu, started = CLOCK.read(), time.perf_counter()
        server = KernelServer(config, base)
        ready = server.wait_ready()
        wall, cpu = time.perf_counter() - started, _since(cpu)
        server.kill()
        if not ready:
            raise RuntimeError("the kernel server did not start")
    finally:
        release(config)
        shutil.rmtree(base, ignore_errors=True)
    return {"wall": wall, "cpu": cpu}


def graded(name: str, folder: Path, jobs: int, sandbox: str) -> dict:
    from nbcourse.grading.batch import grade_batch

    with tempfile.TemporaryDirectory() as out:
        cpu, started = CLOCK.read(), time.perf_counter()
        batch = grade_batch(name, [folder], Path(out), jobs=jobs, timeout=60,
                            sandbox=sandbox, progress=None)
        wall, cpu = time.perf_counter() - started, _since(cpu)
    return {"wall": wall, "cpu": cpu,
            "statuses": dict(Counter(str(r.status) for r in batch.results)),
            "scores": {r.submission: r.total for r in batch.results}}


# ----------------------------------------------------------------------------- the floor
def floor_worker() -> int:
    """Child process: one plain kernel, warmed up, runs the notebooks it is given on "go"."""
    from jupyter_client.manager import start_new_kernel

    job = json.loads(sys.stdin.readline())
    manager, client = start_new_kernel(kernel_name="python3", cwd=job["cwd"])
    try:
        run_cells(client, [PRELOADED])
        run_notebook(client, Path(job["warm"]))
        print("ready", flush=True)
        sys.stdin.readline()
        times = {}
        for path in map(Path, job["notebooks"]):
            started = time.perf_counter()
            run_notebook(client, path)
            times[path.stem] = time.perf_counter() - started
        print(json.dumps(times), flush=True)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return 0


def run_notebook(client, path: Path) -> None:
    """Every code cell of ``path`` in a reset namespace, going on after errors."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    run_cells(client, ["get_ipython().run_line_magic('reset', '-f')"])
    run_cells(client, [c for c in cells if c.strip()])


def run_cells(client, sources: list[str]) -> None:
    for source in sources:
        client.execute_interactive(source, timeout=120, output_hook=lambda message: None,
                                   allow_stdin=False)


def floor(folder: Path, stems: list[str], jobs: int) -> dict:
    """The class run by ``jobs`` warmed-up plain kernels, round robin; wall and CPU."""
    shares = [stems[i::jobs] for i in range(jobs) if stems[i::jobs]]
    children = []
    for share in shares:
        child = subprocess.Popen([sys.executable, __file__, "--floor-worker"], text=True,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        child.stdin.write(json.dumps({"cwd": str(folder), "warm": str(folder / f"{stems[0]}.ipynb"),
                                      "notebooks": [str(folder / f"{s}.ipynb") for s in share]})
                          + "\n")
        child.stdin.flush()
        children.append(child)
    for child in children:
        if child.stdout.readline().strip() != "ready":
            raise RuntimeError("a floor kernel did not start")
    cpu, started = CLOCK.read(), time.perf_counter()
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    times = {}
    for child in children:
        times.update(json.loads(child.stdout.readline()))
    wall, cpu = time.perf_counter() - started, _since(cpu)
    for child in children:
        child.stdin.close()
        child.wait(timeout=60)
    return {"wall": wall, "cpu": cpu, "each": times}


def _since(cpu: float | None) -> float | None:
    return CLOCK.read() - cpu if cpu is not None else None


CLOCK: CpuClock | None = None


# ----------------------------------------------------------------------------- the run
def one_exercise(name: str, limit: int, jobs: int, sandbox: str, repeats: int,
                 copies: int = 2) -> dict:
    """The class graded once, the class ``copies`` times over graded, and the floor of the
    latter, ``repeats`` times in turn; the best (least) time of each is kept.

    Two batch sizes separate what a batch pays once (starting grading workers and their
    kernel servers, the sandbox's self-test, the gradebook) from what each submission adds;
    more copies make that difference larger against the runs' noise."""
    with tempfile.TemporaryDirectory() as tmp:
        once, larger = Path(tmp, "once"), Path(tmp, "larger")
        once.mkdir()
        larger.mkdir()
        os.chmod(tmp, 0o755)
        kinds = make_class(name, once, limit)
        for stem in kinds:
            for copy in string.ascii_lowercase[:copies]:
                shutil.copyfile(once / f"{stem}.ipynb", larger / f"{stem}-{copy}.ipynb")
        load = os.getloadavg()[0]
        runs = {"graded": [], "graded_larger": [], "floor": []}
        for _ in range(repeats):
            runs["graded"].append(graded(name, once, jobs, sandbox))
            runs["graded_larger"].append(graded(name, larger, jobs, sandbox))
            runs["floor"].append(floor(larger, sorted(p.stem for p in larger.glob("*.ipynb")),
                                       jobs))
    row = {"exercise": name, "submissions": len(kinds), "copies": copies, "kinds": dict(Counter(kinds.values())),
           "load": load, "load_after": os.getloadavg()[0], "runs": runs}
    row.update({key: _best(values) for key, values in runs.items()})
    row["same_scores"] = all(r["scores"] == runs[key][0]["scores"]
                             for key in ("graded", "graded_larger") for r in runs[key])
    return row


def _best(runs: list[dict]) -> dict:
    """The least wall and least CPU time of ``runs`` (what the neighbours disturbed least)."""
    best = dict(runs[0], wall=min(r["wall"] for r in runs))
    cpus = [r["cpu"] for r in runs]
    best["cpu"] = min(cpus) if None not in cpus else None
    return best


def warm_up(name: str, sandbox: str) -> None:
    """One submission graded untimed: the first batch of a process also imports the
    gradebook's and the class report's modules (matplotlib, jsonschema), which an
    instructor's ``nbcourse grade`` pays once and no later exercise here would."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp, "warm")
        folder.mkdir()
        os.chmod(tmp, 0o755)
        make_class(name, folder, 1)
        graded(name, folder, 1, sandbox)


def per_submission(row: dict, kind: str) -> dict:
    """Seconds (``kind``: wall or cpu) per submission: the larger batch's average, what each
    submission adds to a batch, the floor, the grader's overhead on each submission
    (added - floor) and what a batch pays once."""
    n, copies = row["submissions"], row["copies"]
    small, large, plain = (row["graded"][kind], row["graded_larger"][kind], row["floor"][kind])
    if None in (small, large, plain):
        return {}
    added = (large - small) / ((copies - 1) * n)
    average, bottom = large / (copies * n), plain / (copies * n)
    return {"average": average, "floor": bottom, "above": average - bottom, "added": added,
            "overhead": added - bottom, "fixed": small - n * added}


def table(results: dict) -> list[str]:
    lines = ["| exercise | subm. | load | graded, average | floor | graded - floor "
             "| graded, each added | overhead per submission | once per batch |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in results["rows"]:
        cells = []
        for kind in ("wall", "cpu"):
            s = per_submission(row, kind)
            cells.append(s and [f"{s['average']:.2f}", f"{s['floor']:.2f}", f"{s['above']:+.2f}",
                                f"{s['added']:.2f}", f"{s['overhead']:+.2f}", f"{s['fixed']:.1f}"])
        both = [f"{w} / {c}" for w, c in zip(*cells)] if cells[1] else cells[0]
        lines.append(f"| {row['exercise']} | {row['submissions']} x {row['copies']} | "
                     f"{row['load']:.1f} | "
                     + " | ".join(both) + " |")
    return lines


def section(results: dict) -> str:
    """The bench_exercises section of benchmarks/results.md."""
    start = results["start"]
    statuses = "; ".join(f"{row['exercise']}: " + ", ".join(
        f"{count} {status}" for status, count in sorted(row["graded"]["statuses"].items()))
        for row in results["rows"])
    return "\n".join([
        BEGIN, "## Grading each exercise against its floor (benchmarks/bench_exercises.py)", "",
        f"Written by `python benchmarks/bench_exercises.py --write-results` on "
        f"{results['date']}; {results['machine']}; load average at the start "
        f"{results['load']}, at the end {results['load_end']}.", "",
        f"Per exercise, a class of at most {results['per_exercise']} submissions (the solution, "
        "the released notebook untouched, one known mistake per question, the first answer "
        f"deleted) is graded with `--jobs {results['jobs']} --sandbox {results['sandbox']}`, "
        f"then the class {results['copies']} times over (each notebook {results['copies']} "
        "times), and that larger batch is run "
        f"again in {results['jobs']} plain kernels started and warmed up beforehand, with no "
        f"grading (the floor); the three runs {results['repeats']} times in turn, the least "
        "time of each kept. Seconds per submission, wall / CPU of every process: *average* "
        "over the larger batch (what an instructor waits), *graded - floor* = the grader's "
        "cost per submission in that batch, *each added* = (larger - smaller batch) / class "
        "size, *overhead* = each added - floor, *once per batch* = what the smaller batch "
        "took beyond its submissions (grading workers, kernel servers, "
        f"self-test, gradebook; one kernel server alone starts in {start['wall']:.2f} s"
        + (f" and {start['cpu']:.2f} s of CPU" if start["cpu"] is not None else "") + ").", "",
        *table(results), "", f"What the grader made of each class: {statuses}. "
        + ("Every run of an exercise gave the same scores." if all(
            row["same_scores"] for row in results["rows"]) else
           "WARNING: the runs of an exercise did not all give the same scores."), END])


def _load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None) -> int:
    from nbcourse.grading import specs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercises", nargs="+", default=None,
                        help="exercise names (default: every exercise in exercises/source)")
    parser.add_argument("--per-exercise", type=int, default=8, help="submissions per class")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2,
                        help="runs of each batch and of the floor, in turn; the best is kept")
    parser.add_argument("--copies", type=int, default=2,
                        help="the larger batch holds the class this many times (2 to 26)")
    parser.add_argument("--sandbox", default="bwrap", choices=("bwrap", "off"))
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    parser.add_argument("--write-results", action="store_true",
                        help="replace the bench_exercises section of benchmarks/results.md")
    parser.add_argument("--floor-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.floor_worker:
        return floor_worker()
    if min(args.per_exercise, args.jobs, args.repeats) < 1:
        parser.error("--per-exercise, --jobs and --repeats must be at least 1")
    if not 2 <= args.copies <= 26:
        parser.error("--copies must be 2 to 26 (the overhead is the larger batch's excess)")
    use_default_data()
    global CLOCK
    CLOCK = CpuClock()
    try:
        results = {"machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python "
                              f"{platform.python_version()}",
                   "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load": _load(),
                   "jobs": args.jobs, "sandbox": args.sandbox,
                   "per_exercise": args.per_exercise, "repeats": args.repeats,
                   "copies": args.copies, "start": server_start(args.sandbox),
                   "rows": []}
        names = args.exercises or specs.available(SOURCE)
        warm_up(names[0], args.sandbox)
        for name in names:
            results["rows"].append(one_exercise(name, args.per_exercise, args.jobs, args.sandbox,
                                                args.repeats, args.copies))
            row = results["rows"][-1]
            print(f"{name}: graded {row['graded']['wall']:.1f} s, floor {row['floor']['wall']:.1f} s"
                  f" for {row['submissions']}; {row['graded']['statuses']}; load "
                  f"{row['load']:.1f} -> {row['load_after']:.1f}", flush=True)
        results["load_end"] = _load()
    finally:
        CLOCK.close()
    print(f"load average {results['load']} -> {results['load_end']}; one kernel server starts "
          f"in {results['start']['wall']:.2f} s\n" + "\n".join(table(results)))
    keep_results(args, results, lambda: section(results), BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
