"""``hautetension game``: start, abandon and follow the game on the physical board.

These commands do not touch the board: they queue a command in the shared
database, wait for the board service to carry it out, and print its answer.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from typing import Any

from configuration import CONFIG_OPTION_HELP

NOT_RUNNING = 3
"""Exit status when the board service did not answer."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("game", help="start, abandon or show the game on the physical board")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    new = actions.add_parser("new", help="start a game (the board must be empty)")
    new.add_argument("--players", required=True, help="names in clockwise order, comma-separated: Ana,Ben")
    new.add_argument("--colours", help="pawn colours in the same order (default: red,blue,black,white)")
    new.add_argument(
        "--first",
        default="0",
        help="seat number of the first player (0 = first name), or 'draw' (default: 0)",
    )
    new.add_argument("--seed", type=int, help="seed of the draw (with --first draw)")
    new.add_argument("--handicap", help="handicap pawns per lamp: N=1,S=2")
    new.add_argument(
        "--skip-check", action="store_true",
        help="skip the pre-game check of the lamps (journaled as skipped; by default the players hold the"
        " test button and every lamp must light before play)",
    )
    new.set_defaults(func=run_new)

    abandon = actions.add_parser("abandon", help="abandon the running game")
    abandon.set_defaults(func=run_abandon)

    status = actions.add_parser(
        "status", help="the game, lamps, anomalies and faults as the service sees them"
    )
    status.add_argument("--json", action="store_true", help="print the board state as JSON")
    status.set_defaults(func=run_status)

    lamp_test = actions.add_parser("lamp-test", help="light every lamp (on) or end the test (off); no game")
    lamp_test.add_argument("state", choices=("on", "off"))
    lamp_test.set_defaults(func=run_lamp_test)

    selftest = actions.add_parser("self-test", help="run the hardware self-test through the service; no game")
    selftest.set_defaults(func=run_self_test)

    skip = actions.add_parser("skip-check", help="skip the pre-game check of the game being set up (staff)")
    skip.set_defaults(func=run_skip_check)

    for sub in (new, abandon, status, lamp_test, selftest, skip):
        sub.add_argument("--config", help=CONFIG_OPTION_HELP)
        sub.add_argument("--db", help="database file (default: [store] path)")
        sub.add_argument(
            "--timeout", type=float, default=5.0, help="seconds to wait for the service (default 5)"
        )


def _connect(args: argparse.Namespace) -> Any:
    from configuration import database_path, load_config
    from store.db import connect

    return connect(args.db or database_path(load_config(args.config)))


