"""benchmarks/shared.py: the one place the benchmark scripts find the corpora and write
their own section of results.md (each script used to do both by itself); the grading
benchmarks build their submissions with the tests' own builders
(tests/submission_support.py)."""
from __future__ import annotations

import ast
import importlib.util
import re

import pytest

from course_paths import REPO

BENCHMARKS = REPO / "benchmarks"


def _shared():
    spec = importlib.util.spec_from_file_location("benchmarks_shared", BENCHMARKS / "shared.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sections(text: str) -> list[tuple[str, str, str]]:
    """(begin, end, the section) for every pair of markers in results.md."""
    found = []
    for begin in re.finditer(r"<!-- ([\w-]+): (begin|start) -->", text):
        end = f"<!-- {begin[1]}: end -->"
        start = begin.start()
        found.append((begin[0], end, text[start:text.index(end, start) + len(end)]))
    return found


def test_writing_each_section_again_leaves_results_md_as_it_is(tmp_path):
    shared = _shared()
    original = (BENCHMARKS / "results.md").read_text(encoding="utf-8")
    sections = _sections(original)
    assert {begin for begin, _, _ in sections} >= {
        "<!-- bench_grading: begin -->", "<!-- bench_cluster: begin -->",
        "<!-- bench_exercises: begin -->", "<!-- site-build: begin -->",
        "<!-- bench_streaming: start -->"}
    copy = tmp_path / "results.md"
    copy.write_text(original, encoding="utf-8")
    for begin, end, section in sections:
        shared.replace_section(section + "\n", begin, end, copy)  # the scripts end with \n
    assert copy.read_text(encoding="utf-8") == original


def test_a_new_section_replaces_its_own_and_nothing_else(tmp_path):
    shared = _shared()
    path = tmp_path / "results.md"
    path.write_text("# Results\n\n<!-- a: begin -->\nold a\n<!-- a: end -->\n\n"
                    "<!-- b: begin -->\nb\n<!-- b: end -->\n", encoding="utf-8")
    shared.replace_section("<!-- a: begin -->\nnew a\n<!-- a: end -->\n",
                           "<!-- a: begin -->", "<!-- a: end -->", path)
    shared.replace_section("<!-- c: begin -->\nc\n<!-- c: end -->",
                           "<!-- c: begin -->", "<!-- c: end -->", path)
    assert path.read_text(encoding="utf-8") == (
        "# Results\n\n<!-- a: begin -->\nnew a\n<!-- a: end -->\n\n"
        "<!-- b: begin -->\nb\n<!-- b: end -->\n\n<!-- c: begin -->\nc\n<!-- c: end -->\n")


def test_the_data_folder_the_results_writer_and_the_submissions_have_one_home(monkeypatch):
    shared = _shared()
    monkeypatch.setenv("NBCOURSE_DATA", "/some/where")
    assert str(shared.default_data_dir()) == "/some/where"
    monkeypatch.delenv("NBCOURSE_DATA")
    assert shared.default_data_dir() == REPO.parent / "shared" / "data"
    for script in sorted(BENCHMARKS.glob("*.py")):
        if script.name == "shared.py":
            continue
        text = script.read_text(encoding="utf-8")
        tree = ast.parse(text)
        defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        assert not defined & {"default_data_dir", "_default_data", "load_news"}, script.name
        assert '"shared" / "data"' not in text, f"{script.name} finds the corpora by itself"
        assert ".index(END)" not in text and "split(END" not in text, \
            f"{script.name} writes its results section by itself"
        assert "args.json.write_text" not in text, f"{script.name} keeps its numbers by itself"
        assert "BEGIN HIDDEN TESTS" not in text, \
            f"{script.name} builds a solved submission by itself (tests/submission_support.py)"


def test_keep_results_writes_the_json_and_the_section_only_when_asked(tmp_path, monkeypatch):
    import json
    from types import SimpleNamespace

    shared = _shared()
    results = tmp_path / "results.md"
    results.write_text("# Results\n", encoding="utf-8")
    monkeypatch.setattr(shared, "RESULTS", results)
    asked = []

    def section():
        asked.append(1)
        return "<!-- x: begin -->\nx\n<!-- x: end -->\n"

    numbers = tmp_path / "numbers.json"
    shared.keep_results(SimpleNamespace(json=numbers, write_results=False), {"a": 1}, section,
                        "<!-- x: begin -->", "<!-- x: end -->")
    assert json.loads(numbers.read_text()) == {"a": 1} and not asked
    assert results.read_text(encoding="utf-8") == "# Results\n"
    shared.keep_results(SimpleNamespace(json=None, write_results=True), {}, section,
                        "<!-- x: begin -->", "<!-- x: end -->")
    assert results.read_text(encoding="utf-8") == \
        "# Results\n\n<!-- x: begin -->\nx\n<!-- x: end -->\n"


@pytest.mark.parametrize("script", ["bench_complement.py", "bench_predict.py", "run.py",
                                    "bench_streaming.py"])
def test_the_scripts_that_use_it_still_start(script):
    import subprocess
    import sys

    completed = subprocess.run([sys.executable, str(BENCHMARKS / script), "--help"],
                               capture_output=True, text=True, timeout=120, cwd=REPO.parent)
    assert completed.returncode == 0, completed.stderr
    assert "--data" in completed.stdout
