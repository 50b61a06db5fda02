"""From a class's folder (or an LMS download) to one submission per student.

Instructors hand ``nbcourse grade`` whatever they have:

- ``submitted/<student>/<exercise>.ipynb`` (the README's layout) or nbgrader's
  ``submitted/<student>/<assignment>/<notebook>.ipynb``: every folder is a student, and
  only the notebook of the exercise being graded counts (``--notebook NAME`` when the
  students' file is named otherwise).  A student folder without it is a row
  ``not submitted``; two candidates are a row ``several notebooks``, never merged;
- a flat folder of ``<student>.ipynb``;
- the zip an LMS download gives, as downloaded (names in a plain folder are never read
  as LMS names: only a zip unpacked here gives LMS ids): Canvas names each file
  ``<lastfirst>_<userid>_<submissionid>_<filename>`` (``<lastfirst>_LATE_...`` when late),
  Moodle's assignment download gives ``<Full Name>_<participant id>_assignsubmission_file_``
  folders (or that prefix on every file when "download in folders" is off);
- explicit files or a shell glob (``submitted/*/01_weather.ipynb``): each named by the
  folder that tells the students apart, never ``01_weather~2``.

Careless names still get a row: ``01_weather.IPYNB``, ``x.ipynb.txt`` (a browser's "save
as") and ``x.ipynb `` (a trailing blank) are notebooks; any other file in a flat folder is
named in a warning.  Nothing here runs or parses a notebook.
"""
from __future__ import annotations

import errno
import itertools
import os
import re
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from .execution.limits import MB
from .execution.notebook_file import NotRegularFile, open_untrusted
from .late import latest_timestamp
from .lms_download import lms_name, unpack_zip
from .statuses import Status
from .terminal import display_name  # noqa: F401 - imported from here by the gradebook

SKIP_DIRS = {".ipynb_checkpoints", "__pycache__", ".git", "__MACOSX"}
NOTEBOOK_SUFFIXES = (".ipynb", ".ipynb.txt", ".ipynb.json")

# Not in GradingLimits: they bound reading the instructor's folders, before any submission runs.
MAX_COPY_BYTES = 256 * MB        # read of one notebook when it is collected
MAX_DEPTH = 12                   # folders searched below a student's folder
MAX_FOLDER_ENTRIES = 10_000      # files and folders looked at in one student's folder


@dataclass(frozen=True)
class Submission:
    """One row of the gradebook.  ``refused`` (a status) means: do not run it, say why.

    ``id`` is the student as the rows name them; ``lms`` and ``lms_id`` say where the
    name came from (``canvas`` and the Canvas user id, ``moodle`` and the participant id)
    so that an LMS gradebook can be written; ``shown`` is the path as the instructor
    knows it (``submissions.zip:alice_1_2_hw.ipynb`` for a file inside a zip).  With a
    scratch folder, ``path`` of a row to grade is the grader's own copy, made when it was
    collected; ``origin`` is the file it was copied from.  ``stripped`` is the copy of an
    oversized notebook without its saved outputs, made once for the whole batch
    (``saved_outputs.strip_oversized``); ``to_grade`` is the file every reader then uses."""
    id: str
    path: Path
    refused: Status | str = ""  # "" when it is to be graded
    reason: str = ""
    shown: str = ""
    lms: str = ""
    lms_id: str = ""
    late: bool = False
    origin: Path | None = None
    submitted_at: str = ""  # nbgrader's timestamp.txt, ISO 8601 in UTC (see ``late``)
    stripped: Path | None = None

    @property
    def to_grade(self) -> Path:
        """The notebook that is read and run: ``stripped`` when there is one, else ``path``."""
        return self.stripped or self.path


@dataclass
class Collection:
    submissions: list[Submission] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def collect_submissions(paths: list[str | Path], notebook: str = "",
                        scratch: Path | None = None) -> tuple[list[Submission], list[str]]:
    """One row per student under ``paths`` (see ``collect``): (submissions, warnings)."""
    found = collect(paths, notebook, scratch)
    return found.submissions, found.warnings


def notebook_stem(name: str) -> str | None:
    """The name without its notebook extension, or None when it does not look like one.

    Case, a trailing blank and a browser's ``.txt`` do not matter: ``A.IPYNB``,
    ``a.ipynb.txt`` and ``a.ipynb `` are notebooks named ``A``, ``a`` and ``a``."""
    trimmed = name.rstrip()
    lowered = trimmed.lower()
    for suffix in NOTEBOOK_SUFFIXES:
        if lowered.endswith(suffix) and len(trimmed) > len(suffix):
            return trimmed[: -len(suffix)]
    return None


