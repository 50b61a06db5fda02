"""The SMS Spam Collection v.1, and the course's own 80-message stand-in for it."""
from __future__ import annotations

import warnings

import pandas as pd

from ._base import CorpusNotFoundError, DownloadError
from ._shipped import shipped_data_dir
from ._zipped import ZippedCorpus, load_zipped

SMS_SPAM_URL = "https://archive.ics.uci.edu/static/public/228/sms+spam+collection.zip"
#: SHA-256 of the extracted ``SMSSpamCollection`` file (SMS Spam Collection v.1).
SMS_SPAM_SHA256 = "7d039a24a6083ed9ef0f806ebad56bbb976e3aeb8de05669173bfdc4996c239d"
SMS_SPAM_FILENAME = "SMSSpamCollection"

_SMS_LABELS = frozenset({"ham", "spam"})


def parse_sms(text: str, source) -> pd.DataFrame:
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


def _decode_sms(raw: bytes, source: str) -> pd.DataFrame:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{source} is not UTF-8 text, so it is not the SMS Spam Collection ({exc})") from None
    return parse_sms(text, source)


SMS_SPAM = ZippedCorpus("the SMS Spam Collection v.1", SMS_SPAM_FILENAME, "sms_spam",
                        SMS_SPAM_URL, SMS_SPAM_SHA256, _decode_sms)


def load_sms_spam(path=None, *, download: bool = True, cache_dir=None) -> pd.DataFrame:
    """The SMS Spam Collection v.1 (Almeida & Gómez Hidalgo, 2011) as columns ``label``, ``text``.

    5,574 messages, 4,827 ``'ham'`` and 747 ``'spam'``, in file order, text exactly as
    published (HTML entities such as ``&lt;`` included). The course ships a copy in
    ``data/sms_spam/``; see the package docstring for the other places searched. A
    local file that parses but differs from the published one is used with a warning;
    a shipped, cached or downloaded copy that differs is never used.
    """
    return load_zipped(SMS_SPAM, path, download, cache_dir)


def load_sms_mini() -> pd.DataFrame:
    """The course's own 80-message SMS corpus (columns ``label``, ``text``).

    Written for nbcourse so that text notebooks run without any download; it is far too
    small to give the accuracy figures of the real SMS Spam Collection.
    """
    path = shipped_data_dir() / "sms_mini.tsv"
    frame = parse_sms(path.read_text(encoding="utf-8"), path)
    frame.attrs["source"] = "nbcourse mini SMS corpus (data/sms_mini.tsv)"
    return frame


def load_sms_spam_or_mini(path=None, *, download: bool = False, cache_dir=None) -> pd.DataFrame:
    """The real SMS Spam Collection if it can be had, else the course's mini corpus, with a warning.

    The course ships the real corpus, so this normally returns it without any network.
    Only when that copy is gone (and there is none in ``NBCOURSE_DATA`` or the cache,
    and ``download`` is False or fails) does it fall back to the 80 messages of
    :func:`load_sms_mini`, and warn that the numbers will differ from the lessons'.
    ``frame.attrs["source"]`` says which corpus was returned. A wrong ``path=`` is an
    error, never a silent fallback.
    """
    try:
        frame = load_sms_spam(path, download=download, cache_dir=cache_dir)
    except (CorpusNotFoundError, DownloadError) as problem:
        if path is not None:
            raise
        frame = load_sms_mini()
        warnings.warn(
            f"The SMS Spam Collection is not on this machine, so this uses the course's "
            f"{len(frame)}-message mini corpus instead; numbers will differ from the text.\n"
            f"{problem}", UserWarning, stacklevel=2)
        return frame
    frame.attrs["source"] = "SMS Spam Collection v.1"
    return frame
