"""Loaders for the course's data: the small tables it ships and the real corpora it fetches.

Shipped tables (``load_weather``, ``load_picnic``, ``load_sms_mini``)
    The CSV/TSV files live in the repository's top-level ``data/`` folder, which is the
    only copy: there is no second copy inside the package to drift out of date. The
    course is installed from its checkout (``pip install -e .``, as the README says), so
    the loader finds ``data/`` next to the ``nbcourse/`` package folder. A regular,
    non-editable install only has the files if the build copies them into the
    environment (setuptools ``data-files`` puts them in ``<prefix>/share/nbcourse/data``),
    so that place is searched too. ``NBCOURSE_SHIPPED_DATA`` overrides both.

Real corpora (``load_sms_spam``, ``load_20newsgroups``, ``load_spambase``)
    These are not shipped. Each loader looks for the corpus in this order:

    1. ``path=``: a file, a folder, or the original archive;
    2. the ``NBCOURSE_DATA`` environment variable: a folder laid out like
       ``sms_spam/SMSSpamCollection`` and ``20newsgroups/20news-bydate.tar.gz``;
    3. the user cache: ``cache_dir=``, else ``$NBCOURSE_CACHE``, else ``~/.cache/nbcourse``;
    4. a download from the original source (unless ``download=False``).

    Downloads go into a temporary folder inside the cache and are renamed into place
    only after their SHA-256 matches. A failed download therefore never leaves a
    half-written corpus that a later run would trust.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import sysconfig
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd

# -- where things come from -------------------------------------------------------------------

SMS_SPAM_URL = "https://archive.ics.uci.edu/static/public/228/sms+spam+collection.zip"
#: SHA-256 of the extracted ``SMSSpamCollection`` file (SMS Spam Collection v.1).
SMS_SPAM_SHA256 = "7d039a24a6083ed9ef0f806ebad56bbb976e3aeb8de05669173bfdc4996c239d"
SMS_SPAM_FILENAME = "SMSSpamCollection"

NEWSGROUPS_URL = "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz"
#: SHA-256 of the ``sha256sum`` listing of all 18,846 posts, sorted by path.
#: It depends only on the posts, not on how the archive was packed.
NEWSGROUPS_CONTENT_SHA256 = "20701c5675b5327116388288aa3225c61bc1005708ccbda9bfb83c22891263d6"
NEWSGROUPS_ARCHIVE_NAME = "20news-bydate.tar.gz"
NEWSGROUPS_SPLITS = {"train": "20news-bydate-train", "test": "20news-bydate-test"}

DOWNLOAD_TIMEOUT_SECONDS = 60
_MARKER = "VERIFIED.json"


class DownloadError(OSError):
    """A corpus could not be downloaded: network failure, server error, or a truncated file."""


class ChecksumError(OSError):
    """A corpus did not match its published SHA-256, so it was not used and not cached."""


class CorpusNotFoundError(FileNotFoundError):
    """The corpus is on none of the places searched, and downloading was not allowed."""


# -- shipped tables ---------------------------------------------------------------------------

def shipped_data_dir() -> Path:
    """The folder that holds ``weather.csv``, ``picnic.csv`` and ``sms_mini.tsv``.

    ``$NBCOURSE_SHIPPED_DATA`` if set; else the package's own copy of ``data/``, read with
    importlib.resources (``nbcourse.resources``): inside the installed package for a wheel,
    the checkout's ``data/`` for the editable install the README uses.
    """
    override = os.environ.get("NBCOURSE_SHIPPED_DATA")
    if override:
        folder = Path(override)
        if not (folder / "weather.csv").is_file():
            raise FileNotFoundError(
                f"NBCOURSE_SHIPPED_DATA is set to {override!r}, which has no weather.csv; "
                "unset it to use the data shipped with nbcourse.")
        return folder
    from .resources import data_dir
    return data_dir()


def _read_table(filename: str) -> pd.DataFrame:
    # keep_default_na=False: a value such as "none" or "NA" stays a string, never NaN.
    return pd.read_csv(shipped_data_dir() / filename, dtype=str, keep_default_na=False)


def load_weather() -> pd.DataFrame:
    """The 14-day weather table (Quinlan's "play tennis"; Weka's ``weather.nominal.arff``).

    Columns ``outlook``, ``temperature``, ``humidity``, ``windy``, ``play``, all
    lower-case strings (``windy`` is ``"true"``/``"false"``); 9 days ``play == "yes"``,
    5 ``"no"``. It is the table the course counts by hand.
    """
    return _read_table("weather.csv")


def load_picnic() -> pd.DataFrame:
    """Mitchell's EnjoySport table (*Machine Learning*, ch. 2): 4 days, 6 attributes.

    Columns ``sky``, ``temp``, ``humid``, ``wind``, ``water``, ``forecast``, ``enjoy``,
    lower-case strings. Four rows against 2**6 attribute combinations: the course
    uses it to show why a full joint table needs far more data than naive Bayes.
    """
    return _read_table("picnic.csv")


def load_sms_mini() -> pd.DataFrame:
    """The course's own 80-message SMS corpus (columns ``label``, ``text``).

    Written for nbcourse so that text notebooks run without any download; it is far too
    small to give the accuracy figures of the real SMS Spam Collection.
    """
    path = shipped_data_dir() / "sms_mini.tsv"
    frame = _parse_sms(path.read_text(encoding="utf-8"), path)
    frame.attrs["source"] = "nbcourse mini SMS corpus (data/sms_mini.tsv)"
    return frame


# -- common plumbing --------------------------------------------------------------------------

def _cache_root(cache_dir) -> Path:
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    if os.environ.get("NBCOURSE_CACHE"):
        return Path(os.environ["NBCOURSE_CACHE"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "nbcourse"


def _shared_data_dir() -> Path | None:
    """The ``NBCOURSE_DATA`` folder, or None if the variable is unset."""
    value = os.environ.get("NBCOURSE_DATA")
    if not value:
        return None
    folder = Path(value).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(
            f"NBCOURSE_DATA is set to {value!r}, which is not a folder. Point it at a folder "
            "containing sms_spam/SMSSpamCollection and/or 20newsgroups/20news-bydate.tar.gz, "
            "or unset it.")
    return folder


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _how_to_provide(corpus: str) -> str:
    if corpus == "sms":
        return ("If you already have the corpus, pass path= the SMSSpamCollection file, its folder "
                "or the UCI zip, or set NBCOURSE_DATA to a folder containing sms_spam/SMSSpamCollection.")
    if corpus == "spambase":
        return ("If you already have it, pass path= the spambase.data file, its folder or the UCI "
                "zip, or set NBCOURSE_DATA to a folder containing spambase/spambase.data.")
    return ("If you already have the corpus, pass path= the 20news-bydate.tar.gz archive or the "
            "folder holding 20news-bydate-train/ and 20news-bydate-test/, or set NBCOURSE_DATA to "
            "a folder containing 20newsgroups/20news-bydate.tar.gz.")


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


def _download(url: str, destination: Path, corpus: str) -> None:
    """Fetch ``url`` into ``destination`` (a path inside a temporary folder)."""
    label = url.rsplit("/", 1)[-1] or url
    request = urllib.request.Request(url, headers={"User-Agent": "nbcourse"})
    try:
        with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT_SECONDS) as response, \
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
        if total is not None and received != total:
            raise DownloadError(
                f"download of {url} stopped after {received:,} of {total:,} bytes. "
                f"Nothing was saved. Try again, or: {_how_to_provide(corpus)}")
    except DownloadError:
        raise
    except urllib.error.HTTPError as exc:
        raise DownloadError(
            f"could not download {url}: the server answered HTTP {exc.code} {exc.reason}. "
            f"Nothing was saved. {_how_to_provide(corpus)}") from exc
    except (urllib.error.URLError, HTTPException, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DownloadError(
            f"could not download {url}: {reason}. Nothing was saved. {_how_to_provide(corpus)}"
        ) from exc


def _checksum_error(what: str, expected: str, actual: str, corpus: str, saved: str) -> ChecksumError:
    return ChecksumError(
        f"{what} does not match the published checksum.\n  expected sha256 {expected}\n"
        f"  actual   sha256 {actual}\n{saved} {_how_to_provide(corpus)}")


# -- SMS Spam Collection ----------------------------------------------------------------------

_SMS_LABELS = frozenset({"ham", "spam"})


def _parse_sms(text: str, source) -> pd.DataFrame:
    """``label<TAB>message`` lines -> DataFrame; any other line is an error naming it."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    labels, messages = [], []
    for number, line in enumerate(lines, start=1):
        if line.endswith("\r"):  # a copy saved with Windows line endings
            line = line[:-1]
        label, tab, message = line.partition("\t")
        if not tab or label not in _SMS_LABELS:
            raise ValueError(
                f"{source} is not in SMS Spam Collection format: line {number} should be "
                f"'ham' or 'spam', a TAB, then the message, but reads {line[:60]!r}")
        labels.append(label)
        messages.append(message)
    if not labels:
        raise ValueError(f"{source} contains no messages")
    return pd.DataFrame({"label": labels, "text": messages})


