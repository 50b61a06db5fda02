"""Student releases: markers, determinism, and no leaked solution or hidden test."""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from nbcourse.cli import main
from nbcourse.grading import authoring, specs
from nbcourse.grading.release import release

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "exercises" / "source"
RELEASE = REPO / "exercises"
COURSE = {"01_weather", "02_smoothing", "03_mle", "04_linearity", "05_spam", "08_beyond_naive"}
TRIVIAL = re.compile(r"^[\s\W]*$|^(else|try|finally|pass|return|break|continue)\b\W*$")


def _hidden_text(source_dir: Path) -> dict[str, authoring.Blocks]:
    """The solution and hidden-test lines of every source notebook, as the release finds them."""
    return {path.name: authoring.student_notebook(nbformat.read(path, as_version=4), str(path))[1]
            for path in authoring.source_notebooks(source_dir)}


def _notebook(*cells):
    """A source notebook with stored outputs, as an instructor's would have."""
    notebook = nbformat.v4.new_notebook()
    for i, (kind, text) in enumerate(cells):
        if kind == "code":
            cell = nbformat.v4.new_code_cell(text, execution_count=3, outputs=[
                nbformat.v4.new_output("stream", text="old output\n")])
        else:
            cell = nbformat.v4.new_markdown_cell(text)
        cell["id"] = f"c{i}"
        notebook.cells.append(cell)
    return notebook


def test_solutions_become_stubs_at_their_indentation():
    source = _notebook(("code", "def f(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION\n"),
                       ("markdown", "Why?\n\n### BEGIN SOLUTION\nBecause.\n### END SOLUTION"))
    student, removed = authoring.student_notebook(source)
    assert student.cells[0].source == "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()"
    assert student.cells[1].source == "Why?\n\nYOUR ANSWER HERE"
    assert student.cells[0].outputs == [] and student.cells[0].execution_count is None
    assert removed.solution == ["    return 2 * x", "Because."]


def test_hidden_test_cells_disappear_and_mixed_cells_keep_their_public_part():
    source = _notebook(("code", "x = 1"),
                       ("code", "### BEGIN HIDDEN TESTS\nassert x == 1\n### END HIDDEN TESTS"),
                       ("code", "print(x)\n### BEGIN HIDDEN TESTS\nassert x > 0\n### END HIDDEN TESTS"))
    student, removed = authoring.student_notebook(source)
    assert [c.source for c in student.cells] == ["x = 1", "print(x)"]
    assert removed.hidden == ["assert x == 1", "assert x > 0"]


@pytest.mark.parametrize("text, problem", [
    ("### BEGIN SOLUTION\nx = 1", "never closed"),
    ("x = 1\n### END SOLUTION", "without its BEGIN"),
    ("### BEGIN SOLUTION\n### BEGIN HIDDEN TESTS\n### END HIDDEN TESTS\n### END SOLUTION", "inside an open"),
    ("### BEGIN SOLUTIONS\nx = 1\n### END SOLUTION", "looks like a marker"),
    # near misses that would otherwise ship the solution (issue 18)
    ("## BEGIN SOLUTION\nx = 1\n## END SOLUTION", "'## BEGIN SOLUTION' looks like a marker"),
    ("### begin solution\nx = 1\n### end solution", "looks like a marker"),
    ("#BEGIN HIDDEN TEST\nassert x\n#END HIDDEN TEST", "looks like a marker"),
])
def test_broken_markers_are_reported_with_cell_and_line(text, problem):
    with pytest.raises(authoring.MarkerError, match=problem) as error:
        authoring.student_notebook(_notebook(("code", text)), "demo.ipynb")
    assert "demo.ipynb, cell 1" in str(error.value)


def test_the_committed_student_versions_are_exactly_a_fresh_release():
    built = authoring.build(SOURCE)
    assert sorted(built) == sorted(p.name for pattern in ("*.ipynb", "*.checks.json")
                                   for p in RELEASE.glob(pattern))
    for name, text in built.items():
        assert authoring.same_release(name, (RELEASE / name).read_bytes(), text), \
            f"exercises/{name} is out of date: run `nbcourse release`"


def test_building_twice_gives_the_same_bytes():
    assert authoring.build(SOURCE) == authoring.build(SOURCE)


