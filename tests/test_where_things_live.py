"""docs/where-things-live.md tells a maintainer which file and which function is the one
home of a formula or a check. This test holds the map to the code: every file it names
exists, every function, class or attribute it names is defined (in the file the row names,
when it names one), and a few "one home" promises are checked against the source.

Read with ``ast``, never by importing the package.
"""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

from course_paths import REPO

MAP = REPO / "docs" / "where-things-live.md"
PACKAGE = REPO / "nbcourse"
#: where a relative path in the map is looked up, in order
BASES = [REPO, PACKAGE, PACKAGE / "grading", PACKAGE / "naive_bayes"]
#: names the map uses that are not nbcourse's own (Python's and scikit-learn's, prose)
OUTSIDE_NAMES = {"TypeError", "ValueError", "KFold", "StratifiedKFold", "ast", "import",
                 "weather"}
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def _defined(tree: ast.AST) -> dict[str, set[str]]:
    """{name: members}: every def, class, assigned name and attribute (``self.x_ = ...``)
    of a module; a class's members are its methods and class attributes."""
    names: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.setdefault(node.name, set())
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names[node.name].add(item.name)
                    elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                        targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                        names[node.name].update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.setdefault(node.id, set())
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.setdefault(node.attr, set())
        elif isinstance(node, ast.arg):
            names.setdefault(node.arg, set())
        elif isinstance(node, ast.ImportFrom):  # a package's __init__ names its exports
            for alias in node.names:
                names.setdefault(alias.asname or alias.name, set())
    return names


@lru_cache(maxsize=None)
def _file_names(path: Path) -> dict[str, set[str]]:
    return _defined(ast.parse(path.read_text(encoding="utf-8")))


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = _modules()


def _anywhere(name: str) -> bool:
    short = {module.rpartition(".")[2] for module in MODULES}
    return name in short or any(name in _file_names(path) for path in MODULES.values())


def _resolve(token: str) -> Path | None:
    for base in BASES:
        matches = sorted(base.glob(token.replace("NN_name", "*")))
        if matches:
            return matches[0]
    return None


def _problems_with_name(token: str, home: Path | None) -> list[str]:
    name = token.removesuffix("()").removesuffix("*").split("(")[0]
    if not IDENTIFIER.fullmatch(name) or name in OUTSIDE_NAMES:
        return []
    parts = name.split(".")
    module = next((m for m in sorted(MODULES, key=len, reverse=True)
                   if m.endswith("." + parts[0]) or m == parts[0]), None)
    if len(parts) > 1 and module is not None and parts[0] not in _file_names(MODULES[module]):
        home, parts = MODULES[module], parts[1:]  # `mle.gaussian_mle`, `scale.count_matrix`
    if home is not None and home.suffix == ".py":
        names = _file_names(home)
        where = home.relative_to(REPO).as_posix()
    else:
        names, where = None, "nbcourse/"
    if names is None:
        if not _anywhere(parts[0]):
            return [f"`{token}`: nothing named {parts[0]} in {where}"]
    elif parts[0] not in names:
        return [f"`{token}`: nothing named {parts[0]} in {where}"]
    if len(parts) == 2 and parts[1] not in (names or {}).get(parts[0], set()) \
            and not _anywhere(parts[1]):  # a method may be inherited: defined somewhere
        return [f"`{token}`: {parts[0]} has no {parts[1]} in {where}"]
    return []


def _problems_in_cell(cell: str) -> list[str]:
    """A path sets the file that the names right after it must be defined in; after any
    other words ("called from", "(every estimator, ...") a name may live anywhere."""
    problems, home, end = [], None, 0
    for match in re.finditer(r"`([^`]+)`", cell):
        token, between, end = match.group(1), cell[end:match.start()], match.end()
        if re.search(r"[A-Za-z(]", re.sub(r"\band\b", "", between)):
            home = None
        if token.startswith("python -m "):
            module = token.split()[-1]
            if module not in MODULES:
                problems.append(f"`{token}`: no module {module}")
        elif token.startswith(("--", "/")) or " " in token or '"' in token \
                or token.rpartition(".")[2] in {"json", "html", "csv", "md"}:
            continue  # an option, a folder, an output file, a command or a snippet of code
        elif "/" in token or token.endswith(".py"):
            home = _resolve(token.rstrip("/"))
            if home is None:
                problems.append(f"`{token}`: no such file or folder")
        else:
            problems += _problems_with_name(token, home)
    return problems