@dataclass(frozen=True)
class _ZippedFile:
    """A corpus published as one file inside a zip archive, as UCI publishes them.

    The SMS Spam Collection and Spambase are found, checked and downloaded the same way;
    only their names and the parser differ. The URL and checksum are read from the module
    constants at call time, so tests can point a download at a local server.
    """

    corpus: str      # key for _how_to_provide
    title: str       # for messages: "the SMS Spam Collection"
    filename: str    # the file inside the zip and in NBCOURSE_DATA/<folder>/
    folder: str
    zip_name: str    # what the downloaded archive is saved as while it is checked
    url_constant: str
    sha256_constant: str
    parse: Callable[[bytes, str], pd.DataFrame]

    @property
    def url(self) -> str:
        return globals()[self.url_constant]

    @property
    def sha256(self) -> str:
        return globals()[self.sha256_constant]


def _bytes_from_local(spec: _ZippedFile, path: Path) -> tuple[bytes, str]:
    """The corpus file's bytes from a file, a folder or the zip, and where they came from."""
    if not path.exists():
        raise FileNotFoundError(f"path {str(path)!r} does not exist. {_how_to_provide(spec.corpus)}")
    if path.is_dir():
        for candidate in (path / spec.filename, path / spec.folder / spec.filename):
            if candidate.is_file():
                return candidate.read_bytes(), str(candidate)
        raise FileNotFoundError(
            f"folder {str(path)!r} contains neither {spec.filename} nor "
            f"{spec.folder}/{spec.filename}. {_how_to_provide(spec.corpus)}")
    if zipfile.is_zipfile(path):
        return _bytes_from_zip(spec, path), f"{path}!{spec.filename}"
    return path.read_bytes(), str(path)