def test_every_exercise_has_a_spec_a_source_and_at_least_three_graded_questions():
    names = specs.available(SOURCE)  # discovered, so an added exercise is checked too
    assert COURSE <= set(names)
    assert sorted(p.stem for p in SOURCE.glob("*.ipynb")) == names
    for name in names:
        exercise = specs.load(name, SOURCE)
        assert exercise.questions and all(q.points > 0 for q in exercise.questions)
        if name in COURSE:  # an instructor's own exercise may be shorter
            assert len(exercise.questions) >= 3
        assert (SOURCE / f"{name}.ipynb").is_file()


@pytest.mark.parametrize("name", sorted(p.name for p in SOURCE.glob("*.ipynb")))
def test_no_solution_line_or_hidden_test_reaches_a_student_file(name):
    blocks = _hidden_text(SOURCE)[name]
    assert blocks.solution and blocks.hidden
    student_text = "\n".join(
        cell.source for cell in nbformat.read(RELEASE / name, as_version=4).cells)
    for line in blocks.solution + blocks.hidden:
        if TRIVIAL.match(line.strip()):
            continue
        assert line.strip() not in student_text, f"{name} leaks {line.strip()!r}"
    for marker in ("BEGIN SOLUTION", "HIDDEN TESTS", "run_hidden_tests", ".grading.py"):
        assert marker not in (RELEASE / name).read_text()
    assert not list(RELEASE.glob("*.grading.py"))


def test_release_check_and_write(tmp_path, capsys):
    target = tmp_path / "student"
    assert main(["release", "--source", str(SOURCE), "--release-dir", str(target), "--check"]) == 1
    assert "out of date" in capsys.readouterr().out
    assert main(["release", "--source", str(SOURCE), "--release-dir", str(target)]) == 0
    assert main(["release", "--source", str(SOURCE), "--release-dir", str(target), "--check"]) == 0
    (target / "99_old.ipynb").write_text("{}")
    assert main(["release", "--source", str(SOURCE), "--release-dir", str(target), "--check"]) == 1
    assert "no source for" in capsys.readouterr().out


def test_release_refuses_to_overwrite_the_sources():
    with pytest.raises(ValueError, match="must differ"):
        release(SOURCE, SOURCE)


@pytest.mark.parametrize("name", specs.available(SOURCE))
def test_the_checks_file_ships_public_cases_only(name):
    """check() needs the public cases; nothing hidden and no solution reaches students."""
    import json
    exercise = specs.load(name, SOURCE)
    text = (RELEASE / f"{name}.checks.json").read_text(encoding="utf-8")
    shipped = json.loads(text)
    for question, data in zip(exercise.questions, shipped["questions"]):
        public = [case.name for case in question.cases if not case.hidden]
        assert [case["name"] for case in data["cases"]] == public
        for case in question.cases:
            if case.hidden and case.name not in public:
                assert json.dumps(case.name) not in text, f"{name} {question.id} {case.name}"
    # hints are written to be shown (one may state a formula the solution also has)
    for question in shipped["questions"]:
        question["hint"] = ""
        for case in question["cases"]:
            case["hint"] = ""
    data = json.dumps(shipped, ensure_ascii=False)
    for line in _hidden_text(SOURCE)[f"{name}.ipynb"].solution:
        if not TRIVIAL.match(line.strip()) and len(line.strip()) > 12:
            assert line.strip() not in data


