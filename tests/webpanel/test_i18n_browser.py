"""The languages in a real browser: the page's scripts speak the page's language (their catalogue,
plurals), the switch on every page changes it and the choice is remembered."""

from __future__ import annotations

from typing import Any

import pytest

from tests.webpanel import helpers

pytestmark = pytest.mark.browser

TIMEOUT_MS = 10_000

PLURALS = """() => import("/static/panel.js").then(p =>
  [0, 1, 2].map(n => p.ngettext("%(num)d pawn left", "%(num)d pawns left", n)))"""


def _page(browser: Any, locale: str) -> tuple[Any, list[str]]:
    page = browser.new_context(locale=locale).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    return page, helpers.watch_errors(page)


def test_a_french_browser_gets_french_pages_and_the_switch_makes_them_english(
    browser: Any, served: Any, service: Any
) -> None:
    page, errors = _page(browser, "fr-FR")
    page.goto(served.url + "/board")
    page.wait_for_selector("#conn[data-state=live]")
    assert page.get_attribute("html", "lang") == "fr"
    assert page.text_content("#turn") == "Aucune partie en cours."  # drawn by the script
    assert page.text_content("#conn") == "en direct"
    assert page.evaluate(PLURALS) == ["0 pion restant", "1 pion restant", "2 pions restants"]
    page.click(".languages a[hreflang=en]")
    page.wait_for_selector("html[lang=en]")
    page.wait_for_selector("#conn[data-state=live]")
    assert page.url == served.url + "/board"
    assert page.text_content("#turn") == "No game running."
    assert page.evaluate(PLURALS) == ["0 pawns left", "1 pawn left", "2 pawns left"]
    page.goto(served.url + "/staff/login")  # remembered on the next page, whatever the browser asks
    assert page.get_attribute("html", "lang") == "en"
    assert page.text_content("h1") == "Staff service mode"
    assert errors == []


def test_an_error_is_shown_in_the_page_language_by_its_code(browser: Any, served: Any, service: Any) -> None:
    page, errors = _page(browser, "fr-FR")
    # The API's error code is translated; without a code the API's English sentence is shown as English.
    page.route("**/api/staff/login", lambda route: route.fulfill(
        status=401, content_type="application/json", body='{"error": "wrong PIN", "code": "wrong_pin"}'))
    page.goto(served.url + "/staff/login")
    page.fill("#pin", "1")
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#login-msg:has-text('Code incorrect.')")
    assert page.get_attribute("#login-msg", "lang") is None
    page.unroute("**/api/staff/login")
    page.route("**/api/staff/login", lambda route: route.fulfill(
        status=401, content_type="application/json", body='{"error": "wrong PIN"}'))
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#login-msg:has-text('wrong PIN')")
    assert page.get_attribute("#login-msg", "lang") == "en"
    assert [e for e in errors if "401" not in e] == []
