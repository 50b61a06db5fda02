#!/usr/bin/env python3
"""Install the built wheel the way an instructor would, far from the checkout, and use it.

    python .ci/check_wheel.py dist/nbcourse-X.Y.Z-py3-none-any.whl

In a new temporary folder outside the checkout: a fresh virtual environment, the wheel
installed into it (not editable; its dependencies from the package index), and then, run
from that folder with the checkout nowhere on sys.path:

1. ``nbcourse --version`` matches the wheel;
2. the wheel holds no exercise source, grading spec, solution or hidden test;
   ``nbcourse init`` (student) gets lessons, student exercises, data and licences, and
   no solution or hidden test; ``nbcourse init --instructor`` without ``--source`` says
   where to get the sources, and with ``--source`` (the checkout) also gets sources and
   specs; every file equals the checkout's;
3. lesson 01 runs top to bottom with nbclient and shows 0.0053 and 0.0206;
4. ``nbcourse release --check`` finds the student versions up to date;
5. ``nbcourse grade`` gives the solution of exercise 1 full marks and the blank student
   version zero, each in its own bubblewrap sandbox (``--sandbox bwrap``).

Exits non-zero, saying what failed, at the first thing that does not work.
"""
from __future__ import annotations

import csv
import filecmp
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

EXECUTE_LESSON = r"""
import sys
from pathlib import Path
import nbformat
from nbclient import NotebookClient
import nbcourse

repo = Path(sys.argv[2]).resolve()
package = Path(nbcourse.__file__).resolve()
assert repo not in package.parents, f"nbcourse imported from the checkout: {package}"
assert not any(p and Path(p).resolve() == repo for p in sys.path), f"checkout on sys.path: {sys.path}"
lesson = Path(sys.argv[1])
notebook = nbformat.read(lesson, as_version=4)
NotebookClient(notebook, timeout=120, kernel_name="python3",
               resources={"metadata": {"path": str(lesson.parent)}}).execute()
text = "\n".join(
    str(output.get("text", "")) + str(output.get("data", {}).get("text/plain", ""))
    for cell in notebook.cells if cell.cell_type == "code" for output in cell.get("outputs", []))
errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", [])
          if o.get("output_type") == "error"]
assert not errors, errors
for number in ("0.0053", "0.0206"):
    assert number in text, f"{number} not in the outputs of {lesson.name}"
print(f"executed {lesson.name} with nbcourse from {package.parent}: 0.0053 and 0.0206 shown")
"""


class CheckFailed(Exception):
    pass


def step(title: str) -> None:
    print(f"\n== {title}", flush=True)


def run(command: list, cwd: Path, env: dict, expect: int | None = 0, timeout: float = 900) -> str:
    """Run ``command`` and return its output; fail unless it exits with ``expect``."""
    shown = " ".join(str(c) for c in command)
    print(f"$ {shown}", flush=True)
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    output = done.stdout + done.stderr
    if expect is not None and done.returncode != expect:
        raise CheckFailed(f"`{shown}` exited {done.returncode}, expected {expect}:\n{output[-4000:]}")
    return output


def clean_env(venv: Path, work: Path) -> dict:
    """The environment of a person with only this venv: no PYTHONPATH, no user site, no
    Jupyter set-up of the developer (kernels, config), the venv's bin first on PATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "JUPYTER", "VIRTUAL_ENV", "NBCOURSE_", "CONDA"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    env["PYTHONNOUSERSITE"] = "1"
    env["JUPYTER_DATA_DIR"] = str(work / ".jupyter-data")
    env["JUPYTER_CONFIG_DIR"] = str(work / ".jupyter-config")
    env["IPYTHONDIR"] = str(work / ".ipython")
    env["MPLCONFIGDIR"] = str(work / ".matplotlib")
    return env


def load_resources():
    spec = importlib.util.spec_from_file_location("_resources", REPO / "nbcourse" / "resources.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compare_with_checkout(course: Path, instructor: bool) -> int:
    """Every file ``init`` wrote equals the checkout's, and nothing is missing or extra."""
    resources = load_resources()
    expected = {r: p for r, p in resources.collect(REPO).items()
                if instructor or not resources.is_instructor_only(r)}
    got = {p.relative_to(course).as_posix() for p in course.rglob("*") if p.is_file()}
    got.discard("README.md")  # written by init itself
    if got != set(expected):
        raise CheckFailed(f"{course}: missing {sorted(set(expected) - got)}, "
                          f"extra {sorted(got - set(expected))}")
    different = [r for r, p in expected.items() if not filecmp.cmp(p, course / r, shallow=False)]
    if different:
        raise CheckFailed(f"{course}: differs from the checkout: {different}")
    return len(expected)