def test_a_near_miss_marker_is_refused_at_release_naming_file_cell_and_line(tmp_path, capsys):
    main(["new", "06_laplace", "--source", str(tmp_path)])
    path = tmp_path / "06_laplace.ipynb"
    path.write_text(path.read_text().replace("### BEGIN SOLUTION", "## BEGIN SOLUTION")
                    .replace("### END SOLUTION", "## END SOLUTION"))
    capsys.readouterr()
    assert main(["release", "--source", str(tmp_path), "--release-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{path}, cell 4, line 2" in err and "'## BEGIN SOLUTION' looks like a marker" in err
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------- no graded value reaches a student
def _numbers(value):
    """Every number inside an expected value (lists, dicts, Fractions)."""
    from fractions import Fraction
    from numbers import Real
    if isinstance(value, bool):
        return []
    if isinstance(value, (Real, Fraction)):
        return [value]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, (list, tuple)):
        return [n for v in value for n in _numbers(v)]
    return []


def _formats(number) -> set[str]:
    """How a number can be written in a notebook or a JSON file (a person would round it)."""
    from fractions import Fraction
    x = float(number)
    found = {repr(x)}
    if abs(x) >= 0.01:  # fewer digits than that say nothing about a tiny number
        found |= {f"{x:.4f}", f"{x:.5f}", f"{x:.6f}"}
    if 0.01 <= abs(x) <= 1:
        found |= {f"{100 * x:.2f}%", f"{100 * x:.1f}%"}
    if isinstance(number, Fraction) and number.denominator > 1:
        found |= {f"{number.numerator}/{number.denominator}",
                  f'"$fraction": [{number.numerator}, {number.denominator}]'}
    return found


def _distinctive(number, denominator: int = 200) -> bool:
    """Worth searching for: not a whole number or a fraction with a small denominator
    (1/3, 0.75 or 5.0 turn up in any file by chance), four significant digits or more."""
    import math
    from fractions import Fraction
    x = abs(float(number))
    if math.isinf(x) or math.isnan(x) or x == round(x):
        return False
    if abs(float(Fraction(x).limit_denominator(denominator)) - x) < 1e-12:
        return False
    digits = repr(x).lstrip("0.").replace(".", "").rstrip("0").split("e")[0]
    return len(digits) >= 4


def _released_text() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for pattern in ("*.ipynb", "*.checks.json")
            for p in RELEASE.glob(pattern)}


def _own(texts, exercise) -> dict[str, str]:
    """The files a student of this exercise receives (a number another exercise happens
    to show is not this exercise's answer)."""
    return {name: text for name, text in texts.items() if name.startswith(exercise.name)}


def _leaks(exercise, texts) -> list[str]:
    """Where a graded expected value (a hidden case's, or a value graded only at grading)
    appears in a released file."""
    import json

    from nbcourse.grading.values import decode_input
    found = []
    shipped = json.loads(texts[f"{exercise.name}.checks.json"])
    for question, data in zip(exercise.questions, shipped["questions"]):
        expected = question.expected()
        graded = [value for case, value in zip(question.cases, expected) if case.hidden]
        if question.graded_later:
            # nothing of its own in the checks file: no expected value, no mistake (a wrong
            # choice ruled out tells which one is left), no explanation
            for case in data["cases"]:
                if case["expected"] is not None or case["mistakes"]:
                    found.append(f"{question.id}: a public case ships values")
            shared = {m.feedback for other in exercise.questions if not other.graded_later
                      for m in other.mistakes}  # the same words under a function question
            for mistake in question.mistakes:
                if mistake.feedback in shared:
                    continue
                for name, text in texts.items():
                    if mistake.feedback in text:
                        found.append(f"{question.id}: {name} explains {mistake.name!r}")
        for value in graded:
            for case in data["cases"]:  # a public case's own values may not equal it either
                for shown in [case["expected"], *case.get("mistakes", {}).values()]:
                    if shown is not None and question.graded_later and \
                            question.same_as(decode_input(shown), value, question.cases[0]):
                        found.append(f"{question.id}: the checks file holds the graded value")
            numbers = _numbers(value)
            if question.graded_later and isinstance(value, str) and len(value) > 3:
                for name, text in _own(texts, exercise).items():
                    if json.dumps(value) in text:
                        found.append(f"{question.id}: {name} holds the graded text {value!r}")
            for number in numbers:
                # a value graded on its own is searched harder: 61/62 is the answer itself
                if not _distinctive(number, 20 if question.graded_later else 200):
                    continue
                for form in _formats(number):
                    for name, text in _own(texts, exercise).items():
                        # as a number of its own: 0.7310 is not a leak inside 0.73105857...
                        if re.search(r"(?<![\d.])" + re.escape(form) + r"(?!\d)", text):
                            found.append(f"{question.id}: {name} holds {form} (graded {number!r})")
    return found


@pytest.mark.parametrize("name", specs.available(SOURCE))
def test_no_released_file_holds_a_graded_expected_value(name):
    assert _leaks(specs.load(name, SOURCE), _released_text()) == []