def _map_rows() -> list[str]:
    return [line for line in MAP.read_text(encoding="utf-8").splitlines()
            if line.startswith("|") and not set(line) <= set("|- ")]


def _map_problems() -> list[str]:
    problems = []
    for row in _map_rows():
        for cell in re.split(r"(?<!\\)\|", row)[1:-1]:
            problems += [f"{row[:60]}...: {p}" for p in _problems_in_cell(cell)]
    return problems


def test_every_file_and_name_in_the_map_exists():
    problems = _map_problems()
    assert not problems, "docs/where-things-live.md names what is not there:\n  " + \
        "\n  ".join(problems)


@pytest.mark.parametrize("cell, expected", [
    ("`nbcourse/_numerics.py` `log`", []),
    ("`nbcourse/_numerics.py` `no_such_formula`",
     ["`no_such_formula`: nothing named no_such_formula in nbcourse/_numerics.py"]),
    ("`naive_bayes/_gone.py`", ["`naive_bayes/_gone.py`: no such file or folder"]),
    ("`GaussianNB._no_such_method`",
     ["`GaussianNB._no_such_method`: GaussianNB has no _no_such_method in nbcourse/"]),
    ("`naive_bayes/_base.py` `_class_log_prior` | every estimator, `TreeAugmentedNB` too", []),
    ("`mle.no_such_function`", ["`mle.no_such_function`: nothing named no_such_function in "
                                "nbcourse/mle.py"]),
])
def test_the_map_check_sees_a_missing_file_or_name(cell, expected):
    assert _problems_in_cell(cell) == expected


def _broken_tables(text: str) -> list[str]:
    """The first row of every block of table rows that does not open with a header and
    a ``|---|`` line: Markdown shows such rows (after a blank line, say) as plain text."""
    lines, broken = text.splitlines(), []
    for i, line in enumerate(lines):
        starts_block = line.startswith("|") and (i == 0 or not lines[i - 1].startswith("|"))
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if starts_block and not (following.startswith("|") and set(following) <= set("|-: ")):
            broken.append(line[:60])
    return broken


def test_every_table_of_the_map_renders_as_one_table():
    assert not _broken_tables(MAP.read_text(encoding="utf-8"))


def test_the_table_check_sees_a_blank_line_inside_a_table():
    table = "| what | home |\n|---|---|\n| a | b |\n"
    assert _broken_tables(table) == []
    assert _broken_tables(table + "\n| c | d |\n") == ["| c | d |"]


# ----- "one home" rows that the source can be held to ------------------------------------

def _library_sources() -> dict[str, str]:
    """Every module of the library outside grading/, by path."""
    return {path.relative_to(REPO).as_posix(): path.read_text(encoding="utf-8")
            for path in PACKAGE.rglob("*.py") if "grading" not in path.parts}


def _definitions(name: str) -> list[str]:
    return [where for where, text in _library_sources().items()
            if re.search(rf"^\s*def {name}\(", text, re.M)]


@pytest.mark.parametrize("name, home", [
    ("_check_fitted", "nbcourse/_estimator.py"),
    ("check_labels", "nbcourse/_checks.py"),
    ("check_seed", "nbcourse/_checks.py"),
    ("_as_count_vector", "nbcourse/_checks.py"),
    ("log_dot", "nbcourse/_numerics.py"),
    ("times_log", "nbcourse/_numerics.py"),
    ("_class_log_prior", "nbcourse/naive_bayes/_base.py"),
    ("_class_prior", "nbcourse/naive_bayes/_base.py"),
    ("_pseudo_counted", "nbcourse/smoothing.py"),
])
def test_each_function_of_one_home_is_defined_once(name, home):
    assert _definitions(name) == [home]


def test_the_not_fitted_check_is_written_once():
    """Every estimator, transformer, pipeline and calibration map asks
    `BaseEstimator._check_fitted`; no other module raises `_checks.not_fitted` itself."""
    found = [where for where, text in _library_sources().items()
             if where not in ("nbcourse/_estimator.py", "nbcourse/_checks.py")
             and "not_fitted(" in text]
    assert not found


