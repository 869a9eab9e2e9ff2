"""The event server's pages say what is there, in a real browser, in French and English: its menu
leads to the wall display (it has no board of its own, so no "Live board" showing an empty one), and
a board's card on the wall names the table it played once the result is in, never "no table
assigned" beside "game over". Screenshots at a TV (1920×1080), a tablet (820×1180) and a phone
(390×844) go to ``test-artifacts/pages/``."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from store.event.assignments import Assignments
from store.event.intake import Intake
from store.event.results import Results
from tests.store.event.helpers import Reports, a_tournament, boards_online, send, table_of
from tests.webpanel import helpers, i18n_checks
from tests.webpanel.test_pages_browser import ARTIFACTS, SHOWN_TEXT, TIMEOUT_MS

pytestmark = [pytest.mark.browser, pytest.mark.parametrize("db_location", ["sqlite"], indirect=True)]

SIZES = [(1920, 1080), (820, 1180), (390, 844)]
WORDS = {
    "fr": {"done": "Manche 1, table 1\u00a0: résultat reçu", "playing": "Manche 1, table 2",
           "none": "aucune table", "over": "partie terminée", "wall": "Affichage mural",
           "live": "Plateau en direct"},
    "en": {"done": "Round 1, table 1: result in", "playing": "Round 1, table 2",
           "none": "no table assigned", "over": "game over", "wall": "Wall display", "live": "Live board"},
}


@pytest.fixture
def served_event(event_app: Flask) -> Iterator[helpers.Served]:
    serving = helpers.Served(event_app)
    yield serving
    serving.close()


def _table_one_played(conn: sqlite3.Connection, intake: Intake) -> None:
    """Three boards with round 1's tables; board 1 played its table to the end, every seat agreed
    and the result entered the tournament (its table is no longer assigned to it)."""
    boards_online(intake, "board-1", "board-2", "board-3")
    tid = a_tournament(conn, 12)
    Assignments(conn).assign_round(tid)
    mine = next(a for a in Assignments(conn).of_round(tid, 1) if a.board == "board-1")
    table = table_of(conn, tid, 1, mine.table)
    reports = Reports("board-1")
    send(intake, "board-1", reports.game(1, **table, assignment=mine.id))
    send(intake, "board-1", [reports.agree(1, list(range(len(table["players"]))))])
    send(intake, "board-1", [reports.status(game={"id": 1, "status": "over"})])
    assert [r.status for r in Results(conn).settle()] == ["entered"]


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_board_whose_result_is_in_names_the_table_it_played(
    served_event: helpers.Served, browser: Any, conn: sqlite3.Connection, intake: Intake, lang: str
) -> None:
    _table_one_played(conn, intake)
    words = WORDS[lang]
    page = browser.new_context(locale="fr-FR" if lang == "fr" else "en-GB").new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = helpers.watch_errors(page)
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(served_event.url + "/event/wall")
        page.wait_for_selector("#wall-board-board-3 .table:not(:empty)")
        one = page.locator("#wall-board-board-1")
        assert one.locator(".state").text_content() == words["over"]
        assert one.locator(".table").text_content() == words["done"]
        assert page.locator("#wall-board-board-2 .table").text_content() == words["playing"]
        assert words["none"] not in (page.text_content("#boards") or "")
        folder = ARTIFACTS / lang
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"event-wall-result-in-{size[0]}x{size[1]}.png"), full_page=True)
        if lang == "fr":
            shown = page.evaluate(SHOWN_TEXT).replace("Paris open", "")  # the tournament's name
            assert i18n_checks.english_words_in(shown) == []
    assert errors == []


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_event_servers_menu_leads_to_what_it_has(
    served_event: helpers.Served, browser: Any, conn: sqlite3.Connection, intake: Intake, lang: str
) -> None:
    """A visitor's menu offers the wall, not a live board; a staff member's the event's page, not the
    pages of a board the event server does not have; the old address of the live board leads to the
    wall."""
    boards_online(intake, "board-1")
    words = WORDS[lang]
    context = browser.new_context(locale="fr-FR" if lang == "fr" else "en-GB")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.set_viewport_size({"width": 1920, "height": 1080})
    errors = helpers.watch_errors(page)
    page.goto(served_event.url + "/tournaments")
    menu = page.locator("#site-nav a").all_text_contents()
    assert words["wall"] in menu and words["live"] not in menu, menu
    page.click(f"#site-nav a:text-is('{words['wall']}')")
    page.wait_for_url(re.compile(r"/event/wall$"))
    page.wait_for_selector("#wall-board-board-1")
    page.goto(served_event.url + "/board")
    page.wait_for_url(re.compile(r"/event/wall$"))
    page.wait_for_selector("#wall-board-board-1")
    # Staff: the event's page; none of a board's own (its health, tests, game, journal, wiring).
    page.goto(served_event.url + "/staff/login")
    page.fill("#pin", helpers.PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(re.compile(r"/event$"))  # staff's page on the event server: the event's
    page.wait_for_selector("#boards")
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(served_event.url + "/event")
        hrefs = page.eval_on_selector_all("#site-nav a", "links => links.map(a => a.getAttribute('href'))")
        assert "/event" in hrefs and "/event/wall" in hrefs, hrefs
        board_pages = {"/board", "/staff", "/staff/tests", "/staff/game", "/staff/journal", "/staff/wiring"}
        assert not board_pages & set(hrefs), hrefs
        folder = ARTIFACTS / lang
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"event-menu-{size[0]}x{size[1]}.png"))
    assert errors == []
    context.close()
