"""The worker's side of follow-through marking: the second reading of calling answers.

``grading/follow_through.py`` decides what to ask (``plan["follow_through"]``: each
calling answer, the names to replace, the solutions' source) and what the replies are
worth.  Here the runner asks, after every answer has been read the ordinary way: one
probe per calling answer, all its cases at once, in the plan's order.  A value is read
after the student's cell that assigns it runs again, with the earlier cells it reads
that used a replaced function (``w0, w = linear_weights(...)`` two cells before), each
without the statements that define a replaced name (so the student's own definition
does not undo the swap).

Nothing here can change an ordinary answer or the run's status: when a probe times
out or the kernel dies, the run's kernel outcome is put back as it was, the
follow-through probes left are not run, and the ordinary grade stands.
"""
from __future__ import annotations

import ast

from .cells import parse_cell
from .probe_source import INPUT_CHANGED
from .report import KernelOutcome

_DEFINES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SCOPES = _DEFINES + (ast.Lambda,)


def _bound(node: ast.AST) -> set[str]:
    """Names a top-level statement binds (outside functions and classes it defines)."""
    if isinstance(node, _DEFINES):
        return {node.name}
    names, todo = set(), [node]
    while todo:
        child = todo.pop()
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
            names.add(child.id)
        elif isinstance(child, ast.alias):
            names.add((child.asname or child.name).split(".")[0])
        elif isinstance(child, _SCOPES):
            if isinstance(child, _DEFINES):
                names.add(child.name)
            continue
        todo.extend(ast.iter_child_nodes(child))
    return names


