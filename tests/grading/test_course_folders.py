"""The folders a sandbox shows of the course are found by the library's own rules
(``grading.course_folders``), so the grader and the loaders never disagree about where
the corpora are (issue 36, item 3)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from course_paths import REPO
from nbcourse import datasets
from nbcourse.grading.course_folders import course_folders


def test_the_data_folder_is_found_as_the_loaders_find_it(tmp_path, monkeypatch):
    """``~`` in ``NBCOURSE_DATA`` is the home folder for the loaders, so for the sandbox."""
    (tmp_path / "corpora").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("NBCOURSE_DATA", "~/corpora")
    monkeypatch.setenv("NBCOURSE_CACHE", str(tmp_path / "no-cache-yet"))
    folders = course_folders()
    expected = str((tmp_path / "corpora").resolve())
    assert datasets.shared_data_dir().resolve() == Path(expected)
    assert folders.env["NBCOURSE_DATA"] == expected and expected in folders.data
    assert "NBCOURSE_CACHE" not in folders.env  # not there: nothing to show
    assert Path(folders.package) == REPO / "nbcourse"


def test_a_data_folder_that_is_not_there_stops_grading_with_the_loaders_message(tmp_path):
    """It used to be dropped without a word, and every submission that reads a corpus
    then lost its points in the sandbox."""
    with pytest.raises(FileNotFoundError, match="not a folder"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("NBCOURSE_DATA", str(tmp_path / "missing"))
            course_folders()
    run = subprocess.run(
        [sys.executable, "-m", "nbcourse.cli", "grade", "01_weather",
         str(REPO / "tests" / "fixtures" / "submissions" / "correct.ipynb"),
         str(REPO / "exercises" / "01_weather.ipynb"), "--out", str(tmp_path / "out")],
        capture_output=True, text=True, cwd=REPO, timeout=300,
        env={**os.environ, "NBCOURSE_DATA": str(tmp_path / "missing")})
    assert run.returncode == 2, run.stderr
    assert "NBCOURSE_DATA is set to" in run.stderr and "Traceback" not in run.stderr


def test_what_only_an_instructor_reads_is_masked_or_stated(tmp_path):
    """A wheel's package holds no exercise source (nothing to mask); one that does has the
    sources' folder masked; the one instructor-only file left visible is stated with why
    (the review found ``exercises/README.md`` skipped without a word, under a docstring
    that said every wheel carries the sources)."""
    from nbcourse.grading import course_folders as module
    from nbcourse.resources import INSTRUCTOR_ONLY, collect

    wheel_like = tmp_path / "wheel" / "_course"
    for relative in collect(REPO, instructor=False):
        (wheel_like / relative).parent.mkdir(parents=True, exist_ok=True)
        (wheel_like / relative).touch()
    assert module._instructor_only(tmp_path / "wheel") == []
    course = tmp_path / "by-hand" / "_course"
    (course / "exercises" / "source").mkdir(parents=True)
    (course / "exercises" / "README.md").write_text("instructors\n", encoding="utf-8")
    assert module._instructor_only(tmp_path / "by-hand") == [str(course / "exercises" / "source")]
    files = {entry for entry in INSTRUCTOR_ONLY if not entry.endswith("/")}
    assert set(module.UNMASKED) == files and all(module.UNMASKED.values())
