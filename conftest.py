"""pytest setup for the whole repository (tests/, notebooks/ and exercises/source/).

The tests get the real corpora the way a student's notebook does: ``NBCOURSE_DATA`` if
it is set, else the user cache (``NBCOURSE_CACHE``), else a checksummed download from the
original host or from ``NBCOURSE_MIRROR``. The SMS Spam Collection and Spambase are
shipped in ``data/``, so only 20 Newsgroups may need the network.

Where this repository's CI keeps the corpora in a ``shared/data`` folder in one of the
checkout's parent folders, ``NBCOURSE_DATA`` defaults to it; nothing points it at a
folder that does not exist. Set ``NBCOURSE_DATA=`` (empty) to test as a fresh clone does. nbval's kernels inherit this environment, so it is set
here, before any kernel starts.

Before the first test runs, every corpus that a selected test needs is fetched once.
If one cannot be had, pytest stops with one message per missing corpus that says how
to provide it, instead of a traceback from each test that needs it.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent

if "NBCOURSE_DATA" not in os.environ:  # set but empty means "none": the loaders then ignore it
    for _parent in _HERE.parents:
        if (_parent / "shared" / "data" / "20newsgroups").is_dir():
            os.environ["NBCOURSE_DATA"] = str(_parent / "shared" / "data")
            break

#: Fixtures that hand a test a real corpus, by corpus name (see tests/conftest.py).
CORPUS_FIXTURES = {"newsgroups_folder": "20newsgroups"}
#: Loader calls that make a notebook need a real corpus.
_NOTEBOOK_LOADERS = {"20newsgroups": re.compile(r"\bload_20newsgroups(_if_available)?\("),
                     "sms_spam": re.compile(r"\bload_sms_spam\("),
                     "spambase": re.compile(r"\bload_spambase\(")}


def _corpora_needed(item) -> set[str]:
    needed = {CORPUS_FIXTURES[name] for name in getattr(item, "fixturenames", ())
              if name in CORPUS_FIXTURES}
    path = Path(str(getattr(item, "path", getattr(item, "fspath", ""))))
    if path.suffix == ".ipynb":
        text = path.read_text(encoding="utf-8")
        needed |= {name for name, call in _NOTEBOOK_LOADERS.items() if call.search(text)}
    return needed


def pytest_collection_finish(session):
    """After -k, -m and deselection: fetch what the selected tests need, or stop here."""
    config, items = session.config, session.items
    if config.option.collectonly or not items:
        return
    needed: dict[str, int] = {}
    for item in items:
        for corpus in _corpora_needed(item):
            needed[corpus] = needed.get(corpus, 0) + 1
    if not needed:
        return
    from nbcourse import datasets

    problems = []
    for corpus, count in sorted(needed.items()):
        try:
            datasets.fetch_corpus(corpus)
        except (OSError, ValueError) as problem:
            problems.append(f"{datasets.CORPORA[corpus]} is missing ({count} selected "
                            f"test{'s' if count > 1 else ''} need it).\n{problem}")
    if problems:
        pytest.exit("\n\n" + "\n\n".join(problems) + "\n", returncode=pytest.ExitCode.TESTS_FAILED)
