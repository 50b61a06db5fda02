"""The ``nbcourse`` command: list exercises, build student versions, grade submissions.

    nbcourse init DIR [--instructor] [--force]
    nbcourse list
    nbcourse new NN_name
    nbcourse validate [EXERCISE]
    nbcourse release [--check]
    nbcourse grade EXERCISE SUBMISSION... --out DIR [--jobs N] [--timeout SECONDS]
                   [--notebook NAME] [--scheduler ADDRESS [--tls DIR | --insecure]]
                   [--format canvas|moodle|moodle-grades|moodle-feedback|questions] [LMS OPTIONS]
    nbcourse certs DIR [--days N]
    nbcourse export OUT... [--to DIR]
                   [--format canvas|moodle|moodle-grades|moodle-feedback|questions]
                   [LMS OPTIONS]
    nbcourse --version

LMS OPTIONS (grade and export): [--roster FILE [--roster-column COLUMN]]
    [--canvas-assignment "Name (id)"]... [--scale MAX]... [--lms-language en|fr|de]

``list``, ``release`` and ``grade`` work on a course folder: the one given by ``--source``,
else the ``exercises/source`` folder found from the current folder (see
``nbcourse.resources.find_exercise_source``), such as one made by ``nbcourse init --instructor``.

Exit status: 0 when the command did its job (a batch with broken submissions still
exits 0: each one has a row and a status), 1 when ``release --check`` finds the
student versions out of date or ``validate`` finds an error, 2 for a usage error
(unknown exercise, no submissions, a spec that does not load, no course folder, a
non-empty folder for ``init``, ``release`` refused because an exercise does not
validate).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ._version import __version__
from .grading.execution.sandbox import SANDBOX_MODES
from .grading.export import FORMATS as LMS_FORMATS
from .grading.export import DEFAULT_FORMATS, LANGUAGES, ROSTER_FORMATS

__all__ = ["build_parser", "main"]


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value




def _positive_points(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of points, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nbcourse",
        description="Exercises of the nbcourse naive Bayes course: student releases and "
                    "safe auto-grading.")
    parser.add_argument("--version", action="version", version=f"nbcourse {__version__}",
                        help="print the installed version of nbcourse and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    _add_init(commands)
    _add_exercise_commands(commands)
    _add_grade(commands)
    _add_certs(commands)
    _add_export(commands)
    return parser


SOURCE_HELP = ("folder with the instructor's solution notebooks and *.grading.py specs "
               "(default: exercises/source of the course folder you are in)")


def _add_init(commands) -> None:
    init = commands.add_parser(
        "init", help="copy the lessons, exercises and data into a new folder",
        description="Write the course (lessons, student exercises, the small data sets and "
                    "their licences) into DIR, ready for `jupyter lab DIR`. With --instructor "
                    "also the exercise sources and grading specs, so that list, release and "
                    "grade work inside DIR.")
    init.add_argument("folder", metavar="DIR", type=Path,
                      help="the folder to create (it must not exist or be empty)")
    init.add_argument("--instructor", action="store_true",
                      help="also copy the solutions, hidden tests and *.grading.py specs "
                           "(exercises/source/): never give these to students")
    init.add_argument("--force", action="store_true",
                      help="write into DIR even if it is not empty, overwriting the course's "
                           "own files there (other files are left alone)")
    init.add_argument("--source", type=Path, default=None,
                      help="with --instructor: where the exercise sources come from, a "
                           "checkout of the course repository, a folder of sources and "
                           "specs, or the instructor archive (nbcourse-X.Y.Z.tar.gz from "
                           "`python -m build`); the installed package holds none")


def _add_exercise_commands(commands) -> None:
    """list, new, validate and release: the instructor's commands on exercise sources."""
    listing = commands.add_parser(
        "list", help="list the exercises, their questions and points",
        description="List the exercises that can be graded, with their questions and points.")
    listing.add_argument("--source", type=Path, default=None, help=SOURCE_HELP)

    new = commands.add_parser(
        "new", help="start a new exercise: a source notebook, its spec and known mistakes",
        description="Write NN_name.ipynb (a source notebook with an example question: "
                    "solution markers, a check cell and a hidden-test cell) and "
                    "NN_name.grading.py (its grading spec, with public and hidden cases and a "
                    "list of known mistakes to fill in) into the source folder. Every part to "
                    "edit is marked with a comment. Nothing is overwritten.")
    new.add_argument("name", metavar="NN_name",
                     help="the exercise's file name without extension, e.g. 06_laplace")
    new.add_argument("--source", type=Path, default=None, help=SOURCE_HELP)

    validate = commands.add_parser(
        "validate", help="check exercises before release: specs, markers, answer names",
        description="Check every exercise (or one): the solution markers of the source "
                    "notebook, that every reference runs on every case, that every graded name "
                    "is defined by the solution, that function questions have hidden cases, and "
                    "that every known mistake loses points and is recognised. 'nbcourse "
                    "release' runs the same checks and refuses to release on an error.")
    validate.add_argument("exercise", metavar="EXERCISE", nargs="?", default=None,
                          help="one exercise (default: all of them)")
    validate.add_argument("--source", type=Path, default=None, help=SOURCE_HELP)

    release = commands.add_parser(
        "release", help="build the student versions of the exercises",
        description="Build the student notebooks from the solution notebooks: solutions "
                    "become '# YOUR CODE HERE' stubs, hidden tests and outputs are removed.")
    release.add_argument("--source", type=Path, default=None, help=SOURCE_HELP)
    release.add_argument("--release-dir", type=Path, default=None,
                         help="where the student notebooks go (default: the parent folder of "
                              "--source, i.e. exercises/)")
    release.add_argument("--check", action="store_true",
                         help="change nothing; exit 1 if a student notebook is out of date")


