"""The panel's languages: the catalogues are complete, nothing a person reads is left outside them,
French pages show no English, and each request gets the language it should (docs/webpanel.md,
"Languages")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import flask_babel
import pytest
from babel.messages.catalog import Catalog
from flask import Flask
from flask.testing import FlaskClient

from tests.webpanel import helpers, i18n_checks
from tests.webpanel.helpers import Api, FakeService
from tools import catalogs
from webpanel import i18n
from webpanel.app import close_app, create_app
from webpanel.config import PanelSettings

# -- the catalogues --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def template() -> Catalog:
    """Every marked string of the panel, extracted as `make catalogs` does."""
    return catalogs.extract()


def test_every_marked_string_is_translated_in_french_and_english(template: Catalog) -> None:
    missing = list(catalogs.problems(template))
    assert missing == [], "\n".join(missing)


def test_the_check_catches_a_string_missing_from_the_catalogues(template: Catalog) -> None:
    grown = Catalog()
    for message in template:
        if message.id:
            grown.add(message.id, None, message.locations, context=message.context)
    grown.add("A sentence nobody translated", None, [("webpanel/templates/x.html", 1)])
    missing = list(catalogs.problems(grown))
    assert [m.split(":")[0] for m in missing] == ["fr", "en"]
    assert all("A sentence nobody translated" in m for m in missing)


def test_the_check_catches_a_wrong_placeholder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A translation that drops a message's %(name)s would show a raw placeholder or fail."""
    monkeypatch.setattr(catalogs, "TRANSLATIONS", tmp_path)
    for lang in catalogs.LANGUAGES:
        catalog = Catalog(locale=lang)
        catalog.add("%(name)s to play", "À %(nom)s de jouer" if lang == "fr" else "%(name)s to play",
                    flags=["python-format"])
        catalogs.write(catalog, lang)
    problems = list(catalogs.problems(Catalog()))
    assert len(problems) == 1 and problems[0].startswith("fr:") and "placeholder" in problems[0]


def test_the_compiled_catalogues_are_those_of_the_po_files() -> None:
    for lang in catalogs.LANGUAGES:
        mo = catalogs.mo_path(lang)
        assert mo.exists(), f"{mo} is missing: run make translations"
        fresh = catalogs.compiled(catalogs.read(lang))
        assert mo.read_bytes() == fresh, f"{mo} is stale: run make translations"


def test_plurals_follow_each_language(app: Flask) -> None:
    """« 0 pion restant, 1 pion restant, 2 pions restants »; "0 pawns left, 1 pawn left"."""
    def left(lang: str, n: int) -> str:
        with app.test_request_context(), i18n.force_locale(lang):
            return str(flask_babel.ngettext("%(num)d pawn left", "%(num)d pawns left", n))

    assert [left("fr", n) for n in (0, 1, 2)] == ["0 pion restant", "1 pion restant", "2 pions restants"]
    assert [left("en", n) for n in (0, 1, 2)] == ["0 pawns left", "1 pawn left", "2 pawns left"]


# -- strings outside the catalogue -----------------------------------------------------------------


def _relative(path: Path) -> str:
    return str(path.relative_to(i18n_checks.REPO))


@pytest.mark.parametrize("path", i18n_checks.translated_files("**/templates/**/*.html"), ids=_relative)
def test_templates_mark_every_string_people_read(path: Path) -> None:
    assert i18n_checks.unmarked_template_strings(path.read_text()) == []


@pytest.mark.parametrize("path", i18n_checks.translated_files("**/static/**/*.js"), ids=_relative)
def test_scripts_mark_every_string_people_read(path: Path) -> None:
    assert list(i18n_checks.unmarked_script_strings(path.read_text())) == []


@pytest.mark.parametrize("path", i18n_checks.translated_files("**/static/**/*.js"), ids=_relative)
def test_every_message_of_a_script_reaches_the_catalogue(path: Path, template: Catalog) -> None:
    """Babel's extractor skips a call nested in another's arguments: such a message would stay English."""
    extracted = {(m.context, m.id[0] if isinstance(m.id, tuple | list) else m.id) for m in template if m.id}
    called = i18n_checks.script_messages(path.read_text())
    missed = [(line, context, message) for line, context, message in called
              if (context, message) not in extracted]
    assert missed == []


