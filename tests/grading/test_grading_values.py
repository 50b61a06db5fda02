"""The kernel boundary: what a probe reports, how it is read back, and how it is judged."""
from __future__ import annotations

import json
import math
import secrets
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nbcourse.grading.execution.replies import (checked_reply, install_expression,
                                                parse_probe_result, probe_expression)
from nbcourse.grading.execution.limits import MB, GradingLimits
from nbcourse.grading.execution.notebook_file import read_cells
from nbcourse.grading.values import (Tolerance, Unsupported, compare, decode_answer,
                                     encode_input, normalise)

LIMITS = GradingLimits()
REPLY_CHARS = LIMITS.reply_mb * MB
NOTEBOOK_BYTES = LIMITS.notebook_mb * MB


def _probe(namespace: dict, request: dict) -> dict:
    """The grader's real path, in this process: install the probe in ``namespace`` as in a
    fresh kernel, evaluate one probe expression there as the kernel evaluates a user
    expression, and read the reply back as the grader does."""
    name = f"NbcourseProbeTest{secrets.token_hex(8)}"
    eval(install_expression(name), namespace)  # noqa: S307 - our own probe code
    student_names = set(namespace)
    mark = f"@@nbcourse-{secrets.token_hex(16)}@@"
    value = eval(probe_expression(name, mark, request, REPLY_CHARS), namespace)  # noqa: S307
    assert set(namespace) == student_names, "a probe leaves nothing in the student's namespace"
    result = {"status": "ok", "data": {"text/plain": repr(value)}}
    return checked_reply(parse_probe_result(result, mark, REPLY_CHARS), request)


def test_probe_calls_the_function_on_rebuilt_inputs():
    table = pd.DataFrame({"colour": ["red", "blue"], "label": ["a", "b"]})
    request = {"question": "q1", "name": "f", "kind": "function",
               "cases": [{"args": encode_input((table, np.array([1.5, 2.0]), (1, 2))),
                          "kwargs": encode_input({"scale": Fraction(1, 3)})}]}

    def f(frame, array, pair, scale):
        assert isinstance(frame, pd.DataFrame) and list(frame.columns) == ["colour", "label"]
        assert isinstance(array, np.ndarray) and array.dtype == np.float64
        assert pair == (1, 2) and scale == Fraction(1, 3)
        return {"sum": np.float64(array.sum()) * scale, "labels": frame["label"].tolist()}

    report = _probe({"f": f}, request)
    (case,) = report["cases"]
    assert decode_answer(case["value"]) == {"sum": pytest.approx(3.5 / 3), "labels": ["a", "b"]}


def test_probe_reports_errors_missing_names_and_unreadable_answers():
    request = {"question": "q1", "name": "f", "kind": "function",
               "cases": [{"args": encode_input((1,)), "kwargs": encode_input({})}] * 2}
    calls = []

    def f(x):
        calls.append(x)
        if len(calls) == 1:
            raise KeyError("windy")
        return object()

    report = _probe({"f": f}, request)
    assert report["cases"][0] == {"error": "KeyError: 'windy'"}
    assert decode_answer(report["cases"][1]["value"]) == Unsupported("object")
    assert _probe({}, request) == {"question": "q1", "name": "f", "missing": True}
    assert _probe({"f": 3}, request)["not_callable"] == "int"


def test_a_value_that_lies_about_equality_arrives_as_a_plain_number():
    class Always(float):
        def __eq__(self, other):
            return True
        __hash__ = float.__hash__

    report = _probe({"p": Always(0.25)}, {"question": "q4", "name": "p", "kind": "value"})
    value = decode_answer(report["value"])
    assert type(value) is float and value == 0.25
    assert compare(value, 0.795) is not None


def test_huge_answers_are_refused_not_transferred():
    report = _probe({"p": list(range(300_000))}, {"question": "q", "name": "p", "kind": "value"})
    assert "more than" in report["unreadable"]


@pytest.mark.parametrize("text, problem", [
    ("no marker at all", "printed nothing"),
    ("@@m@@e30=@@m@@ @@m@@e30=@@m@@", "printed nothing"),
    ("@@m@@e25vdCBqc29u@@m@@", "not valid JSON"),
    ("@@m@@WzEsIDJd@@m@@", "not a report"),
])
def test_probe_output_is_accepted_only_between_exactly_two_markers(text, problem):
    result = {"status": "ok", "data": {"text/plain": repr(text)}}
    assert problem in parse_probe_result(result, "@@m@@", REPLY_CHARS)["unreadable_report"]


def test_only_the_expressions_own_value_is_read():
    """A marked report printed, or returned as another kind of output, is not the reply."""
    for data in ({"text/html": repr('@@m@@e30=@@m@@')}, {}, "@@m@@e30=@@m@@"):
        result = {"status": "ok", "data": data}
        assert "printed nothing" in parse_probe_result(result, "@@m@@", REPLY_CHARS)["unreadable_report"]


