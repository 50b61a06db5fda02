"""Where a graded name is bound other than by the ``def`` or assignment the scan reads.

The forbidden-helper scan (``forbidden``) reads the code a graded name is defined with.  A
student can leave the exercise's stub ``def`` in place and bind the name again where no
definition is read: a function that declares it ``global``, code handed to ``exec`` as a
literal string, a store into ``globals()``.  ``bound_elsewhere`` lists such names, so the
scan flags that answer as one it cannot read (red team 5).  Code built at run time and then
run (``exec("".join(parts))``) is not read: the scan reads source, not what runs.
"""
from __future__ import annotations

import ast
import builtins

from .execution.cells import parse_cell


#: Calls that run code given as a string: ``exec("f = g")``, IPython's ``run_cell``.
_CODE_CALLS = {"exec", "eval", "compile", "run_cell", "ex"}
#: Methods that store a key into a namespace (``globals().update(f=g)``).
_KEYED_STORES = {"update", "setdefault", "__setitem__", "push"}


def bound_elsewhere(node: ast.AST, strings: dict[str, str]) -> list[str]:
    """The notebook names one node binds other than by a ``def`` or an assignment the scan
    reads: those a function declares ``global``, those bound by code it
    hands to ``exec`` and the like as a literal string (or a name the notebook sets to one,
    ``strings``), and keys it stores into ``globals()``, ``vars()``, ``locals()``, a
    ``__dict__`` or ``sys.modules`` (``globals()["f"] = g``, ``globals().update(f=g)``,
    ``setattr(module, "f", g)``).  Code built at run time (``exec("".join(parts))``) is
    not read: the scan reads source, not what runs."""
    if isinstance(node, ast.Global):  # (``nonlocal`` never reaches the notebook's level)
        return list(node.names)
    if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load) \
            and _namespace(node.value):
        return [node.slice.value] if isinstance(node.slice, ast.Constant) else []
    if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load) \
            and _namespace(node.value):  # ``__main__.f = g``, ``sys.modules[__name__].f``
        return [node.attr]
    if not isinstance(node, ast.Call):
        return []
    func, found = node.func, []
    name = getattr(func, "id", getattr(func, "attr", None))
    if name in _CODE_CALLS and node.args and not (name == "compile" and
                                                  isinstance(func, ast.Attribute)):
        code = node.args[0]
        text = code.value if isinstance(code, ast.Constant) else \
            strings.get(getattr(code, "id", None))
        if isinstance(text, str):
            tree = parse_cell(text)
            found += [bound for part in (ast.walk(tree) if tree else ())
                      for bound in _binding_names(part) + bound_elsewhere(part, strings)]
    if isinstance(func, ast.Attribute) and func.attr in _KEYED_STORES and _namespace(func.value):
        found += [k.arg for k in node.keywords if k.arg]
        found += [key.value for arg in node.args if isinstance(arg, ast.Dict)
                  for key in arg.keys if isinstance(key, ast.Constant)]
        found += [arg.value for arg in node.args[:1] if isinstance(arg, ast.Constant)]
    if name == "setattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
            and _namespace(node.args[0]):
        found.append(node.args[1].value)
    return [name for name in found if isinstance(name, str)]


def _namespace(node: ast.AST) -> bool:
    """``globals()``, ``vars()``, ``locals()``, ``x.__dict__``, ``sys.modules[...]``,
    ``__main__``, IPython's ``get_ipython()`` and its ``user_ns``: the notebook's names."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Call):
        return getattr(node.func, "id", None) in ("globals", "vars", "locals", "get_ipython")
    if isinstance(node, ast.Name):
        return node.id == "__main__"
    return isinstance(node, ast.Attribute) and node.attr in (
        "__dict__", "modules", "f_globals", "f_locals", "__globals__", "user_ns", "user_global_ns")


def _binding_names(node: ast.AST) -> list[str]:
    """The names one node binds (an assignment's or a loop's target, an import, a
    definition, ``except ... as``, a pattern), wherever it is."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return [node.id]
    if isinstance(node, ast.alias):
        return [(node.asname or node.name).split(".")[0]]
    name = getattr(node, "name", None) if isinstance(node, (
        ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler,
        ast.MatchAs, ast.MatchStar)) else None
    rest = getattr(node, "rest", None) if isinstance(node, ast.MatchMapping) else None
    return [n for n in (name, rest) if n]


#: Names a notebook's code reads without binding them: Python's builtins and IPython's.
ALWAYS_BOUND = set(dir(builtins)) | {"display", "get_ipython", "In", "Out", "_", "__", "___",
                                      "exit", "quit", "check"}


def bound_after_star(trees: list, unread_star) -> set[str]:
    """The names bound by a ``def``, a class or an import (not a star one) at a cell's top
    level after the last star import for which ``unread_star(node)`` holds."""
    events = []  # (cell, line, names bound, whether it is such a star import)
    for index, tree in enumerate(trees):
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                events.append((index, node.lineno, set(), unread_star(node)))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                events.append((index, node.lineno, {(a.asname or a.name).split(".")[0]
                                                    for a in node.names}, False))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                events.append((index, node.lineno, {node.name}, False))
    stars = [i for i, event in enumerate(events) if event[3]]
    return set().union(*(names for _, _, names, _ in events[stars[-1] + 1:])) if stars else set()


def imported_in_class(node: ast.ClassDef) -> set[str]:
    """The names and paths the imports in a class body bind (``from nbcourse.evaluation
    import accuracy as acc``: ``accuracy`` and ``nbcourse.evaluation.accuracy``), which
    become the class's attributes (``Tools.acc``), where no path of the scan reaches them
    (red team 6)."""
    found = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Import):
            found |= {alias.name for alias in child.names}
        elif isinstance(child, ast.ImportFrom) and not child.level:
            found |= {f"{child.module}.{alias.name}" for alias in child.names}
            found |= {alias.name for alias in child.names}
    return found


def up_to_the_value(trees: list[ast.Module], name: str) -> list[ast.Module]:
    """The cells up to the last top-level statement that names ``name`` in any way (a
    variable, attribute, import, definition, ``global``, keyword, or inside a string:
    ``exec``, ``globals()``), that one included.  A value is made by the time that
    statement has run: what comes after cannot make it (red team 7: a later
    ``result = stratified_split(...)`` does not make ``best_alpha, test_accuracy = result``
    use it)."""
    def names(node) -> bool:
        return any(getattr(child, field, None) == name for child in ast.walk(node)
                   for field in ("id", "attr", "name", "asname", "arg")) or any(
            isinstance(child, (ast.Global, ast.Nonlocal)) and name in child.names
            or isinstance(child, ast.Constant) and isinstance(child.value, str)
            and name in child.value for child in ast.walk(node))
    for index in range(len(trees) - 1, -1, -1):
        body = trees[index].body
        last = max((i for i, statement in enumerate(body) if names(statement)), default=None)
        if last is not None:
            return [*trees[:index], ast.Module(body=body[:last + 1], type_ignores=[])]
    return []
