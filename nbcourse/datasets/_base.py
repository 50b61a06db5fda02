"""Fetch, cache and checksum: the machinery every real corpus shares.

Nothing here knows a particular corpus. A corpus module describes its files (where the
original lives, its checksum, how to parse it) and calls these helpers:

- where to look: ``NBCOURSE_DATA`` (:func:`shared_data_dir`), the user cache
  (:func:`cache_root`), the classroom mirror (:func:`source_url`);
- how to fetch: :func:`download`, with a timeout (:func:`download_timeout`) and a
  progress line on stderr;
- what to say when it goes wrong: the three error classes below, whose messages name
  the ways to provide a corpus (:func:`how_to_provide`).
"""
from __future__ import annotations

import hashlib
import os
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from http.client import HTTPException
from pathlib import Path

#: Seconds a download waits for the server before giving up, unless
#: ``NBCOURSE_DOWNLOAD_TIMEOUT`` says otherwise.
DOWNLOAD_TIMEOUT_SECONDS = 60.0
_MIRROR_SCHEMES = ("http", "https", "file")


class _ShortTraceback:
    """Show only the message in Jupyter: IPython calls ``_render_traceback_`` if it exists.

    A lesson cell whose corpus is missing then shows what to do, not forty lines of
    urllib internals that end in it.
    """

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class DownloadError(_ShortTraceback, OSError):
    """A corpus could not be downloaded: network failure, timeout, server error, truncated file."""


class ChecksumError(_ShortTraceback, OSError):
    """A corpus did not match its published SHA-256, so it was not used and not cached."""


class CorpusNotFoundError(_ShortTraceback, FileNotFoundError):
    """The corpus is on none of the places searched, and downloading was not allowed."""


# -- where to look ------------------------------------------------------------------------------

