"""The course's own files (lessons, exercises, data, licences) and where the package keeps them.

The checkout's top-level ``notebooks/``, ``exercises/`` and ``data/`` folders are the only
place anyone edits. Building the wheel copies the files that :func:`collect` selects into
the package folder ``nbcourse/_course/`` with the same relative paths (see ``setup.py``), so
an installed course reads them with :mod:`importlib.resources`. An editable install (the
README's ``pip install -e .``) has no such copy and reads the checkout directly.

Two kinds of reader:

* students get the lessons, the student versions of the exercises, the data and the
  licences;
* instructors also get the exercise sources (solutions, hidden tests) and grading specs.

The wheel is what students install, so it carries the students' part only: the exercise
sources come from a checkout of the repository or from an instructor archive (the sdist
that ``python -m build`` writes next to the wheel), which ``nbcourse init --instructor
--source`` reads.

This module uses the standard library only: ``setup.py`` loads it by file path at build
time, before nbcourse's dependencies exist.
"""
from __future__ import annotations

import os
import shutil
from importlib import resources
try:
    from importlib.resources.abc import Traversable
except ModuleNotFoundError:  # Python 3.10: the same class, under its older name
    from importlib.abc import Traversable
from pathlib import Path, PurePosixPath

#: Folder inside the installed package that holds the copy of the course.
PACKAGE_FOLDER = "_course"

#: The two files an exercise ``NN_name`` has besides its notebook: the instructor's grading
#: spec (public and hidden cases) and the student's checks file (public cases only).
SPEC_SUFFIX = ".grading.py"
CHECKS_SUFFIX = ".checks.json"

#: What the build collects, as (folder in the checkout, file patterns, recursive?).
#: Numbered names only, so that a scratch ``Untitled.ipynb`` never ships; a new lesson
#: ``notebooks/07_*.ipynb`` or exercise ``exercises/07_*`` ships without touching this list.
COURSE_FILES = (
    ("notebooks", ("[0-9][0-9]_*.ipynb",), False),
    ("exercises", ("[0-9][0-9]_*.ipynb", f"[0-9][0-9]_*{CHECKS_SUFFIX}", "README.md"), False),
    ("exercises/source", ("[0-9][0-9]_*.ipynb", f"[0-9][0-9]_*{SPEC_SUFFIX}"), False),
    ("data", ("*",), True),
    (".", ("LICENSE", "LICENSE-content.md"), False),
)

#: Relative paths (or path prefixes ending in "/") that only ``--instructor`` copies.
INSTRUCTOR_ONLY = ("exercises/source/", "exercises/README.md")

#: What every course must contain, or the build (and ``nbcourse init``) stops.
REQUIRED = ("data/weather.csv", "data/README.md", "LICENSE", "LICENSE-content.md")


def is_instructor_only(relative: str) -> bool:
    """True for the files a student must not receive (solutions, hidden tests, specs)."""
    return any(relative == p or (p.endswith("/") and relative.startswith(p))
               for p in INSTRUCTOR_ONLY)


def _skipped(relative: PurePosixPath) -> bool:
    # hidden files and folders (.ipynb_checkpoints, .DS_Store) and Python caches
    return any(part.startswith(".") or part == "__pycache__" for part in relative.parts) \
        or relative.suffix in (".pyc", ".pyo")


def collect(root: Path, *, instructor: bool = True) -> dict[str, Path]:
    """The course files of the checkout at ``root``: relative POSIX path -> file.

    ``instructor=False`` leaves out what only instructors receive (the wheel's selection).
    Raises FileNotFoundError when a folder or a required file is missing, so a build from
    an incomplete source tree fails instead of producing a wheel without lessons.
    """
    root = Path(root)
    found: dict[str, Path] = {}
    for folder, patterns, recursive in COURSE_FILES:
        base = root / folder
        if not base.is_dir():
            raise FileNotFoundError(f"the course folder {base} is missing")
        for pattern in patterns:
            for path in (base.rglob(pattern) if recursive else base.glob(pattern)):
                relative = PurePosixPath(path.relative_to(root).as_posix())
                if path.is_file() and not _skipped(relative):
                    found[str(relative)] = path
    lessons = [r for r in found if r.startswith("notebooks/")]
    exercises = [r for r in found if r.startswith("exercises/") and r.count("/") == 1
                 and r.endswith(".ipynb")]
    missing = [r for r in REQUIRED if r not in found]
    if not lessons:
        missing.append("notebooks/NN_*.ipynb")
    if not exercises:
        missing.append("exercises/NN_*.ipynb")
    if missing:
        raise FileNotFoundError(f"incomplete course in {root}: missing {', '.join(missing)}")
    return {r: p for r, p in sorted(found.items()) if instructor or not is_instructor_only(r)}


# -- the installed copy -----------------------------------------------------------------------

def _checkout_root() -> Path | None:
    """The checkout this module was imported from (an editable install), if any."""
    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / "notebooks").is_dir():
        return root
    return None