def _loads(tree: ast.AST) -> set[str]:
    return {node.id for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def _binds(tree: ast.Module) -> set[str]:
    return set().union(set(), *(_bound(node) for node in tree.body))


class _NoAsserts(ast.NodeTransformer):
    """A cell's ``assert`` statements outside functions made ``pass``: a self-test of the
    student's function (``assert joint_scores(...) == ...``) or of a value checks the
    student's own code, and fails with the swap's deliberately different one; it binds
    nothing, so the value does not depend on it (student 25)."""

    def visit_Assert(self, node):
        return ast.copy_location(ast.Pass(), node)

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef


def _without(tree: ast.Module, replaced: list[str]) -> str:
    """The cell as source, without its top-level statements that bind a replaced name
    (so the student's own definition does not undo the swap), nor its asserts."""
    body = [_NoAsserts().visit(node) for node in tree.body if not _bound(node) & set(replaced)]
    return ast.unparse(ast.Module(body=body, type_ignores=[]))


def _handed_to(trees: list[ast.Module], functions: set[str]) -> set[str]:
    """The names whose objects ``trees`` hand to one of ``functions`` as an argument
    (``joint_scores(weather, day)``: ``weather`` and ``day``), each call's own names."""
    handed = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in functions:
                for argument in node.args + [k.value for k in node.keywords]:
                    handed |= _loads(argument)
    return handed - functions


def _taint(parsed: list[ast.Module], replaced: set[str], remade: set[str]) -> list[int]:
    """The cells that computed something with a replaced function (or with what such a
    cell bound), and those that bind a name in ``remade``, in order."""
    tainted, touched = set(replaced), []
    for index, tree in enumerate(parsed):
        if _loads(tree) & tainted or _binds(tree) & remade:
            touched.append(index)
            tainted |= _binds(tree) - replaced
    return touched


def replay_source(cells: list, name: str, replaced: list[str],
                  inputs_changed: bool = False) -> str | None:
    """The code that computes value ``name`` again once the ``replaced`` functions are
    swapped: the last code cell that assigns it, after every earlier cell that assigned
    it or whose results it reads (directly or through another such cell) and that
    computed them with a replaced function, or that last bound a name it reads which a
    later cell binds again (``_stale``), or that stored into a replaced value; each without
    its statements that bind a replaced name, and without its asserts.  ``inputs_changed``: a graded function was seen changing its input in
    place, so the objects handed to a replaced function on the way (``weather``) may no
    longer be what their cells made: the cells that bind them run again too.  None if
    no cell assigns ``name``, or if a cell parses but is too deeply nested to be written
    back as source (``ast.unparse`` recurses: a sum of a few hundred terms)."""
    parsed = [tree for kind, source in cells
              if kind == "code" and (tree := parse_cell(source)) is not None]
    target = next((i for i in range(len(parsed) - 1, -1, -1)
                   if any(name in _bound(node) for node in parsed[i].body)), None)
    if target is None:
        return None
    touched = _taint(parsed[:target], set(replaced), set())
    if inputs_changed:  # what a replaced function may have changed, made again
        callers = set(replaced).union(*(_binds(parsed[i]) for i in touched))
        handed = _handed_to([parsed[i] for i in touched] + [parsed[target]], callers)
        touched = _taint(parsed[:target], set(replaced), handed)
    # the value itself too: a later cell may assign it only in a branch that did not run
    # (``if found: p_no = ...``), and the value then came from an earlier cell; a replaced
    # name comes from the probe: the cell that defines it need not run again
    wanted, chosen = _loads(parsed[target]) - set(replaced) | {name}, []
    for index in reversed(touched):  # of that, what the value's cell reads
        if _binds(parsed[index]) & wanted:
            chosen.append(index)
            wanted |= _loads(parsed[index]) - set(replaced)
    chosen += _stale(parsed, target, wanted - set(replaced), chosen)
    # a value put in its place is new: what earlier cells stored into the notebook's own
    # (``sms["is_spam"] = ...``) is stored again (student 28)
    chosen += [index for index in range(target) if index not in chosen
               and _stores_into(parsed[index], set(replaced))]
    try:
        return "\n".join(_without(parsed[index], replaced)
                         for index in sorted(chosen) + [target])
    except RecursionError:
        return None


def _stores_into(tree: ast.Module, names: set[str]) -> bool:
    """Whether a cell stores into an item or attribute of one of ``names`` at its level."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            base = node.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if getattr(base, "id", None) in names:
                return True
    return False


def _stale(parsed: list, target: int, wanted: set[str], chosen: list[int]) -> list[int]:
    """The cells before ``target`` that last bound a name the replay reads and a cell
    after it binds again (04's ``X``, re-bound by a later question's cell, student 25): the
    replay runs after the whole notebook, so they run again to give the value's cell what
    it read; and what those read, in turn."""
    later = set().union(set(), *(_binds(tree) for tree in parsed[target + 1:]))
    found, todo = [], sorted(wanted & later)
    while todo:
        name = todo.pop()
        index = next((i for i in range(target - 1, -1, -1) if name in _binds(parsed[i])), None)
        if index is not None and index not in chosen and index not in found:
            found.append(index)
            todo += sorted(_loads(parsed[index]) & later - {name})
    return found


async def run_follow_through(session, plan: dict, cells: list, limits, report, deadline: float,
                             probe, ask=None) -> bool:
    """The follow-through probes into ``report.follow_through``; whether one of them
    stopped the kernel (its outcome is then put back: see the module's notes).

    ``probe`` is the runner's ``_probe``.  ``ask(report)``, when given, returns the keys
    of the probes whose replies can change a mark (the batch judges that from the
    ordinary readings, ``scoring.second_readings``), or None for all: only those are made.
    """
    requests = plan.get("follow_through") or []
    if not requests or report.kernel is not KernelOutcome.OK:
        return False
    if ask is not None:
        wanted = ask(report)
        if wanted is not None:
            requests = [r for r in requests if r.get("key", r["question"]) in wanted]
    before = (report.kernel, report.kernel_reason, report.memory_error)
    changed = _an_input_changed(report)
    extras = [_extra(request, cells, changed) for request in requests]
    for number, (request, extra) in enumerate(zip(requests, extras)):
        key = request.get("key", request["question"])
        if key in report.follow_through:
            continue  # read with an earlier value of the same replay
        others = _same_replay(requests[number + 1:], extras[number + 1:], request, extra)
        if others:
            extra = dict(extra, also=[[other["question"], other["name"]] for other in others])
        indices = list(range(len(request.get("cases", []))))
        reply = await probe(session, request, indices, limits, report, deadline, extra)
        if (report.kernel, report.kernel_reason, report.memory_error) != before:
            report.kernel, report.kernel_reason, report.memory_error = before
            report.follow_through[key] = {"not_run": "stopped"}
            return True
        also = reply.pop("also", [])
        report.follow_through[key] = reply
        for other, other_reply in zip(others, also):
            if "unreadable_report" not in other_reply:  # else it gets a probe of its own
                report.follow_through[other.get("key", other["question"])] = other_reply
    return False


def _extra(request: dict, cells: list, inputs_changed: bool) -> dict:
    """What a follow-through probe adds to its question's request."""
    extra = {k: request[k] for k in ("replace", "reference", "graded")}
    if request["kind"] == "value":
        extra["cell"] = replay_source(cells, request["name"], request["replace"],
                                      inputs_changed)
    return extra


def _an_input_changed(report) -> bool:
    """Whether an ordinary reading saw a graded function change an input in place."""
    return any(isinstance(case, dict) and str(case.get("error", "")).startswith(INPUT_CHANGED)
               for reply in report.probes.values() if isinstance(reply, dict)
               for case in (reply.get("cases") if isinstance(reply.get("cases"), list) else []))


def _same_replay(requests: list, extras: list, request: dict, extra: dict) -> list:
    """The value requests among ``requests`` whose second reading replays the very cells
    ``request``'s does, with the same solutions: one replay reads them all (exercise 05's
    ``best_alpha`` and ``test_accuracy`` come from one call of ``spam_experiment``)."""
    if request["kind"] != "value" or not isinstance(extra.get("cell"), str):
        return []
    return [other for other, other_extra in zip(requests, extras)
            if other["kind"] == "value" and other_extra == extra]
