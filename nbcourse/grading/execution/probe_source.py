"""The code the grader sends into a student's kernel to read one answer.

This file is never imported by the kernel: the grader pastes its text into a cell
(``probe_cell``), so the probe does not depend on what the student's notebook did to
``sys.path`` or to the ``nbcourse`` package.  It is imported normally by the grader
and by the tests, which is how the encoder stays the same on both sides.

The probe only *reports* what the student's code returns, as plain JSON between two
copies of an unguessable marker.  It holds no expected value, so nothing a student
cell patches (``float.__eq__``, ``numpy.isclose``, ``json`` ...) can change a grade:
the grader parses the JSON in its own process and compares there.

The grader installs this code once, when the kernel starts and before any student cell
runs (``install``): it then holds its own copy of the builtins and of the modules it
uses, so a student who later defines ``exec``, rebinds a builtin or replaces ``json`` in
``sys.modules`` changes nothing the probe calls.  A student who deliberately digs the
installed probe out of the kernel's memory can still make it report anything: the
kernel is theirs.  So the grader trusts none of it: the reply is bounded in size,
checked field by field, and never shown for a hidden case.
"""

import base64
import json
import sys
from fractions import Fraction

#: The longest text the grader reads back from one probe (its ``text/plain``): a few MB
#: hold 200,000 numbers; anything longer is refused before it is parsed.
MAX_REPLY_CHARS = 4 * 2**20
#: The longest class name or message the probe passes on (the grader cuts again).
MAX_TEXT = 200


def nbcourse_probe(user_ns, mark, request_json, emit=None):
    """Evaluate the answer named in ``request_json`` and print the result as JSON.

    ``emit`` replaces printing when the grader itself encodes an expected value.
    """
    max_items = 200_000  # a larger answer is a bug or an attack, not an answer
    state = {"items": 0}

    class TooLarge(Exception):
        pass

    def count():
        state["items"] += 1
        if state["items"] > max_items:
            raise TooLarge(f"the answer has more than {max_items} values")

    def encode(value, depth=0):
        """Plain JSON for plain values; tagged objects for the rest."""
        count()
        if depth > 40:
            raise TooLarge("the answer is nested more than 40 levels deep")
        kind = type(value)
        module = getattr(kind, "__module__", "") or ""
        if value is None:
            return None
        if isinstance(value, bool):
            return bool(value)
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
        if isinstance(value, Fraction):
            return {"$fraction": [int(value.numerator), int(value.denominator)]}
        if module.startswith("numpy"):
            if hasattr(value, "tolist") and hasattr(value, "dtype"):
                if getattr(value.dtype, "kind", "") in "biufcUSO" and value.dtype.kind != "c":
                    return encode(value.tolist(), depth + 1)
            return {"$unsupported": short(str(kind.__name__))}
        if module.startswith("pandas"):
            if kind.__name__ == "Series":
                return {"$series": {"index": encode(list(value.index), depth + 1),
                                    "values": encode(value.tolist(), depth + 1)}}
            if kind.__name__ == "DataFrame":
                return {"$frame": {"columns": encode(list(value.columns), depth + 1),
                                   "index": encode(list(value.index), depth + 1),
                                   "data": encode(value.values.tolist(), depth + 1)}}
            return {"$unsupported": short(str(kind.__name__))}
        if module.startswith("scipy") and hasattr(value, "toarray"):
            return encode(value.toarray(), depth + 1)
        if isinstance(value, (list, tuple)):
            return [encode(item, depth + 1) for item in value]
        if isinstance(value, dict):
            return {"$dict": [[encode(k, depth + 1), encode(v, depth + 1)]
                              for k, v in value.items()]}
        if isinstance(value, (set, frozenset)):
            items = [encode(item, depth + 1) for item in value]
            return {"$set": sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}
        return {"$unsupported": short(str(kind.__name__))}

    def decode(value):
        """Inputs chosen by the grader, back into the objects the answer expects."""
        if isinstance(value, list):
            return [decode(item) for item in value]
        if not isinstance(value, dict):
            return value
        if "$tuple" in value:
            return tuple(decode(item) for item in value["$tuple"])
        if "$dict" in value:
            return {_hashable(decode(k)): decode(v) for k, v in value["$dict"]}
        if "$fraction" in value:
            return Fraction(*value["$fraction"])
        if "$float" in value:
            return float(value["$float"])
        if "$ndarray" in value:
            import numpy
            spec = value["$ndarray"]
            return numpy.array(decode(spec["data"]), dtype=spec["dtype"])
        if "$csr" in value:
            import scipy.sparse
            spec = value["$csr"]
            return scipy.sparse.csr_matrix((decode(spec["data"]), spec["indices"],
                                            spec["indptr"]), shape=tuple(spec["shape"]))
        if "$series" in value:
            import pandas
            spec = value["$series"]
            return pandas.Series(decode(spec["values"]), index=decode(spec["index"]),
                                 name=spec.get("name"))
        if "$frame" in value:
            import pandas
            spec = value["$frame"]
            frame = pandas.DataFrame(decode(spec["data"]), columns=decode(spec["columns"]))
            if spec.get("index") is not None:
                frame.index = decode(spec["index"])
            return frame
        raise ValueError(f"unknown input tag {sorted(value)}")

    def _hashable(key):
        return tuple(key) if isinstance(key, list) else key

    def short(text):
        return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 3] + "..."

    def describe(error):
        try:
            return short(f"{type(error).__name__}: {error}")
        except BaseException:  # noqa: BLE001 - a message that cannot even be printed
            return short(str(type(error).__name__))

    request = json.loads(request_json)
    name = request["name"]
    report = {"question": request["question"], "name": name}
    if name not in user_ns:
        report["missing"] = True
    else:
        answer = user_ns[name]
        if request["kind"] == "value":
            try:
                report["value"] = encode(answer)
            except Exception as error:  # the answer exists but cannot be read
                report["unreadable"] = describe(error)
        elif not callable(answer):
            report["not_callable"] = short(str(type(answer).__name__))
        else:
            results = []
            for case in request["cases"]:
                state["items"] = 0
                try:
                    args = decode(case["args"])
                    kwargs = decode(case.get("kwargs", {"$dict": []}))
                except Exception as error:
                    results.append({"grader_error": describe(error)})
                    continue
                try:
                    returned = answer(*args, **kwargs)
                except KeyboardInterrupt:
                    raise
                except BaseException as error:  # SystemExit from a student is an error too
                    results.append({"error": describe(error)})
                    continue
                try:
                    results.append({"value": encode(returned)})
                except Exception as error:
                    results.append({"unreadable": describe(error)})
            report["cases"] = results
    text = json.dumps(report, allow_nan=False)
    if emit is not None:
        emit(text)
        return
    sys.stdout.write(mark + text + mark + "\n")
    sys.stdout.flush()


def nbcourse_reply(user_ns, mark, request_json):
    """The probe's report as the value of an expression: JSON in base64 between markers.

    base64 survives the kernel's ``repr`` unchanged, so the grader reads it back with
    ``json`` alone (no Python parser); a reply longer than ``MAX_REPLY_CHARS`` is
    replaced by a short one saying so.
    """
    box = []
    nbcourse_probe(user_ns, mark, request_json, emit=box.append)
    text = base64.b64encode(box[0].encode("utf-8")).decode("ascii")
    if len(text) > MAX_REPLY_CHARS - 2 * len(mark) - 2:
        request = json.loads(request_json)
        too_large = {"question": request["question"], "name": request["name"],
                     "too_large": True}
        text = base64.b64encode(json.dumps(too_large).encode("utf-8")).decode("ascii")
    return mark + text + mark
