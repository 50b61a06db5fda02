"""Running submissions: everything that touches a student's code, apart from judging it.

- ``sandbox``: one bubblewrap sandbox per submission, its limits and a start-up self-test;
- ``runner``: one notebook in one kernel, cell by cell, then the probes for the answers;
- ``probe_source``: the code that reads an answer inside the kernel, as JSON;
- ``worker``: a process that runs submissions one at a time for the batch;
- ``kernel_factory``: fast unconfined kernels (forked from a preloaded process) for
  ``--sandbox off``;
- ``processes``: leave no process behind;
- ``report``: the typed ``RunReport`` handed to ``scoring`` (the only interface).

Importing this package is cheap; the jupyter machinery is imported by the modules that
use it.
"""
