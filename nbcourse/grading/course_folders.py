"""What of the course a sandbox must see, found by the library's own rules.

The kernel imports the installed package and reads the corpora where the loaders would
(the shipped data, ``NBCOURSE_DATA``, the cache); the solutions and specs inside an
installed package are masked.  The grading side finds these folders here, with
``nbcourse.datasets`` and ``nbcourse.resources`` themselves, and hands them to
``execution.sandbox.make_config``: the execution layer never imports the library.
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


def _instructor_only() -> list[str]:
    """Folders of an installed package that hold solutions and grading specs (a wheel
    carries the whole course in ``nbcourse/_course``, exercise sources included)."""
    course = PACKAGE / PACKAGE_FOLDER
    return [str(course / prefix.rstrip("/")) for prefix in INSTRUCTOR_ONLY
            if prefix.endswith("/") and (course / prefix.rstrip("/")).is_dir()]


def course_folders() -> CourseFolders:
    """Every path resolved: a folder reached through a link is bound at its real path,
    the only one that exists inside the sandbox."""
    data = {name: str(folder.resolve()) for name, folder in _data().items()}
    return CourseFolders(package=str(PACKAGE), data=sorted(set(data.values())), env=data,
                         hidden=_instructor_only())
