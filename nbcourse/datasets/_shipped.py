"""The files that come with the course, and the two small tables read from them."""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd


def shipped_data_dir() -> Path:
    """The folder of data shipped with the course: ``weather.csv``, ``picnic.csv``,
    ``sms_mini.tsv``, ``sms_spam/SMSSpamCollection`` and ``spambase/spambase.data``.

    This is the only place that knows where shipped data lives: ``$NBCOURSE_SHIPPED_DATA``
    (if set, it must be such a folder); else the package's own copy of ``data/``, read with
    importlib.resources (``nbcourse.resources``): inside the installed package for a wheel,
    the checkout's ``data/`` for the editable install the README uses.
    """
    override = os.environ.get("NBCOURSE_SHIPPED_DATA")
    if override:
        folder = Path(override).expanduser()
        if not (folder / "weather.csv").is_file():
            what = "has no weather.csv" if folder.is_dir() else "is not a folder"
            raise FileNotFoundError(
                f"NBCOURSE_SHIPPED_DATA is set to {override!r}, which {what}. Point it at the "
                "course's data/ folder, or unset it to use the copy that came with nbcourse.")
        return folder
    from ..resources import data_dir
    return data_dir()


def read_table(filename: str) -> pd.DataFrame:
    # keep_default_na=False: a value such as "none" or "NA" stays a string, never NaN.
    return pd.read_csv(shipped_data_dir() / filename, dtype=str, keep_default_na=False)


def load_weather() -> pd.DataFrame:
    """The 14-day weather table (Quinlan's "play tennis"; Weka's ``weather.nominal.arff``).

    Columns ``outlook``, ``temperature``, ``humidity``, ``windy``, ``play``, all
    lower-case strings (``windy`` is ``"true"``/``"false"``); 9 days ``play == "yes"``,
    5 ``"no"``. It is the table the course counts by hand.
    """
    return read_table("weather.csv")


def load_picnic() -> pd.DataFrame:
    """Mitchell's EnjoySport table (*Machine Learning*, ch. 2): 4 days, 6 attributes.

    Columns ``sky``, ``temp``, ``humid``, ``wind``, ``water``, ``forecast``, ``enjoy``,
    lower-case strings. Four rows against 2**6 attribute combinations: the course
    uses it to show why a full joint table needs far more data than naive Bayes.
    """
    return read_table("picnic.csv")
