"""The grader's side of the probe: what it asks a kernel, and how it reads the reply.

The probe itself (``probe_source``) is installed in each fresh kernel before any
student cell runs (``install_expression``) and reached later from a literal
(``probe_expression``), so no probe names anything in the student's namespace.  Its
reply comes back as the ``text/plain`` of a user expression: it is refused unread when
longer than the batch's ``GradingLimits.reply_mb``, decoded with ``base64`` and ``json`` only
(``parse_probe_result``), and cut to the fields and types a reply may have
(``checked_reply``) before scoring reads it.
"""
from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path

from .limits import MB

PROBE_SOURCE = Path(__file__).with_name("probe_source.py").read_text(encoding="utf-8")


def install_expression(class_name: str) -> str:
    """The expression that defines the probe in a fresh kernel (see ``runner.KernelSession.install_probe``).

    Evaluated before any student cell, so ``exec``, ``__import__`` and ``globals`` are
    still Python's own; the probe's functions get a private copy of the builtins and
    remember the user namespace itself, so later probes name nothing in it.
    """
    # sys.modules keeps it alive: nothing else refers to the class or its globals
    code = (f"{PROBE_SOURCE}\n"
            f"class {class_name}:\n"
            f"    reply = staticmethod(lambda mark, request, _ns=__nbcourse_user_ns__: "
            f"nbcourse_reply(_ns, mark, request))\n"
            f"import types\n"
            f"sys.modules[{class_name!r}] = types.ModuleType({class_name!r})\n"
            f"sys.modules[{class_name!r}].probe = {class_name}\n")
    return (f"exec({code!r}, {{'__builtins__': __import__('builtins').__dict__.copy(), "
            f"'__name__': 'nbcourse_grading_probe', '__nbcourse_user_ns__': globals()}})")


def probe_expression(class_name: str, mark: str, request: dict, max_chars: int) -> str:
    """One Python *expression* whose value is the installed probe's reply to ``request``,
    at most ``max_chars`` long (sent as ``reply_chars``: the probe replaces a longer reply
    by a short "too large").

    It reaches the probe from a literal, through ``object.__subclasses__()``, so no name
    is looked up in the student's namespace (where ``exec`` may be the student's).
    """
    literal = json.dumps({**request, "reply_chars": int(max_chars)}, allow_nan=False)
    return (f"[c for c in ().__class__.__base__.__subclasses__() "
            f"if c.__name__ == {class_name!r}][0].reply({mark!r}, {literal!r})")


def parse_probe_result(result, mark: str, max_chars: int) -> dict:
    """The report in a user expression's result (``{"status", "data": {"text/plain"}}``).

    The text is the ``repr`` of ``mark + base64(JSON) + mark``; it is refused before any
    parsing when longer than ``max_chars``, and read with ``base64`` and ``json``
    only, so the grader's memory stays a small multiple of that bound.
    """
    if not isinstance(result, dict):
        return {"unreadable_report": "the grader's probe printed nothing it could read"}
    if result.get("status") != "ok":
        # the error's name is the kernel's choice: not shown, as nothing else of it is
        return {"unreadable_report": "the grader's probe failed in your kernel"}
    data = result.get("data")
    text = data.get("text/plain") if isinstance(data, dict) else None
    if not isinstance(text, str):
        return {"unreadable_report": "the grader's probe printed nothing it could read"}
    if len(text) > max_chars:
        return {"unreadable_report": "the answer is larger than the grader reads "
                                     f"({max_chars / MB:g} MB as JSON)"}
    pieces = text.split(mark)
    if len(pieces) != 3 or pieces[0] not in ("'", '"') or pieces[2] != pieces[0]:
        return {"unreadable_report": "the grader's probe printed nothing it could read"}
    try:
        report = json.loads(base64.b64decode(pieces[1], validate=True).decode("utf-8"))
    except (ValueError, binascii.Error, RecursionError):
        return {"unreadable_report": "the probe's output is not valid JSON"}
    if not isinstance(report, dict):
        return {"unreadable_report": "the probe's output is not a report"}
    if "unreadable_report" in report:  # the grader's own words, not the kernel's
        return {"unreadable_report": "the probe's reply is malformed"}
    if report.get("too_large") is True:
        return {"unreadable_report": "the answer is larger than the grader reads "
                                     f"({max_chars / MB:g} MB as JSON)"}
    return report


_SHORT = 200  # a student-made string in a report: a class name, an error message


def _short(text) -> str:
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


def checked_reply(reply: dict, request: dict) -> dict:
    """Only the fields a probe may send, each of the type it must have.

    Whatever the kernel sent, the result has one of the shapes scoring reads: a
    runner-made ``unreadable_report``, ``missing``, ``not_callable`` (a short string),
    ``value``/``unreadable`` for a value, or one outcome per case; an outcome that is
    not ``{"value": ...}`` or ``{"error"|"unreadable"|"grader_error": short text}``
    becomes ``{"malformed": True}``, which fails that case only.
    """
    if "unreadable_report" in reply and set(reply) == {"unreadable_report"}:
        return reply  # made by parse_probe_result, not by the kernel
    if reply.get("question") != request["question"] or reply.get("name") != request["name"]:
        return {"unreadable_report": "the probe's reply does not belong to this question"}
    clean = {"question": request["question"], "name": request["name"]}
    if reply.get("missing") is True:
        return dict(clean, missing=True)
    if "not_callable" in reply:
        kind = reply["not_callable"]
        return dict(clean, not_callable=_short(kind)) if isinstance(kind, str) else \
            {"unreadable_report": "the probe's reply is malformed"}
    if request["kind"] == "value":
        if "value" in reply:
            return dict(clean, value=reply["value"])
        if isinstance(reply.get("unreadable"), str):
            return dict(clean, unreadable=_short(reply["unreadable"]))
        return {"unreadable_report": "the probe's reply is malformed"}
    cases = reply.get("cases")
    if not isinstance(cases, list) or len(cases) != len(request["cases"]):
        return {"unreadable_report": "the probe's reply has the wrong number of results"}
    outcomes = []
    for outcome in cases:
        (key, body), = outcome.items() if isinstance(outcome, dict) and len(outcome) == 1 \
            else (("malformed", True),)
        if key == "value":
            outcomes.append({"value": body})
        elif key in ("error", "unreadable", "grader_error") and isinstance(body, str):
            outcomes.append({key: _short(body)})
        else:
            outcomes.append({"malformed": True})
    return dict(clean, cases=outcomes)
