"""Spot an answer that calls the estimator it was asked to write by hand.

The scan reads the submission's source with ``ast`` (nothing is executed).  It starts
at the graded function (or at the statements that assign a graded value) and follows
what that code uses: other functions defined in the notebook, and variables through
what the code writes into them: ``model = CategoricalNB().fit(...)`` at the notebook's
level (or ``for Model in (...)``, ``with ... as m``, ``:=``), and anywhere ``models.append(v)`` (``_STORING_METHODS``), ``d.update(h=v)``,
``setattr(ns, "h", v)``, ``d["h"] = v`` (not into a module, ``np.append``, nor into a
function's own variable).  It reads where code is written, not where it runs: a value
kept by a function called at the notebook's level (``keep = make()`` where ``make``
returns a helper), a decorator that stores what it decorates, or a store through another
name for the same object (``m = models; m.append(v)``) is not followed.  An earlier
version of a function kept as a value (``draft = my_function``) is read too, so it can
flag the final answer: ``check()`` shows that.  A forbidden name counts when
it is reached as an attribute (``nbcourse.CategoricalNB``) or as a name the notebook
imported (``from nbcourse import CategoricalNB as C``, or re-bound as ``NB = C``), so a
student's own variable that happens to be called ``accuracy`` is not mistaken for the
library's function.

An entry with a module (``nbcourse.scale.combine_moments``: the spec's ``"nbcourse.scale.*"``,
expanded by ``library_names`` into every module and name that reaches the same object)
counts only when the name really comes from the library: imported from an nbcourse
module, an attribute of a name bound to one (``import nbcourse.scale as s``,
``s.combine_moments``, ``nbcourse._numerics.sigmoid``), or a literal ``getattr`` on it.
A bare attribute is not enough (``np.log`` is not ``nbcourse._numerics.log``).  Another
package's module forbidden whole (``sklearn.metrics.*``, kept as it is by ``library_names``)
is read the same way, by path, without importing it: anything reached through an import
from it counts, under any name (``from sklearn.metrics import f1_score as f``, ``import
sklearn``, then ``sklearn.metrics.zero_one_loss``); after ``from sklearn.metrics import *``,
so does a name the code reads that nothing in the notebook binds.

A forbidden name that is also the name of a function the notebook defines (the answer
``laplace`` when the library's ``laplace`` is forbidden) counts only when reached as an
attribute (``smoothing.laplace``): a bare ``laplace`` is then the student's own, even
where a function imports the library's under that name inside itself.  Imported at the
notebook's level, it counts unless a definition surely replaces it after the import.

A graded function the answer calls is not followed when its own question looks for the
same names (``graded_callees_to_stop``): a helper used there flags that function only,
and the answers that call it are marked by follow-through, like callers of a wrong
function (``follow_through``).

The grader runs it in the grading worker process, next to the kernel and inside the
worker's own memory limit, never in the instructor's process: ``worker_main`` hands
``flagged_answers`` to ``execution/worker.py``, which knows nothing of this policy, and
the runner stores what it returns as the run's ``RunReport.forbidden``.  A student's
``check()`` runs ``find`` too (``selfcheck``).

The graded name itself must be bound by a ``def`` or an assignment the scan reads: one
imported under its name (after the stub's ``def``) is flagged as what it was imported as,
one bound where no definition is read (``answer_bindings``) as ``UNREAD``.

Where a question forbids helpers, an answer (or what it uses) that looks a name up at run
time in one of the ways this module lists is flagged as ``DYNAMIC``, with a fixed reason
(``DYNAMIC_WHY``): the grader cannot tell which function it calls.  The ways are a list
(``dynamic_lookups``: ``DYNAMIC_NAMES``, ``DYNAMIC_ATTRIBUTES``, ``DYNAMIC_MODULES``, a
relative import, a ``match`` class pattern's attributes: ``getattr`` with a
computed name or handed on as a value, ``importlib``, ``__import__``, ``eval``, ``exec``,
``sys.modules``, ``globals()``, ``vars()``, ``__dict__``, a function's globals, frames,
``pickle`` and the like, each also kept under another name), not a proof: Python has
more.  A forbidden helper reached in a way this module does not read is not flagged and
keeps its marks: the sandbox protects the machine, not this rule.  ``getattr(model, "to_linear")`` with a plain string is read as the attribute,
and so is ``getattr(X, stat)`` where ``stat`` is bound only by a loop over literal strings
(``for stat in ("mean", "var")``) or ``stat = "mean"``, in the scope that looks it up or a
function around it (``name_scopes``): it reads each of those attributes.
"""
from __future__ import annotations

