"""An LMS download: the names Canvas and Moodle give its files, and unpacking its zip
without trusting it.

Nothing is written outside the target folder, no link or device is made, the bytes
written are counted against caps per member and per zip, and one member that cannot be
unpacked (too deep, a name no file system takes, ...) is left out on its own, named in a
warning: the zip, and the other students in it, are unpacked all the same.
"""
from __future__ import annotations

import os
import re
import stat
import zipfile
from pathlib import Path

from .execution.limits import MB
from .terminal import display_name

# Not in GradingLimits: they bound unpacking the instructor's download, before any submission runs.
MAX_ZIP_BYTES = 2048 * MB        # everything unpacked from one zip
MAX_ZIP_MEMBER_BYTES = 200 * MB
MAX_ZIP_MEMBERS = 100_000
MAX_FOLDERS = 13                 # folders in one member's path: a student's, 12 below it
MAX_NAME_BYTES = 255             # one file or folder name (most file systems' limit)


# Canvas "Download Submissions": lastfirst[_LATE]_userid_submissionid_original-name
# (the last part may be missing for a file without a name of its own).
CANVAS = re.compile(r"^(?P<name>[^_]+?)(?P<late>_LATE)?_(?P<user>\d+)_(?P<submission>\d+)"
                    r"(?:_(?P<file>.*))?$", re.DOTALL)
# Moodle assignment "Download all submissions": Full Name_participantid_assignsubmission_file_
MOODLE = re.compile(r"^(?P<name>.+?)_(?P<user>\d+)_assignsubmission_(?:file|onlinetext)_"
                    r"(?P<file>.*)$", re.DOTALL)


def lms_name(stem: str, from_lms: bool = True) -> tuple[str, str, str, bool, str]:
    """(student, lms, lms id, late, original file stem) parsed from an LMS file name.

    Only a name inside an LMS zip the grader unpacked itself is parsed (``from_lms``):
    anyone can name a file in a plain folder like a classmate's download, and the LMS id
    it would carry decides whose grade the LMS changes."""
    if not from_lms:
        return stem, "", "", False, stem
    found = MOODLE.match(stem)
    if found:
        return found["name"], "moodle", found["user"], False, found["file"]
    found = CANVAS.match(stem)
    if found:
        return found["name"], "canvas", found["user"], bool(found["late"]), found["file"] or ""
    return stem, "", "", False, stem


def _shortened(part: str) -> str:
    """A name of at most ``MAX_NAME_BYTES`` bytes: its start and its end, where an LMS puts
    the student's name and ids and the file's extension, with ``~`` for the middle."""
    raw = os.fsencode(part)
    if len(raw) <= MAX_NAME_BYTES:
        return part
    keep = (MAX_NAME_BYTES - 1) // 2
    head = raw[:keep].decode("utf-8", errors="ignore")
    tail = raw[-keep:].decode("utf-8", errors="ignore")
    return os.fsdecode(os.fsencode(head) + b"~" + os.fsencode(tail))


def _split(member: zipfile.ZipInfo) -> list[str]:
    return [p for p in member.filename.replace("\\", "/").split("/") if p not in ("", ".")]


def _member_parts(member: zipfile.ZipInfo) -> tuple[list[str], str]:
    """(the member's path parts, "") or ([], why it is not unpacked).  A name longer than
    a file system allows is shortened (``_shortened``), never a reason to drop the zip."""
    name = member.filename.replace("\\", "/")
    parts = _split(member)
    kind = stat.S_IFMT(member.external_attr >> 16)  # 0: no Unix file type given
    if (not parts or name.startswith("/") or ".." in parts
            or re.match(r"^[A-Za-z]:", name) or any("\x00" in p for p in parts)):
        return [], f"{member.filename[:200]} (outside the zip's folder)"
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        return [], f"{member.filename[:200]} (a link or special file)"
    if len(parts) > MAX_FOLDERS + 1:
        return [], f"{'/'.join(parts[:2])[:200]}/... (more than {MAX_FOLDERS} folders deep)"
    return [_shortened(p) for p in parts], ""


