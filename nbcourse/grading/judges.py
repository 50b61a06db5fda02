"""Comparisons that accept more than one right answer, and that can ship to students.

A question's default comparison (``values.compare`` with its tolerance) fits most
answers.  When it does not, a spec gives a *judge*.  A judge on a hidden case may be
any function ``judge(actual, expected, case) -> None | reason``; a judge on a public
case must be one of the classes below, because ``nbcourse release`` writes public
cases to a JSON file for the student's ``check()`` and a plain function cannot be
written there.  Each judge is plain data (``to_json`` / ``from_json``), so the grader
and the student's notebook run the very same comparison.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from numbers import Real

from .diagnosis import form_note
from .values import FromPandas, Tolerance, as_list, compare, decimal_problem, describe_value


def _number(x) -> bool:
    return isinstance(x, (Real, Fraction)) and not isinstance(x, bool)


class Judge:
    """Base class: a judge is called as ``judge(actual, expected, case)``."""

    kind = ""

    def __call__(self, actual, expected, case=None) -> str | None:  # pragma: no cover
        raise NotImplementedError

    def to_json(self) -> dict:
        data = asdict(self)
        data["judge"] = self.kind
        return data


@dataclass
class Within(Judge):
    """A number between ``low`` and ``high`` (inclusive); ``message`` when it is not.

    ``exact_over``: the value is a count divided by this number (05's recall: the spam of
    the test part), so ``check()`` takes such a share of few decimals as exact, not
    rounded (66 / 75 = 0.88), unless any rounding to its places is such a count too
    (0.71 over 800: ``rounding_notes._exact_share``)."""
    low: float
    high: float
    message: str = ""
    exact_over: int = 0
    kind = "within"

    def __call__(self, actual, expected, case=None):
        if not _number(actual):
            return f"expected a number, got {describe_value(actual)}"
        if self.low <= actual <= self.high:
            return None
        return self.message or f"expected a number between {self.low:g} and {self.high:g}"


@dataclass
class OneOf(Judge):
    """One of a few allowed values (for example the alphas a recipe tries)."""
    values: list
    message: str = ""
    kind = "one_of"

    def __call__(self, actual, expected, case=None):
        for value in self.values:
            if type(actual) is not bool and compare(actual, value, Tolerance()) is None:
                return None
        return self.message or "not one of the allowed values"


@dataclass
class SameKeys(Judge):
    """A dict (or Series) with exactly the expected keys; the values are not checked.

    ``keys`` names the keys when the expected value stays with the grader (a value graded
    only at grading time, whose public case checks the form alone).  ``shares`` names the
    keys whose values are shares or probabilities: each must be a number from 0 to 1 (an
    accuracy in percent is told so).  ``exact_over``: as ``Within``'s, for each value."""
    message: str = ""
    keys: list | None = None
    shares: list | None = None
    exact_over: int = 0
    kind = "same_keys"

    def __call__(self, actual, expected, case=None):
        if not isinstance(actual, dict):
            return self.message or f"expected a dict, got {describe_value(actual)}"
        expected = self.keys if self.keys is not None else expected
        if set(actual) != set(expected):
            return self.message or \
                f"the keys should be {sorted(map(str, expected))}, got {sorted(map(str, actual))}"
        return self._share_problem(actual)

    def _share_problem(self, actual):
        for key in self.shares or []:
            value = actual.get(key)
            if not _number(value):
                return f"[{key!r}] should be a number, got {describe_value(value)}"
            if not 0 <= value <= 1:
                percent = " (a percentage? divide it by 100)" if 1 < value <= 100 else ""
                return f"[{key!r}] is {float(value):g}, but it should be a share between 0 and 1{percent}"
        return None


