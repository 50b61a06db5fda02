"""The exercises' instructions agree with the lessons and with each other (issue 35).

Each test reads the student notebook, which is what a student sees, and holds one
corrected sentence to the lesson or question it used to contradict.
"""
from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RELEASE = REPO / "exercises"


def _markdown(name: str) -> list[str]:
    notebook = json.loads((RELEASE / f"{name}.ipynb").read_text(encoding="utf-8"))
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown"]


def _question(name: str, number: int) -> str:
    return next(text for text in _markdown(name) if text.startswith(f"## Question {number} "))


def test_02_questions_2_and_9_state_the_same_range_for_the_mode_formula():
    for number in (2, 9):
        text = _question("02_smoothing", number)
        assert "a' \\ge 1" in text and "b' \\ge 1" in text and "equal to 1" in text, number
    assert "> 1" not in _question("02_smoothing", 9)


def test_04_writes_word_counts_as_z():
    text = "\n".join(_markdown("04_linearity"))
    assert "word counts $\\mathbf{z}$" in text and "\\sum_k z_k \\log \\theta_{ck}" in text
    assert "\\sum_k x_k \\log \\theta" not in text


def test_06_says_where_lesson_06_set_var_smoothing_to_0():
    text = " ".join("\n".join(_markdown("06_gaussian")).split())
    assert "lesson 06 used `var_smoothing=0`" not in text
    assert "`var_smoothing=0` only for one feature in §2 and for a toy table in §5" in text
    lesson = REPO / "notebooks" / "06_gaussian_naive_bayes.ipynb"
    assert lesson.read_text(encoding="utf-8").count("GaussianNB(var_smoothing=0)") == 2


def test_08_question_1_uses_lesson_08s_letters():
    text = _question("08_beyond_naive", 1)
    assert "X_k" not in text and "v'" not in text and "\\mid Y" not in text
    assert "I(x_k; x_l \\mid y)" in text and "n_{uvc}" in text


def test_08_question_4_says_how_its_tie_rule_differs_from_good_word_attack():
    text = " ".join(_question("08_beyond_naive", 4).split())
    assert "at $s \\le 0$ it is ham" in text
    assert "`good_word_attack`" in text and "strictly below 0" in text