def course_root() -> Traversable:
    """The root of the course files: the package's copy, else the editable checkout."""
    packaged = resources.files("nbcourse") / PACKAGE_FOLDER
    if packaged.is_dir():
        return packaged
    root = _checkout_root()
    if root is not None:
        return root
    raise FileNotFoundError(
        f"this nbcourse installation has no course files: neither {packaged} nor a "
        "checkout next to the package. Reinstall it from a wheel or from the checkout.")


def data_dir() -> Path:
    """The folder of the shipped tables (``weather.csv``, ...), as a real path on disk."""
    folder = course_root() / "data"
    if isinstance(folder, Path) and folder.is_dir():
        return folder
    raise FileNotFoundError(
        f"the course data ({folder}) is not a folder on disk (nbcourse is imported from a "
        "zip file?); install nbcourse as a regular package, or set NBCOURSE_SHIPPED_DATA.")


def _walk(node: Traversable, prefix: str = ""):
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        relative = f"{prefix}{child.name}"
        if _skipped(PurePosixPath(relative)):
            continue
        if child.is_dir():
            yield from _walk(child, relative + "/")
        else:
            yield relative, child


def course_files(instructor: bool = False, source: Path | None = None) -> dict[str, Traversable]:
    """Relative path -> file of everything ``nbcourse init`` copies for this reader.

    The instructor's part comes from ``source`` (see ``instructor_files``), else from the
    checkout nbcourse runs from; an installed wheel has none of it.
    """
    root = course_root()
    checkout = isinstance(root, Path) and root == _checkout_root()
    files = dict(collect(root)) if checkout else dict(_walk(root))
    files = {r: f for r, f in files.items() if not is_instructor_only(r)}
    if instructor:
        if source is None and not checkout:
            raise FileNotFoundError(NO_INSTRUCTOR_SOURCE)
        files.update(instructor_files(Path(source) if source is not None else root))
    return dict(sorted(files.items()))


NO_INSTRUCTOR_SOURCE = (
    "this installed nbcourse is the students' package: it holds no exercise sources, "
    "solutions or grading specs. Pass --source with a checkout of the course repository, "
    "a folder of exercise sources (*.ipynb with their *.grading.py specs), or the "
    "instructor archive (the nbcourse-X.Y.Z.tar.gz that `python -m build` writes).")


def _unpacked(archive: Path) -> Path:
    """An archive's contents in a new temporary folder (kept until the process ends)."""
    import atexit
    import tarfile
    import tempfile
    import zipfile
    folder = Path(tempfile.mkdtemp(prefix="nbcourse-source-"))
    atexit.register(shutil.rmtree, folder, True)
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as opened:
            for member in opened.namelist():  # no absolute paths, no way out of the folder
                if member.startswith("/") or ".." in PurePosixPath(member).parts:
                    raise ValueError(f"{archive}: unsafe path {member!r} in the archive")
            opened.extractall(folder)
    elif tarfile.is_tarfile(archive):
        with tarfile.open(archive) as opened:
            _extract_tar(opened, folder, archive)
    else:
        raise ValueError(f"--source {archive} is neither a folder nor a .tar.gz or .zip archive")
    return folder


def _extract_tar(opened, folder: Path, archive: Path) -> None:
    """Unpack an open tar archive into ``folder``, files and folders only, none outside it.

    Pythons with extraction filters (3.10.12, 3.11.4 and newer) use the "data" filter.
    Older ones (Debian 12's 3.11.2 among them) have no ``filter`` argument: the members are
    checked here instead, and written as the running user with no special mode bits."""
    import tarfile
    if hasattr(tarfile, "data_filter"):
        opened.extractall(folder, filter="data")
        return
    members = opened.getmembers()
    for member in members:
        if (member.name.startswith("/") or ".." in PurePosixPath(member.name).parts
                or not (member.isfile() or member.isdir())):
            raise ValueError(f"{archive}: unsafe member {member.name!r} in the archive")
        member.mode &= 0o755
        member.uid, member.gid, member.uname, member.gname = os.getuid(), os.getgid(), "", ""
    opened.extractall(folder, members=members)


def instructor_files(source: Path) -> dict[str, Path]:
    """``exercises/source/...`` and ``exercises/README.md`` -> file, from ``source``: a
    checkout (or an unpacked sdist), a folder of exercise sources, or an archive of either."""
    source = Path(source)
    if not source.exists():
        raise FileNotFoundError(f"--source {source} does not exist")
    if source.is_file():
        source = _unpacked(source)
    candidates = [source / "exercises" / "source", source]
    candidates += [c / "exercises" / "source" for c in sorted(source.iterdir()) if c.is_dir()]
    folder = next((c for c in candidates if has_specs(c)), None)
    if folder is None:
        raise FileNotFoundError(
            f"--source {source} holds no exercise sources: expected *{SPEC_SUFFIX} specs in "
            "it, in its exercises/source, or in an archive's exercises/source")
    files = {}
    for pattern in ("[0-9][0-9]_*.ipynb", f"[0-9][0-9]_*{SPEC_SUFFIX}"):
        for path in folder.glob(pattern):
            files[f"exercises/source/{path.name}"] = path
    guide = folder.parent / "README.md"
    if folder.name == "source" and guide.is_file():
        files["exercises/README.md"] = guide
    return files


