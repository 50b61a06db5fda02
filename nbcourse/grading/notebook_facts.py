"""Facts about a whole submission that change what a name in an answer stands for.

The forbidden-helper scan (``forbidden``) follows an answer through the notebook's
bindings; some code changes what a name holds without a binding the scan follows, and is
read here once per submission (red teams 8 and 9):

- ``global`` in a function: the name may be re-bound at run time (an import into it);
- a store into ``__code__``: a function may run other code than its ``def`` says;
- a store into ``sys.modules["name"]``: ``import name`` then reaches any module;
- ``except ... as caught`` at the notebook's level: ``caught`` holds whatever was raised;
- ``builtins.name = value``: ``name`` is then bound everywhere, to ``value``;
- other names for one object (``estimates = map_edge``, ``a = b = {}``), and the calls that
  may store into an object (``list.append(box, f)``, ``keep(box, f)``);
- the attribute names the notebook gives its own objects (``trial.accuracy`` of its own
  namedtuple is not the library's ``accuracy``).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .name_scopes import walk_scope
from .variable_writes import filling_calls, own_fields


@dataclass
class NotebookFacts:
    globals: set[str] = field(default_factory=set)
    code_swapped: bool = False
    fake_modules: set[str] = field(default_factory=set)
    caught: set[str] = field(default_factory=set)
    builtins: dict[str, list] = field(default_factory=dict)
    aliases: dict[str, set[str]] = field(default_factory=dict)
    filling: dict[str, list] = field(default_factory=dict)
    fields: set[str] = field(default_factory=set)


def notebook_facts(trees: list[ast.Module]) -> NotebookFacts:
    facts = NotebookFacts(fields=own_fields(trees))
    for tree in trees:
        facts.caught |= {node.name for node in walk_scope(tree)
                         if isinstance(node, ast.ExceptHandler) and node.name}
        for name, call in filling_calls(tree):
            facts.filling.setdefault(name, []).append(call)
        for node in ast.walk(tree):
            _note(node, facts)
    return facts


def _note(node: ast.AST, facts: NotebookFacts) -> None:
    if isinstance(node, ast.Global):
        facts.globals.update(node.names)
    elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
            and node.attr == "__code__":
        facts.code_swapped = True
    elif isinstance(node, ast.Assign):
        names = [t.id for t in node.targets if isinstance(t, ast.Name)] + \
            ([node.value.id] if isinstance(node.value, ast.Name) else [])
        for name in names:
            facts.aliases.setdefault(name, set()).update(set(names) - {name})
        for target in node.targets:
            _note_store(target, node.value, facts)


def _note_store(target: ast.AST, value: ast.AST, facts: NotebookFacts) -> None:
    """``sys.modules["m"] = ...`` and ``builtins.name = value`` (or ``__builtins__[...]``)."""
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
            and isinstance(target.slice.value, str):
        base = target.value
        if isinstance(base, ast.Attribute) and base.attr == "modules":
            facts.fake_modules.add(target.slice.value.split(".")[0])
        elif getattr(base, "id", None) == "__builtins__":
            facts.builtins.setdefault(target.slice.value, []).append(value)
    elif isinstance(target, ast.Attribute) and \
            getattr(target.value, "id", None) in ("builtins", "__builtins__"):
        facts.builtins.setdefault(target.attr, []).append(value)