def unpack_zip(path: Path, target: Path, left_out: dict[str, list[str]] | None = None
               ) -> list[str]:
    """Unpack an LMS download safely; return warnings for what was left out.

    No member is written outside ``target`` (absolute names and ``..`` are refused),
    links and devices are never created, and the bytes actually written are counted
    (a zip's own size fields are not trusted) against a cap per member and per zip.
    A zip inside the zip (a student's own) is left packed: it gets no row of its own.
    One member that cannot be unpacked (too deep, a name too long, ...) is left out on
    its own: its student's folder is still made, so that the student gets a row, and
    ``left_out`` (when given) maps that folder's name to what was left out of it.
    """
    left_out = {} if left_out is None else left_out
    warnings: list[str] = []
    skipped: list[str] = []
    shortened = 0
    written = 0
    target.mkdir(parents=True, exist_ok=False)
    with zipfile.ZipFile(path) as archive:
        members = archive.infolist()
        if len(members) > MAX_ZIP_MEMBERS:
            raise ValueError(f"more than {MAX_ZIP_MEMBERS} entries")
        for member in members:
            parts, refusal = _member_parts(member)
            if refusal:
                skipped.append(refusal)
                _student_folder(target, member, refusal, left_out)
                continue
            shortened += any(len(os.fsencode(p)) > MAX_NAME_BYTES for p in _split(member))
            destination = target.joinpath(*parts)
            try:
                if member.is_dir():
                    destination.mkdir(parents=True, exist_ok=True)
                    continue
                size = _write_member(archive, member, destination, MAX_ZIP_BYTES - written)
                written += size
            except FileExistsError:
                skipped.append(f"{member.filename[:200]} (twice in the zip)")
                continue
            except (OSError, zipfile.BadZipFile, NotImplementedError, RuntimeError) as error:
                if not member.is_dir():
                    destination.unlink(missing_ok=True)
                refusal = f"{member.filename[:200]} ({getattr(error, 'strerror', None) or error})"
                skipped.append(refusal)
                _student_folder(target, member, refusal, left_out)
                continue
            if size > MAX_ZIP_MEMBER_BYTES:
                destination.unlink()
                skipped.append(f"{member.filename[:200]} (larger than "
                               f"{MAX_ZIP_MEMBER_BYTES // MB} MB unpacked)")
            if written > MAX_ZIP_BYTES:
                destination.unlink(missing_ok=True)
                warnings.append(f"{display_name(str(path))}: stopped unpacking at "
                                f"{MAX_ZIP_BYTES // 2**30} GB; the rest got no row")
                break
    return warnings + _left_out_warnings(path, shortened, skipped)


def _left_out_warnings(path: Path, shortened: int, skipped: list[str]) -> list[str]:
    warnings = []
    if shortened:
        warnings.append(f"{display_name(str(path))}: {shortened} name"
                        f"{'s' if shortened != 1 else ''} longer than {MAX_NAME_BYTES} bytes "
                        "shortened (the middle replaced by ~)")
    if skipped:
        warnings.append(f"{display_name(str(path))}: {len(skipped)} entr"
                        f"{'ies' if len(skipped) != 1 else 'y'} not unpacked: "
                        + ", ".join(display_name(s) for s in skipped[:10]))
    return warnings


def _write_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, destination: Path,
                  allowed: int) -> int:
    """Write one member; the bytes its data had, counted as written (a zip's own size
    fields are not trusted), one past the cap when it stopped at ``MAX_ZIP_MEMBER_BYTES``
    or at ``allowed``, what the zip may still unpack."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    size = 0
    with archive.open(member) as source, open(destination, "xb") as out:
        while chunk := source.read(MB):
            size += len(chunk)
            if size > MAX_ZIP_MEMBER_BYTES or size > allowed:
                break
            out.write(chunk)
    return size


def _student_folder(target: Path, member: zipfile.ZipInfo, refusal: str,
                    left_out: dict[str, list[str]]) -> None:
    """The folder of the student whose member was left out (an LMS folder name first in
    the member's path), made empty if need be: the student's row then says why."""
    parts = _split(member)
    if len(parts) < 2 or parts[0] == ".." or "\x00" in parts[0] or not lms_name(parts[0])[1]:
        return
    folder = _shortened(parts[0])
    try:
        (target / folder).mkdir(exist_ok=True)
    except OSError:
        return
    left_out.setdefault(folder, []).append(refusal)
