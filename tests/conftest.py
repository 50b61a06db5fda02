"""Shared test setup: where the corpora are, and what pytest must not collect."""
from pathlib import Path

import pytest

from course_paths import REPO, SHARED_DATA
from nbcourse import datasets

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


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's top folder (where pyproject.toml is)."""
    return REPO


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """A folder laid out like NBCOURSE_DATA holding the shipped SMS and Spambase corpora."""
    return SHARED_DATA


@pytest.fixture(scope="session")
def sms_split(shared_data):
    """Notebook 05's split of the real SMS Spam Collection: X_train, y_train, X_val, y_val
    (80 % / 10 % of the messages, stratified, seed 0; the vocabulary of the training part)."""
    from nbcourse import datasets, evaluation
    from nbcourse.text import BagOfWords

    sms = datasets.load_sms_spam(shared_data / "sms_spam")
    texts, y = sms["text"].tolist(), sms["label"].to_numpy()
    train, val, _ = evaluation.stratified_split(y, sizes=(0.8, 0.1, 0.1), seed=0)
    bag = BagOfWords()
    X_train = bag.fit_transform([texts[i] for i in train])
    X_val = bag.transform([texts[i] for i in val])
    return X_train, y[train], X_val, y[val]


@pytest.fixture(scope="session")
def spambase(shared_data):
    """The real Spambase table."""
    from nbcourse import datasets

    return datasets.load_spambase(shared_data / "spambase")
