"""The grading worker process: ``python -I -m nbcourse.grading.worker_main``.

``execution/worker.py`` runs submissions and knows nothing of grading policy.  This
entry point hands it the one piece of policy that must run next to the untrusted
source: the forbidden-estimator scan (``forbidden.flagged_answers``), which parses a
student's code with ``ast`` and so belongs in the worker, under its memory limit, not
in the instructor's process.  ``workers.Worker`` starts this module, on this machine
(``scheduling``) and on every Dask worker (``cluster``).
"""
from __future__ import annotations

import sys

from .execution.worker import main
from .forbidden import flagged_answers

if __name__ == "__main__":
    sys.exit(main(flagged_answers))