def test_the_extraction_check_finds_a_nested_call() -> None:
    source = ('var a = _("%(n)s left", { n: ngettext("%(num)d pawn", "%(num)d pawns", k) });\n'
              'pgettext("c", "m");')
    assert i18n_checks.script_messages(source) == [(1, None, "%(n)s left"), (1, None, "%(num)d pawn"),
                                                   (2, "c", "m")]


def test_the_template_check_finds_text_and_attributes_left_in_english() -> None:
    source = """{% extends "base.html" %}{% block body_class %}page-x{% endblock %}
<h1>{{ _("Board health") }}</h1>
<p>Board health</p>
<button aria-label="Close the panel">{% trans %}Close{% endtrans %}</button>
<input type="submit" value="Send">
<p>{{ count }} · Haute-Tension</p>"""
    found = i18n_checks.unmarked_template_strings(source)
    assert found == [(3, "Board health"), (4, "aria-label='Close the panel'"), (5, "value='Send'")]


def test_the_script_check_finds_sentences_left_in_english() -> None:
    source = """import { _, el } from "/static/panel.js";
var ok = _("Game over.");
var plural = ngettext("%(num)d pawn left", "%(num)d pawns left", n, { x: "y" });
el("li", { "class": "seat out" }, "Game over.");
var label = "Board service";
if (e.key === "Enter") { headers["Content-Type"] = "application/json"; }
document.querySelector('input[name="pawn"]:checked');
"""
    found = list(i18n_checks.unmarked_script_strings(source))
    assert found == [(4, "Game over."), (5, "Board service")]


# -- pages in French -------------------------------------------------------------------------------

PAGES = ["/", "/board", "/board?kiosk=1", "/sim", "/staff/login"]
"""The panel's pages (the staff pages after the login)."""
STAFF_PAGES = ["/staff", "/staff/tests", "/staff/game", "/staff/journal"]


@pytest.fixture
def french(client: FlaskClient, service: FakeService) -> FlaskClient:
    client.set_cookie(i18n.COOKIE, "fr")
    return client


@pytest.mark.parametrize("path", PAGES)
def test_a_french_page_shows_no_english(french: FlaskClient, path: str) -> None:
    page = french.get(path)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert i18n_checks.page_language(html) == "fr"
    assert i18n_checks.english_words(html) == []


@pytest.mark.parametrize("path", STAFF_PAGES)
def test_a_french_staff_page_shows_no_english(french: FlaskClient, path: str) -> None:
    assert Api(french).login().status_code == 200
    page = french.get(path)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert i18n_checks.page_language(html) == "fr"
    assert i18n_checks.english_words(html) == []


def test_the_english_words_check_reads_text_and_attributes_but_not_what_says_it_is_english() -> None:
    html = """<html lang="fr"><body><h1>Plateau en direct</h1><p>Game over</p>
<button aria-label="Close the board">x</button><p lang="en">the pawn on c3 was lifted</p>
<script>var x = "the board";</script><input type="text" value="Player 1"></body></html>"""
    assert i18n_checks.english_words(html) == ["Close", "Game", "Player", "board", "over", "the"]


# -- choosing the language -------------------------------------------------------------------------


def _lang(client: FlaskClient, path: str = "/board", **kwargs: Any) -> str | None:
    return i18n_checks.page_language(client.get(path, **kwargs).get_data(as_text=True))


def test_french_out_of_the_box(client: FlaskClient) -> None:
    assert _lang(client) == "fr"


def test_the_browser_language_comes_before_the_default(client: FlaskClient) -> None:
    assert _lang(client, headers={"Accept-Language": "en-GB,en;q=0.8"}) == "en"
    assert _lang(client, headers={"Accept-Language": "de-DE,fr;q=0.5,en;q=0.3"}) == "fr"
    assert _lang(client, headers={"Accept-Language": "de-DE"}) == "fr"  # none we have: the default