def test_the_library_writes_no_sigmoid_or_softplus_of_its_own():
    """1 / (1 + exp(-z)) and log(1 + exp(z)) are `_numerics.sigmoid` and `softplus`."""
    local = re.compile(r"np\.exp\(-np\.abs\(|np\.logaddexp\(0|np\.log1p\(np\.exp\(|"
                       r"1(\.0)? \+ np\.exp\(")
    found = [where for where, text in _library_sources().items()
             if where != "nbcourse/_numerics.py" and local.search(text)]
    assert not found


def test_the_library_writes_no_zero_times_log_zero_of_its_own():
    """0 * log 0 = 0 is `_numerics.times_log` and `log_dot`: no module masks -inf logs, or
    multiplies counts by a logarithm under ``np.where``, or special-cases a zero
    coefficient of a logarithm, by itself."""
    local = re.compile(r"np\.where\([^\n]*\blog\w*[^\n]*0\.0|np\.where\([^\n]*0\.0[^\n]*\blog|"
                       r"0\.0 if \w+ == 1 else")
    found = [where for where, text in _library_sources().items()
             if where != "nbcourse/_numerics.py" and local.search(text)]
    assert not found


def test_no_estimator_smooths_counts_by_hand():
    """Lidstone's (n + alpha) / (N + K alpha) is `smoothing._pseudo_counted`: no estimator
    adds alpha to its counts itself."""
    found = [where for where, text in _library_sources().items()
             if where.startswith("nbcourse/naive_bayes/")
             and re.search(r"(count\w*|_all_) \+ alpha\b(?!.*denominators)|alpha - self\.feature",
                           text)]
    assert not found


def test_labels_are_checked_by_check_labels_only():
    """One home for "a 1-D array of class labels, one per sample": `_checks.check_labels`
    (metrics, estimators, `mle.class_prior_mle`, the CMI, plots and learning curves all
    call it)."""
    found = [where for where, text in _library_sources().items()
             if where != "nbcourse/_checks.py"
             and re.search(r"one label per (sample|row)|sequence of class labels|"
                           r"missing label", text)]
    assert not found


def test_seeds_and_count_vectors_are_checked_in_checks_only():
    """A random seed is `_checks.check_seed`, one distribution's counts
    `_checks._as_count_vector`: no other module writes either check's error."""
    found = [where for where, text in _library_sources().items()
             if where != "nbcourse/_checks.py"
             and re.search(r"seed must be|one count per outcome\)|must be 1-D \(one count",
                           text)]
    assert not found


def _homes_in_cell(cell: str, words: str = r"[A-Za-z(]") -> list[tuple[str, Path]]:
    """(name, file) for every plain name that a home cell puts right after its file: no
    ``words`` in between (but "and")."""
    pairs, home, end = [], None, 0
    for match in re.finditer(r"`([^`]+)`", cell):
        token, between, end = match.group(1), cell[end:match.start()], match.end()
        if re.search(words, re.sub(r"\band\b", "", between)):
            home = None
        if "/" in token or token.endswith(".py"):
            home = _resolve(token.rstrip("/"))
        elif home is not None and home.suffix == ".py" and re.fullmatch(r"\w+", token) \
                and between.strip() != "/":  # `Class.fit`/`transform`: a method
            pairs.append((token, home))
    return pairs


def _formula_homes() -> list[tuple[str, Path]]:
    """The names of the Formulas table's home column, with their file."""
    text = MAP.read_text(encoding="utf-8")
    table = text.split("## Formulas", 1)[1].split("\n## ", 1)[0]
    pairs = []
    for row in table.splitlines():
        cells = re.split(r"(?<!\\)\|", row)[1:-1]
        if len(cells) == 3 and not set(row) <= set("|- ") and cells[1].strip() != "home":
            pairs += _homes_in_cell(cells[1])
    return pairs


def _defined_where(name: str) -> list[str]:
    pattern = re.compile(rf"^\s*(def|class) {name}\b|^{name}\s*=", re.M)
    return [where for where, text in _library_sources().items() if pattern.search(text)]