def _bytes_from_zip(spec: _ZippedFile, path: Path) -> bytes:
    with zipfile.ZipFile(path) as archive:
        members = [m for m in archive.namelist() if PurePosixPath(m).name == spec.filename]
        if not members:
            raise ValueError(f"zip archive {str(path)!r} has no {spec.filename} file inside")
        return archive.read(members[0])


def _checked_local(spec: _ZippedFile, raw: bytes, source: str) -> pd.DataFrame:
    """Parse a file the user provided; a copy that differs is used, with a warning."""
    frame = spec.parse(raw, source)
    actual = hashlib.sha256(raw).hexdigest()
    if actual != spec.sha256:
        warnings.warn(
            f"{source} is not byte-identical to {spec.title} (sha256 {actual[:12]}..., "
            f"expected {spec.sha256[:12]}...); counts and accuracies may differ from the course's",
            stacklevel=4)
    return frame


def _download_zipped(spec: _ZippedFile, cache_file: Path) -> Path:
    """Download the zip into a scratch folder, check the file, then move it into the cache."""
    cache_file.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=cache_file.parent) as scratch:
        archive = Path(scratch) / spec.zip_name
        _download(spec.url, archive, spec.corpus)
        try:
            raw = _bytes_from_zip(spec, archive)
        except (zipfile.BadZipFile, ValueError) as exc:
            raise DownloadError(
                f"{spec.url} did not deliver the expected zip archive ({exc}). "
                f"Nothing was saved. {_how_to_provide(spec.corpus)}") from exc
        actual = hashlib.sha256(raw).hexdigest()
        if actual != spec.sha256:
            raise _checksum_error(f"{spec.filename} downloaded from {spec.url}",
                                  spec.sha256, actual, spec.corpus, "Nothing was saved.")
        staged = Path(scratch) / spec.filename
        staged.write_bytes(raw)
        os.replace(staged, cache_file)
    return cache_file


