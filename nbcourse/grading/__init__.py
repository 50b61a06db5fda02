"""Exercises: student self-checks, student releases, and safe batch grading.

For students, in an exercise notebook::

    from nbcourse.grading import check_for
    check = check_for("01_weather")
    check("q2", joint_score)        # runs the public tests of question q2

For instructors, the command line (``nbcourse release``, ``nbcourse grade``) drives
``authoring`` (student versions from the solution notebooks) and ``batch`` (grading
in isolated kernels).  Importing this package stays cheap: the grading machinery
(nbclient, jupyter_client) is only imported by the modules that need it.
"""
from .selfcheck import CheckResult, Checker, check_for

__all__ = ["CheckResult", "Checker", "check_for"]