def _submit(args: argparse.Namespace, kind_name: str, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Queue a command, wait for it; (exit status, result)."""
    from store.commands import CommandKind, Commands, CommandStatus

    conn = _connect(args)
    try:
        commands = Commands(conn)
        command_id = commands.submit(CommandKind[kind_name], payload)
        command = commands.wait(command_id, timeout=args.timeout)
        if command is None or not command.is_finished():
            # Withdraw it: a game started minutes later by a forgotten command would surprise everyone.
            commands.fail(command_id, "withdrawn: the board service did not answer in time")
            command = commands.get(command_id)
            if command is not None and command.status is CommandStatus.DONE:
                return 0, command.result or {}
            print(
                f"hautetension game: the board service did not answer within {args.timeout:g} s "
                "(is it running? systemctl status hautetension-board)",
                file=sys.stderr,
            )
            return NOT_RUNNING, {}
        if command.status is CommandStatus.FAILED:
            print(f"hautetension game: refused: {(command.result or {}).get('error')}", file=sys.stderr)
            return 1, command.result or {}
        return 0, command.result or {}
    finally:
        conn.close()


def run_new(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.players.split(",") if n.strip()]
    colours = [c.strip() for c in (args.colours or "").split(",") if c.strip()]
    players: list[dict[str, Any]] = []
    for index, name in enumerate(names):
        player: dict[str, Any] = {"name": name}
        if index < len(colours):
            player["colour"] = colours[index]
        players.append(player)
    payload: dict[str, Any] = {"players": players}
    if args.first == "draw":
        payload["first"] = "draw"
    elif args.first.isdigit():
        payload["first"] = int(args.first)
    else:
        print(f"hautetension game: --first is a seat number or 'draw', not {args.first!r}", file=sys.stderr)
        return 2
    if args.seed is not None:
        payload["seed"] = args.seed
    if args.skip_check:
        payload["pregame_check"] = "skip"
    if args.handicap:
        try:
            payload["handicap"] = {
                lamp.strip(): int(n) for lamp, n in (item.split("=") for item in args.handicap.split(","))
            }
        except ValueError:
            print("hautetension game: --handicap looks like N=1,S=2", file=sys.stderr)
            return 2
    status, result = _submit(args, "NEW_GAME", payload)
    if status == 0:
        first = result.get("first")
        who = names[first] if isinstance(first, int) and 0 <= first < len(names) else first
        print(f"game {result.get('game')} started: {', '.join(names)}; {who} plays first")
    return status


def run_abandon(args: argparse.Namespace) -> int:
    status, result = _submit(args, "ABANDON_GAME", {})
    if status == 0:
        print(f"game {result.get('game')} abandoned")
    return status


def run_skip_check(args: argparse.Namespace) -> int:
    status, result = _submit(args, "PREGAME_CHECK", {"action": "skip"})
    if status == 0:
        print(f"game {result.get('game')}: pre-game check skipped")
    return status


def run_lamp_test(args: argparse.Namespace) -> int:
    status, _ = _submit(args, "LAMP_TEST", {"on": args.state == "on"})
    if status == 0:
        print(f"lamp test {args.state}")
    return status


def run_self_test(args: argparse.Namespace) -> int:
    status, result = _submit(args, "SELF_TEST", {})
    if status == 0:
        for line in result.get("lines") or [json.dumps(result)]:
            print(line)
        return 0 if result.get("ok", True) else 1
    return status


def run_status(args: argparse.Namespace) -> int:
    from store.journal import Journal

    conn = _connect(args)
    try:
        state = Journal(conn).state()
    finally:
        conn.close()
    if state is None:
        print("the board service has never run on this database", file=sys.stderr)
        return NOT_RUNNING
    if args.json:
        print(
            json.dumps(
                {"public": state.public, "health": state.health, "updated_at": state.updated_at},
                indent=2,
                sort_keys=True,
            )
        )
        return 0
    for line in describe(state.public, heartbeat_age=time.time() - state.updated_at):
        print(line)
    return 0


def _check_line(check: Mapping[str, Any]) -> str:
    status = check.get("status")
    if status == "failed":
        return (f"pre-game check FAILED: lamp(s) {', '.join(check.get('failed') or [])} did not light; check"
                " bulb, fuse and driver, then hold the test button again (or: hautetension game skip-check)")
    if status == "confirm":
        lamps = ", ".join(check["ask"])
        return f"pre-game check: the players confirm on the display that lamp(s) {lamps} lit"
    return "pre-game check: waiting for the players to hold the test button"


def describe(public: Mapping[str, Any], *, heartbeat_age: float) -> list[str]:
    """The board state in a few lines, for people (read through its public view, which checks every
    field it keeps: a state another version wrote reads too)."""
    from store.board_view import public_board

    view = public_board(public, journal_id=0, service_running=heartbeat_age < 5)
    alive = "running" if heartbeat_age < 5 else f"NOT RUNNING (last heard {heartbeat_age:.0f} s ago)"
    lines = [f"board service: {alive}; {view['backend'] or '?'} board, layout {view['layout'] or '?'}"]
    game = view["game"]
    lines += _game_lines(game, paused=view["paused"]) if game is not None else ["no game"]
    lamps = view["lamps"]
    lit = ", ".join(lamps["lit"]) or "none"
    test = " (test)" if lamps["test"] else ""
    safe = " (safe: off)" if lamps["safe"] else ""
    lines.append(f"lamps lit: {lit}{test}{safe}")
    for anomaly in view["anomalies"]:
        lines.append(f"ANOMALY {anomaly['kind']} on {anomaly['slot']}: {anomaly['message']}")
    for fault in view["faults"]:
        lines.append(
            f"FAULT {fault['kind']}{' on ' + fault['slot'] if fault.get('slot') else ''}: {fault['message']}"
        )
    if view["scanner_faulted"]:
        lines.append("SCANNER FAULTED: lamps are off until it recovers")
    return lines


def _game_lines(game: Mapping[str, Any], *, paused: bool) -> list[str]:
    view = game["view"]
    seats = view["seats"]
    names = ", ".join(
        f"{s.get('name')} ({s.get('lamp')}{', out' if s.get('eliminated') else ''}, {s.get('pawns_left')}"
        " left)" for s in seats
    )
    lines = [f"game {game['id']} {game['status']}: {names}"]
    check = game["check"] or {}
    if game["status"] == "running" and check.get("status") not in (None, "passed", "skipped"):
        lines.append(_check_line(check))
    elif game["status"] == "running":
        to_move = view.get("to_move")
        turn = _seat_name(seats, to_move) if to_move is not None else "nobody"
        lines.append(f"to move: {turn}{' (paused)' if paused else ''}; {len(view['moves'])} pawn(s) placed")
    outcome = view.get("outcome")
    if isinstance(outcome, Mapping):
        winners = ", ".join(_seat_name(seats, w) for w in outcome.get("winners") or [])
        lines.append(f"result: {outcome.get('reason')}; winner(s): {winners}; points {game['points']}")
    return lines


def _seat_name(seats: list[Mapping[str, Any]], seat: Any) -> str:
    if isinstance(seat, int) and 0 <= seat < len(seats):
        return str(seats[seat].get("name"))
    return f"seat {seat}"
