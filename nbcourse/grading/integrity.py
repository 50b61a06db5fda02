"""Hints for a person: submissions whose graded code is near-identical, and submissions
that are the published solution.  Never a mark, never a penalty: the class report lists
them for the instructor to read the notebooks and judge.

The method is MOSS's (Schleimer, Wilkerson and Aiken, "Winnowing", 2003), applied to the
syntax tree instead of the text:

1. *What is compared.*  In each notebook, the code of the graded answers: every top-level
   statement that defines a graded name (``def likelihood``, ``p_no = ...``) and, followed
   from there, every top-level definition that code uses (a helper function, the
   ``lesson_scores`` that ``p_no`` is computed from).  Statements are taken one by one, so
   the order of the cells and how code is split between them do not matter.
2. *Normalised tokens.*  Each statement's syntax tree, read in order, as the kinds of its
   nodes; a name the student chose (a variable, a parameter, a helper) becomes ``V`` and a
   literal becomes its type, so renaming, layout, comments and other numbers or strings
   change nothing.  Names the student did not choose (built-ins, imported names, the
   graded names, attributes such as ``.sum``) are kept.  A cell that does not parse is
   read as words instead (still compared, less precisely).
3. *Fingerprints.*  A hash of every run of ``K`` tokens; of every ``W`` consecutive hashes
   the smallest is kept.  Any stretch of ``K + W - 1`` tokens two answers share is found.
4. *Less the template.*  Fingerprints of the released student notebook (the stubs and
   given code everyone starts from) are removed from every submission.
5. *Similarity* of two submissions: the fingerprints they share over all the fingerprints
   of either (Jaccard).  A pair at or above ``THRESHOLD`` is listed, and so is a
   submission that reaches it against the instructor's solution (the source notebook,
   hidden tests removed).

Reading submissions is bounded and runs nothing: the grader's own notebook reader (size
cap, no links), at most ``MAX_CELL_CHARS`` of a cell and ``MAX_CODE_CHARS`` of a notebook,
``ast.parse`` with its errors caught (syntax, recursion, memory) and an iterative walk that
stops after ``MAX_TOKENS`` tokens, so no notebook can make it recurse or run long.
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .execution.cells import parse_cell

#: Tokens per hashed run, and hashes per winnowing window (MOSS's k and w).
K = 6
W = 4
#: Listed when the similarity (shared fingerprints / all fingerprints of the two) is at
#: least this.  Tuned on six independently written correct answers to exercise 01 (the
#: most similar two share 0.11 of their fingerprints, and none shares more than 0.18 with
#: the solution) and on renamed, reformatted, reordered copies (1.0).
THRESHOLD = 0.5
#: A submission with fewer fingerprints of its own (beyond the template) is not compared:
#: too little code to tell a copy from a coincidence.
MIN_FINGERPRINTS = 12

# Not in GradingLimits: they bound the grader's reading of code for hints, not a submission's run.
MAX_CELL_CHARS = 20_000
MAX_CODE_CHARS = 200_000
MAX_TOKENS = 50_000

_BUILTINS = frozenset(dir(builtins))
_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor,
             ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try, ast.Lambda)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d[\d.eE_]*|\S")
_KEYWORDS = frozenset(__import__("keyword").kwlist)
_END = object()  # closes a compound statement in the token stream


@dataclass
class Pair:
    first: str
    second: str
    similarity: float
    same_answers: list[str] = field(default_factory=list)  # question ids, normalised equal


@dataclass
class Report:
    """What the class report shows: ``pairs`` and ``solution`` (submission, similarity),
    most similar first; how many were compared; which could not be, and why."""
    threshold: float = THRESHOLD
    pairs: list[Pair] = field(default_factory=list)
    solution: list[tuple[str, float]] = field(default_factory=list)
    compared: int = 0
    not_compared: dict[str, str] = field(default_factory=dict)  # submission -> why
    error: str = ""  # the whole check failed (the grading did not)


@dataclass
class _Statement:
    tokens: list[str]
    binds: set[str]
    uses: set[str]
    words: bool = False  # a cell that did not parse, read as words


# --------------------------------------------------------------------- tokens
def _walk(node: ast.AST, keep: frozenset[str], budget: list[int]) -> list[str]:
    """The node kinds of ``node`` in order, names normalised (see the module's text).
    Iterative, and it stops when ``budget[0]`` tokens have been spent."""
    tokens: list[str] = []
    stack: list[object] = [node]
    while stack and budget[0] > 0:
        item = stack.pop()
        if item is _END:
            tokens.append("end")
            continue
        if isinstance(item, ast.expr_context):
            continue
        budget[0] -= 1
        if isinstance(item, ast.Name):
            tokens.append(item.id if item.id in keep else "V")
            continue
        if isinstance(item, ast.arg):
            tokens.append("arg")
            continue
        if isinstance(item, ast.Constant):
            tokens.append("C:" + type(item.value).__name__)
            continue
        kind = type(item).__name__
        if isinstance(item, ast.Attribute):
            kind += "." + item.attr
        elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kind += ":" + (item.name if item.name in keep else "V")
        elif isinstance(item, ast.keyword):
            kind += ":" + str(item.arg)
        elif isinstance(item, ast.alias):
            kind += ":" + item.name
        tokens.append(kind)
        if isinstance(item, _COMPOUND):
            stack.append(_END)
        stack.extend(reversed(list(ast.iter_child_nodes(item))))
    return tokens


def _names(node: ast.AST, budget: list[int]) -> tuple[set[str], set[str]]:
    """(names a top-level statement binds, names it reads), iteratively."""
    binds: set[str] = set()
    uses: set[str] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        binds.add(node.name)
    stack: list[tuple[ast.AST, bool]] = [(node, True)]
    while stack and budget[0] > 0:
        item, top = stack.pop()
        budget[0] -= 1
        if isinstance(item, ast.Name):
            if isinstance(item.ctx, ast.Load):
                uses.add(item.id)
            elif top:
                binds.add(item.id)
        elif isinstance(item, (ast.Import, ast.ImportFrom)) and top:
            binds.update((a.asname or a.name).split(".")[0] for a in item.names)
        inner = top and not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef,
                                              ast.ClassDef, ast.Lambda))
        stack.extend((child, inner) for child in ast.iter_child_nodes(item))
    return binds, uses


def _words(source: str, keep: frozenset[str], budget: list[int]) -> _Statement:
    """A cell that does not parse, as normalised words (at most ``budget[0]`` of them)."""
    tokens, names = [], set()
    words = _WORD.findall(source)[:max(0, budget[0])]
    budget[0] -= len(words)
    for word in words:
        if word[0].isalpha() or word[0] == "_":
            names.add(word)
            tokens.append(word if word in keep or word in _KEYWORDS else "V")
        elif word[0].isdigit():
            tokens.append("C:number")
        else:
            tokens.append(word)
    return _Statement(tokens, set(), names, words=True)


def statements(cells: list[str], graded: frozenset[str]) -> list[_Statement]:
    """Every top-level statement of the code ``cells``, as normalised tokens with the
    names it binds and uses (at most ``MAX_CODE_CHARS`` of code, ``MAX_TOKENS`` tokens)."""
    trees, left = [], MAX_CODE_CHARS
    for source in cells:
        if left <= 0:
            break
        source = source[:min(MAX_CELL_CHARS, left)]
        left -= len(source)
        trees.append((source, parse_cell(source)))
    imported: set[str] = set()
    for _, tree in trees:  # names a student imports are not names a student chose
        for node in tree.body if tree is not None else ():
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imported.update((a.asname or a.name).split(".")[0] for a in node.names)
    keep = frozenset(_BUILTINS | imported | graded)
    budget = [MAX_TOKENS]
    found = []
    for source, tree in trees:
        if budget[0] <= 0:
            break
        if tree is None:
            found.append(_words(source, keep, budget))
            continue
        for node in tree.body:
            if budget[0] <= 0:
                return found
            tokens = _walk(node, keep, budget)
            binds, uses = _names(node, budget)
            found.append(_Statement(tokens, binds, uses))
    return found


def answer_code(found: list[_Statement], graded: frozenset[str]) -> list[_Statement]:
    """The statements that define a graded name, and the top-level definitions they use,
    followed transitively (in the notebook's order)."""
    chosen = [bool(s.binds & graded or s.words and s.uses & graded) for s in found]
    wanted = set(graded)
    for statement, keep in zip(found, chosen):
        if keep:
            wanted |= statement.uses
    changed = True
    while changed:
        changed = False
        for index, statement in enumerate(found):
            if not chosen[index] and statement.binds & wanted:
                chosen[index] = changed = True
                wanted |= statement.uses
    return [s for s, keep in zip(found, chosen) if keep]


# --------------------------------------------------------------- fingerprints
def _hash(tokens: list[str]) -> int:
    digest = hashlib.blake2b("\x1f".join(tokens).encode("utf-8", "backslashreplace"),
                             digest_size=8).digest()
    return int.from_bytes(digest, "big")


def fingerprints(found: list[_Statement]) -> set[int]:
    """Winnowed hashes of every statement's ``K``-token runs (MOSS's fingerprints)."""
    kept: set[int] = set()
    for statement in found:
        tokens = statement.tokens
        if not tokens:
            continue
        hashes = [_hash(tokens[i:i + K]) for i in range(max(1, len(tokens) - K + 1))]
        if len(hashes) <= W:
            kept.add(min(hashes))
            continue
        for start in range(len(hashes) - W + 1):
            kept.add(min(hashes[start:start + W]))
    return kept


def _answers(found: list[_Statement], questions: dict[str, str]) -> dict[str, tuple]:
    """{question id: the normalised tokens of the statements that define its name}."""
    return {qid: tuple(tuple(s.tokens) for s in found if name in s.binds)
            for qid, name in questions.items()}


def similarity(a: set[int], b: set[int]) -> float:
    """Shared fingerprints over all fingerprints of the two (Jaccard); 0 for two empties."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


# ------------------------------------------------------------------ notebooks
def _code_cells(data: dict) -> list[str]:
    cells = []
    for cell in data.get("cells", []):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            cells.append("".join(source) if isinstance(source, list) else str(source))
    return cells


def solution_cells(source_notebook: Path) -> list[str]:
    """The instructor's solution as published in the source notebook: the code cells
    with the solution kept, the markers and the hidden tests removed."""
    from .authoring import BEGIN_HIDDEN, END_HIDDEN, _MARKER
    cells = []
    for text in _code_cells(json.loads(Path(source_notebook).read_text(encoding="utf-8"))):
        kept, hidden = [], False
        for line in text.split("\n"):
            match = _MARKER.match(line)
            if match:  # a marker line; the hidden tests are left out
                if match.group(2) in (BEGIN_HIDDEN, END_HIDDEN):
                    hidden = match.group(2) == BEGIN_HIDDEN
                continue
            if not hidden:
                kept.append(line)
        cells.append("\n".join(kept))
    return cells


def template_cells(source_notebook: Path) -> list[str]:
    """The code cells of the student release built from the source notebook."""
    import nbformat
    from .authoring import student_notebook
    student, _ = student_notebook(nbformat.read(str(source_notebook), as_version=4))
    return [cell.source for cell in student.cells if cell.cell_type == "code"]


def submission_cells(path: Path, limits) -> tuple[list[str] | None, str]:
    """(code cells, "") of a submitted notebook, read as the grader reads it under the
    batch's ``limits`` (bounded, no links), or (None, why not).  ``path`` is the file the
    batch grades (``Submission.to_grade``: an oversized one's outputs already stripped).

    This runs in the instructor's process, one notebook at a time, and parsing JSON takes
    more memory than the file's size: a few times for an honest notebook, up to about 50
    times for the worst shape measured (millions of small lists nested 8 to 200 deep:
    about 45 times, 900 MB for a 20 MB file).
    ``limits.notebook_mb`` bounds it; a worker parses the same file again under its own
    memory limit when it grades it."""
    from .execution.notebook_file import read_cells
    from .execution.report import NotebookVerdict
    verdict, reason, cells = read_cells(path, limits.notebook_bytes)
    if verdict != NotebookVerdict.OK:
        return None, reason or "not a readable notebook"
    return [text for kind, text in cells if kind == "code"], ""


# ----------------------------------------------------------------------- check
def compare(code: dict[str, list[str]], questions: dict[str, str],
            solution: list[str] | None = None, template: list[str] | None = None, *,
            threshold: float = THRESHOLD) -> Report:
    """The report for ``code`` ({submission: its code cells}); ``questions`` is {question
    id: graded name}; ``solution`` and ``template`` are the instructor's and the
    release's code cells."""
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    if not isinstance(code, dict):
        raise TypeError(f"code must be a dict of submission -> code cells, got "
                        f"{type(code).__name__}")
    graded = frozenset(questions.values())
    base = fingerprints(statements(template or [], graded))
    report = Report(threshold=threshold)
    prints: dict[str, set[int]] = {}
    answers: dict[str, dict] = {}
    for name in sorted(code):
        found = answer_code(statements(code[name], graded), graded)
        own = fingerprints(found) - base
        if len(own) < MIN_FINGERPRINTS:
            report.not_compared[name] = "too little code of its own to compare"
            continue
        prints[name] = own
        answers[name] = _answers(found, questions)
    report.compared = len(prints)
    names = sorted(prints)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            score = similarity(prints[first], prints[second])
            if score >= threshold:
                same = [qid for qid in questions if answers[first][qid]
                        and answers[first][qid] == answers[second][qid]]
                report.pairs.append(Pair(first, second, score, same))
    if solution:
        reference = fingerprints(answer_code(statements(solution, graded), graded)) - base
        for name in names:
            score = similarity(prints[name], reference)
            if score >= threshold:
                report.solution.append((name, score))
    report.pairs.sort(key=lambda p: (-p.similarity, p.first, p.second))
    report.solution.sort(key=lambda item: (-item[1], item[0]))
    return report


def check_batch(exercise, submissions, limits) -> Report:
    """The report for a batch's collected ``submissions`` (those it will run), read
    under the batch's ``limits`` (``GradingLimits``) before any kernel starts.  Never
    raises: a failure is the report's ``error``."""
    try:
        code, skipped = {}, {}
        for submission in submissions:
            if submission.refused:
                continue
            cells, why = submission_cells(submission.to_grade, limits)
            if cells is None:
                skipped[submission.id] = why
            else:
                code[submission.id] = cells
        questions = {q.id: q.name for q in exercise.questions}
        solution = template = None
        if exercise.source is not None and Path(exercise.source).is_file():
            solution = solution_cells(Path(exercise.source))
            template = template_cells(Path(exercise.source))
        report = compare(code, questions, solution, template)
        report.not_compared.update(skipped)
        return report
    except Exception as error:  # noqa: BLE001 - a hint must never cost a grade
        return Report(error=f"{type(error).__name__}: {error}")
