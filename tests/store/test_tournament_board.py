"""A tournament table played on the (simulated) board: the board service's journal gives the result.

The real board service runs on the sim backend with a simulated clock; the
game is started with the table's players, seat order and first player, as the
panel's "Start this game on the board" does, and its "game-end" entry is then
attached to the table.
"""

from __future__ import annotations

from pathlib import Path

from configuration import ConfigFile
from games.hautetension.layout import load_layout
from games.hautetension.outcome import Lighting
from games.hautetension.seats import DEFAULT_COLOURS
from hardware.backends.sim import SimBoard
from hardware.clock import SimulatedClock
from hardware.service import BoardService, BoardSettings
from hardware.service.sim import SimBoardFile
from hardware.settings import load_settings
from store.commands import CommandKind, Commands, CommandStatus
from store.db import connect
from store.journal import Journal
from store.tournaments import Tournaments

N_ROW = ["f9", "f8", "f7", "f6", "f5"]
"""A straight row from the battery to lamp N (seat 1's lamp at a duel)."""


def test_a_duel_played_on_the_board_scores_through_the_journal(tmp_path: Path) -> None:
    layout = load_layout()
    clock = SimulatedClock()
    backend = SimBoard(load_settings(ConfigFile({"hardware": {}}), layout), layout, clock=clock)
    conn = connect(tmp_path / "board.db")
    commands = Commands(conn)
    service = BoardService(
        backend,
        layout,
        journal=Journal(conn),
        commands=commands,
        settings=BoardSettings(min_turn=0.0, settle=0.05),
        clock=clock.now,
        sleep=clock.wait,
        sim_file=SimBoardFile(tmp_path / "sim-board.json"),
    )
    service.start()

    def run(seconds: float) -> None:
        end = clock.now() + seconds
        while clock.now() < end:
            clock.advance(backend.scan_period)
            service.step()

    def command(kind: CommandKind, payload: dict[str, object]) -> None:
        command_id = commands.submit(kind, payload)
        run(0.1)
        done = commands.get(command_id)
        assert done is not None and done.status is CommandStatus.DONE, done

    try:
        store = Tournaments(connect(tmp_path / "board.db"))
        tid = store.create("Board cup", seed=4).id
        for name in ("Ada", "Bob", "Cid", "Dee", "Eve"):
            store.record(tid, lambda t, n=name: t.register(n), actor="staff")
        store.record(tid, lambda t: t.next_round(), actor="staff")
        t = store.load(tid)
        duel = next(table for table in t.round(1).tables if len(table.seats) == 2)
        colours = DEFAULT_COLOURS[: len(duel.seats)]
        players = [{"name": t.names[p], "colour": c} for p, c in zip(duel.seats, colours, strict=True)]
        command(CommandKind.NEW_GAME, {"players": players, "first": duel.first, "pregame_check": "skip"})
        for slot in N_ROW:  # both players fill the row to lamp N: seat 1's lamp lights
            command(CommandKind.SIM_SLOT, {"slot": slot, "pawn": "attack"})
        games = store.finished_board_games()
        assert len(games) == 1 and games[0].points == (0, 4)

        store.attach_board_game(tid, 1, duel.number, games[0].game_id, actor="staff")
        result = store.load(tid).result(1, duel.number)
        assert result is not None
        assert result.points == (0, 4)
        assert result.source["seats"] == "names"
        assert result.lightings is not None and [x.seats for x in result.lightings] == [(0,)]
        closer = (duel.first + len(N_ROW) - 1) % 2  # who placed the fifth pawn
        assert result.lightings == (Lighting((0,), closer),)
        store.conn.close()
    finally:
        service.close()
        conn.close()