@dataclass
class ZerosAndOnes(Judge):
    """One decision per item, 0/1 or False/True; says how many are wrong."""
    kind = "zeros_and_ones"

    def __call__(self, actual, expected, case=None):
        if not isinstance(actual, (list, dict)):
            return "expected one decision (0 or 1) per item, as a list or an array"
        actual, problem = as_list(actual, expected)  # a Series, a column: as elsewhere
        if problem:
            return problem.replace("one value per row", "one decision per row")
        if len(actual) != len(expected):
            return f"expected {len(expected)} decisions, got {len(actual)}"
        if any(not isinstance(a, (int, float)) or a not in (0, 1) for a in actual):
            return "every decision should be 0 or 1 (or False/True)"
        wrong = sum(int(a) != e for a, e in zip(actual, expected))
        return None if wrong == 0 else f"{wrong} of {len(expected)} decisions are wrong"


@dataclass
class Numbers(Judge):
    """A list of ``count`` numbers, each between ``low`` and ``high`` (None: no bound): the
    form of a value answer, whatever the value (``check()`` of a graded value)."""
    count: int
    low: float | None = None
    high: float | None = None
    message: str = ""
    kind = "numbers"

    def __call__(self, actual, expected=None, case=None):
        if not isinstance(actual, list) or len(actual) != self.count or \
                not all(_number(a) for a in actual):
            return self.message or f"expected a list of {self.count} numbers, got " \
                                   f"{describe_value(actual)}"
        if any((self.low is not None and a < self.low) or
               (self.high is not None and a > self.high) for a in actual):
            return self.message or "some of the numbers are outside the range they can take"
        return None


@dataclass
class Table(Judge):
    """A dict of dicts of words; says whether it is right, never how many cells are (a count
    would be a hill to climb, one cell at a time).

    ``options``, when given, are the strings the question offers: a cell holding anything
    else is named as such (a typo is not a wrong opinion).  ``shape`` ({column: [rows]})
    makes it a check of the form only, for ``check()``: the right keys and cells taken from
    ``options``, whatever they say.
    """
    options: list | None = None
    shape: dict | None = None
    kind = "table"

    def __call__(self, actual, expected, case=None):
        if self.shape is not None:
            expected = {column: {row: None for row in rows}
                        for column, rows in self.shape.items()}
        if not isinstance(actual, dict) or set(actual) != set(expected):
            return f"expected a dict with the keys {', '.join(map(repr, expected))}"
        wrong = 0
        for column, rows in expected.items():
            if not isinstance(actual[column], dict) or set(actual[column]) != set(rows):
                return f"the rows for {column!r} should be: {', '.join(map(repr, rows))}"
            if self.options is not None:
                for row in rows:
                    if actual[column][row] not in self.options:
                        return (f"[{column!r}][{row!r}] is {describe_value(actual[column][row])}, "
                                "which is not one of the strings in options: copy one of them "
                                "exactly")
            if self.shape is not None:
                continue
            for row, answer in rows.items():
                wrong += compare(actual[column][row], answer) is not None
        return None if wrong == 0 else "the table is not right (some of its cells are not)"


@dataclass
class Close(Judge):
    """The default comparison with its own tolerance (a numeric optimiser's answer)."""
    rel: float = 0.0
    abs_: float = 1e-4
    kind = "close"

    def __call__(self, actual, expected, case=None):
        return compare(actual, expected, Tolerance(rel=self.rel, abs_=self.abs_))


