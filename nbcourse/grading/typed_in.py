"""Spot a value typed in where the exercise asks to compute it (``Question.computed``).

``typed_in`` reads the cell that last assigns a graded name, with ``ast`` (nothing is
executed): a value that is all numbers, or an expression that hides one, counts as typed
in.  ``forbidden.flagged_answers`` flags such an answer ``TYPED_IN``, in the place of a
forbidden name, and ``check()`` warns about it the same way.
"""
from __future__ import annotations

import ast
import copy
from typing import Iterable

from .name_scopes import cell_trees, stored_names, walk_scope


#: What a value typed in is flagged as, in the place of a forbidden name.
TYPED_IN = "a number typed in"

#: Calls whose number arguments are results, not inputs: a long bound given to one of
#: these (``max(p, 66 / 67)``) is the answer typed in, whatever the other argument computed;
#: a short one (``min(x, 0.5)``, ``max(lost, 10)``) is left to the swaps.
_CLAMPS = {"max", "min", "maximum", "minimum", "fmax", "fmin"}


def _called_name(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else None


#: Calls that turn a typed number into another kind of number, not a computation.
_NUMBER_TYPES = {"Fraction", "float", "int", "Decimal", "float64", "float32", "int64", "round"}


def _constant(node: ast.AST) -> bool:
    """Whether an expression is a number typed in: number literals, arithmetic on them,
    and calls such as ``Fraction(486, 611)``, ``np.float64(1.0)`` or ``Decimal("0.795")``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand)
    if isinstance(node, ast.BinOp):
        return _constant(node.left) and _constant(node.right)
    if isinstance(node, ast.Call):
        return _called_name(node) in _NUMBER_TYPES and not node.keywords and bool(node.args) and all(
            _constant(arg) or (isinstance(arg, ast.Constant) and isinstance(arg.value, str))
            for arg in node.args)
    return False


def _numeric_text(node: ast.AST) -> bool:
    """Whether a node is a string (or bytes) literal that reads as a number: ``"0.985"``,
    ``"0x1.c28f5c28f5c29p-1"`` (red team 7: ``float(p_text)``, ``json.loads("0.88")``)."""
    if not isinstance(node, ast.Constant) or not isinstance(node.value, (str, bytes)):
        return False
    text = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
    words = text.replace(",", " ").split()  # ``"66 1 9".split()`` too (student 24)
    return bool(words) and all(_reads_as_number(word) for word in words)


def _has_numeric_text(node: ast.AST) -> bool:
    """Whether numbers written as text are in an expression (``map(int, "66 1 9".split())``)."""
    return any(_numeric_text(child) for child in ast.walk(node))


def _reads_as_number(word: str) -> bool:
    """A word with a digit that float(), int(word, 0) or, after ``0x``, float.fromhex
    reads (not ``"nan"``, nor ``"cafe"`` as hex)."""
    if not any(c.isdigit() for c in word):
        return False
    hexadecimal = word.lstrip("+-").lower().startswith("0x")
    for read in (float, lambda t: int(t, 0)) + ((float.fromhex,) if hexadecimal else ()):
        try:
            read(word)
            return True
        except (ValueError, OverflowError):
            continue
    return False


def typed_in(sources: Iterable, name: str) -> bool:
    """Whether the last notebook-level assignment of ``name`` (the one whose value is
    graded) is a number typed in, where the exercise asks to compute it.

    Flagged: a value that is all numbers (``p_no = Fraction(486, 611)``, ``agreement =
    1.0``), numbers and calls alone (``np.log(10 / 778)``), or an expression that hides one (``_hides_a_number``): a branch of ``... if
    ... else ...`` that is a number other than 0 or ±1, a term multiplied by 0, a number
    of four significant digits or more, or a fixed item of a list of numbers
    (``alphas[3]``).  Names the notebook sets to a number once count as that number, and so
    do names set to a number written as text, and text that reads as a number handed to
    any function (``json.loads("0.88")``)."""
    trees = cell_trees(sources)
    last, at, numbers, lists, dicts = None, None, {}, set(), {}
    # the notebook's variables: a method called on one (``hits.sum()``) reads data
    # (red team 8), where ``np.log(...)`` calls a function
    data = {name for tree in trees for node in walk_scope(tree)
            for _, targets, _ in _bindings(node) for target in targets
            for name in stored_names(target)}
    for index, tree in enumerate(trees):
        bindings = [binding for node in walk_scope(tree) for binding in _bindings(node)]
        for node, targets, value in sorted(bindings, key=lambda b: (b[0].lineno,
                                                                    b[0].col_offset)):
            if any(isinstance(target, ast.Name) and target.id == name or
                   isinstance(target, (ast.Tuple, ast.List)) and name in stored_names(target)
                   for target in targets):
                last, at = (node, targets, value), (index, node.lineno, node.col_offset)
            _note_constants(node, targets, value, numbers, lists, dicts, data)
    if last is None or isinstance(last[0], ast.AugAssign):
        return False
    if _numbers_stored_into(trees, name, at):
        return True
    _, targets, assigned = last
    for changed in _changed_in_place(trees) & set(dicts):
        del dicts[changed]
    for name_changed in _global_in_functions(trees):  # counted up in a function (red team 8)
        numbers.pop(name_changed, None)
        dicts.pop(name_changed, None)
        lists.discard(name_changed)
    numbers.update(_constant_functions(trees))  # ``def notes(): return 1.38`` (student 21)
    values = [_Substitute(numbers, dicts).visit(copy.deepcopy(value)) for target in targets
              for value in _values_for(target, assigned, name)]
    return any(_constant(value) or _closed(value, data) or _hides_a_number(value, lists)
               for value in values)


def _global_in_functions(trees) -> set[str]:
    """The names a function declares ``global``: what it does to them is not read here."""
    return {name for tree in trees for node in ast.walk(tree) if isinstance(node, ast.Global)
            for name in node.names}


def _closed(expression: ast.AST, data: set[str] = frozenset()) -> bool:
    """Whether an expression is numbers and calls alone, with no data in it
    (``float(np.log(10 / 778) - np.log(3 / 932))``, student 13): every name it holds is
    a function it calls, so what it computes was typed in."""
    # the function a call names: a dotted path (``np.log``) whole; of a method called on a
    # value (``(a == b).mean()``), the value is data (student 21)
    called = {id(part) for node in ast.walk(expression) if isinstance(node, ast.Call)
              for part in (ast.walk(node.func) if _dotted(node.func, data) else [node.func])}
    # a variable the expression binds itself is no data (``sum(1 for _ in range(66))``,
    # red team 5); its reads are not either
    own = {name for node in ast.walk(expression)
           if isinstance(node, (ast.comprehension, ast.NamedExpr))
           for name in stored_names(node.target)}
    numbers = False
    for node in ast.walk(expression):
        if isinstance(node, ast.Name) and (node.id in own or node.id in _NUMBER_TYPES):
            continue  # ``map(int, ...)``: a number type handed on is no data either
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) and id(node) not in called:
            return False
        numbers |= isinstance(node, ast.Constant) and type(node.value) in (int, float) \
            or _numeric_text(node)
    return numbers


def _dotted(node: ast.AST, data: set[str] = frozenset()) -> bool:
    """Whether a node is a name or a chain of attributes on one (``np.linalg.norm``) that
    is not one of the notebook's variables (``data``)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id not in data


def _numbers_stored_into(trees, name: str, after: tuple) -> bool:
    """Whether, after its last assignment (``after``: the cell's index, line, column), a
    number is typed into the graded value's items (``p_ham_documents["a"] = 0.0`` over a
    computed dict: student 9)."""
    for index, tree in enumerate(trees):
        for node in walk_scope(tree):
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None or \
                    (index, node.lineno, node.col_offset) <= after:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if _constant(node.value) and any(isinstance(t, ast.Subscript) and
                                             getattr(t.value, "id", None) == name and
                                             isinstance(t.slice, ast.Constant)
                                             for t in targets):
                return True  # (a key in a variable, d[k] = 0 in a loop, is a computation)
    return False


def _bindings(node: ast.AST) -> list[tuple[ast.AST, list, ast.AST]]:
    """(node, targets, value) for each binding one notebook-level node makes: ``=`` and
    its annotated and augmented forms, ``:=``, ``with ... as`` (the context's expression)
    and ``for`` (what it loops over, or the one item of a literal list) (red team 6:
    ``for p, r in [(66 / 67, 66 / 75)]: pass``)."""
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
        return [(node, node.targets if isinstance(node, ast.Assign) else [node.target],
                 node.value)]
    if isinstance(node, ast.NamedExpr):
        return [(node, [node.target], node.value)]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [(node, [item.optional_vars], item.context_expr) for item in node.items
                if item.optional_vars is not None]
    if isinstance(node, (ast.For, ast.AsyncFor)):  # a loop over data binds what it computes
        one = isinstance(node.iter, (ast.List, ast.Tuple)) and len(node.iter.elts) == 1
        return [(node, [node.target], node.iter.elts[0] if one else node.iter)]
    return []


def _constant_functions(trees) -> dict[str, ast.AST]:
    """{name: the call ``name()`` as a constant} for the notebook's functions that take
    nothing and return a number typed in (``def from_my_notes(): return 1.3845...``)."""
    found = {}
    for tree in trees:
        for node in tree.body:
            returns = [n.value for n in ast.walk(node) if isinstance(n, ast.Return)] \
                if isinstance(node, ast.FunctionDef) and not node.args.args else []
            if returns and all(r is not None and _constant(r) for r in returns):
                found[node.name] = returns[-1]
    return found


def _note_constants(node, targets, value, numbers: dict, lists: set, dicts: dict,
                    data: set[str] = frozenset()) -> None:
    """Record ``x = 0.795`` (a name set to a number), ``alphas = [0.1, 0.3]`` (a name
    set to a list of numbers) and ``counts = {"tp": 66}`` (a name set to a dict of
    numbers, student 20), also when unpacked (``num, den = 486, 611``); a name set twice
    to something else is dropped."""
    for target, value in _pairs(targets, value):
        items = _literal_items(value)
        if not isinstance(node, ast.AugAssign) and items and all(map(_constant, items.values())):
            dicts[target.id] = items
        else:
            dicts.pop(target.id, None)
        if not isinstance(node, ast.AugAssign) and (_constant(value) or _numeric_text(value) or
                                                    _closed(value, data) and
                                                    _has_numeric_text(value)):
            numbers[target.id] = value  # a number as text too: ``float(p_text)``
        else:
            numbers.pop(target.id, None)
        if isinstance(value, (ast.List, ast.Tuple)) and value.elts \
                and all(_constant(item) for item in value.elts):
            lists.add(target.id)
        else:
            lists.discard(target.id)


def _pairs(targets, value) -> list[tuple[ast.Name, ast.AST]]:
    """(name, the expression it is bound to) for each name ``targets`` bind, a tuple
    unpacked item by item where the value is a tuple or list of the same length (else
    the name is bound to something unknown: the whole value)."""
    pairs = []
    for target in targets:
        if isinstance(target, ast.Name):
            pairs.append((target, value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value.elts if isinstance(value, (ast.Tuple, ast.List)) and \
                len(value.elts) == len(target.elts) and not any(
                    isinstance(e, ast.Starred) for e in [*value.elts, *target.elts]) else None
            for index, element in enumerate(target.elts):
                element = element.value if isinstance(element, ast.Starred) else element
                pairs += _pairs([element], items[index] if items else value)
    return pairs


def _changed_in_place(trees) -> set[str]:
    """Names whose object code may change without assigning the name: an item stored or
    deleted (``counts["tp"] += 1``), a method called (``counts.update(...)``), handed to
    a call, or a loop's target.  A dict of numbers is read as typed in only if none of
    that happens to it anywhere."""
    changed = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
                changed.add(getattr(node.value, "id", None))
            elif isinstance(node, ast.Attribute):
                changed.add(getattr(node.value, "id", None))
            elif isinstance(node, ast.Call):
                changed.update(getattr(arg, "id", None) for arg in
                               [*node.args, *(k.value for k in node.keywords)])
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                changed.update(stored_names(node.target))
    return changed


def _literal_items(value: ast.AST) -> dict:
    """{key: value expression} of a dict written out: ``{"tp": 66}`` or ``dict(tp=66)``."""
    if isinstance(value, ast.Dict) and value.keys and all(isinstance(k, ast.Constant)
                                                          for k in value.keys):
        return {k.value: v for k, v in zip(value.keys, value.values)}
    if isinstance(value, ast.Call) and getattr(value.func, "id", None) == "dict" \
            and not value.args and value.keywords and all(k.arg for k in value.keywords):
        return {k.arg: k.value for k in value.keywords}
    return {}


class _Substitute(ast.NodeTransformer):
    """Put a name's number in place of the name (``v = 0.795; p_no = v if s else 0``),
    and a dict's number in place of its item (``counts["tp"]``)."""

    def __init__(self, numbers: dict, dicts: dict | None = None):
        self.numbers = numbers
        self.dicts = dicts or {}

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and not node.args and not node.keywords \
                and node.func.id in self.numbers:
            return copy.deepcopy(self.numbers[node.func.id])
        return self.generic_visit(node)

    def visit_Subscript(self, node):
        if isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
                and isinstance(node.slice, ast.Constant) \
                and node.slice.value in self.dicts.get(node.value.id, {}):
            return copy.deepcopy(self.dicts[node.value.id][node.slice.value])
        return self.generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.numbers:
            return copy.deepcopy(self.numbers[node.id])
        return node


def _number(node: ast.AST):
    """The value of a constant expression (``_constant``) as a float, or None."""
    try:
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = _number(node.operand)
            return None if value is None else (-value if isinstance(node.op, ast.USub) else value)
        if isinstance(node, ast.BinOp):
            left, right = _number(node.left), _number(node.right)
            operators = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                         ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}
            apply = operators.get(type(node.op))
            return None if None in (left, right) or apply is None else apply(left, right)
        if isinstance(node, ast.Call) and node.args:
            parts = [_number(arg) if not isinstance(arg, ast.Constant) else float(arg.value)
                     for arg in node.args]
            if None in parts:
                return None
            name = node.func.id if isinstance(node.func, ast.Name) else \
                getattr(node.func, "attr", "")
            if name == "Fraction" and len(parts) == 2:
                return parts[0] / parts[1]
            return round(parts[0], int(parts[1])) if name == "round" and len(parts) == 2 \
                else parts[0]
    except (ArithmeticError, ValueError, TypeError, OverflowError):
        return None
    return None


def _long(node: ast.AST) -> bool:
    """A number of four significant digits or more (``0.7954...``, ``Fraction(486,
    611)``): one nobody writes in a computation, only copies from a result."""
    value = _number(node)
    if value is None or value != value or value in (float("inf"), float("-inf")):
        return False
    digits = f"{abs(value):.12e}".split("e")[0].replace(".", "").rstrip("0")
    return len(digits) >= 4


def _trivial(node: ast.AST) -> bool:
    """0, ±1, or no number at all (``float("nan")``, infinity: red team 8)."""
    value = _number(node)
    return value in (0.0, 1.0, -1.0) or value is not None and (
        value != value or value in (float("inf"), float("-inf")))


def _hides_a_number(expression: ast.AST, lists: set) -> bool:
    """Whether a computed-looking expression carries a typed number (see ``typed_in``).
    A long number given to a function (``spam_experiment(..., seed=12345)``) is an input
    of the computation, not its result, and an index (``w[1234]``) is a position."""
    todo = [(expression, False)]
    while todo:
        node, an_input = todo.pop()
        if _constant(node):
            if _long(node) and not an_input:
                return True
            continue  # its parts are numbers too
        if isinstance(node, ast.IfExp):
            branches = [node.body, node.orelse]
            parts = [item for branch in branches for item in
                     (branch.elts if isinstance(branch, (ast.Tuple, ast.List)) else [branch])]
            if any(_constant(part) and not _trivial(part) for part in parts):
                return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and any(
                _constant(side) and _number(side) == 0.0 for side in (node.left, node.right)):
            return True  # a term multiplied by zero: what is added to it is the answer
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Name) and node.value.id in lists \
                    and _constant(node.slice):
                return True
            todo.append((node.value, an_input))
            continue
        if isinstance(node, ast.Call):
            if _called_name(node) in _CLAMPS and any(  # not a guard: ``max(n, 1e-12)``,
                    _constant(arg) and _long(arg) for arg in node.args):  # ``min(x, 0.5)``
                return True  # ``max(computed, 66 / 67)``: the bound is the answer (student 24)
            todo.append((node.func, an_input))
            todo.extend((arg, True) for arg in node.args + [k.value for k in node.keywords])
            continue
        todo.extend((child, an_input) for child in ast.iter_child_nodes(node))
    return False


def _values_for(target: ast.AST, value: ast.AST, name: str) -> list[ast.AST]:
    """The expressions ``name`` takes its value from in ``target = value``, pairing the
    items of a tuple assignment (``best_alpha, test_accuracy = 0.3, 0.98``)."""
    if isinstance(target, ast.Name):
        return [value] if target.id == name else []
    if isinstance(target, (ast.Tuple, ast.List)) and not isinstance(value, (ast.Tuple, ast.List)):
        # ``a, b = f() if c else (0.3, 0.98)``: the whole expression, read for hidden numbers
        return [value] if name in stored_names(target) and not _constant(value) else []
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts) \
            and not any(isinstance(e, ast.Starred) for e in target.elts + value.elts):
        return [found for item, part in zip(target.elts, value.elts)
                for found in _values_for(item, part, name)]
    return []
