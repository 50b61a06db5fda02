"""Write docs/api.md, the one-page API reference of nbcourse, from the docstrings.

    python docs/make_api.py           # rewrite docs/api.md
    python docs/make_api.py --check   # exit 1 if docs/api.md is not what the code says

Every public module is listed with what its ``__all__`` exports: the signature and the
first paragraph of the docstring of each function and class, and the public methods of
each class. The full docstrings are one ``help()`` away. A test
(tests/test_docs.py) runs ``--check``, so the page cannot drift from the code.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parent / "api.md"

#: The public modules, in the order a student meets them.
MODULES = (
    "nbcourse", "nbcourse.naive_bayes", "nbcourse.smoothing", "nbcourse.mle",
    "nbcourse.linear", "nbcourse.text", "nbcourse.zipf", "nbcourse.evaluation",
    "nbcourse.smoothing_strength",
    "nbcourse.calibration", "nbcourse.pipeline", "nbcourse.adversary", "nbcourse.datasets",
    "nbcourse.plotting", "nbcourse.widgets", "nbcourse.scale", "nbcourse.grading", "nbcourse.cli",
)


def _docstring(obj) -> str:
    """The first paragraph of ``obj``'s docstring: what it is for, in a few lines."""
    if not obj.__doc__:
        return "*(no docstring)*"
    return inspect.cleandoc(obj.__doc__).split("\n\n")[0]


def _signature(obj) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"


def _quote(text: str) -> str:
    """A docstring as a Markdown block quote: its own line breaks are kept."""
    return "\n".join(("> " + line).rstrip() + "  " if line.strip() else ">"
                     for line in text.splitlines()).rstrip()


def _class_section(name: str, cls) -> list[str]:
    lines = [f"### class `{name}{_signature(cls)}`", "", _quote(_docstring(cls)), ""]
    seen = set()
    for klass in cls.__mro__:  # its own methods, then those it inherits from nbcourse
        if not klass.__module__.startswith("nbcourse"):
            continue
        for attr, member in vars(klass).items():
            if attr.startswith("_") or attr in seen or not callable(member) or not member.__doc__:
                continue
            seen.add(attr)
            lines += [f"- `{attr}{_signature(member)}`: " + _docstring(member).replace("\n", " ")]
    return lines + [""]


def _member_section(name: str, obj) -> list[str]:
    if inspect.isclass(obj):
        return _class_section(name, obj)
    if callable(obj):
        return [f"### `{name}{_signature(obj)}`", "", _quote(_docstring(obj)), ""]
    return [f"### `{name}`", "", f"`{obj!r}`", ""]


def module_section(module_name: str) -> list[str]:
    module = importlib.import_module(module_name)
    lines = [f"## `{module_name}`", "", _quote(_docstring(module)), ""]
    for name in module.__all__:
        if name.startswith("__"):
            continue
        obj = getattr(module, name)
        home = getattr(obj, "__module__", module_name)
        if module_name == "nbcourse" or (home != module_name and not home.startswith(module_name + ".")):
            # Re-exported from another module: point there instead of repeating it.
            lines += [f"- `{name}`: see `{home}`" if home != module_name else f"- `{name}`"]
            continue
        lines += _member_section(name, obj)
    if lines[-1] != "":
        lines.append("")
    return lines


def render() -> str:
    lines = ["# nbcourse API reference", "",
             "Generated from the docstrings by `python docs/make_api.py`; do not edit by hand.",
             ""]
    for module_name in MODULES:
        lines += module_section(module_name)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 (and write nothing) if docs/api.md is out of date")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE} is out of date: run python docs/make_api.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