@dataclass
class Optimum(Judge):
    """Probabilities found by an optimiser: within ``abs_`` of the optimum, and if not,
    whether they are probabilities at all and whether the optimiser climbed or went
    downhill (less likely than the uniform start under the optimum's own shares).
    ``floor_at`` is the position of the case's floor argument (``smallest``), if it has one:
    values that do not add up to 1 under a floor are told the map that keeps both."""
    abs_: float = 1e-4
    floor_at: int = -1
    kind = "optimum"

    def __call__(self, actual, expected, case=None):
        if compare(actual, expected, Tolerance(rel=0.0, abs_=self.abs_)) is None:
            return None
        if not isinstance(actual, list) or len(actual) != len(expected) or \
                not all(_number(a) for a in actual):
            return f"expected a list of {len(expected)} probabilities, got {describe_value(actual)}"
        floor = self._floor(case)
        if any(a < -self.abs_ for a in actual) or abs(sum(actual) - 1) > self.abs_:
            return self._not_probabilities(actual, floor)
        if floor > 0 and any(a < floor - self.abs_ for a in actual):  # not "downhill"
            return (f"some of your probabilities are below the floor smallest = {floor:g}: "
                    "map the scores with smallest + (1 - J * smallest) * exp(z) / "
                    "sum(exp(z)), which never goes below it")
        import math
        uniform = sum(e * math.log(1 / len(expected)) for e in expected if e > 0)
        if all(a > 0 for a in actual) and sum(
                e * math.log(a) for e, a in zip(expected, actual) if e > 0) < uniform:
            return ("your probabilities are less likely than the uniform start: the optimiser "
                    "went downhill. minimize finds a minimum, so give it the *negative* "
                    "log-likelihood")
        return f"not within {self.abs_:g} of the maximum (got {describe_value(actual)})"

    def _floor(self, case) -> float:
        """The case's floor (0 without one), from its arguments as the answer got them."""
        args = getattr(case, "args", ()) or ()
        floor = args[self.floor_at] if 0 <= self.floor_at < len(args) else 0
        return float(floor) if _number(floor) else 0.0

    def _not_probabilities(self, actual, floor: float) -> str:
        total = sum(actual)
        said = f"your values are not probabilities (they add up to {total:.4g})"
        if floor <= 0:
            return f"{said}: map the scores with exp(z) / sum(exp(z))"
        if abs(total - 1 - len(actual) * floor) <= self.abs_ * len(actual):
            return (f"{said}: the floor is added to shares that already add up to 1; "
                    "scale those shares by (1 - J * smallest) to leave room for it: "
                    "smallest + (1 - J * smallest) * exp(z) / sum(exp(z))")
        return (f"{said}: with a floor, map the scores with smallest + (1 - J * smallest) "
                "* exp(z) / sum(exp(z)), which adds up to 1 and keeps every value above it")


@dataclass
class AsDict(Judge):
    """The default comparison, for a dict that the notebook's later cells use as a dict
    (``max(scores, key=scores.get)``, ``scores.values()``): a Series or a DataFrame with
    the right values is refused with the conversion, since those cells would break on it.
    ``used_by`` names them in the message."""
    used_by: str = "the later questions"
    rel: float = 1e-6
    abs_: float = 1e-9
    kind = "as_dict"

    def __call__(self, actual, expected, case=None):
        tolerance = Tolerance(rel=self.rel, abs_=self.abs_)
        problem = compare(actual, expected, tolerance)
        if problem is not None:
            rounded = case is None or not getattr(case, "hidden", False)
            return form_note(actual, expected, tolerance, rounded=rounded) or problem
        if isinstance(actual, FromPandas):
            how = "series.to_dict()" if actual.form == "Series" else \
                "frame.iloc[0].to_dict() (one row: its first row as a dict)"
            return (f"the numbers are right but a pandas {actual.form}: the question asks "
                    f"for a dict, and it is used as one by {self.used_by} (its keys in a "
                    f"loop, .values(), max(d, key=d.get)), which a {actual.form} breaks: "
                    f"return {how}")
        return decimal_problem(actual, expected, floats=True)  # used by later cells


JUDGES = {cls.kind: cls for cls in (Within, OneOf, SameKeys, ZerosAndOnes, Numbers, Table,
                                     Close, Optimum, AsDict)}


def from_json(data: dict | None) -> Judge | None:
    if data is None:
        return None
    data = dict(data)
    kind = data.pop("judge")
    if kind not in JUDGES:
        raise ValueError(f"unknown judge {kind!r}; this nbcourse knows {sorted(JUDGES)}")
    return JUDGES[kind](**data)


__all__ = ["Judge", "Within", "OneOf", "SameKeys", "ZerosAndOnes", "Numbers", "Table", "Close",
           "Optimum", "AsDict", "from_json"]
