"""The installable course: what the wheel carries, `nbcourse init`, finding the course
folder, the version, and the licences every received file comes with.

The full install-and-use check (a fresh venv, the wheel, lesson 01 run with nbclient,
release and grading, all far from the checkout) takes a minute and runs in CI as
``.ci/check_wheel.py``. Here the wheel is built once (from a clean copy of the checkout, via
its sdist, as ``python -m build`` does) and its contents are compared with the checkout.
"""
from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from course_paths import REPO
from nbcourse import resources
from nbcourse.cli import main

SOLUTION_MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "HIDDEN TESTS")

# Left out of the copy the wheel is built from: environments, build outputs, caches, and
# the website (book/, whose lessons/ link back to notebooks/ and which no package carries).
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
    "test-artifacts", "_build", ".hypothesis", "node_modules", ".ipynb_checkpoints", "book")

_BUILD = r"""
import sys, tarfile
from pathlib import Path
from setuptools import build_meta
out = Path(sys.argv[1])
sdist = out / build_meta.build_sdist(str(out))
with tarfile.open(sdist) as archive:  # (Pythons before 3.11.4 have no filter argument)
    archive.extractall(out / "unpacked",
                       **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
(tree,) = (out / "unpacked").iterdir()
import os
os.chdir(tree)
wheel = out / build_meta.build_wheel(str(out))
print(f"SDIST={sdist}")
print(f"WHEEL={wheel}")
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(sdist, wheel) built from a copy of the checkout, sdist first, like `python -m build`."""
    base = tmp_path_factory.mktemp("build")
    source = base / "source"
    shutil.copytree(REPO, source, ignore=_NOT_SOURCE)
    out = base / "dist"
    out.mkdir()
    done = subprocess.run([sys.executable, "-c", _BUILD, str(out)], cwd=source,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = dict(line.split("=", 1) for line in done.stdout.splitlines()
                 if line.startswith(("SDIST=", "WHEEL=")))
    return Path(found["SDIST"]), Path(found["WHEEL"])


def test_the_wheel_carries_exactly_the_checkouts_course_files(built):
    _, wheel = built
    expected = resources.collect(REPO, instructor=False)
    prefix = f"nbcourse/{resources.PACKAGE_FOLDER}/"
    with zipfile.ZipFile(wheel) as archive:
        shipped = {n[len(prefix):]: n for n in archive.namelist() if n.startswith(prefix)}
        assert sorted(shipped) == sorted(expected)
        different = [r for r, path in expected.items()
                     if archive.read(shipped[r]) != path.read_bytes()]
    assert not different, f"the wheel's copy differs from the checkout: {different}"
    # every lesson, every student exercise and its checks, all the data
    for pattern in ("notebooks/[0-9]*.ipynb", "exercises/[0-9]*.ipynb",
                    "exercises/[0-9]*.checks.json", "data/**/[!.]*"):
        files = [p for p in REPO.glob(pattern) if p.is_file()]
        assert files, pattern
        for path in files:
            assert path.relative_to(REPO).as_posix() in shipped, path
    assert {"data/sms_spam/SMSSpamCollection", "data/spambase/spambase.data"} <= set(shipped)


def test_the_wheel_students_install_holds_no_instructor_material(built):
    """Issue 34: no spec, no solution, no hidden test, no exercise source in the wheel."""
    _, wheel = built
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        texts = {n: archive.read(n).decode("utf-8", "replace") for n in names}
    assert not [n for n in names if n.endswith(resources.SPEC_SUFFIX)]
    assert not [n for n in names if "exercises/source/" in n]
    # (the release code itself names the markers it strips: the course files must not)
    course = {n: text for n, text in texts.items()
              if n.startswith(f"nbcourse/{resources.PACKAGE_FOLDER}/")}
    assert course
    for marker in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS"):
        assert not [n for n, text in course.items() if marker in text], marker
    # the form-only answers of the reference solutions are not written anywhere either
    for answer in ('map_edge = 0.0', 'why_not_mergeable = "b"', 'why_complement_helps = "a"'):
        assert not [n for n, text in texts.items() if answer in text], answer


def _installed_from(wheel: Path, folder: Path, monkeypatch) -> None:
    """Make this process's nbcourse read its course files from ``wheel`` as an installed
    package does (no checkout next to it)."""
    prefix = f"nbcourse/{resources.PACKAGE_FOLDER}/"
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.startswith(prefix) and not name.endswith("/"):
                target = folder / name[len(prefix):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(name))
    monkeypatch.setattr(resources, "course_root", lambda: folder)
    monkeypatch.setattr(resources, "_checkout_root", lambda: None)


def test_an_instructor_copy_from_the_wheel_needs_the_sources(built, tmp_path, monkeypatch,
                                                              capsys):
    sdist, wheel = built
    _installed_from(wheel, tmp_path / "installed", monkeypatch)
    assert main(["init", str(tmp_path / "refused"), "--instructor"]) == 2
    said = capsys.readouterr().err
    assert "holds no exercise sources" in said and "--source" in said
    assert not (tmp_path / "refused").exists()
    assert main(["init", str(tmp_path / "student")]) == 0  # students are not affected
    assert not (tmp_path / "student" / "exercises" / "source").exists()
    expected = sorted(p.name for p in (REPO / "exercises" / "source").iterdir()
                      if p.name.endswith((".ipynb", resources.SPEC_SUFFIX)))
    for source in (sdist, REPO, REPO / "exercises" / "source"):  # archive, checkout, folder
        target = tmp_path / f"course-{len(list(tmp_path.iterdir()))}"
        assert main(["init", str(target), "--instructor", "--source", str(source)]) == 0
        got = sorted(p.name for p in (target / "exercises" / "source").iterdir())
        assert got == expected, source
        for name in got:
            assert (target / "exercises" / "source" / name).read_bytes() == \
                (REPO / "exercises" / "source" / name).read_bytes()
    assert main(["init", str(tmp_path / "nothing"), "--instructor", "--source",
                 str(tmp_path / "student")]) == 2
    assert "holds no exercise sources" in capsys.readouterr().err


def test_an_instructor_archive_unpacks_on_a_python_without_extraction_filters(
        built, tmp_path, monkeypatch):
    """Pythons before 3.10.12 and 3.11.4 (Debian 12 ships 3.11.2) have no ``filter``
    argument: the sdist still unpacks there, and an archive with a way out is refused."""
    import io
    sdist, _ = built
    unfiltered = tarfile.TarFile.extractall
    as_before = {"filter": "fully_trusted"} if hasattr(tarfile, "data_filter") else {}

    def extractall_of_an_old_python(self, path=".", members=None, *, numeric_owner=False,
                                    **rest):
        if rest:
            raise TypeError(f"extractall() got an unexpected keyword {next(iter(rest))!r}")
        return unfiltered(self, path, members, numeric_owner=numeric_owner, **as_before)

    monkeypatch.delattr(tarfile, "data_filter", raising=False)  # (absent on such a Python)
    monkeypatch.setattr(tarfile.TarFile, "extractall", extractall_of_an_old_python)
    files = resources.instructor_files(sdist)
    assert "exercises/source/01_weather.grading.py" in files
    for name, kind in (("course/../../escaped", tarfile.REGTYPE),
                       ("/etc/escaped", tarfile.REGTYPE), ("course/link", tarfile.SYMTYPE)):
        bad = tmp_path / f"bad-{len(list(tmp_path.iterdir()))}.tar.gz"
        with tarfile.open(bad, "w:gz") as archive:
            member = tarfile.TarInfo(name)
            member.type, member.linkname = kind, "/etc/passwd" if kind == tarfile.SYMTYPE else ""
            archive.addfile(member, io.BytesIO(b""))
        with pytest.raises(ValueError, match="unsafe member"):
            resources.instructor_files(bad)
    assert not (tmp_path.parent / "escaped").exists()


def test_the_wheel_has_no_data_files_and_no_maintainer_tools(built):
    _, wheel = built
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert not [n for n in names if ".data/" in n.split("/", 1)[0] + "/"], \
        "no setuptools data-files (share/...): the data is package data"
    for tool in ("refresh.py", "sanitize.cfg", "conftest.py", "check_wheel.py"):
        assert not [n for n in names if n.endswith("/" + tool) or n == tool], tool
    assert not [n for n in names if n.startswith(("tests/", "book/", "benchmarks/", "tools/"))]


def test_the_wheel_and_the_sdist_carry_the_licences(built):
    sdist, wheel = built
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    licences = {n.split(".dist-info/licenses/", 1)[1] for n in names if ".dist-info/licenses/" in n}
    assert licences == {"LICENSE", "LICENSE-content.md", "data/README.md"}
    assert "License-Expression: MIT" in metadata
    with tarfile.open(sdist) as archive:
        members = {m.split("/", 1)[1] for m in archive.getnames() if "/" in m}
    for required in ("LICENSE", "LICENSE-content.md", "CHANGELOG.md", "CITATION.cff",
                     "setup.py", "data/README.md", "notebooks/01_weather_by_counting.ipynb",
                     "exercises/source/01_weather.grading.py"):
        assert required in members, required


# -- nbcourse init ----------------------------------------------------------------------------

def _text_files(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in folder.rglob("*") if p.is_file()}


def test_init_gives_a_student_the_course_without_solutions(tmp_path, capsys):
    target = tmp_path / "my-course"
    assert main(["init", str(target)]) == 0
    out = capsys.readouterr().out
    assert f"files written to {target}" in out and "jupyter lab" in out
    files = _text_files(target)
    expected = {r for r in resources.collect(REPO) if not resources.is_instructor_only(r)}
    assert set(files) == expected | {"README.md"}
    assert not (target / "exercises" / "source").exists()
    for name, text in files.items():
        assert not any(marker in text for marker in SOLUTION_MARKERS), name
    for relative in expected:
        assert (target / relative).read_bytes() == (REPO / relative).read_bytes(), relative
    assert "CC BY 4.0" in files["README.md"] and "MIT" in files["README.md"]


def test_init_refuses_a_folder_that_is_not_empty_unless_forced(tmp_path, capsys):
    target = tmp_path / "course"
    target.mkdir()
    (target / "my-notes.txt").write_text("mine")
    assert main(["init", str(target)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert [p.name for p in target.iterdir()] == ["my-notes.txt"]

    lesson = target / "notebooks" / "01_weather_by_counting.ipynb"
    assert main(["init", str(target), "--force"]) == 0
    lesson.write_text("changed by the student")
    assert main(["init", str(target), "--force"]) == 0
    assert lesson.read_bytes() == (REPO / "notebooks" / lesson.name).read_bytes()
    assert (target / "my-notes.txt").read_text() == "mine"

    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    assert main(["init", str(a_file), "--force"]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_an_instructor_copy_is_found_from_inside_it(tmp_path, monkeypatch, capsys):
    target = tmp_path / "course"
    assert main(["init", str(target), "--instructor"]) == 0
    assert sorted(p.name for p in (target / "exercises" / "source").glob("*.grading.py")) == \
        sorted(p.name for p in (REPO / "exercises" / "source").glob("*.grading.py"))
    capsys.readouterr()
    monkeypatch.delenv("NBCOURSE_EXERCISES", raising=False)
    monkeypatch.chdir(target / "notebooks")  # anywhere inside the course folder
    assert main(["list"]) == 0
    assert "01_weather: Exercise 1" in capsys.readouterr().out
    assert main(["release", "--check"]) == 0
    assert f"in {target / 'exercises'} are up to date" in capsys.readouterr().out


@pytest.mark.parametrize("command", [
    ["list"], ["release", "--check"], ["release"],
    ["grade", "1", "submitted", "--out", "grades"],
])
def test_outside_a_course_folder_the_commands_say_where_they_looked(
        command, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("NBCOURSE_EXERCISES", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "submitted").mkdir()
    assert main(command) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no course folder found" in captured.err and "\\x0a" not in captured.err
    assert str(tmp_path) in captured.err and str(tmp_path / "exercises" / "source") in captured.err
    assert "nbcourse init --instructor" in captured.err
    assert list(tmp_path.iterdir()) == [tmp_path / "submitted"]  # nothing written


def test_a_source_without_specs_is_an_error_not_an_empty_list(tmp_path, capsys):
    assert main(["list", "--source", str(tmp_path)]) == 2
    assert "holds no grading specs" in capsys.readouterr().err


# -- version, changelog, citation, licences ---------------------------------------------------

def test_version_comes_from_the_package_metadata():
    import nbcourse

    installed = importlib.metadata.version("nbcourse")
    assert nbcourse.__version__ == installed
    shown = subprocess.run([sys.executable, "-m", "nbcourse.cli", "--version"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert shown == f"nbcourse {installed}"
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(installed)}\b", changelog, re.M), \
        "CHANGELOG.md has no section for the current version"
    assert re.search(rf"^version: {re.escape(installed)}$",
                     (REPO / "CITATION.cff").read_text(encoding="utf-8"), re.M)


def test_citation_file_is_valid_yaml_with_the_required_keys():
    import yaml

    citation = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    for key in ("cff-version", "message", "title", "authors"):
        assert citation[key], key
    assert set(citation["license"]) == {"MIT", "CC-BY-4.0"}


def test_code_and_content_each_have_a_licence():
    code = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert code.startswith("MIT License") and "Permission is hereby granted" in code
    content = (REPO / "LICENSE-content.md").read_text(encoding="utf-8")
    assert "Creative Commons Attribution 4.0" in content
    assert "https://creativecommons.org/licenses/by/4.0/legalcode" in content
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "LICENSE-content.md" in readme and "CC BY 4.0" in readme


def test_the_readme_credits_the_five_source_lectures():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    credits = readme[readme.index("## Credits"):]
    for lecture in ("Shindler", "CSCI 567", "Boots", "CSE 446", "Shakhnarovich", "CS195-5",
                    "Zhu", "CSE 6363", "CPSC 340"):
        assert lecture in credits, lecture


def test_every_shipped_data_file_is_described_with_a_licence():
    notes = (REPO / "data" / "README.md").read_text(encoding="utf-8")
    shipped = [p for p in (REPO / "data").rglob("*") if p.is_file() and p.name != "README.md"
               and not p.name.startswith(".")]
    assert shipped
    for path in shipped:
        assert path.name in notes, f"data/README.md does not describe {path.name}"
    assert "Licence" in notes


def test_the_shipped_tables_are_read_through_the_package_resources():
    from nbcourse import datasets

    assert datasets.shipped_data_dir() == resources.data_dir()
    assert (resources.data_dir() / "weather.csv").read_bytes() == \
        (REPO / "data" / "weather.csv").read_bytes()
    assert len(datasets.load_weather()) == 14