def _add_grade(commands) -> None:
    from .grading.batch import DEFAULT_JOBS, DEFAULT_SANDBOX
    from .grading.execution.limits import GradingLimits

    grade = commands.add_parser(
        "grade", help="grade submissions into a gradebook and feedback pages",
        description="Run each submission in a fresh, limited kernel in its own sandbox, "
                    "evaluate its answers on hidden inputs and write OUT/grades.csv, "
                    "OUT/results.json and OUT/feedback/<submission>.html.")
    grade.add_argument("exercise", metavar="EXERCISE",
                       help="the exercise, e.g. 01_weather, weather or 1 (see 'nbcourse list')")
    grade.add_argument("submissions", metavar="SUBMISSION", nargs="+",
                       help="a submitted notebook, or a folder searched for *.ipynb")
    grade.add_argument("--out", type=Path, required=True, metavar="DIR",
                       help="folder for grades.csv, results.json and feedback/ (created if "
                            "needed). A gradebook of the exercise already there is merged "
                            "into, never replaced: students graded again get their new row, "
                            "new students are added, every other row is kept byte for byte; "
                            "each run is logged in DIR/history.jsonl")
    _add_regrade_options(grade)
    grade.add_argument("--jobs", type=_positive_int, default=DEFAULT_JOBS, metavar="N",
                       help="submissions graded in parallel, one kernel each (default: "
                            f"{DEFAULT_JOBS})")
    defaults = GradingLimits()  # checked there too: one home for every limit
    grade.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                       help="time allowed for each cell and for each graded answer (default: "
                            f"{defaults.cell_timeout:g}); a whole notebook gets at most "
                            f"max({defaults.total_timeout:g}, 10 x SECONDS)")
    grade.add_argument("--memory-mb", type=int, default=None, metavar="MB",
                       help="memory limit of each submission in MB (default: "
                            f"{defaults.memory_mb})")
    grade.add_argument("--source", type=Path, default=None, help=SOURCE_HELP)
    grade.add_argument("--sandbox", choices=SANDBOX_MODES, default=DEFAULT_SANDBOX,
                       help="run each submission in its own bubblewrap sandbox (auto and "
                            "bwrap: stop with a message if it cannot isolate here); off: no "
                            f"isolation, at your own risk (default: {DEFAULT_SANDBOX})")
    grade.add_argument("--quiet", action="store_true",
                       help="no progress lines, only the summary")
    grade.add_argument("--notebook", metavar="NAME", default=None,
                       help="the file name students hand in, without .ipynb, when it is not "
                            "the exercise's (in submitted/<student>/ folders)")
    grade.add_argument("--scheduler", metavar="ADDRESS", default=None,
                       help="grade on a Dask cluster: the scheduler's address, e.g. "
                            "tls://host:8786 with --tls (each worker needs nbcourse and "
                            "bubblewrap, and is sent every hidden input and notebook), or "
                            "local:N for N worker processes on this machine")
    grade.add_argument("--tls", type=Path, default=None, metavar="DIR",
                       help="the certificates 'nbcourse certs DIR' made: the grader connects "
                            "to a tls:// scheduler with DIR/client.pem, trusting DIR/ca.pem")
    grade.add_argument("--insecure", action="store_true",
                       help="accept a tcp:// scheduler without TLS: any machine that can "
                            "reach it can join as a worker, read every hidden input and "
                            "notebook, change any mark and run code in this grader")
    grade.add_argument("--format", metavar="FORMAT", action="append", default=[],
                       choices=LMS_FORMATS,
                       help="also write OUT/canvas.csv, OUT/moodle.csv, OUT/moodle-grades.csv, "
                            "OUT/moodle-feedback.zip or OUT/questions.csv (repeat for several; "
                            "'nbcourse export' writes them later)")
    _add_lms_options(grade)


