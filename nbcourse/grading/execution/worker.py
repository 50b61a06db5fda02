"""A grading worker: a process that grades submissions one at a time, on request.

The batch starts one worker per ``--jobs`` and keeps it for the whole batch, so the
slow imports (nbclient, jupyter_client) happen once per worker, not per submission.
The worker is a child subreaper (see ``processes``): after each submission every
process still below it was started by that submission, and is killed.

With a sandbox (``--sandbox bwrap``), the worker keeps one *warm* sandbox ready: it
is started while the previous submission runs, has imported ipykernel, numpy and
pandas, and serves exactly one submission.  Without one, kernels are forked from a
preloaded factory (``kernel_factory``).

Protocol: one JSON job per line on stdin, one JSON reply per line on the original
stdout.  File descriptor 1 is pointed at stderr before any job runs, so nothing a
kernel or a library prints can corrupt the replies.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

from .kernel_factory import KernelFactory
from .processes import TOKEN_VARIABLE, become_subreaper, kill_descendants
from .report import RunReport
from .runner import Limits, run_submission
from .sandbox import SandboxConfig, WarmSandbox


def factory_environment(base: Path, token: str) -> dict[str, str]:
    """The factory's own environment: what must hold at import time, no instructor paths."""
    env = {name: os.environ[name] for name in ("PATH", "LANG", "LC_ALL", "TZ")
           if name in os.environ}
    env.update({"HOME": str(base), "PYTHONHASHSEED": "0", "PYTHONNOUSERSITE": "1",
                "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1",
                "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg",
                TOKEN_VARIABLE: token})
    return env


class Sandboxes:
    """One warm sandbox ahead of need; each one is used for a single submission."""

    def __init__(self, config: SandboxConfig, base: Path):
        self.config = config
        self.base = base
        self.spare: WarmSandbox | None = None

    def take(self) -> WarmSandbox:
        sandbox = self.spare if self.spare is not None else WarmSandbox(self.config, self.base)
        self.spare = None
        ready = sandbox.wait_ready()
        self.spare = WarmSandbox(self.config, self.base)  # imports while this one runs
        if not ready:
            sandbox.kill()
            raise RuntimeError("the sandbox did not start (is bubblewrap still working?)")
        return sandbox

    def close(self) -> None:
        if self.spare is not None:
            self.spare.kill()
            self.spare = None


def main() -> int:
    replies = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    logging.getLogger("traitlets").setLevel(logging.CRITICAL)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    become_subreaper()
    base = Path(tempfile.mkdtemp(prefix="nbcourse-grading-"))
    os.chmod(base, 0o700)
    factory = None
    sandboxes = None
    token = os.environ.get(TOKEN_VARIABLE, "")
    config = SandboxConfig(**json.loads(os.environ.get("NBCOURSE_GRADING_SANDBOX", "{}")))
    if config.kind == "bwrap":
        sandboxes = Sandboxes(config, base)
        sandboxes.spare = WarmSandbox(config, base)  # its imports overlap with the worker's
    elif os.environ.get("NBCOURSE_GRADING_FACTORY", "1") != "0":
        # start the factory's imports now, alongside this worker's own
        factory = KernelFactory(factory_environment(base, token), base)
        factory.start()
    import nbclient  # noqa: F401  (slow; imported once, while the factory warms up)

    def spare_pids() -> set[int]:
        pids = {factory.pid} if factory and factory.pid else set()
        return pids | ({sandboxes.spare.pid} if sandboxes and sandboxes.spare else set())

    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            job = json.loads(line)
            try:
                limits = Limits(**job["limits"])
                report = run_submission(job["path"], job["plan"], limits, base,
                                        Path(job["cache_dir"]), job["token"], factory,
                                        sandboxes.take if sandboxes else None)
                report.isolation = config.describe()
                report = report.to_json()
            except Exception as error:  # noqa: BLE001 - report it, keep the worker alive
                report = RunReport.failed(f"{type(error).__name__}: {error}").to_json()
                report["traceback"] = traceback.format_exc(limit=8)
            finally:
                kill_descendants(spare=spare_pids())
            replies.write(json.dumps({"id": job["id"], "report": report}) + "\n")
            replies.flush()
    finally:
        if factory is not None:
            factory.close()
        if sandboxes is not None:
            sandboxes.close()
        kill_descendants()
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
