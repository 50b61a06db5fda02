"""The shape of the package a reader learns from: short functions, short modules, and
imports that only look down (no two modules of ``nbcourse`` import each other, however
indirectly, even inside a function or through a package's ``__init__``), layer by layer:

- the **core library** is every module of ``nbcourse`` outside ``plotting``, ``widgets``,
  ``grading``, ``cli`` and ``__main__`` (the estimators, ``_checks``, ``_numerics``,
  ``_estimator``, ``_version``, ``smoothing``, ``smoothing_strength``, ``mle``, ``linear``,
  ``text``, ``evaluation``, ``adversary``, ``scale``, ``datasets``, ``resources`` and the package's
  ``__init__``); it imports none of those five;
- ``plotting`` draws what the core computes and imports neither ``widgets`` nor
  ``grading``;
- ``grading`` outside ``grading/execution/`` (the policy) imports neither ``plotting``
  nor ``widgets``, and ``grading/execution/`` imports nothing of the policy nor of the
  library (a module named in a string counts as imported; the kernel server's preloading
  is an exemption stated with its reason, ``EXECUTION_EXEMPTIONS``).

A program the grader runs (``python -c``) is a module's own source, never code held in a
string or handed to Python on stdin, so the rules above see it: every command that runs
Python is a literal list whose program is ``-m MODULE`` (one of nbcourse's own: another
may run code it is handed, as ``-m timeit -s CODE`` does) or ``-c SOURCE`` (an allow-list;
uses of the interpreter that start nothing are stated with their reasons,
``PYTHON_EXEMPTIONS``); Python built as text for another reason is an exemption stated
with its reason (``CODE_IN_STRINGS``); the
exercises' specs (``*.grading.py``) are held to the same function length, their file
length exempt (see ``SPECS``).

Read from the source with ``ast``, never by importing it. A failure lists every offender,
one per line, grouped by folder (``grading/execution/`` on its own lines), so whoever owns
that folder sees their part.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from course_paths import REPO

PACKAGE = REPO / "nbcourse"
MAX_FUNCTION_LINES = 60  # from `def` to the last line of the body, docstring included
MAX_MODULE_LINES = 600


def _modules() -> dict[str, Path]:
    """{dotted name: file} for every module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()
AREAS = sorted({path.parent.relative_to(REPO).as_posix() for path in MODULES.values()})


def _where(path: Path) -> str:
    return path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)


def _file_offenders(path: Path, module_lines: int | None = MAX_MODULE_LINES) -> list[str]:
    """A function over ``MAX_FUNCTION_LINES`` in ``path``, or the file itself over
    ``module_lines`` (None: its length is not limited)."""
    found = []
    text = path.read_text(encoding="utf-8")
    where = _where(path)
    lines = len(text.splitlines())
    if module_lines is not None and lines > module_lines:
        found.append(f"{where}: module of {lines} lines")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{where}:{node.lineno}: {node.name} has {length} lines")
    return found


def _size_offenders(area: str) -> list[str]:
    return [offender for path in MODULES.values()
            if path.parent.relative_to(REPO).as_posix() == area
            for offender in _file_offenders(path)]


@pytest.mark.parametrize("area", AREAS)
def test_no_function_over_60_lines_and_no_module_over_600(area):
    offenders = _size_offenders(area)
    assert not offenders, (f"in {area}/ (at most {MAX_FUNCTION_LINES} lines a function, "
                           f"{MAX_MODULE_LINES} a module):\n  " + "\n  ".join(offenders))


def test_the_size_check_sees_a_long_function(tmp_path):
    """The check above would catch what it is for (it reads every def, nested ones too)."""
    body = "\n".join(f"        x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    tree = ast.parse(f"class A:\n    def long(self):\n{body}\n")
    lengths = [n.end_lineno - n.lineno + 1 for n in ast.walk(tree)
               if isinstance(n, ast.FunctionDef)]
    assert lengths == [MAX_FUNCTION_LINES + 1]


def _file_named(node: ast.AST) -> str | None:
    """``X`` for ``Path(X.__file__)``, ``""`` for ``Path(__file__)``, None otherwise."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "Path" and len(node.args) == 1 and not node.keywords):
        return None
    arg = node.args[0]
    if isinstance(arg, ast.Name) and arg.id == "__file__":
        return ""
    if (isinstance(arg, ast.Attribute) and arg.attr == "__file__"
            and isinstance(arg.value, ast.Name)):
        return arg.value.id
    return None


def _imported_modules(name: str, path: Path, tree: ast.AST, modules: dict[str, Path]
                      ) -> dict[str, str]:
    """{local name: dotted name} of each module of ``modules`` that ``name`` imports by
    name (``from . import kernel_server``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _import_base(package, node)
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    found[alias.asname or alias.name] = f"{base}.{alias.name}"
    return found


def _module_source(node: ast.AST, path: Path, imported: dict[str, str],
                   modules: dict[str, Path]) -> bool:
    """Whether ``node`` reads the text of a ``.py`` module listed in ``modules`` (which
    this file measures as that module): ``Path(<module>.__file__).read_text(...)`` of a
    module imported by name, ``Path(__file__).read_text(...)``, or
    ``Path(__file__).with_name("<sibling>.py").read_text(...)``.  Any other file (a shell
    script next to it, a data file) is code this file cannot see."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "read_text"):
        return False
    target, read = node.func.value, None
    if (isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute)
            and target.func.attr == "with_name" and len(target.args) == 1
            and isinstance(target.args[0], ast.Constant) and isinstance(target.args[0].value, str)
            and _file_named(target.func.value) == ""):
        read = path.with_name(target.args[0].value)
    elif _file_named(target) == "":
        read = path
    elif _file_named(target):
        read = modules.get(imported.get(_file_named(target), ""))
    return read is not None and read.suffix == ".py" and read in modules.values()


def _code_flag(node: ast.AST) -> bool:
    """``"-c"``, alone or ending a cluster of short options (``"-ec"``, ``"-Ic"``): the
    next word is a program's code, for Python as for a shell."""
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)
            and len(node.value) > 1 and node.value[0] == "-" and node.value[1] != "-"
            and node.value[1:].isalpha() and node.value.endswith("c"))


