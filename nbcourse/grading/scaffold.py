"""``nbcourse new NN_name``: a new exercise that validates and grades from the start.

It writes two files into the source folder, each with ``# EDIT`` comments where the
instructor's own content goes:

* ``NN_name.ipynb``, a source notebook with one example question: the question in
  Markdown, a solution between ``### BEGIN SOLUTION`` / ``### END SOLUTION``, the
  student's ``check`` cell and a hidden-test cell;
* ``NN_name.grading.py``, its spec: the graded name, public and hidden cases, the
  reference, a hint and two known mistakes (reference + feedback), plus a value
  question to copy, in comments.

Nothing existing is overwritten.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat

from .authoring import render

_NAME = re.compile(r"^\d+_[a-z][a-z0-9_]*$")

SPEC = '''"""Grading spec for exercise {name}.

One file holds every test of the exercise.  A Case with hidden=False is public: the
student's check() runs it, and 'nbcourse release' ships its inputs and expected value
(never a hidden case) in {name}.checks.json next to the student notebook.  Hidden
cases are run only by 'nbcourse grade'.  See exercises/README.md, "Adding an exercise".
"""
from fractions import Fraction

from nbcourse.grading.specs import Case, Exercise, Mistake, Question


# EDIT: the reference computes the expected answer in the grader's process.  It takes
# the same arguments as the student's function (here: a dict of counts and one key).
def ref_share(counts, key):
    return Fraction(counts.get(key, 0), sum(counts.values()))


# EDIT: known mistakes.  Each one computes what a student who makes it returns, from
# the same inputs; its feedback names the misconception and the lesson section.
def share_of_the_largest(counts, key):
    return Fraction(counts.get(key, 0), max(counts.values()))


def share_without_the_key(counts, key):
    rest = sum(value for other, value in counts.items() if other != key)
    return Fraction(counts.get(key, 0), max(rest, 1))


EXERCISE = Exercise(
    title="Exercise {title}",  # EDIT: the title students see on their feedback page
    questions=[
        Question(
            "q1",          # the id used by check("q1", ...) and in the gradebook
            "share",       # EDIT: the name the student defines in the notebook
            points=2,
            title="the share of one outcome",
            reference=ref_share,
            hint="divide the key's count by the total of all counts",
            # forbidden=("laplace",),  # EDIT: library names the answer must not call
            mistakes=[
                Mistake("divided by the largest count", share_of_the_largest,
                        "You divided by the largest count. A share divides by the total "
                        "of all counts, so that the shares add up to 1 (lesson 01, §4)."),
                Mistake("the key left out of the total", share_without_the_key,
                        "Your total leaves the key's own count out. The total counts every "
                        "outcome, the key included (lesson 01, §4)."),
            ],
            cases=[
                # EDIT: public cases (the lesson's own examples) ...
                Case("the lesson's three outcomes", ({{"a": 2, "b": 4, "c": 3}}, "a"),
                     hidden=False),
                # ... and hidden ones (at least one per function question)
                Case("an outcome never seen", ({{"a": 5, "b": 0}}, "b")),
                Case("a single outcome", ({{"x": 7}}, "x")),
                Case("many outcomes", ({{str(i): i + 1 for i in range(10)}}, "3")),
            ]),
        # A value question (a variable of the notebook, read as it is) looks like this;
        # its cases take no inputs, and each may have its own judge:
        #
        # from nbcourse.grading.judges import Within
        # Question("q2", "p_rain", points=1, kind="value", title="P(rain)",
        #          reference=lambda: Fraction(5, 14),
        #          mistakes=[...],
        #          cases=[Case("a probability", hidden=False, judge=Within(0, 1)),
        #                 Case("the value from the table")]),
    ],
)
'''


def _cells(name: str, title: str) -> list:
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        md(f"# Exercise {title}\n\n"
           "<!-- EDIT: what the student practises, how long it takes, which library "
           "functions are off limits. -->\n"
           "Write your code where it says `# YOUR CODE HERE`, then run the `check(...)` cell "
           "below each question."),
        code("from fractions import Fraction\n\n"
             "from nbcourse.grading import check_for\n\n"
             f'check = check_for("{name}")'),
        md("## Question 1 (2 points): a share\n\n"
           "<!-- EDIT: the question. Name the function, its arguments and what it returns. -->\n"
           "Write `share(counts, key)`: the count of `key` over the total of all counts in the "
           "dict `counts`, as a `Fraction`. For example `share({'a': 2, 'b': 4, 'c': 3}, 'a')` "
           "is `Fraction(2, 9)`."),
        code("def share(counts, key):\n"
             "    ### BEGIN SOLUTION\n"
             "    return Fraction(counts.get(key, 0), sum(counts.values()))\n"
             "    ### END SOLUTION"),
        code('check("q1", share)'),
        code("### BEGIN HIDDEN TESTS\n"
             "from nbcourse.grading.hidden import run_hidden_tests\n"
             f'run_hidden_tests("{name}", "q1", share)\n'
             "### END HIDDEN TESTS"),
    ]
    for index, cell in enumerate(cells, start=1):
        cell["id"] = f"{name.replace('_', '-')}-{index}"
    return cells


def new_exercise(name: str, source_dir: Path) -> list[Path]:
    """Write the notebook and spec of exercise ``name``; return their paths."""
    if not _NAME.match(name):
        raise ValueError(f"an exercise name is a number, an underscore and lower-case words, "
                         f"like 06_laplace; got {name!r}")
    source_dir = Path(source_dir)
    notebook_path = source_dir / f"{name}.ipynb"
    spec_path = source_dir / f"{name}.grading.py"
    for path in (notebook_path, spec_path):
        if path.exists():
            raise ValueError(f"{path} already exists; nothing was written")
    title = name.split("_", 1)[0].lstrip("0") + ": " + name.split("_", 1)[1].replace("_", " ")
    notebook = nbformat.v4.new_notebook(cells=_cells(name, title), metadata={
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                       "name": "python3"},
        "language_info": {"name": "python"}})
    notebook.nbformat, notebook.nbformat_minor = 4, 5
    source_dir.mkdir(parents=True, exist_ok=True)
    notebook_path.write_text(render(notebook), encoding="utf-8")
    spec_path.write_text(SPEC.format(name=name, title=title), encoding="utf-8")
    return [notebook_path, spec_path]