import ast
from typing import Iterable

from .dynamic_lookups import (DYNAMIC, DYNAMIC_BUILTINS, DYNAMIC_MODULES, DYNAMIC_NAMES,
                              DYNAMIC_WHY, dynamic_read, matched_attributes, output_history,
                              private_elsewhere, relative_import)
from .answer_bindings import (ALWAYS_BOUND, bound_after_star, bound_elsewhere,
                              imported_in_class, up_to_the_value)
from .library_names import outside
from .name_scopes import (bound_in_scopes, cell_trees, evaluated_outside, literal_scopes,
                          locals_at, stored_names, walk_scope)
from .typed_in import TYPED_IN, typed_in
from .notebook_facts import notebook_facts
from .variable_writes import (bindings, fills_a_parameter, held, local_names, root_name,
                              settled_names, stored_into, storing_call)

#: What an answer that looks a name up at run time (a function or a variable) is flagged as.
#: What an answer is flagged as when no ``def`` or assignment the scan reads binds it: an
#: import under the answer's name, a ``global`` in a function, ``exec``, ``globals()[...]``.
UNREAD = "defined where the grader cannot read it"
#: ... and what to do about it, in every message that names that flag.
UNREAD_WHY = ("by an import under its name, a global in a function, exec or globals(): write "
              "it with def, or assign it, at the top level of a cell")

