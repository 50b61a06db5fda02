"""The ``nbcourse`` command: list exercises, build student versions, grade submissions.

    nbcourse list
    nbcourse new NN_name
    nbcourse validate [EXERCISE]
    nbcourse release [--check]
    nbcourse grade EXERCISE SUBMISSION... --out DIR [--jobs N] [--timeout SECONDS]

Exit status: 0 when the command did its job (a batch with broken submissions still
exits 0: each one has a row and a status), 1 when ``release --check`` finds the
student versions out of date or ``validate`` finds an error, 2 for a usage error
(unknown exercise, no submissions, a spec that does not load, ``release`` refused
because an exercise does not validate).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nbcourse",
        description="Exercises of the nbcourse naive Bayes course: student releases and "
                    "safe auto-grading.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    source_help = ("folder with the instructor's solution notebooks and *.grading.py specs "
                   "(default: exercises/source of this course)")

    listing = commands.add_parser(
        "list", help="list the exercises, their questions and points",
        description="List the exercises that can be graded, with their questions and points.")
    listing.add_argument("--source", type=Path, default=None, help=source_help)

    new = commands.add_parser(
        "new", help="start a new exercise: a source notebook, its spec and known mistakes",
        description="Write NN_name.ipynb (a source notebook with an example question: "
                    "solution markers, a check cell and a hidden-test cell) and "
                    "NN_name.grading.py (its grading spec, with public and hidden cases and a "
                    "list of known mistakes to fill in) into the source folder. Every part to "
                    "edit is marked with a comment. Nothing is overwritten.")
    new.add_argument("name", metavar="NN_name",
                     help="the exercise's file name without extension, e.g. 06_laplace")
    new.add_argument("--source", type=Path, default=None, help=source_help)

    validate = commands.add_parser(
        "validate", help="check exercises before release: specs, markers, answer names",
        description="Check every exercise (or one): the solution markers of the source "
                    "notebook, that every reference runs on every case, that every graded name "
                    "is defined by the solution, that function questions have hidden cases, and "
                    "that every known mistake loses points and is recognised. 'nbcourse "
                    "release' runs the same checks and refuses to release on an error.")
    validate.add_argument("exercise", metavar="EXERCISE", nargs="?", default=None,
                          help="one exercise (default: all of them)")
    validate.add_argument("--source", type=Path, default=None, help=source_help)

    release = commands.add_parser(
        "release", help="build the student versions of the exercises",
        description="Build the student notebooks from the solution notebooks: solutions "
                    "become '# YOUR CODE HERE' stubs, hidden tests and outputs are removed.")
    release.add_argument("--source", type=Path, default=None, help=source_help)
    release.add_argument("--release-dir", type=Path, default=None,
                         help="where the student notebooks go (default: the parent folder of "
                              "--source, i.e. exercises/)")
    release.add_argument("--check", action="store_true",
                         help="change nothing; exit 1 if a student notebook is out of date")

    grade = commands.add_parser(
        "grade", help="grade submissions into a gradebook and feedback pages",
        description="Run each submission in a fresh, limited kernel, evaluate its answers on "
                    "hidden inputs and write OUT/grades.csv, OUT/results.json and "
                    "OUT/feedback/<submission>.html.")
    grade.add_argument("exercise", metavar="EXERCISE",
                       help="the exercise, e.g. 01_weather, weather or 1 (see 'nbcourse list')")
    grade.add_argument("submissions", metavar="SUBMISSION", nargs="+",
                       help="a submitted notebook, or a folder searched for *.ipynb")
    grade.add_argument("--out", type=Path, required=True, metavar="DIR",
                       help="folder for grades.csv, results.json and feedback/ (created if needed)")
    grade.add_argument("--jobs", type=_positive_int, default=2, metavar="N",
                       help="submissions graded in parallel, one kernel each (default: 2)")
    grade.add_argument("--timeout", type=_positive_float, default=30.0, metavar="SECONDS",
                       help="time allowed for each cell and for each graded answer (default: 30); "
                            "a whole notebook gets at most max(300, 10 x SECONDS)")
    grade.add_argument("--memory-mb", type=_positive_int, default=2048, metavar="MB",
                       help="address-space limit of each kernel in MB (default: 2048)")
    grade.add_argument("--source", type=Path, default=None, help=source_help)
    grade.add_argument("--quiet", action="store_true",
                       help="no progress lines, only the summary")
    return parser


def _list(args) -> int:
    from .grading import specs

    source = args.source or specs.default_source_dir()
    for name in specs.available(source):
        exercise = specs.load(name, source)
        print(f"{name}: {exercise.title} ({exercise.maximum:g} points)")
        for q in exercise.questions:
            print(f"  {q.id}  {q.name:<24} {q.points:g} pt  {q.title}")
    return 0


def _new(args) -> int:
    from .grading import scaffold, specs

    source = Path(args.source or specs.default_source_dir())
    for path in scaffold.new_exercise(args.name, source):
        print(f"wrote {path}")
    print(f"next: edit them (every '# EDIT' comment), then 'nbcourse validate {args.name}"
          f"{' --source ' + str(args.source) if args.source else ''}' and 'nbcourse release'")
    return 0


def _validate(args) -> int:
    from .grading import specs, validate

    source = Path(args.source or specs.default_source_dir())
    if args.exercise:
        found = {args.exercise: validate.validate(args.exercise, source)}
    else:
        found = validate.validate_all(source)
    n_errors = 0
    for name, problems in found.items():
        for problem in problems:
            print(problem, file=sys.stderr if problem.level == "error" else sys.stdout)
        n_errors += len(validate.errors(problems))
    print(f"{len(found)} exercise{'s' if len(found) != 1 else ''} checked in {source}: "
          f"{n_errors} error{'s' if n_errors != 1 else ''}")
    return 1 if n_errors else 0


def _release(args) -> int:
    from .grading import authoring, specs

    source = args.source or specs.default_source_dir()
    target = args.release_dir or Path(source).parent
    report = authoring.release(source, target, check=args.check)
    if args.check:
        for name in report.written:
            print(f"out of date: {target / name} (run 'nbcourse release')")
        for name in report.stale:
            print(f"no source for: {target / name}")
        if report.up_to_date:
            print(f"{len(report.unchanged)} student files in {target} are up to date")
        return 0 if report.up_to_date else 1
    for name in report.written:
        print(f"wrote {target / name}")
    print(f"{len(report.written)} written, {len(report.unchanged)} unchanged in {target}")
    for name in report.stale:
        print(f"warning: {target / name} has no source notebook", file=sys.stderr)
    return 0


def _grade(args) -> int:
    from .grading.batch import grade_batch, summary

    batch = grade_batch(args.exercise, args.submissions, args.out, jobs=args.jobs,
                        timeout=args.timeout, memory_mb=args.memory_mb, source_dir=args.source,
                        progress=None if args.quiet else sys.stderr)
    print(summary(batch))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handlers = {"list": _list, "new": _new, "validate": _validate, "release": _release,
                "grade": _grade}
    try:
        return handlers[args.command](args)
    except (FileNotFoundError, ValueError) as error:
        print(f"nbcourse {args.command}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `nbcourse list | head`
        sys.stdout = open(os.devnull, "w")
        return 0


if __name__ == "__main__":
    sys.exit(main())
