"""Where the tests find the course: the checkout, and the shipped corpora.

A module of its own, not ``conftest``: pytest puts every test folder with a conftest.py
on ``sys.path``, so ``from conftest import ...`` would pick whichever conftest comes first
(tests/sklearn_naive_bayes has one too). Fixtures ``repo_root`` and ``shared_data`` in
tests/conftest.py give the same paths to test functions.
"""
from pathlib import Path

from nbcourse import datasets

REPO = Path(__file__).resolve().parents[1]
#: A folder laid out like NBCOURSE_DATA that every checkout has: the course's own data/
#: folder, which ships sms_spam/SMSSpamCollection and spambase/spambase.data. 20 Newsgroups
#: is not shipped: tests get it from the ``newsgroups_folder`` fixture.
SHARED_DATA = datasets.shipped_data_dir()
