"""From a class's folder to one submission per student (``nbcourse.grading.collection``).

No notebook is run here: these tests check which file becomes which row, under which
name, for every layout the README promises, LMS zips included, and for careless names.
"""
from __future__ import annotations

import io
import json
import os
import stat
import zipfile
from pathlib import Path

import pytest

from nbcourse.grading.collection import collect, matches_notebook, notebook_stem
from nbcourse.grading.saved_outputs import without_outputs
from nbcourse.grading.lms_download import MAX_ZIP_MEMBER_BYTES, lms_name, unpack_zip
from nbcourse.grading.terminal import terminal_safe

NB = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _write(path: Path, text: str = NB) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _rows(found):
    return {s.id: s for s in found.submissions}


def test_readme_layout_grades_only_that_exercise_one_row_per_student(tmp_path):
    """The bug of issue 27: four students, three notebooks each, gave 22 rows."""
    for student in ("alice", "bob", "carol"):
        for exercise in ("01_weather", "02_smoothing", "03_mle"):
            _write(tmp_path / "submitted" / student / f"{exercise}.ipynb")
    _write(tmp_path / "submitted" / "dave" / "02_smoothing.ipynb")
    found = collect([tmp_path / "submitted"], "01_weather")
    rows = _rows(found)
    assert sorted(rows) == ["alice", "bob", "carol", "dave"]
    assert rows["alice"].path == tmp_path / "submitted" / "alice" / "01_weather.ipynb"
    assert rows["dave"].refused == "not submitted"
    assert "02_smoothing.ipynb" in rows["dave"].reason  # says what dave did hand in
    assert all(not rows[s].refused for s in ("alice", "bob", "carol"))


def test_nbgrader_layout(tmp_path):
    for student in ("alice", "bob"):
        _write(tmp_path / "submitted" / student / "ps1" / "01_weather.ipynb")
        _write(tmp_path / "submitted" / student / "ps1" / "notes.ipynb")
    found = collect([tmp_path / "submitted"], "01_weather")
    assert sorted(_rows(found)) == ["alice", "bob"]
    assert _rows(found)["bob"].path.parent.name == "ps1"


def test_notebook_option_names_the_students_file(tmp_path):
    for student in ("alice", "bob"):
        _write(tmp_path / "submitted" / student / "homework1.ipynb")
    assert {s.refused for s in collect([tmp_path / "submitted"], "01_weather").submissions} \
        == {"not submitted"}
    found = collect([tmp_path / "submitted"], "homework1")
    assert sorted(_rows(found)) == ["alice", "bob"]
    assert not any(s.refused for s in found.submissions)


def test_flat_folder_of_student_notebooks(tmp_path):
    for student in ("alice", "bob", "M\u00fcller"):
        _write(tmp_path / "flat" / f"{student}.ipynb")
    _write(tmp_path / "flat" / "bob_report.pdf", "%PDF")
    found = collect([tmp_path / "flat"], "01_weather")
    assert sorted(_rows(found)) == ["M\u00fcller", "alice", "bob"]
    assert any("bob_report.pdf" in w and "no row" in w for w in found.warnings)


def test_two_candidate_notebooks_are_flagged_not_merged(tmp_path):
    _write(tmp_path / "s" / "alice" / "01_weather.ipynb")
    _write(tmp_path / "s" / "alice" / "01_weather-Copy1.ipynb")  # the exact name wins
    _write(tmp_path / "s" / "bob" / "v1" / "01_Weather.ipynb")
    _write(tmp_path / "s" / "bob" / "v2" / "01_weather.ipynb")   # two exact: flagged
    found = collect([tmp_path / "s"], "01_weather")
    rows = _rows(found)
    assert rows["alice"].path.name == "01_weather.ipynb" and not rows["alice"].refused
    assert any("01_weather-Copy1.ipynb" in w and "not graded" in w for w in found.warnings)
    assert rows["bob"].refused == "several notebooks"
    assert "v1/01_Weather.ipynb" in rows["bob"].reason and "v2/01_weather.ipynb" in rows["bob"].reason


def test_the_same_student_twice_keeps_both_rows_and_flags_the_second(tmp_path):
    _write(tmp_path / "a" / "alice" / "01_weather.ipynb")
    _write(tmp_path / "b" / "alice.ipynb")
    found = collect([tmp_path / "a", tmp_path / "b"], "01_weather")
    assert [s.id for s in found.submissions] == ["alice", "alice~2"]
    assert found.submissions[1].refused == "several notebooks"