def _load_zipped(spec: _ZippedFile, path, download: bool, cache_dir) -> pd.DataFrame:
    """path=, then NBCOURSE_DATA, then the cache, then a checksummed download."""
    if path is not None:
        raw, source = _bytes_from_local(spec, Path(path).expanduser())
        return _checked_local(spec, raw, source)
    shared = _shared_data_dir()
    if shared is not None and (shared / spec.folder / spec.filename).is_file():
        local = shared / spec.folder / spec.filename
        return _checked_local(spec, local.read_bytes(), str(local))
    cache_file = _cache_root(cache_dir) / spec.folder / spec.filename
    if cache_file.is_file():
        actual = _sha256_file(cache_file)
        if actual == spec.sha256:
            return spec.parse(cache_file.read_bytes(), str(cache_file))
        if not download:
            raise _checksum_error(f"cached file {cache_file}", spec.sha256, actual, spec.corpus,
                                  "Delete it and download again, or:")
        warnings.warn(f"cached {cache_file} is damaged (checksum mismatch); downloading it again")
    if not download:
        raise CorpusNotFoundError(
            f"{spec.title} is not on this machine (looked at path=, NBCOURSE_DATA and "
            f"the cache {cache_file}) and download=False. {_how_to_provide(spec.corpus)}")
    return spec.parse(_download_zipped(spec, cache_file).read_bytes(), str(cache_file))


def _decode_sms(raw: bytes, source: str) -> pd.DataFrame:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{source} is not UTF-8 text, so it is not the SMS Spam Collection ({exc})") from None
    return _parse_sms(text, source)


_SMS = _ZippedFile("sms", "the SMS Spam Collection v.1", SMS_SPAM_FILENAME, "sms_spam",
                   "sms_spam_collection.zip", "SMS_SPAM_URL", "SMS_SPAM_SHA256", _decode_sms)


def load_sms_spam(path=None, *, download: bool = True, cache_dir=None) -> pd.DataFrame:
    """The SMS Spam Collection v.1 (Almeida & Gómez Hidalgo, 2011) as columns ``label``, ``text``.

    5,574 messages, 4,827 ``'ham'`` and 747 ``'spam'``, in file order, text exactly as
    published (HTML entities such as ``&lt;`` included). See the module docstring for
    where it is looked for. A local file that parses but differs from the published one
    is used with a warning; a download that differs is rejected.
    """
    return _load_zipped(_SMS, path, download, cache_dir)


def load_sms_spam_offline(path=None, *, cache_dir=None) -> pd.DataFrame:
    """The real SMS corpus if this machine already has it, else the course's mini corpus.

    Never touches the network, so a notebook that calls it runs anywhere. When it falls
    back, it prints what it did and how to get the real corpus. ``frame.attrs["source"]``
    says which corpus was returned.
    """
    try:
        frame = load_sms_spam(path, download=False, cache_dir=cache_dir)
    except CorpusNotFoundError:
        frame = load_sms_mini()
        print(
            f"The SMS Spam Collection is not on this machine, so this uses the course's "
            f"{len(frame)}-message mini corpus instead; numbers will differ from the text.\n"
            "To use the real corpus (5,574 messages), run nbcourse.datasets.load_sms_spam() "
            "once with internet access, or set NBCOURSE_DATA to a folder containing "
            "sms_spam/SMSSpamCollection.")
        return frame
    frame.attrs["source"] = "SMS Spam Collection v.1"
    return frame


# -- Spambase ---------------------------------------------------------------------------------

