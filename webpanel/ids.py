"""The ``id`` URL converter: every id and number in a path (games, tournaments, rounds, tables, players).

``<id:game_id>`` matches 1 to 18 ASCII digits and gives an ``int``: anything
else ("abc", "-1", "²", a number too large for SQLite's 64-bit integers) is
no route, so a plain 404, before any view or database sees it. Werkzeug's
own ``int`` converter takes any length (an OverflowError in SQLite) and a
string route with ``str.isdigit`` takes "²" (a ValueError in ``int``).
"""

from __future__ import annotations

from flask import Flask
from werkzeug.routing import BaseConverter

MAX_DIGITS = 18
MAX_ID = 10**MAX_DIGITS - 1
"""The largest id a path can name (below 2**63 - 1, SQLite's largest integer)."""

ID_SCHEMA = {"type": "integer", "minimum": 0, "maximum": MAX_ID}
"""What the OpenAPI document says of a path id."""


class IdConverter(BaseConverter):
    """A whole number of 1 to :data:`MAX_DIGITS` ASCII digits."""

    regex = rf"[0-9]{{1,{MAX_DIGITS}}}"
    part_isolating = True

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: object) -> str:
        number = int(value)  # type: ignore[call-overload]  # as werkzeug's int converter: 5 or "5"
        if not 0 <= number <= MAX_ID:
            raise ValueError(f"not an id: {value!r}")
        return str(number)


def path_id(name: str, description: str | None = None) -> dict[str, object]:
    """An OpenAPI path parameter taking an id."""
    parameter: dict[str, object] = {"name": name, "in": "path", "required": True, "schema": dict(ID_SCHEMA)}
    if description:
        parameter["description"] = description
    return parameter


def init_app(app: Flask) -> None:
    """Register the converter (before the blueprints, whose rules use it)."""
    app.url_map.converters["id"] = IdConverter
