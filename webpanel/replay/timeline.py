"""The replay's timeline: the board at each moment of a game, from its record.

Each step is one line of the record (the pre-game check at the top, every
move, anomaly, resumption and failed check in order) with the board as it
stood just after it: the pawns and who placed them, the lamps lit, who is
out, the slots in anomaly, who plays next and the time. Built from the public
record only, the public timeline holds exactly what everyone at the table saw;
with the game itself (once every player consented, :mod:`webpanel.replay.consent`)
each step also says the kind of every pawn, which rows are closed and, for
each lit lamp, the closed rows that lit it.
"""

from __future__ import annotations

from typing import Any

from games.hautetension.circuit import lamp_paths
from games.hautetension.game import Game
from games.hautetension.layout import Layout
from games.hautetension.record import (
    Anomaly,
    CheckFailed,
    GameRecord,
    Line,
    Move,
    PublicGame,
    Resolved,
    Resumed,
    setup_game,
)


def timeline(record: GameRecord, layout: Layout, *, game: Game | None = None) -> dict[str, Any]:
    """The replay of *record* as JSON for the page; *game* (the same game, kinds included) reveals."""
    start = setup_game(record, layout)
    public = PublicGame(start)
    pawns: dict[str, int | None] = dict.fromkeys(start.pawns)
    anomalies: set[str] = set()
    revealed = Game(layout, start.seats, first=start.first, handicap=dict(record.handicap) or None) \
        if game is not None else None
    steps = [_step(0, None, "start", {}, pawns, public, anomalies, revealed)]
    for line in record.lines:
        fields = _line_fields(line)
        if isinstance(line, Move):
            public.play(line, 0)
            pawns[line.slot] = line.player
            if revealed is not None and game is not None:
                revealed.push(line.slot, game.history[line.number - 1].kind)
        elif isinstance(line, Anomaly):
            anomalies.add(line.slot)
        elif isinstance(line, Resolved):
            anomalies.discard(line.slot)
        steps.append(_step(len(steps), line.tenths, fields.pop("kind"), fields, pawns, public, anomalies,
                           revealed))
    return {
        "game": record.game,
        "layout": record.layout,
        "started_at": record.started_at,
        "players": [{"name": p.name, "lamp": p.lamp, "colour": p.colour} for p in record.players],
        "first": record.first,
        "handicap": dict(record.handicap),
        "check": _check(record),
        "status": record.result.status.value,
        "result": _result(record),
        "revealed": game is not None,
        "steps": steps,
    }


def _line_fields(line: Line) -> dict[str, Any]:
    if isinstance(line, Move):
        return {"kind": "move", "move": line.number, "player": line.player, "slot": line.slot,
                "lit": list(line.lit), "out": list(line.out)}
    if isinstance(line, Anomaly | Resolved):
        kind = "anomaly" if isinstance(line, Anomaly) else "resolved"
        return {"kind": kind, "what": line.what, "slot": line.slot}
    if isinstance(line, Resumed):
        return {"kind": "resumed", "player": line.player}
    assert isinstance(line, CheckFailed)
    return {"kind": "check-failed", "lamps": list(line.lamps)}


def _step(index: int, tenths: int | None, kind: str, fields: dict[str, Any], pawns: dict[str, int | None],
          public: PublicGame, anomalies: set[str], revealed: Game | None) -> dict[str, Any]:
    step: dict[str, Any] = {
        "index": index,
        "kind": kind,
        "seconds": None if tenths is None else tenths / 10,
        **fields,
        "pawns": {slot: {"owner": owner} for slot, owner in sorted(pawns.items())},
        "lamps": sorted(public.lit),
        "eliminated": [seat for seat, out in enumerate(public.out) if out],
        "pawns_left": list(public.left),
        "to_move": public.to_move,
        "anomalies": sorted(anomalies),
    }
    if revealed is not None:
        closed = sorted(revealed.closed_rows)
        step["kinds"] = {slot: pawn[1].value for slot, pawn in sorted(revealed.pawns.items())}
        step["closed_rows"] = closed
        paths = lamp_paths(revealed.layout, closed)
        step["why_lit"] = {lamp: list(paths[lamp]) for lamp in sorted(revealed.lit) if lamp in paths}
    return step


def _check(record: GameRecord) -> dict[str, Any] | None:
    check = record.check
    if check is None:
        return None
    return {"result": check.result.value, "seconds": None if check.tenths is None else check.tenths / 10,
            "lamps": {lamp: found.value for lamp, found in check.lamps}, "by": check.by}


def _result(record: GameRecord) -> dict[str, Any]:
    result = record.result
    return {
        "winners": list(result.winners),
        "termination": result.termination.name if result.termination is not None else None,
        "points": list(result.points) if result.points is not None else None,
    }