# -- nbcourse init ----------------------------------------------------------------------------

README_TEMPLATE = """\
# Naive Bayes, from counting to linear classifiers

This folder was written by `nbcourse init` (nbcourse {version}){who}.

- `notebooks/`: the lessons, in order. Run `jupyter lab` in this folder, open a lesson
  and choose *Run > Run All Cells*; the sliders work once the cells have run.
- `exercises/`: one exercise per lesson. Fill in the functions and run the check cell under
  each question (`check("q1", ...)`) to test your answer.
{instructor_lines}- `data/`: the small data sets the lessons use; `data/README.md` says where each comes
  from and under which licence.

Licences: the code (in the notebooks and in the nbcourse package) is MIT (`LICENSE`); the
text, exercises and figures are CC BY 4.0 (`LICENSE-content.md`).
"""

INSTRUCTOR_LINES = """\
- `exercises/source/`: the instructor versions (solutions, hidden tests) and the
  `*.grading.py` specs. From this folder, `nbcourse list` shows the exercises,
  `nbcourse release` rebuilds the student versions and `nbcourse grade` grades a class
  (`exercises/README.md` is the full guide). Do not hand this folder to students.
"""


def _version() -> str:
    # Imported when a course is written, not at the top: setup.py loads this file on its
    # own, outside the package, to list the course's files.
    from ._version import __version__
    return __version__


def init_course(target: Path, *, instructor: bool = False, force: bool = False,
                source: Path | None = None) -> list[Path]:
    """Copy the course into ``target`` and return the files written, in order.

    With ``instructor``, the exercise sources come from ``source`` (a checkout, a folder
    of sources or an instructor archive), else from the checkout nbcourse runs from;
    FileNotFoundError when there is neither (an installed wheel has none).

    Refuses (FileExistsError) when ``target`` is a file, or a folder that is not empty,
    unless ``force``: then the course's files are overwritten and every other file in the
    folder is left alone.
    """
    target = Path(target)
    if target.exists() and not target.is_dir():
        raise FileExistsError(f"{target} exists and is not a folder")
    if target.is_dir() and any(target.iterdir()) and not force:
        raise FileExistsError(
            f"{target} is not empty; choose a new folder, or pass --force to overwrite the "
            "course files in it (your other files stay)")
    files = course_files(instructor=instructor, source=source)
    missing = [r for r in REQUIRED if r not in files]
    if missing:
        raise FileNotFoundError(f"the installed course lacks {', '.join(missing)}")
    written = []
    for relative, source in files.items():
        destination = target.joinpath(*relative.split("/"))
        destination.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, Path):
            shutil.copyfile(source, destination)
        else:
            destination.write_bytes(source.read_bytes())
        written.append(destination)
    readme = target / "README.md"
    readme.write_text(README_TEMPLATE.format(
        version=_version(),
        who=" for an instructor" if instructor else "",
        instructor_lines=INSTRUCTOR_LINES if instructor else ""), encoding="utf-8")
    written.append(readme)
    return written


# -- finding the course folder of list / release / grade ----------------------------------------

def exercise_matches(name: str, names: list[str]) -> list[str]:
    """The exercises among ``names`` that ``name`` may mean: the same name; else (case
    ignored, ``.ipynb`` dropped) ``weather`` for ``01_weather``; else ``1`` or ``01``; else,
    from three letters on, part of a name. The first rule with any match decides, so one
    match is the answer and more are ambiguous. ``nbcourse grade`` and ``check_for`` both
    use it, so an exercise has the same names everywhere."""
    if name in names:
        return [name]
    key = str(name).lower().removesuffix(".ipynb")
    tiers = (
        [n for n in names if n == key or n.split("_", 1)[-1] == key],
        [n for n in names if key.isdigit() and n.split("_", 1)[0].lstrip("0") == key.lstrip("0")],
        [n for n in names if len(key) >= 3 and key in n],
    )
    return next((tier for tier in tiers if tier), [])


def has_specs(folder: Path) -> bool:
    return folder.is_dir() and any(folder.glob(f"*{SPEC_SUFFIX}"))


def find_exercise_source(start: Path | None = None) -> tuple[Path | None, list[Path]]:
    """The folder of the instructor's sources and specs, and every folder looked at.

    ``$NBCOURSE_EXERCISES`` if set; else ``start`` (the current folder) if it holds
    ``*.grading.py`` specs; else ``exercises/source`` in ``start`` or in any folder above
    it, so the commands work anywhere inside a folder made by ``nbcourse init --instructor``
    (or inside the checkout).
    """
    override = os.environ.get("NBCOURSE_EXERCISES")
    if override:
        folder = Path(override)
        return (folder if has_specs(folder) else None), [folder]
    start = Path(start or Path.cwd()).resolve()
    looked = [start]
    if has_specs(start):
        return start, looked
    for folder in (start, *start.parents):
        candidate = folder / "exercises" / "source"
        looked.append(candidate)
        if has_specs(candidate):
            return candidate, looked
    return None, looked