class _Notebook:
    """Functions, notebook-level assignments and imports of a whole submission."""

    def __init__(self, sources: Iterable, forbidden: set[str]):
        self.forbidden = forbidden
        # other packages' modules forbidden whole (``sklearn.metrics``): whatever is
        # imported from one counts, under any name (``_outside``)
        self.outside = {entry[:-2] for entry in forbidden if outside(entry)}
        # the packages whose imports are followed as paths: the library and those
        self._roots = {"nbcourse"} | {module.split(".")[0] for module in self.outside}
        # the notebook-level definitions of each name that may be the one called
        # (``_note_definitions``); a function defined inside another is read with it
        self.functions: dict[str, list[ast.AST]] = {}
        self.assignments: dict[str, list[ast.AST]] = {}
        # id(a value assigned) -> (its cell, the names settled there: ``settled_names``)
        self.cell_of: dict[int, tuple[int, frozenset]] = {}
        self.imported: dict[str, str] = {}  # local name -> forbidden name
        self.star = False
        self.relative_star = False  # ``from .x import *``: see ``relative_import``
        # local name -> the library path it stands for (``_s`` -> ``nbcourse.scale``)
        self.paths: dict[str, str] = {"nbcourse": "nbcourse"}
        self.star_modules: list[str] = []  # ``from nbcourse.x import *``
        self._sys_names = {"sys"}  # the names ``sys`` is imported as
        self._held: set[str] = set()  # names the notebook took hold of (``_note_definitions``)
        # what last bound each name on the notebook's level for sure: "def" (the student's
        # own function or class) or "import"; a definition under an ``if`` is not sure
        self._last_binding: dict[str, str] = {}
        trees = cell_trees(sources)
        self.facts = notebook_facts(trees)
        # a function that declares one may bind it at run time (``global measure`` and an
        # import into it, red team 8): a later assignment then does not settle it
        self._globals = self.facts.globals
        self._import_bound: set[str] = set()  # names some import binds (``_reassigned``)
        for name, values in self.facts.builtins.items():  # ``builtins.measure = f``
            self.assignments.setdefault(name, []).extend(values)
        self.imported.update({name: DYNAMIC for name in self.facts.caught})
        for index, tree in enumerate(trees):
            self._note_cell(index, tree)
        # the notebook's modules (``np``): a storing call on one keeps nothing in it
        self._module_names = {(alias.asname or alias.name).split(".")[0]
                              for tree in trees for node in walk_scope(tree)
                              if isinstance(node, (ast.Import, ast.ImportFrom))
                              for alias in node.names} - set(self.assignments)
        for tree in trees:
            self._note_stored_into(tree)
        # the names a def, class or import at a cell's top level binds after the last star
        # import of another package's forbidden module (``_star_outside``)
        self._after_star = bound_after_star(
            trees, lambda star: relative_import(star) or self._outside(star.module or ""))
        self._resolve_aliases()
        # names bound where the scan does not read a definition (``unreadable``)
        strings = {name: values[0].value for name, values in self.assignments.items()
                   if len(values) == 1 and isinstance(values[0], ast.Constant)
                   and isinstance(values[0].value, str)}
        self._bound_elsewhere = {name for tree in trees for node in ast.walk(tree)
                                 for name in bound_elsewhere(node, strings)}

    def _note_cell(self, index: int, tree: ast.Module) -> None:
        """One cell's imports, definitions and notebook-level bindings, in cell order."""
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._note_import(node)
                self._import_bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
            if isinstance(node, ast.ImportFrom):
                self._note_names_from(node)
        self._note_definitions(tree)
        self._note_dynamic_aliases(tree)
        settled = settled_names(tree)
        for node in walk_scope(tree):  # notebook-level bindings only
            for target, value in bindings(node):
                self.cell_of[id(value)] = (index, settled.get(id(value), frozenset()))
                for name in stored_names(target):
                    self.assignments.setdefault(name, []).append(value)

    def followed(self, name: str) -> tuple[list[str], list[ast.AST]]:
        """What else holds what ``name`` holds: its other names, and the calls that may
        store into it (a storing method or function, or a notebook function that stores
        into a parameter), whose arguments are then read (student 25, red team 9)."""
        calls = [call for call in self.facts.filling.get(name, []) if storing_call(call) or
                 any(fills_a_parameter(node) for node in self.functions.get(
                     getattr(call.func, "id", None), []) if not isinstance(node, ast.ClassDef))]
        return sorted(self.facts.aliases.get(name, ())), calls

    def _note_stored_into(self, node: ast.AST, local: frozenset = frozenset()) -> None:
        """Values put into a notebook variable, anywhere in a cell, other than by assigning
        it: ``models.append(v)``, ``d.update(h=v)``, ``setattr(ns, "h", v)``, ``d["h"] = v``
        or ``ns.h = v`` in a function, ``f.__defaults__[0].append(v)``; each counts as a
        value of the variable the chain starts from (``models``, ``d``, ``ns``, ``f``).
        Not a module (``np.append(a, v)`` makes a new array) nor a variable ``local`` to
        the function the call is in."""
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                self._note_stored_into(child, frozenset(local_names(child)))
                continue
            for base, values in stored_into(child):
                if base and base not in local and base not in self._module_names:
                    self.assignments.setdefault(base, []).extend(values)
            self._note_stored_into(child, local)

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
        for node in walk_scope(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                events.append(((node.lineno, node.col_offset, 1), node))
            if isinstance(node, ast.Lambda):  # its defaults are read where it is written
                events += [((n.lineno, n.col_offset, 0), n)
                           for n in held(evaluated_outside(node))]
            if isinstance(node, kinds):
                # a class body runs where it is defined: all of it may hold a reference
                here = [node] if isinstance(node, ast.ClassDef) else evaluated_outside(node)
                events += [((node.lineno, node.col_offset, 0), name) for name in held(here)]
                events.append(((node.lineno, node.col_offset, 1), node))
        events += [((name.lineno, name.col_offset, 0), name)
                   for name in held(list(walk_scope(tree)), walk=False)]
        events += [((node.lineno, node.col_offset, 1), node) for node in tree.body
                   if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None]
        for _, node in sorted(events, key=lambda event: event[0]):
            if isinstance(node, ast.Name):
                self._held.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self._last_binding.update({(a.asname or a.name).split(".")[0]: "import"
                                           for a in node.names})
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                self._last_binding.update({name: "assign" for target in targets
                                           for name in stored_names(target)})
            elif id(node) in top and node.name not in self._held:
                self.functions[node.name] = [node]
                self._last_binding[node.name] = "def"
            else:
                self.functions.setdefault(node.name, []).append(node)
                if id(node) in top:
                    self._last_binding[node.name] = "def"

    def _reassigned(self, name: str) -> bool:
        """Whether an assignment at a cell's top level surely re-binds ``name`` after its
        last import, to values that do not read the name itself (``best_alpha, accuracy =
        spam_experiment(...)`` after a cell imported ``accuracy``, red team 7): the name is
        then those values, which ``find`` follows, not the import (``acc = acc`` keeps it)."""
        return name in self._import_bound and self._last_binding.get(name) == "assign" \
            and name not in self._globals \
            and not any(isinstance(n, ast.Name) and n.id == name
                        for value in self.assignments.get(name, []) for n in ast.walk(value))

    def _own(self) -> set[str]:
        """The names that are the notebook's own functions or classes: defined, and not
        (or not surely) bound by an import from the library after that (``path``)."""
        return {name for name in self.functions
                if name not in self.paths or self._last_binding.get(name) == "def"}

    def _note_dynamic_aliases(self, tree: ast.Module) -> None:
        """A name bound, anywhere in a cell, to a builtin that looks names up (``e =
        eval``, ``eval = eval``, a default ``h=getattr``) looks names up too."""
        def dynamic(value) -> bool:  # the value holds one, not called (``(eval,)[0]``)
            called = {id(n.func) for n in ast.walk(value) if isinstance(n, ast.Call)}
            return any(isinstance(n, (ast.Name, ast.Attribute)) and id(n) not in called
                       and getattr(n, "id", getattr(n, "attr", None)) in
                       DYNAMIC_NAMES | {"getattr"} for n in ast.walk(value))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) \
                    and node.value is not None and dynamic(node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                self.imported.update({name: DYNAMIC for target in targets
                                      for name in stored_names(target)})
            elif isinstance(node, ast.arguments):
                positional = [*node.posonlyargs, *node.args]
                pairs = [*zip(positional[len(positional) - len(node.defaults):], node.defaults),
                         *zip(node.kwonlyargs, node.kw_defaults)]
                self.imported.update({arg.arg: DYNAMIC for arg, default in pairs
                                      if default is not None and dynamic(default)})

    def _note_names_from(self, node: ast.ImportFrom) -> None:
        """The names a ``from ... import`` binds that stand for a forbidden or a run-time
        lookup, and whether it is a star import of the library or a relative one."""
        for alias in node.names:
            if relative_import(node):
                self.relative_star |= alias.name == "*"
                self.imported[alias.asname or alias.name] = DYNAMIC
            elif alias.name in DYNAMIC_NAMES:
                self.imported[alias.asname or alias.name] = DYNAMIC
            elif alias.name == "*":
                self.star |= (node.module or "").startswith("nbcourse")
            elif alias.name in self.forbidden:
                self.imported[alias.asname or alias.name] = alias.name

    def _note_import(self, node: ast.Import | ast.ImportFrom) -> None:
        """Record the library path each name an import binds stands for: ``import
        nbcourse.scale as _s``, ``from nbcourse import _numerics``, ``from nbcourse.linear
        import sigmoid``; relative imports and other packages are not the library's."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in DYNAMIC_MODULES | self.facts.fake_modules or \
                        self.outside and private_elsewhere(alias.name):
                    self.imported[alias.asname or alias.name.split(".")[0]] = DYNAMIC
                if alias.name == "sys":  # ``s.modules`` as well as ``sys.modules``
                    self._sys_names.add(alias.asname or "sys")
                if alias.name.split(".")[0] in self._roots:
                    local = alias.asname or alias.name.split(".")[0]
                    self.paths[local] = alias.name if alias.asname else local
            return
        module = node.module or ""
        if not node.level and (module.split(".")[0] in DYNAMIC_MODULES
                               | self.facts.fake_modules or
                               self.outside and private_elsewhere(module)):
            self.imported.update({alias.asname or alias.name: DYNAMIC for alias in node.names})
        if not node.level and module == "sys":  # ``from sys import modules``
            self.imported.update({alias.asname or alias.name: DYNAMIC for alias in node.names
                                  if alias.name == "modules"})
        if node.level or module.split(".")[0] not in self._roots:
            return
        for alias in node.names:
            if alias.name == "*":  # ``self.star`` above: the library's forbidden names
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
            return None if node.id in self._own() or self._reassigned(node.id) \
                else self.paths.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.path(node.value)
            return None if base is None else f"{base}.{node.attr}"
        return None

    def _library_uses(self, child: ast.AST, read, local: set[str]) -> set[str]:
        """The qualified forbidden entries (``nbcourse.x.name``) one node reaches: a name or
        attribute chain, a literal ``getattr`` on a library module, or a bare name after
        ``from nbcourse.x import *``."""
        paths = set()
        if isinstance(child, (ast.Name, ast.Attribute)) and \
                not isinstance(child.ctx, ast.Store) and root_name(child) not in local:
            paths.add(self.path(child))
            if isinstance(child, ast.Name) and child.id not in self.paths \
                    and child.id not in self.functions:  # other packages: _star_outside
                paths.update(f"{module}.{child.id}" for module in self.star_modules
                             if not self._outside(module))
        if isinstance(read, (str, set)) and read != DYNAMIC:
            base = self.path(child.args[0]) if isinstance(child, ast.Call) \
                and root_name(child.args[0]) not in local else None
            if base is not None:
                paths.update(f"{base}.{name}" for name in ({read} if isinstance(read, str)
                                                            else read))
        return (paths & self.forbidden) | {path for path in paths if self._outside(path)}

    def _module_handed_on(self, node: ast.AST, local: dict) -> bool:
        """Whether a module holding forbidden names is used other than to read one of its
        attributes by name: kept in a list (``[smoothing_strength][0].total_cost``),
        matched (``match evaluation: case C(f)``, red team 8), handed to a function.  What
        is read from it then is not in the code."""
        read_from = {id(n.value) for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        read_from |= {id(n.args[0]) for n in ast.walk(node) if isinstance(n, ast.Call)
                      and getattr(n.func, "id", None) == "getattr" and n.args}
        for child in ast.walk(node):  # ``m = nbcourse.scale`` is an alias, followed as one
            if child is not node and isinstance(child, (ast.Name, ast.Attribute)) \
                    and id(child) not in read_from \
                    and isinstance(child.ctx, ast.Load) \
                    and root_name(child) not in local.get(id(child), ()):
                path = self.path(child)
                if path and path.startswith("nbcourse") and any(
                        entry.startswith(path + ".") for entry in self.forbidden):
                    return True
        return False

    def _imported_here(self, node: ast.Import | ast.ImportFrom) -> set[str]:
        """The forbidden names an import binds (``from sklearn.metrics import
        accuracy_score as measure`` inside the answer, beside a ``def measure``: red team
        8): counted where the answer imports them, not only where it reads them."""
        module = f"{node.module}." if isinstance(node, ast.ImportFrom) else ""
        paths = {f"{module}{alias.name}" for alias in node.names if alias.name != "*"}
        names = {alias.name for alias in node.names}
        return {path for path in paths if path in self.forbidden or self._outside(path)} | \
            (names & self.forbidden)

    def _outside(self, path: str | None) -> bool:
        """Whether a path is in (or is) another package's module forbidden whole."""
        return path is not None and (any(path == module or path.startswith(module + ".")
                                         for module in self.outside)
                                     or bool(self.outside) and private_elsewhere(path))

    def _star_outside(self, node: ast.AST) -> set[str]:
        """After ``from sklearn.metrics import *``, a name the code reads that no scope
        around it binds (``bound_in_scopes``), nor a ``def``, class or import after the star
        import (``bound_after_star``; ``get_scorer = get_scorer`` may keep the module's, red
        team 6), may be one of that module's, which the grader does not import: counted as
        that module's; so is a plain forbidden name (``f1_score``) the notebook binds."""
        modules = [module for module in self.star_modules if self._outside(module)]
        if not modules and not self.relative_star:
            return set()
        notebook = self._after_star | ALWAYS_BOUND
        scopes = bound_in_scopes(node)
        read = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Load) and n.id not in scopes.get(id(n), ())]
        free = {name for name in read if name not in notebook}
        listed = {name for name in read if name in self.forbidden} - self._own()
        found = {f"{module}.{name}" for module in modules for name in free} | listed
        return found | ({DYNAMIC} if self.relative_star and free else set())

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

    def unreadable(self, name: str) -> set[str]:
        """What the graded ``name`` is flagged as when what binds it at run time may not be
        the ``def`` or assignment the scan reads (red team 5): the forbidden object it was
        imported as (after the stub's ``def``), or ``UNREAD`` where another import or
        ``answer_bindings.bound_elsewhere`` (``global``, literal ``exec``) binds it."""
        own = name in self._own()
        path = self.paths.get(name)
        if path is not None and not own and (path in self.forbidden or self._outside(path)):
            return {path}
        if name in self.imported and not own:
            return {self.imported[name]}
        if name in self._bound_elsewhere or \
                (self._last_binding.get(name) == "import" and not own) or \
                (self.facts.code_swapped and name in self.functions):  # ``f.__code__ = ``
            return {UNREAD}
        return set()

    def _matched_paths(self, match: ast.Match) -> set[str]:
        """The forbidden paths a ``match`` on a library module reads by class pattern."""
        base = self.path(match.subject)
        return {f"{base}.{name}" for name in matched_attributes(match)} & self.forbidden \
            if base is not None else set()

    def _forbidden_attributes(self, node: ast.AST, attributes: set[str]) -> set[str]:
        """The forbidden names among the attributes read in ``node``, but for a field of
        the notebook's own objects read, not called (``trial.accuracy``, red team 9)."""
        called = {n.func.attr for n in ast.walk(node) if isinstance(n, ast.Call)
                  and isinstance(n.func, ast.Attribute)}
        return (attributes - (self.facts.fields - called)) & self.forbidden

    def hits(self, node: ast.AST) -> tuple[set[str], set[str], set[str]]:
        """(forbidden names used, names loaded, names stored) within ``node``."""
        loaded, stored, attributes = set(), set(), set()
        dynamic = set()
        literal = literal_scopes(node)
        library = set()
        called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
        # a function's own variable shadows an import of the same name (``acc = ...`` in
        # choose_alpha beside ``import accuracy_score as acc``: student 18), in its scope
        local = locals_at(node)
        free = set()  # the names read that no scope within ``node`` binds
        for child in ast.walk(node):
            read = dynamic_read(child, literal.get(id(child), {}))
            if isinstance(child, (ast.Name, ast.Attribute)) and id(child) not in called \
                    and getattr(child, "id", getattr(child, "attr", None)) == "getattr":
                read = DYNAMIC  # handed on (``reduce(getattr, ...)``): its names are data
            if isinstance(child, ast.Attribute) and child.attr == "modules" and \
                    getattr(child.value, "id", None) in self._sys_names:
                read = DYNAMIC  # ``import sys as s; s.modules[...]`` (red team 5)
            library |= self._library_uses(child, read, local.get(id(child), set()))
            if isinstance(read, set):
                attributes |= read
            elif read is not None:
                (dynamic if read == DYNAMIC else attributes).add(read)
            if isinstance(child, ast.Name):
                (stored if isinstance(child.ctx, ast.Store) else loaded).add(child.id)
                if isinstance(child.ctx, ast.Load) and child.id not in local.get(id(child), ()):
                    free.add(child.id)
            elif isinstance(child, ast.Attribute):
                attributes.add(child.attr)
            elif isinstance(child, ast.arg):
                stored.add(child.arg)
            elif relative_import(child):
                dynamic.add(DYNAMIC)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):  # an import in the answer
                library |= self._imported_here(child)  # is a use, whatever else bears its name
            elif isinstance(child, ast.Match):  # ``case object(accuracy=f)`` on a module
                attributes |= matched_attributes(child)
                library |= self._matched_paths(child)
        # a name the notebook defines as its own function is the student's, not the
        # library's (the answer ``laplace`` when ``laplace`` is forbidden)
        own = self._own()
        found = {self.imported[n] for n in free if n in self.imported and
                 (n not in own or self.imported[n] == DYNAMIC) and not self._reassigned(n)}
        found |= self._forbidden_attributes(node, attributes) | library
        own_dynamic = (loaded & DYNAMIC_BUILTINS) - own - stored - set(self.assignments)
        history = {name for name in free if output_history(name)} - set(self.assignments)
        if dynamic or own_dynamic or history or self._module_handed_on(node, local):
            found.add(DYNAMIC)
        if self.star:
            found |= (loaded & self.forbidden) - own
        found |= self._star_outside(node)
        if isinstance(node, ast.ClassDef):  # ``class Tools: from ... import accuracy as acc``
            found |= {name for name in imported_in_class(node)
                      if name in self.forbidden or self._outside(name)}
        return found, loaded, stored



