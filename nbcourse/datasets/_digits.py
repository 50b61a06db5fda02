"""Handwritten digits: 1,797 images of 8 x 8 pixels (UCI optical digits, test part)."""
from __future__ import annotations

import gzip
import hashlib
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from . import _base
from ._shipped import shipped_data_dir

DIGITS_FILENAME = "digits.csv.gz"
DIGITS_FOLDER = "digits"
#: SHA-256 of the shipped ``digits/digits.csv.gz`` (scikit-learn's copy, byte for byte).
DIGITS_SHA256 = "09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22"
#: The 64 pixel columns, row by row: ``pixel_0_0`` is the top-left pixel.
DIGITS_PIXELS = tuple(f"pixel_{row}_{col}" for row in range(8) for col in range(8))


def _parse_digits(raw: bytes, source: str) -> pd.DataFrame:
    """Gzipped CSV, 64 pixel counts 0..16 then the digit per line -> pixels and ``label``."""
    try:
        values = np.loadtxt(gzip.decompress(raw).decode("ascii").splitlines(), delimiter=",", ndmin=2)
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{source} is not the gzipped CSV of the optical digits ({exc})") from None
    if (values.shape[1] != len(DIGITS_PIXELS) + 1 or not np.isin(values[:, -1], np.arange(10)).all()
            or (values[:, :-1] < 0).any() or (values[:, :-1] > 16).any()):
        raise ValueError(f"{source} is not in the optical digits format: expected 64 pixel counts "
                         f"0..16 and a digit 0..9 per line, got {values.shape[1]} columns")
    frame = pd.DataFrame(values[:, :-1].astype(np.int64), columns=list(DIGITS_PIXELS))
    frame["label"] = values[:, -1].astype(np.int64)
    return frame


def load_digits(path=None) -> pd.DataFrame:
    """UCI Optical Recognition of Handwritten Digits (Alpaydin & Kaynak, 1998), test part.

    1,797 images of 8 x 8 pixels, about 180 of each digit. Each pixel counts the ink in a
    4 x 4 block of the 32 x 32 scan, from 0 (white) to 16 (all ink); columns
    ``pixel_<row>_<col>`` row by row, then ``label``, the digit 0-9. CC BY 4.0; the course
    ships the file in ``data/digits/`` (source and checksum in ``data/README.md``).

    Looked for at ``path=`` (the file or a folder holding it), then in
    ``$NBCOURSE_DATA/digits/``, then in the shipped copy, which must match its SHA-256.
    A file the user points at that differs is used, with a warning.
    """
    candidates = []
    if path is not None:
        path = Path(path).expanduser()
        if path.is_dir():
            path = path / DIGITS_FILENAME
        if not path.is_file():
            raise FileNotFoundError(f"path {str(path)!r} is not the digits file {DIGITS_FILENAME}")
        candidates.append((path, False))
    else:
        shared = _base.shared_data_dir()
        if shared is not None and (shared / DIGITS_FOLDER / DIGITS_FILENAME).is_file():
            candidates.append((shared / DIGITS_FOLDER / DIGITS_FILENAME, False))
        candidates.append((shipped_data_dir() / DIGITS_FOLDER / DIGITS_FILENAME, True))
    for file, must_match in candidates:
        if not file.is_file():
            continue
        raw = file.read_bytes()
        actual = hashlib.sha256(raw).hexdigest()
        if actual != DIGITS_SHA256:
            if must_match:
                warnings.warn(f"{file} is damaged (sha256 {actual[:12]}..., expected "
                              f"{DIGITS_SHA256[:12]}...), so it is not used", stacklevel=2)
                continue
            warnings.warn(f"{file} is not byte-identical to the course's digits file (sha256 "
                          f"{actual[:12]}...); counts and accuracies may differ", stacklevel=2)
        return _parse_digits(raw, str(file))
    raise _base.CorpusNotFoundError(
        f"the handwritten digits are not on this machine: the course ships them as "
        f"data/{DIGITS_FOLDER}/{DIGITS_FILENAME}. Put that file (sha256 {DIGITS_SHA256}) in "
        f"$NBCOURSE_DATA/{DIGITS_FOLDER}/ or pass its path.")
