"""Spot an answer that calls the estimator it was asked to write by hand.

The scan reads the submission's source with ``ast`` (nothing is executed).  It starts
at the graded function (or at the statements that assign a graded value) and follows
what that code uses: other functions defined in the notebook, and notebook-level
variables such as ``model = CategoricalNB().fit(...)``.  A forbidden name counts when
it is reached as an attribute (``nbcourse.CategoricalNB``) or as a name the notebook
imported (``from nbcourse import CategoricalNB as C``, or re-bound as ``NB = C``), so a
student's own variable that happens to be called ``accuracy`` is not mistaken for the
library's function.

An entry with a module (``nbcourse.scale.combine_moments``: the spec's ``"nbcourse.scale.*"``,
expanded by ``library_names`` into every module and name that reaches the same object)
counts only when the name really comes from the library: imported from an nbcourse
module, an attribute of a name bound to one (``import nbcourse.scale as s``,
``s.combine_moments``, ``nbcourse._numerics.sigmoid``), or a literal ``getattr`` on it.
A bare attribute is not enough (``np.log`` is not ``nbcourse._numerics.log``).

A forbidden name that is also the name of a function the notebook defines (the answer
``laplace`` when the library's ``laplace`` is forbidden) counts only when reached as an
attribute (``smoothing.laplace``): a bare ``laplace`` is then the student's own.

The grader runs it in the grading worker process, next to the kernel and inside the
worker's own memory limit, never in the instructor's process: ``worker_main`` hands
``flagged_answers`` to ``execution/worker.py``, which knows nothing of this policy, and
the runner stores what it returns as the run's ``RunReport.forbidden``.  A student's
``check()`` runs ``find`` too (``selfcheck``).

Where a question forbids helpers, an answer (or what it uses) that looks a name up at run
time in one of the ways this module lists is flagged as ``DYNAMIC``, with a fixed reason
(``DYNAMIC_WHY``): the grader cannot tell which function it calls.  The ways are a list
(``_DYNAMIC_NAMES``, ``_DYNAMIC_ATTRIBUTES``, ``_DYNAMIC_MODULES``: ``getattr`` with a
computed name or handed on as a value, ``importlib``, ``__import__``, ``eval``, ``exec``,
``sys.modules``, ``globals()``, ``vars()``, ``__dict__``, a function's globals, frames,
``pickle`` and the like, each also under another name), not a proof: Python has more, and
the sandbox, not this scan, is what stops a submission.  ``getattr(model, "to_linear")`` with a plain string is read as the attribute,
and so is ``getattr(X, stat)`` where ``stat`` is bound only by a loop over literal strings
(``for stat in ("mean", "var")``) or ``stat = "mean"``, in the scope that looks it up or a
function around it (``name_scopes``): it reads each of those attributes.
"""
from __future__ import annotations

import ast
import copy
from typing import Iterable

from .execution.cells import parse_cell
from .name_scopes import evaluated_outside, literal_scopes

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _trees(sources: Iterable) -> list[ast.Module]:
    """The cells as syntax trees: a source is parsed (``parse_cell``), a tree passes as it
    is, so that ``flagged_answers`` parses a submission's cells once for all its questions."""
    return [tree for tree in (s if isinstance(s, ast.Module) else parse_cell(s) for s in sources)
            if tree is not None]


def _walk_scope(node: ast.AST):
    """Like ast.walk, but without entering nested functions, classes and lambdas."""
    todo = list(ast.iter_child_nodes(node))
    while todo:
        child = todo.pop()
        yield child
        if not isinstance(child, _SCOPES):
            todo.extend(ast.iter_child_nodes(child))


def _held(nodes: list, walk: bool = True) -> list[ast.Name]:
    """The names ``nodes`` (each walked whole, or as they are) read other than to call
    them or to hand them to ``check``: each may be kept, then called later."""
    every = [n for node in nodes for n in (ast.walk(node) if walk else [node])]
    spared = set()
    for node in every:
        if isinstance(node, ast.Call):
            spared.add(id(node.func))
            if isinstance(node.func, ast.Name) and node.func.id == "check":
                spared.update(id(argument) for argument in node.args)
    return [node for node in every if isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load) and id(node) not in spared]