#: a python found by name: ``python``, ``python3``, ``python3.12``, ``/usr/bin/python3``
PYTHON_NAME = re.compile(r"(?:.*/)?python[0-9.]*")
#: what may stand between the interpreter and its program: options that change how it
#: starts, none that gives it code
PYTHON_OPTIONS = {"-I", "-S", "-E", "-s", "-B", "-u", "-O", "-OO"}
DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
NO_PROGRAM = "(no -m MODULE or -c SOURCE: a program on stdin)"
NOT_ALLOWED = "(not -m MODULE or -c SOURCE)"

#: Uses of the interpreter outside a command the allow-list reads, by (module, the
#: top-level name that holds them): why each runs no code of its own.
PYTHON_EXEMPTIONS = {
    ("nbcourse.grading.execution.runner", "_kernel_spec_manager"):
        "jupyter_client's kernel spec must hold an argv; the grader's provisioner drops its "
        "first word and hands only the options to the kernel server, which forks the kernel "
        "from itself: this python is never started",
    ("nbcourse.grading.execution.sandbox", "_python_paths"):
        "reads where the interpreter lives, to mount its folder read-only in the sandbox; "
        "it starts nothing",
    ("nbcourse.grading.execution.sandbox", "kernel_environment"):
        "puts the interpreter's folder first on the kernel's PATH; it starts nothing",
}


#: a process's own program: ``/proc/self/exe``, ``/proc/thread-self/exe``, ``/proc/123/exe``,
#: or its last part alone (``"/proc/self/" + "exe"``, review 7)
OWN_PROGRAM = re.compile(r"(?:.*/)?exe/*")


def _python_word(node: ast.AST) -> bool:
    """A python named in a string: by its name, or as the running process's own
    program (``/proc/self/exe``, review 5)."""
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)
            and (PYTHON_NAME.fullmatch(node.value) is not None
                 or OWN_PROGRAM.fullmatch(node.value) is not None))


def _interpreter(node: ast.AST, aliases: set[str]) -> bool:
    """``sys.executable`` (whatever ``sys`` is called here: any ``.executable``), the
    command line it was started with (any ``.orig_argv``: its first word is this python,
    however it is indexed), the process's own program (``"/proc/self/exe"``, any
    ``/proc/.../exe``), a name imported as one of them, or a python found by name
    (``shutil.which("python3")``).  Each must be the first word of a literal command, or
    the check reports it (review 6: ``os.readlink("/proc/self/exe")``,
    ``sys.orig_argv[-len(sys.orig_argv)]``)."""
    if isinstance(node, ast.Subscript):
        return (isinstance(node.value, ast.Attribute) and node.value.attr == "orig_argv"
                and isinstance(node.slice, ast.Constant) and node.slice.value == 0)
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and OWN_PROGRAM.fullmatch(node.value) is not None
    if isinstance(node, ast.Attribute):
        return node.attr in ("executable", "_base_executable", "orig_argv")
    if isinstance(node, ast.Name):
        return node.id in aliases
    return (isinstance(node, ast.Call) and ast.unparse(node.func).rpartition(".")[2] == "which"
            and bool(node.args) and _python_word(node.args[0]))


