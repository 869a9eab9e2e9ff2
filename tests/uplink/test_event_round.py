"""A round of a 12-player tournament played on three virtual boards, end to end.

Everything is real but the hands: Mosquitto with the event's accounts and ACL,
three board services on simulated boards, each with its panel (the board's
display) and its uplink, and the event server (its ingest and its pages). The
staff accept the boards, make round 1 with one click, each board shows its
table and starts it with one touch, the games are played to their end, every
seat agrees, and the results reach the standings once each; a table typed by
hand meanwhile is a clash, not overwritten; round 2 goes to the boards.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from store.event.settings import EventSettings
from tests.hardware.helpers import LiveService
from tests.servers.mosquitto import MosquittoBroker
from tests.uplink.helpers import EVENT, Central, UplinkThread, broker_settings, uplink_settings, wait_for
from tests.webpanel.helpers import Api, make_settings, pass_pregame_check
from webpanel.app import close_app, create_app

ROWS = [
    ["a9", "b9", "c9", "d9", "e9"],
    ["f9", "f8", "f7", "f6", "f5"],
    ["e4", "f4", "g4", "h4", "i4"],
    ["a5", "a4", "a3", "a2", "a1"],
]
"""A straight row to each lamp (W, N, E, S): attack pawns along them light the lamps one after another."""


class VirtualBoard:
    """A board Pi: the board service on the simulated board, its panel, its uplink to the event."""

    def __init__(self, folder: Path, broker: MosquittoBroker, board_id: str) -> None:
        settings = make_settings(folder)
        self.id = board_id
        self.service = LiveService(settings.database)
        self.app: Flask = create_app({"PANEL": settings, "TESTING": True})
        self.display = Api(self.app.test_client())
        self.uplink = UplinkThread(
            settings.database, uplink_settings(broker_settings(broker, board_id), board_id)
        )

    def table(self) -> dict[str, Any]:
        data: dict[str, Any] = self.display.get("/api/table").get_json()
        return data

    def play_to_the_end(self) -> list[int]:
        """Start the assigned table with one touch and play it out; the points the board computed."""
        assert self.display.post("/api/table/start", {}).status_code == 201
        pass_pregame_check(self.display)
        for slot in (s for row in ROWS for s in row):
            board = self.display.get("/api/board").get_json()
            if board["game"]["status"] != "running":
                break
            assert self.display.post(f"/api/sim/slots/{slot}", {"pawn": "attack"}).status_code == 200
            wait_for(lambda s=slot: s in self.display.get("/api/board").get_json()["pawns"])  # type: ignore[misc]
        wait_for(lambda: self.table()["phase"] == "confirm", what=f"{self.id}'s game over")
        points: list[int] = self.table()["game"]["points"]
        return points

    def everyone_agrees(self) -> None:
        for seat in range(len(self.table()["game"]["seats"])):
            assert self.display.post("/api/table/confirm", {"seat": seat}).status_code == 200

    def close(self) -> None:
        self.uplink.close()
        close_app(self.app)
        self.service.stop()


@pytest.fixture
def boards(tmp_path: Path, secured: MosquittoBroker) -> Iterator[list[VirtualBoard]]:
    made = [VirtualBoard(tmp_path / name, secured, name) for name in ("board-1", "board-2", "board-3")]
    yield made
    for board in made:
        board.close()


@pytest.fixture
def event(tmp_path: Path, central: Central) -> Iterator[Api]:
    """The event server's pages, as staff use them (logged in)."""
    settings = EventSettings(event=EVENT, database=central.path, confirm_timeout=60)
    app = create_app({"PANEL": make_settings(tmp_path / "server"), "EVENT": settings, "TESTING": True})
    staff = Api(app.test_client())
    assert staff.login().status_code == 200
    yield staff
    close_app(app)


def _by_name(names: list[str], points: list[int]) -> dict[str, int]:
    return dict(zip(names, points, strict=True))


