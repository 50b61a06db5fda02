"""What counts as a name looked up at run time: the ways an answer can reach a function
without writing its name, which the scan (``forbidden``) cannot follow.

Where a question forbids helpers, an answer that uses one of these is flagged ``DYNAMIC``
with a fixed reason (``DYNAMIC_WHY``).  The lists are what red teams found, not a proof:
Python has more.  They are of a few kinds: builtins that evaluate a string, resolvers of
dotted names, modules that rebuild objects from bytes or run code given as text, a relative
import in a notebook that set its own ``__package__``, IPython's output history.
"""
from __future__ import annotations

import ast
import re

DYNAMIC = "a name looked up at run time (getattr, globals(), eval and the like)"

#: Why such an answer is flagged, in every message that names the flag.
DYNAMIC_WHY = ("the grader cannot tell what this reaches: call your own code by its name, use "
               "the arguments your function is given rather than the notebook's variables, "
               "and read a column or a row's field by its name with [name] (table[name], or "
               "row[name] over table.iterrows()), not getattr(table, name) or getattr(row, "
               "name)")

#: Built-in names and attributes that reach a function without writing its name.
DYNAMIC_NAMES = {"__import__", "eval", "exec", "globals", "vars", "locals", "import_module",
                  "attrgetter", "methodcaller", "__builtins__", "getmembers", "run_module",
                  "run_path",
                  # logging.config's and pkgutil's resolvers of a dotted name (red team 5)
                  "BaseConfigurator", "DictConfigurator", "_resolve", "resolve_name",
                  # scikit-learn's registries hand out its classes by name (student 23)
                  "all_estimators", "all_functions", "all_displays",
                  # importers of a dotted name (traitlets, IPython, dask, werkzeug) and a
                  # function made from compiled code (red team 8)
                  "import_item", "import_required", "import_string", "load_object",
                  "FunctionType", "CodeType"}

#: Builtins that look names up or make code from text, read only as bare names (``re.compile``
#: is a regular expression).
DYNAMIC_BUILTINS = DYNAMIC_NAMES | {"compile"}
DYNAMIC_ATTRIBUTES = DYNAMIC_NAMES | {
    "__dict__", "__getattribute__", "__getattr__", "getattr_static", "exec_module",
    "load_module", "__globals__", "__closure__", "cell_contents", "__subclasses__",
    "_getframe", "currentframe", "f_locals", "f_globals", "f_back", "get_objects",
    "get_referrers", "get_referents", "locate", "get_type_hints", "get_field", "__defaults__",
    "__kwdefaults__",
    # a patch's target is a dotted name it resolves (red team 7); IPython's shell runs code
    # and reads the notebook's names by string
    "get_original", "ev", "ex", "run_cell", "run_line_magic", "run_cell_magic", "user_ns",
    "user_global_ns", "safe_execfile", "safe_run_module", "find_line_magic",
    "find_cell_magic", "find_magic", "magics_manager", "co_consts", "co_code"}
#: Modules that rebuild or find an object from data, not from a name in the code
#: (``pickle.loads(b"cnbcourse\nGaussianNB\n.")``): an answer that uses one is flagged.
DYNAMIC_MODULES = {"pickle", "_pickle", "cPickle", "marshal", "copyreg", "dill", "cloudpickle",
                    "joblib", "shelve", "importlib", "pkgutil", "runpy", "inspect", "gc",
                    "ctypes", "pydoc",
                    # a patcher resolves dotted names; multiprocessing's pickler rebuilds
                    # objects from bytes (red team 7); these run code given as a string
                    "unittest", "mock", "multiprocessing", "concurrent", "code", "codeop",
                    "timeit", "doctest", "trace", "cProfile", "profile", "pdb", "bdb"}


def dynamic_read(child: ast.AST, literal: dict[str, set[str]] | None = None) -> str | set | None:
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
        if child.attr in DYNAMIC_ATTRIBUTES:
            return DYNAMIC
        if child.attr == "modules" and isinstance(child.value, ast.Name) \
                and child.value.id == "sys":
            return DYNAMIC
    return None


def relative_import(node: ast.AST) -> bool:
    """Whether ``node`` is a relative import: a notebook has no package, so one resolves
    only against a ``__package__`` the notebook set itself (``__package__ = "sklearn"``,
    then ``from .metrics import *``, red team 7): what it reaches is not in the code."""
    return isinstance(node, ast.ImportFrom) and node.level > 0


def matched_attributes(node: ast.AST) -> set[str]:
    """The attributes a ``match`` statement's class patterns read from what they match
    (``case object(accuracy=f)`` reads ``.accuracy``, red team 7)."""
    return {attribute for child in ast.walk(node) if isinstance(child, ast.MatchClass)
            for attribute in child.kwd_attrs}


def private_elsewhere(path: str) -> bool:
    """Whether a dotted path goes through a private module of another package
    (``scipy.integrate._tanhsinh``, whose ``special`` is ``scipy.special``, student 23):
    what a private module imports is not in its name, so where an exercise forbids another
    package's module, reaching into one is a lookup the scan cannot read."""
    parts = path.split(".")
    return parts[0] != "nbcourse" and any(
        part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
        for part in parts[1:])


def output_history(name: str) -> bool:
    """Whether a name is IPython's output history (``_``, ``Out[3]``, ``_3``): it holds
    whatever a cell displayed, an object the code does not name (red team 9)."""
    return name in {"_", "__", "___", "Out", "_oh"} or bool(re.fullmatch(r"_\d+", name))
