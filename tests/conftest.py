"""Shared test setup: where the corpora are, and what pytest must not collect."""
from pathlib import Path

import pytest

from nbcourse import datasets

REPO = Path(__file__).resolve().parents[1]
#: A folder laid out like NBCOURSE_DATA that every checkout has: the course's own data/
#: folder, which ships sms_spam/SMSSpamCollection and spambase/spambase.data. 20 Newsgroups
#: is not shipped: tests get it from the ``newsgroups_folder`` fixture.
SHARED_DATA = datasets.shipped_data_dir()

# Broken and hostile submissions are inputs for the grader, not notebooks to validate.
collect_ignore_glob = ["fixtures/*"]

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # plots drawn by tests in this process go to memory, not a window


@pytest.fixture(scope="session")
def newsgroups_folder() -> Path:
    """The extracted, verified 20 Newsgroups folder, found or fetched as a student's loader does.

    The repository's conftest.py has already fetched it before the first test (or stopped
    the run with one message saying how to provide it).
    """
    return datasets.newsgroups_folder()
