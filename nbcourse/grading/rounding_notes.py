"""What ``check()`` can say of a graded value's rounding from the student's value alone.

The grader knows the expected value and says "your value has only 2 decimal places" only
when it is that value rounded (``values.rounded_places``).  ``check()`` does not know it, so
it judges the number itself: few decimals look rounded, unless the number is a simple share
(0.45 = 9/20), one a public case allows (05's alphas), or an exact count over the number a
judge names (``exact_over``: 66 / 75 = 0.88).
"""
from __future__ import annotations

import math

from .judges import from_json
from .values import Tolerance, compare, rounded_places

#: A graded value of few decimals is taken as exact (not rounded) in ``check()`` only when it
#: is a share of denominator up to this: 0.45 = 9/20 is exact, 0.88 = 22/25 is the 0.875 of
#: 06 q9 rounded far more often than a share of 25.
VALUE_SHARES = 20


def value_rounded_to(spec, value, where: str = "") -> tuple[int, str] | None:
    """(places, where) of the number of a graded value that looks rounded to the fewest
    places (``values.rounded_places``; ``where`` is its key or index, ``['spread_a']``),
    where a number of three or more places is also exact as a share of up to twice
    ``VALUE_SHARES`` (04 q5's right 0.575 is 23/40; a rounding to 3 places, 0.382, is
    not), and one a public case allows is exact."""
    if isinstance(value, (dict, list)):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        found = [f for key, item in items
                 if (f := value_rounded_to(spec, item, f"{where}[{key!r}]"))]
        return min(found, key=lambda f: f[0]) if found else None
    if an_allowed_value(spec, value):
        return None
    places = rounded_places(value, spec.tolerance, VALUE_SHARES)
    if places is None or places >= 3 and \
            rounded_places(value, spec.tolerance, 2 * VALUE_SHARES) is None:
        return None
    return places, where


def an_allowed_value(spec, value) -> bool:
    """Whether ``value`` is one of the few values a public case allows (05's alphas), or
    an exact count over the number a case's judge names (``exact_over``): such a value
    was not rounded, however few its decimals."""
    for case in spec.cases:
        judge = from_json(case.get("judge"))
        allowed = getattr(judge, "values", None) or []
        if any(type(value) is not bool and compare(value, v, Tolerance()) is None
               for v in allowed):
            return True
        if _exact_share(value, getattr(judge, "exact_over", 0)):
            return True
    return False


def _exact_share(value, over: int) -> bool:
    """Whether ``value`` is a count over ``over`` that no rounding can have made: 66/75 =
    0.88, or 570/800 = 0.7125; not 0.71, since every number of two places is a count over
    800, rounded or not."""
    if not over or type(value) not in (int, float) or not math.isfinite(value):
        return False
    places = next((p for p in range(7) if round(value, p) == value), None)
    return places is not None and over % 10 ** places != 0 and \
        abs(value * over - round(value * over)) < 1e-9 * over
