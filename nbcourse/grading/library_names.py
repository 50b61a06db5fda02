"""Turn a question's forbidden library modules into every name that reaches them.

A spec may forbid a whole module of the library (``"nbcourse.linear.*"``) or one object by
its full name (``"nbcourse.adversary.good_word_attack"``), next to plain names such as
``"CategoricalNB"``.  A student reaches the same function under many names:
``nbcourse.mle.times_log`` *is* ``nbcourse._numerics.times_log``, and
``nbcourse.linear.sigmoid`` is ``nbcourse.calibration.sigmoid``.  ``expand`` runs on the
instructor's side (the probe plan, the released ``*.checks.json``): it imports the library
and lists, for every object an entry stands for, each ``module.name`` of ``nbcourse`` that
holds that very object.  The scan (``forbidden``) then only compares strings; it never
imports numpy or the library.

A module stands for the functions and classes it defines, and for those it takes from the
library's shared numerics (``nbcourse._numerics``), which it offers as its own:
``nbcourse.linear.*`` covers ``sigmoid``.  What it imports from another public module
(``nbcourse.scale`` imports ``MultinomialNB``) is that module's, and the input checks and
base classes (``nbcourse._checks``, ``nbcourse._estimator``) compute no answer.
"""
from __future__ import annotations

import ast
import difflib
import functools
import importlib
import inspect
import pkgutil
import textwrap
from pathlib import Path
from typing import Iterable

#: The private module whose functions the public modules offer as their own.
_SHARED = "nbcourse._numerics"

#: Parts of the package that hold no course helpers: the grader and the command line.
_SKIPPED = ("nbcourse.grading", "nbcourse.cli", "nbcourse.__main__")

#: Layers above the grader's (matplotlib, ipywidgets): read, never imported, for the
#: library's functions they import and so offer under their own names.
_READ_ONLY = ("nbcourse.plotting", "nbcourse.widgets")


def qualified(entry: str) -> bool:
    """Whether a forbidden entry names the library by module (``nbcourse.x.*``,
    ``nbcourse.x.name``), not a plain name (``predict``)."""
    return "." in entry and not outside(entry)


def outside(entry: str) -> bool:
    """Whether a forbidden entry is a module of another package (``sklearn.metrics.*``,
    ``scipy.stats.*``): everything imported from it counts, whatever its name, and it is
    kept as it is (the grader never imports it: scikit-learn is not a student's
    dependency).  Only a whole module: a name the package offers is a plain entry."""
    return entry.endswith(".*") and not entry.startswith("nbcourse.")


@functools.lru_cache(maxsize=1)
def _modules() -> dict[str, object]:
    """Every module of the library a student can import, by name."""
    import nbcourse
    found = {"nbcourse": nbcourse}
    todo = [nbcourse]
    while todo:  # not pkgutil.walk_packages: it would import the skipped packages too
        package = todo.pop()
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            if info.name.startswith(_SKIPPED + _READ_ONLY):
                continue
            try:
                found[info.name] = importlib.import_module(info.name)
            except ImportError:  # an optional dependency missing: nobody reaches it either
                continue
            if info.ispkg:
                todo.append(found[info.name])
    return found


def _members(module) -> dict[str, object]:
    """{name: object} for the functions and classes a module holds, the lazily imported
    top-level names (``nbcourse.CategoricalNB``) included."""
    names = set(vars(module)) | set(getattr(module, "__all__", ()))
    members = {}
    for name in sorted(names):
        try:
            value = getattr(module, name)
        except AttributeError:
            continue
        if inspect.isfunction(value) or inspect.isclass(value):
            members[name] = value
    return members


def _read_only_imports() -> list[tuple[str, str, str]]:
    """(module, local name, the library path it imports) for every ``from ... import``
    of the plotting and widget modules, read from their source."""
    found = []
    for module, (package, tree) in _read_only_sources().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                start = package[:len(package) - node.level + 1] if node.level else []
                source = ".".join(start + ([node.module] if node.module else []))
                found += [(module, alias.asname or alias.name, f"{source}.{alias.name}")
                          for alias in node.names if alias.name != "*"]
    return found


