"""The panel with the real board service (a child process on the simulated board)."""

from __future__ import annotations

import subprocess
import sys
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
