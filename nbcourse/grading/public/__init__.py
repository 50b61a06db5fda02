"""Public tests for the exercises: the lessons' own examples, safe to ship to students.

Hidden tests are not here: they live in the instructor's ``*.grading.py`` specs,
which are never part of the student release or of this package.
"""
