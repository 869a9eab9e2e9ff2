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
