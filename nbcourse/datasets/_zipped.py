"""Corpora published by UCI as one file inside a zip: found, checked and fetched alike.

The SMS Spam Collection and Spambase differ only in their names, checksum and parser,
which a :class:`ZippedCorpus` holds. :func:`load_zipped` looks for the file in this order:

1. ``path=``: the file, a folder holding it, or the zip;
2. ``$NBCOURSE_DATA/<folder>/<filename>``;
3. the copy shipped with the course (``shipped_data_dir()/<folder>/<filename>``);
4. the user cache (``<cache>/<folder>/<filename>``);
5. a download of the zip from the original host or ``$NBCOURSE_MIRROR``.

Copies found in 3-5 must match the published SHA-256. A file the user points at (1-2)
that parses but differs is used with a warning, since it may be a deliberate edit.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pandas as pd

from . import _base
from ._shipped import shipped_data_dir


@dataclass(frozen=True)
class ZippedCorpus:
    title: str       # for messages: "the SMS Spam Collection v.1"
    filename: str    # the file inside the zip, and in NBCOURSE_DATA/<folder>/
    folder: str
    url: str         # the original; its last path segment is the name on a mirror
    sha256: str      # of the extracted file
    parse: Callable[[bytes, str], pd.DataFrame]

    def how_to_provide(self, cache_dir=None) -> str:
        return _base.how_to_provide(self.title, f"{self.folder}/{self.filename}", self.url, cache_dir)


def _bytes_from_zip(spec: ZippedCorpus, path: Path) -> bytes:
    with zipfile.ZipFile(path) as archive:
        members = [m for m in archive.namelist() if PurePosixPath(m).name == spec.filename]
        if not members:
            raise ValueError(f"zip archive {str(path)!r} has no {spec.filename} file inside")
        return archive.read(members[0])


def _bytes_from_local(spec: ZippedCorpus, path: Path) -> tuple[bytes, str]:
    """The corpus file's bytes from a file, a folder or the zip, and where they came from."""
    if not path.exists():
        raise FileNotFoundError(f"path {str(path)!r} does not exist.\n{spec.how_to_provide()}")
    if path.is_dir():
        for candidate in (path / spec.filename, path / spec.folder / spec.filename):
            if candidate.is_file():
                return candidate.read_bytes(), str(candidate)
        raise FileNotFoundError(
            f"folder {str(path)!r} contains neither {spec.filename} nor "
            f"{spec.folder}/{spec.filename}.\n{spec.how_to_provide()}")
    if zipfile.is_zipfile(path):
        return _bytes_from_zip(spec, path), f"{path}!{spec.filename}"
    return path.read_bytes(), str(path)


def _checked_local(spec: ZippedCorpus, raw: bytes, source: str) -> pd.DataFrame:
    """Parse a file the user provided; a copy that differs is used, with a warning."""
    frame = spec.parse(raw, source)
    actual = hashlib.sha256(raw).hexdigest()
    if actual != spec.sha256:
        warnings.warn(
            f"{source} is not byte-identical to {spec.title} (sha256 {actual[:12]}..., "
            f"expected {spec.sha256[:12]}...); counts and accuracies may differ from the course's",
            stacklevel=4)
    return frame


def _verified(spec: ZippedCorpus, file: Path) -> bytes | None:
    """The bytes of ``file`` if it exists and matches the checksum, else None (with a warning
    when it exists but differs)."""
    if not file.is_file():
        return None
    raw = file.read_bytes()
    actual = hashlib.sha256(raw).hexdigest()
    if actual == spec.sha256:
        return raw
    warnings.warn(f"{file} is damaged (sha256 {actual[:12]}..., expected {spec.sha256[:12]}...), "
                  "so it is not used", stacklevel=4)
    return None


def _download_zipped(spec: ZippedCorpus, cache_file: Path, cache_dir) -> bytes:
    """Download the zip into a scratch folder, check the file, then move it into the cache."""
    url = _base.source_url(spec.url)
    how = spec.how_to_provide(cache_dir)
    cache_file.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=cache_file.parent) as scratch:
        archive = Path(scratch) / "download.zip"
        _base.download(url, archive, how)
        try:
            raw = _bytes_from_zip(spec, archive)
        except (zipfile.BadZipFile, ValueError) as exc:
            raise _base.DownloadError(
                f"{url} did not deliver the expected zip archive ({exc}). Nothing was saved.\n{how}"
            ) from exc
        actual = hashlib.sha256(raw).hexdigest()
        if actual != spec.sha256:
            raise _base.checksum_error(f"{spec.filename} downloaded from {url}", spec.sha256, actual,
                                       "Nothing was saved.", how)
        staged = Path(scratch) / spec.filename
        staged.write_bytes(raw)
        os.replace(staged, cache_file)
    return raw


def locate_zipped(spec: ZippedCorpus, download: bool, cache_dir) -> tuple[bytes, str, bool]:
    """The corpus bytes from NBCOURSE_DATA, the shipped copy, the cache or a download.

    Returns ``(raw, source, verified)``; ``verified`` is False only for an NBCOURSE_DATA
    copy, which is used even if it differs (with a warning).
    """
    shared = _base.shared_data_dir()
    if shared is not None and (shared / spec.folder / spec.filename).is_file():
        local = shared / spec.folder / spec.filename
        return local.read_bytes(), str(local), False
    shipped = shipped_data_dir() / spec.folder / spec.filename
    raw = _verified(spec, shipped)
    if raw is not None:
        return raw, str(shipped), True
    cache_file = _base.cache_root(cache_dir) / spec.folder / spec.filename
    raw = _verified(spec, cache_file)
    if raw is not None:
        return raw, str(cache_file), True
    if not download:
        raise _base.CorpusNotFoundError(
            f"{spec.title} is not on this machine (looked at NBCOURSE_DATA, the course's data "
            f"folder and the cache) and download=False.\n{spec.how_to_provide(cache_dir)}")
    return _download_zipped(spec, cache_file, cache_dir), str(cache_file), True


def load_zipped(spec: ZippedCorpus, path, download: bool, cache_dir) -> pd.DataFrame:
    if path is not None:
        raw, source = _bytes_from_local(spec, Path(path).expanduser())
        return _checked_local(spec, raw, source)
    raw, source, verified = locate_zipped(spec, download, cache_dir)
    if not verified:
        return _checked_local(spec, raw, source)
    return spec.parse(raw, source)
