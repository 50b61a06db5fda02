"""The class report's integrity hints (``nbcourse.grading.integrity``) and the students it
names: a renamed, reformatted, reordered copy and a copy of the solution are found, six
independently written correct answers are left alone, and no notebook can make the
comparison blow up."""
from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from nbcourse.grading import integrity
from nbcourse.grading.class_report import attention, marked

REPO = Path(__file__).resolve().parents[2]
INDEPENDENT = REPO / "tests" / "fixtures" / "independent"
SUBMISSIONS = REPO / "tests" / "fixtures" / "submissions"
SOURCE = REPO / "exercises" / "source" / "01_weather.ipynb"
QUESTIONS = {"q1": "likelihood", "q2": "joint_scores", "q3": "predict", "q4": "p_no",
             "q5": "p_win_given_free"}
AUTHORS = ["ada", "ben", "chen", "dana", "emil", "fumi"]

#: ada's answers as a classmate might hand them in: every name she chose renamed, other
#: spacing and comments, one line split, cells in another order and two answers merged.
ADA_COPY = ['''
# question 5 first
pFreeS = pWinS = 0.4      # spam
pFreeH = pWinH = 0.02     # ham
pF = 0.5*pFreeS + 0.5*pFreeH
both = 0.5*pFreeS*pWinS + 0.5*pFreeH*pWinH
p_win_given_free = both/pF
''', '''
def predict(table, query, target):
    # the best label
    return max(joint_scores(table, query, target).items(),
               key=lambda item: item[1])[0]
''', '''
def likelihood(table, feature, value, target, label):
    col = table.loc[table[target] == label,
                    feature]
    return Fraction(int((col == value).sum()),
                    len(col))


def joint_scores(table, query, target):
    result = {}
    for cls, sub in table.groupby(target):
        prob = Fraction(len(sub), len(table))
        for f in query:
            prob = prob * likelihood(table, f, query[f], target, cls)
        result[cls] = prob
    return result
''', '''
today = joint_scores(weather, lesson_day, "play")
denominator = today["yes"] + today["no"]
p_no = today["no"] / denominator
''']


def _code(path: Path) -> list[str]:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]


def _template() -> list[str]:
    return integrity.template_cells(SOURCE)


def _copy_notebook() -> nbformat.NotebookNode:
    """The release with ADA_COPY's cells where the five stubs were (gradable as it is)."""
    notebook = nbformat.read(REPO / "exercises" / "01_weather.ipynb", as_version=4)
    stubs = [i for i, cell in enumerate(notebook.cells)
             if "raise NotImplementedError()" in cell.source]
    for index in reversed(stubs):
        del notebook.cells[index]
    at = next(i for i, c in enumerate(notebook.cells) if "lesson_day = " in c.source) + 1
    for offset, code in enumerate(ADA_COPY):
        notebook.cells.insert(at + offset, nbformat.v4.new_code_cell(code.strip("\n")))
    return notebook


def _compare(code: dict, **options) -> integrity.Report:
    return integrity.compare(code, QUESTIONS, integrity.solution_cells(SOURCE), _template(),
                             **options)


def test_the_independent_answers_are_what_their_script_writes():
    sys.path.insert(0, str(INDEPENDENT))
    try:
        import make_independent
    finally:
        sys.path.remove(str(INDEPENDENT))
    for name, text in make_independent.expected().items():
        assert (INDEPENDENT / name).read_text(encoding="utf-8") == text, name


def test_no_pair_among_independently_written_answers_is_flagged():
    report = _compare({author: _code(INDEPENDENT / f"{author}.ipynb") for author in AUTHORS})
    assert report.compared == len(AUTHORS)
    assert report.pairs == []
    assert report.solution == []  # none of them is the instructor's solution either


def test_the_most_similar_independent_pair_is_far_below_the_threshold():
    """The margin the threshold is chosen with: every pair (and each against the
    solution) shares under half of what the threshold asks."""
    report = _compare({author: _code(INDEPENDENT / f"{author}.ipynb") for author in AUTHORS},
                      threshold=integrity.THRESHOLD / 2)
    assert report.pairs == [] and report.solution == []