def _add_lms_options(command) -> None:
    """The options of the LMS files, shared by grade and export."""
    command.add_argument("--roster", type=Path, default=None, metavar="FILE",
                         help="the class list: a Canvas gradebook export, a Moodle "
                              "participants export or a Moodle assignment's grading "
                              "worksheet; every student on it gets a row (grade: 'not "
                              "submitted' when nothing of theirs was found) and, in the LMS "
                              "files, the LMS's own ids, and OUT/roster.csv says who matched "
                              "which submission; without --format, writes "
                              + ", ".join(ROSTER_FORMATS))
    command.add_argument("--roster-column", metavar="COLUMN", default=None,
                         help="the roster column that holds the submission folders' names "
                              "(default: login, e-mail address or its part before @, or full "
                              "name, compared without regard to case or accent encoding)")
    command.add_argument("--canvas-assignment", metavar="COLUMN", action="append", default=[],
                         help="the Canvas column, 'Name (assignment id)' as in a Canvas "
                              "export (once per graded folder; default: the roster's column "
                              "of the same name, else the exercise's name, which Canvas adds "
                              "as a new assignment)")
    command.add_argument("--scale", metavar="MAX", type=_positive_points, action="append",
                         default=[],
                         help="write marks out of MAX points, the LMS item's maximum (once, "
                              "or once per graded folder)")
    command.add_argument("--lms-language", choices=LANGUAGES, default="en",
                         help="the language of the Moodle site, whose worksheet importer looks "
                              "for its column names in that language (default: en)")


def _add_regrade_options(grade) -> None:
    """--only, --overrides, --due, --late, --reason: a gradebook that only grows."""
    grade.add_argument("--only", metavar="STUDENT", action="append", default=[],
                       help="grade only this student among the submissions found (repeat "
                            "for several), e.g. to regrade one student into the class's --out")
    grade.add_argument("--overrides", type=Path, default=None, metavar="FILE",
                       help="a CSV 'student,question,points,reason' of marks set by hand "
                            "(default: DIR/overrides.csv when it exists); shown with their "
                            "reason on the feedback page, in the report and the gradebooks")
    grade.add_argument("--due", metavar="WHEN", default=None,
                       help="the deadline, e.g. 2026-11-20T23:59 (UTC unless it gives an "
                            "offset); lateness is read from nbgrader's timestamp.txt and "
                            "Canvas's _LATE_ (one day). Remembered in DIR for later runs")
    grade.add_argument("--late", metavar="POLICY", default=None,
                       help="none (record lateness only, the default), zero, or per-day:P "
                            "(P%% of the maximum off per day or part of a day late); "
                            "remembered in DIR for later runs")
    grade.add_argument("--reason", metavar="TEXT", default="",
                       help="why this run was made, kept in DIR/history.jsonl")


def _add_certs(commands) -> None:
    certs = commands.add_parser(
        "certs", help="make the TLS certificates of a Dask cluster for grading",
        description="Write into DIR (made with mode 700) a certificate authority (ca.pem) "
                    "and, signed by it, a certificate and key for the Dask scheduler "
                    "(scheduler.pem, scheduler-key.pem), the workers (worker.pem, "
                    "worker-key.pem) and the grader (client.pem, client-key.pem). The "
                    "authority's own key is not kept: to add a machine, copy the worker's "
                    "files to it; to replace the certificates, make a new folder.")
    certs.add_argument("folder", metavar="DIR", type=Path,
                       help="where to write them (none of the files may exist yet)")
    certs.add_argument("--days", type=_positive_int, default=365, metavar="N",
                       help="how long the certificates are valid (default: 365 days)")


