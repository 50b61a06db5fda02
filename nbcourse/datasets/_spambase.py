"""UCI Spambase: 4,601 e-mails described by 57 numbers each."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._zipped import ZippedCorpus, load_zipped

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


SPAMBASE = ZippedCorpus("UCI Spambase", SPAMBASE_FILENAME, "spambase", SPAMBASE_URL,
                        SPAMBASE_SHA256, _parse_spambase)


def load_spambase(path=None, *, download: bool = True, cache_dir=None) -> pd.DataFrame:
    """UCI Spambase (Hopkins, Reeber, Forman & Suermondt, HP Labs, 1999): 4,601 e-mails.

    57 continuous features (word and character frequencies in %, and lengths of runs of
    capital letters) named as in ``spambase.names``, plus ``label``: ``'spam'`` (1 in the
    file, 1,813 e-mails) or ``'ham'`` (0, 2,788). The course ships a copy in
    ``data/spambase/``; it is looked for like the SMS corpus.
    """
    return load_zipped(SPAMBASE, path, download, cache_dir)


def load_spambase_presence(path=None, *, download: bool = True, cache_dir=None) -> pd.DataFrame:
    """Spambase as 54 yes/no features: does the e-mail contain the word (or character)?

    Each of the 48 word and 6 character frequencies becomes 1 where it is above 0 and 0
    where it is 0 (the three capital-run lengths have no such reading and are left out),
    so a model of labels (`CategoricalNB`, `TreeAugmentedNB`) can count them. Columns are
    named by the word (``'hp'``, ``'george'``) or ``'char_'`` and the character
    (``'char_!'``), plus ``label``. Found or fetched as `load_spambase` finds it.
    """
    frame = load_spambase(path, download=download, cache_dir=cache_dir)
    present = {}
    for name in SPAMBASE_FEATURES:
        if name.startswith("word_freq_"):
            present[name[len("word_freq_"):]] = (frame[name] > 0).astype(np.int64)
        elif name.startswith("char_freq_"):
            present["char_" + name[len("char_freq_"):]] = (frame[name] > 0).astype(np.int64)
    present["label"] = frame["label"]
    return pd.DataFrame(present)