def test_the_leak_test_finds_a_graded_value_written_into_a_student_file():
    """The test above can fail: the two leaks issue 25 found, put back, are both found."""
    import json
    texts = _released_text()
    spam = specs.load("05_spam", SOURCE)
    accuracy = spam.question("q6").expected()[1]
    planted = dict(texts, **{"05_spam.ipynb": texts["05_spam.ipynb"] + f"\n{accuracy!r}\n"})
    assert any("q6" in leak for leak in _leaks(spam, planted))
    merging = specs.load("07_merging", SOURCE)
    shipped = json.loads(texts["07_merging.checks.json"])
    question = merging.question("q4")
    for case in shipped["questions"][3]["cases"]:
        case["mistakes"] = {m.name: m.reference() for m in question.mistakes}
    shipped["questions"][3]["mistakes"] = [{"name": m.name, "feedback": m.feedback}
                                           for m in question.mistakes]
    planted = dict(texts, **{"07_merging.checks.json": json.dumps(shipped)})
    assert any("q4" in leak for leak in _leaks(merging, planted))


def test_a_release_does_not_depend_on_what_an_optimiser_returns(monkeypatch):
    """Issue 25: 03_mle.checks.json held a known mistake's values as scipy's optimiser found
    them, which differed in the 7th digit on another CPU (OpenBLAS SkylakeX).  The values
    are now derived exactly: nudging every optimiser result changes no released byte."""
    import numpy as np
    import scipy.optimize

    before = authoring.build(SOURCE)
    real_minimize = scipy.optimize.minimize

    def nudged_minimize(*args, **kwargs):
        result = real_minimize(*args, **kwargs)
        result.x = np.asarray(result.x) * (1 + 3e-7)
        return result

    monkeypatch.setattr(scipy.optimize, "minimize", nudged_minimize)
    after = authoring.build(SOURCE)
    assert [name for name in before if before[name] != after[name]] == []


def test_a_checks_file_differing_only_in_the_last_digits_is_up_to_date(tmp_path):
    """A float another CPU computes a few units in the last place apart (numpy's SIMD exp
    and log differ between processors) does not make the release out of date, and is not
    rewritten; a real change is."""
    import json
    release(SOURCE, tmp_path)
    path = tmp_path / "03_mle.checks.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    case = data["questions"][0]["cases"][0]
    case["expected"] = case["expected"] * (1 + 4e-16)
    path.write_text(authoring.render_checks(data), encoding="utf-8")
    nudged = path.read_bytes()
    report = release(SOURCE, tmp_path, check=True)
    assert report.up_to_date, report.written
    release(SOURCE, tmp_path)
    assert path.read_bytes() == nudged  # not rewritten
    case["expected"] = case["expected"] * (1 + 1e-6)
    path.write_text(authoring.render_checks(data), encoding="utf-8")
    assert release(SOURCE, tmp_path, check=True).written == ["03_mle.checks.json"]


_BROKEN_SPECS = {  # (text in the scaffold's spec, its replacement, the error validate gives)
    "no hidden case": (None, None, "q1 has no hidden case"),  # every case made public
    "a case the reference cannot run": ('({"x": 7}, "x")', '({"x": 7},)',
                                        "q1 hidden case 3 ('a single outcome'): the "
                                        "reference fails: TypeError"),
    "a mistake that loses nothing": ("count\", share_of_the_largest,", "count\", ref_share,",
                                     "q1 mistake 'divided by the largest count' passes every "
                                     "case: it loses no points"),
}


@pytest.mark.parametrize("broken", sorted(_BROKEN_SPECS))
def test_validate_names_the_question_and_what_is_wrong_with_its_spec(tmp_path, broken):
    from nbcourse.grading.validate import errors, validate
    main(["new", "06_laplace", "--source", str(tmp_path)])
    spec = tmp_path / "06_laplace.grading.py"
    old, new, message = _BROKEN_SPECS[broken]
    if old is None:
        text = spec.read_text(encoding="utf-8")
        for case in ('"b"))', '"x"))', '"3"))'):
            text = text.replace(case, case[:-1] + ", hidden=False)")
    else:
        assert old in spec.read_text(encoding="utf-8")
        text = spec.read_text(encoding="utf-8").replace(old, new)
    assert not errors(validate("06_laplace", tmp_path))
    spec.write_text(text, encoding="utf-8")
    found = errors(validate("06_laplace", tmp_path))
    assert [p.message[:len(message)] for p in found] == [message]
    assert found[0].where.startswith(str(spec))
