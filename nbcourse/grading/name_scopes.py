"""Which strings a variable can hold, where a ``getattr(x, v)`` reads it.

The forbidden-helper scan (``forbidden``) reads ``getattr(X, stat)`` as the attributes
``"mean"`` and ``"var"`` when ``stat`` can hold nothing else: it is bound only by a loop
over literal strings or an assignment of one, in the scope that reads it or a function
around it.  Python's scopes decide what "around" means (a comprehension, a function, a
lambda each has its own), so a literal binding in one scope never vouches for a computed
name in another.  A class body vouches for nothing: its namespace can be any mapping (a
metaclass's ``__prepare__``), and what is inside it does not see it.  Anything this
module cannot be sure of is left out: the scan then flags the lookup.
"""
from __future__ import annotations

import ast
from typing import Iterable

from .execution.cells import magic_statements, parse_cell

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def cell_trees(sources: Iterable) -> list[ast.Module]:
    """The cells as syntax trees: a source is parsed (``parse_cell``), with the code its
    line magics run after each (``%time from x import y``), a tree passes as it is, so that
    ``forbidden.flagged_answers`` parses a submission's cells once for all its questions."""
    trees = []
    for source in sources:
        tree = source if isinstance(source, ast.Module) else parse_cell(source)
        if tree is not None and not isinstance(source, ast.Module):
            tree.body = [part for statement in tree.body
                         for part in (statement, *magic_statements(statement))]
        if tree is not None:
            trees.append(tree)
    return trees


def walk_scope(node: ast.AST):
    """Like ast.walk, but without entering nested functions, classes and lambdas."""
    todo = list(ast.iter_child_nodes(node))
    while todo:
        child = todo.pop()
        yield child
        if not isinstance(child, _SCOPES):
            todo.extend(ast.iter_child_nodes(child))


def stored_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _strings(node: ast.AST) -> set[str] | None:
    """The strings of a literal tuple, list or set of strings (``("mean", "var")``)."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return {e.value for e in node.elts}
    return None


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _parts(node: ast.AST) -> tuple[list, list]:
    """(what ``node`` evaluates in the scope around it, what in a scope of its own): a
    function's decorators and defaults belong outside, its arguments and body inside; a
    comprehension's first iterable outside, the rest inside (Python's own rules).  A node
    that opens no scope has everything outside."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = node.args
        names = [*args.posonlyargs, *args.args, *args.kwonlyargs,
                 *(a for a in (args.vararg, args.kwarg) if a is not None)]
        outside = [*getattr(node, "decorator_list", []), *args.defaults,
                   *(d for d in args.kw_defaults if d is not None),
                   *(a.annotation for a in names if a.annotation is not None),
                   *([node.returns] if getattr(node, "returns", None) is not None else [])]
        body = node.body if isinstance(node.body, list) else [node.body]
        return outside, [*names, *body]
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords], list(node.body)
    if isinstance(node, _COMPREHENSIONS):
        first, *rest = node.generators
        inside = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for generator in node.generators:
            inside += [generator.target, *generator.ifs]
        return [first.iter], inside + [generator.iter for generator in rest]
    return list(ast.iter_child_nodes(node)), []


def evaluated_outside(node: ast.AST) -> list:
    """What a function, lambda or class evaluates where it is defined (decorators,
    defaults, annotations, bases): ``_parts``' first half."""
    return _parts(node)[0]


def _in_scope(parts: list):
    """Every node evaluated in one scope, given its parts: nested scopes' own nodes left
    out, their outside parts (``_parts``) kept."""
    todo = list(parts)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, ast.arg):  # its annotation is evaluated outside
            todo.extend(_parts(node)[0])


def _literal_bindings(scope: ast.AST | None, nodes: list) -> tuple[dict, set]:
    """({variable: strings it can hold}, every variable bound) in one scope: a variable
    bound only by ``for v in ("mean", "var")`` (a loop, or this comprehension's own
    ``for``) or ``v = "mean"`` can hold only those strings."""
    strings: dict[str, set[str]] = {}
    literal_targets = set()
    loops = [n for n in nodes if isinstance(n, (ast.For, ast.AsyncFor))]
    loops += scope.generators if isinstance(scope, _COMPREHENSIONS) else []
    for child in loops + [n for n in nodes if isinstance(n, ast.Assign)]:
        target, found = ((child.target, _strings(child.iter)) if not isinstance(child, ast.Assign)
                         else (child.targets[0] if len(child.targets) == 1 else None,
                               {child.value.value} if isinstance(child.value, ast.Constant)
                               and isinstance(child.value.value, str) else None))
        if isinstance(target, ast.Name) and found is not None:
            strings.setdefault(target.id, set()).update(found)
            literal_targets.add(id(target))
    bound = set()
    for child in nodes:
        if isinstance(child, ast.arg):
            bound.add(child.arg)
        elif isinstance(child, ast.alias):
            bound.add((child.asname or child.name).split(".")[0])
        elif isinstance(child, (ast.ExceptHandler, ast.FunctionDef, ast.AsyncFunctionDef,
                                ast.ClassDef, ast.MatchAs, ast.MatchStar)) and child.name:
            bound.add(child.name)
        elif isinstance(child, ast.MatchMapping) and child.rest:
            bound.add(child.rest)
        elif isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load) \
                and id(child) not in literal_targets:
            bound.add(child.id)
    return {name: found for name, found in strings.items() if name not in bound}, \
        bound | set(strings)


