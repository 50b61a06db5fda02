"""Loaders for the course's data: the tables and corpora it ships, and the one it downloads.

Laid out like scikit-learn's ``sklearn.datasets``: one module for what every real
corpus shares (``_base``: cache, ``NBCOURSE_DATA``, mirror, download, checksum, errors),
one for what UCI's zipped corpora share (``_zipped``), one per corpus, and one for the
small tables (``_shipped``). Import from here: ``from nbcourse import datasets``.

Shipped with the course (``data/``, found by :func:`shipped_data_dir`)
    ``load_weather``, ``load_picnic``, ``load_sms_mini``, and two real corpora published
    under CC BY 4.0: the SMS Spam Collection (``load_sms_spam``) and Spambase
    (``load_spambase``; ``load_spambase_presence`` reads its words as present/absent). Their shipped copies are checked against the published SHA-256.
    Also the UCI handwritten digits (``load_digits``, CC BY 4.0), 1,797 images of 8 x 8
    pixels, checked against their SHA-256 too.

Downloaded (``load_20newsgroups``)
    Looked for at ``path=``, then in ``$NBCOURSE_DATA``, then in the user cache
    (``cache_dir=``, else ``$NBCOURSE_CACHE``, else ``~/.cache/nbcourse``), then downloaded
    from the original host, or from ``$NBCOURSE_MIRROR/<file name>`` if a classroom mirror
    is set (http://, https:// or file://). ``$NBCOURSE_DOWNLOAD_TIMEOUT`` (seconds, default
    60) limits how long a silent server is waited for.

    Downloads go into a temporary folder inside the cache and are moved into place only
    after their checksum matches, so a failed download never leaves a half-written corpus
    that a later run would trust.

When a corpus cannot be had, the error names the three ways to provide it
(``NBCOURSE_DATA``, ``NBCOURSE_MIRROR``, a download) and shows in Jupyter as that
message alone, without a traceback.
"""
from __future__ import annotations

from pathlib import Path

from ._base import (DOWNLOAD_TIMEOUT_SECONDS, ChecksumError, CorpusNotFoundError, DownloadError,
                    cache_root, shared_data_dir, source_url)
from ._digits import DIGITS_PIXELS, DIGITS_SHA256, load_digits
from ._shipped import load_picnic, load_weather, shipped_data_dir
from ._sms_spam import (SMS_SPAM_FILENAME, SMS_SPAM_SHA256, SMS_SPAM_URL, load_sms_mini, load_sms_spam,
                        load_sms_spam_or_mini)
from ._spambase import (SPAMBASE_FEATURES, SPAMBASE_FILENAME, SPAMBASE_SHA256, SPAMBASE_URL, load_spambase,
                        load_spambase_presence)
from ._twenty_newsgroups import (NEWSGROUPS_ARCHIVE_NAME, NEWSGROUPS_CONTENT_SHA256, NEWSGROUPS_URL,
                                 TextCorpus, load_20newsgroups, load_20newsgroups_if_available,
                                 newsgroups_folder)
from . import _sms_spam, _spambase, _zipped

#: The real corpora by the name :func:`fetch_corpus` takes.
CORPORA = {"sms_spam": "the SMS Spam Collection v.1", "spambase": "UCI Spambase",
           "20newsgroups": "20 Newsgroups"}


def fetch_corpus(name: str, *, download: bool = True, cache_dir=None) -> Path:
    """Make sure a real corpus is on this machine, and return where its checked copy is.

    ``name`` is ``'sms_spam'``, ``'spambase'`` or ``'20newsgroups'``. The corpus is looked
    for and fetched exactly as its loader does, without parsing it: useful to fill the
    cache once before a class, or to check a machine. Returns the file (the zipped
    corpora) or the extracted folder (20 Newsgroups).
    """
    if name == "20newsgroups":
        return newsgroups_folder(download=download, cache_dir=cache_dir)
    specs = {"sms_spam": _sms_spam.SMS_SPAM, "spambase": _spambase.SPAMBASE}
    if name not in specs:
        raise ValueError(f"name must be one of {', '.join(map(repr, CORPORA))}, got {name!r}")
    _, source, _ = _zipped.locate_zipped(specs[name], download, cache_dir)
    return Path(source)


__all__ = [
    "CORPORA", "ChecksumError", "CorpusNotFoundError", "DIGITS_PIXELS", "DIGITS_SHA256",
    "DOWNLOAD_TIMEOUT_SECONDS", "DownloadError",
    "NEWSGROUPS_ARCHIVE_NAME", "NEWSGROUPS_CONTENT_SHA256", "NEWSGROUPS_URL", "SMS_SPAM_FILENAME",
    "SMS_SPAM_SHA256", "SMS_SPAM_URL", "SPAMBASE_FEATURES", "SPAMBASE_FILENAME", "SPAMBASE_SHA256",
    "SPAMBASE_URL", "TextCorpus", "cache_root", "shared_data_dir", "fetch_corpus", "load_20newsgroups", "load_digits",
    "load_20newsgroups_if_available", "load_picnic", "load_sms_mini", "load_sms_spam",
    "load_sms_spam_or_mini", "load_spambase", "load_spambase_presence", "load_weather",
    "newsgroups_folder", "shipped_data_dir", "source_url",
]