SPAMBASE_URL = "https://archive.ics.uci.edu/static/public/94/spambase.zip"
#: SHA-256 of the extracted ``spambase.data`` file (UCI Spambase, 1999).
SPAMBASE_SHA256 = "ebec58cfca94ea61c77df632314acae15bad410f4769d38b1a66cb41050e3431"
SPAMBASE_FILENAME = "spambase.data"
#: The 57 feature names, in file order, as listed in ``spambase.names``.
SPAMBASE_FEATURES = tuple(
    [f"word_freq_{w}" for w in (
        "make address all 3d our over remove internet order mail receive will people report "
        "addresses free business email you credit your font 000 money hp hpl george 650 lab "
        "labs telnet 857 data 415 85 technology 1999 parts pm direct cs meeting original "
        "project re edu table conference").split()]
    + [f"char_freq_{c}" for c in ";([!$#"]
    + ["capital_run_length_average", "capital_run_length_longest", "capital_run_length_total"])


def _parse_spambase(raw: bytes, source: str) -> pd.DataFrame:
    """58 comma-separated numbers per line -> 57 named features and ``label`` ham/spam."""
    try:
        values = np.loadtxt(raw.decode("ascii").splitlines(), delimiter=",", ndmin=2)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{source} is not Spambase's comma-separated numbers ({exc})") from None
    if values.shape[1] != len(SPAMBASE_FEATURES) + 1 or not np.isin(values[:, -1], (0, 1)).all():
        raise ValueError(
            f"{source} is not in Spambase format: expected {len(SPAMBASE_FEATURES)} features and "
            f"a 0/1 class per line, got {values.shape[1]} columns")
    frame = pd.DataFrame(values[:, :-1], columns=list(SPAMBASE_FEATURES))
    frame["label"] = np.where(values[:, -1] == 1, "spam", "ham")
    return frame


_SPAMBASE = _ZippedFile("spambase", "UCI Spambase", SPAMBASE_FILENAME, "spambase",
                        "spambase.zip", "SPAMBASE_URL", "SPAMBASE_SHA256", _parse_spambase)


def load_spambase(path=None, *, download: bool = True, cache_dir=None) -> pd.DataFrame:
    """UCI Spambase (Hopkins, Reeber, Forman & Suermondt, HP Labs, 1999): 4,601 e-mails.

    57 continuous features (word and character frequencies in %, and lengths of runs of
    capital letters) named as in ``spambase.names``, plus ``label``: ``'spam'`` (1 in the
    file, 1,813 e-mails) or ``'ham'`` (0, 2,788). Looked for like the SMS corpus (path=,
    ``NBCOURSE_DATA/spambase/spambase.data``, the cache, then a checksummed download).
    """
    return _load_zipped(_SPAMBASE, path, download, cache_dir)


# -- 20 Newsgroups ----------------------------------------------------------------------------

@dataclass(frozen=True, repr=False, eq=False)
class TextCorpus:
    """Documents with integer labels, laid out like scikit-learn's ``load_files`` result.

    ``data[i]`` is the text of document ``i``, ``target[i]`` its class number,
    ``target_names[target[i]]`` its class name and ``filenames[i]`` the file it came from.
    """

    data: list
    target: np.ndarray
    target_names: list
    filenames: np.ndarray

    def __len__(self) -> int:
        return len(self.data)

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
        raise _checksum_error(
            f"the {len(listing):,} posts in {what} (content digest, see PROVENANCE)",
            NEWSGROUPS_CONTENT_SHA256, actual, "newsgroups", "Nothing was saved to the cache.")


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
    digest = _sha256_file(archive)
    marker = _read_marker(final)
    if marker is not None and digest in marker.get("archive_sha256", []):
        return final
    return _install_extracted(archive, digest, final, str(archive))


def _download_newsgroups(cache_root: Path) -> Path:
    final = cache_root / "20newsgroups" / "20news-bydate"
    final.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=final.parent) as scratch:
        archive = Path(scratch) / NEWSGROUPS_ARCHIVE_NAME
        _download(NEWSGROUPS_URL, archive, "newsgroups")
        try:
            return _install_extracted(archive, _sha256_file(archive), final,
                                      f"the archive downloaded from {NEWSGROUPS_URL}")
        except ValueError as exc:
            raise DownloadError(
                f"{NEWSGROUPS_URL} did not deliver a readable archive ({exc}). Nothing was saved. "
                f"{_how_to_provide('newsgroups')}") from exc