@functools.lru_cache(maxsize=1)
def _read_only_sources() -> dict[str, tuple[list[str], ast.Module]]:
    """{module name: (the package it is in, as parts; its parsed source)}, for the
    plotting and widget modules."""
    import nbcourse
    root = Path(nbcourse.__file__).parent
    found = {}
    for top in _READ_ONLY:
        base = root.joinpath(*top.split(".")[1:])
        for path in sorted([*base.rglob("*.py"), base.with_suffix(".py")]):
            if path.is_file():
                parts = ["nbcourse", *path.relative_to(root).with_suffix("").parts]
                module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
                found[module] = (parts[:-1], ast.parse(path.read_text(encoding="utf-8")))
    return found


@functools.lru_cache(maxsize=1)
def _by_path() -> dict[str, object]:
    """{``module.name``: the function or class it is}, for the imported modules."""
    return {f"{module_name}.{name}": value for module_name, module in _modules().items()
            for name, value in _members(module).items()}


@functools.lru_cache(maxsize=1)
def _places() -> dict[int, list[str]]:
    """{id(object): every ``module.name`` of the library that holds it}."""
    places: dict[int, list[str]] = {}
    by_path = _by_path()
    for path, value in by_path.items():
        places.setdefault(id(value), []).append(path)
    for module_name, local, imported in _read_only_imports():
        if imported in by_path:
            places[id(by_path[imported])].append(f"{module_name}.{local}")
    for alias, real in _module_aliases():  # ``nbcourse.plotting.beta._smoothing.mle_bernoulli``
        for name, value in _members(_modules()[real]).items():
            places.setdefault(id(value), []).append(f"{alias}.{name}")
    return places


def _module_aliases() -> list[tuple[str, str]]:
    """(a path a library module is reached under, its own name): a module that imports
    another as a name (``from .. import smoothing as _smoothing`` in ``nbcourse.plotting.beta``)
    offers all of it there, one level deep (red team 5)."""
    modules = _modules()
    found = [(f"{name}.{local}", value.__name__) for name, module in modules.items()
             for local, value in vars(module).items()
             if inspect.ismodule(value) and value.__name__ in modules
             and f"{name}.{local}" != value.__name__]
    found += [(f"{module_name}.{local}", imported)
              for module_name, local, imported in _read_only_imports() if imported in modules]
    return found


def _stands_for(entry: str) -> list[object]:
    """The library objects one qualified entry names (see the module's docstring)."""
    if not entry.startswith("nbcourse."):
        raise ValueError(f"forbidden entry {entry!r}: a dotted entry names a module of the "
                         "library, such as 'nbcourse.linear.*' or 'nbcourse.mle.gaussian_mle', "
                         "or a whole module of another package, such as 'sklearn.metrics.*'")
    module_name, _, name = entry.rpartition(".")
    module = _modules().get(module_name)
    if module is None:
        raise ValueError(f"forbidden entry {entry!r}: {module_name} is not a module of "
                         "nbcourse")
    members = _members(module)
    if name != "*":
        if name not in members:
            raise ValueError(f"forbidden entry {entry!r}: {module_name} has no function or "
                             f"class {name!r}")
        return [members[name]]
    # a package stands for its modules too (``nbcourse.naive_bayes.*``); a module's own
    # hooks (``__getattr__``) compute no answer
    found = [value for sub_name, sub in _modules().items()
             if sub_name == module_name or sub_name.startswith(module_name + ".")
             for member, value in _members(sub).items()
             if not member.startswith("__")
             and getattr(value, "__module__", "") in (sub_name, _SHARED)]
    if not found:
        raise ValueError(f"forbidden entry {entry!r}: {module_name} defines no function or "
                         "class, so it would forbid nothing")
    return found


@functools.lru_cache(maxsize=1)
def _functions() -> tuple:
    """Every function the library's modules hold (classes are not followed: a lesson
    uses ``MultinomialNB`` freely, though its methods call the shared numerics)."""
    found = {}
    for module in _modules().values():
        for value in _members(module).values():
            if inspect.isfunction(value) and value.__module__.startswith("nbcourse."):
                found[id(value)] = value
    return tuple(found.values())