def _add_export(commands) -> None:
    export = commands.add_parser(
        "export", help="write LMS gradebooks from graded batches",
        description="From OUT/results.json write OUT/canvas.csv (Canvas gradebook import), "
                    "OUT/moodle.csv (Moodle assignment grading worksheet), "
                    "OUT/moodle-grades.csv (Moodle gradebook CSV import) and "
                    "OUT/questions.csv (one row per student and question). With several "
                    "OUT folders (one per exercise), one Canvas and one Moodle gradebook "
                    "file cover them all, written to --to DIR.")
    export.add_argument("out", metavar="OUT", type=Path, nargs="+",
                        help="the folder(s) 'nbcourse grade' wrote")
    export.add_argument("--to", type=Path, default=None, metavar="DIR",
                        help="where the files go (default: OUT; required with several OUT)")
    export.add_argument("--format", metavar="FORMAT", action="append", default=[],
                        choices=LMS_FORMATS,
                        help="canvas, moodle, moodle-grades, moodle-feedback (a zip of the "
                             "feedback pages for Moodle) or questions (default: canvas, "
                             "moodle and questions, and moodle-grades with a roster)")
    _add_lms_options(export)
    export.add_argument("--overrides", type=Path, default=None, metavar="FILE",
                        help="apply this overrides CSV (as 'nbcourse grade --overrides') to "
                             "OUT first (one OUT only); OUT/overrides.csv is applied when it "
                             "exists")
    export.add_argument("--source", type=Path, default=None, help=SOURCE_HELP)


class NoCourseFolder(Exception):
    """list/release/grade found no exercise sources to work on."""


def _course_source(args) -> Path:
    """The folder with the exercise sources and specs: --source, else found from the cwd."""
    from .resources import SPEC_SUFFIX, find_exercise_source, has_specs

    if args.source is not None:
        if not has_specs(args.source):
            raise NoCourseFolder(f"--source {args.source} holds no grading specs (*{SPEC_SUFFIX})")
        return args.source
    found, looked = find_exercise_source()
    if found is None:
        # one line: the error is printed with control characters escaped (student 31 saw
        # ``\x0a`` where the line breaks were)
        where = ", ".join(str(p) for p in looked)
        raise NoCourseFolder(
            f"no course folder found: looked for grading specs (*{SPEC_SUFFIX}) in {where}. "
            "Create one with `nbcourse init --instructor my-course` and run this command "
            "inside my-course, or pass --source FOLDER.")
    return found


def _init(args) -> int:
    from .resources import init_course

    if args.source is not None and not args.instructor:
        raise NoCourseFolder("--source is for --instructor copies: a student copy comes from "
                             "the installed package")
    written = init_course(args.folder, instructor=args.instructor, force=args.force,
                          source=args.source)
    for path in written:
        print(f"wrote {path}")
    kind = "instructor" if args.instructor else "student"
    print(f"{len(written)} files written to {args.folder} ({kind} copy). "
          f"Open the lessons with: jupyter lab {args.folder}")
    if args.instructor:
        print(f"Then, from {args.folder}: nbcourse list / nbcourse release / nbcourse grade")
    return 0


def _list(args) -> int:
    from .grading import specs

    source = _course_source(args)
    for name in specs.available(source):
        exercise = specs.load(name, source)
        print(f"{name}: {exercise.title} ({exercise.maximum:g} points)")
        for q in exercise.questions:
            print(f"  {q.id}  {q.name:<24} {q.points:g} pt  {q.title}")
    return 0


def _new(args) -> int:
    from .grading import scaffold

    source = Path(args.source) if args.source is not None else _course_source(args)
    for path in scaffold.new_exercise(args.name, source):
        print(f"wrote {path}")
    where = f" --source {args.source}" if args.source is not None else ""
    print(f"next: edit them (every '# EDIT' comment), then 'nbcourse validate {args.name}{where}'"
          f" and 'nbcourse release{where}{' --release-dir DIR' if where else ''}' "
          "(see 'Adding an exercise' in exercises/README.md)")
    return 0