def _program_offender(python: ast.AST, rest: list[ast.AST], sources: set[str],
                      runnable: set[str]) -> str | None:
    """What is wrong with the words after the interpreter of a literal command: options
    from ``PYTHON_OPTIONS``, then ``-m`` one of nbcourse's own modules (``runnable``,
    named literally, or ``__name__``, the module itself) or ``-c`` a name bound to a
    module's source; None if nothing.  Any other module may run code it is handed
    (``-m timeit -s CODE``, ``-m cProfile -m ...``, a program on stdin)."""
    words = list(rest)
    options = []
    while words and isinstance(words[0], ast.Constant) and words[0].value in PYTHON_OPTIONS:
        options.append(words.pop(0).value)
    head = " ".join([ast.unparse(python)[:40], *options])
    if not words:
        return f"{head} {NO_PROGRAM}"
    flag, program = words[0], words[1] if len(words) > 1 else None
    if isinstance(flag, ast.Constant) and flag.value == "-m":
        if (isinstance(program, ast.Constant) and isinstance(program.value, str)
                and DOTTED_NAME.fullmatch(program.value)):
            return None if program.value in runnable else (
                f"-m {program.value[:40]} (not a module of nbcourse)")
        if isinstance(program, ast.Name) and program.id == "__name__":
            return None
        return f"-m {ast.unparse(program)[:40] if program else ''} (not a literal module name)"
    if isinstance(flag, ast.Constant) and flag.value == "-c":
        if program is None:
            return "-c (its code added later)"
        return None if isinstance(program, ast.Name) and program.id in sources else (
            f"-c {ast.unparse(program)[:40]}")
    return f"{head} {ast.unparse(flag)[:40]} {NOT_ALLOWED}"


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr)}


def _python_offenders(statement: ast.AST, sources: set[str], aliases: set[str],
                      docstrings: set[int], runnable: set[str]) -> list[tuple[int, str]]:
    """(line, what) for each way ``statement`` runs Python other than the allow-list's:
    every interpreter must be a word of a literal list or tuple followed by its program
    (``_program_offender``); one anywhere else (held in a name, joined into a string, an
    f-string's placeholder) and a whole command line in a string are reported."""
    found, in_lists = [], set()
    for node in ast.walk(statement):
        if isinstance(node, (ast.List, ast.Tuple)):
            for i, word in enumerate(node.elts):
                if _interpreter(word, aliases) or _python_word(word):
                    in_lists |= {id(part) for part in ast.walk(word)}  # sys.orig_argv[0]
                    what = _program_offender(word, node.elts[i + 1:], sources, runnable)
                    if what:
                        found.append((node.lineno, what))
    parts = {id(part) for node in ast.walk(statement) if isinstance(node, ast.JoinedStr)
             for part in node.values}  # an f-string is read whole (``_text``)
    for node in ast.walk(statement):
        text = None if id(node) in docstrings | parts else _text(node)
        if text and len(text.split()) > 1 and PYTHON_NAME.fullmatch(text.split()[0]):
            found.append((node.lineno, f"{text[:40]!r} (a command line in a string)"))
        elif _interpreter(node, aliases) and id(node) not in in_lists:
            found.append((node.lineno, f"{ast.unparse(node)[:40]} outside a literal command list"))
    return found


def _sys_aliases(tree: ast.AST) -> set[str]:
    """Names bound to the interpreter by ``from sys import executable [as name]``."""
    return {alias.asname or alias.name for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "sys"
            for alias in node.names if alias.name in ("executable", "_base_executable")}


def _python_commands(module: str, tree: ast.AST, sources: set[str], exemptions: dict,
                     runnable: set[str]) -> tuple[list[tuple[int, str]], set[tuple[str, str]]]:
    """(offenders, the exemptions that excused one) of a module's top-level statements;
    ``runnable``: the modules a command may run with ``-m``."""
    aliases, docstrings = _sys_aliases(tree), _docstrings(tree)
    found, used = [], set()
    for statement in tree.body:
        owner = getattr(statement, "name", None) or ast.unparse(
            getattr(statement, "targets", [statement])[0])[:40]
        offenders = _python_offenders(statement, sources, aliases, docstrings, runnable)
        if offenders and (module, owner) in exemptions:
            used.add((module, owner))
        else:
            found += offenders
    return found, used


