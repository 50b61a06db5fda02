"""Text from submissions (file names, reasons): as text whatever its bytes
(``display_name``), and made safe to print on a terminal (``terminal_safe``).

A file named ``x\\n[8/8] alice graded 8 / 8`` or carrying an escape sequence must not
draw a fake line on the instructor's terminal: control characters (C0, DEL, C1) and the
bidirectional overrides that reorder what is shown are printed as ``\\x1b`` / ``\\u202e``.
"""
from __future__ import annotations

import os
import re

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text) -> str:
    """``text`` with every character that could move the cursor or reorder the line escaped."""
    return _UNSAFE.sub(_escape, str(text))


def display_name(name: str) -> str:
    """A file name as text whatever its bytes: undecodable bytes become ``\\xfc``."""
    return os.fsencode(name).decode("utf-8", errors="backslashreplace")
