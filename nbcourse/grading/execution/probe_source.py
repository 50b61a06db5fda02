"""The code the grader sends into a student's kernel to read one answer.

This file is never imported by the kernel: the grader sends its text as the first
request to a fresh kernel (``runner.install_expression``), so the probe does not depend
on what the student's notebook did to ``sys.path`` or to the ``nbcourse`` package.  It
is imported normally by the grader and by the tests, which is how the encoder stays the
same on both sides.

The probe only *reports* what the student's code returns, as plain JSON between two
copies of an unguessable marker.  It holds no expected value, so nothing a student
cell patches (``float.__eq__``, ``numpy.isclose``, ``json`` ...) can change a grade:
the grader parses the JSON in its own process and compares there.

The grader installs this code once, when the kernel starts and before any student cell
runs: it then holds its own copy of the builtins and of the modules it uses, so a
student who later defines ``exec``, rebinds a builtin or replaces ``json`` in
``sys.modules`` changes nothing the probe calls.  A student who deliberately digs the
installed probe out of the kernel's memory can still make it report anything: the
kernel is theirs.  So the grader trusts none of it: the reply is bounded in size,
checked field by field, and never shown for a hidden case.
"""

import base64
import inspect
import json
import sys
from fractions import Fraction

# Not limits of the batch (``GradingLimits``): these bound the probe's own encoding, here
# in the kernel; the reply's length is the batch's (``reply_mb``, in each request).
#: The longest class name or message the probe passes on (the grader cuts again).
MAX_TEXT = 200
#: Values in one answer, and how deep it may nest: more is a bug or an attack.
MAX_ITEMS = 200_000
MAX_DEPTH = 40


#: What the probe reports, in place of the error, for a case that raised the stub.
STUB_RAISED = "NotImplementedError (the exercise's stub)"


def is_stub_raise(kind, message, own_code):
    """The one rule for "not answered yet", used by the probe, the runner and ``check()``.

    Only the exercise stub counts: a bare ``raise NotImplementedError()`` (``kind`` is
    exactly that class, ``message`` is empty) raised by the student's own code
    (``own_code``: the innermost frame is the answer's body, or a notebook cell).  A
    library's ``NotImplementedError("...")``, or its bare one raised inside the library,
    is an error like any other.
    """
    return kind == "NotImplementedError" and not message and bool(own_code)


def raised_by_stub(error, answer):
    """``is_stub_raise`` for ``error``, caught around a call of the function ``answer``."""
    if type(error) is not NotImplementedError:
        return False
    args = error.args
    bare = not args or (len(args) == 1 and type(args[0]) is str and not args[0])
    try:
        body = getattr(answer, "__code__", None)
    except Exception:  # noqa: BLE001 - a callable of the student's whose attributes raise
        return False
    last = error.__traceback__
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    own = last is not None and last.tb_frame.f_code is body
    return is_stub_raise("NotImplementedError", "" if bare else "a message", own)


#: How the probe reports, in place of the value, a case whose call changed one of its
#: inputs in place (``changed_input``), followed by ``: argument N`` or ``: keyword K``.
INPUT_CHANGED = "the call changed an input in place"


def input_snapshot(args, kwargs):
    """Each input of one call as the probe's JSON text, to tell afterwards whether the
    call changed it in place (``changed_input``); None for one that cannot be encoded.

    The one rule for ``check()`` and the grader: an input has changed when it no longer
    encodes to the same JSON (a sorted list, a DataFrame with a new column, a popped key,
    an int column turned float).
    """
    def text(value):
        try:
            return json.dumps(_Encoder().encode(value), allow_nan=False)
        except Exception:  # noqa: BLE001 - too large or unreadable: not checked
            return None
    return [text(value) for value in args], {key: text(value) for key, value in kwargs.items()}


def changed_input(snapshot, args, kwargs):
    """Where the call changed its inputs: ``"argument N"`` (from 1) or ``"keyword K"``
    for the first input whose JSON is not its ``snapshot``; None when none changed."""
    before_args, before_kwargs = snapshot
    now_args, now_kwargs = input_snapshot(args, kwargs)
    for index, (before, now) in enumerate(zip(before_args, now_args)):
        if before is not None and before != now:
            return f"argument {index + 1}"
    for key, before in before_kwargs.items():
        if before is not None and before != now_kwargs.get(key):
            return f"keyword {key}"
    return None


class TooLarge(Exception):
    """The answer is larger than the grader reads."""


def _short(text):
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 3] + "..."


def _describe(error):
    try:
        return _short(f"{type(error).__name__}: {error}")
    except BaseException:  # noqa: BLE001 - a message that cannot even be printed
        return _short(str(type(error).__name__))