def test_the_configured_default(tmp_path: Path) -> None:
    app = create_app({"PANEL": helpers.make_settings(tmp_path, language="en"), "TESTING": True})
    try:
        assert _lang(app.test_client()) == "en"
        assert _lang(app.test_client(), headers={"Accept-Language": "fr"}) == "fr"
    finally:
        close_app(app)


def test_the_switch_remembers_the_choice_and_comes_back(client: FlaskClient) -> None:
    answer = client.get(
        "/language/en", query_string={"next": "/sim?kiosk=1"}, headers={"Accept-Language": "fr"}
    )
    assert answer.status_code == 303 and answer.headers["Location"] == "/sim?kiosk=1"
    cookie = answer.headers["Set-Cookie"]
    assert f"{i18n.COOKIE}=en" in cookie and "Max-Age=" in cookie and "SameSite=Lax" in cookie
    assert _lang(client, headers={"Accept-Language": "fr"}) == "en"  # the choice beats the browser's


def test_the_address_beats_the_choice_without_changing_it(client: FlaskClient) -> None:
    client.set_cookie(i18n.COOKIE, "en")
    assert _lang(client, "/board?kiosk=1&lang=fr") == "fr"
    assert _lang(client) == "en"


def test_the_switch_comes_back_to_this_page_without_its_lang(client: FlaskClient) -> None:
    html = client.get("/board?kiosk=1&lang=en").get_data(as_text=True)
    assert 'href="/language/fr?next=/board?kiosk%3D1"' in html


@pytest.mark.parametrize("target", ["https://elsewhere.example/", "//elsewhere.example/x", "/\\evil", ""])
def test_the_switch_never_sends_elsewhere(client: FlaskClient, target: str) -> None:
    answer = client.get("/language/fr", query_string={"next": target})
    assert answer.status_code == 303 and answer.headers["Location"] == "/"


def test_the_switch_refuses_a_language_it_does_not_have(client: FlaskClient) -> None:
    answer = client.get("/language/de", query_string={"next": "/board"})
    assert answer.status_code == 404 and "Set-Cookie" not in answer.headers
    client.set_cookie(i18n.COOKIE, "de")  # a cookie from elsewhere: ignored
    assert _lang(client, headers={"Accept-Language": "en"}) == "en"


def test_the_language_setting_is_checked() -> None:
    assert PanelSettings.from_section({"language": "en"}).language == "en"
    assert PanelSettings.from_section({}).language == "fr"
    with pytest.raises(ValueError, match="language"):
        PanelSettings.from_section({"language": "de"})


def test_every_page_has_the_switch(client: FlaskClient) -> None:
    html = client.get("/board").get_data(as_text=True)
    assert re.search(r'<a href="/language/en\?next=/board" lang="en" hreflang="en">English</a>', html)
    current = r'<a href="/language/fr\?next=/board" lang="fr" hreflang="fr" aria-current="true">Français</a>'
    assert re.search(current, html)


# -- the scripts' catalogue ------------------------------------------------------------------------


def _script_catalogue(html: str) -> Any:
    block = re.search(r'<script type="application/json" id="i18n-catalogue">(.*?)</script>', html, re.S)
    assert block is not None
    return json.loads(block.group(1))


def test_the_scripts_get_their_messages_and_the_error_texts_in_the_page(client: FlaskClient) -> None:
    data = _script_catalogue(client.get("/board").get_data(as_text=True))
    assert data["lang"] == "fr"
    assert data["messages"]["%(name)s to play"] == "À %(name)s de jouer"
    assert data["messages"]["%(num)d pawn left"] == ["%(num)d pion restant", "%(num)d pions restants"]
    assert data["messages"]["connection\u0004live"] == "en direct"
    assert "Live board" not in data["messages"]  # a template's, not a script's
    assert data["errors"]["wrong_pin"] == "Code incorrect."
    english = _script_catalogue(client.get("/board?lang=en").get_data(as_text=True))
    assert english["lang"] == "en" and english["errors"]["wrong_pin"] == "Wrong PIN."


