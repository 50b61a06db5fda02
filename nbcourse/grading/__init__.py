"""Exercises: student self-checks, student releases, and safe batch grading.

For students, in an exercise notebook::

    from nbcourse.grading import check_for
    check = check_for("01_weather")
    check("q2", joint_score)        # runs the public cases of question q2

The public cases come from the exercise's spec (``specs``: one file, public and hidden
cases alike), written next to the student notebook as ``NN_name.checks.json`` by
``nbcourse release``.  For instructors, the command line (``nbcourse new``, ``validate``,
``release``, ``grade``) drives ``scaffold`` (a new exercise), ``validate`` (specs and
markers), ``release`` (``authoring``'s student versions and checks files, once
``validate`` passes) and ``batch`` (grading in sandboxed kernels);
``diagnosis`` names the known mistakes an answer makes.  Importing this package stays cheap: the grading machinery
(nbclient, jupyter_client) is only imported by the modules that need it.
"""
__all__ = ["CheckResult", "Checker", "check_for"]


def __getattr__(name: str):
    """The self-check's names, imported on first use (PEP 562): a grading worker imports
    this package without the self-check's numpy and pandas."""
    if name not in __all__:
        raise AttributeError(f"module 'nbcourse.grading' has no attribute {name!r}")
    from . import selfcheck
    return getattr(selfcheck, name)
