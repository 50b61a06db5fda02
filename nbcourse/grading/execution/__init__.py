"""Running submissions: everything that touches a student's code, apart from judging it.

- ``limits``: ``GradingLimits``, every limit a submission is graded under;
- ``sandbox``: the bubblewrap sandbox (seccomp, no capability, read-only but for its
  home, ``/tmp`` and ``/dev/shm``, its channel) and a start-up self-test, whose probe is
  ``sandbox_probe``; ``sandbox_stage``, a root grader's first step of each sandbox;
- ``cgroups``: memory and tasks counted per sandbox, and ending it by its cgroup;
- ``launcher``: the one kernel launcher, sandboxed or not: a kernel server that forks a
  kernel per submission and empties the sandbox between two (``KernelServer``);
- ``notebook_file``: reading a submitted file without trusting it (``open_untrusted``, the
  one way the grader opens one: no link followed, no pipe waited on);
- ``runner``: one notebook in one kernel, cell by cell, then the probes for the answers;
- ``cells``: a code cell read as Python (``parse_cell``), the one rule of every reader;
- ``probe_source``: the code that reads an answer inside the kernel, as JSON;
- ``replies``: how the grader installs and calls that probe and reads its reply back;
- ``worker``: a process that runs submissions one at a time for the batch (started as
  ``grading/worker_main.py``, which hands it the forbidden-estimator scan);
- ``processes``: leave no process behind;
- ``report``: the typed ``RunReport`` handed to ``scoring`` (the only interface).

Nothing here imports the rest of ``nbcourse.grading`` (``tests/test_code_shape.py``):
grading policy that must run next to a student's code comes in as a parameter.

Importing this package is cheap; the jupyter machinery is imported by the modules that
use it.
"""
