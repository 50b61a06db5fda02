"""pytest setup for the instructor's solution notebooks in ``source/`` (run by nbval).

Exercise 5 reads the SMS Spam Collection through ``NBCOURSE_DATA``; its stored outputs
were made with the real corpus, so point the notebook kernels at it here too, for
runs that collect only ``exercises/`` (``pytest exercises/source``).
"""
import os
from pathlib import Path

os.environ.setdefault("NBCOURSE_DATA",
                      str(Path(__file__).resolve().parents[2] / "shared" / "data"))
