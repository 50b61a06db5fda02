"""``nbcourse release``: validate the exercises, then write the student versions.

The one step that writes into the release folder. It sits above both ``validate`` (which
reads the markers with ``authoring``) and ``authoring`` (which builds the student files),
so neither of those needs the other's caller.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .authoring import build, same_release, source_notebooks
from .validate import errors, validate_all


@dataclass
class ReleaseReport:
    written: list[str]
    unchanged: list[str]
    stale: list[str]  # student notebooks in the release folder with no source

    @property
    def up_to_date(self) -> bool:
        return not self.written and not self.stale


class ReleaseError(ValueError):
    """``nbcourse validate`` found errors: nothing was written."""

    def __init__(self, problems):
        self.problems = problems
        super().__init__("nothing was released; fix these first:\n" +
                         "\n".join(f"  {p}" for p in problems))


def release(source_dir: Path, release_dir: Path, *, check: bool = False,
            validate: bool = True) -> ReleaseReport:
    """Write (or with ``check=True`` only compare) the student versions and checks files.

    The exercises are validated first (``validate.validate_all``); any error stops the
    release before a file is written.
    """
    source_dir, release_dir = Path(source_dir), Path(release_dir)
    if not source_dir.is_dir():
        raise FileNotFoundError(f"source_dir {source_dir} is not a folder")
    if source_dir.resolve() == release_dir.resolve():
        raise ValueError("release_dir must differ from source_dir, or the solutions would be "
                         "overwritten")
    if not source_notebooks(source_dir):
        raise FileNotFoundError(f"no source notebooks (*.ipynb) in {source_dir}")
    if validate:
        found = [p for problems in validate_all(source_dir).values() for p in errors(problems)]
        if found:
            raise ReleaseError(found)
    built = build(source_dir)
    written, unchanged = [], []
    for name, text in built.items():
        target = release_dir / name
        current = target.read_bytes() if target.is_file() else None
        if same_release(name, current, text):
            unchanged.append(name)
            continue
        written.append(name)
        if not check:
            release_dir.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
    stale = sorted(p.name for pattern in ("*.ipynb", "*.checks.json")
                   for p in release_dir.glob(pattern) if p.name not in built)
    return ReleaseReport(written, unchanged, stale)
