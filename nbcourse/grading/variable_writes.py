"""What code writes into a variable, read from its source: the ways a value reaches a
name that the forbidden-helper scan (``forbidden``) follows.

An assignment (``=``, annotated, augmented), a ``for`` loop's target, ``with ... as``,
``:=``; a storing method (``models.append(v)``, ``d.update(h=v)``), ``setattr`` and an
item or attribute store (``d["h"] = v``), each counted for the variable its chain starts
from.  Also the names a function binds in its own scope, and those code takes hold of
without calling them (``keep = helper``), which may be called later.
"""
from __future__ import annotations

import ast

from .name_scopes import stored_names, walk_scope

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def held(nodes: list, walk: bool = True) -> list[ast.Name]:
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


#: Methods that keep what they are given in the object they are called on (a list's,
#: a dict's, a set's, a deque's, a queue's).
STORING_METHODS = {"append", "extend", "insert", "update", "setdefault", "add",
                   "__setitem__", "appendleft", "extendleft", "put", "put_nowait",
                   # ``box.__iadd__([f])``, ``operator.setitem(box, 0, f)`` (red team 9)
                   "__iadd__", "__ior__", "setitem", "iadd"}


def bindings(node: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """[(target, the value it is bound to)] of one statement or expression: ``=`` and its
    annotated and augmented forms, a ``for`` loop's target (its iterable), ``with ...
    as`` (the context's expression) and ``:=``."""
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [(target, node.value) for target in targets]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [(node.target, node.iter)]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [(item.optional_vars, item.context_expr) for item in node.items
                if item.optional_vars is not None]
    if isinstance(node, ast.NamedExpr):
        return [(node.target, node.value)]
    if isinstance(node, ast.Match):  # ``case [measure]:`` binds a part of the subject
        return [(ast.Name(id=name, ctx=ast.Store()), node.subject) for case in node.cases
                for part in ast.walk(case.pattern)
                for name in [getattr(part, "name", None), getattr(part, "rest", None)] if name]
    return []


def stored_into(node: ast.AST) -> list[tuple[str, list]]:
    """[(the variable a chain starts from, the values ``node`` puts into it)]: a storing
    method's arguments, ``setattr``'s value, an item or attribute store's value."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in STORING_METHODS:  # ``f.__defaults__[0].append(v)``: f
        return [(root_name(node.func.value), [*node.args, *(k.value for k in node.keywords)])]
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr" and node.args:
        return [(root_name(node.args[0]), node.args[2:])]
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [(root_name(target), [node.value]) for target in targets
                if isinstance(target, (ast.Subscript, ast.Attribute))]
    return []


def local_names(function: ast.AST) -> set[str]:
    """The names a function (or lambda) binds in its own scope, but for those it declares
    ``global`` or ``nonlocal``."""
    args = function.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg,
                             args.kwarg] if a is not None}
    body = function.body if isinstance(function.body, list) else [function.body]
    declared = set()
    for statement in body:
        for node in [statement, *walk_scope(statement)]:
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                declared.update(node.names)
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                names.add(node.id)
    return names - declared


def root_name(node: ast.AST) -> str:
    """The variable an item or attribute chain starts from (``d["h"].x`` -> ``d``)."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return getattr(node, "id", "")


def settled_names(tree: ast.Module) -> dict[int, set[str]]:
    """{id(a value bound in the cell): the names surely bound where it is computed}: by an
    assignment at the cell's top level before its statement, or as the target of a
    ``for`` loop around it (student 25: ``for w0 in grid:`` in a later question's cell,
    ``i = names.index("free")`` before ``w[i]``).  A read of such a name there is one of
    the cell's own bindings, not an earlier cell's (a ``for`` loop that ran no round
    leaves the earlier value: only its body counts)."""
    found: dict[int, set[str]] = {}

    def visit(node, settled):
        for _, value in bindings(node):
            found[id(value)] = settled
        loop = isinstance(node, (ast.For, ast.AsyncFor))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _SCOPES):
                continue
            inside = loop and child in node.body
            visit(child, settled | stored_names(node.target) if inside else settled)

    sure: set[str] = set()
    for statement in tree.body:
        visit(statement, frozenset(sure))
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) \
                else [statement.target]
            sure |= {name for target in targets for name in stored_names(target)}
    return found


def fills_a_parameter(function: ast.AST) -> bool:
    """Whether a function stores into one of its parameters (``target[coin] = ...``): a
    value handed to it may be filled there (student 25)."""
    args = function.args
    parameters = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    return any(base in parameters for node in ast.walk(function)
               for base, _ in stored_into(node))


def filling_calls(tree: ast.Module) -> list[tuple[str, ast.Call]]:
    """(a variable, a call that may store its other arguments into it): a storing method
    called with it as the object (``list.append(box, f)``, ``operator.setitem(box, 0,
    f)``) or handed on (``map(box.append, [f])``), and any call of a function with it as an
    argument, which ``forbidden`` keeps when that function fills a parameter (red team 9)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        arguments = [*node.args, *(k.value for k in node.keywords)]
        for argument in arguments:
            if isinstance(argument, ast.Name):
                found.append((argument.id, node))
            elif isinstance(argument, ast.Attribute) and argument.attr in STORING_METHODS \
                    and isinstance(argument.value, ast.Name):
                found.append((argument.value.id, node))
    return found


def storing_call(node: ast.Call) -> bool:
    """Whether a call is a storing method or function (``list.append``, ``setitem``) or
    hands one on (``map(box.append, ...)``)."""
    callee = getattr(node.func, "attr", getattr(node.func, "id", None))
    return callee in STORING_METHODS or any(
        isinstance(a, ast.Attribute) and a.attr in STORING_METHODS for a in node.args)


def own_fields(trees: list[ast.Module]) -> set[str]:
    """The attribute names the notebook gives its own objects: a class body's names (a
    dataclass's or ``NamedTuple``'s fields), ``self.name = ...`` in a method, and the
    fields of ``namedtuple("T", ["alpha", "accuracy"])`` (red team 9: ``trial.accuracy``
    is the student's field, not the library's function)."""
    found = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for statement in node.body:
                    for target, _ in [*bindings(statement),
                                      *([(statement.target, None)] if isinstance(
                                          statement, ast.AnnAssign) else [])]:
                        found |= stored_names(target)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and getattr(node.value, "id", None) == "self":
                found.add(node.attr)
            elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(
                    node.func, "attr", None)) == "namedtuple" and len(node.args) > 1:
                fields = node.args[1]
                if isinstance(fields, ast.Constant) and isinstance(fields.value, str):
                    found |= set(fields.value.replace(",", " ").split())
                elif isinstance(fields, (ast.List, ast.Tuple)):
                    found |= {e.value for e in fields.elts if isinstance(e, ast.Constant)
                              and isinstance(e.value, str)}
    return found