def test_a_renamed_reformatted_reordered_copy_is_found():
    code = {author: _code(INDEPENDENT / f"{author}.ipynb") for author in AUTHORS}
    code["zed"] = [cell.source for cell in _copy_notebook().cells if cell.cell_type == "code"]
    report = _compare(code)
    assert [(p.first, p.second) for p in report.pairs] == [("ada", "zed")]
    pair = report.pairs[0]
    assert pair.similarity >= 0.9
    assert pair.same_answers == ["q1", "q2", "q3", "q4", "q5"]
    assert report.solution == []


def test_a_copy_of_the_solution_is_found_even_renamed():
    code = {author: _code(INDEPENDENT / f"{author}.ipynb") for author in AUTHORS}
    code["sol"] = _code(SUBMISSIONS / "correct.ipynb")
    renamed = [re.sub(r"\bin_class\b", "rows_of_y", re.sub(r"\bscores\b", "s", cell))
               for cell in code["sol"]]
    code["sol2"] = renamed[::-1]
    report = _compare(code)
    assert [name for name, _ in report.solution] == ["sol", "sol2"]
    assert [(p.first, p.second) for p in report.pairs] == [("sol", "sol2")]
    assert report.solution[0][1] == 1.0


def test_the_untouched_release_is_not_compared():
    report = _compare({"blank": _template(), "ada": _code(INDEPENDENT / "ada.ipynb")})
    assert report.not_compared == {"blank": "too little code of its own to compare"}
    assert report.compared == 1


def test_a_cell_that_does_not_parse_is_read_as_words():
    broken = [cell + "\n%timeit x\n)(" if "def joint_scores" in cell else cell
              for cell in _code(INDEPENDENT / "ada.ipynb")]
    found = integrity.statements(broken, frozenset(QUESTIONS.values()))
    assert any(s.words and "joint_scores" in s.uses for s in found)
    report = _compare({"ada": _code(INDEPENDENT / "ada.ipynb"), "ada2": broken})
    assert report.compared == 2  # still compared, less precisely


@pytest.mark.parametrize("cell", [
    "(" * 100_000 + ")" * 100_000,                       # nesting beyond the parser's limit
    "p_no = " + "+".join(["1"] * 300_000),               # a tree deep enough to recurse
    "x = [" * 5_000 + "]" * 5_000,
    "def likelihood():\n" + "    if x:\n" * 2_000 + "pass",
    "p_no = '\x00'\n",                                    # a null byte
    "\udcff = 1",                                         # a lone surrogate
    "p_no = 1\n" * 1_000_000,                             # far more code than is read
])
def test_no_cell_can_make_the_comparison_fail(cell):
    found = integrity.statements([cell] * 20, frozenset(QUESTIONS.values()))
    assert sum(len(s.tokens) for s in found) <= integrity.MAX_TOKENS
    report = _compare({"evil": [cell], "ada": _code(INDEPENDENT / "ada.ipynb")})
    assert report.error == "" and report.pairs == []


def test_bad_threshold_and_code_are_refused():
    with pytest.raises(ValueError, match="threshold"):
        integrity.compare({}, QUESTIONS, threshold=0)
    with pytest.raises(TypeError, match="code must be a dict"):
        integrity.compare([], QUESTIONS)


# ------------------------------------------------------------ the students named
def _row(name, status, total):
    return SimpleNamespace(submission=name, status=status, total=total, reasons=[],
                           questions=[])


def test_attention_names_who_needs_a_person_and_means_leave_out_non_submissions():
    batch = SimpleNamespace(exercise=SimpleNamespace(maximum=10), results=[
        _row("ann", "graded", 10), _row("bo", "graded", 4.5), _row("cy", "not submitted", 0),
        _row("di", "timed out", 8), _row("ed", "kernel died", 0),
        _row("fay", "several notebooks", 0), _row("gus", "cell error", 5)])
    names = [name for name, _, _ in attention(batch)]
    assert names == ["cy", "di", "ed", "fay", "bo"]  # statuses first, then the low totals
    assert attention(batch)[-1][2] == "4.5 of 10 points"
    assert [r.submission for r in marked(batch.results)] == ["ann", "bo", "di", "ed", "gus"]
    with pytest.raises(ValueError, match="below"):
        attention(batch, below=2)


