"""The bounded reader: every MQTT payload of the event network, both ends, goes through :func:`read_object`.

It refuses, with a :class:`~protocol.exc.MessageError` saying why, anything
:mod:`protocol.limits` does not allow: too many bytes, text that is not UTF-8,
nesting deeper than :data:`~protocol.limits.MAX_DEPTH` (checked by scanning the
text *before* parsing it, so a hostile depth never reaches the parser's
recursion), integers beyond 64 bits, NaN and infinities, strings, arrays and
objects beyond their bounds, and anything that is not a JSON object.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from protocol import limits
from protocol.exc import MessageError

_SPECIAL = re.compile(r'["\\\[\]{}]')
"""What the depth scan looks at: string quotes, escapes and brackets (everything else is skipped in C)."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def read_object(payload: bytes, *, limit: int, what: str) -> dict[str, Any]:
    """The JSON object *payload* holds, read within the bounds (*limit*: its bytes at most)."""
    value = parse_object(payload, limit=limit, what=what)
    check_values(value, what)
    return value


def parse_object(payload: bytes, *, limit: int, what: str, **where: Any) -> dict[str, Any]:
    """The first half of :func:`read_object`: the size, the text, the depth and the syntax checked, the
    values not yet (a number out of bounds is held as an :class:`OutOfBounds`, refused by
    :func:`check_values`), so a caller can read where the message belongs before refusing it."""
    if len(payload) > limit:
        raise MessageError(f"{what} is {len(payload)} bytes, more than {limit}", **where)
    try:
        text = bytes(payload).decode("utf-8")
    except UnicodeDecodeError:
        raise MessageError(f"{what} is not UTF-8 text") from None
    check_depth(text, limits.MAX_DEPTH, what)
    try:
        value = json.loads(text, parse_int=_whole, parse_float=_real, parse_constant=_constant)
    except ValueError:
        raise MessageError(f"{what} is not JSON") from None
    if not isinstance(value, dict):
        raise MessageError(f"{what} is not a JSON object")
    return value


class OutOfBounds:
    """A number the protocol does not allow, as the parser found it (refused by :func:`check_values`)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"<{self.reason}>"


def check_depth(text: str, limit: int, what: str) -> None:
    """Refuse *text* if its arrays and objects nest deeper than *limit* (without recursing: one pass)."""
    if text.count("[") + text.count("{") <= limit:
        return  # not enough brackets to be too deep, whatever they hold
    depth, in_string, escaped = 0, False, -1
    for match in _SPECIAL.finditer(text):
        at = match.start()
        if at == escaped:
            continue
        char = text[at]
        if in_string:
            if char == "\\":
                escaped = at + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                raise MessageError(f"{what} nests arrays and objects more than {limit} deep")
        elif char in "]}":
            depth -= 1


def check_values(value: Any, what: str, **where: Any) -> None:
    """Refuse numbers, strings, keys, arrays and objects beyond their bounds (a walk with its own stack:
    the depth is bounded already, but a walk needs no recursion either). *where*: the refused outbox
    row's place (:class:`~protocol.exc.MessageError`)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, OutOfBounds):
            raise MessageError(f"{what}: {item.reason}", **where)
        if isinstance(item, str):
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


def _whole(text: str) -> int | OutOfBounds:
    # Twenty characters hold every 64-bit integer; longer is refused before int() reads it.
    value = int(text) if len(text) <= 20 else None
    if value is None or not limits.MIN_INT <= value <= limits.MAX_INT:
        return OutOfBounds(f"the integer {text[:24]}{'…' if len(text) > 24 else ''} does not fit 64 bits")
    return value


def _real(text: str) -> float | OutOfBounds:
    value = float(text)
    if not math.isfinite(value):
        return OutOfBounds(f"the number {text[:24]} is not finite")
    return value


def _constant(text: str) -> OutOfBounds:
    return OutOfBounds(f"{text} is not a number the protocol allows")