def find(sources: Iterable, name: str, forbidden: Iterable[str],
         stop: Iterable[str] = (), unreadable: bool = True) -> list[str]:
    """Forbidden names that the answer ``name`` uses, directly or through what it uses
    (``sources``: the cells' code, or their trees), not following the names in ``stop``
    (other graded answers, flagged on their own: ``graded_callees_to_stop``); with
    ``unreadable``, an answer bound where the scan reads no definition is flagged
    (``_Notebook.unreadable``)."""
    notebook = _Notebook(list(sources), set(forbidden))
    stop = set(stop) - {name}
    found: set[str] = set()
    seen: set = set()
    todo: list = [(name, None)]  # (a name, the cell whose bindings of it count, or None)
    while todo:
        current, cell = todo.pop()
        if (current, cell) in seen:
            continue
        seen.add((current, cell))
        nodes = [*(value for value in notebook.assignments.get(current, [])
                   if cell is None or notebook.cell_of.get(id(value), (cell,))[0] == cell),
                 *notebook.functions.get(current, [])]
        if current == name and unreadable:
            found |= notebook.unreadable(name)
        others, calls = notebook.followed(current)
        todo += [(other, None) for other in others if other not in stop]
        for node in [*nodes, *calls]:
            direct, loaded, stored = notebook.hits(node)
            found |= direct
            here, settled = notebook.cell_of.get(id(node), (None, frozenset()))
            for used in loaded - stored - stop:
                if used in notebook.functions or used in notebook.assignments:
                    todo.append((used, here if used in settled else None))
    return fewest_names(found)