def _is_extracted_newsgroups(folder: Path) -> bool:
    return all((folder / split).is_dir() for split in NEWSGROUPS_SPLITS.values())


def _newsgroups_folder(path, download: bool, cache_dir) -> Path:
    """The folder holding ``20news-bydate-train/`` and ``20news-bydate-test/``."""
    cache_root = _cache_root(cache_dir)
    if path is not None:
        path = Path(path).expanduser()
        if not path.exists():
            raise FileNotFoundError(f"path {str(path)!r} does not exist. {_how_to_provide('newsgroups')}")
        if path.is_dir():
            if _is_extracted_newsgroups(path):
                return path
            if (path / NEWSGROUPS_ARCHIVE_NAME).is_file():
                return _newsgroups_from_archive(path / NEWSGROUPS_ARCHIVE_NAME, cache_root)
            raise FileNotFoundError(
                f"folder {str(path)!r} holds neither 20news-bydate-train/ and 20news-bydate-test/ "
                f"nor {NEWSGROUPS_ARCHIVE_NAME}. {_how_to_provide('newsgroups')}")
        if not tarfile.is_tarfile(path):
            raise ValueError(
                f"path {str(path)!r} is not a .tar.gz archive, so it is not {NEWSGROUPS_ARCHIVE_NAME}. "
                f"{_how_to_provide('newsgroups')}")
        return _newsgroups_from_archive(path, cache_root)
    shared = _shared_data_dir()
    if shared is not None and (shared / "20newsgroups" / NEWSGROUPS_ARCHIVE_NAME).is_file():
        return _newsgroups_from_archive(shared / "20newsgroups" / NEWSGROUPS_ARCHIVE_NAME, cache_root)
    final = cache_root / "20newsgroups" / "20news-bydate"
    if _read_marker(final) is not None:
        return final
    if not download:
        raise CorpusNotFoundError(
            "20 Newsgroups is not on this machine (looked at path=, NBCOURSE_DATA and the cache "
            f"{final}) and download=False. {_how_to_provide('newsgroups')}")
    return _download_newsgroups(cache_root)


def _read_split(folder: Path) -> tuple[list[str], list[int], list[str], list[str]]:
    """Posts of one split in ``load_files`` order: groups sorted, then file names sorted."""
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
            with open(filename, "rb") as handle:
                data.append(handle.read().decode("latin-1"))
            target.append(number)
            filenames.append(filename)
    return data, target, groups, filenames


def load_20newsgroups(subset: str = "train", path=None, *, download: bool = True,
                      cache_dir=None) -> TextCorpus:
    """The 20 Newsgroups "bydate" split: ``subset`` is ``'train'``, ``'test'`` or ``'all'``.

    train has 11,314 posts, test 7,532, both over the same 20 groups. Posts are read as
    latin-1 (as scikit-learn does: 73 of them are not valid UTF-8) and ordered by group,
    then by file name, like ``sklearn.datasets.load_files(..., shuffle=False)``.
    ``'all'`` is train followed by test. The archive is extracted into the cache once,
    so later calls only read the files.
    """
    if subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test' or 'all', got {subset!r}")
    folder = _newsgroups_folder(path, download, cache_dir)
    splits = ["train", "test"] if subset == "all" else [subset]
    data, target, filenames, names = [], [], [], None
    for split in splits:
        split_data, split_target, groups, split_files = _read_split(folder / NEWSGROUPS_SPLITS[split])
        if names is not None and groups != names:
            raise ValueError(f"train and test in {folder} have different newsgroup folders")
        names = groups
        data += split_data
        target += split_target
        filenames += split_files
    return TextCorpus(data=data, target=np.asarray(target, dtype=np.int64), target_names=names,
                      filenames=np.asarray(filenames))


__all__ = [
    "ChecksumError", "CorpusNotFoundError", "DownloadError", "TextCorpus",
    "load_20newsgroups", "load_picnic", "load_sms_mini", "load_sms_spam", "load_spambase",
    "load_sms_spam_offline", "load_weather", "shipped_data_dir",
]