def _command_offenders(tree: ast.AST, sources: set[str], aliases: set[str]
                       ) -> list[tuple[int, str]]:
    """(line, what) for each ``-c`` in a command of another program than Python (a shell)
    whose code is not one of ``sources``: followed by anything else, last in its list (the
    code added later), or added to a command by ``.append``/``.insert``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)):
            if any(_interpreter(word, aliases) or _python_word(word) for word in node.elts):
                continue  # Python's own commands: the allow-list above
            for flag, code in zip(node.elts, [*node.elts[1:], None]):
                if not _code_flag(flag):
                    continue
                if code is None:
                    found.append((node.lineno, f"{flag.value} (its code added later)"))
                elif not (isinstance(code, ast.Name) and code.id in sources):
                    found.append((node.lineno, f"{flag.value} {ast.unparse(code)[:40]}"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("append", "insert") and node.args
              and _code_flag(node.args[-1])):
            found.append((node.lineno, f".{node.func.attr}({node.args[-1].value!r})"))
    return found


def _module_sources(name: str, path: Path, tree: ast.AST, modules: dict[str, Path]) -> set[str]:
    """The module-level names bound to the source of a module in ``modules``."""
    imported = _imported_modules(name, path, tree, modules)
    return {target.id for node in tree.body if isinstance(node, ast.Assign)
            and _module_source(node.value, path, imported, modules)
            for target in node.targets if isinstance(target, ast.Name)}


def _programs_in_strings(modules: dict[str, Path], exemptions: dict | None = None) -> list[str]:
    """Where ``nbcourse`` runs Python other than as a literal command whose program is
    ``-m MODULE`` or ``-c SOURCE`` (SOURCE a name bound, at module level, to the source of
    a module in ``modules``), but for ``exemptions`` ({(module, top-level name): reason});
    or builds a shell's ``-c CODE``: code held in a string, or handed to Python on stdin,
    is invisible to the checks above, to linters and to coverage."""
    found = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        sources = _module_sources(name, path, tree, modules)
        python, _ = _python_commands(name, tree, sources, exemptions or {}, set(modules))
        found += [f"{_where(path)}:{line}: {what}"
                  for line, what in sorted(_command_offenders(tree, sources, _sys_aliases(tree))
                                           + python)]
    return found


def _python_uses_exempted(modules: dict[str, Path]) -> set[tuple[str, str]]:
    """The exemptions of ``PYTHON_EXEMPTIONS`` that excuse something today."""
    used = set()
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        sources = _module_sources(name, path, tree, modules)
        used |= _python_commands(name, tree, sources, PYTHON_EXEMPTIONS, set(modules))[1]
    return used


def test_no_program_is_held_in_a_string():
    """The kernel server, the self-test's probe, a root grader's staging of the sandbox's
    folders, the outputs stripper and the mounts check run as programs; each is a module
    of its own, given as its source (``python -c``) or run with ``python -m``, so the
    rules above measure it.  No shell script either (``sh -c``): the seccomp filter
    reached bwrap through one, and a root grader's staging mounts were one.  Python's
    commands are held to an allow-list (``_program_offender``), its exemptions stated
    with their reasons (``PYTHON_EXEMPTIONS``)."""
    assert _programs_in_strings(MODULES, PYTHON_EXEMPTIONS) == []  # make each a module, run as its source


def test_the_program_check_sees_code_in_a_string(tmp_path):
    real = tmp_path / "real.py"
    real.write_text("print('a module')\n", encoding="utf-8")
    (tmp_path / "setup.sh").write_text("echo a script\n", encoding="utf-8")
    held = tmp_path / "held.py"
    held.write_text('import sys\nfrom pathlib import Path\nfrom . import real\n'
                    'CODE = "import os"\nREAL = Path(real.__file__).read_text()\n'
                    'SIBLING = Path(__file__).with_name("real.py").read_text()\n'
                    'def run():\n    a = [sys.executable, "-c", CODE]\n'
                    '    b = [sys.executable, "-I", "-c", REAL, "x"]\n'
                    '    c = [sys.executable, "-c", "print(1)"]\n'
                    '    d = ["/bin/sh", "-c", f\'exec "$@" 9<{bpf}\', "x", *a]\n'
                    '    e = ("unshare", "--mount", "--", "sh", "-ec", " && ".join(b))\n'
                    '    f = [python, "-Ic", REAL, "--count", "-m", "json"]\n'
                    '    g = [sys.executable, "-c", SIBLING]\n', encoding="utf-8")
    modules = {"nbcourse.held": held, "nbcourse.real": real}
    found = _programs_in_strings(modules)
    assert [line.partition(": ")[2] for line in found] == [
        "-c CODE", "-c 'print(1)'", "-c f'exec \"$@\" 9<{bpf}'", "-ec ' && '.join(b)"]


NO_PROGRAM = "(no -m MODULE or -c SOURCE: a program on stdin)"
NOT_ALLOWED = "(not -m MODULE or -c SOURCE)"


@pytest.mark.parametrize("trick, flagged", [
    ('SETUP = Path(__file__).with_name("setup.sh").read_text()\n'
     'def run():\n    subprocess.run(["sh", "-c", SETUP])\n', "-c SETUP"),
    ('OTHER = Path(json.__file__).read_text()\n'
     'def run():\n    subprocess.run([sys.executable, "-c", OTHER])\n', "-c OTHER"),
    ('def run():\n    subprocess.run([sys.executable, "-I", "-"], stdin=handle)\n',
     f"sys.executable -I '-' {NOT_ALLOWED}"),
    ('def run():\n    subprocess.run([sys.executable, "-I"], input=CODE, text=True)\n',
     f"sys.executable -I {NO_PROGRAM}"),
    ('COMMAND = [sys.executable, "-I"]\n'
     'def run():\n    subprocess.run(COMMAND, input=CODE)\n', f"sys.executable -I {NO_PROGRAM}"),
    ('def run():\n    command = [sys.executable]\n    command.append("-c")\n'
     '    command.append(CODE)\n', [f"sys.executable {NO_PROGRAM}", ".append('-c')"]),
    ('def run():\n    subprocess.run([sys.executable, "-c"] + [CODE])\n',
     "-c (its code added later)"),
    # the allow-list (issue 36): each of these passed the deny-list it replaced
    ('def run():\n    p = subprocess.Popen([sys.executable, "-I"], stdin=subprocess.PIPE)\n'
     '    p.communicate(CODE)\n', f"sys.executable -I {NO_PROGRAM}"),
    ('def run():\n    subprocess.run([sys.executable, f"-c", CODE])\n',
     f"sys.executable f'-c' {NOT_ALLOWED}"),
    ('def run():\n    subprocess.run([sys.executable, "-" + "c", CODE])\n',
     f"sys.executable '-' + 'c' {NOT_ALLOWED}"),
    ('def run():\n    subprocess.run(shlex.split("python3 -c print(1)"))\n',
     "'python3 -c print(1)' (a command line in a string)"),
    ('def run():\n    subprocess.run(shlex.split(f"python3 -c {CODE}"))\n',
     "'python3 -c x' (a command line in a string)"),
    ('def run():\n    subprocess.run(f"{sys.executable} -c {CODE!r}", shell=True)\n',
     "sys.executable outside a literal command list"),
    ('PYTHON = shutil.which("python3")\n'
     'def run():\n    subprocess.run([PYTHON, "-m", "json.tool"])\n',
     "shutil.which('python3') outside a literal command list"),
    ('def run():\n    subprocess.run(["python3", "-I", "-"])\n', f"'python3' -I '-' {NOT_ALLOWED}"),
    ('def run(options):\n    subprocess.run([sys.executable, *options])\n',
     f"sys.executable *options {NOT_ALLOWED}"),
    ('def run(module):\n    subprocess.run([sys.executable, "-m", module])\n',
     "-m module (not a literal module name)"),
    # review 4, finding 4: any literal -m module passed, and some run code they are handed
    ('def run():\n    subprocess.run([sys.executable, "-m", "timeit", "-n", "1", "-s", CODE,'
     ' "pass"])\n', "-m timeit (not a module of nbcourse)"),
    ('def run():\n    subprocess.run([sys.executable, "-I", "-m", "cProfile", "-m", "this"])\n',
     "-m cProfile (not a module of nbcourse)"),
    ('def run():\n    subprocess.run([sys.executable, "-m", "anything"], input=CODE)\n',
     "-m anything (not a module of nbcourse)"),
    ('from sys import executable as python\n'
     'def run():\n    subprocess.run([python, "-u", "-c", CODE])\n', "-c CODE"),
    ('import sys as system\n'
     'def run():\n    subprocess.run([system.executable, "-"])\n',
     f"system.executable '-' {NOT_ALLOWED}"),
    # review 5, finding 3: python recognised by name only
    ('def run():\n    subprocess.run(["/proc/self/exe", "-m", "timeit", "-s", CODE, "pass"])\n',
     "-m timeit (not a module of nbcourse)"),
    ('def run():\n    subprocess.run([sys.orig_argv[0], "-"], input=CODE)\n',
     f"sys.orig_argv[0] '-' {NOT_ALLOWED}"),
    ('def run():\n    subprocess.run(["/proc/self/exe"], input=CODE)\n',
     f"'/proc/self/exe' {NO_PROGRAM}"),
    # review 6, finding 2: the same interpreter reached another way
    ('def run():\n    subprocess.run([os.readlink("/proc/self/exe"), "-m", "timeit", "-s", CODE,'
     ' "pass"])\n', "'/proc/self/exe' outside a literal command list"),
    ('def run():\n    subprocess.run([sys.orig_argv[-len(sys.orig_argv)], "-"], input=CODE)\n',
     ["sys.orig_argv outside a literal command list"] * 2),
    ('def run():\n    subprocess.run([os.path.realpath("/proc/thread-self/exe"), "-"])\n',
     "'/proc/thread-self/exe' outside a literal command list"),
    ('def run():\n    subprocess.run([os.readlink("/proc/self/" + "exe"), "-"])\n',
     "'exe' outside a literal command list"),
])
def test_the_program_check_sees_each_way_around_it(tmp_path, trick, flagged):
    """A shell script beside the module, a module outside the package, a program on
    stdin, a ``-c`` whose code is added later or whose flag is built, a command line in a
    string, and a python held in a name are all code this file cannot see: whatever runs
    Python must be a literal list whose program is ``-m MODULE`` or ``-c SOURCE``."""
    (tmp_path / "setup.sh").write_text("echo a script\n", encoding="utf-8")
    fake = tmp_path / "fake.py"
    fake.write_text("import json, os, shlex, shutil, subprocess, sys\nfrom pathlib import Path\n"
                    + trick, encoding="utf-8")
    found = _programs_in_strings({"nbcourse.fake": fake})
    assert [line.partition(": ")[2] for line in found] == (
        flagged if isinstance(flagged, list) else [flagged])


def test_the_program_check_lets_a_module_run_as_itself(tmp_path):
    """What the allow-list allows: options, then ``-m`` one of nbcourse's modules, named
    literally (or the module's own ``__name__``), or ``-c`` a module's source, then any
    arguments; and
    ``sys.executable`` where a stated exemption names the function."""
    real = tmp_path / "real.py"
    real.write_text("print('a module')\n", encoding="utf-8")
    fine = tmp_path / "fine.py"
    fine.write_text('import sys\nfrom pathlib import Path\nfrom . import real\n'
                    'REAL = Path(real.__file__).read_text()\n'
                    'def run(x):\n    a = [sys.executable, "-m", "nbcourse.real"]\n'
                    '    b = ("unshare", "--", sys.executable, "-I", "-S", "-c", REAL, "--", *x)\n'
                    '    c = [sys.executable, "-I", "-m", __name__, x]\n'
                    '    return {"name": "python3", "language": "python"}\n'
                    'def where():\n    return Path(sys.executable).parent\n', encoding="utf-8")
    modules = {"nbcourse.fine": fine, "nbcourse.real": real}
    assert [line.partition(": ")[2] for line in _programs_in_strings(modules)] == [
        "sys.executable outside a literal command list"]
    exempt = {("nbcourse.fine", "where"): "names the interpreter's folder; runs nothing"}
    assert _programs_in_strings(modules, exempt) == []


def test_every_python_exemption_is_used_and_reasoned():
    """An exemption from the allow-list says why, and one no longer needed is removed."""
    assert all(len(reason) > 40 for reason in PYTHON_EXEMPTIONS.values())
    assert sorted(_python_uses_exempted(MODULES)) == sorted(PYTHON_EXEMPTIONS)


#: Python code built as text on purpose, by (module, the top-level name that builds it):
#: why it cannot be a module of its own, given as its source.
CODE_IN_STRINGS = {
    ("nbcourse.grading.execution.replies", "install_expression"):
        "the probe must be defined in the student's kernel before any cell runs, and a "
        "kernel takes code only as the text of a request; the probe itself is a module "
        "(probe_source.py, measured here) sent as its source: the text built around it only "
        "names its class (chosen per kernel), registers it and runs it with Python's own "
        "builtins",
    ("nbcourse.grading.scaffold", "SPEC"):
        "a template `nbcourse new` writes into the instructor's new exercise; it runs only "
        "as that exercise's spec file, which the spec checks below measure",
    ("nbcourse.grading.scaffold", "_cells"):
        "the code cells of the new exercise's notebook, written as a file the instructor "
        "edits; they run only as that notebook, under nbval and the grader",
}


def _text(node: ast.AST) -> str | None:
    """A string literal's text, an f-string's with each placeholder as a name."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "x"
                       for part in node.values)
    return None


