"""The grading benchmarks run end to end on a tiny input, so that they cannot rot.

Each script is run as a user runs it, on one exercise and two submissions; what is
checked is that it finishes and that what it measured makes sense (every submission got
a row, the solution full marks, a floor and an overhead in the table).  No time is
asserted: the scripts measure speed, the tests only that they still can.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from course_paths import REPO

BENCHMARKS = REPO / "benchmarks"


def _run(script: str, *args: str) -> str:
    completed = subprocess.run([sys.executable, str(BENCHMARKS / script), *args],
                               capture_output=True, text=True, timeout=600, cwd=REPO)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed.stdout


def test_bench_exercises_grades_a_class_and_runs_its_floor(tmp_path):
    before = (BENCHMARKS / "results.md").read_text(encoding="utf-8")
    out = tmp_path / "numbers.json"
    printed = _run("bench_exercises.py", "--exercises", "01_weather", "--per-exercise", "2",
                   "--repeats", "1", "--copies", "3", "--json", str(out))
    results = json.loads(out.read_text())
    [row] = results["rows"]
    assert row["exercise"] == "01_weather" and row["submissions"] == 2
    # the class is the solution and the solution with an answer deleted, in both batches
    scores = row["graded"]["scores"]
    assert set(scores) == {"solution", "answer-deleted"}
    # the larger batch holds the class three times (--copies 3)
    assert set(row["graded_larger"]["scores"]) == {f"{stem}-{copy}" for copy in "abc"
                                                   for stem in ("solution", "answer-deleted")}
    assert scores["solution"] > scores["answer-deleted"]
    # the floor ran every notebook of the larger batch, outside the grader
    assert set(row["floor"]["each"]) == set(row["graded_larger"]["scores"])
    assert "| 01_weather | 2 x 3 |" in printed and "overhead per submission" in printed
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_exercises
        section = bench_exercises.section(results)
    finally:
        sys.path.remove(str(BENCHMARKS))
    assert section.startswith(bench_exercises.BEGIN) and section.endswith(bench_exercises.END)
    assert "| 01_weather | 2 x 3 |" in section
    # without --write-results the committed results are left alone
    assert (BENCHMARKS / "results.md").read_text(encoding="utf-8") == before


def test_bench_cluster_grades_on_dask_and_locally(tmp_path):
    out = tmp_path / "runs.json"
    printed = _run("bench_cluster.py", "--workers", "1", "--submissions", "2",
                   "--json", str(out))
    runs = json.loads(out.read_text())["runs"]
    assert [(r["workers"], r["dask"], r["submissions"]) for r in runs] == [(1, False, 2),
                                                                         (1, True, 2)]
    assert runs[0]["scores"] == runs[1]["scores"]
    assert "| 1 |" in printed and "Every run gave the same scores." in printed


def test_bench_grading_times_a_batch_sandboxed_and_not(tmp_path):
    out = tmp_path / "grading.json"
    _run("bench_grading.py", "--repeats", "1", "--submissions", "2", "--json", str(out))
    runs = json.loads(out.read_text())["runs"]
    assert sorted(r["sandbox"] for r in runs) == ["bwrap", "off"]
    assert all(r["submissions"] == 2 and sum(r["statuses"].values()) == 2 for r in runs)