class _Encoder:
    """Plain JSON for plain values, tagged objects for the rest; counts what it encodes."""

    def __init__(self):
        self.items = 0

    def encode(self, value, depth=0):
        self.items += 1
        if self.items > MAX_ITEMS:
            raise TooLarge(f"the answer has more than {MAX_ITEMS} values")
        if depth > MAX_DEPTH:
            raise TooLarge(f"the answer is nested more than {MAX_DEPTH} levels deep")
        module = getattr(type(value), "__module__", "") or ""
        if value is None or isinstance(value, (bool, int, float, str, Fraction)):
            return self.scalar(value)
        if module == "decimal" and type(value).__name__ == "Decimal":
            return self.decimal(value)
        if module.startswith(("numpy", "pandas", "scipy")):
            return self.library(value, module, depth)
        if isinstance(value, (list, tuple)):
            return [self.encode(item, depth + 1) for item in value]
        if isinstance(value, dict):
            return {"$dict": [[self.encode(k, depth + 1), self.encode(v, depth + 1)]
                              for k, v in value.items()]}
        if isinstance(value, (set, frozenset)):
            items = [self.encode(item, depth + 1) for item in value]
            return {"$set": sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}
        return _unsupported(value)

    @staticmethod
    def scalar(value):
        """None, bool, int, float, str, Fraction: as their plain type, whatever subclass."""
        if value is None or isinstance(value, bool):
            return None if value is None else bool(value)
        if isinstance(value, int):
            number = int.__index__(value)
            if number.bit_length() > 1000:
                raise TooLarge("the answer holds an integer of more than 300 digits")
            return number
        if isinstance(value, float):
            number = float.__float__(value)
            if number != number:
                return {"$float": "nan"}
            if number in (float("inf"), float("-inf")):
                return {"$float": "inf" if number > 0 else "-inf"}
            return number
        if isinstance(value, str):
            text = str.__str__(value)
            if len(text) > 100_000:
                raise TooLarge("the answer holds a string of more than 100,000 characters")
            return text
        return {"$fraction": [int(value.numerator), int(value.denominator)]}

    def decimal(self, value):
        """A decimal.Decimal: exactly, as a Fraction tagged as a Decimal (a float when it is
        huge or not finite)."""
        if not value.is_finite() or abs(value.adjusted()) > 300:
            return self.scalar(float(value))
        return {"$decimal": self.scalar(Fraction(value))["$fraction"]}

    def library(self, value, module, depth):
        """numpy arrays and scalars, pandas Series and DataFrames, scipy sparse matrices."""
        kind = type(value).__name__
        if module.startswith("numpy") and hasattr(value, "tolist") and hasattr(value, "dtype"):
            if getattr(value.dtype, "kind", "") in "biufcUSO" and value.dtype.kind != "c":
                return self.encode(value.tolist(), depth + 1)
        elif module.startswith("pandas") and kind == "Series":
            return {"$series": {"index": self.encode(list(value.index), depth + 1),
                                "values": self.encode(value.tolist(), depth + 1)}}
        elif module.startswith("pandas") and kind == "DataFrame":
            return {"$frame": {"columns": self.encode(list(value.columns), depth + 1),
                               "index": self.encode(list(value.index), depth + 1),
                               "data": self.encode(value.values.tolist(), depth + 1)}}
        elif module.startswith("scipy") and hasattr(value, "toarray"):
            return self.encode(value.toarray(), depth + 1)
        return _unsupported(value)


def _unsupported(value):
    return {"$unsupported": _short(str(type(value).__name__))}


def _hashable(key):
    """A decoded dictionary key: lists (JSON has no tuples) back into tuples, nested too."""
    return tuple(_hashable(k) for k in key) if isinstance(key, list) else key


def decode_input(data):
    """The inverse of ``values.encode_input``: inputs chosen by the grader back into the
    objects an answer expects.  The one decoder: the probe's, in the kernel, and the
    grader's and ``check()``'s (``values`` takes it from here)."""
    if isinstance(data, list):
        return [decode_input(item) for item in data]
    if not isinstance(data, dict):
        return data
    if len(data) != 1:
        raise ValueError(f"unknown input tag {sorted(data)}")
    (tag, body), = data.items()
    if tag == "$tuple":
        return tuple(decode_input(item) for item in body)
    if tag == "$dict":
        return {_hashable(decode_input(k)): decode_input(v) for k, v in body}
    if tag == "$fraction":
        return Fraction(*body)
    if tag == "$float":
        return float(body)
    if tag in ("$ndarray", "$csr", "$series", "$frame"):
        return _decode_library(tag, body)
    raise ValueError(f"unknown input tag {tag!r}")