def _stored_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


#: What an answer that looks a function up by a computed name is flagged as.
DYNAMIC = "a function looked up by a computed name"

#: Why such an answer is flagged, in every message that names the flag.
DYNAMIC_WHY = ("the grader cannot tell which function this calls: call your own code by its "
               "name")

#: Built-in names and attributes that reach a function without writing its name.
_DYNAMIC_NAMES = {"__import__", "eval", "exec", "globals", "vars", "locals", "import_module",
                  "attrgetter", "methodcaller", "__builtins__", "getmembers", "run_module",
                  "run_path"}
_DYNAMIC_ATTRIBUTES = _DYNAMIC_NAMES | {
    "__dict__", "__getattribute__", "__getattr__", "getattr_static", "exec_module",
    "load_module", "__globals__", "__closure__", "cell_contents", "__subclasses__",
    "_getframe", "currentframe", "f_locals", "f_globals", "f_back", "get_objects",
    "get_referrers", "get_referents", "locate", "get_type_hints", "get_field"}
#: Modules that rebuild or find an object from data, not from a name in the code
#: (``pickle.loads(b"cnbcourse\nGaussianNB\n.")``): an answer that uses one is flagged.
_DYNAMIC_MODULES = {"pickle", "_pickle", "cPickle", "marshal", "copyreg", "dill", "cloudpickle",
                    "joblib", "shelve", "importlib", "pkgutil", "runpy", "inspect", "gc",
                    "ctypes", "pydoc"}


def _dynamic(child: ast.AST, literal: dict[str, set[str]] | None = None) -> str | set | None:
    """The attribute a node reads if it is ``getattr(x, "literal")`` (the set of them for
    a variable in ``literal``, see ``name_scopes.literal_scopes``); ``DYNAMIC`` if it looks a name up
    at run time; else None."""
    called = getattr(child.func, "id", getattr(child.func, "attr", None)) \
        if isinstance(child, ast.Call) else None
    if called == "getattr":  # getattr(...), builtins.getattr(...)
        if len(child.args) < 2 or any(isinstance(a, ast.Starred) for a in child.args[:2]):
            return DYNAMIC  # getattr(*pair): the name is not in the code
        name = child.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            return name.value
        if isinstance(name, ast.Name) and name.id in (literal or {}):
            return set(literal[name.id])
        return DYNAMIC
    if isinstance(child, ast.Attribute):
        if child.attr in _DYNAMIC_ATTRIBUTES:
            return DYNAMIC
        if child.attr == "modules" and isinstance(child.value, ast.Name) \
                and child.value.id == "sys":
            return DYNAMIC
    return None


