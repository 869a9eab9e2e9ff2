"""The board service on the simulated board: attribution, anomalies, lamps, journal, commands.

The service runs on the real sim backend (scanner, debounce, lamps on
gpiozero's mock pins) with a simulated clock, so a second of play takes a
few milliseconds and nothing depends on the machine's speed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from configuration import ConfigFile
from games.hautetension.pawn import PawnKind
from hardware.exc import BoardConfigError
from hardware.service import BoardSettings
from store.commands import CommandKind, CommandStatus
from store.db import connect
from store.journal import Journal
from tests.hardware.helpers import Rig

N_ROW = ["f9", "f8", "f7", "f6", "f5"]
"""A straight row from the battery to lamp N (Ana's lamp in a two-player game)."""


@pytest.fixture
def rig(tmp_path: Path) -> Any:
    r = Rig(tmp_path)
    yield r
    r.close()


def test_pawns_are_attributed_in_turn_and_a_lit_lamp_ends_the_game(rig: Rig) -> None:
    assert rig.new_game().status is CommandStatus.DONE
    game = rig.state["game"]
    assert game["status"] == "running" and game["view"]["to_move"] == 0
    for slot in N_ROW[:4]:
        rig.place(slot)
    assert rig.lamps_on() == set()
    assert [m["player"] for m in rig.state["game"]["view"]["moves"]] == [0, 1, 0, 1]
    rig.place(N_ROW[4])  # Ana closes the row to her own lamp
    state = rig.state
    assert rig.lamps_on() == {"N"} and state["lamps"]["lit"] == ["N"]
    assert state["game"]["status"] == "over"
    assert state["game"]["view"]["outcome"]["winners"] == [1]
    assert state["game"]["points"] == [0, 4]
    end = rig.journal.last_of_kind("game-end")
    assert end is not None and end.public["points"] == [0, 4] and end.game_id == game["id"]
    assert {slot: p["owner"] for slot, p in state["pawns"].items()} == dict(
        zip(N_ROW, [0, 1, 0, 1, 0], strict=True)
    )
    # After the end, clearing the board is not an anomaly.
    for slot in N_ROW:
        rig.lift(slot)
    assert rig.state["anomalies"] == [] and rig.lamps_on() == set()


def test_public_payloads_do_not_depend_on_the_pawn_kind(tmp_path: Path) -> None:
    """A defense pawn and an attack pawn that light nothing leave byte-identical public traces."""
    traces = []
    for kind in ("attack", "defense"):
        folder = tmp_path / kind
        folder.mkdir()
        rig = Rig(folder)
        rig.new_game(first=0)
        rig.place("a9", "attack")
        rig.place("e1", kind)
        rig.place("b2", "attack")
        rows = rig.conn.execute("SELECT kind, game_id, public FROM journal ORDER BY id").fetchall()
        traces.append(
            (
                [tuple(r) for r in rows],
                json.dumps(rig.state, sort_keys=True),
                [c.result for c in map(rig.commands.get, range(1, 5))],
            )
        )
        private = rig.conn.execute("SELECT private FROM journal WHERE kind = 'placement'").fetchall()
        assert any(kind in (row[0] or "") for row in private)  # the kind is kept, privately
        payloads = rig.conn.execute("SELECT payload FROM commands WHERE kind = 'sim-slot'").fetchall()
        assert [json.loads(p[0])["pawn"] for p in payloads] == ["hidden"] * 3  # blanked once carried out
        rig.close()
    assert traces[0] == traces[1]
    assert "defense" not in json.dumps(traces[1])


def test_a_lifted_pawn_pauses_the_game_until_it_is_put_back(rig: Rig) -> None:
    rig.new_game()
    for slot in N_ROW[:4]:
        rig.place(slot)
    rig.lift("f8")  # Ben's pawn
    state = rig.state
    [anomaly] = state["anomalies"]
    assert anomaly["kind"] == "lifted" and anomaly["slot"] == "f8" and "Ben" in anomaly["message"]
    assert isinstance(anomaly["at"], float) and state["paused"] is True
    rig.place("a1")  # Ana plays on while the game is paused: not attributed
    kinds = {a["slot"]: a["kind"] for a in rig.state["anomalies"]}
    assert kinds == {"f8": "lifted", "a1": "out-of-turn"}
    assert len(rig.state["game"]["view"]["moves"]) == 4
    rig.lift("a1")
    rig.place("f8")
    assert rig.state["anomalies"] == [] and rig.state["paused"] is False
    assert "game-resumed" in rig.kinds()
    rig.place("a1")
    assert rig.state["game"]["view"]["moves"][-1] == {"slot": "a1", "player": 0}


def test_lamps_follow_the_physical_circuit_even_for_unattributed_pawns(rig: Rig) -> None:
    rig.new_game()
    for slot in N_ROW[:4]:
        rig.place(slot)
    rig.lift("f7")
    rig.place("f5")  # not attributed, but it conducts: the wires do not care
    rig.place("f7")
    assert rig.lamps_on() == {"N"}
    assert rig.state["game"]["status"] == "running"  # the rules engine did not see f5
    assert [a["slot"] for a in rig.state["anomalies"]] == ["f5"]
    rig.lift("f5")
    assert rig.lamps_on() == set() and rig.state["anomalies"] == []


def test_two_pawns_in_one_turn_are_reported(tmp_path: Path) -> None:
    rig = Rig(tmp_path, min_turn=1.0)
    rig.new_game()
    rig.place("a9")
    rig.place("b9", wait=0.1)  # 0.1 s later: the same hand
    [anomaly] = rig.state["anomalies"]
    assert anomaly["kind"] == "two-pawns" and anomaly["slot"] == "b9" and "a9" in anomaly["message"]
    assert [m["slot"] for m in rig.state["game"]["view"]["moves"]] == ["a9"]
    rig.lift("b9")
    rig.run(1.0)
    rig.place("b9")  # Ben, a turn later
    assert rig.state["game"]["view"]["moves"][-1] == {"slot": "b9", "player": 1}
    rig.close()


def test_a_pawn_without_a_game_is_reported_and_blocks_a_new_game(rig: Rig) -> None:
    rig.place("c3")
    [anomaly] = rig.state["anomalies"]
    assert anomaly["kind"] == "no-game"
    refused = rig.new_game()
    assert refused.status is CommandStatus.FAILED and "c3" in refused.result["error"]  # type: ignore[index]
    rig.lift("c3")
    assert rig.new_game().status is CommandStatus.DONE


def test_a_player_out_of_a_kind_is_refused_without_naming_the_kind(rig: Rig) -> None:
    rig.new_game()
    slots = ["a9", "i1", "b9", "h1", "c9", "g1"]  # three defense pawns each
    for slot in slots:
        rig.place(slot, "defense")
    rig.place("d9", "defense")  # Ana's fourth defense pawn
    [anomaly] = rig.state["anomalies"]
    assert anomaly["kind"] == "refused" and "Ana" in anomaly["message"]
    assert "defense" not in json.dumps(rig.state) and "defense" not in anomaly["message"]
    rig.lift("d9")
    rig.place("d9", "attack")
    assert rig.state["game"]["view"]["moves"][-1] == {"slot": "d9", "player": 0}


def test_commands_are_refused_with_reasons(rig: Rig) -> None:
    assert rig.command(CommandKind.ABANDON_GAME).result == {"error": "no game is running"}
    on = rig.command(CommandKind.LAMP_TEST, {"on": True})
    assert on.status is CommandStatus.DONE and rig.lamps_on() == set("NESW")
    assert rig.state["lamps"]["test"] is True
    selftest = rig.command(CommandKind.SELF_TEST)
    assert selftest.status is CommandStatus.DONE and "checks" in (selftest.result or {})
    rig.new_game()  # ends the lamp test
    assert rig.lamps_on() == set()
    again = rig.new_game()
    assert again.status is CommandStatus.FAILED and "still running" in again.result["error"]  # type: ignore[index]
    refused = rig.command(CommandKind.LAMP_TEST, {"on": True})
    assert refused.status is CommandStatus.FAILED and rig.lamps_on() == set()
    assert rig.command(CommandKind.SELF_TEST).status is CommandStatus.FAILED
    bad = rig.command(CommandKind.SIM_SLOT, {"slot": "e5", "pawn": "attack"})  # the battery, not a slot
    assert bad.status is CommandStatus.FAILED and "e5" in bad.result["error"]  # type: ignore[index]
    lift_empty = rig.command(CommandKind.SIM_SLOT, {"slot": "a1", "pawn": None})
    assert lift_empty.status is CommandStatus.FAILED
    abandoned = rig.command(CommandKind.ABANDON_GAME)
    assert abandoned.status is CommandStatus.DONE and rig.state["game"]["status"] == "abandoned"
    assert "command-refused" in rig.kinds()


@pytest.mark.parametrize(
    "payload",
    [
        {"players": [{"name": "Solo"}]},
        {"players": "Ana,Ben"},
        {"players": [{"name": "Ana"}, {"name": "Ana"}]},
        {"players": [{"name": "Ana"}, {"name": "ANA"}]},  # names are compared without case
        {"players": [{"name": "Ana", "colour": "red"}, {"name": "Ben", "colour": "red"}]},
        {"players": [{"name": "Ana", "colour": "pink"}, {"name": "Ben"}]},
        {"players": [{"name": "Ana"}, {"name": "Ben"}], "first": 5},
        {"players": [{"name": "Ana"}, {"name": "Ben"}], "first": "coin"},
        {"players": [{"name": "Ana"}, {"name": "Ben"}], "handicap": {"X": 1}},
    ],
)
def test_bad_new_game_payloads_are_refused(rig: Rig, payload: dict[str, Any]) -> None:
    command = rig.command(CommandKind.NEW_GAME, payload)
    assert command.status is CommandStatus.FAILED and command.result and command.result["error"]
    assert rig.state["game"] is None


def test_drawn_first_player_is_reproducible_from_the_seed(rig: Rig) -> None:
    from games.hautetension.draw import draw_first_player

    result = rig.new_game(("Ana", "Ben", "Cy"), first="draw", seed=7).result
    assert result is not None and result["first"] == draw_first_player(3, 7)
    assert rig.state["game"]["view"]["to_move"] == result["first"]


def test_handicap_pawns_must_be_placed_before_play(rig: Rig) -> None:
    rig.new_game(handicap={"N": 1})
    [anomaly] = rig.state["anomalies"]
    assert anomaly["kind"] == "handicap" and rig.state["paused"] is True
    rig.place(anomaly["slot"], "attack")
    assert rig.state["anomalies"] == [] and rig.state["game"]["view"]["to_move"] == 0
    assert rig.state["pawns"][anomaly["slot"]] == {"owner": None}


def test_the_button_lights_every_lamp_while_held(rig: Rig) -> None:
    rig.command(CommandKind.SIM_BUTTON, {"held": True})
    rig.run()
    assert rig.lamps_on() == set("NESW") and rig.state["button"] is True
    rig.command(CommandKind.SIM_BUTTON, {"held": False})
    rig.run()
    assert rig.lamps_on() == set() and rig.state["lamps"]["test"] is False


def test_a_dead_multiplexer_puts_the_lamps_in_their_safe_state(rig: Rig) -> None:
    rig.new_game()
    for slot in N_ROW:  # slots f9.. are not on multiplexer 0
        rig.place(slot)
    for slot, kind in (("a9", "attack"), ("b9", "attack"), ("c9", "defense")):
        rig.backend.virtual_board.place(slot, PawnKind(kind))
    rig.run()
    assert rig.lamps_on() == {"N"}
    rig.backend.virtual_board.kill_multiplexer(0)
    rig.run()
    state = rig.state
    assert state["scanner_faulted"] is True and rig.lamps_on() == set() and state["lamps"]["safe"] is True
    assert state["faults"][0]["kind"] == "dead-multiplexer" and isinstance(state["faults"][0]["at"], float)
    rig.backend.virtual_board.revive_multiplexer(0)
    rig.run()
    assert rig.state["scanner_faulted"] is False and rig.state["faults"] == [] and rig.lamps_on() == {"N"}
    assert {"fault", "fault-cleared", "scanner"} <= set(rig.kinds())


def test_a_backend_that_raises_is_a_faulted_scanner_not_a_dead_service(rig: Rig) -> None:
    rig.command(CommandKind.LAMP_TEST, {"on": True})
    assert rig.lamps_on() == set("NESW")

    def broken() -> list[Any]:
        raise OSError("link down")

    original = rig.backend.poll
    rig.backend.poll = broken  # type: ignore[method-assign]
    rig.run()
    assert rig.state["scanner_faulted"] is True and rig.lamps_on() == set()
    health = rig.service.health()
    assert "link down" in health["service"]["poll_error"]
    rig.backend.poll = original  # type: ignore[method-assign]
    rig.run()
    assert rig.state["scanner_faulted"] is False and rig.lamps_on() == set("NESW")


def test_sim_commands_fail_on_a_real_board(tmp_path: Path) -> None:
    rig = Rig(tmp_path)

    class RealBoard:
        """Every part of the sim backend but its virtual board: what gpio and serial look like."""

        virtual_board = None  # as BoardBackend declares it for a real board

        def __getattr__(self, name: str) -> Any:
            return getattr(rig.backend, name)

    rig.service.backend = RealBoard()  # type: ignore[assignment]
    for kind, payload in (
        (CommandKind.SIM_SLOT, {"slot": "a9", "pawn": "attack"}),
        (CommandKind.SIM_BUTTON, {"held": True}),
    ):
        command = rig.command(kind, payload)
        assert command.status is CommandStatus.FAILED and "simulated board" in command.result["error"]  # type: ignore[index]
    rig.close()


def test_health_is_the_heartbeat_with_service_figures(rig: Rig) -> None:
    rig.new_game()
    rig.place("a9")
    rig.run(1.1)
    state = rig.journal.state()
    assert state is not None and state.health is not None
    service = state.health["service"]
    assert service["game"] == rig.state["game"]["id"] and service["pid"] > 0
    assert service["event_to_lamp"]["count"] == 0  # a9 lit nothing
    assert service["event_to_journal"]["count"] >= 1 and service["event_to_journal"]["median_ms"] is not None
    assert state.health["backend"] == "sim" and state.health["flicker"] == "hidden during a game"


def test_every_journal_entry_has_a_greater_id_and_placements_are_durable(rig: Rig) -> None:
    rig.new_game()
    rig.place("a9")
    ids = [e.id for e in rig.journal.tail(0, limit=1000)]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    # A second connection (another process, the panel) sees the placement committed.
    other = Journal(connect(rig.folder / "board.db"))
    placement = other.last_of_kind("placement")
    assert placement is not None and placement.public["slot"] == "a9" and placement.public["player"] == 0
    assert other.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_board_settings_report_every_bad_key() -> None:
    config = ConfigFile(data={"board": {"backend": "usb", "min_turn_s": -1, "colour": "red"}})
    with pytest.raises(BoardConfigError) as info:
        BoardSettings.from_config(config)
    assert len(info.value.problems) == 3
    settings = BoardSettings.from_config(ConfigFile(data={"board": {"backend": "mock", "settle_ms": 50}}))
    assert settings.backend == "sim" and settings.settle == pytest.approx(0.05)


def test_a_long_press_runs_the_self_test_only_outside_a_game(tmp_path: Path) -> None:
    rig = Rig(tmp_path, hardware={"long_press_s": 0.2})
    long_press = rig.backend.settings.long_press_seconds
    rig.new_game()
    rig.command(CommandKind.SIM_BUTTON, {"held": True})
    rig.run(long_press + 0.1)
    rig.command(CommandKind.SIM_BUTTON, {"held": False})
    rig.run()
    assert rig.service.health()["selftest"] is None
    press = rig.journal.last_of_kind("button-long-press")
    assert press is not None and press.public == {"selftest": "refused: a game is running"}
    rig.command(CommandKind.ABANDON_GAME)
    rig.command(CommandKind.SIM_BUTTON, {"held": True})
    rig.run(long_press + 0.1)
    rig.command(CommandKind.SIM_BUTTON, {"held": False})
    assert rig.service.health()["selftest"]["backend"] == "sim"
    rig.close()


def test_every_command_has_its_handler_in_the_dispatch_table() -> None:
    from hardware.service.loop import _COMMANDS

    assert set(_COMMANDS) == set(CommandKind)


def test_the_service_is_a_context_manager_that_releases_the_board(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    with rig.service as service:
        assert service is rig.service
        rig.new_game()
    # Leaving the block closed the board (its pins released, lamps safe): it scans no more.
    with pytest.raises(RuntimeError, match="closed"):
        rig.backend.poll()
    assert rig.service.notifier._socket is None
    rig.conn.close()


def test_backends_declare_what_the_service_may_ask_of_them(tmp_path: Path) -> None:
    from hardware.backend import BoardBackend
    from hardware.backends.gpio import GpioBoard
    from hardware.backends.serial import SerialBackend

    rig = Rig(tmp_path, start=False)
    assert isinstance(rig.backend, BoardBackend) and rig.backend.virtual_board is not None
    assert GpioBoard.virtual_board is None and SerialBackend.virtual_board is None
    assert SerialBackend.selftest_on_long_press is False  # the device runs none: a long press is reported
    rig.service.start()
    rig.new_game()
    rig.run()
    assert rig.backend.selftest_on_long_press is False  # off while a game runs
    rig.command(CommandKind.ABANDON_GAME)
    assert rig.backend.selftest_on_long_press is True
    rig.close()