def _is_code(text: str) -> bool:
    """Whether ``text`` is Python that defines, imports or executes something."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef,
                                 ast.AsyncFunctionDef, ast.Lambda))
               or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                   and node.func.id in ("exec", "eval", "compile", "__import__"))
               for node in ast.walk(tree))


def _code_in_strings(modules: dict[str, Path]) -> dict[tuple[str, str], int]:
    """{(module, top-level name): first line} of each string (docstrings aside) that holds
    Python code: a program there is invisible to every check of this file."""
    found = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        for statement in tree.body:
            owner = getattr(statement, "name", None) or ast.unparse(
                getattr(statement, "targets", [statement])[0])[:40]
            for node in ast.walk(statement):
                text = None if id(node) in docstrings else _text(node)
                if text is not None and _is_code(text):
                    found.setdefault((name, owner), node.lineno)
    return found


def test_code_in_strings_is_only_where_stated():
    """Code the grader builds as text is an exemption stated with its reason
    (``CODE_IN_STRINGS``); one no longer needed is removed from the list."""
    found = _code_in_strings(MODULES)
    unstated = [f"{_where(MODULES[name])}:{line}: {owner}"
                for (name, owner), line in sorted(found.items())
                if (name, owner) not in CODE_IN_STRINGS]
    assert not unstated, "code in a string (make it a module):\n  " + "\n  ".join(unstated)
    assert sorted(CODE_IN_STRINGS) == sorted(found)  # no exemption left over


def test_the_code_in_strings_check_sees_a_program_built_in_an_f_string(tmp_path):
    fake = tmp_path / "fake.py"
    fake.write_text('"""A docstring: import os, def f(): pass."""\n'
                    'WORDS = "import this, then that"\n'
                    'def setup(name):\n    """import os"""\n'
                    '    return f"class {name}:\\n    pass\\nimport sys\\n"\n'
                    'def run(code):\n    return f"exec({code!r}, {{}})"\n', encoding="utf-8")
    assert sorted(_code_in_strings({"nbcourse.fake": fake})) == [
        ("nbcourse.fake", "run"), ("nbcourse.fake", "setup")]


#: The exercises' specs (``exercises/source/NN_name.grading.py``): code the grader runs.
#: Their functions are held to the same length; the file's length is not, because a spec
#: is one exercise's table of public and hidden cases, one file per exercise (the design's
#: "one spec per exercise"), and its length grows with the cases, not with its logic
#: (docs/where-things-live.md, "Shape").
SPECS = sorted((REPO / "exercises" / "source").glob("*.grading.py"))


@pytest.mark.parametrize("spec", SPECS, ids=lambda path: path.name)
def test_no_function_of_an_exercise_spec_over_60_lines(spec):
    offenders = _file_offenders(spec, module_lines=None)
    assert not offenders, (f"at most {MAX_FUNCTION_LINES} lines a function:\n  "
                           + "\n  ".join(offenders))


def test_the_specs_are_measured_and_their_exemption_stated(tmp_path):
    """The spec check reads every spec, would see a long function in one, and the
    module-length exemption is written where a maintainer reads the shape rules."""
    assert len(SPECS) >= 8
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    spec = tmp_path / "09_long.grading.py"
    spec.write_text("CASES = []\n" * 700 + f"def long():\n{body}\n", encoding="utf-8")
    assert [o.rpartition(": ")[2] for o in _file_offenders(spec, module_lines=None)] == [
        f"long has {MAX_FUNCTION_LINES + 1} lines"]
    shape = (REPO / "docs" / "where-things-live.md").read_text(encoding="utf-8")
    assert "`exercises/source/NN_name.grading.py`" in shape.split("## Shape", 1)[1]


def _import_base(package: str, node: ast.ImportFrom) -> str:
    """The dotted name a ``from ... import`` in ``package`` imports from."""
    base = node.module or ""
    if node.level:
        parent = package.split(".")
        parent = parent[: len(parent) - node.level + 1]
        base = ".".join(parent + ([node.module] if node.module else []))
    return base


def _imports(name: str, path: Path) -> set[str]:
    """The package's modules ``name`` imports anywhere in its file (a function's own
    ``import`` too: a cycle hidden in a function is still a cycle)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _import_base(package, node)
            # `from . import specs` imports a module; `from .specs import load` its parent
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:  # `import a.b.c` imports a.b.c's module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups = []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def _import_graph() -> dict[str, set[str]]:
    # Every edge counts, an import of an ancestor package too (``from . import x`` where
    # x is defined in the package's __init__): if that __init__ imports the module back,
    # however indirectly, importing either one first runs into a half-made module.
    return {name: _imports(name, path) for name, path in MODULES.items()}


