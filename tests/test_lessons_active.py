"""Every lesson asks the student to think, and sends them on to its exercise.

What a student would notice if it broke: a lesson with nothing to answer, an answer shown
in the open instead of folded away, a recap that does not say where to practise, or a
lesson that no longer says what it teaches and how long it takes.
"""
import re
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
#: every numbered lesson, so that a new one is checked without touching this file
LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
ANSWER = re.compile(r"<details><summary>Answer[^<]*</summary>(.+?)</details>", re.S)


def markdown(path):
    notebook = nbformat.read(path, as_version=4)
    return [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]


def exercises_of(lesson: Path) -> list[Path]:
    """The student exercise notebooks with the lesson's number (exercises/NN_*.ipynb)."""
    return sorted((REPO / "exercises").glob(f"{lesson.name[:2]}_*.ipynb"))


def test_the_lessons_are_found_and_numbered_one_after_another():
    numbers = [int(p.name[:2]) for p in LESSONS]
    assert len(numbers) >= 7 and numbers == list(range(1, len(numbers) + 1))


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_each_lesson_has_one_exercise(path):
    assert len(exercises_of(path)) == 1, f"{path.name}: exercises {exercises_of(path)}"


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
    link = f"../exercises/{exercises_of(path)[0].name}"
    assert any(f"]({link})" in source for source in cells[recap:]), f"{path.name} does not link {link}"