def test_normalise_gives_expected_values_the_students_form():
    series = pd.Series([0.25, 0.75], index=["no", "yes"])
    assert normalise(series) == {"no": 0.25, "yes": 0.75}
    assert normalise((np.int64(3), np.array([1.0, 2.0]))) == [3, [1.0, 2.0]]
    assert normalise(Fraction(2, 9)) == Fraction(2, 9)
    assert math.isnan(normalise(float("nan")))
    assert normalise(pd.DataFrame({"a": [1]}, index=["r"])) == {"a": {"r": 1}}


@pytest.mark.parametrize("actual, expected, ok", [
    (0.0053, 0.0053 * (1 + 1e-8), True),
    (0.0053, 0.0054, False),
    (1e-12, 0.0, True),                 # absolute tolerance for tiny probabilities
    (float("nan"), float("nan"), False),  # NaN never matches
    (float("-inf"), float("-inf"), True),
    (Fraction(2, 9), 2 / 9, True),
    (True, 1, False),                   # a bool is not a number here
    (1, True, False),
    ("no", "no", True),
    ("No", "no", False),
    ([1, 2], [1, 2, 3], False),
    ({"yes": 0.2, "no": 0.8}, {"no": 0.8, "yes": 0.2}, True),
    ({"yes": 0.2}, {"no": 0.8, "yes": 0.2}, False),
    (Unsupported("CategoricalNB"), 1.0, False),
])
def test_compare(actual, expected, ok):
    assert (compare(actual, expected) is None) is ok


def test_compare_never_quotes_the_expected_value():
    message = compare(0.0082, 0.005291005291)
    assert "0.0082" in message and "0.00529" not in message
    message = compare({"yes": 0.1}, {"yes": 0.005291005291})
    assert "'yes'" in message and "0.00529" not in message


def test_exact_comparison_of_fractions():
    assert compare(Fraction(1, 3), Fraction(1, 3), exact=True) is None
    assert compare(0.3333333333, Fraction(1, 3), exact=True) is not None
    assert compare(0.3333333333, Fraction(1, 3), Tolerance(rel=1e-6)) is None


def test_one_decoder_of_inputs_for_the_probe_the_grader_and_check():
    """The probe decoded the grader's inputs with a copy of ``values.decode_input``
    (issue 36): one decoder now, the probe's, which the grader and ``check()`` use."""
    import scipy.sparse as sp

    from nbcourse.grading import values
    from nbcourse.grading.execution import probe_source

    assert values.decode_input is probe_source.decode_input
    assert not hasattr(probe_source, "_decode")
    frame = pd.DataFrame({"outlook": ["sunny", "rain"], "n": [1, 2]}, index=[3, 4])
    inputs = (np.array([[1, 2]], dtype="int32"), frame, pd.Series([0.5], index=["a"],
              name="p"), sp.csr_matrix(np.eye(2)), Fraction(1, 3), float("inf"),
              {(1, (2, "x")): [None, True]})
    back = probe_source.decode_input(json.loads(json.dumps(encode_input(inputs))))
    assert isinstance(back, tuple) and back[0].dtype == np.int32
    pd.testing.assert_frame_equal(back[1], frame)
    pd.testing.assert_series_equal(back[2], inputs[2])
    assert sp.issparse(back[3]) and (back[3] != inputs[3]).nnz == 0
    assert back[4:] == inputs[4:]
    with pytest.raises(ValueError, match="unknown input tag"):
        probe_source.decode_input({"$tuple": [], "$dict": []})


def test_encode_input_rejects_objects_that_cannot_cross():
    with pytest.raises(TypeError, match="plain data"):
        encode_input(object())
    assert json.loads(json.dumps(encode_input(float("inf")))) == {"$float": "inf"}


def test_read_cells_on_hostile_files(tmp_path):
    cases = {
        "binary.ipynb": b"\x89PNG\r\n\x1a\n\x00\x00",
        "list.ipynb": b"[1, 2, 3]",
        "deep.ipynb": b"[" * 100_000 + b"]" * 100_000,
        "cells_not_list.ipynb": b'{"cells": "many", "nbformat": 4}',
        "bad_cell.ipynb": b'{"cells": [42], "nbformat": 4}',
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        verdict, reason, _ = read_cells(tmp_path / name, NOTEBOOK_BYTES)
        assert verdict == "not a notebook" and reason, name
    (tmp_path / "markdown_only.ipynb").write_text(json.dumps(
        {"cells": [{"cell_type": "markdown", "source": ["# hi"]}], "nbformat": 4,
         "nbformat_minor": 5, "metadata": {}}))
    assert read_cells(tmp_path / "markdown_only.ipynb", NOTEBOOK_BYTES)[0] == "empty"
    for strange in (tmp_path / "does_not_exist.ipynb", Path("/dev/zero"), tmp_path):
        verdict, reason, _ = read_cells(strange, NOTEBOOK_BYTES)
        assert verdict == "not a notebook" and reason == "not a regular file", strange
    (tmp_path / "huge.ipynb").write_bytes(b" " * (21 * 2**20))
    assert "larger than 20 MB" in read_cells(tmp_path / "huge.ipynb", NOTEBOOK_BYTES)[1]