def test_the_catalogue_in_the_page_cannot_end_its_block(monkeypatch: pytest.MonkeyPatch, app: Flask) -> None:
    """A translation holding "</script>" stays text in the JSON block."""
    monkeypatch.setitem(i18n.ERROR_TEXTS, "x", flask_babel.lazy_gettext("</script><script>alert(1)</script>"))
    i18n._catalogue_json.cache_clear()
    try:
        html = app.test_client().get("/board").get_data(as_text=True)
        assert "</script><script>alert" not in html
        assert _script_catalogue(html)["errors"]["x"] == "</script><script>alert(1)</script>"
    finally:
        i18n._catalogue_json.cache_clear()


def test_every_api_error_code_has_a_page_text_and_every_text_is_a_code(app: Flask) -> None:
    """A page shows an error by its code (errorText): a code the API answers without a text would
    show the English sentence on a French page, and a text for a code the API never sends is a guess."""
    import webpanel.event.api
    import webpanel.event.online
    import webpanel.lobby.remote
    import webpanel.ranking.api
    import webpanel.table  # noqa: F401  # the event server's (ranking, online rounds) and the board's event codes too
    from webpanel.errors import CODES

    assert sorted(set(CODES) - set(i18n.ERROR_TEXTS)) == [], "API codes without a page text"
    assert sorted(set(i18n.ERROR_TEXTS) - set(CODES)) == [], "page texts for codes the API does not have"


def test_every_error_text_reaches_the_pages_in_french(client: FlaskClient) -> None:
    from webpanel.errors import CODES

    french = _script_catalogue(client.get("/board").get_data(as_text=True))["errors"]
    english = _script_catalogue(client.get("/board?lang=en").get_data(as_text=True))["errors"]
    for code in CODES:
        assert french[code] and french[code] != english[code], code
    assert french["too_many_wrong_pins"] == (
        "Trop de codes incorrects\u00a0: attendez %(retry_after)s\u00a0s, puis réessayez."
    )


# -- flashed messages ------------------------------------------------------------------------------

TRANSLATING = {"_", "gettext", "ngettext", "pgettext", "npgettext", "refusal_text", "error_text"}
"""What a flashed message may be made by: the catalogue, or the helpers that say an error in the page's
language (by its code) or mark its English as English."""


BABEL_GETTEXT = {"flask_babel", "webpanel.tournament_words"}  # the second: Flask-Babel's gettext, typed


def flashed_messages_left_in_english(source: str) -> list[tuple[int, str]]:
    """Each ``flash(...)`` whose message is not made by the catalogue (a literal, an f-string, an
    exception's own English, or a ``_`` that is not Flask-Babel's), with its line."""
    import ast

    tree = ast.parse(source)
    babel = any(
        isinstance(node, ast.ImportFrom) and node.module in BABEL_GETTEXT
        and any((alias.asname or alias.name) == "_" for alias in node.names)
        for node in ast.walk(tree)
    )
    local = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "flash"):
            continue
        message = node.args[0] if node.args else None
        name = None
        if isinstance(message, ast.Call):
            name = getattr(message.func, "id", None) or getattr(message.func, "attr", None)
        if name == "_" and not babel:
            found.append((node.lineno, "_ is not Flask-Babel's gettext"))
        elif isinstance(message, ast.Name) or (name is not None and name in local):
            continue  # a value this module made (each checked where it is made)
        elif name not in TRANSLATING:
            found.append((node.lineno, ast.unparse(message) if message is not None else "nothing"))
    return found


@pytest.mark.parametrize(
    "path", i18n_checks.translated_files("**/*.py"), ids=lambda p: str(p.relative_to(i18n_checks.REPO))
)
def test_flashed_messages_go_through_the_catalogue(path: Path) -> None:
    assert flashed_messages_left_in_english(path.read_text(encoding="utf-8")) == []


def test_the_flash_check_finds_english_left_as_it_is() -> None:
    source = '''
from webpanel.translation_marks import _
def a(exc, raw):
    flash(_("Round made."), "ok")
    flash(str(exc), "error")
    flash(f"not {raw!r}", "error")
    flash(exc.message, "error")
'''
    assert [line for line, _ in flashed_messages_left_in_english(source)] == [4, 5, 6, 7]
    babel = source.replace("webpanel.translation_marks", "flask_babel")
    assert [line for line, _ in flashed_messages_left_in_english(babel)] == [5, 6, 7]