@pytest.mark.parametrize("how", ["files", "glob"])
def test_explicit_files_are_named_by_the_student_folder(tmp_path, how):
    for student in ("alice", "bob", "carol"):
        _write(tmp_path / "submitted" / student / "01_weather.ipynb")
    if how == "glob":
        paths = sorted((tmp_path / "submitted").glob("*/01_weather.ipynb"))
    else:
        paths = [tmp_path / "submitted" / s / "01_weather.ipynb" for s in ("carol", "alice")]
    found = collect(paths, "01_weather")
    assert sorted(_rows(found)) == (["alice", "bob", "carol"] if how == "glob" else ["alice", "carol"])


def test_explicit_nbgrader_files_skip_the_shared_assignment_folder(tmp_path):
    paths = [_write(tmp_path / "submitted" / s / "ps1" / "01_weather.ipynb") for s in ("al", "bo")]
    assert sorted(_rows(collect(paths, "01_weather"))) == ["al", "bo"]


def test_a_single_students_folder_is_named_by_the_folder(tmp_path):
    _write(tmp_path / "alice" / "01_weather.ipynb")
    assert list(_rows(collect([tmp_path / "alice"], "01_weather"))) == ["alice"]


@pytest.mark.parametrize("name", ["upper.IPYNB", "x.ipynb.txt", "trailing.ipynb ",
                                  "Weird.IpYnB  "])
def test_careless_names_get_a_row(tmp_path, name):
    _write(tmp_path / "flat" / name)
    _write(tmp_path / "flat" / "plain.ipynb")
    found = collect([tmp_path / "flat"], "01_weather")
    assert len(found.submissions) == 2
    assert found.warnings == []
    assert notebook_stem(name) in _rows(found)


def test_names_matching_the_exercise():
    assert matches_notebook("01_weather", "01_weather")
    assert matches_notebook("01_Weather (1)", "01_weather")
    assert matches_notebook("01_weather-Copy1", "01_weather")
    assert not matches_notebook("01_weathering", "01_weather")
    assert not matches_notebook("02_smoothing", "01_weather")


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_canvas_zip_rows_named_by_student_with_their_canvas_ids(tmp_path):
    """Canvas's "Download Submissions": lastfirst_userid_submissionid_filename, _LATE_ when
    late, and Canvas's own -1 suffix on a resubmitted file name."""
    archive = _zip(tmp_path / "submissions.zip", {
        "smithbob_340934_208490284_01_weather.ipynb": NB.encode(),
        "wellslane_LATE_334244_394803489_01_weather-1.ipynb": NB.encode(),
        "doejane_12_99_my homework.ipynb": NB.encode(),
        "smithbob_340934_208490284_screenshot.png": b"\x89PNG",
    })
    found = collect([archive], "01_weather", tmp_path / "scratch")
    rows = _rows(found)
    assert sorted(rows) == ["doejane", "smithbob", "wellslane"]
    assert (rows["wellslane"].lms, rows["wellslane"].lms_id, rows["wellslane"].late) == \
        ("canvas", "334244", True)
    assert (rows["smithbob"].lms_id, rows["smithbob"].late) == ("340934", False)
    assert rows["smithbob"].shown.startswith(str(archive) + ":")
    assert any("screenshot.png" in w for w in found.warnings)


@pytest.mark.parametrize("folders", [True, False])
def test_moodle_zip_rows_named_by_full_name(tmp_path, folders):
    """Moodle's "Download all submissions": Full Name_participantid_assignsubmission_file_
    as a folder per student, or as a prefix of every file."""
    sep = "/" if folders else ""
    archive = _zip(tmp_path / "moodle.zip", {
        f"Ana María López_1001_assignsubmission_file_{sep}homework.ipynb": NB.encode(),
        f"Bo Chen_1002_assignsubmission_file_{sep}01_weather.ipynb": NB.encode(),
    })
    found = collect([archive], "01_weather", tmp_path / "scratch")
    rows = _rows(found)
    assert sorted(rows) == ["Ana María López", "Bo Chen"]
    assert not any(s.refused for s in found.submissions)
    assert (rows["Bo Chen"].lms, rows["Bo Chen"].lms_id) == ("moodle", "1002")


def test_lms_names_parse_as_documented():
    assert lms_name("smithbob_340934_208490284_BobsWork")[:4] == ("smithbob", "canvas", "340934", False)
    assert lms_name("smithbob_LATE_340934_208490284_BobsWork")[3] is True
    assert lms_name("Jo Ann_55_assignsubmission_file_x")[:3] == ("Jo Ann", "moodle", "55")
    assert lms_name("alice")[:2] == ("alice", "")
    assert lms_name("01_weather")[:2] == ("01_weather", "")