@functools.lru_cache(maxsize=None)
def _uses(function) -> tuple[int, ...]:
    """The ids of the objects a library function's code names, resolved in its module
    (``binary_scores``, ``_numerics.moments``)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return ()
    scope, found = function.__globals__, []
    for node in ast.walk(tree):
        chain = []
        while isinstance(node, ast.Attribute):
            chain.insert(0, node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in scope:
            continue
        value = scope[node.id]
        found.append(id(value))
        for attribute in chain:  # each step of ``_numerics.moments``
            value = getattr(value, attribute, None)
            if value is None:
                break
            found.append(id(value))
    return tuple(found)


def _wrapping(forbidden: dict[int, object]) -> set[int]:
    """The library functions that use a forbidden object, directly or through another
    such function (``spam_validation_scores`` calls ``binary_scores``): the same answer
    under a name the entries do not say.  The shared numerics (``log``, ``moments``) do
    not start such a chain: half the library calls them, and a helper that does is no
    more the answer to a question than numpy is."""
    seeds = {key for key, value in forbidden.items()
             if getattr(value, "__module__", "") != _SHARED}
    found, grown = set(seeds), True
    while grown:
        grown = False
        for function in _functions():
            if id(function) not in found and found.intersection(_uses(function)):
                found.add(id(function))
                grown = True
    return found - seeds


def _read_only_wrappers(forbidden: set[int]) -> set[str]:
    """The ``module.name`` of each function or class of the plotting and widget modules
    whose code names a forbidden object (``forbidden``: ids), directly or through another
    such definition of its module, and where the layer offers it again: the answer behind
    a widget (``SpamAlphaExplorer(...).curve`` holds ``spam_alpha_curve``'s precision and
    recall, red team 7).  Read from the source, like ``_read_only_imports``."""
    by_path = _by_path()
    imports = _read_only_imports()
    found: set[str] = set()
    for module, (_, tree) in _read_only_sources().items():
        bad = {local for where, local, path in imports if where == module
               and path in by_path and id(by_path[path]) in forbidden}
        # a module imported as a name (``from .. import smoothing as _smoothing``): what is
        # called through it (``_smoothing.beta_summary``, student 27)
        modules = {local: path for where, local, path in imports
                   if where == module and path in _modules()}
        bad |= {f"{local}.{name}" for local, path in modules.items()
                for name, value in _members(_modules()[path]).items() if id(value) in forbidden}
        definitions = [node for node in tree.body
                       if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
        grown = True
        while grown:
            grown = False
            for node in definitions:
                if node.name not in bad and any(
                        isinstance(n, ast.Name) and n.id in bad or isinstance(n, ast.Attribute)
                        and isinstance(n.value, ast.Name) and f"{n.value.id}.{n.attr}" in bad
                        for n in ast.walk(node)):
                    bad.add(node.name)
                    grown = True
        found |= {f"{module}.{node.name}" for node in definitions if node.name in bad}
    return found | {f"{where}.{local}" for where, local, path in imports if path in found}


def expand(entries: Iterable[str]) -> list[str]:
    """``_expanded``, worked out once per list of entries: every probe plan and every
    scoring of a run asks for the same lists, and reading the library takes a while."""
    entries = tuple(entries)
    for entry in entries:
        if not isinstance(entry, str) or not entry:
            raise TypeError(f"a forbidden entry is a non-empty string, got {entry!r}")
    return list(_expanded(entries))


@functools.lru_cache(maxsize=None)
def _expanded(entries: tuple) -> tuple:
    """The forbidden entries as the scan reads them: plain names unchanged, in their
    order, then every ``module.name`` that reaches an object a qualified entry stands
    for, or a library function that uses such an object or a library object a plain
    entry names, sorted (the same file on every release), then the other packages'
    modules (``sklearn.metrics.*``), as they are."""
    plain = [entry for entry in entries if not qualified(entry) and not outside(entry)]
    names: set[str] = set()
    forbidden = {id(value): value for entry in plain for value in _named(entry)}
    for entry in entries:
        if qualified(entry):
            for value in _stands_for(entry):
                names.update(_places().get(id(value), []))
                forbidden[id(value)] = value
    wrappers = _wrapping(forbidden)
    for wrapper in wrappers:
        names.update(_places().get(wrapper, []))
    names |= _read_only_wrappers(wrappers | {key for key, value in forbidden.items()
                                             if getattr(value, "__module__", "") != _SHARED})
    modules = [entry for entry in entries if outside(entry)]
    for entry in modules:  # "nbcourses.linear.*" is a typo, not another package
        if difflib.get_close_matches(entry.split(".")[0], ["nbcourse"], cutoff=0.7):
            raise ValueError(f"forbidden entry {entry!r}: did you mean the library, "
                             "'nbcourse'? Another package's module is named as imported, "
                             "such as 'sklearn.metrics.*'")
    return tuple(list(dict.fromkeys(plain)) + sorted(names) + sorted(set(modules)))


def _named(name: str) -> list[object]:
    """The library's functions and classes that a plain entry names."""
    return [value for module in _modules().values()
            for member, value in _members(module).items() if member == name]
