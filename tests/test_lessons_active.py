"""Every lesson asks the student to think, and sends them on to its exercise.

What a student would notice if it broke: a lesson with nothing to answer, an answer shown
in the open instead of folded away, a recap that does not say where to practise, or a
lesson that no longer says what it teaches and how long it takes.
"""
import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
EXERCISES = {
    "01": "01_weather", "02": "02_smoothing", "03": "03_mle",
    "04": "04_linearity", "05": "05_spam", "06": "06_gaussian",
}
LESSONS = sorted(NOTEBOOKS.glob("0[1-6]_*.ipynb"))
ANSWER = re.compile(r"<details><summary>Answer[^<]*</summary>(.+?)</details>", re.S)


def markdown(path):
    notebook = nbformat.read(path, as_version=4)
    return [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]


def test_all_six_lessons_are_checked():
    assert [p.name[:2] for p in LESSONS] == list(EXERCISES)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_opens_with_its_objectives_and_time(path):
    first = markdown(path)[0]
    assert "What you will learn" in first
    assert re.search(r"\*\*Estimated time:\*\* \d+ min", first)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_has_at_least_three_questions_with_folded_answers(path):
    text = "\n".join(markdown(path))
    answers = [a.strip() for a in ANSWER.findall(text)]
    assert len(answers) >= 3, f"{path.name}: only {len(answers)} folded answers"
    assert all(len(a) > 20 for a in answers), "an answer fold is (nearly) empty"
    assert "Check your understanding" in text
    assert "**Predict**" in text, "no prediction asked before a revealing cell"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_recap_links_the_lessons_exercise(path):
    cells = markdown(path)
    recap = next(i for i, source in enumerate(cells) if "## Recap" in source)
    link = f"../exercises/{EXERCISES[path.name[:2]]}.ipynb"
    assert any(f"]({link})" in source for source in cells[recap:]), f"{path.name} does not link {link}"
