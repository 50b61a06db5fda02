"""Answers as plain data, and the comparison that decides whether an answer is right.

Values cross the kernel boundary as JSON only (see ``probe_source``).  Here, in the
grader's own process, they become ordinary Python values again and are compared with
the expected ones using tolerances suited to probabilities.  Messages say *what* is
wrong with an answer without ever quoting the expected value.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Integral, Real

import numpy as np
import pandas as pd

# decode_input, the inverse of encode_input, is the probe's own: one decoder for the
# kernel, the grader and check()
from .diagnosis import _leaves
from .execution.probe_source import decode_input, nbcourse_probe  # noqa: F401


# --------------------------------------------------------------------------- inputs
def encode_input(value):
    """Turn a hidden input into JSON the probe can rebuild (DataFrame, array, tuple ...)."""
    if isinstance(value, pd.DataFrame):
        return {"$frame": {"columns": encode_input(list(value.columns)),
                           "index": encode_input(list(value.index)),
                           "data": encode_input(value.to_numpy(dtype=object).tolist())}}
    if isinstance(value, pd.Series):
        return {"$series": {"index": encode_input(list(value.index)),
                            "values": encode_input(value.tolist()), "name": value.name}}
    if isinstance(value, np.ndarray):
        return {"$ndarray": {"data": encode_input(value.tolist()), "dtype": str(value.dtype)}}
    if isinstance(value, np.generic):
        return encode_input(value.item())
    if type(value).__module__.startswith("scipy.sparse") and hasattr(value, "tocsr"):
        csr = value.tocsr()  # a sparse matrix stays sparse: "dense or sparse" is tested
        return {"$csr": {"data": encode_input(csr.data), "indices": csr.indices.tolist(),
                         "indptr": csr.indptr.tolist(), "shape": list(csr.shape)}}
    if isinstance(value, tuple):
        return {"$tuple": [encode_input(item) for item in value]}
    if isinstance(value, list):
        return [encode_input(item) for item in value]
    if isinstance(value, dict):
        return {"$dict": [[encode_input(k), encode_input(v)] for k, v in value.items()]}
    if isinstance(value, Fraction):
        return {"$fraction": [value.numerator, value.denominator]}
    if isinstance(value, float) and not math.isfinite(value):
        return {"$float": str(value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"a hidden input must be plain data, a DataFrame, Series or array; "
                    f"got {type(value).__name__}")


# --------------------------------------------------------------------------- outputs
def decode_answer(data):
    """JSON from the probe -> plain Python (lists, dicts, numbers, Fractions, strings).

    Series become dicts (label -> value) and DataFrames dicts of columns, so a student
    may return either a Series or a dict wherever a labelled result is asked for.
    """
    if isinstance(data, list):
        return [decode_answer(item) for item in data]
    if not isinstance(data, dict):
        return data
    if len(data) != 1:
        raise ValueError("malformed answer object")
    (tag, body), = data.items()
    if tag == "$float":
        return float(body)
    if tag in ("$fraction", "$decimal"):
        numerator, denominator = body
        value = Fraction(int(numerator), int(denominator))
        return FromDecimal(value) if tag == "$decimal" else value
    if tag == "$dict":
        return {_key(decode_answer(k)): decode_answer(v) for k, v in body}
    if tag == "$set":
        return [decode_answer(item) for item in body]
    if tag == "$series":
        index = decode_answer(body["index"])
        values = decode_answer(body["values"])
        return FromPandas("Series", {_key(k): v for k, v in zip(index, values)})
    if tag == "$frame":
        columns = decode_answer(body["columns"])
        index = decode_answer(body["index"])
        rows = decode_answer(body["data"])
        return FromPandas("DataFrame", {_key(c): {_key(i): row[j] for i, row in zip(index, rows)}
                                        for j, c in enumerate(columns)})
    if tag == "$unsupported":  # a class name the student chose: short, never trusted
        return Unsupported(str(body)[:80])
    raise ValueError(f"unknown answer tag {tag!r}")


def _key(key):
    if isinstance(key, list):
        return tuple(_key(k) for k in key)
    if isinstance(key, float) and key.is_integer():
        return int(key)
    return key


class FromPandas(dict):
    """A Series or DataFrame answer as the dict it compares as, knowing which it was
    (``judges.AsDict``: where the notebook's later cells use the answer as a dict)."""

    def __init__(self, form: str = "", items=()):
        super().__init__(items)
        self.form = form


class FromDecimal(Fraction):
    """The exact value of a ``decimal.Decimal`` answer: equal to the Fraction it is, and
    known to be a Decimal where that matters (``decimal_problem``)."""


#: How every refusal of a right value given as a ``decimal.Decimal`` begins (grader-made
#: text, so a hidden case may say it too: ``scoring``)
DECIMAL_REFUSED = "the numbers are right but a decimal.Decimal"


def decimal_problem(actual, expected, floats: bool = False) -> str | None:
    """Why a right value cannot stand where a function's Fraction is expected: it is a
    Decimal, and the functions that use it multiply Fractions (Fraction * Decimal raises
    TypeError).  With ``floats`` (a function other questions call), also where a float is
    expected: the code that uses it computes with floats, and Decimal * float raises too.
    A value question's Decimal is used by nothing: it is accepted."""
    if isinstance(actual, dict) and isinstance(expected, dict):
        actual, expected = list(actual.values()), [expected.get(k) for k in actual]
    if isinstance(actual, list) and isinstance(expected, list):
        return next((p for a, e in zip(actual, expected)
                     if (p := decimal_problem(a, e, floats))), None)
    if isinstance(actual, FromDecimal) and isinstance(expected, Fraction):
        return (f"{DECIMAL_REFUSED}: this exercise computes with "
                "Fractions, and Fraction * Decimal raises TypeError in the functions that "
                "use it: return a Fraction (Fraction(count, total)), or convert with "
                "Fraction(str(d))")
    if floats and isinstance(actual, FromDecimal) and isinstance(expected, float):
        return (f"{DECIMAL_REFUSED}: later questions use this function's values with "
                "floats, and Decimal * float raises TypeError: return floats (count / "
                "total), or convert with float(d)")
    return None


@dataclass(frozen=True)
class Unsupported:
    """An answer of a type that cannot cross the boundary (a model, a function ...)."""
    type_name: str


def normalise(value):
    """Expected values go through the same encoder as the student's answers.

    So a reference that returns a Series, a numpy array or a Fraction is compared in
    exactly the form a student's Series, array or Fraction arrives in.
    """
    captured = []
    nbcourse_probe({"value": value}, "", json.dumps({"question": "-", "name": "value",
                                                     "kind": "value"}), emit=captured.append)
    report = json.loads(captured[0])
    if "unreadable" in report:
        raise TypeError(f"expected value cannot be represented: {report['unreadable']}")
    return decode_answer(report["value"])


# --------------------------------------------------------------------------- compare
@dataclass(frozen=True)
class Tolerance:
    """How close a number must be: ``math.isclose(rel_tol=rel, abs_tol=abs_)``.

    The course compares every value at the default; a spec that loosens it writes why in
    ``reason`` (a rounded answer must still fail: tests walk the specs for this).
    """
    rel: float = 1e-6
    abs_: float = 1e-9
    reason: str = field(default="", compare=False)

    @property
    def looser(self) -> bool:
        """Whether this accepts more than the default does."""
        return self.rel > 1e-6 or self.abs_ > 1e-9


def _is_number(x) -> bool:
    return isinstance(x, (Real, Fraction)) and not isinstance(x, bool)


def describe_value(value, limit: int = 80) -> str:
    """A short rendering of the student's own value, for feedback."""
    if isinstance(value, Unsupported):
        return f"a {value.type_name} object"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def kind_of(value) -> str:
    if isinstance(value, bool):
        return "True/False"
    if _is_number(value):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a dict"
    if value is None:
        return "None"
    if isinstance(value, Unsupported):
        return f"a {value.type_name} object"
    return type(value).__name__


def compare(actual, expected, tol: Tolerance = Tolerance(), *, exact: bool = False,
            path: str = "", strip: bool = True) -> str | None:
    """None when ``actual`` matches ``expected``; otherwise why not (no expected value shown).

    Numbers: ``math.isclose`` with ``tol`` (a NaN never matches; infinities must agree);
    with ``exact=True`` Fractions must be equal.  Lists compare item by item, dicts
    key by key.  Integers may stand for floats and Fractions for either; a float that is
    a whole number stands for that integer, also with ``exact=True``.  Text compares
    without the spaces around it (a typed " b " is "b"); ``strip=False`` compares it as
    it is, for a function's result that other code compares with ``==``.
    """
    where = f" at {path}" if path else ""
    if isinstance(actual, Unsupported):
        return f"the answer{where} is a {actual.type_name} object, not plain data"
    if isinstance(expected, bool):
        if not isinstance(actual, bool):
            return f"expected True/False{where}, got {kind_of(actual)}"
        return None if actual == expected else f"wrong True/False value{where}"
    if _is_number(expected):
        return _compare_number(actual, expected, tol, exact, where)
    if isinstance(expected, str):
        if not isinstance(actual, str):
            return f"expected a string{where}, got {kind_of(actual)} ({describe_value(actual)})"
        # " b " is "b" where it is typed: spaces around a word are not part of the answer
        if not strip and actual != expected and actual.strip() == expected.strip():
            return (f"the text{where} is right but has spaces around it "
                    f"({describe_value(actual)}): code compares it with ==, where they "
                    "count, so return it without them")
        same = actual.strip() == expected.strip() if strip else actual == expected
        return None if same else \
            f"the text{where} is not the expected one (got {describe_value(actual)})"
    if expected is None:
        return None if actual is None else f"expected None{where}, got {kind_of(actual)}"
    if isinstance(expected, list):
        actual, problem = as_list(actual, expected, where)
        if problem:
            return problem
        if len(actual) != len(expected):
            return f"expected {len(expected)} items{where}, got {len(actual)}"
        problem = _items_problem(actual, expected, tol, exact, path, strip)
        if problem and len(actual) == 2 and \
                _items_problem(actual[::-1], expected, tol, exact, path, strip) is None:
            return (f"the two items{where} are right but in the other order: return them "
                    "in the order the question gives")
        return problem
    if isinstance(expected, dict):
        return _compare_dict(actual, expected, tol, exact, path, strip)
    raise TypeError(f"cannot compare with an expected value of type {type(expected).__name__}")


def _items_problem(actual: list, expected: list, tol, exact: bool, path: str,
                   strip: bool) -> str | None:
    """The first item of ``actual`` that does not match its place in ``expected``."""
    for i, (a, e) in enumerate(zip(actual, expected)):
        problem = compare(a, e, tol, exact=exact, path=f"{path}[{i}]", strip=strip)
        if problem:
            return problem
    return None


def as_list(actual, expected: list, where: str = "") -> tuple:
    """``(actual as a list, None)`` where a list or an array is asked, or ``(actual, why
    not)``: one rule for every question.  A Series with the default index 0, 1, 2, ...
    is its values; one with labels, or an (n, 1) column where n values are asked, is
    refused with the conversion that fixes it.  A DataFrame is its rows in its own order,
    as ``df.to_numpy()`` gives them (a row per class, a column per feature)."""
    if isinstance(actual, FromPandas) and actual.form == "DataFrame":
        columns = list(actual.values())
        actual = [[column[label] for column in columns] for label in
                  (columns[0] if columns else {})]
    elif isinstance(actual, dict) and list(actual) == list(range(len(actual))):
        actual = list(actual.values())  # a Series with the default index 0, 1, 2, ...
    elif isinstance(actual, dict):
        return actual, (f"expected a list or array{where}, got a dict or Series with the keys "
                        f"{describe_value(list(actual), 40)}: return a list (series.tolist(), "
                        "or list(d.values()) in the right order)")
    if not isinstance(actual, list):
        return actual, (f"expected a list or array{where}, got {kind_of(actual)} "
                        f"({describe_value(actual)})")
    if len(actual) == len(expected) and actual and \
            all(isinstance(a, list) and len(a) == 1 for a in actual) and \
            not any(isinstance(e, list) for e in expected):
        return actual, (f"expected one value per row{where}, got shape ({len(actual)}, 1), a "
                        "column: flatten it with .ravel() (or np.asarray(...).ravel())")
    return actual, None


def _compare_number(actual, expected, tol: Tolerance, exact: bool, where: str) -> str | None:
    if isinstance(actual, dict) and len(actual) == 1 and isinstance(next(iter(actual)), int):
        (actual,) = actual.values()  # one row of a DataFrame (joint_proba(...)[label])
    if isinstance(actual, list) and len(actual) == 1 and _is_number(actual[0]):
        return (f"expected a number{where}, got a list or array holding one number "
                f"({describe_value(actual)}): return the number itself (float(x[0]), or "
                "float(x) for a one-element array)")
    if not _is_number(actual):
        return f"expected a number{where}, got {kind_of(actual)} ({describe_value(actual)})"
    if isinstance(actual, float) and math.isnan(actual):
        return f"the value{where} is NaN (not a number)"
    if exact and isinstance(expected, (Fraction, Integral)):
        # a float that is a whole number is that number (9.0 for a count of 9), here as
        # with every other tolerance: one rule for integers as floats
        whole = isinstance(actual, float) and actual.is_integer()
        if (whole or isinstance(actual, (Fraction, Integral))) and \
                Fraction(actual) == Fraction(expected):
            return None
        return f"the exact value{where} is not the expected one (got {describe_value(actual)})"
    a, e = float(actual), float(expected)
    if math.isinf(e) or math.isinf(a):
        return None if a == e else f"the value{where} is not the expected one (got {describe_value(actual)})"
    if math.isclose(a, e, rel_tol=tol.rel, abs_tol=tol.abs_):
        return None
    return f"the value{where} is not the expected one (got {describe_value(actual)})"


def _compare_dict(actual, expected: dict, tol: Tolerance, exact: bool, path: str,
                  strip: bool = True) -> str | None:
    where = f" at {path}" if path else ""
    if not isinstance(actual, dict):
        return f"expected a dict{where}, got {kind_of(actual)} ({describe_value(actual)})"
    if set(actual) != set(expected):
        extra = sorted(map(str, set(actual) - set(expected)))
        if extra and all(isinstance(k, int) for k in actual) and \
                not any(isinstance(k, int) for k in expected):
            return (f"expected a dict with one entry per label{where} (like "
                    "{label: value}), got keys that are positions "
                    f"({', '.join(extra[:5])}): a DataFrame arrives as a dict of its "
                    "columns, so return a dict, or a Series indexed by the labels")
        if extra:
            return f"unexpected keys{where}: {', '.join(extra[:5])}"
        return f"some keys are missing{where} ({len(set(expected) - set(actual))} of {len(expected)})"
    for key in expected:
        problem = compare(actual[key], expected[key], tol, exact=exact,
                          path=f"{path}[{key!r}]", strip=strip)
        if problem:
            return problem
    return None


#: ``rounded_places``'s ``expected`` when the expected value is not known (``check()``)
UNKNOWN = object()


def rounded_places(value, tolerance: "Tolerance | None" = None,
                   shares: int = 40, expected=UNKNOWN) -> int | None:
    """How many decimal places an answer looks rounded to (2 to 4; 1 to 6 against
    ``expected``), else None: what ``check()`` can say from the student's value alone,
    and a hidden case's message when the value is the expected one rounded.

    A dict or a list looks rounded when one of its numbers does (the fewest places any
    of those shows).  A simple share (7/8 = 0.875, 0.96 = 24/25: denominator up to
    ``shares``; 0: none) is taken as exact, not rounded, unless ``expected`` is given.
    With ``tolerance``, only a rounding that can lose the marks counts: half a unit of
    the last place is more than the question allows (so a rounded answer within the
    question's tolerance earns the marks, and one beyond it is always told why not).
    With ``expected`` (the grader's), only a number equal to the expected one rounded to
    that number's own places, where the expected one has more, counts: an accuracy of
    0.75 or an alpha of 0.3 that is simply wrong was not rounded.
    """
    if expected is not UNKNOWN:  # 0.88 for 0.875 is a rounding, though 0.88 is 22/25
        found = [places for a, e in (_leaves(value, expected) or [])
                 if (places := _places(a, 0, fewest=1, most=6)) and _rounds_to(e, a, places)
                 and not _within(a, tolerance, places)]
        return min(found) if found else None
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):  # the coarsest rounding among its numbers that matters
        found = [p for p in (rounded_places(v, tolerance, shares) for v in value) if p]
        return min(found) if found else None
    places = _places(value, shares)
    return None if places and _within(value, tolerance, places) else places


