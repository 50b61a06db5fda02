"""The cgroup folders a grading run makes, found by the pid in their names.

A batch names its cgroup parents ``nbcourse-<pid>-<random>[-<batch>]`` after the process
that made them (the batch, or a Dask worker), in each hierarchy at this process's own
cgroup: at the top of ``pids`` and ``cpu`` here, but in a container's own folder of the
``memory`` hierarchy (``memory/process_api/<id>/``), so the whole tree is searched, a
few levels deep.  Other people's grading runs on the machine are told apart by the pid.
"""
from __future__ import annotations

import os
import threading

import psutil

ROOT = "/sys/fs/cgroup"
DEPTH = 4  # below ROOT: hierarchy, then up to three folders of the process's own cgroup


def batch_folders() -> set[str]:
    """Every ``nbcourse-<pid>-...`` cgroup folder on the machine."""
    found = set()
    for folder, children, _ in os.walk(ROOT):
        depth = folder[len(ROOT):].count("/")
        for child in list(children):
            if child.startswith("nbcourse-") and child.split("-")[1].isdigit():
                found.add(os.path.join(folder, child))
                children.remove(child)
        if depth >= DEPTH:
            children[:] = []
    return found


def maker(folder: str) -> int:
    """The pid in a batch folder's name."""
    return int(os.path.basename(folder).split("-")[1])


def made_by(pids, folders=None) -> set[str]:
    """The batch folders (of ``folders``, by default all) made by one of ``pids``."""
    pids = set(pids)
    return {f for f in (batch_folders() if folders is None else folders) if maker(f) in pids}


class Descendants:
    """This process and every process started below it while watching: the pids whose
    cgroup folders are this test run's (a batch or Dask worker lives for seconds)."""

    def __init__(self, every: float = 0.25):
        self.pids = {os.getpid()}
        self._every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(self._every):
            try:
                self.pids |= {child.pid for child in me.children(recursive=True)}
            except psutil.Error:
                continue

    def __enter__(self) -> "Descendants":
        self._thread.start()
        return self

    def __exit__(self, *_) -> None:
        self._stop.set()
        self._thread.join()