def cache_root(cache_dir=None) -> Path:
    """``cache_dir``, else ``$NBCOURSE_CACHE``, else ``$XDG_CACHE_HOME/nbcourse`` or ``~/.cache/nbcourse``."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    if os.environ.get("NBCOURSE_CACHE"):
        return Path(os.environ["NBCOURSE_CACHE"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "nbcourse"


def shared_data_dir() -> Path | None:
    """The ``NBCOURSE_DATA`` folder, or None if the variable is unset or empty."""
    value = os.environ.get("NBCOURSE_DATA")
    if not value:
        return None
    folder = Path(value).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(
            f"NBCOURSE_DATA is set to {value!r}, which is not a folder. Point it at a folder "
            "laid out like sms_spam/SMSSpamCollection, spambase/spambase.data and "
            "20newsgroups/20news-bydate.tar.gz, or unset it.")
    return folder


def mirror_base() -> str | None:
    """``$NBCOURSE_MIRROR`` without its trailing slash, checked; None when unset."""
    value = os.environ.get("NBCOURSE_MIRROR", "").strip()
    if not value:
        return None
    scheme = urllib.parse.urlsplit(value).scheme.lower()
    if scheme not in _MIRROR_SCHEMES:
        raise ValueError(
            f"NBCOURSE_MIRROR is set to {value!r}, which is not an http://, https:// or file:// "
            "address. Set it to the folder (URL) that holds sms+spam+collection.zip, "
            "spambase.zip and 20news-bydate.tar.gz, e.g. http://course-server/nbcourse-data "
            "or file:///srv/nbcourse-data, or unset it.")
    return value.rstrip("/")


def source_url(original: str) -> str:
    """Where to download ``original`` from: the mirror if one is set, else the original host.

    A mirror serves each file under the last path segment of its original URL, so
    ``https://archive.ics.uci.edu/static/public/94/spambase.zip`` becomes
    ``<NBCOURSE_MIRROR>/spambase.zip``.
    """
    base = mirror_base()
    if base is None:
        return original
    return f"{base}/{urllib.parse.urlsplit(original).path.rsplit('/', 1)[-1]}"


def download_timeout() -> float:
    """``$NBCOURSE_DOWNLOAD_TIMEOUT`` in seconds, else :data:`DOWNLOAD_TIMEOUT_SECONDS`."""
    value = os.environ.get("NBCOURSE_DOWNLOAD_TIMEOUT", "").strip()
    if not value:
        return DOWNLOAD_TIMEOUT_SECONDS
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"NBCOURSE_DOWNLOAD_TIMEOUT must be a positive number of seconds, got {value!r}")
    return seconds


# -- what to tell the user ----------------------------------------------------------------------

def how_to_provide(title: str, local_layout: str, original_url: str, cache_dir=None) -> str:
    """The ways to give the loaders a corpus, for the end of every error message."""
    name = urllib.parse.urlsplit(original_url).path.rsplit("/", 1)[-1]
    return (
        f"To provide {title}, do one of these:\n"
        f"  1. set NBCOURSE_DATA to a folder that holds {local_layout};\n"
        f"  2. set NBCOURSE_MIRROR to a classroom server or folder (http://, https:// or "
        f"file://) that serves {name};\n"
        f"  3. connect to the internet: it is downloaded once from {original_url}, checked, "
        f"and kept in {cache_root(cache_dir)}.\n"
        "A loader also accepts path= the file, its folder or the original archive.")


def checksum_error(what: str, expected: str, actual: str, saved: str, how: str) -> ChecksumError:
    return ChecksumError(
        f"{what} does not match the published checksum.\n  expected sha256 {expected}\n"
        f"  actual   sha256 {actual}\n{saved}\n{how}")


# -- how to fetch -------------------------------------------------------------------------------

def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class _Progress:
    """A byte counter on stderr, updated at most a few times a second."""

    def __init__(self, label: str, total: int | None):
        self.label, self.total = label, total
        self.last = time.monotonic()

    @staticmethod
    def _size(n: int) -> str:
        return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"

    def show(self, received: int, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self.last < 0.25:
            return
        self.last = now
        of_total = f" of {self._size(self.total)}" if self.total else ""
        end = "\n" if final else ""
        print(f"\r  downloading {self.label}: {self._size(received)}{of_total}",
              end=end, file=sys.stderr, flush=True)


def _is_timeout(exc: BaseException) -> bool:
    reason = getattr(exc, "reason", None)
    return isinstance(exc, (TimeoutError, socket.timeout)) or isinstance(reason, (TimeoutError, socket.timeout))


def download(url: str, destination: Path, how: str) -> None:
    """Fetch ``url`` into ``destination`` (a path inside a temporary folder).

    Raises :class:`DownloadError` for anything that goes wrong; ``how`` (from
    :func:`how_to_provide`) ends its message.
    """
    label = url.rsplit("/", 1)[-1] or url
    timeout = download_timeout()
    request = urllib.request.Request(url, headers={"User-Agent": "nbcourse"})
    total = None
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response, \
                open(destination, "wb") as out:
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            progress = _Progress(label, total)
            received = 0
            for block in iter(lambda: response.read(1 << 16), b""):
                out.write(block)
                received += len(block)
                progress.show(received)
            progress.show(received, final=True)
    except urllib.error.HTTPError as exc:
        raise DownloadError(
            f"could not download {url}: the server answered HTTP {exc.code} {exc.reason}. "
            f"Nothing was saved.\n{how}") from exc
    except Exception as exc:  # noqa: BLE001 - every failure becomes one clear message
        if _is_timeout(exc):
            raise DownloadError(
                f"could not download {url}: the server did not answer within {timeout:g} s "
                f"(NBCOURSE_DOWNLOAD_TIMEOUT sets this limit). Nothing was saved.\n{how}") from exc
        if not isinstance(exc, (urllib.error.URLError, HTTPException, OSError, ValueError)):
            raise
        reason = getattr(exc, "reason", exc)
        raise DownloadError(f"could not download {url}: {reason}. Nothing was saved.\n{how}") from exc
    if total is not None and received != total:
        raise DownloadError(
            f"download of {url} stopped after {received:,} of {total:,} bytes. "
            f"Nothing was saved. Try again.\n{how}")