_COPY_OF = "copy_of_"  # "Copy of 01_weather", as _normal writes it


def _normal(text: str) -> str:
    return re.sub(r"[\s_\-]+", "_", text.strip().lower())


def matches_notebook(stem: str, notebook: str) -> bool:
    """``01_weather``, ``01_Weather``, ``01_weather-Copy1``, ``01_weather (1)`` and
    ``Copy of 01_weather`` (Colab's and Google Drive's copy) all match the exercise
    ``01_weather``; ``02_smoothing`` does not."""
    stem, notebook = _normal(stem), _normal(notebook)
    while stem.startswith(_COPY_OF) and not notebook.startswith(_COPY_OF):
        stem = stem[len(_COPY_OF):]
    return stem == notebook or (stem.startswith(notebook)
                                and not stem[len(notebook)].isalnum())


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def _classify(path: Path, root: Path, own: Path | None = None) -> tuple[Path, str, str]:
    """(path to read, refusal status, reason) for one entry that looks like a notebook.

    The path is resolved, every link on the way included (a student's folder that is
    a link counts as much as the file): where it leads must be inside ``root``, and
    inside the row's own part of it, ``own`` (relative to ``root``: the student's folder,
    or the notebook itself in a flat folder), so that a link cannot hand in a
    classmate's notebook as one's own."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        if not os.path.lexists(path):
            return path, Status.NOT_A_NOTEBOOK, "no such file"
        return path, Status.DANGLING_LINK, "a symbolic link to nothing (or a loop of links)"
    if not _inside(target, root.resolve()):
        if path.is_symlink():
            return path, Status.LINK_OUTSIDE, (
                "a symbolic link to a file outside the submissions folder: not graded")
        return path, Status.LINK_OUTSIDE, (
            "a folder on the way to it is a symbolic link to somewhere outside the "
            "submissions folder: not graded")
    if own is not None:
        mine = root.resolve() / own
        if target != mine and not _inside(target, mine):
            return path, Status.LINK_OUTSIDE, (
                "a symbolic link to another student's file (outside this student's own "
                "folder or file): not graded")
    if target.is_dir():
        return path, Status.NOT_A_NOTEBOOK, "a folder named like a notebook, not a file"
    return target, "", ""


def _copy_in(root: Path, target: Path, destination: Path) -> tuple[str, str]:
    """Copy ``target`` (resolved, inside ``root``) to ``destination``: ("", "") or
    (refusal status, reason).

    Every folder from ``root`` down is opened without following links, so a folder or
    file swapped for a link since ``_classify`` looked makes the row refused, never read
    through; the bytes are read once, here, and the grader reads only its copy."""
    parts = target.relative_to(root).parts
    try:
        directory = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as error:
        return Status.NOT_A_NOTEBOOK, f"cannot read the file: {error.strerror}"
    try:
        for part in parts[:-1]:
            below = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
            os.close(directory)
            directory = below
        source = open_untrusted(parts[-1], dir_fd=directory)
    except NotRegularFile:  # a pipe, a device ...
        return Status.NOT_A_NOTEBOOK, "not a regular file"
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            return Status.LINK_OUTSIDE, ("changed into a symbolic link while it was being "
                                         "collected: not graded")
        return Status.NOT_A_NOTEBOOK, f"cannot read the file: {error.strerror}"
    finally:
        os.close(directory)
    size = 0
    try:
        with source, open(destination, "xb") as out:
            while chunk := source.read(MB):
                size += len(chunk)
                if size > MAX_COPY_BYTES:
                    break
                out.write(chunk)
    except OSError as error:
        destination.unlink(missing_ok=True)
        return Status.NOT_A_NOTEBOOK, f"cannot read the file: {error.strerror}"
    if size > MAX_COPY_BYTES:
        destination.unlink()
        return Status.NOT_A_NOTEBOOK, (f"the file is larger than {MAX_COPY_BYTES // MB} MB; "
                                       "a notebook for this exercise is far smaller")
    return "", ""


def _entries(folder: Path, limit: int | None = None) -> list[os.DirEntry]:
    """The entries of ``folder`` in byte order; at most ``limit`` of them are read."""
    try:
        with os.scandir(folder) as found:
            kept = itertools.islice((e for e in found if e.name not in SKIP_DIRS), limit)
            return sorted(kept, key=lambda e: os.fsencode(e.name))
    except OSError:
        return []


def _is_folder(entry: os.DirEntry) -> tuple[bool, bool]:
    """(is a folder, is a folder reached through a link), never raising."""
    try:
        return entry.is_dir(), entry.is_dir() and entry.is_symlink()
    except OSError:
        return False, False


def _notebooks_below(folder: Path, root: Path) -> tuple[list[Path], list[str], str]:
    """Every notebook-like entry below a student's folder, links not followed; the names
    of the other files (to say what the student did hand in); and, when the folder is
    deeper than ``MAX_DEPTH`` or holds more than ``MAX_FOLDER_ENTRIES`` entries, what was
    left unsearched ("" otherwise).  No recursion: any depth ends as a reason."""
    notebooks, others = [], []
    pending = [(folder, 0)]
    seen, cut = 0, ""
    while pending:
        here, depth = pending.pop()
        below = []
        for entry in _entries(here, MAX_FOLDER_ENTRIES + 1 - seen):
            seen += 1
            if seen > MAX_FOLDER_ENTRIES:
                cut = f"more than {MAX_FOLDER_ENTRIES} files and folders; the rest not searched"
                pending.clear()
                break
            is_folder, through_link = _is_folder(entry)
            if notebook_stem(entry.name) is not None:
                notebooks.append(Path(entry.path))
            elif not is_folder:
                others.append(Path(entry.path))
            elif through_link:
                continue  # a link to a folder is not followed
            elif depth >= MAX_DEPTH:
                cut = f"folders nested more than {MAX_DEPTH} deep not searched"
            else:
                below.append((Path(entry.path), depth + 1))
        pending.extend(reversed(below))
    return notebooks, [display_name(str(p.relative_to(folder))) for p in others], cut


class _Collector:
    def __init__(self, notebook: str, scratch: Path | None):
        self.notebook = notebook
        self.scratch = scratch
        self.found = Collection()
        self.explicit: list[Path] = []
        self.zips = 0
        self.copies = 0
        self.left_out: dict[Path, list[str]] = {}  # a zip's student folder: what was not unpacked
        # (device, inode) -> the rows read from that file: (index, reached through a link)
        self.files: dict[tuple[int, int], list[tuple[int, bool]]] = {}

    def add(self, raw: str | Path) -> None:
        given = Path(raw)
        if given.is_file() and given.name.lower().endswith(".zip"):
            self.add_zip(given)
        elif given.is_dir() and notebook_stem(given.name) is None:
            self.add_folder(given, display_name(str(given)))
        else:
            self.explicit.append(given)

    def add_zip(self, path: Path) -> None:
        if self.scratch is None:
            raise ValueError(f"{display_name(str(path))}: a zip needs a scratch folder")
        self.zips += 1
        target = self.scratch / f"zip-{self.zips}"
        left_out: dict[str, list[str]] = {}
        try:
            self.found.warnings += unpack_zip(path, target, left_out)
        except (zipfile.BadZipFile, OSError, ValueError) as error:
            self.found.warnings.append(f"{display_name(str(path))}: not unpacked ({error})")
            return
        for folder, refusals in left_out.items():
            self.left_out[target / folder] = refusals
        self.add_folder(target, display_name(str(path)) + ":", root_name=path.stem,
                        from_lms=True)

    def row(self, ident: str, path: Path, refused: str = "", reason: str = "", *,
            shown: str = "", lms: str = "", lms_id: str = "", late: bool = False,
            root: Path | None = None, own: Path | None = None,
            submitted_at: str = "") -> None:
        """One row; ``root`` (the class folder) for a notebook to grade: ``path`` must
        lead inside it, within ``own`` (see ``_classify``), and is copied into the
        scratch folder now."""
        origin = None
        if root is not None and not refused:
            origin, (path, refused, reason) = path, _classify(path, root, own)
            if not refused:
                try:
                    info = os.stat(path, follow_symlinks=False)
                    linked = os.path.islink(origin)
                    self.files.setdefault((info.st_dev, info.st_ino), []).append(
                        (len(self.found.submissions), linked))
                except OSError:
                    pass
            if not refused and self.scratch is not None:
                self.copies += 1
                copies = self.scratch / "collected"
                copies.mkdir(mode=0o700, exist_ok=True)
                copy = copies / f"{self.copies}.ipynb"
                refused, reason = _copy_in(root.resolve(), path, copy)
                path = origin if refused else copy
        self.found.submissions.append(Submission(
            display_name(ident), path, refused, reason, shown or display_name(str(path)),
            lms, lms_id, late, origin, submitted_at))

    def add_folder(self, folder: Path, shown: str, root_name: str | None = None,
                   from_lms: bool = False) -> None:
        """A class folder: sub-folders are students, notebook files are students.
        ``from_lms``: the folder is an LMS zip this collection unpacked (``lms_name``)."""
        root = folder.resolve()
        root_name = root_name or root.name
        entries = _entries(folder)
        if not from_lms and any(e.is_dir(follow_symlinks=False)
                                and matches_notebook(e.name, self.notebook) for e in entries):
            # one student's folder in nbgrader's layout, <student>/<assignment>/
            self.add_student(folder, root, shown, name=root_name)
            return
        ignored = []
        for entry in entries:
            path = Path(entry.path)
            where = f"{shown.rstrip('/')}/{display_name(entry.name)}" if not shown.endswith(
                ":") else f"{shown}{display_name(entry.name)}"
            stem = notebook_stem(entry.name)
            if stem is not None:
                student, lms, lms_id, late, original = lms_name(stem, from_lms)
                if not lms and matches_notebook(stem, self.notebook) and not any(
                        notebook_stem(e.name) is not None and e.name != entry.name
                        and not matches_notebook(notebook_stem(e.name), self.notebook)
                        for e in entries):
                    student = root_name  # the folder given is one student's folder
                self.row(student, path, shown=where, lms=lms, lms_id=lms_id, late=late,
                         root=root, own=Path(entry.name))
            elif entry.is_symlink():
                try:
                    target = path.resolve(strict=True)
                except (OSError, RuntimeError):
                    target = None
                if target is not None and target.is_dir() and _inside(target, root):
                    continue  # a link to a folder that is in the class folder anyway
                if target is not None and target.is_dir():
                    self.row(entry.name, path, Status.LINK_OUTSIDE,
                             "a symbolic link to a folder outside the submissions folder: "
                             "not graded", shown=where)
                else:
                    ignored.append(display_name(entry.name))
            elif entry.is_dir(follow_symlinks=False):
                self.add_student(path, root, where, from_lms)
            else:
                ignored.append(display_name(entry.name))
        if not entries:
            self.found.warnings.append(f"no submissions found in {shown}")
        if ignored:
            self.found.warnings.append(
                f"{len(ignored)} file{'s' if len(ignored) != 1 else ''} in {shown} "
                f"{'are' if len(ignored) != 1 else 'is'} not a notebook and got no row: "
                + ", ".join(ignored[:10]) + (" ..." if len(ignored) > 10 else ""))

    def add_student(self, folder: Path, root: Path, shown: str, from_lms: bool = False,
                    name: str | None = None) -> None:
        student, lms, lms_id, late, _ = lms_name(name or folder.name, from_lms)
        notebooks, others, cut = _notebooks_below(folder, root)
        candidates = [p for p in notebooks if matches_notebook(notebook_stem(p.name), self.notebook)]
        if not candidates and lms and len(notebooks) == 1:
            candidates = notebooks  # an LMS folder holds this assignment only, any name
        if not candidates:  # nbgrader's <student>/<assignment>/: its one notebook, any name
            assignment = [p for p in notebooks if folder in (p.parent, p.parent.parent)
                          and matches_notebook(p.parent.name, self.notebook)]
            if len(assignment) == 1 and not any(p.parent == assignment[0].parent
                                                for p in notebooks if p != assignment[0]):
                candidates = assignment
        extra = dict(lms=lms, lms_id=lms_id, late=late)
        if cut and candidates:
            self.found.warnings.append(f"{display_name(student)}: {cut}")
        if not candidates:
            handed = [display_name(str(p.relative_to(folder))) for p in notebooks] + others
            reason = f"no {self.notebook}.ipynb in {shown}"
            if handed:
                reason += " (found: " + ", ".join(handed[:5]) + (" ..." if len(handed) > 5 else "") + ")"
            if cut:
                reason += f"; {cut}"
            if folder in self.left_out:
                reason += "; not unpacked from the zip: " + ", ".join(
                    display_name(r) for r in self.left_out[folder][:3])
            self.row(student, folder, Status.NOT_SUBMITTED, reason, shown=shown, **extra)
            return
        chosen = candidates
        if len(candidates) > 1:
            exact = [p for p in candidates
                     if _normal(notebook_stem(p.name)) == _normal(self.notebook)]
            if len(exact) == 1:
                chosen = exact
                others = [display_name(str(p.relative_to(folder))) for p in candidates
                          if p != exact[0]]
                self.found.warnings.append(
                    f"{display_name(student)}: graded {display_name(str(exact[0].relative_to(folder)))}; "
                    f"also handed in {', '.join(others)} (not graded)")
            else:
                names = [display_name(str(p.relative_to(folder))) for p in candidates]
                self.row(student, folder, Status.SEVERAL_NOTEBOOKS,
                         f"{len(names)} notebooks could be {self.notebook}: " + ", ".join(names)
                         + "; keep one (or name it with --notebook) and grade again",
                         shown=shown, **extra)
                return
        self.row(student, chosen[0], root=root, own=Path(folder.name),
                 shown=f"{shown}/{display_name(str(chosen[0].relative_to(folder)))}",
                 submitted_at=latest_timestamp(chosen[0].parent, folder),
                 **extra)

    def naming_folders(self, path: Path) -> list[Path]:
        """The folders above ``path``, nearest first, but those named like the exercise."""
        parents = list(path.absolute().parents)
        return [p for p in parents[:-1] if not matches_notebook(p.name, self.notebook)] \
            + parents[-1:]

    def add_explicit(self) -> None:
        """Files named one by one (or by a glob): named by the folder telling them apart."""
        files = self.explicit
        if not files:
            return
        named: list[tuple[str, str, str, bool]] = []
        generic = []
        for path in files:
            stem = notebook_stem(path.name) or path.name
            student, lms, lms_id, late, _ = lms_name(stem, from_lms=False)
            named.append((student, lms, lms_id, late))
            generic.append(not lms and matches_notebook(stem, self.notebook))
        # the files called like the exercise are named by the nearest folder level whose
        # names differ between them (``alice`` in submitted/alice/ps1/01_weather.ipynb)
        # (a folder named like the exercise, nbgrader's <student>/<assignment>/, names no one)
        same = [self.naming_folders(p) for p, g in zip(files, generic) if g]
        level = 1
        while same and level < 8:
            names = [p[level - 1].name if len(p) >= level else "" for p in same]
            if len(set(names)) == len(names) or len(same) == 1:
                break
            level += 1
        for path, (student, lms, lms_id, late), is_generic in zip(files, named, generic):
            absolute = path.absolute()
            root = absolute.parent  # the class folder: no link on the way may leave it
            folders = self.naming_folders(path)
            own = None  # a file named alone may be a link (to a classmate's: see collect)
            if is_generic and len(folders) >= level:
                student = folders[level - 1].name or student
                root = folders[min(level, len(folders) - 1)]
                if root != absolute.parent:  # nor lead out of the student's own folder
                    own = Path(absolute.relative_to(root).parts[0])
            self.row(student, path, shown=display_name(str(path)), lms=lms,
                     lms_id=lms_id, late=late, root=root, own=own)


def collect(paths: list[str | Path], notebook: str,
            scratch: Path | None = None) -> Collection:
    """One submission per student under ``paths``, for the exercise whose notebook is
    ``notebook`` (``01_weather``).  Zips are unpacked into ``scratch``.

    Two rows for one name (the same student in two folders given, or ``Alice.ipynb`` and
    ``alice/01_weather.ipynb``) are both kept, the second marked ``several notebooks``,
    so that nothing is merged and nothing is lost.
    """
    collector = _Collector(notebook, scratch)
    for raw in paths:
        collector.add(raw)
    collector.add_explicit()
    found = collector.found
    for rows in collector.files.values():
        if len(rows) < 2:
            continue
        if any(linked for _, linked in rows) and not all(linked for _, linked in rows):
            for index, linked in rows:  # a link to a file that is another row's own
                if linked:
                    row = found.submissions[index]
                    if scratch is not None and row.path.parent == scratch / "collected":
                        row.path.unlink(missing_ok=True)  # its copy is never graded
                    found.submissions[index] = replace(
                        row, path=row.origin or row.path, refused=Status.LINK_OUTSIDE,
                        reason="a symbolic link to another student's file: not graded")
            continue
        names = " and ".join(found.submissions[index].id for index, _ in rows)
        found.warnings.append(  # one file under two names: a hard link between two students
            f"{names} handed in the very same file (a hard link): each row is graded, but "
            "one of them may be another's work")
    seen: dict[str, int] = {}
    taken = {submission.id for submission in found.submissions}
    unique = []
    for submission in found.submissions:
        n = seen.get(submission.id, 0) + 1
        if n == 1:
            seen[submission.id] = n
            unique.append(submission)
            continue
        while f"{submission.id}~{n}" in taken:  # a student may be called carol~2 already
            n += 1
        seen[submission.id] = n
        ident = f"{submission.id}~{n}"
        taken.add(ident)
        unique.append(replace(submission, id=ident, refused=Status.SEVERAL_NOTEBOOKS,
                              reason=f"{submission.id} handed in more than one notebook "
                              f"({submission.shown}); only one is graded: keep one and grade "
                              "again"))
        found.warnings.append(f"{display_name(submission.id)}: more than one notebook "
                              f"({submission.shown} is row {ident}, not graded)")
    found.submissions = unique
    return found
