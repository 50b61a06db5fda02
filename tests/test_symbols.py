"""One letter, one meaning: the lessons and exercises use the letters of docs/symbols.md.

A student who reads $C$ as the penalty of logistic regression in lesson 04 should not meet
a cost matrix called $C$ in lesson 05, nor $b$ (a Beta prior's tails) as the number of
bins in lesson 06. These tests read the stored notebooks (source and released exercises,
their checks files, and what the graders say) for the second meanings that were removed,
and check that the letters that replaced them are in the table.
"""
import json

import pytest

from course_paths import REPO
from lesson_outputs import lesson, markdown, markdown_with, output_of

TABLE = (REPO / "docs" / "symbols.md").read_text(encoding="utf-8")


def _text(path):
    """Markdown, code and stored text outputs of one notebook, as one string."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    parts = []
    for cell in notebook["cells"]:
        parts.append("".join(cell["source"]))
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


LESSONS = sorted((REPO / "notebooks").glob("[0-9]*.ipynb"))
EXERCISES = sorted((REPO / "exercises").glob("[0-9]*.ipynb")) + sorted(
    (REPO / "exercises" / "source").glob("[0-9]*.ipynb"))
FEEDBACK = sorted((REPO / "exercises").glob("*.checks.json")) + sorted(
    (REPO / "exercises" / "source").glob("*.grading.py"))

# a second meaning that was removed -> the letter of the table it clashed with
OLD_MEANINGS = {
    "C[i, j]": "C is logistic regression's penalty; the cost matrix is L",
    "proba @ C": "the cost matrix is L",
    "proba_val @ C": "the cost matrix is L",
    "\\sum_b": "b is a Beta prior's parameter; bins are j = 1..J",
    "\\frac{n_b}": "bin counts are n_j",
    "$n_b$": "bin counts are n_j",
    "\\lfloor p \\cdot B": "the number of bins is J",
    "P(X \\mid \\theta)": "X is the feature matrix; a coin's likelihood is P(N_1 | theta)",
    "p(\\theta \\mid X)": "X is the feature matrix",
    "(n + 1) / (N + 2)": "n indexes examples; Laplace for a coin is (N_1 + 1)/(N + 2)",
    "\\Gamma(n)": "n indexes examples",
    "1/r^{a}": "a is a Beta prior's parameter; Zipf's exponent is kappa",
    "Still linear in $b$": "b is a Beta prior's parameter; the presence bits are b_k",
    "given $C$": "C is logistic regression's penalty",
    "\\alpha K": "K is the number of classes; an attribute has J values",
    "$K$-sided": "K is the number of classes; a die has J sides",
    "\\theta_{cK}": "K is the number of classes; the vocabulary has V words",
    "n_{v,c}": "the table writes n_{vc}",
    "P(x_i": "features are indexed by k",
    "largest score $m$": "m is the m-estimate's sample size; the largest score is s_max",
    "n_a n_b": "lesson 07 writes N_A N_B",
}


@pytest.mark.parametrize("path", LESSONS + EXERCISES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_letter_of_the_table_has_a_second_meaning(path):
    text = _text(path)
    found = {old: why for old, why in OLD_MEANINGS.items() if old in text}
    assert not found, found


@pytest.mark.parametrize("path", FEEDBACK, ids=lambda p: p.relative_to(REPO).as_posix())
def test_feedback_uses_the_letters_of_the_lessons(path):
    text = path.read_text(encoding="utf-8")
    for old in ("alpha * K", "K is the number of values", "(n + 1) / ", "1 - K smallest",
                "n_k / N", "P(x_i"):
        assert old not in text, (path.name, old)


def test_the_new_letters_are_in_the_table():
    for row in ("| $L$, $L_{cc'}$ | the cost (loss) matrix", "| $\\kappa$ | exponent of Zipf's law",
                "the number of bins of a reliability diagram", "the number of examples in bin $j$"):
        assert row in TABLE, row


def test_lesson_05_names_its_cost_matrix_l_in_prose_code_and_recap():
    notebook = lesson("05_")
    assert "Call the matrix $L$ (for *loss*)" in markdown_with(notebook, "The expected cost of a decision")
    code = output_of(notebook, "expected = proba_val @ L")
    assert "decisions that differ from the most probable class: 3" in code
    assert "`proba @ L`" in markdown_with(notebook, "## Recap")


def test_lesson_06_writes_the_calibration_error_with_the_bins_of_the_table():
    text = markdown_with(lesson("06_"), "**expected calibration error**")
    assert "\\sum_{j=1}^{J} \\frac{n_j}{N}" in text and "$J = 10$" in text
    # the ten bins the formula counts are the ten rows the lesson prints
    table = output_of(lesson("06_"), "by_hand = binned.groupby")
    assert [line.split()[0] for line in table.splitlines()[-10:]] == [str(j) for j in range(10)]


def test_lesson_02_prints_laplace_with_the_coin_counts_of_the_table():
    printed = output_of(lesson("02_"), "laplace([3, 0], exact=True)")
    assert "Laplace, heads (N_1 + 1)/(N + 2) and tails (N_0 + 1)/(N + 2): 4/5, 1/5" in printed
    assert "P(N_1 \\mid \\theta) = \\binom{N}{N_1}" in markdown(lesson("02_"))


@pytest.mark.parametrize("stem", ["03_", "04_", "05_", "06_"])
def test_an_examples_features_are_a_bold_x_in_lessons_03_to_06(stem):
    # docs/symbols.md writes the features of one example as a bold x; a plain x inside a
    # probability (P(x | y), P(y | x)) is the slip a reader noticed.
    text = markdown(lesson(stem))
    for slip in ("P(x,", "P(x)", "P(x \\mid", "\\mid x)", "w \\cdot x", "a message $x$", "how $x$ is",
                 "(x_n, y_n)", "\\mid x_n)"):
        assert slip not in text, (stem, slip)
