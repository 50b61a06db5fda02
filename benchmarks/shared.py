"""What the benchmark scripts share: where the corpora are, how 20 Newsgroups is read, and
how a script puts its section into results.md without touching the others'.

Not a benchmark itself: the scripts import it (Python puts a script's own folder on
``sys.path``, so ``from shared import ...`` works from any working directory).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results.md"
#: where this repository's CI keeps the corpora, beside the checkout
SHARED_DATA = REPO.parent / "shared" / "data"


def default_data_dir() -> Path:
    """The folder holding sms_spam/ and 20newsgroups/: ``$NBCOURSE_DATA``, else
    ../shared/data beside the checkout."""
    if os.environ.get("NBCOURSE_DATA"):
        return Path(os.environ["NBCOURSE_DATA"])
    return SHARED_DATA


def use_default_data() -> None:
    """Point ``NBCOURSE_DATA`` (read by the loaders, and by the graded kernels, which
    inherit it) at ../shared/data when it is unset and that folder exists."""
    if "NBCOURSE_DATA" not in os.environ and SHARED_DATA.is_dir():
        os.environ["NBCOURSE_DATA"] = str(SHARED_DATA)


def load_news(data_dir: Path):
    """20 Newsgroups "bydate" from ``data_dir``/20newsgroups: train texts, train labels,
    test texts, test labels."""
    from nbcourse.datasets import load_20newsgroups
    folder = Path(data_dir) / "20newsgroups"
    train = load_20newsgroups("train", path=folder)
    test = load_20newsgroups("test", path=folder)
    return train.data, train.target, test.data, test.target


def replace_section(section: str, begin: str, end: str, path: Path | None = None) -> None:
    """Put ``section`` (which runs from the marker ``begin`` to the marker ``end``) where
    the file's (results.md by default) own section between those markers is, or at its
    end if it has none; the rest of the file is left as it is."""
    path = RESULTS if path is None else path
    section = section.rstrip("\n")
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if begin in text and end in text:
        text = text[: text.index(begin)] + section + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")


def keep_results(args, numbers: dict, section, begin: str, end: str) -> None:
    """What a grading benchmark keeps: with ``--json``, ``numbers`` in that file; with
    ``--write-results``, its section (``section()``, from ``begin`` to ``end``) in
    results.md."""
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=1) + "\n")
    if args.write_results:
        replace_section(section(), begin, end)