def literal_scopes(root: ast.AST) -> dict[int, dict[str, set[str]]]:
    """{id(node): {variable: the strings it can hold}} for the nodes of ``root`` (an answer's
    function, or the value assigned to a graded name): a ``getattr(x, v)`` there reads one
    of those attributes, no computed name.  Python's scopes are followed, so a literal
    binding vouches only for the scope that makes it and the functions and comprehensions
    inside it: ``[0 for v in ("mean",)]`` says nothing of a global ``v``.  A variable ever
    named by ``global``, ``nonlocal`` or ``:=`` is never literal (they bind across scopes);
    nor is any variable of the notebook's own level (another cell can set it)."""
    across = {name for node in ast.walk(root) for name in (
        node.names if isinstance(node, (ast.Global, ast.Nonlocal)) else
        [node.target.id] if isinstance(node, ast.NamedExpr)
        and isinstance(node.target, ast.Name) else [])}
    visible_at: dict[int, dict[str, set[str]]] = {}

    def enter(scope, parts: list, around: dict) -> None:
        nodes = list(_in_scope(parts))
        literal, bound = _literal_bindings(scope, nodes) if scope is not None else ({}, set())
        if isinstance(scope, ast.ClassDef):  # its namespace can be another mapping
            literal = {}  # (a metaclass's __prepare__): like the notebook's level
        visible = {name: found for name, found in {
            **{n: v for n, v in around.items() if n not in bound}, **literal}.items()
            if name not in across}
        for node in nodes:
            visible_at[id(node)] = visible
            inside = _parts(node)[1]
            if inside:  # a class body's names are not seen by what is inside it
                enter(node, inside, {} if isinstance(scope, ast.ClassDef) else visible)

    enter(None, [root], {})  # the notebook's level: nothing there is literal
    return visible_at


def bound_in_scopes(root: ast.AST) -> dict[int, set[str]]:
    """{id(node): the names bound in the scopes around it, within ``root``} (its function,
    the comprehensions and lambdas it is in; a class body's names are not seen inside its
    methods): a name read there and not among them comes from the notebook's level."""
    found: dict[int, set[str]] = {}

    def enter(scope, parts: list, around: set) -> None:
        nodes = list(_in_scope(parts))
        bound = _literal_bindings(scope, nodes)[1] if scope is not None else set()
        visible = around | bound
        for node in nodes:
            found[id(node)] = visible
            inside = _parts(node)[1]
            if inside:
                enter(node, inside, around if isinstance(scope, ast.ClassDef) else visible)

    enter(None, [root], set())
    return found


def locals_at(root: ast.AST) -> dict[int, set[str]]:
    """{id(node): the names that are variables of a scope around it, within ``root``}: bound
    there by an assignment, a loop, a parameter and the like, which shadow an import of the
    same name from the notebook's level (``acc = ...`` beside ``import ... as acc``).  Not a
    name an import binds (``from sklearn.metrics import accuracy_score as acc`` inside the
    function is that import), nor one declared ``global`` anywhere in ``root`` (a nested
    ``global acc`` reaches the import), nor one a default reads (``eval=eval``: the default
    is evaluated outside, and is the import)."""
    declared = {name for node in ast.walk(root) if isinstance(node, (ast.Global, ast.Nonlocal))
                for name in node.names}
    defaults = {n.id for node in ast.walk(root)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                for default in [*node.args.defaults, *node.args.kw_defaults] if default
                for n in ast.walk(default) if isinstance(n, ast.Name)}
    found: dict[int, set[str]] = {}

    def enter(scope, parts: list, around: set) -> None:
        nodes = list(_in_scope(parts))
        bound = _literal_bindings(scope, nodes)[1] if scope is not None else set()
        imported = {(alias.asname or alias.name).split(".")[0] for alias in nodes
                    if isinstance(alias, ast.alias)}
        if scope is not None and not isinstance(scope, _COMPREHENSIONS):
            bound |= _walrus_targets(nodes)  # := in a comprehension binds here
        visible = around | (bound - imported - declared - defaults)
        for node in nodes:
            found[id(node)] = visible
            inside = _parts(node)[1]
            if inside:
                enter(node, inside, around if isinstance(scope, ast.ClassDef) else visible)

    enter(None, [root], set())
    return found


def _walrus_targets(nodes: list) -> set[str]:
    """The names ``:=`` binds inside the comprehensions among ``nodes`` (and those nested in
    them), which Python binds in the scope around them; not inside a lambda or function."""
    found, todo = set(), [n for n in nodes if isinstance(n, _COMPREHENSIONS)]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.NamedExpr):
            found |= stored_names(node.target)
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return found