def test_zip_extraction_is_safe(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../escape.ipynb", NB)
        archive.writestr("/abs.ipynb", NB)
        archive.writestr("a/../../up.ipynb", NB)
        link = zipfile.ZipInfo("link.ipynb")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
        archive.writestr("ok_1_2_fine.ipynb", NB)
    (tmp_path / "in.zip").write_bytes(buffer.getvalue())
    target = tmp_path / "out" / "x"
    warnings = unpack_zip(tmp_path / "in.zip", target)
    made = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    assert made == ["in.zip", "out", "out/x", "out/x/ok_1_2_fine.ipynb"]
    assert "4 entries not unpacked" in warnings[0]


def test_zip_bomb_member_is_capped_without_trusting_its_header(tmp_path):
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("big_1_2_x.ipynb", b"\0" * (MAX_ZIP_MEMBER_BYTES + 10))
    warnings = unpack_zip(tmp_path / "bomb.zip", tmp_path / "out")
    assert not (tmp_path / "out" / "big_1_2_x.ipynb").exists()
    assert "larger than" in warnings[0]


def test_saved_outputs_do_not_count_towards_the_size_limit(tmp_path):
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "x = 1",
            "outputs": [{"output_type": "display_data", "metadata": {},
                         "data": {"image/png": "A" * 3_000_000}}]}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = _write(tmp_path / "big.ipynb", json.dumps(notebook))
    assert without_outputs(path, 5_000_000, tmp_path) == path  # under the limit: itself
    stripped = without_outputs(path, 1_000_000, tmp_path)
    assert stripped != path and stripped.stat().st_size < 1000
    assert json.loads(stripped.read_text())["cells"][0]["source"] == "x = 1"
    not_json = _write(tmp_path / "junk.ipynb", "x" * 2_000_000)
    assert without_outputs(not_json, 1_000_000, tmp_path) == not_json


def test_control_characters_are_escaped_for_the_terminal():
    fake = "x\n[8/8] alice graded 8 / 8\x1b[2K\u202e"
    shown = terminal_safe(fake)
    assert "\n" not in shown and "\x1b" not in shown and "\u202e" not in shown
    assert shown == "x\\x0a[8/8] alice graded 8 / 8\\x1b[2K\\u202e"


def test_undecodable_and_long_names_get_rows(tmp_path):
    folder = tmp_path / "flat"
    folder.mkdir()
    open(os.path.join(os.fsencode(folder), b"Ren\xe9.ipynb"), "w").write(NB)
    _write(folder / ("n" * 240 + ".ipynb"))
    found = collect([folder], "01_weather")
    assert sorted(_rows(found)) == ["Ren\\xe9", "n" * 240]