def test_no_import_cycle_inside_nbcourse():
    cycles = _cycles(_import_graph())
    assert not cycles, "modules that import each other:\n  " + "\n  ".join(
        " <-> ".join(group) for group in cycles)


def test_the_cycle_check_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_the_import_graph_keeps_edges_to_ancestor_packages():
    """``resources`` reads the version lazily; reading it from ``nbcourse/__init__`` (which
    imports the data loaders, which import ``resources``) was a cycle through an ancestor."""
    graph = _import_graph()
    assert "nbcourse" in graph["nbcourse.cli"] or "nbcourse._version" in graph["nbcourse.cli"]
    assert "nbcourse._version" in graph["nbcourse.resources"]
    assert "nbcourse" not in graph["nbcourse.resources"]
    cycle = dict(graph, **{"nbcourse.resources": graph["nbcourse.resources"] | {"nbcourse"}})
    assert any("nbcourse.resources" in group for group in _cycles(cycle))


def test_the_import_graph_sees_relative_and_lazy_imports():
    graph = _import_graph()
    assert "nbcourse.grading.specs" in graph["nbcourse.grading.batch"]  # from . import specs
    assert "nbcourse.grading.execution.limits" in graph["nbcourse.grading.batch"]
    assert "nbcourse.grading.hidden" in graph["nbcourse.grading.validate"]  # in a function



