"""The panel with the real board service (a child process on the simulated board)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from store.db import connect
from store.journal import Journal
from tests.webpanel.helpers import Api, start_game, wait_for


@pytest.fixture
def board_service(settings: Any) -> Iterator[subprocess.Popen[bytes]]:
    """``hautetension board --backend sim`` on the test's database, until its heartbeat shows."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hautetension",
            "board",
            "--backend",
            "sim",
            "--db",
            str(settings.database),
            "--min-turn",
            "0",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )

    def beating() -> bool:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else "exited"
        if not Path(settings.database).exists():
            return False
        conn = connect(settings.database)
        try:
            state = Journal(conn).state()
        finally:
            conn.close()
        return state is not None and bool(state.health)

    try:
        wait_for(beating, 30)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()


def test_api_with_the_real_service(served: Any, board_service: Any) -> None:
    staff = Api(served.app.test_client())
    assert staff.login().status_code == 200
    start_game(staff)
    board = staff.get("/api/board").get_json()
    assert board["service"]["running"] and board["backend"] == "sim"
    assert board["game"]["view"]["to_move"] == 0
    assert staff.post("/api/sim/slots/f9", {"pawn": "defense"}).status_code == 200
    board = wait_for(lambda: (b := staff.get("/api/board").get_json())["pawns"] and b)
    assert board["pawns"] == {"f9": {"owner": 0}}
    assert "defense" not in staff.get("/api/board").get_data(as_text=True)
    refused = staff.post("/api/sim/slots/f9", {"pawn": "attack"})
    assert refused.status_code == 409 and "already holds a pawn" in refused.get_json()["error"]
    slots = staff.get("/api/staff/slots")
    assert slots.status_code == 409
    health = staff.get("/api/staff/health").get_json()
    assert health["service"]["running"] and health["health"]["backend"] == "sim"
    assert staff.post("/api/staff/game/abandon").status_code == 200
    wait_for(lambda: staff.get("/api/board").get_json()["game"]["status"] == "abandoned")
    readings = staff.get("/api/staff/slots").get_json()["slots"]
    assert readings == {"f9": {"presence": True, "conduction": False}}


@pytest.mark.browser
def test_browser_with_the_real_service(served: Any, board_service: Any, browser: Any) -> None:
    from playwright.sync_api import expect

    staff = Api(served.app.test_client())
    staff.login()
    start_game(staff)
    live = browser.new_page()
    live.set_default_timeout(15_000)
    live.goto(served.url + "/board")
    sim = browser.new_page()
    sim.set_default_timeout(15_000)
    sim.goto(served.url + "/")
    for slot in ("f9", "f8", "f7", "f6", "f5"):
        sim.click(f"#slot-{slot}")
        live.wait_for_selector(f"#slot-{slot}.occupied")
    live.wait_for_selector("#lamp-N.lit")
    expect(live.locator("#result")).to_contain_text("Bob wins")


def test_the_pregame_check_through_the_panel(served: Any, board_service: Any) -> None:
    staff = Api(served.app.test_client())
    players = Api(served.app.test_client())
    assert staff.login().status_code == 200
    start_game(staff, check="ask")
    game = staff.get("/api/board").get_json()["game"]
    assert game["check"]["status"] == "waiting" and game["view"]["to_move"] is None
    early = players.post("/api/board/check", {"not_lit": []})
    assert early.status_code == 409 and "hold the test button first" in early.get_json()["error"]
    assert players.post("/api/board/check", {"not_lit": "N"}).status_code == 400
    assert staff.post("/api/sim/button", {"held": True}).status_code == 200
    wait_for(lambda: players.get("/api/board").get_json()["game"]["check"]["status"] == "holding")
    time.sleep(0.6)  # the rules' press, long enough to look at the lamps (MIN_HOLD_S)
    assert staff.post("/api/sim/button", {"held": False}).status_code == 200
    asked = wait_for(lambda: (c := players.get("/api/board").get_json()["game"]["check"])["ask"] and c)
    assert asked["ask"] == ["N", "E", "S", "W"]
    failed = players.post("/api/board/check", {"not_lit": ["E"]})
    assert failed.status_code == 200 and failed.get_json()["check"]["failed"] == ["E"]
    assert players.post("/api/staff/game/check/skip").status_code == 401  # only staff skip
    skipped = staff.post("/api/staff/game/check/skip")
    assert skipped.status_code == 200 and skipped.get_json()["check"]["status"] == "skipped"
    wait_for(lambda: players.get("/api/board").get_json()["game"]["view"]["to_move"] == 0)
    assert staff.post("/api/staff/game/check/skip").status_code == 409
    conn = connect(served.app.config["PANEL"].database)
    try:
        entries = [e.public for e in Journal(conn).tail(0, limit=1000) if e.kind == "pregame-check"]
    finally:
        conn.close()
    assert [(e["result"], e["by"]) for e in entries] == [("failed", "players"), ("skipped", "staff")]
