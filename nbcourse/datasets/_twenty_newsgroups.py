"""20 Newsgroups, "bydate" split: 18,846 Usenet posts in 20 groups, downloaded, never shipped.

The archive is extracted once into ``<cache>/20newsgroups/20news-bydate/`` and checked
by a digest of its posts' contents (see PROVENANCE in ``data/README.md``), so any
faithful packing of the archive is accepted. A ``VERIFIED.json`` marker in that folder
records the check; a folder without it is never trusted.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._checks import check_bool
from . import _base

NEWSGROUPS_URL = "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz"
#: SHA-256 of the ``sha256sum`` listing of all 18,846 posts, sorted by path.
#: It depends only on the posts, not on how the archive was packed.
NEWSGROUPS_CONTENT_SHA256 = "20701c5675b5327116388288aa3225c61bc1005708ccbda9bfb83c22891263d6"
NEWSGROUPS_ARCHIVE_NAME = "20news-bydate.tar.gz"
NEWSGROUPS_SPLITS = {"train": "20news-bydate-train", "test": "20news-bydate-test"}
_MARKER = "VERIFIED.json"


def _how(cache_dir=None) -> str:
    return _base.how_to_provide("20 Newsgroups", f"20newsgroups/{NEWSGROUPS_ARCHIVE_NAME}",
                                NEWSGROUPS_URL, cache_dir)


@dataclass(frozen=True, repr=False, eq=False)
class TextCorpus:
    """Documents with integer labels, laid out like scikit-learn's ``load_files`` result.

    ``data[i]`` is the text of document ``i``, ``target[i]`` its class number,
    ``target_names[target[i]]`` its class name and ``filenames[i]`` the file it came from.
    ``data`` is None when the posts were not read (``load_content=False``).
    """

    data: list | None
    target: np.ndarray
    target_names: list
    filenames: np.ndarray

    def __len__(self) -> int:
        return len(self.target)

    def __repr__(self) -> str:
        return f"TextCorpus({len(self.data)} documents, {len(self.target_names)} classes)"


_POST_PATH = re.compile(r"^20news-bydate-(train|test)/[^/]+/[^/]+$")


def _content_digest(listing: list[tuple[str, str]]) -> str:
    """sha256 of ``find ... -type f | LC_ALL=C sort | xargs sha256sum`` output."""
    lines = "".join(f"{digest}  {name}\n" for name, digest in
                    sorted(listing, key=lambda item: item[0].encode("utf-8")))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def _read_marker(folder: Path) -> dict | None:
    try:
        marker = json.loads((folder / _MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or marker.get("content_sha256") != NEWSGROUPS_CONTENT_SHA256:
        return None
    return marker


def _write_marker(folder: Path, archive_digests: list[str]) -> None:
    staged = folder / (_MARKER + ".tmp")
    staged.write_text(json.dumps({"content_sha256": NEWSGROUPS_CONTENT_SHA256,
                                  "archive_sha256": sorted(set(archive_digests))}, indent=1),
                      encoding="utf-8")
    os.replace(staged, folder / _MARKER)


def _extract_newsgroups(archive: Path, destination: Path, what: str) -> None:
    """Unpack the train/test posts of ``archive`` into ``destination`` and check their digest.

    Only regular files at ``20news-bydate-{train,test}/<group>/<post>`` are written, so a
    hostile archive cannot place files anywhere else.
    """
    listing = []
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:
                name = member.name[2:] if member.name.startswith("./") else member.name
                if not member.isfile() or not _POST_PATH.match(name):
                    continue
                parts = name.split("/")
                if any(part in ("", ".", "..") for part in parts):
                    continue
                content = tar.extractfile(member).read()
                target = destination.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
                listing.append((name, hashlib.sha256(content).hexdigest()))
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise ValueError(f"{what} is not a readable .tar.gz archive ({exc})") from exc
    actual = _content_digest(listing)
    if actual != NEWSGROUPS_CONTENT_SHA256:
        raise _base.checksum_error(
            f"the {len(listing):,} posts in {what} (content digest, see PROVENANCE)",
            NEWSGROUPS_CONTENT_SHA256, actual, "Nothing was saved to the cache.", _how())


def _install_extracted(archive: Path, archive_digest: str, final: Path, what: str) -> Path:
    """Extract into a temporary folder next to ``final``, verify, then rename into place."""
    final.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".extract-", dir=final.parent))
    try:
        print(f"  extracting {what} into {final} (once) ...", file=sys.stderr, flush=True)
        _extract_newsgroups(archive, scratch, what)
        existing = _read_marker(final)
        if existing is not None:  # another process won the race, or a different archive
            _write_marker(final, existing.get("archive_sha256", []) + [archive_digest])
            return final
        _write_marker(scratch, [archive_digest])
        os.chmod(scratch, 0o755)  # mkdtemp makes it private; the cache folder need not be
        if final.exists():  # an unverified leftover in our own cache: replace it
            shutil.rmtree(final)
        try:
            os.rename(scratch, final)
        except OSError:
            if _read_marker(final) is None:  # not a concurrent extraction that got there first
                raise
        return final
    finally:
        if scratch.exists():
            shutil.rmtree(scratch, ignore_errors=True)


def _newsgroups_from_archive(archive: Path, cache_root: Path) -> Path:
    final = cache_root / "20newsgroups" / "20news-bydate"
    digest = _base.sha256_file(archive)
    marker = _read_marker(final)
    if marker is not None and digest in marker.get("archive_sha256", []):
        return final
    return _install_extracted(archive, digest, final, str(archive))


def _download_newsgroups(cache_root: Path, cache_dir) -> Path:
    final = cache_root / "20newsgroups" / "20news-bydate"
    final.parent.mkdir(parents=True, exist_ok=True)
    url = _base.source_url(NEWSGROUPS_URL)
    how = _how(cache_dir)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=final.parent) as scratch:
        archive = Path(scratch) / NEWSGROUPS_ARCHIVE_NAME
        _base.download(url, archive, how)
        try:
            return _install_extracted(archive, _base.sha256_file(archive), final,
                                      f"the archive downloaded from {url}")
        except ValueError as exc:
            raise _base.DownloadError(
                f"{url} did not deliver a readable archive ({exc}). Nothing was saved.\n{how}") from exc


def _is_extracted_newsgroups(folder: Path) -> bool:
    return all((folder / split).is_dir() for split in NEWSGROUPS_SPLITS.values())


def _from_path(path: Path, cache_root: Path) -> Path:
    if not path.exists():
        raise FileNotFoundError(f"path {str(path)!r} does not exist.\n{_how()}")
    if path.is_dir():
        if _is_extracted_newsgroups(path):
            return path
        if (path / NEWSGROUPS_ARCHIVE_NAME).is_file():
            return _newsgroups_from_archive(path / NEWSGROUPS_ARCHIVE_NAME, cache_root)
        raise FileNotFoundError(
            f"folder {str(path)!r} holds neither 20news-bydate-train/ and 20news-bydate-test/ "
            f"nor {NEWSGROUPS_ARCHIVE_NAME}.\n{_how()}")
    try:
        is_archive = tarfile.is_tarfile(path)
    except (EOFError, OSError, tarfile.TarError) as exc:
        raise ValueError(f"path {str(path)!r} is not a readable .tar.gz archive ({exc}).\n{_how()}") from exc
    if not is_archive:
        raise ValueError(
            f"path {str(path)!r} is not a .tar.gz archive, so it is not {NEWSGROUPS_ARCHIVE_NAME}.\n"
            f"{_how()}")
    return _newsgroups_from_archive(path, cache_root)


def newsgroups_folder(path=None, *, download: bool = True, cache_dir=None) -> Path:
    """The folder holding ``20news-bydate-train/`` and ``20news-bydate-test/``.

    Looked for at ``path=``, then ``$NBCOURSE_DATA/20newsgroups/20news-bydate.tar.gz``
    (extracted into the cache once), then the cache, then downloaded from the original
    host or ``$NBCOURSE_MIRROR`` (unless ``download=False``).
    """
    cache_root = _base.cache_root(cache_dir)
    if path is not None:
        return _from_path(Path(path).expanduser(), cache_root)
    shared = _base.shared_data_dir()
    if shared is not None and (shared / "20newsgroups" / NEWSGROUPS_ARCHIVE_NAME).is_file():
        return _newsgroups_from_archive(shared / "20newsgroups" / NEWSGROUPS_ARCHIVE_NAME, cache_root)
    final = cache_root / "20newsgroups" / "20news-bydate"
    if _read_marker(final) is not None:
        return final
    if not download:
        raise _base.CorpusNotFoundError(
            "20 Newsgroups is not on this machine (looked at NBCOURSE_DATA and the cache "
            f"{final}) and download=False.\n{_how(cache_dir)}")
    return _download_newsgroups(cache_root, cache_dir)


def _read_split(folder: Path, load_content: bool = True) -> tuple[list[str], list[int], list[str], list[str]]:
    """Posts of one split in ``load_files`` order: groups sorted, then file names sorted
    (their texts left unread, ``data`` empty, without ``load_content``)."""
    groups = sorted(entry.name for entry in os.scandir(folder) if entry.is_dir())
    if not groups:
        raise ValueError(f"{folder} contains no newsgroup folders")
    data, target, filenames = [], [], []
    for number, group in enumerate(groups):
        group_dir = os.path.join(folder, group)
        for name in sorted(os.listdir(group_dir)):
            filename = os.path.join(group_dir, name)
            if not os.path.isfile(filename):
                continue
            if load_content:
                with open(filename, "rb") as handle:
                    data.append(handle.read().decode("latin-1"))
            target.append(number)
            filenames.append(filename)
    return data, target, groups, filenames


def load_20newsgroups(subset: str = "train", path=None, *, download: bool = True,
                      cache_dir=None, load_content: bool = True) -> TextCorpus:
    """The 20 Newsgroups "bydate" split: ``subset`` is ``'train'``, ``'test'`` or ``'all'``.

    train has 11,314 posts, test 7,532, both over the same 20 groups. Posts are read as
    latin-1 (as scikit-learn does: 73 of them are not valid UTF-8) and ordered by group,
    then by file name, like ``sklearn.datasets.load_files(..., shuffle=False)``.
    ``'all'`` is train followed by test. The archive is extracted into the cache once,
    so later calls only read the files. With ``load_content=False`` (as scikit-learn's
    ``load_files``) the posts are not read: ``data`` is None, the file names and labels
    are there, for a program that reads the files itself (lesson 07).
    """
    if subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test' or 'all', got {subset!r}")
    check_bool(load_content, "load_content")
    folder = newsgroups_folder(path, download=download, cache_dir=cache_dir)
    splits = ["train", "test"] if subset == "all" else [subset]
    data, target, filenames, names = [], [], [], None
    for split in splits:
        split_data, split_target, groups, split_files = _read_split(folder / NEWSGROUPS_SPLITS[split],
                                                                    load_content)
        if names is not None and groups != names:
            raise ValueError(f"train and test in {folder} have different newsgroup folders")
        names = groups
        data += split_data
        target += split_target
        filenames += split_files
    return TextCorpus(data=data if load_content else None,
                      target=np.asarray(target, dtype=np.int64), target_names=names,
                      filenames=np.asarray(filenames))


def load_20newsgroups_if_available(subset: str = "train", *, otherwise: str,
                                   load_content: bool = True) -> TextCorpus | None:
    """20 Newsgroups if it is here or can be downloaded; else ``None``, saying why and what next.

    The lessons that use 20 Newsgroups must still run offline. When the corpus cannot be
    had, this prints "20 Newsgroups is not available, so <otherwise>; the numbers will
    differ from the text." followed by the loader's message (which says how to provide
    the corpus), and returns ``None``; the lesson then does what ``otherwise`` says
    (e.g. ``"sections 4 and 6 use the SMS messages"``). Any other error is raised.
    """
    if not isinstance(otherwise, str) or not otherwise.strip():
        raise TypeError("otherwise must say what the lesson does without the corpus, as a sentence part")
    try:
        return load_20newsgroups(subset, load_content=load_content)
    except OSError as problem:                 # not on this machine, and the download failed
        print(f"20 Newsgroups is not available, so {otherwise}; the numbers will differ "
              f"from the text.\n{problem}\n")
        return None
