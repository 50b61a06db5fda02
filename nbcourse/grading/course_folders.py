"""What of the course a sandbox must see, found by the library's own rules.

The kernel imports the installed package and reads the corpora where the loaders would
(the shipped data, ``NBCOURSE_DATA``, the cache); instructor-only folders inside an
installed package, should it hold any, are masked (``UNMASKED`` says which file is not,
and why).  The grading side finds these folders here, with ``nbcourse.datasets`` and
``nbcourse.resources`` themselves, and hands them to ``execution.sandbox.make_config``:
the execution layer never imports the library.
"""
from __future__ import annotations

from pathlib import Path

from ..datasets import cache_root, shared_data_dir, shipped_data_dir
from ..resources import INSTRUCTOR_ONLY, PACKAGE_FOLDER
from .execution.sandbox import CourseFolders

PACKAGE = Path(__file__).resolve().parents[1]


def _data() -> dict[str, Path]:
    """{variable: folder} for every corpus folder a loader may read here.  A bad
    ``NBCOURSE_DATA`` stops grading with the loaders' own message."""
    found = {}
    try:
        found["NBCOURSE_SHIPPED_DATA"] = shipped_data_dir()
    except FileNotFoundError:
        pass  # no shipped data: the exercise that needs it will say so
    shared = shared_data_dir()
    if shared is not None:
        found["NBCOURSE_DATA"] = shared
    cache = cache_root()
    if cache.is_dir():
        found["NBCOURSE_CACHE"] = cache
    return found


#: Instructor-only files (``resources.INSTRUCTOR_ONLY``) a sandbox does not mask, with
#: why: bwrap masks a folder with an empty one, but it cannot lay an empty file over a file
#: without being handed one (a device bound read-only cannot be opened there), and these
#: hold nothing a submission could use.
UNMASKED = {"exercises/README.md": "the exercises' table and how to grade them; no "
                                   "solution, hidden case or expected value"}


def _instructor_only(package: Path = PACKAGE) -> list[str]:
    """The folders only an instructor may read (``resources.INSTRUCTOR_ONLY``: the
    exercise sources, with their solutions and specs), where they are inside the installed
    ``package`` anyway.  A wheel never holds them (``setup.py`` copies the student's files
    only, and ``.ci/check_wheel.py`` checks it), nor does an editable install's package
    folder, so this is usually empty; a ``_course`` filled some other way still has them
    masked in the sandbox."""
    course = package / PACKAGE_FOLDER
    return [str(course / entry.rstrip("/")) for entry in INSTRUCTOR_ONLY
            if entry.endswith("/") and (course / entry).is_dir()]


def course_folders() -> CourseFolders:
    """Every path resolved: a folder reached through a link is bound at its real path,
    the only one that exists inside the sandbox."""
    data = {name: str(folder.resolve()) for name, folder in _data().items()}
    return CourseFolders(package=str(PACKAGE), data=sorted(set(data.values())), env=data,
                         hidden=_instructor_only())
