"""A database that cannot answer — its disk full, PostgreSQL stopped or restarting, a file it cannot
open — is an outage, not a bug: every page and API answers 503 with the reason and ``Retry-After``.

Any other database error (a bad statement, a constraint) is a bug and stays a 500. The outage's
reason is told in the page's language (``database_full``, ``database_unavailable`` in
:mod:`webpanel.error_texts`); a page asks for itself again after ``Retry-After``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, render_template_string, request
from flask_babel import gettext

from store.db import DatabaseError
from store.dialect import database_errors
from store.dialect import outage as database_outage
from webpanel.errors import ErrorCode, define_code, error_response, is_api, unexpected

log = logging.getLogger(__name__)

DATABASE_FULL = define_code(
    "database_full",
    "The database's disk is full: nothing can be written until staff free space (Retry-After).",
)
DATABASE_UNAVAILABLE = define_code(
    "database_unavailable",
    "The database is not answering (stopped, restarting or busy): retry (Retry-After).",
)
FULL_RETRY_S = 60
"""A full disk needs someone to free space: ask again in a minute."""
UNAVAILABLE_RETRY_S = 5
"""A database restarting is usually back within seconds."""


@dataclass(frozen=True)
class Outage:
    code: ErrorCode
    message: str
    retry_after: int


OUTAGES = {
    "full": Outage(DATABASE_FULL, "the database's disk is full", FULL_RETRY_S),
    "unavailable": Outage(DATABASE_UNAVAILABLE, "the database is not answering", UNAVAILABLE_RETRY_S),
}


PAGE = """<!doctype html>
<html lang="{{ lang }}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="{{ retry }}"><title>{{ title }}</title>
<link rel="stylesheet" href="{{ url_for('static', filename='panel.css') }}"></head>
<body><main><h1>{{ title }}</h1><p role="alert">{{ text }}</p></main></body></html>
"""
"""The page answered instead of any page: on its own (the panel's layout reads the database too)."""


def _page(outage: Outage) -> Response:
    from webpanel.error_texts import TEXTS
    from webpanel.i18n import language

    html = render_template_string(
        PAGE,
        lang=language(),
        title=gettext("Not available right now"),
        text=str(TEXTS[outage.code]) % {"retry_after": outage.retry_after},
        retry=outage.retry_after,
    )
    return Response(
        html, status=503, headers={"Retry-After": str(outage.retry_after), "Cache-Control": "no-store"}
    )


def init_app(app: Flask) -> None:
    def _database_error(exc: Exception) -> Any:
        # store.db's own error: the database file cannot be opened (or is newer than this program).
        kind = "unavailable" if isinstance(exc, DatabaseError) else database_outage(exc)
        if kind is None:
            return unexpected(exc)
        outage = OUTAGES[kind]
        log.error("%s on %s %s: %s", outage.message, request.method, request.path, str(exc).splitlines()[0:1])
        if is_api():
            return error_response(
                503,
                f"{outage.message}: retry in {outage.retry_after} s",
                outage.code,
                {"Retry-After": str(outage.retry_after)},
                {"retry_after": outage.retry_after},
            )
        return _page(outage)

    for error in database_errors():
        app.register_error_handler(error, _database_error)
