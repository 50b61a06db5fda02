"""No wall of code: a lesson shows its code in steps a reader can follow between two paragraphs.

Lesson 07 once merged Spambase's shards in one 53-line cell (loading, the shortcut, the pooled
update in three orders, the table); it is now three cells with the prose between them. Lesson 08
is still longer in places and is left to its own cold read.
"""
import pytest

from lesson_outputs import lesson

LONGEST = 30   # lines of source in one code cell


@pytest.mark.parametrize("stem", ["01_", "02_", "03_", "04_", "05_", "06_", "07_"])
def test_no_code_cell_of_a_lesson_is_a_wall_of_code(stem):
    lengths = [len(cell.source.splitlines()) for cell in lesson(stem).cells if cell.cell_type == "code"]
    assert max(lengths) <= LONGEST, (stem, max(lengths))


def test_lesson_07_merges_the_spambase_shards_in_steps_with_prose_between():
    notebook = lesson("07_")
    kinds = [cell.cell_type for cell in notebook.cells]
    steps = [i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code" and (
        "rows per shard" in cell.source or "naive_means" in cell.source or "pooled(so_far" in cell.source)]
    assert len(steps) == 3
    assert all(kinds[i + 1] == "markdown" for i in steps[:-1])
