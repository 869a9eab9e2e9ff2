"""The journal's payload types are the contract: what the board service writes has their keys, the
documentation lists them, and the public board view keeps only fields they have."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from configuration import ConfigFile
from games.hautetension.layout import load_layout
from hardware.backends.sim import SimBoard
from hardware.clock import SimulatedClock
from hardware.service import BoardService, BoardSettings
from hardware.service.sim import SimBoardFile
from hardware.settings import load_settings
from store import board_view
from store.commands import CommandKind, Commands, CommandStatus
from store.db import connect
from store.journal import PAYLOADS, Journal, JournalKind
from store.journal_payloads import Anomaly, BoardStatePublic, CheckState, Fault, PawnState

DOC = Path(__file__).resolve().parents[2] / "docs" / "board-service.md"
N_ROW = ["f9", "f8", "f7", "f6", "f5"]
"""A straight row from the battery to lamp N (seat 1's lamp at a duel)."""


def _problems(payload: Any, kind: type[Any] | None) -> list[str]:
    """How *payload* differs from the typed dict *kind* in its keys (None: no payload expected)."""
    if kind is None:
        return [] if payload is None else [f"a payload where none is expected: {payload}"]
    if not isinstance(payload, dict):
        return [f"not an object: {payload!r}"]
    required, optional = kind.__required_keys__, kind.__optional_keys__
    problems = [f"missing {key}" for key in sorted(required - set(payload))]
    problems += [f"unknown {key}" for key in sorted(set(payload) - required - optional)]
    return problems


class Board:
    """The real board service on the simulated board, with a simulated clock."""

    def __init__(self, tmp_path: Path) -> None:
        layout = load_layout()
        self.clock = SimulatedClock()
        self.backend = SimBoard(load_settings(ConfigFile({"hardware": {}}), layout), layout, clock=self.clock)
        self.conn = connect(tmp_path / "board.db")
        self.commands = Commands(self.conn)
        self.service = BoardService(
            self.backend, layout, journal=Journal(self.conn), commands=self.commands,
            settings=BoardSettings(min_turn=0.0, settle=0.05), clock=self.clock.now, sleep=self.clock.wait,
            sim_file=SimBoardFile(tmp_path / "sim-board.json"),
        )
        self.service.start()

    def run(self, seconds: float) -> None:
        end = self.clock.now() + seconds
        while self.clock.now() < end:
            self.clock.advance(self.backend.scan_period)
            self.service.step()

    def command(self, kind: CommandKind, payload: dict[str, object], *, refused: bool = False) -> None:
        command_id = self.commands.submit(kind, payload)
        self.run(0.1)
        done = self.commands.get(command_id)
        expected = CommandStatus.FAILED if refused else CommandStatus.DONE
        assert done is not None and done.status is expected, done


@pytest.fixture
def played(tmp_path: Path) -> Iterator[Board]:
    """A duel from an event's table played to its end, with what can happen on the way."""
    board = Board(tmp_path)
    try:
        players = [{"name": "Ada", "colour": "red"}, {"name": "Bob", "colour": "blue"}]
        board.command(CommandKind.NEW_GAME, {"players": players, "first": 0, "assignment": "t7"})
        board.command(CommandKind.SIM_BUTTON, {"held": True})
        board.run(1.0)
        board.command(CommandKind.SIM_BUTTON, {"held": False})
        board.command(CommandKind.PREGAME_CHECK, {"action": "confirm", "not_lit": []})
        board.command(CommandKind.LAMP_TEST, {"on": True}, refused=True)
        board.command(CommandKind.SIM_SLOT, {"slot": N_ROW[0], "pawn": "attack"})
        board.command(CommandKind.SIM_SLOT, {"slot": N_ROW[0], "pawn": None})  # lifted: the game pauses
        board.command(CommandKind.SIM_SLOT, {"slot": N_ROW[0], "pawn": "attack"})  # back: it resumes
        for slot in N_ROW[1:]:
            board.command(CommandKind.SIM_SLOT, {"slot": slot, "pawn": "attack"})
        board.command(CommandKind.CONFIRM_RESULT, {"seats": [0, 1], "by": "player"})
        board.command(CommandKind.LAMP_TEST, {"on": True})
        board.command(CommandKind.LAMP_TEST, {"on": False})
        board.command(CommandKind.SELF_TEST, {})
        yield board
    finally:
        board.service.close()
        board.conn.close()


def test_every_kind_has_its_payload_types() -> None:
    assert set(PAYLOADS) == set(JournalKind)


def test_what_the_service_writes_has_the_keys_of_its_kinds_types(played: Board) -> None:
    rows = played.conn.execute("SELECT id, kind, public, private FROM journal ORDER BY id").fetchall()
    written = {row["kind"] for row in rows}
    assert {
        "service-start", "game-start", "pregame-check", "slot", "placement", "anomaly", "anomaly-resolved",
        "game-resumed", "lamps", "game-end", "result-confirmed", "button", "lamp-test", "self-test",
        "command-refused",
    } <= written
    for row in rows:
        public_type, private_type = PAYLOADS[JournalKind(row["kind"])]
        private = json.loads(row["private"]) if row["private"] else None
        if row["kind"] == "slot" and private is None:
            private_type = None  # a lifted pawn has no kind to keep
        problems = _problems(json.loads(row["public"]), public_type) + _problems(private, private_type)
        assert not problems, (row["id"], row["kind"], problems)


def test_the_board_state_written_has_the_keys_of_its_type(played: Board) -> None:
    state = Journal(played.conn).state()
    assert state is not None
    assert not _problems(state.public, BoardStatePublic)
    game = state.public["game"]
    assert game is not None and game["assignment"] == "t7" and game["confirmed"] == [0, 1]


def _documented_payloads() -> dict[str, str]:
    """The journal entries' table of docs/board-service.md: kind → its public payload's column."""
    rows = {}
    for line in DOC.read_text().splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) >= 4 and cells[1].startswith("`"):
            for kind in re.findall(r"`([a-z-]+)`", cells[1]):
                rows[kind] = cells[2]
    return rows


def test_the_documentation_lists_every_field_of_every_payload() -> None:
    documented = _documented_payloads()
    assert "store/journal_payloads.py" in DOC.read_text()
    for kind, (public_type, _private_type) in PAYLOADS.items():
        assert kind.value in documented, kind
        named = set(re.findall(r"`([a-z_]+)`", documented[kind.value]))
        keys = public_type.__required_keys__ | public_type.__optional_keys__
        assert keys <= named, (kind.value, sorted(keys - named))


def test_the_public_view_keeps_only_fields_the_state_has(played: Board) -> None:
    """The allow-list names fields of the contract: a field renamed by the service would vanish from
    every page without a word otherwise."""
    state = Journal(played.conn).state()
    assert state is not None and state.public["game"] is not None
    view = board_view.public_board(state.public, journal_id=1, service_running=True)
    assert set(view) - {"id", "service"} <= BoardStatePublic.__required_keys__
    assert set(board_view.ANOMALY_FIELDS) <= Anomaly.__required_keys__
    assert set(board_view.ANOMALY_FIELDS) <= Fault.__required_keys__
    assert set(PawnState.__required_keys__) == {"owner"}
    assert set(view["game"]["check"]) <= CheckState.__required_keys__
    game_view = state.public["game"]["view"]
    assert set(board_view.VIEW_FIELDS) <= set(game_view)
    assert set(board_view.SEAT_FIELDS) <= set(game_view["seats"][0])