def check(wheel: Path, keep: bool) -> None:
    wheel = wheel.resolve()
    if not wheel.is_file() or wheel.suffix != ".whl":
        raise CheckFailed(f"not a wheel file: {wheel}")
    version = wheel.name.split("-")[1]
    base = Path(tempfile.mkdtemp(prefix="nbcourse-wheel-check-"))
    if REPO in base.parents:
        raise CheckFailed(f"the temporary folder {base} is inside the checkout")
    try:
        venv, work = base / "venv", base / "work"
        work.mkdir()
        env = clean_env(venv, work)
        python = venv / "bin" / "python"
        nbcourse = venv / "bin" / "nbcourse"

        step(f"fresh venv in {venv}, install {wheel.name} (not editable)")
        started = time.monotonic()
        run([sys.executable, "-m", "venv", venv], cwd=work, env=env)
        run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel],
            cwd=work, env=env)
        print(f"installed in {time.monotonic() - started:.0f} s")
        where = run([python, "-I", "-c", "import nbcourse; print(nbcourse.__file__)"],
                    cwd=work, env=env).strip()
        if not where.startswith(str(venv)):
            raise CheckFailed(f"nbcourse imported from {where}, not from the venv")
        print(f"nbcourse imports from {where}")

        step("nbcourse --version")
        shown = run([nbcourse, "--version"], cwd=work, env=env).strip()
        print(shown)
        if shown != f"nbcourse {version}":
            raise CheckFailed(f"--version says {shown!r}, the wheel is {version}")

        step("outside any course folder, list says where it looked and exits non-zero")
        said = run([nbcourse, "list"], cwd=work, env=env, expect=2)
        if "nbcourse init --instructor" not in said or str(work) not in said:
            raise CheckFailed(f"`nbcourse list` outside a course did not explain itself:\n{said}")
        print(said.strip().splitlines()[0])

        step("the wheel holds no instructor material")
        import zipfile
        with zipfile.ZipFile(wheel) as archive:  # (the release code names the markers)
            leaks = [n for n in archive.namelist() if n.endswith(".grading.py")
                     or "/exercises/source/" in n or n.startswith("nbcourse/_course/") and any(
                         m in archive.read(n).decode("utf-8", "replace")
                         for m in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS"))]
        if leaks:
            raise CheckFailed(f"the wheel holds instructor material: {leaks[:10]}")
        print("no exercise source, spec, solution or hidden test in the wheel")

        step("nbcourse init (student copy)")
        print(run([nbcourse, "init", "student-course"], cwd=work, env=env).strip().splitlines()[-1])
        student = work / "student-course"
        count = compare_with_checkout(student, instructor=False)
        leaks = [p.name for p in student.rglob("*") if p.is_file()
                 and any(m in p.read_text(errors="replace")
                         for m in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS"))]
        if leaks or (student / "exercises" / "source").exists():
            raise CheckFailed(f"the student copy holds solutions or hidden tests: {leaks}")
        print(f"{count} files, equal to the checkout's; no solution, no hidden test")
        run([nbcourse, "init", "student-course"], cwd=work, env=env, expect=2)
        print("a second init into the same folder is refused (exit 2)")

        step("nbcourse init --instructor")
        said = run([nbcourse, "init", "refused", "--instructor"], cwd=work, env=env, expect=2)
        if "--source" not in said or (work / "refused" / "exercises" / "source").exists():
            raise CheckFailed(f"init --instructor without --source did not explain itself:\n{said}")
        print("without --source: refused, naming --source")
        run([nbcourse, "init", "course", "--instructor", "--source", REPO], cwd=work, env=env)
        course = work / "course"
        count = compare_with_checkout(course, instructor=True)
        for notice in ("LICENSE", "LICENSE-content.md", "data/README.md"):
            if not (course / notice).is_file():
                raise CheckFailed(f"no {notice} in the course folder")
        print(f"{count} files, equal to the checkout's, licences included")

        step("lesson 01 executes with nbclient (0.0053 / 0.0206)")
        lesson = course / "notebooks" / "01_weather_by_counting.ipynb"
        print(run([python, "-I", "-c", EXECUTE_LESSON, lesson, REPO], cwd=course, env=env,
                  timeout=600).strip())

        step("nbcourse release --check, from inside the course folder")
        print(run([nbcourse, "release", "--check"], cwd=course / "notebooks", env=env).strip())

        step("nbcourse grade: the solution and the blank exercise 1")
        submitted = work / "submitted"
        for who, notebook in (("solution", course / "exercises" / "source" / "01_weather.ipynb"),
                              ("blank", course / "exercises" / "01_weather.ipynb")):
            (submitted / who).mkdir(parents=True)
            shutil.copyfile(notebook, submitted / who / "01_weather.ipynb")
        help_text = run([nbcourse, "grade", "--help"], cwd=course, env=env)
        # bwrap, not auto: fail here rather than quietly grade without the sandbox
        sandbox = ["--sandbox", "bwrap"] if "--sandbox" in help_text else []
        print("grading in the bubblewrap sandbox (--sandbox bwrap)" if sandbox else
              "this grader has no --sandbox option: grading without it")
        print(run([nbcourse, "grade", "1", submitted, "--out", work / "grades", "--jobs", "2",
                   "--timeout", "60", *sandbox], cwd=course, env=env, timeout=900).strip())
        with open(work / "grades" / "grades.csv", encoding="utf-8") as handle:
            rows = {row["submission"]: row for row in csv.DictReader(handle)}
        def row(who):  # ids are "<folder>/<name>" today; only the folder is relied on
            found = [r for name, r in rows.items() if name.startswith(who)]
            return found[0] if len(found) == 1 else None

        solution, blank = row("solution"), row("blank")
        if solution is None or blank is None or len(rows) != 2:
            raise CheckFailed(f"grades.csv rows: {sorted(rows)}")
        if solution["status"] != "graded" or float(solution["total"]) != float(solution["maximum"]):
            raise CheckFailed(f"the solution did not get full marks: {json.dumps(solution)}")
        if float(blank["total"]) != 0:
            raise CheckFailed(f"the blank exercise got points: {json.dumps(blank)}")
        print(f"solution: {solution['status']}, {solution['total']}/{solution['maximum']}; "
              f"blank: {blank['status']}, {blank['total']}/{blank['maximum']}")
    finally:
        if keep:
            print(f"(kept {base})")
        else:
            shutil.rmtree(base, ignore_errors=True)


def main(argv: list[str]) -> int:
    wheels = [a for a in argv if not a.startswith("--")]
    if len(wheels) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        check(Path(wheels[0]), keep="--keep" in argv)
    except CheckFailed as failure:
        print(f"\nWHEEL CHECK FAILED: {failure}", file=sys.stderr)
        return 1
    print("\nwheel check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
