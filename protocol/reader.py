"""The bounded reader: every MQTT payload of the event network, both ends, goes through :func:`read_object`.

It refuses, with a :class:`~protocol.exc.MessageError` saying why, anything
:mod:`protocol.limits` does not allow: too many bytes, text that is not UTF-8,
nesting deeper than :data:`~protocol.limits.MAX_DEPTH` (checked on the text
*before* parsing it, so a hostile depth never reaches the parser's recursion),
integers beyond 64 bits, NaN and infinities, strings, arrays and objects beyond
their bounds, and anything that is not a JSON object.

Every check before the parser is done by the standard library's C code (string
replacements, a regular expression, counting), so an honest message costs little
more than parsing it; the values are walked one by one only when the text shows
something that may be out of bounds (a long string, many elements, a long
number, an escaped surrogate).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from protocol import limits
from protocol.exc import MessageError

_STRUCTURE = b'[]{}"'
_NOT_STRUCTURE = bytes(sorted(set(range(256)) - set(_STRUCTURE)))
_PAIRED = bytes.maketrans(b"[]{}", b"()()")
_OUTSIDE_STRINGS = b"0123456789+-.eEtrufalsnNIiy,: \t\r\n"
"""What JSON holds outside its strings: numbers, true, false, null, and NaN and Infinity (the parser hands
these two to its hook, to be refused)."""
_NUMERIC = bytes.maketrans(b"0123456789E-", b"0000000000e+")
"""Every digit the same, so a number's shape is a plain substring: ``0`` × 19 may not fit 64 bits,
``0e000`` or ``0e+000`` may be infinite (either is then checked exactly, by the walk)."""
_LONG_STRING = re.compile(b'"[^"]{%d,}"' % (limits.MAX_STRING + 1))
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Scan:
    """What the text shows before it is parsed: its depth is within the bound (or it was refused), and
    whether its values need walking one by one."""

    suspicious: bool


def read_object(payload: bytes, *, limit: int, what: str) -> dict[str, Any]:
    """The JSON object *payload* holds, read within the bounds (*limit*: its bytes at most)."""
    value, scan = parse_object(payload, limit=limit, what=what)
    if scan.suspicious:
        check_values(value, what)
    return value


def parse_object(payload: bytes, *, limit: int, what: str) -> tuple[dict[str, Any], Scan]:
    """The first half of :func:`read_object`: the size, the text, the depth and the syntax checked; the
    values are to be checked with :func:`check_values` when the scan says so (a caller may read where
    the message belongs first, to name it in the refusal)."""
    if len(payload) > limit:
        raise MessageError(f"{what} is {len(payload)} bytes, more than {limit}")
    try:
        text = bytes(payload).decode("utf-8")
    except UnicodeDecodeError:
        raise MessageError(f"{what} is not UTF-8 text") from None
    scan = scan_text(bytes(payload), what)
    try:
        value = json.loads(text, parse_constant=_constant)
    except (ValueError, RecursionError):  # RecursionError cannot happen: the depth is bounded already
        raise MessageError(f"{what} is not JSON") from None
    if not isinstance(value, dict):
        raise MessageError(f"{what} is not a JSON object")
    return value, scan


def scan_text(payload: bytes, what: str) -> Scan:
    """Refuse *payload* if its arrays and objects nest deeper than :data:`~protocol.limits.MAX_DEPTH`, or
    its brackets do not pair up (never parsed, then); say whether its values need the walk.

    Escaped backslashes and quotes are marked first, so every quote left opens or closes a string;
    outside the strings only the brackets are kept (in a text that is not JSON, anything else there is
    kept too, and the text refused), and the innermost pairs are taken away, one level a pass: a text
    is as deep as the passes it takes to empty it. This is exact on every text JSON accepts, so the
    parser never goes deeper than the bound. It works on the bytes (no byte of a multi-byte UTF-8
    character is a quote, a backslash or a bracket), with the standard library's C code only (byte
    translations, replacements, searches), a few passes over the message."""
    marked = payload.replace(b"\\\\", b"\x01").replace(b'\\"', b"\x01")
    # Only the brackets and quotes, each string's two quotes taken away: what is left is the brackets
    # outside the strings, unless a string holds a bracket (or is never closed), when quotes are left.
    skeleton = marked.translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    outside: bytes | None = None
    if b'"' in skeleton:
        outside = b"".join(marked.split(b'"')[0::2])
        brackets = outside.translate(_PAIRED, _OUTSIDE_STRINGS)
    else:
        brackets = skeleton.translate(_PAIRED)
    passes = 0
    while b"()" in brackets and passes <= limits.MAX_DEPTH:
        brackets = brackets.replace(b"()", b"")
        passes += 1
    # Brackets left unpaired: the parser would go as deep as the pairs and the unclosed ones, at most.
    if passes + brackets.count(b"(") > limits.MAX_DEPTH:
        raise MessageError(f"{what} nests arrays and objects more than {limits.MAX_DEPTH} deep")
    if brackets:
        raise MessageError(f"{what} is not JSON")
    shape = marked.translate(_NUMERIC)  # in a string too: then only walked for nothing
    number = b"0" * 19 in shape or b"0e000" in shape or b"0e+000" in shape or b"NaN" in marked \
        or b"Infinity" in marked
    if number:
        outside = b"".join(marked.split(b'"')[0::2]) if outside is None else outside
        # No number of the protocol has 41 digits (a 64-bit integer has 19, a double's shortest text 17):
        # refused before the parser converts it (which takes time growing with the square of them).
        if b"0" * 41 in outside.translate(_NUMERIC):
            raise MessageError(f"{what} holds a number of more than 40 digits")
    # A string's characters are at most its text's (an escape is two characters or more for one).
    suspicious = (
        number
        or _LONG_STRING.search(marked) is not None
        or marked.count(b",") >= limits.MAX_ITEMS
        or _ESCAPED_SURROGATE.search(payload) is not None
    )
    return Scan(suspicious)


def check_values(value: Any, what: str, **where: Any) -> None:
    """Refuse numbers, strings, keys, arrays and objects beyond their bounds (a walk with its own stack:
    the depth is bounded already, but a walk needs no recursion either). *where*: the refused outbox
    row's place (:class:`~protocol.exc.MessageError`)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, OutOfBounds):
            raise MessageError(f"{what}: {item.reason}", **where)
        if isinstance(item, bool):
            continue
        if isinstance(item, int):
            if not limits.MIN_INT <= item <= limits.MAX_INT:
                raise MessageError(f"{what}: the integer {_digits(item)} does not fit 64 bits", **where)
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise MessageError(f"{what}: the number {item} is not finite", **where)
        elif isinstance(item, str):
            if len(item) > limits.MAX_STRING:
                raise MessageError(
                    f"{what} holds a string of {len(item)} characters, more than {limits.MAX_STRING}",
                    **where,
                )
            if not item.isascii() and _SURROGATE.search(item):
                # JSON may escape half a UTF-16 pair; no database nor page can hold it.
                raise MessageError(f"{what} holds a string that is not text (a lone surrogate)", **where)
        elif isinstance(item, dict):
            if len(item) > limits.MAX_ITEMS:
                raise MessageError(f"{what} holds an object of more than {limits.MAX_ITEMS} members", **where)
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            if len(item) > limits.MAX_ITEMS:
                raise MessageError(f"{what} holds an array of more than {limits.MAX_ITEMS} elements", **where)
            stack.extend(item)


class OutOfBounds:
    """A number the protocol never allows (NaN, an infinity), as the parser found it: refused by
    :func:`check_values`."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"<{self.reason}>"


def _constant(text: str) -> OutOfBounds:
    return OutOfBounds(f"{text} is not a number the protocol allows")


def _digits(value: int) -> str:
    # A number of thousands of digits is not written out whole (str() of it is slow, and long).
    return str(value) if value.bit_length() <= 80 else f"of {value.bit_length()} bits"
