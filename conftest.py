"""pytest setup for the whole repository (tests/, notebooks/ and exercises/source/).

The real corpora live beside the project, in ``../shared/data``, unless NBCOURSE_DATA
says otherwise (a checkout nested one level deeper finds ``../../shared/data`` too).
The stored outputs of lessons 04-06 and exercise 5 were made with the real corpora, and
nbval's kernels inherit this process's environment, so the default is set here, before
any kernel starts, whichever folder pytest is asked to collect.
"""
import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_CANDIDATES = [parent / "shared" / "data" for parent in _HERE.parents]
os.environ.setdefault("NBCOURSE_DATA", str(next(
    (path for path in _CANDIDATES if (path / "sms_spam").is_dir()), _CANDIDATES[0])))