def test_every_formula_of_the_map_is_defined_in_its_home_only():
    """A row's home is the one place: the function (class, constant) it names is defined
    in that file, and in no other module of the library."""
    pairs = _formula_homes()
    assert len(pairs) >= 20
    wrong = {name: _defined_where(name) for name, home in pairs
             if _defined_where(name) != [home.relative_to(REPO).as_posix()]}
    assert not wrong, f"defined elsewhere too, or not in the home the map gives: {wrong}"


def test_the_home_reader_takes_the_names_right_after_a_file():
    cell = ("`nbcourse/_numerics.py` `times_log` (term by term), `log_dot` (inside), and "
            "`naive_bayes/_discrete.py` `_BaseDiscreteNB._check_alpha`; `nbcourse/text.py` "
            "`TfidfTransformer.fit`/`transform`, `count_documents`")
    assert [name for name, _ in _homes_in_cell(cell)] == ["times_log", "count_documents"]


# ----- the grading table: each function a row names is defined in that file only --------

#: names a grading row gives that other modules use for something else, and why; for
#: these the test asks only that the home defines them
SHARED_NAMES = {
    "main": "every program run as a module has one",
    "release": "the sandbox's ends a batch's sandboxes; release.py's is `nbcourse release`",
    "compare": "integrity's compares a class's code; values' one answer with its expected",
}


def _grading_homes() -> list[tuple[str, Path]]:
    """(name, file) of the Grading table's home column: the names in brackets or after a
    colon right after a file (``grading/forbidden.py`` (``find``; ``flagged_answers``)),
    until other words come."""
    text = MAP.read_text(encoding="utf-8")
    table = text.split("## Grading", 1)[1].split("\n## ", 1)[0]
    pairs = []
    for row in table.splitlines():
        cells = re.split(r"(?<!\\)\|", row)[1:-1]
        if len(cells) == 2 and not set(row) <= set("|- ") and "home" not in cells[1]:
            pairs += _homes_in_cell(cells[1], words=r"[A-Za-z]")
    return pairs


def _nbcourse_sources() -> dict[str, str]:
    """Every module of nbcourse, grading included, by path."""
    return {path.relative_to(REPO).as_posix(): path.read_text(encoding="utf-8")
            for path in PACKAGE.rglob("*.py")}


def test_every_function_of_the_grading_map_is_defined_in_its_home_only():
    """A grading row's home is the one place: what it names right after a file (a
    function, a class, a constant) is defined there, and by no other module of nbcourse
    (four copies of one cell parser, each with its own rule, would fail here)."""
    pairs = _grading_homes()
    assert len(pairs) >= 40
    sources = _nbcourse_sources()
    wrong = {}
    for name, home in pairs:
        pattern = re.compile(rf"^(def|class) {name}\b|^{name}\s*[:=]", re.M)
        found = sorted(where for where, text in sources.items() if pattern.search(text))
        where = home.relative_to(REPO).as_posix()
        if found != [where] and not (name in SHARED_NAMES and where in found):
            wrong[name] = found
    assert not wrong, f"defined elsewhere too, or not in the home the map gives: {wrong}"


def test_the_grading_home_reader_takes_names_in_brackets_after_a_file():
    cell = ("`grading/forbidden.py` (`find`; `flagged_answers` for a whole plan), "
            "`execution/limits.py`: `GradingLimits` (checked when made; `worker_deadline`)")
    assert [name for name, _ in _homes_in_cell(cell, words=r"[A-Za-z]")] == [
        "find", "flagged_answers", "GradingLimits"]


def test_the_limits_row_names_every_limit():
    """Issue 36: the limits row left out ``interrupt_grace``, ``worker_memory_mb`` and
    ``queued_messages``.  Every field of ``GradingLimits`` is named in it."""
    tree = ast.parse((PACKAGE / "grading" / "execution" / "limits.py").read_text("utf-8"))
    limits = next(node for node in tree.body
                  if isinstance(node, ast.ClassDef) and node.name == "GradingLimits")
    fields = [item.target.id for item in limits.body if isinstance(item, ast.AnnAssign)]
    row = next(row for row in _map_rows() if "`execution/limits.py`" in row)
    named = set(re.findall(r"`(\w+)`", row.split("|")[1]))
    assert len(fields) >= 16
    assert not set(fields) - named, f"limits the map does not name: {set(fields) - named}"