# ----------------------------------------------------------------- issue 33, item 4
SOLUTION = json.dumps({"cells": [{"cell_type": "code", "source": "answer = 42",
                                  "metadata": {}, "outputs": [], "execution_count": None}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _class_with_a_linked_folder(tmp_path):
    """alice hands in a notebook; bob's folder is a link to the instructor's solutions."""
    _write(tmp_path / "source" / "01_weather.ipynb", SOLUTION)
    _write(tmp_path / "submitted" / "alice" / "01_weather.ipynb")
    (tmp_path / "submitted" / "bob").symlink_to(tmp_path / "source", target_is_directory=True)
    return tmp_path / "submitted"


@pytest.mark.parametrize("how", ["folder", "glob"])
def test_a_student_folder_linked_to_the_solutions_is_refused(tmp_path, how):
    submitted = _class_with_a_linked_folder(tmp_path)
    paths = [submitted] if how == "folder" else sorted(submitted.glob("*/01_weather.ipynb"))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    rows = _rows(collect(paths, "01_weather", scratch))
    assert sorted(rows) == ["alice", "bob"]
    assert rows["bob"].refused == "link outside submissions"
    assert "symbolic link" in rows["bob"].reason and "outside the submissions folder" in rows["bob"].reason
    assert not rows["alice"].refused
    copied = [p.read_text() for p in (scratch / "collected").iterdir()]
    assert copied == [NB]  # alice's notebook only: nothing of the solutions was read


@pytest.mark.parametrize("how", ["folder", "glob"])
def test_a_folder_swapped_for_a_link_after_collection_is_graded_as_collected(tmp_path, how):
    submitted = tmp_path / "submitted"
    _write(tmp_path / "source" / "01_weather.ipynb", SOLUTION)
    _write(submitted / "bob" / "01_weather.ipynb")
    paths = [submitted] if how == "folder" else [submitted / "bob" / "01_weather.ipynb"]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (bob,) = collect(paths, "01_weather", scratch).submissions
    (submitted / "bob").rename(submitted / "bob.old")
    (submitted / "bob").symlink_to(tmp_path / "source", target_is_directory=True)
    assert not bob.refused and bob.path.parent == scratch / "collected"
    assert bob.origin == submitted / "bob" / "01_weather.ipynb"
    assert bob.path.read_text() == NB  # the grader reads its copy, never the path again


@pytest.mark.parametrize("how", ["folder", "glob", "flat", "nbgrader", "flat-glob"])
def test_a_link_to_a_classmates_notebook_is_not_graded_as_ones_own(tmp_path, how):
    """Mallory, who can write in her own folder, hands in a link to alice's notebook: it
    leads inside the class folder, but not inside her own part of it."""
    submitted = tmp_path / "submitted"
    deeper = ("ps1",) if how == "nbgrader" else ()
    if how.startswith("flat"):
        alice = _write(submitted / "alice.ipynb", SOLUTION)
        mine = submitted / "mallory.ipynb"
    else:
        alice = _write(submitted.joinpath("alice", *deeper, "01_weather.ipynb"), SOLUTION)
        mine = submitted.joinpath("mallory", *deeper, "01_weather.ipynb")
        mine.parent.mkdir(parents=True)
    mine.symlink_to(os.path.relpath(alice, mine.parent))
    _write(submitted.joinpath("carol", *deeper, "01_weather.ipynb")) if how[:4] != "flat" \
        else _write(submitted / "carol.ipynb")
    paths = [submitted] if how in ("folder", "flat", "nbgrader") else \
        sorted(submitted.glob("*/01_weather.ipynb")) if how == "glob" else \
        sorted(submitted.glob("*.ipynb"))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    rows = _rows(collect(paths, "01_weather", scratch))
    assert sorted(rows) == ["alice", "carol", "mallory"]
    assert rows["mallory"].refused == "link outside submissions"
    assert "another student's file" in rows["mallory"].reason
    assert not rows["alice"].refused and rows["alice"].path.read_text() == SOLUTION
    assert not rows["carol"].refused
    assert sorted(p.read_text() for p in (scratch / "collected").iterdir()) == \
        sorted([SOLUTION, NB])  # alice's and carol's: nothing read for mallory


def test_a_notebook_named_alone_may_be_a_link(tmp_path):
    """``nbcourse grade 01_weather latest.ipynb``, a link to the instructor's own copy."""
    draft = _write(tmp_path / "work" / "x.ipynb", SOLUTION)
    (tmp_path / "latest.ipynb").symlink_to(draft)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (row,) = collect([tmp_path / "latest.ipynb"], "01_weather", scratch).submissions
    assert not row.refused and row.path.read_text() == SOLUTION


def test_a_hard_link_to_a_classmates_notebook_is_named_in_a_warning(tmp_path):
    """A hard link cannot be told from the file itself (both rows are graded), but two
    rows read from one file are named, so the instructor can look."""
    submitted = tmp_path / "submitted"
    alice = _write(submitted / "alice" / "01_weather.ipynb", SOLUTION)
    (submitted / "mallory").mkdir()
    os.link(alice, submitted / "mallory" / "01_weather.ipynb")
    _write(submitted / "carol" / "01_weather.ipynb")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    found = collect([submitted], "01_weather", scratch)
    assert sorted(_rows(found)) == ["alice", "carol", "mallory"]
    assert [w for w in found.warnings if "same file" in w] == [
        "alice and mallory handed in the very same file (a hard link): each row is graded, "
        "but one of them may be another's work"]


def test_a_link_within_ones_own_folder_is_still_graded(tmp_path):
    submitted = tmp_path / "submitted"
    draft = _write(submitted / "bob" / "drafts" / "final.ipynb", SOLUTION)
    (submitted / "bob" / "01_weather.ipynb").symlink_to(os.path.relpath(
        draft, submitted / "bob"))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (bob,) = collect([submitted], "01_weather", scratch).submissions
    assert not bob.refused and bob.path.read_text() == SOLUTION


def test_a_link_appearing_while_a_notebook_is_copied_is_not_followed(tmp_path):
    """The folder checked is not the folder read: every component is opened without
    following links, so the swap between the check and the copy is refused."""
    from nbcourse.grading.collection import _classify, _copy_in
    _write(tmp_path / "source" / "01_weather.ipynb", SOLUTION)
    _write(tmp_path / "submitted" / "bob" / "01_weather.ipynb")
    root = tmp_path / "submitted"
    target, refused, _ = _classify(root / "bob" / "01_weather.ipynb", root)
    assert not refused
    (root / "bob").rename(root / "bob.old")
    (root / "bob").symlink_to(tmp_path / "source", target_is_directory=True)
    refused, reason = _copy_in(root.resolve(), target, tmp_path / "copy.ipynb")
    assert refused == "link outside submissions" and "symbolic link" in reason
    assert not (tmp_path / "copy.ipynb").exists()


def test_a_pipe_named_like_a_notebook_is_not_read(tmp_path):
    (tmp_path / "flat").mkdir()
    os.mkfifo(tmp_path / "flat" / "eve.ipynb")
    _write(tmp_path / "flat" / "alice.ipynb")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    rows = _rows(collect([tmp_path / "flat"], "01_weather", scratch))
    assert rows["eve"].refused == "not a notebook" and "regular file" in rows["eve"].reason
    assert not rows["alice"].refused


def _swap(path: Path, kind: str, elsewhere: Path) -> None:
    """Put a link to ``elsewhere`` or a pipe where ``path`` was, as a student's process
    could between the grader's check and its read."""
    path.unlink()
    if kind == "link":
        path.symlink_to(elsewhere)
    else:
        os.mkfifo(path)


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_notebook_swapped_for_a_link_or_a_pipe_is_refused_wherever_it_is_read(
        tmp_path, kind, monkeypatch):
    """Issue 36: one opener, ``notebook_file.open_untrusted``, for every read of a
    submission: collecting it, stripping its outputs, sending it to a Dask worker and
    running it.  None follows the link (to a file the student may not read) or waits on
    the pipe."""
    from nbcourse.grading import cluster, saved_outputs
    from nbcourse.grading.collection import _copy_in
    from nbcourse.grading.execution.notebook_file import (NotRegularFile, open_untrusted,
                                                          read_cells)
    secret = _write(tmp_path / "solutions" / "01_weather.ipynb", NB + " " * 2000)
    root = tmp_path / "submitted"
    notebook = _write(root / "bob" / "01_weather.ipynb")
    _swap(notebook, kind, secret)
    with pytest.raises(NotRegularFile if kind == "fifo" else OSError):
        open_untrusted(notebook)
    refused, reason = _copy_in(root.resolve(), root.resolve() / "bob" / "01_weather.ipynb",
                               tmp_path / "copy")
    assert refused and not (tmp_path / "copy").exists(), reason
    verdict, reason, _ = read_cells(notebook, 2**20)
    assert verdict == "not a notebook", reason
    assert cluster._read_for_worker(notebook, 2**20) == b""
    # the strip child reads what the grader opened: swapped after the size was looked at
    big = _write(root / "carol" / "01_weather.ipynb", NB + " " * 2000)
    real_lstat = os.lstat

    def lstat_then_swap(path):
        found = real_lstat(path)
        if Path(path) == big and not big.is_symlink() and stat.S_ISREG(found.st_mode):
            _swap(big, kind, secret)
        return found

    monkeypatch.setattr(saved_outputs.os, "lstat", lstat_then_swap)
    assert saved_outputs.without_outputs(big, 1000, tmp_path) == big


def test_the_runner_reads_the_submission_once(tmp_path, monkeypatch):
    """The kernel gets the cells that were checked and scanned (their sources only): the
    runner opened the file again, following links, after the scan (here, where the file
    is swapped)."""
    from nbcourse.grading import specs
    from nbcourse.grading.execution import runner
    from nbcourse.grading.execution.limits import GradingLimits
    from nbcourse.grading.execution.notebook_file import for_the_kernel

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "submissions" / "correct.ipynb"
    text = fixture.read_text(encoding="utf-8")
    notebook = _write(tmp_path / "01_weather.ipynb", text)
    secret = _write(tmp_path / "solutions.ipynb", "the instructor's own file")
    handed = []

    def scan(cells, plan):
        _swap(notebook, "link", secret)
        return {}

    class Session:  # records what the kernel would be handed, starts nothing
        def __init__(self, limits, server, notebook_text):
            handed.append(notebook_text)

        async def start(self):
            raise RuntimeError("no kernel in this test")

        async def close(self):
            pass

    class Server:
        out_of_memory = False

    monkeypatch.setattr(runner, "KernelSession", Session)
    report = runner.run_submission(notebook, specs.load("01_weather").probe_plan(),
                                   GradingLimits.from_options(), Server, scan_source=scan)
    cells = [(cell["cell_type"], "".join(cell["source"])) for cell in json.loads(text)["cells"]]
    assert report.kernel == "failed to start" and handed == [for_the_kernel(cells)]


def test_an_image_pasted_into_markdown_does_not_reach_the_kernels_channel():
    """Red team 4: a right notebook with a 9 MB image as a data URI in a Markdown cell (under
    the 20 MB a submission may be) overflowed the kernel's 8 MB channel: "grader error, the
    kernel did not start: No space left on device", and no marks."""
    from nbcourse.grading.execution.limits import MB, GradingLimits
    from nbcourse.grading.execution.notebook_file import for_the_kernel

    image = '<img src="data:image/png;base64,' + "A" * (9 * MB) + '">'
    handed = for_the_kernel([("markdown", image), ("code", "x = 1"), ("raw", image)])
    assert len(handed.encode()) < GradingLimits.from_options().channel_mb * MB // 100
    cells = json.loads(handed)["cells"]
    assert [(c["cell_type"], c["source"]) for c in cells] == [
        ("markdown", ""), ("code", "x = 1"), ("raw", "")]


def test_code_too_large_for_the_kernels_channel_is_a_verdict_not_a_grader_error(tmp_path):
    """Review 5: a notebook of 8-20 MB of code was read as a notebook and handed to the
    kernel through its 8 MB channel: "grader error, the kernel did not start" in the
    sandbox, graded without one.  Now a verdict that names the size, in every mode."""
    from nbcourse.grading import specs
    from nbcourse.grading.batch import grade_batch
    from nbcourse.grading.execution.limits import MB, GradingLimits
    from nbcourse.grading.execution.notebook_file import (for_the_kernel, read_cells,
                                                              read_notebook)

    limits = GradingLimits.from_options()
    assert limits.kernel_bytes < limits.channel_mb * MB < limits.notebook_bytes
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "submissions" / "correct.ipynb"
    notebook = json.loads(fixture.read_text(encoding="utf-8"))
    notebook["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [],
                              "execution_count": None,
                              "source": "data = '" + "x" * (limits.kernel_bytes + 1) + "'"})
    path = _write(tmp_path / "submitted" / "big_code.ipynb", json.dumps(notebook))
    verdict, reason, cells, handed = read_notebook(path, limits)
    assert (verdict, cells, handed) == ("not a notebook", [], "")
    # the size as handed to the kernel (JSON, with its escapes), in bytes: never "4.0 MB,
    # more than the 4 MB" (review 6)
    handed_size = len(for_the_kernel(read_cells(path, limits.notebook_bytes)[2]).encode())
    assert f"code cells come to {handed_size:,} bytes" in reason
    assert f"more than the {limits.kernel_bytes:,} (4 MB)" in reason
    assert read_notebook(fixture, limits)[0] == "ok"  # an honest notebook is handed on
    for mode in ("off", "bwrap"):
        result = grade_batch("01_weather", [tmp_path / "submitted"], tmp_path / mode, jobs=1,
                             sandbox=mode, progress=None,
                             source_dir=specs.default_source_dir()).results[0]
        assert result.status == "not a notebook" and "bytes as the grader hands them" in \
            " ".join(result.reasons)


def test_the_flags_that_refuse_links_and_pipes_are_written_once():
    """``O_NOFOLLOW | O_NONBLOCK`` was built in four places (and the runner read the
    submission a second time without them): it is ``open_untrusted``'s alone."""
    grading = Path(__file__).resolve().parents[2] / "nbcourse" / "grading"
    where = sorted(path.relative_to(grading).as_posix() for path in grading.rglob("*.py")
                   if "O_NONBLOCK" in path.read_text(encoding="utf-8"))
    assert where == ["execution/notebook_file.py"]


# ----------------------------------------------------------------- issue 33, item 7
@pytest.mark.parametrize("name", ["bob_340934_208490284_01_weather.ipynb",
                                  "Bo Chen_1002_assignsubmission_file_01_weather.ipynb"])
def test_a_file_named_like_an_lms_download_in_a_plain_folder_carries_no_lms_id(tmp_path, name):
    """Canvas's ID and Moodle's participant decide whose grade an import changes."""
    _write(tmp_path / "flat" / name)
    _write(tmp_path / "flat" / "alice.ipynb")
    _write(tmp_path / "submitted" / "Bo Chen_1002_assignsubmission_file_" / "01_weather.ipynb")
    found = collect([tmp_path / "flat", tmp_path / "submitted",
                     tmp_path / "submitted" / "Bo Chen_1002_assignsubmission_file_"
                     / "01_weather.ipynb"], "01_weather")
    assert len(found.submissions) == 4
    assert all(s.lms == "" and s.lms_id == "" for s in found.submissions)
    assert notebook_stem(name) in _rows(found)  # named by the whole file name


def test_an_lms_zip_still_gives_its_ids(tmp_path):
    archive = _zip(tmp_path / "s.zip", {"bob_340934_208490284_01_weather.ipynb": NB.encode()})
    (bob,) = collect([archive], "01_weather", tmp_path / "scratch").submissions
    assert (bob.id, bob.lms, bob.lms_id) == ("bob", "canvas", "340934")


def test_a_generated_name_is_never_a_students_name(tmp_path):
    for folder in ("a", "b"):
        _write(tmp_path / folder / "carol.ipynb")
    _write(tmp_path / "a" / "carol~2.ipynb")
    _write(tmp_path / "a" / "carol~3.ipynb")
    found = collect([tmp_path / "a", tmp_path / "b"], "01_weather")
    ids = [s.id for s in found.submissions]
    assert len(ids) == len(set(ids)) == 4
    assert sorted(ids) == ["carol", "carol~2", "carol~3", "carol~4"]
    assert _rows(found)["carol~4"].refused == "several notebooks"
    assert not _rows(found)["carol~2"].refused


# ----------------------------------------------------------------- issue 33, item 8
def _chain(folder: Path, depth: int) -> Path:
    """``depth`` nested folders below ``folder``; returns the deepest."""
    folder.mkdir(parents=True)
    for level in range(1, depth + 1):  # os.makedirs would hit Python's recursion limit
        os.mkdir(folder.joinpath(*["d"] * level))
    return folder.joinpath(*["d"] * depth)


def _remove_chain(folder: Path, depth: int) -> None:
    """Without recursion, as pytest's clean-up would."""
    for level in range(depth, 0, -1):
        here = folder.joinpath(*["d"] * level)
        for name in os.listdir(here):
            os.unlink(here / name)
        os.rmdir(here)


def test_a_chain_of_folders_in_a_student_folder_is_that_students_row(tmp_path):
    submitted = tmp_path / "submitted"
    _write(submitted / "bob" / "01_weather.ipynb")
    _write(_chain(submitted / "alice", 1200) / "01_weather.ipynb")
    try:
        rows = _rows(collect([submitted], "01_weather"))
    finally:
        _remove_chain(submitted / "alice", 1200)
    assert sorted(rows) == ["alice", "bob"] and not rows["bob"].refused
    assert rows["alice"].refused == "not submitted"
    assert "nested more than" in rows["alice"].reason


def test_a_student_folder_with_too_many_files_is_searched_up_to_a_limit(tmp_path, monkeypatch):
    from nbcourse.grading import collection
    monkeypatch.setattr(collection, "MAX_FOLDER_ENTRIES", 20)
    for n in range(30):
        _write(tmp_path / "submitted" / "alice" / f"a{n:02}" / "notes.txt", "x")
    _write(tmp_path / "submitted" / "bob" / "01_weather.ipynb")
    rows = _rows(collect([tmp_path / "submitted"], "01_weather"))
    assert rows["alice"].refused == "not submitted" and "more than 20" in rows["alice"].reason
    assert not rows["bob"].refused


def test_a_deep_or_long_named_member_of_a_moodle_zip_costs_only_its_own_row(tmp_path):
    """A 1,200-folder chain in one student's folder, and a 300-byte folder name: the zip
    is unpacked, every student has a row, and the long name is graded (shortened)."""
    long_name = "A" * 272 + "_1003_assignsubmission_file_"
    archive = _zip(tmp_path / "moodle.zip", {
        "Ana López_1001_assignsubmission_file_/01_weather.ipynb": NB.encode(),
        "Eve Deep_1002_assignsubmission_file_/" + "d/" * 1200 + "01_weather.ipynb": NB.encode(),
        f"{long_name}/01_weather.ipynb": NB.encode(),
        "Bo Chen_1004_assignsubmission_file_/01_weather.ipynb": NB.encode(),
    })
    scratch = tmp_path / "scratch"
    found = collect([archive], "01_weather", scratch)
    rows = {s.lms_id: s for s in found.submissions}
    assert sorted(rows) == ["1001", "1002", "1003", "1004"]
    assert rows["1002"].refused == "not submitted" and "folders deep" in rows["1002"].reason
    assert not rows["1003"].refused and rows["1003"].id.startswith("AAAA")
    assert not rows["1001"].refused and not rows["1004"].refused
    assert any("shortened" in w for w in found.warnings)


def test_a_colab_copy_is_the_exercises_notebook(tmp_path):
    """Colab and Google Drive name a copy "Copy of 01_weather.ipynb" (issue 37)."""
    assert matches_notebook("Copy of 01_weather", "01_weather")
    assert matches_notebook("Copy of Copy of 01_Weather (1)", "01_weather")
    assert not matches_notebook("Copy of 02_smoothing", "01_weather")
    _write(tmp_path / "submitted" / "farah" / "Copy of 01_weather.ipynb")
    _write(tmp_path / "submitted" / "gus" / "01_weather.ipynb")
    rows = _rows(collect([tmp_path / "submitted"], "01_weather"))
    assert sorted(rows) == ["farah", "gus"] and not rows["farah"].refused


def test_the_one_notebook_of_an_nbgrader_assignment_folder_is_that_assignments(tmp_path):
    submitted = tmp_path / "submitted"
    _write(submitted / "farah" / "01_weather" / "Copy of 01_weather.ipynb")
    _write(submitted / "hana" / "01_weather" / "my homework.ipynb")
    _write(submitted / "ivan" / "01_weather" / "a.ipynb")
    _write(submitted / "ivan" / "01_weather" / "b.ipynb")  # two: which one is for a person
    _write(submitted / "jo" / "02_smoothing" / "anything.ipynb")  # another assignment
    rows = _rows(collect([submitted], "01_weather"))
    assert sorted(rows) == ["farah", "hana", "ivan", "jo"]
    assert not rows["farah"].refused and not rows["hana"].refused
    assert rows["hana"].origin.name == "my homework.ipynb"
    assert rows["ivan"].refused == "not submitted" and rows["jo"].refused == "not submitted"


def test_one_student_in_nbgrader_layout_is_named_by_the_student(tmp_path):
    """The regrade of one student: their file, or their folder, given alone."""
    notebook = _write(tmp_path / "submitted" / "farah" / "01_weather" / "Copy of 01_weather.ipynb")
    _write(tmp_path / "submitted" / "farah" / "02_smoothing" / "02_smoothing.ipynb")
    assert list(_rows(collect([notebook], "01_weather"))) == ["farah"]
    rows = _rows(collect([tmp_path / "submitted" / "farah"], "01_weather"))
    assert list(rows) == ["farah"] and rows["farah"].origin == notebook


def test_nbgraders_timestamp_is_read_and_never_followed_as_a_link(tmp_path):
    submitted = tmp_path / "submitted"
    _write(submitted / "al" / "ps1" / "01_weather.ipynb")
    _write(submitted / "al" / "ps1" / "timestamp.txt", "2026-11-21 10:00:00.5 UTC\n")
    _write(submitted / "bo" / "01_weather.ipynb")
    _write(submitted / "bo" / "timestamp.txt", "not a time")
    _write(submitted / "cy" / "01_weather.ipynb")
    (submitted / "cy" / "timestamp.txt").symlink_to(submitted / "al" / "ps1" / "timestamp.txt")
    rows = _rows(collect([submitted], "01_weather"))
    assert rows["al"].submitted_at == "2026-11-21T10:00:00.500000+00:00"
    assert rows["bo"].submitted_at == rows["cy"].submitted_at == ""


def test_a_timestamp_cannot_stop_the_batch_nor_hide_nbgraders_own(tmp_path):
    """Red team: a timestamp.txt of 9999-12-31T23:59:59-23:59 stopped the whole batch
    (OverflowError); an earlier timestamp.txt beside a notebook in a subfolder hid
    nbgrader's late one in the assignment folder."""
    submitted = tmp_path / "submitted"
    _write(submitted / "eve" / "01_weather.ipynb")
    _write(submitted / "eve" / "timestamp.txt", "9999-12-31T23:59:59-23:59")
    _write(submitted / "dave" / "ps1" / "timestamp.txt", "2026-11-22 10:00:00.000000 UTC")
    _write(submitted / "dave" / "ps1" / "sub" / "01_weather.ipynb")
    _write(submitted / "dave" / "ps1" / "sub" / "timestamp.txt", "2026-11-19 10:00:00 UTC")
    rows = _rows(collect([submitted], "01_weather"))
    assert rows["eve"].submitted_at == ""
    assert rows["dave"].submitted_at == "2026-11-22T10:00:00+00:00"


def test_late_policies():
    from datetime import datetime, timezone

    from nbcourse.grading.late import LatePolicy, days_late, parse_time, penalty
    due = parse_time("2026-11-20T23:59")
    assert due == datetime(2026, 11, 20, 23, 59, tzinfo=timezone.utc)
    assert days_late("2026-11-20T23:58:00+00:00", False, due) == 0
    assert days_late("2026-11-21T00:00:00+00:00", False, due) == 1
    assert days_late("2026-11-23T00:00:00+00:00", False, due) == 3
    assert days_late("", True, due) == 1 and days_late("", False, None) == 0
    per_day = LatePolicy.parse("per-day:10")
    assert penalty(9, 10, 2, per_day) == 2.0 and penalty(1, 10, 3, per_day) == 1.0
    assert penalty(9, 10, 2, LatePolicy.parse("zero")) == 9.0
    assert penalty(9, 10, 2, LatePolicy.parse("none")) == 0.0
    for bad in ("per-day:0", "per-day:150", "half", "per-week:5"):
        with pytest.raises(ValueError, match="--late"):
            LatePolicy.parse(bad)
    with pytest.raises(ValueError, match="not a date"):
        parse_time("next friday")
