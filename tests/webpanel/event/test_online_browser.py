"""A round played online, in a real browser: staff make the tables' games and read the seat links
(on a TV, a tablet and a phone, in French and English), and a player at home opens their link."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from store.event.settings import EventSettings
from tests.store.event.helpers import a_tournament
from tests.webpanel import helpers, i18n_checks
from tests.webpanel.test_pages_browser import LAYOUT_PROBLEMS, SHOWN_TEXT
from webpanel.app import close_app, create_app

pytestmark = pytest.mark.browser

ARTIFACTS = i18n_checks.REPO / "test-artifacts" / "pages" / "online"
SIZES = [(1920, 1080), (820, 1180), (390, 844)]
TOUCH = {(820, 1180), (390, 844)}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[helpers.Served, int]]:
    app: Flask = create_app(
        {
            "PANEL": helpers.make_settings(tmp_path),
            "TESTING": True,
            "EVENT": EventSettings(event="online", database=tmp_path / "central.db"),
        }
    )
    conn = app.extensions["db_pool"].get()
    tid = a_tournament(conn, 8)
    conn.execute("UPDATE tournaments SET name = 'Tournoi de Paris' WHERE id = ?", (tid,))  # no English
    serving = helpers.Served(app)
    app.config["LOBBY_PUBLIC_URL"] = serving.url  # as [lobby] public_url names the server on the internet
    yield serving, tid
    serving.close()
    close_app(app)


def logged_in(browser: Any, url: str, lang: str) -> Any:
    page = browser.new_context(locale="fr-FR" if lang == "fr" else "en-GB").new_page()
    page.goto(url + "/staff/login")
    page.fill("#pin", helpers.PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(re.compile(r"/event$"))  # the event server's staff page: the event's
    page.wait_for_selector("#boards")
    return page


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_staff_send_the_links_and_a_player_at_home_takes_their_seat(
    served: tuple[helpers.Served, int], browser: Any, lang: str
) -> None:
    server, tid = served
    page = logged_in(browser, server.url, lang)
    errors = helpers.watch_errors(page, [])
    page.goto(f"{server.url}/event/tournaments/{tid}/rounds/1/online")
    page.click("#make-online")
    page.wait_for_selector("#table-2 .seat-links code")
    links = page.locator("#table-1 .seat-links code").all_text_contents()
    assert len(links) == 4 and all(link.startswith(server.url + "/j/") for link in links)
    problems: list[str] = []
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        (ARTIFACTS / lang).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / lang / f"online-{size[0]}x{size[1]}.png"), full_page=True)
        problems += [f"{size[0]}×{size[1]}: {p}" for p in page.evaluate(LAYOUT_PROBLEMS, size in TOUCH)]
    if lang == "fr":
        english = i18n_checks.english_words_in(page.evaluate(SHOWN_TEXT))
        assert english == [], f"the online round in French shows English: {english}"
    assert problems == [], "\n".join(problems)
    # A player at home opens the link they were sent: their device takes the seat, and staff see it.
    player = browser.new_context().new_page()
    player.goto(links[0])
    player.wait_for_url("**/games/*")
    page.reload()
    page.wait_for_selector("#table-1-seat-0")
    assert page.locator("#table-1-seat-0 code").count() == 0
    assert errors == []