def _decode_library(tag, body):
    """A numpy array, a scipy CSR matrix, a pandas Series or DataFrame (imported only
    when an input holds one)."""
    if tag == "$ndarray":
        import numpy
        return numpy.array(decode_input(body["data"]), dtype=body["dtype"])
    if tag == "$csr":
        import scipy.sparse
        return scipy.sparse.csr_matrix((decode_input(body["data"]), body["indices"],
                                        body["indptr"]), shape=tuple(body["shape"]))
    import pandas
    if tag == "$series":
        return pandas.Series(decode_input(body["values"]), index=decode_input(body["index"]),
                             name=body.get("name"))
    frame = pandas.DataFrame(decode_input(body["data"]), columns=decode_input(body["columns"]))
    if body.get("index") is not None:
        frame.index = decode_input(body["index"])
    return frame


def _call_case(answer, case, keep_inputs=False):
    """One case of a function question: ``{"value"|"error"|"unreadable"|"grader_error": ...}``.

    ``keep_inputs``: the call must leave its inputs as they were; one that changes them
    reports ``INPUT_CHANGED`` (as an error: its value is not read).
    """
    try:
        args = decode_input(case["args"])
        kwargs = decode_input(case.get("kwargs", {"$dict": []}))
        snapshot = input_snapshot(args, kwargs) if keep_inputs else None
    except Exception as error:
        return {"grader_error": _describe(error)}
    try:
        returned = answer(*args, **kwargs)
        where = changed_input(snapshot, args, kwargs) if keep_inputs else None
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # SystemExit from a student is an error too
        return {"error": STUB_RAISED if raised_by_stub(error, answer) else _describe(error)}
    if where is not None:
        return {"error": f"{INPUT_CHANGED}: {where}"}
    try:
        return {"value": _Encoder().encode(returned)}
    except Exception as error:
        return {"unreadable": _describe(error)}


_ABSENT = object()


def _builtins_copy():
    found = globals().get("__builtins__")
    return dict(found) if isinstance(found, dict) else dict(vars(found))


def _follow_through(user_ns, request):
    """The answer again, with the graded functions it calls replaced by their solutions.

    Asked only after every answer has been read (``grading/follow_through.py``).  The
    solutions are defined in a namespace of their own (the source notebook's imports,
    the student's other graded functions), bound in ``user_ns`` for this probe only.
    A value is read after its cell (``request["cell"]``, sent by the grader) has run again,
    and so are the values ``request["also"]`` names (``[question, name]`` pairs) that the
    same replay computes: their reports come back in the report's ``"also"``.

    Afterwards nothing of this probe stays for a later one (whose solutions may be
    others: callee sets need not nest): every name of ``user_ns`` is bound again to what
    it was (the replayed cells rebind values computed with the solutions), each
    solution's code is retired, so a student's function that kept one finds it raising,
    and the notebook's ``lru_cache`` functions forget what they memoised (before the
    probe too, so that it does not read results of the student's own functions).
    """
    before = dict(user_ns)
    scope = {"__builtins__": _builtins_copy(), "__name__": "nbcourse_reference"}
    report = {"question": request["question"], "name": request["name"]}
    _clear_caches(user_ns)  # results memoised with the student's own functions
    try:
        exec(compile(request["reference"], "<reference>", "exec"), scope)
        for name in request.get("graded", []):
            if name not in request["replace"] and name in user_ns:
                scope[name] = user_ns[name]
        for name in request["replace"]:
            user_ns[name] = _called_like(scope[name], before.get(name))
        if request["kind"] == "value":
            if not isinstance(request.get("cell"), str):
                report["unreadable"] = "no cell assigns this value"
                return report
            exec(compile(request["cell"], "<follow-through>", "exec"), user_ns)
        report = _report(user_ns, {k: v for k, v in request.items() if k not in ("replace", "also")})
        if request["kind"] == "value" and request.get("also"):  # other values of the same replay
            report["also"] = [_report(user_ns, {"question": question, "name": name, "kind": "value"})
                              for question, name in request["also"]]
        return report
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - the answer simply cannot be read again
        report["unreadable"] = _describe(error)
        return report
    finally:
        _put_back(user_ns, before)
        _retire(scope)
        _clear_caches(user_ns)  # and those memoised with the solutions