def test_a_full_round_of_twelve_players_on_three_boards(event: Api, boards: list[VirtualBoard]) -> None:
    listed = wait_for(lambda: len(b := event.get("/api/event/boards").get_json()) == 3 and b, what="3 boards")
    assert all(not b["accepted"] and b["online"] for b in listed)
    for number, board in enumerate(boards, start=1):
        assert event.post(f"/api/event/boards/{board.id}", {"label": f"Table {number}"}).status_code == 200
    assert event.post("/tournaments", data={"name": "Paris open", "seed": "11"}).status_code == 303
    tid = event.get("/api/tournaments").get_json()["tournaments"][0]["id"]
    players = "\n".join(f"Player {n}" for n in range(1, 13))
    assert event.post(f"/tournaments/{tid}/players", data={"names": players}).status_code == 303
    assert event.post(f"/event/tournaments/{tid}/rounds", data={"request_id": "round-1"}).status_code == 303

    # Each board shows its table: the players in seat order, who starts.
    tables = {}
    for board in boards:
        state = wait_for(
            lambda b=board: (t := b.table())["phase"] == "assigned" and t,  # type: ignore[misc]
            what=f"{board.id}'s table",
        )
        tables[board.id] = state["assignment"]
        assert state["assignment"]["round"] == 1 and len(state["assignment"]["players"]) == 4
    assert sorted(a["table"] for a in tables.values()) == [1, 2, 3]
    seated = sorted(p["name"] for a in tables.values() for p in a["players"])
    assert seated == sorted(f"Player {n}" for n in range(1, 13))

    # Table 3's result is typed on a tablet while its board still plays: a clash to come.
    hand_board = next(b for b in boards if tables[b.id]["table"] == 3)
    hand = [{"seats": [0]}, {"seats": [1]}, {"seats": [2]}]
    entered = event.post(f"/api/tournaments/{tid}/rounds/1/tables/3/result", {"lightings": hand})
    assert entered.status_code == 201
    hand_points = entered.get_json()["points"]

    played = {}
    for board in boards:
        names = [p["name"] for p in tables[board.id]["players"]]
        played[board.id] = _by_name(names, board.play_to_the_end())
        board.everyone_agrees()

    def results() -> list[dict[str, Any]]:
        data: list[dict[str, Any]] = event.get("/api/event/results").get_json()
        return data

    settled = wait_for(
        lambda: (
            len(r := results()) == 3
            and all(x["status"] != "waiting" and x["status"] != "confirmed" for x in r)
            and r
        ),
        timeout=30,
        what="the three results settled",
    )
    by_table = {tables[r["board"]]["table"]: r for r in settled}
    assert by_table[1]["status"] == by_table[2]["status"] == "entered"
    assert by_table[3]["status"] == "clash" and "already has a result (tablet entry" in by_table[3]["problem"]

    tournament = event.get(f"/api/tournaments/{tid}").get_json()
    details = tournament["round_details"][0]["tables"]
    for detail in details:
        names = [s["name"] for s in detail["seats"]]
        got = _by_name(names, detail["result"]["points"])
        board = next(b for b in boards if tables[b.id]["table"] == detail["number"])
        assert got == (played[board.id] if detail["number"] != 3 else _by_name(names, hand_points))
    standings = {s["name"]: s["points"] for s in tournament["standings"]}
    expected = {name: points for table in played.values() for name, points in table.items()}
    assert {n: p for n, p in standings.items() if n not in played[hand_board.id]} == {
        n: p for n, p in expected.items() if n not in played[hand_board.id]
    }

    # Staff take the board's result for table 3: a correction, the hand entry kept in the audit trail.
    clash = by_table[3]
    assert event.post(f"/api/event/results/{clash['game']}/use-board", {}).get_json()["status"] == "entered"
    tournament = event.get(f"/api/tournaments/{tid}").get_json()
    assert {s["name"]: s["points"] for s in tournament["standings"]} == expected
    wall = event.get(f"/api/event/wall?t={tid}").get_json()
    assert [t["state"] for t in wall["tables"]] == ["done", "done", "done"] and wall["next_round"]
    entries = [e for e in tournament["round_details"][0]["tables"]]
    assert len(entries) == 3

    # Round 2 with one click: each board gets its new table.
    assert event.post(f"/event/tournaments/{tid}/rounds", data={"request_id": "round-2"}).status_code == 303
    for board in boards:
        wait_for(
            lambda b=board: (
                (t := b.table())["phase"] == "assigned"  # type: ignore[misc]
                and t["assignment"]["round"] == 2
            ),
            what=f"{board.id}'s round 2 table",
        )
