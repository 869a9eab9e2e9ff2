"""The panel's languages: French and English, with Flask-Babel.

Every string a person reads is marked for translation: ``_()`` /
``ngettext()`` in Python (from :mod:`flask_babel`) and in templates, and the
same two functions imported from ``/static/panel.js`` in the pages' scripts.
Babel extracts them all (``babel.cfg``) into ``webpanel/translations/``
(docs/webpanel.md, "Languages").

A request's language is, in this order: ``?lang=`` in the address (not
remembered: a display can be set up with it), the language switch of every
page (a cookie), the browser's ``Accept-Language``, the configured
``[panel] language`` (French out of the box).

The pages' scripts get their catalogue in the page (a JSON data block of
``base.html``): the messages of the ``.po`` file that appear in a script, and
the texts of the API's error codes in that language (:data:`ERROR_TEXTS`).
In the page rather than fetched, so it is there, synchronously, the moment
``panel.js`` runs.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from babel.messages.pofile import read_po
from flask import Blueprint, Flask, abort, current_app, redirect, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import Babel, force_locale, get_locale
from flask_babel.speaklater import LazyString
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from webpanel import error_texts
from webpanel.config import LANGUAGES

TRANSLATIONS = Path(__file__).parent / "translations"
DOMAIN = "messages"
COOKIE = "hautetension_lang"
COOKIE_MAX_AGE = 365 * 24 * 3600
QUERY = "lang"

LANGUAGE_NAMES = {"fr": "Français", "en": "English"}
"""Each language in its own words, as the switch shows it."""

bp = Blueprint("i18n", __name__)

ERROR_TEXTS: dict[str, LazyString] = dict(error_texts.TEXTS)
"""What a page shows for an API error ``code``, by code (the API's ``error`` stays English): every
code's text is in :mod:`webpanel.error_texts`, the lobby's included."""


def select_language() -> str:
    """The language of this request (see the module's docstring for the order)."""
    asked = request.args.get(QUERY)
    if asked in LANGUAGES:
        return asked
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    best = request.accept_languages.best_match(LANGUAGES)
    if best:
        return best
    language: str = current_app.config["PANEL"].language
    return language


def language() -> str:
    """The current request's language code (``"fr"``, ``"en"``)."""
    return str(get_locale() or current_app.config["PANEL"].language)


def init_app(app: Flask) -> None:
    Babel(app, locale_selector=select_language, default_translation_directories=str(TRANSLATIONS))
    app.register_blueprint(bp)
    app.jinja_env.globals.update(
        language=language,
        language_names=LANGUAGE_NAMES,
        script_catalogue=script_catalogue,
        this_page=this_page,
    )
    app.jinja_env.policies["ext.i18n.trimmed"] = True  # {% trans %} blocks: whitespace as in the .po


# -- the language switch ------------------------------------------------------------------------


@bp.get("/language/<lang>")
def choose_language(lang: str) -> ResponseReturnValue:
    """The switch of every page (a link): remember the language and go back where the visitor was.
    A link, not a form: a preference cookie is no secret to guard, and it works without a script."""
    if lang not in LANGUAGES:
        abort(404)
    response = redirect(_local_path(request.args.get("next")) or url_for("board.home"), code=303)
    response.set_cookie(
        COOKIE, lang, max_age=COOKIE_MAX_AGE, samesite="Lax", httponly=True,
        secure=current_app.config["PANEL"].secure_cookies,
    )
    response.headers["Cache-Control"] = "no-store"
    return response


def this_page() -> str:
    """This page's address without ``?lang=`` (where the switch comes back to)."""
    query = [(k, v) for k, v in request.args.items(multi=True) if k != QUERY]
    return request.path + ("?" + urlencode(query) if query else "")


def _local_path(target: str | None) -> str | None:
    """*target* if it is a path on this panel (never another site's address), else None."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return None
    return target


# -- the scripts' catalogue ---------------------------------------------------------------------


@functools.cache
def _script_messages(lang: str) -> dict[str, str | list[str]]:
    """The translated messages of *lang* that appear in a script, by message id (a plural's by
    its singular; ``context\\x04id`` with a context)."""
    path = TRANSLATIONS / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    messages: dict[str, str | list[str]] = {}
    for message in catalog:
        if not message.id or message.fuzzy or not any(f.endswith(".js") for f, _ in message.locations):
            continue
        key = message.id[0] if isinstance(message.id, tuple | list) else message.id
        if message.context:
            key = f"{message.context}\x04{key}"
        if isinstance(message.string, tuple | list):
            if all(message.string):
                messages[key] = list(message.string)
        elif message.string:
            messages[key] = message.string
    return messages


def catalogue(lang: str) -> dict[str, Any]:
    """The catalogue of the pages' scripts in *lang*: their messages and the error texts."""
    with force_locale(lang):
        errors = {code: str(text) for code, text in sorted(ERROR_TEXTS.items())}
    return {"lang": lang, "messages": _script_messages(lang), "errors": errors}


@functools.cache
def _catalogue_json(lang: str) -> Markup:
    # In a <script type="application/json"> block: htmlsafe_json_dumps escapes <, >, & and '.
    return htmlsafe_json_dumps(catalogue(lang), sort_keys=True, separators=(",", ":"))


def script_catalogue() -> Markup:
    """The current language's catalogue as JSON for base.html, which puts it in the page: a data
    block, not a script (the Content-Security-Policy allows it), read by panel.js when it loads."""
    return _catalogue_json(language())