EXECUTION = "nbcourse.grading.execution"


def _inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


#: Modules of the library that ``grading/execution/`` names, by a stated reason, though it
#: uses nothing of them ("module imports target": why).
EXECUTION_EXEMPTIONS = {
    f"{EXECUTION}.kernel_server imports {target}": (
        "the kernel server imports, by name, what a graded notebook imports first, so that "
        "every kernel it forks starts with it; the server itself calls nothing of it")
    for target in ("nbcourse", "nbcourse.datasets", "nbcourse.naive_bayes", "nbcourse.linear",
                   "nbcourse.text", "nbcourse.evaluation", "nbcourse.grading.selfcheck")}


def _named_modules(path: Path) -> set[str]:
    """Modules of the package named in a string (``__import__(name)`` imports them too)."""
    return {node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and node.value in MODULES}


def _policy_imports(modules: dict[str, Path]) -> list[str]:
    """Where a module of ``grading/execution/`` imports anything of ``nbcourse`` outside
    ``execution`` (the packages themselves included: ``from .. import x``), or names one
    in a string, but for the exemptions stated above."""
    found = []
    for name, path in modules.items():
        if _inside(name, EXECUTION):
            targets = _imports(name, path) | _named_modules(path)
            found += [edge for edge in (f"{name} imports {target}" for target in sorted(targets)
                                        if _inside(target, "nbcourse")
                                        and not _inside(target, EXECUTION))
                      if edge not in EXECUTION_EXEMPTIONS]
    return found


