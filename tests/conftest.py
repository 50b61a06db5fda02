"""Shared test setup: where the real corpora are, and what pytest must not collect."""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The real corpora: the repository's conftest.py gives NBCOURSE_DATA its default.
SHARED_DATA = Path(os.environ["NBCOURSE_DATA"])

# Broken and hostile submissions are inputs for the grader, not notebooks to validate.
collect_ignore_glob = ["fixtures/*"]

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # plots drawn by tests in this process go to memory, not a window
