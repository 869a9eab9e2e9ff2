"""The room's wall display in a real browser: every board live, the round's tables, the standings.

Drives Debian's Chromium through Playwright against the event server served by
waitress (the real Content-Security-Policy); the boards' reports are stored as
the ingest stores them, and the page must follow them without a reload.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from protocol import LiveReport
from store.event.assignments import Assignments
from store.event.intake import Intake
from tests.store.event.helpers import Reports, a_tournament, boards_online, send
from tests.webpanel.helpers import Served, watch_errors

pytestmark = pytest.mark.browser


def _live(pawns: dict[str, int], lit: list[str]) -> LiveReport:
    seats = [
        {"name": n, "colour": c, "lamp": lamp, "eliminated": False}
        for n, c, lamp in (
            ("P1", "red", "N"),
            ("P2", "blue", "E"),
            ("P3", "black", "S"),
            ("P4", "white", "W"),
        )
    ]
    return LiveReport(
        {
            "id": len(pawns),
            "layout": "pinwheel-80",
            "pawns": {s: {"owner": o} for s, o in pawns.items()},
            "lamps": {"lit": lit, "test": False, "safe": False},
            "game": {"id": 1, "status": "running", "view": {"seats": seats, "to_move": 1}},
        }
    )


@pytest.fixture
def served_event(event_app: Flask) -> Iterator[Served]:
    serving = Served(event_app)
    yield serving
    serving.close()


def test_the_wall_shows_every_board_live_and_follows_them(
    served_event: Served, browser: Any, conn: sqlite3.Connection, intake: Intake, tmp_path: Path
) -> None:
    boards_online(intake, "board-1", "board-2", "board-3")
    tid = a_tournament(conn, 12)
    Assignments(conn).assign_round(tid)
    running = {
        "id": 1,
        "status": "running",
        "to_move": "P2",
        "paused": False,
        "players": ["P1", "P2", "P3", "P4"],
    }
    send(intake, "board-1", [Reports("board-1").status(game=running), _live({"f9": 0, "f8": 1}, [])])
    page = browser.new_page(viewport={"width": 1920, "height": 1080})  # the TV across the room
    errors = watch_errors(page)
    page.goto(f"{served_event.url}/event/wall?kiosk=1")
    page.wait_for_selector("#wall-board-board-3")
    card = page.locator("#wall-board-board-1")
    assert card.locator("h3").text_content() == "Table 1"
    assert (
        card.locator("[data-slot=f9].occupied").count() == 1 and card.locator(".slot.occupied").count() == 2
    )
    assert "P2 to play" in (card.locator(".state").text_content() or "")
    assert page.locator("#standings tr").count() == 12
    assert page.locator("#tables li").count() == 3
    assert "to start" in (page.locator("#tables li").nth(1).text_content() or "")
    assert "Paris open — round 1" in (page.text_content("#wall-title") or "")

    # A pawn on the board, a lamp lit, a board gone: the wall follows, no reload.
    send(intake, "board-1", [_live({"f9": 0, "f8": 1, "f7": 0}, ["N"])])
    page.wait_for_selector("#wall-board-board-1 [data-slot=f7].occupied", timeout=10_000)
    page.wait_for_selector("#wall-board-board-1 [data-lamp=N].lit", timeout=10_000)
    send(intake, "board-2", [Reports("board-2").status(online=False)])
    page.wait_for_selector("#wall-board-board-2.offline", timeout=10_000)
    page.screenshot(path=str(tmp_path / "wall.png"))
    assert errors == []


@pytest.mark.parametrize("db_location", ["sqlite"], indirect=True)  # a layout: one engine is enough
def test_the_wall_reads_on_a_phone(
    served_event: Served, browser: Any, conn: sqlite3.Connection, intake: Intake
) -> None:
    boards_online(intake, "board-1")
    a_tournament(conn, 4)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    errors = watch_errors(page)
    page.goto(f"{served_event.url}/event/wall")
    page.wait_for_selector("#wall-board-board-1")
    # The standings come first on a narrow screen, above the boards.
    standings_top = page.locator(".wall-standings").bounding_box()
    board_top = page.locator("#wall-board-board-1").bounding_box()
    assert standings_top is not None and board_top is not None and standings_top["y"] < board_top["y"]
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing wider than the phone
    assert errors == []


FITS = """() => ({ width: document.scrollingElement.scrollWidth,
  height: document.scrollingElement.scrollHeight,
  cut: Array.from(document.querySelectorAll('#wall *')).filter(e => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && (r.right > innerWidth + 1 || r.bottom > innerHeight + 1);
  }).map(e => e.id || e.className || e.tagName).slice(0, 8) })"""


def _event_with_results(conn: sqlite3.Connection, intake: Intake, boards: int, players: int) -> int:
    """*boards* boards online, a tournament of *players* in round 2 with round 1's results in, and a game
    running on the first board."""
    from games.hautetension.outcome import Lighting
    from store.tournaments import Tournaments

    names = [f"board-{n}" for n in range(1, boards + 1)]
    boards_online(intake, *names)
    tid = a_tournament(conn, players)
    store = Tournaments(conn)
    first = store.load(tid).round(1)
    for table in first.tables:
        lightings = [Lighting((s,)) for s in range(1, len(table.seats))]
        store.record(tid, lambda t, n=table.number, x=lightings: t.enter_result(1, n, x), actor="test")
    store.record(tid, lambda t: t.next_round(), actor="test")
    Assignments(conn).assign_round(tid)
    last = store.load(tid).round(2).tables[-1]  # a table of this round done too: "result in"
    lightings = [Lighting((s,)) for s in range(1, len(last.seats))]
    store.record(tid, lambda t: t.enter_result(2, last.number, lightings), actor="test")
    running = {"id": 1, "status": "running", "to_move": "P2", "paused": False,
               "players": ["P1", "P2", "P3", "P4"]}
    send(intake, "board-1", [Reports("board-1").status(game=running), _live({"f9": 0, "f8": 1}, ["N"])])
    return tid


@pytest.mark.parametrize("db_location", ["sqlite"], indirect=True)  # a layout: one engine is enough
@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)], ids=["tv", "hd"])
@pytest.mark.parametrize("field", [(3, 12), (10, 40)], ids=["3-boards", "10-boards"])
def test_the_wall_fits_one_screen(
    served_event: Served, browser: Any, conn: sqlite3.Connection, intake: Intake, tmp_path: Path,
    size: tuple[int, int], locale: str, field: tuple[int, int],
) -> None:
    """A screen nobody scrolls: everything on it at TV sizes, nothing cut at the right or the bottom;
    the standings too long for it are shown a page at a time."""
    boards, players = field
    _event_with_results(conn, intake, boards, players)
    width, height = size
    page = browser.new_context(locale=locale, viewport={"width": width, "height": height}).new_page()
    errors = watch_errors(page)
    page.clock.install()  # the page's own timers, moved on below instead of waited for
    page.goto(f"{served_event.url}/event/wall?kiosk=1")
    page.wait_for_selector(f"#wall-board-board-{boards}")
    page.wait_for_selector("#standings tr")
    page.wait_for_selector("#tables li.state-done", state="attached")
    page.wait_for_timeout(300)  # the boards' drawings and the pages settle
    fit = page.evaluate(FITS)
    page.screenshot(path=str(tmp_path / f"wall-{boards}-{locale}-{width}x{height}.png"))
    assert (fit["width"], fit["height"]) == (width, height), fit
    assert fit["cut"] == [], fit
    shown = page.locator("#standings tr:not([hidden])").count()
    if players > shown:  # the rest come page by page, as on the tournament's wall
        label = page.locator("#wall-standings-page")
        shown_page = label.text_content() or ""
        at, count = (int(n) for n in shown_page.split("/"))
        assert 1 <= at <= count and count == -(-players // shown), shown_page
        first = page.locator("#standings tr:not([hidden]) td:nth-child(2)").first.text_content()
        # The next page comes by itself, after the wall's PAGE_SECONDS (10 s).
        page.clock.run_for(10_000)
        page.wait_for_function(
            "shown => document.getElementById('wall-standings-page').textContent !== shown", arg=shown_page,
            timeout=5_000,
        )
        assert page.locator("#standings tr:not([hidden]) td:nth-child(2)").first.text_content() != first
        assert page.evaluate(FITS)["cut"] == []
    assert errors == []
