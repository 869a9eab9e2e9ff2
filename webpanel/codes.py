"""The API's error codes that more than one area answers with (see :func:`webpanel.errors.define_code`).

A tournament, a round's table and its result are asked for by the tournament
pages, the lobby (a table played as a digital game), the event server's online
rounds and the season's ranking: each answers a missing one with the same code.
An area's own codes stay in the area (``webpanel/lobby/codes.py``, beside its
routes), a core module's beside it (:mod:`webpanel.auth`, :mod:`webpanel.seats`).
"""

from __future__ import annotations

from webpanel.errors import define_code

TOURNAMENT_NOT_FOUND = define_code("tournament_not_found", "No tournament has this id.")
TABLE_NOT_FOUND = define_code("table_not_found", "The tournament has no such round or table.")
RESULT_EXISTS = define_code(
    "result_exists", "The table already has a result: send correction: true to replace it."
)