def test_execution_imports_nothing_of_grading_policy_or_the_library():
    """``grading/execution/`` runs a student's code and reports facts; what is judged, and
    how, lives in the rest of ``grading/``, which hands execution what it needs (the
    source scan, as a function; the course's folders, ``grading.course_folders``).  So
    execution imports nothing of it, nor of the library, but for the kernel server's
    preloading, an exemption stated with its reason (``EXECUTION_EXEMPTIONS``)."""
    offenders = _policy_imports(MODULES)
    assert not offenders, ("grading/execution/ must not import the rest of nbcourse (pass "
                           "what it needs in as a parameter):\n  " + "\n  ".join(offenders))


def test_the_layer_check_sees_relative_absolute_and_lazy_imports(tmp_path):
    fake = tmp_path / "fake_module.py"
    fake.write_text("from .. import forbidden\nfrom .. import check_for\n"
                    "from ..scoring import score\nfrom .limits import GradingLimits\n"
                    "import nbcourse\nfrom nbcourse import datasets\n"
                    "def later():\n    import nbcourse.grading.specs\n"
                    "PRELOADED = ('nbcourse.grading.scoring', 'nbcourse.text', 'numpy')\n",
                    encoding="utf-8")
    assert _policy_imports({f"{EXECUTION}.fake_module": fake}) == [
        f"{EXECUTION}.fake_module imports {target}"
        for target in ("nbcourse", "nbcourse.datasets", "nbcourse.grading",
                       "nbcourse.grading.forbidden", "nbcourse.grading.scoring",
                       "nbcourse.grading.specs", "nbcourse.text")]
    # the kernel server's preloading is seen, and passes only by its stated exemption
    server = MODULES[f"{EXECUTION}.kernel_server"]
    assert {"nbcourse", "nbcourse.datasets"} <= _named_modules(server)
    assert all(EXECUTION_EXEMPTIONS.values())


CORE_EXCLUDES = ("nbcourse.plotting", "nbcourse.widgets", "nbcourse.grading", "nbcourse.cli",
                 "nbcourse.__main__")
#: (who, what it must not import, stated exemptions as "module imports target")
LAYER_RULES = [
    ("the core library", lambda name: not any(_inside(name, top) for top in CORE_EXCLUDES),
     CORE_EXCLUDES),
    ("plotting", lambda name: _inside(name, "nbcourse.plotting"),
     ("nbcourse.widgets", "nbcourse.grading", "nbcourse.cli")),
    ("grading's policy", lambda name: _inside(name, "nbcourse.grading")
     and not _inside(name, EXECUTION), ("nbcourse.plotting", "nbcourse.widgets")),
]
#: imports the rules above allow by name, each with its reason (none today)
LAYER_EXEMPTIONS: dict[str, str] = {}


def _layer_offenders(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for layer, member, forbidden in LAYER_RULES:
        for name in sorted(n for n in graph if member(n)):
            for target in sorted(graph[name]):
                edge = f"{name} imports {target}"
                if any(_inside(target, top) for top in forbidden) \
                        and edge not in LAYER_EXEMPTIONS:
                    found.append(f"{layer}: {edge}")
    return found


def test_imports_go_down_the_layers():
    offenders = _layer_offenders(_import_graph())
    assert not offenders, ("an import from a lower layer to a higher one (see this file's "
                           "docstring for the layers):\n  " + "\n  ".join(offenders))


def test_the_layer_rules_see_an_import_upwards():
    graph = {"nbcourse.smoothing": {"nbcourse.plotting.beta"},
             "nbcourse.naive_bayes._base": {"nbcourse.grading.values"},
             "nbcourse.plotting.beta": {"nbcourse.widgets"},
             "nbcourse.grading.class_report": {"nbcourse.plotting._base"},
             "nbcourse.grading.execution.runner": {"nbcourse.smoothing"},
             "nbcourse.widgets": {"nbcourse.plotting", "nbcourse.evaluation"}}
    assert _layer_offenders(graph) == [
        "the core library: nbcourse.naive_bayes._base imports nbcourse.grading.values",
        "the core library: nbcourse.smoothing imports nbcourse.plotting.beta",
        "plotting: nbcourse.plotting.beta imports nbcourse.widgets",
        "grading's policy: nbcourse.grading.class_report imports nbcourse.plotting._base"]