def _validate(args) -> int:
    from .grading import validate

    source = Path(_course_source(args))
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
    from .grading.release import release

    source = _course_source(args)
    target = args.release_dir or Path(source).parent
    report = release(source, target, check=args.check)
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
    from .grading.batch import grade_batch
    from .grading.execution.worker import skip_uri_grammar
    from .grading.summary import summary

    skip_uri_grammar()  # this process reads notebooks too (the class report's templates)

    roster = None
    if args.roster is not None:  # a roster that cannot be read stops before any grading
        from .grading.roster import read_roster
        roster = read_roster(args.roster)
        args.format = args.format or list(ROSTER_FORMATS)
    _check_lms_options(args)

    batch = grade_batch(args.exercise, args.submissions, args.out, jobs=args.jobs,
                        timeout=args.timeout, memory_mb=args.memory_mb,
                        source_dir=_course_source(args), sandbox=args.sandbox,
                        progress=None if args.quiet else sys.stderr,
                        notebook=args.notebook, scheduler=args.scheduler, tls=args.tls,
                        insecure=args.insecure, only=args.only, overrides=args.overrides,
                        command=_command_line(), reason=args.reason, due=args.due,
                        late=args.late, roster=roster, roster_column=args.roster_column)
    print(summary(batch))
    if args.format:
        from .grading.terminal import terminal_safe
        for path in _write_lms_files(args.out, args.format, args):
            print(terminal_safe(f"  {path.stem}: {path}"))
    return 0


def _check_lms_options(args) -> None:
    """An LMS option that would change nothing is a mistake to report, not to ignore."""
    if args.roster_column is not None and args.roster is None:
        raise ValueError("--roster-column needs --roster FILE")
    given = [name for name, value in (("--canvas-assignment", args.canvas_assignment),
                                      ("--scale", args.scale), ("--roster-column",
                                                                args.roster_column),
                                      ("--lms-language", args.lms_language != "en")) if value]
    if given and not args.format:
        raise ValueError(f"{', '.join(given)}: these change only the LMS files; add "
                         "--format canvas, moodle, moodle-grades or moodle-feedback "
                         "(or --roster)")


def _write_lms_files(out, formats, args) -> list:
    from .grading.export import write_exports
    from .grading.terminal import terminal_safe
    warnings: list[str] = []
    written = write_exports(out, formats, canvas_assignment=args.canvas_assignment or None,
                            roster=args.roster, roster_column=args.roster_column,
                            scale=args.scale or None, language=args.lms_language,
                            to=getattr(args, "to", None), warnings=warnings)
    for warning in warnings:
        print(terminal_safe(f"warning: {warning}"), file=sys.stderr)
    return written


def _command_line() -> str:
    """The command as typed, for the output folder's history."""
    import shlex
    return shlex.join(["nbcourse", *sys.argv[1:]])


def _certs(args) -> int:
    from .grading.certs import make_certificates

    for path in make_certificates(args.folder, days=args.days):
        print(f"wrote {path}")
    print(f"Copy ca.pem, worker.pem and worker-key.pem to every worker, ca.pem and "
          f"scheduler*.pem to the scheduler; grade with --tls {args.folder} (see the README)")
    return 0


def _export(args) -> int:
    from .grading.merge import reapply_overrides
    from .grading.overrides import OVERRIDES_FILE
    from .grading.terminal import terminal_safe

    if args.roster_column is not None and args.roster is None:
        raise ValueError("--roster-column needs --roster FILE")
    if args.overrides is not None and len(args.out) != 1:
        raise ValueError("--overrides FILE applies to one graded folder; with several, put "
                         "an overrides.csv in each folder")
    for folder in args.out:
        overrides = args.overrides
        if overrides is None and (folder / OVERRIDES_FILE).is_file():
            overrides = folder / OVERRIDES_FILE
        if overrides is not None:
            if not overrides.is_file():
                raise FileNotFoundError(f"--overrides {overrides}: no such file")
            reapply_overrides(folder, overrides, _course_source(args), _command_line())
    formats = args.format or (ROSTER_FORMATS if args.roster else DEFAULT_FORMATS)
    out = args.out[0] if len(args.out) == 1 else args.out
    for path in _write_lms_files(out, formats, args):
        print(terminal_safe(f"wrote {path}"))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handlers = {"init": _init, "list": _list, "new": _new, "validate": _validate,
                "release": _release, "grade": _grade, "certs": _certs, "export": _export}
    try:
        return handlers[args.command](args)
    except (FileNotFoundError, FileExistsError, ValueError, RuntimeError,
            NoCourseFolder) as error:  # RuntimeError includes SandboxUnavailable
        from .grading.terminal import terminal_safe  # the error may quote a file's name
        print(terminal_safe(f"nbcourse {args.command}: error: {error}"), file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `nbcourse list | head`
        sys.stdout = open(os.devnull, "w")
        return 0


if __name__ == "__main__":
    sys.exit(main())
