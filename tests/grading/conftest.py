"""Grading tests leave no cgroup folder behind (issue 36): after each module, no
``nbcourse-<pid>-...`` folder made by this test run (this process or one it started) is
left in any cgroup hierarchy, memory included."""
from __future__ import annotations

import pytest

from cgroup_support import Descendants, batch_folders, made_by


@pytest.fixture(scope="module", autouse=True)
def no_cgroup_folder_left():
    before = batch_folders()
    with Descendants() as ours:
        yield
    left = made_by(ours.pids, batch_folders() - before)
    assert not left, f"cgroup folders left by this module's grading runs: {sorted(left)}"
