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

from .execution.cells import parse_cell


#: Calls that run code given as a string: ``exec("f = g")``, IPython's ``run_cell``.
_CODE_CALLS = {"exec", "eval", "compile", "run_cell"}
#: Methods that store a key into a namespace (``globals().update(f=g)``).
_KEYED_STORES = {"update", "setdefault", "__setitem__"}


def bound_elsewhere(node: ast.AST, strings: dict[str, str]) -> list[str]:
    """The notebook names one node binds other than by a ``def`` or an assignment the scan
    reads: those a function declares ``global`` (or ``nonlocal``), those bound by code it
    hands to ``exec`` and the like as a literal string (or a name the notebook sets to one,
    ``strings``), and keys it stores into ``globals()``, ``vars()``, ``locals()``, a
    ``__dict__`` or ``sys.modules`` (``globals()["f"] = g``, ``globals().update(f=g)``,
    ``setattr(module, "f", g)``).  Code built at run time (``exec("".join(parts))``) is
    not read: the scan reads source, not what runs."""
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load) \
            and _namespace(node.value):
        return [node.slice.value] if isinstance(node.slice, ast.Constant) else []
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
    if name == "setattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
        found.append(node.args[1].value)
    return [name for name in found if isinstance(name, str)]


def _namespace(node: ast.AST) -> bool:
    """``globals()``, ``vars()``, ``locals()``, ``x.__dict__``, ``sys.modules[...]`` ..."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Call):
        return getattr(node.func, "id", None) in ("globals", "vars", "locals")
    return isinstance(node, ast.Attribute) and node.attr in ("__dict__", "modules", "f_globals",
                                                             "f_locals", "__globals__")


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