class _Notebook:
    """Functions, notebook-level assignments and imports of a whole submission."""

    def __init__(self, sources: Iterable, forbidden: set[str]):
        self.forbidden = forbidden
        # the notebook-level definitions of each name that may be the one called
        # (``_note_definitions``); a function defined inside another is read with it
        self.functions: dict[str, list[ast.AST]] = {}
        self.assignments: dict[str, list[ast.AST]] = {}
        self.imported: dict[str, str] = {}  # local name -> forbidden name
        self.star = False
        # local name -> the library path it stands for (``_s`` -> ``nbcourse.scale``)
        self.paths: dict[str, str] = {"nbcourse": "nbcourse"}
        self.star_modules: list[str] = []  # ``from nbcourse.x import *``
        self._held: set[str] = set()  # names the notebook took hold of (``_note_definitions``)
        # what last bound each name on the notebook's level for sure: "def" (the student's
        # own function or class) or "import"; a definition under an ``if`` is not sure
        self._last_binding: dict[str, str] = {}
        for tree in _trees(sources):
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    self._note_import(node)
                elif isinstance(node, ast.ImportFrom):
                    self._note_import(node)
                    for alias in node.names:
                        if alias.name in _DYNAMIC_NAMES:
                            self.imported[alias.asname or alias.name] = DYNAMIC
                        elif alias.name == "*":
                            self.star |= (node.module or "").startswith("nbcourse")
                        elif alias.name in forbidden:
                            self.imported[alias.asname or alias.name] = alias.name
            self._note_definitions(tree)
            self._note_dynamic_aliases(tree)
            for node in _walk_scope(tree):  # notebook-level assignments only
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        for name in _stored_names(target):
                            self.assignments.setdefault(name, []).append(node.value)
        self._resolve_aliases()

    def _note_definitions(self, tree: ast.Module) -> None:
        """Record a cell's notebook-level functions and classes, in order: one defined on
        the cell's own level replaces the name's earlier definitions (a function rewritten
        in a later cell is the one called), unless the notebook took hold of an earlier one
        meanwhile (``keep = helper``, a default ``h=helper``: any use but a call, or an
        argument of ``check``), which can still be called.  One under an ``if``, ``try``
        or loop is added to them (which runs is not in the code, so each is read)."""
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        top = {id(node) for node in tree.body}
        events = []  # ((line, column, 0 for a use / 1 for a definition), node)
        for node in _walk_scope(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                events.append(((node.lineno, node.col_offset, 1), node))
            if isinstance(node, ast.Lambda):  # its defaults are read where it is written
                events += [((n.lineno, n.col_offset, 0), n)
                           for n in _held(evaluated_outside(node))]
            if isinstance(node, kinds):
                # a class body runs where it is defined: all of it may hold a reference
                here = [node] if isinstance(node, ast.ClassDef) else evaluated_outside(node)
                events += [((node.lineno, node.col_offset, 0), name) for name in _held(here)]
                events.append(((node.lineno, node.col_offset, 1), node))
        events += [((name.lineno, name.col_offset, 0), name)
                   for name in _held(list(_walk_scope(tree)), walk=False)]
        for _, node in sorted(events, key=lambda event: event[0]):
            if isinstance(node, ast.Name):
                self._held.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self._last_binding.update({(a.asname or a.name).split(".")[0]: "import"
                                           for a in node.names})
            elif id(node) in top and node.name not in self._held:
                self.functions[node.name] = [node]
                self._last_binding[node.name] = "def"
            else:
                self.functions.setdefault(node.name, []).append(node)
                if id(node) in top:
                    self._last_binding[node.name] = "def"

    def _own(self) -> set[str]:
        """The names that are the notebook's own functions or classes: defined, and not
        (or not surely) bound by an import from the library after that (``path``)."""
        return {name for name in self.functions
                if name not in self.paths or self._last_binding.get(name) == "def"}

    def _note_dynamic_aliases(self, tree: ast.Module) -> None:
        """A name bound, anywhere in a cell, to a builtin that looks names up (``e =
        eval``, ``eval = eval``, a default ``h=getattr``) looks names up too."""
        def dynamic(value) -> bool:
            return getattr(value, "id", getattr(value, "attr", None)) in \
                _DYNAMIC_NAMES | {"getattr"}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and dynamic(node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                self.imported.update({name: DYNAMIC for target in targets
                                      for name in _stored_names(target)})
            elif isinstance(node, ast.arguments):
                positional = [*node.posonlyargs, *node.args]
                pairs = [*zip(positional[len(positional) - len(node.defaults):], node.defaults),
                         *zip(node.kwonlyargs, node.kw_defaults)]
                self.imported.update({arg.arg: DYNAMIC for arg, default in pairs
                                      if default is not None and dynamic(default)})

    def _note_import(self, node: ast.Import | ast.ImportFrom) -> None:
        """Record the library path each name an import binds stands for: ``import
        nbcourse.scale as _s``, ``from nbcourse import _numerics``, ``from nbcourse.linear
        import sigmoid``; relative imports and other packages are not the library's."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in _DYNAMIC_MODULES:
                    self.imported[alias.asname or alias.name.split(".")[0]] = DYNAMIC
                if alias.name.split(".")[0] == "nbcourse":
                    local = alias.asname or alias.name.split(".")[0]
                    self.paths[local] = alias.name if alias.asname else local
            return
        module = node.module or ""
        if not node.level and module.split(".")[0] in _DYNAMIC_MODULES:
            self.imported.update({alias.asname or alias.name: DYNAMIC for alias in node.names})
        if node.level or module.split(".")[0] != "nbcourse":
            return
        for alias in node.names:
            if alias.name == "*":
                self.star_modules.append(module)
            else:
                self.paths[alias.asname or alias.name] = f"{module}.{alias.name}"

    def path(self, node: ast.AST) -> str | None:
        """The library path a name or an attribute chain stands for (``_s.combine_moments``
        -> ``nbcourse.scale.combine_moments``), or None: only a name bound to the library
        starts one, so ``np.log`` never stands for ``nbcourse._numerics.log``."""
        if isinstance(node, ast.Name):
            # imported from the library, a name counts as the library's unless a function
            # of the notebook surely replaced it (``if False: def GaussianNB()`` does not)
            return None if node.id in self._own() else self.paths.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.path(node.value)
            return None if base is None else f"{base}.{node.attr}"
        return None

    def _library_uses(self, child: ast.AST, read) -> set[str]:
        """The qualified forbidden entries (``nbcourse.x.name``) one node reaches: a name or
        attribute chain, a literal ``getattr`` on a library module, or a bare name after
        ``from nbcourse.x import *``."""
        paths = set()
        if isinstance(child, (ast.Name, ast.Attribute)) and \
                not isinstance(child.ctx, ast.Store):
            paths.add(self.path(child))
            if isinstance(child, ast.Name) and child.id not in self.paths \
                    and child.id not in self.functions:
                paths.update(f"{module}.{child.id}" for module in self.star_modules)
        if isinstance(read, (str, set)) and read != DYNAMIC:
            base = self.path(child.args[0]) if isinstance(child, ast.Call) else None
            if base is not None:
                paths.update(f"{base}.{name}" for name in ({read} if isinstance(read, str)
                                                            else read))
        return paths & self.forbidden

    def _resolve_aliases(self) -> None:
        """``NB = CategoricalNB`` makes NB an alias too, and ``m = nbcourse._numerics``
        binds m to that module (until nothing changes)."""
        changed = True
        while changed:
            changed = False
            for target, values in self.assignments.items():
                if target not in self.paths and target not in self.functions:
                    for value in values:
                        found = self.path(value)
                        if found is not None:
                            self.paths[target] = found
                            changed = True
                            break
                if target in self.imported:
                    continue
                for value in values:
                    if isinstance(value, (ast.Name, ast.Attribute)):
                        found = self.hits(value)[0]
                        if found:
                            self.imported[target] = sorted(found)[0]
                            changed = True
                            break

    def hits(self, node: ast.AST) -> tuple[set[str], set[str], set[str]]:
        """(forbidden names used, names loaded, names stored) within ``node``."""
        loaded, stored, attributes = set(), set(), set()
        dynamic = set()
        literal = literal_scopes(node)
        library = set()
        called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
        for child in ast.walk(node):
            read = _dynamic(child, literal.get(id(child), {}))
            if isinstance(child, (ast.Name, ast.Attribute)) and id(child) not in called \
                    and getattr(child, "id", getattr(child, "attr", None)) == "getattr":
                read = DYNAMIC  # handed on (``reduce(getattr, ...)``): its names are data
            library |= self._library_uses(child, read)
            if isinstance(read, set):
                attributes |= read
            elif read is not None:
                (dynamic if read == DYNAMIC else attributes).add(read)
            if isinstance(child, ast.Name):
                (stored if isinstance(child.ctx, ast.Store) else loaded).add(child.id)
            elif isinstance(child, ast.Attribute):
                attributes.add(child.attr)
            elif isinstance(child, ast.arg):
                stored.add(child.arg)
        # a name the notebook defines as its own function is the student's, not the
        # library's (the answer ``laplace`` when ``laplace`` is forbidden)
        own = self._own()
        found = {self.imported[n] for n in loaded if n in self.imported and
                 (n not in own or self.imported[n] == DYNAMIC)}
        found |= (attributes & self.forbidden) | library
        own_dynamic = (loaded & _DYNAMIC_NAMES) - own - stored - set(self.assignments)
        if dynamic or own_dynamic:
            found.add(DYNAMIC)
        if self.star:
            found |= (loaded & self.forbidden) - own
        return found, loaded, stored


def find(sources: Iterable, name: str, forbidden: Iterable[str]) -> list[str]:
    """Forbidden names that the answer ``name`` uses, directly or through what it uses
    (``sources``: the cells' code, or their trees)."""
    notebook = _Notebook(list(sources), set(forbidden))
    found: set[str] = set()
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        nodes = [*notebook.assignments.get(current, []), *notebook.functions.get(current, [])]
        for node in nodes:
            direct, loaded, stored = notebook.hits(node)
            found |= direct
            for used in loaded - stored:
                if used in notebook.functions or used in notebook.assignments:
                    todo.append(used)
    return fewest_names(found)


def fewest_names(found: Iterable[str]) -> list[str]:
    """The names found, sorted, without a library path whose plain name is among them
    (``m_estimate`` and ``nbcourse.smoothing.m_estimate`` are one use, said once)."""
    plain = {name for name in found if "." not in name}
    return sorted(name for name in set(found)
                  if "." not in name or name.rpartition(".")[2] not in plain)


#: What a value typed in is flagged as, in the place of a forbidden name.
TYPED_IN = "a number typed in"

#: Calls that turn a typed number into another kind of number, not a computation.
_NUMBER_TYPES = {"Fraction", "float", "int", "Decimal", "float64", "float32", "int64", "round"}


def _constant(node: ast.AST) -> bool:
    """Whether an expression is a number typed in: number literals, arithmetic on them,
    and calls such as ``Fraction(486, 611)``, ``np.float64(1.0)`` or ``Decimal("0.795")``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand)
    if isinstance(node, ast.BinOp):
        return _constant(node.left) and _constant(node.right)
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else \
            func.attr if isinstance(func, ast.Attribute) else None
        return name in _NUMBER_TYPES and not node.keywords and bool(node.args) and all(
            _constant(arg) or (isinstance(arg, ast.Constant) and isinstance(arg.value, str))
            for arg in node.args)
    return False


def typed_in(sources: Iterable, name: str) -> bool:
    """Whether the last notebook-level assignment of ``name`` (the one whose value is
    graded) is a number typed in, where the exercise asks to compute it.

    Flagged: a value that is all numbers (``p_no = Fraction(486, 611)``, ``agreement =
    1.0``), or an expression that hides one (``_hides_a_number``): a branch of ``... if
    ... else ...`` that is a number other than 0 or ±1, a term multiplied by 0, a number
    of four significant digits or more, or a fixed item of a list of numbers
    (``alphas[3]``).  Names the notebook sets to a number once count as that number."""
    trees = _trees(sources)
    last, numbers, lists = None, {}, set()
    for tree in trees:
        nodes = [n for n in _walk_scope(tree)
                 if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and n.value]
        for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(name in _stored_names(target) for target in targets):
                last = node
            _note_constants(node, targets, numbers, lists)
    if last is None or isinstance(last, ast.AugAssign):
        return False
    targets = last.targets if isinstance(last, ast.Assign) else [last.target]
    values = [_Substitute(numbers).visit(copy.deepcopy(value)) for target in targets
              for value in _values_for(target, last.value, name)]
    return any(_constant(value) or _hides_a_number(value, lists) for value in values)


def _note_constants(node, targets, numbers: dict, lists: set) -> None:
    """Record ``x = 0.795`` (a name set to a number) and ``alphas = [0.1, 0.3]`` (a name
    set to a list of numbers); a name set twice to something else is dropped."""
    for target in targets:
        if not isinstance(target, ast.Name):
            continue
        if not isinstance(node, ast.AugAssign) and _constant(node.value):
            numbers[target.id] = node.value
        else:
            numbers.pop(target.id, None)
        if isinstance(node.value, (ast.List, ast.Tuple)) and node.value.elts \
                and all(_constant(item) for item in node.value.elts):
            lists.add(target.id)
        else:
            lists.discard(target.id)


class _Substitute(ast.NodeTransformer):
    """Put a name's number in place of the name (``v = 0.795; p_no = v if s else 0``)."""

    def __init__(self, numbers: dict):
        self.numbers = numbers

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.numbers:
            return copy.deepcopy(self.numbers[node.id])
        return node


def _number(node: ast.AST):
    """The value of a constant expression (``_constant``) as a float, or None."""
    try:
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = _number(node.operand)
            return None if value is None else (-value if isinstance(node.op, ast.USub) else value)
        if isinstance(node, ast.BinOp):
            left, right = _number(node.left), _number(node.right)
            operators = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                         ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}
            apply = operators.get(type(node.op))
            return None if None in (left, right) or apply is None else apply(left, right)
        if isinstance(node, ast.Call) and node.args:
            parts = [_number(arg) if not isinstance(arg, ast.Constant) else float(arg.value)
                     for arg in node.args]
            if None in parts:
                return None
            name = node.func.id if isinstance(node.func, ast.Name) else \
                getattr(node.func, "attr", "")
            if name == "Fraction" and len(parts) == 2:
                return parts[0] / parts[1]
            return round(parts[0], int(parts[1])) if name == "round" and len(parts) == 2 \
                else parts[0]
    except (ArithmeticError, ValueError, TypeError, OverflowError):
        return None
    return None


def _long(node: ast.AST) -> bool:
    """A number of four significant digits or more (``0.7954...``, ``Fraction(486,
    611)``): one nobody writes in a computation, only copies from a result."""
    value = _number(node)
    if value is None or value != value or value in (float("inf"), float("-inf")):
        return False
    digits = f"{abs(value):.12e}".split("e")[0].replace(".", "").rstrip("0")
    return len(digits) >= 4


def _trivial(node: ast.AST) -> bool:
    return _number(node) in (0.0, 1.0, -1.0)


def _hides_a_number(expression: ast.AST, lists: set) -> bool:
    """Whether a computed-looking expression carries a typed number (see ``typed_in``).
    A long number given to a function (``spam_experiment(..., seed=12345)``) is an input
    of the computation, not its result, and an index (``w[1234]``) is a position."""
    todo = [(expression, False)]
    while todo:
        node, an_input = todo.pop()
        if _constant(node):
            if _long(node) and not an_input:
                return True
            continue  # its parts are numbers too
        if isinstance(node, ast.IfExp):
            branches = [node.body, node.orelse]
            parts = [item for branch in branches for item in
                     (branch.elts if isinstance(branch, (ast.Tuple, ast.List)) else [branch])]
            if any(_constant(part) and not _trivial(part) for part in parts):
                return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and any(
                _constant(side) and _number(side) == 0.0 for side in (node.left, node.right)):
            return True  # a term multiplied by zero: what is added to it is the answer
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Name) and node.value.id in lists \
                    and _constant(node.slice):
                return True
            todo.append((node.value, an_input))
            continue
        if isinstance(node, ast.Call):
            todo.append((node.func, an_input))
            todo.extend((arg, True) for arg in node.args + [k.value for k in node.keywords])
            continue
        todo.extend((child, an_input) for child in ast.iter_child_nodes(node))
    return False


def _values_for(target: ast.AST, value: ast.AST, name: str) -> list[ast.AST]:
    """The expressions ``name`` takes its value from in ``target = value``, pairing the
    items of a tuple assignment (``best_alpha, test_accuracy = 0.3, 0.98``)."""
    if isinstance(target, ast.Name):
        return [value] if target.id == name else []
    if isinstance(target, (ast.Tuple, ast.List)) and not isinstance(value, (ast.Tuple, ast.List)):
        # ``a, b = f() if c else (0.3, 0.98)``: the whole expression, read for hidden numbers
        return [value] if name in _stored_names(target) and not _constant(value) else []
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts) \
            and not any(isinstance(e, ast.Starred) for e in target.elts + value.elts):
        return [found for item, part in zip(target.elts, value.elts)
                for found in _values_for(item, part, name)]
    return []


def flagged_answers(sources: Iterable[str], plan: dict) -> dict[str, list[str]]:
    """{question id: the forbidden names its answer uses} for a probe plan
    (``specs.Exercise.probe_plan``), only the questions whose answer uses one; a value the
    exercise asks to compute (``"computed"``) and that is typed in is flagged ``TYPED_IN``."""
    sources = _trees(sources)  # parsed once, read for every question
    flagged = {}
    for question in plan["questions"]:
        found = []
        if question.get("forbidden"):
            found = find(sources, question["name"], question["forbidden"])
        if question.get("computed") and typed_in(sources, question["name"]):
            found.append(TYPED_IN)
        if found:
            flagged[question["question"]] = found
    return flagged
