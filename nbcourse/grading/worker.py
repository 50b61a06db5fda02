"""A grading worker: a process that grades submissions one at a time, on request.

The batch starts one worker per ``--jobs`` and keeps it for the whole batch, so the
slow imports (nbclient, jupyter_client) happen once per worker, not per submission.
The worker is a child subreaper (see ``processes``): after each submission every
process still below it was started by that submission, and is killed.

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
from .runner import Limits, run_submission


def factory_environment(base: Path, token: str) -> dict[str, str]:
    """The factory's own environment: what must hold at import time, no instructor paths."""
    env = {name: os.environ[name] for name in ("PATH", "LANG", "LC_ALL", "TZ")
           if name in os.environ}
    env.update({"HOME": str(base), "PYTHONHASHSEED": "0", "PYTHONNOUSERSITE": "1",
                "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1",
                "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg",
                TOKEN_VARIABLE: token})
    return env


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
    token = os.environ.get(TOKEN_VARIABLE, "")
    if os.environ.get("NBCOURSE_GRADING_FACTORY", "1") != "0":
        # start the factory's imports now, alongside this worker's own
        factory = KernelFactory(factory_environment(base, token), base)
        factory.start()
    import nbclient  # noqa: F401  (slow; imported once, while the factory warms up)
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            job = json.loads(line)
            try:
                limits = Limits(**job["limits"])
                report = run_submission(job["path"], job["plan"], limits, base,
                                        Path(job["cache_dir"]), job["token"], factory).to_json()
            except Exception as error:  # noqa: BLE001 - report it, keep the worker alive
                report = {"grader_error": f"{type(error).__name__}: {error}",
                          "traceback": traceback.format_exc(limit=8)}
            finally:
                kill_descendants(spare={factory.pid} if factory and factory.pid else set())
            replies.write(json.dumps({"id": job["id"], "report": report}) + "\n")
            replies.flush()
    finally:
        if factory is not None:
            factory.close()
        kill_descendants()
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