# ------------------------------------------------------------ through the grader
@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """Six independent answers, ada's disguised copy, a copy of the solution, a wrong
    answer, a loop that times out (both made from the solution) and a student with
    nothing, graded as a class."""
    root = tmp_path_factory.mktemp("integrity") / "submitted"
    for author in AUTHORS:
        (root / author).mkdir(parents=True)
        (root / author / "01_weather.ipynb").write_bytes(
            (INDEPENDENT / f"{author}.ipynb").read_bytes())
    (root / "zed").mkdir()
    nbformat.write(_copy_notebook(), root / "zed" / "01_weather.ipynb")
    for name, fixture in {"sol": "correct", "wen": "wrong", "lou": "answer_loops"}.items():
        (root / name).mkdir()
        (root / name / "01_weather.ipynb").write_bytes((SUBMISSIONS / f"{fixture}.ipynb")
                                                       .read_bytes())
    (root / "nobody").mkdir()
    out = root.parent / "grades"
    run = subprocess.run([sys.executable, "-m", "nbcourse.cli", "grade", "01_weather", str(root),
                          "--out", str(out), "--jobs", "2", "--timeout", "5"],
                         capture_output=True, text=True, cwd=REPO, timeout=600)
    assert run.returncode == 0, run.stderr
    rows = {r["submission"]: r for r in csv.DictReader((out / "grades.csv").open())}
    return rows, (out / "report.html").read_text(encoding="utf-8"), run.stdout


def _table(page: str, table_id: str) -> list[list[str]]:
    table = re.search(rf'<table id="{table_id}">(.*?)</table>', page, re.DOTALL).group(1)
    return [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in table.split("</tr>")
            if "<td" in row]


def test_the_class_report_lists_the_copy_and_the_solution(graded_class):
    rows, page, _ = graded_class
    assert rows["zed"]["total"] == "10"  # the disguised copy works, and is graded as such
    # lou's notebook is the solution with a loop added: a copy too, as a person would say
    pairs = _table(page, "integrity-pairs")
    assert sorted(row[:2] for row in pairs) == [["ada", "zed"], ["lou", "sol"]]
    assert sorted(row[0] for row in _table(page, "integrity-solution")) == ["lou", "sol"]
    assert f'<span id="integrity-threshold">{integrity.THRESHOLD:.0%}</span>' in page
    assert "not a finding" in page and "No mark depends on it" in page


def test_the_class_report_names_the_students_who_need_attention(graded_class):
    rows, page, _ = graded_class
    assert rows["nobody"]["status"] == "not submitted"
    assert rows["lou"]["status"] == "timed out"
    assert float(rows["wen"]["total"]) < 5
    named = {row[0]: row[1] for row in _table(page, "attention")}
    assert named == {"nobody": "not submitted", "lou": "timed out", "wen": "graded"}


def test_means_and_pass_rates_leave_out_who_submitted_nothing(graded_class):
    rows, page, _ = graded_class
    marks = [Fraction(r["total"]) for r in rows.values() if r["status"] != "not submitted"]
    assert f'<span id="mean">{float(round(sum(marks) / len(marks), 2)):.2f}</span>' in page
    assert '<span id="not-submitted">1</span> not submitted' in page
    assert f"{len(marks)} submissions with a mark" in page
    q1_full = sum(1 for r in rows.values() if r["status"] != "not submitted" and r["q1"] == "2")
    assert f">{q1_full} of {len(marks)}</td>" in page


def test_every_name_in_the_hints_is_escaped():
    from nbcourse.grading.class_report import _integrity_section
    report = integrity.Report(pairs=[integrity.Pair("<script>a</script>", "b&c", 0.9, ["q1"])],
                              solution=[("<img src=x>", 1.0)], compared=3,
                              not_compared={"<i>": "too little code of its own to compare"})
    page = _integrity_section(report)
    assert "<script>" not in page and "<img" not in page and "<i>" not in page
    assert "&lt;script&gt;a&lt;/script&gt;" in page and "b&amp;c" in page
    assert "Could not be computed: x &lt;y&gt;" in _integrity_section(
        integrity.Report(error="x <y>"))


def test_the_terminal_mean_leaves_out_who_submitted_nothing(graded_class):
    rows, _, terminal = graded_class
    marks = [float(r["total"]) for r in rows.values() if r["status"] != "not submitted"]
    assert terminal.count(f"mean score {sum(marks) / len(marks):.2f} / 10 "
                             f"(over {len(marks)} submissions with a mark)") == 1