def _called_like(solution, theirs):
    """``solution`` called as the notebook calls the student's function it stands in for:
    that function's defaults filled in and its parameters' names read (05's
    ``spam_experiment(texts, labels, alphas)`` over a ``seed=0`` default, a parameter
    renamed and passed by keyword), then handed on by position, as many as the solution
    takes; its parameters after those, keyword-only parameters and ``**kwargs``
    (``verbose=False``) are the student's own, not handed on.  As it is where either is not a plain function,
    the student's takes ``*args``, or a call does not fit it.  The wrapper carries the
    solution's name, not the solution itself (no ``__wrapped__``)."""
    function = type(_called_like)
    if type(solution) is not function or type(theirs) is not function:
        return solution
    try:
        signature = inspect.Signature(list(inspect.signature(theirs).parameters.values()))
        parameters = [p for p in signature.parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if any(p.kind == p.VAR_POSITIONAL for p in signature.parameters.values()):
            return solution
    except Exception:  # noqa: BLE001 - a signature the student's code made up
        return solution
    room = solution.__code__.co_argcount

    def called(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return solution(*args, **kwargs)
        given = [i for i, p in enumerate(parameters) if p.name in bound.arguments]
        bound.apply_defaults()
        values = [bound.arguments[p.name] for p in parameters]
        # the student's extra parameters (``verbose=False``) are theirs: not handed on
        # (student 26), unless the solution takes ``*args``
        extra = solution.__code__.co_flags & inspect.CO_VARARGS
        return solution(*values[:max(room, given[-1] + 1 if given else 0) if extra else room])
    called.__name__ = called.__qualname__ = solution.__name__  # as a traceback names it
    return called


def _put_back(user_ns, before):
    """``user_ns`` bound as in ``before`` again: names added since removed, others rebound."""
    for name in [name for name in user_ns if name not in before]:
        del user_ns[name]
    for name, value in before.items():
        if user_ns.get(name, _ABSENT) is not value:
            user_ns[name] = value


def _clear_caches(user_ns):
    """Empty the caches of the notebook's ``functools.lru_cache``/``cache`` functions."""
    for value in list(user_ns.values()):
        if type(value).__name__ == "_lru_cache_wrapper" and \
                getattr(type(value), "__module__", "") == "functools":
            try:
                value.cache_clear()
            except Exception:  # noqa: BLE001 - not functools' own, after all
                pass


def _retired(*args, **kwargs):
    raise RuntimeError("a solution lent to one follow-through probe is not available later")


def _retire(scope):
    """The solutions defined in ``scope`` (functions, and the methods of its classes) made
    to raise when called, so none outlives its probe in a student's variable."""
    functions = [value for value in list(scope.values()) if type(value) is type(_retired)
                 and value.__globals__ is scope]
    for kind in [value for value in list(scope.values()) if isinstance(value, type)
                 and value.__module__ == "nbcourse_reference"]:
        functions += [value for value in vars(kind).values() if type(value) is type(_retired)]
    for function in functions:
        if not function.__code__.co_freevars:
            function.__code__ = _retired.__code__
    scope.clear()


def _report(user_ns, request):
    """What the probe says about the answer ``request`` names in ``user_ns``."""
    if "replace" in request:
        return _follow_through(user_ns, request)
    name = request["name"]
    report = {"question": request["question"], "name": name}
    if name not in user_ns:
        report["missing"] = True
        return report
    answer = user_ns[name]
    if request["kind"] == "value":
        try:
            report["value"] = _Encoder().encode(answer)
        except Exception as error:  # the answer exists but cannot be read
            report["unreadable"] = _describe(error)
    elif not callable(answer):
        report["not_callable"] = _short(str(type(answer).__name__))
    else:
        keep = request.get("keep_inputs") is True
        report["cases"] = [_call_case(answer, case, keep) for case in request["cases"]]
    return report


def nbcourse_probe(user_ns, mark, request_json, emit=None):
    """Evaluate the answer named in ``request_json`` and hand its report, as JSON, to
    ``emit`` (the grader's own encoding of expected values), or print it between two
    copies of ``mark``."""
    text = json.dumps(_report(user_ns, json.loads(request_json)), allow_nan=False)
    if emit is not None:
        emit(text)
        return
    sys.stdout.write(mark + text + mark + "\n")
    sys.stdout.flush()


def nbcourse_reply(user_ns, mark, request_json):
    """The probe's report as the value of an expression: JSON in base64 between markers.

    base64 survives the kernel's ``repr`` unchanged, so the grader reads it back with
    ``json`` alone (no Python parser); a reply longer than the request's
    ``reply_chars`` (the batch's ``GradingLimits.reply_mb``) is replaced by a short one.
    """
    request = json.loads(request_json)
    max_chars = request["reply_chars"]
    report = json.dumps(_report(user_ns, request), allow_nan=False)
    text = base64.b64encode(report.encode("utf-8")).decode("ascii")
    if len(text) > max_chars - 2 * len(mark) - 2:
        too_large = {"question": request["question"], "name": request["name"],
                     "too_large": True}
        text = base64.b64encode(json.dumps(too_large).encode("utf-8")).decode("ascii")
    return mark + text + mark