def _within(value, tolerance, places: int) -> bool:
    """Whether a rounding to ``places`` stays within the question's tolerance."""
    return tolerance is not None and \
        0.5 * 10 ** -places <= max(tolerance.abs_, tolerance.rel * abs(value))


def _rounds_to(expected, value: float, places: int) -> bool:
    """Whether ``expected`` has more than ``places`` decimals and rounds to ``value``:
    within half a unit of the last place, so a half rounded up by hand (0.575 to 0.58)
    counts as well as Python's round (0.57, since 0.575 is stored a little below)."""
    try:
        exact = float(expected)
    except (TypeError, ValueError, OverflowError):
        return False
    return math.isfinite(exact) and round(exact, places) != exact != value and \
        abs(exact - value) <= 0.5 * 10 ** -places * (1 + 1e-9)


def _places(value, shares: int, fewest: int = 2, most: int = 4) -> int | None:
    """The places of a float of few decimals (``fewest`` to ``most``).  One place, or five
    and six, only where the expected value is known (0.8 for 0.7954, 0.203822 for
    0.20382166): alone, 0.8 is as likely a right 4/5."""
    if not isinstance(value, float) or not math.isfinite(value) or value.is_integer():
        return None
    if shares and float(Fraction(value).limit_denominator(shares)) == value:
        return None
    for places in range(1, most + 1):
        if round(value, places) == value:
            return places if places >= fewest else None
    return None


def both_nan(a, b) -> bool:
    """NaN never equals NaN, but a student whose answer is NaN where a mistake's is NaN
    makes that mistake (0 * log 0 not skipped, say)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and any(both_nan(x, y) for x, y in zip(a, b)) and all(
            both_nan(x, y) or compare(x, y) is None for x, y in zip(a, b))
    return isinstance(a, float) and isinstance(b, float) and a != a and b != b