def graded_callees_to_stop(questions: Iterable[tuple[str, str, Iterable[str]]],
                           name: str, forbidden: Iterable[str]) -> set[str]:
    """The graded functions among ``questions`` ((name, kind, forbidden names) each) that
    the scan of answer ``name`` does not follow: those whose own scan looks for every
    name this answer's does.  A forbidden helper used in such a function flags that
    function alone; an answer that calls it is marked like the caller of any wrong
    function (follow-through marking), not flagged a second time."""
    mine = set(forbidden)
    return {other for other, kind, theirs in questions
            if kind == "function" and other != name and mine <= set(theirs)}


def fewest_names(found: Iterable[str]) -> list[str]:
    """The names found, sorted, without a library path whose plain name is among them
    (``m_estimate`` and ``nbcourse.smoothing.m_estimate`` are one use, said once), nor a
    module whose member is (``sklearn.metrics`` beside ``sklearn.metrics.f1_score``)."""
    found = set(found)
    plain = {name for name in found if "." not in name}
    return sorted(name for name in found
                  if ("." not in name or name.rpartition(".")[2] not in plain)
                  and not any(other.startswith(name + ".") for other in found))


def flagged_answers(sources: Iterable[str], plan: dict) -> dict[str, list[str]]:
    """{question id: the forbidden names its answer uses} for a probe plan
    (``specs.Exercise.probe_plan``), only the questions whose answer uses one; a value the
    exercise asks to compute (``"computed"``) and that is typed in is flagged ``TYPED_IN``."""
    sources = cell_trees(sources)  # parsed once, read for every question
    graded = [(q["name"], q.get("kind", "function"), q.get("forbidden") or ())
              for q in plan["questions"]]
    flagged = {}
    for question in plan["questions"]:
        found = []
        if question.get("forbidden"):
            stop = graded_callees_to_stop(graded, question["name"], question["forbidden"])
            cells = sources if question.get("kind", "function") == "function" \
                else up_to_the_value(sources, question["name"])
            found = find(cells, question["name"], question["forbidden"], stop)
        if question.get("computed") and typed_in(sources, question["name"]):
            found.append(TYPED_IN)
        if found:
            flagged[question["question"]] = found
    return flagged
