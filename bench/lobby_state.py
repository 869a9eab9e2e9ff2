"""Benchmark: a lobby game's state served over HTTP, at 10, 50, 200 and 1,000 moves.

Runs the panel as its own process (``hautetension panel``, waitress) on a
loopback port and a temporary database holding Hypnosia games (two human
seats, the program's dice) of each length, made here through the game store.
Four keep-alive client threads then ask, side by side in the same run:

* ``GET /api/session`` (the baseline: the same app and server, no game);
* ``GET /api/games/<id>`` as a spectator and as the seat to act (its view
  and its legal moves);
* ``GET /api/games/<id>/hypnosia`` (the board page's data: the move log,
  who rolled each die, where each legal move lands).

Reported: requests per second and the ratio to the baseline (the goal: at
least 0.7× at every length), the baseline and the request alternating in
``--rounds`` short spells so that a change of load touches both alike (the
median ratio is reported), and two machine-independent counts made in this
process with the app on the same database: moves the engine pushes per
request (a replay pushes every move of the game again) and bytes per answer.

Usage: .venv/bin/python bench/lobby_state.py [--seconds 4] [--rounds 5] [--lengths 10,50,200,1000]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.panel_sse import requests_per_second  # noqa: E402
from games.frame import CHANCE, DigitalGame, game_class  # noqa: E402
from store.db import connect  # noqa: E402
from store.games import GameStore, SeatSpec  # noqa: E402
from tests.servers.process import free_port  # noqa: E402

LENGTHS = (10, 50, 200, 1000)
THREADS = 4


def hypnosia_of_length(moves: int) -> DigitalGame:
    """A Hypnosia game still running after exactly *moves* moves (dice rolls count as moves), a seat
    to act.

    Random pawn moves end a game in 400-700 moves; preferring moves that take no pawn and
    enter no centre keeps a game going long enough for the longest length.
    """
    for seed in range(1000):
        rng = random.Random(seed)
        game = game_class("hypnosia").new(["Ana", "Ben"], seed=seed)
        while len(game.history) < moves and not game.is_over():
            legal = game.legal_moves()
            if game.to_act == CHANCE:
                game.push(rng.choice(legal))
                continue
            quiet = [m for m in legal if _is_quiet(game, m)]
            game.push(rng.choice(quiet or legal))
        if len(game.history) == moves and not game.is_over() and game.to_act != CHANCE:
            return game  # a seat to act (the store keeps program dice rolled)
    raise RuntimeError(f"no seed gives a Hypnosia game of {moves} moves")


def _is_quiet(game: DigitalGame, move: Any) -> bool:
    before = game.view()
    after = game.play(move).view()
    captured = sum(p["captured"] for p in after["players"]) > sum(p["captured"] for p in before["players"])
    return not captured and len(after["centre"]) == len(before["centre"])


def store_games(database: Path, lengths: tuple[int, ...]) -> dict[int, tuple[int, str]]:
    """Each length's game in the store: length -> (game id, the token of the seat to act)."""
    conn = connect(database)
    try:
        games = GameStore(conn)
        made = {}
        for length in lengths:
            game = hypnosia_of_length(length)
            seats = [SeatSpec(kind="human", name=n) for n in game.players]
            record, _host = games.create(game, seats, hot_seat=False)
            tokens = {}
            for seat in record.seats:
                assert seat.join_code is not None
                number, token = games.join(record.id, seat.join_code)
                tokens[number] = token
            assert game.to_act is not None and game.to_act >= 0
            made[length] = (record.id, tokens[game.to_act])
        return made
    finally:
        conn.close()


def answers_200(port: int, path: str, headers: dict[str, str]) -> None:
    """A request measured must succeed: a refusal served fast would look like speed."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"GET {path} answered {response.status}")
    finally:
        conn.close()


def start_panel(database: Path, tmp: Path) -> tuple[subprocess.Popen[bytes], int]:
    config = tmp / "config.toml"
    config.write_text(f'[store]\npath = "{database}"\n', encoding="utf-8")
    port = free_port()
    panel = subprocess.Popen(
        [sys.executable, "-m", "hautetension", "panel", "--config", str(config), "--port", str(port)],
        cwd=ROOT, stderr=subprocess.DEVNULL, env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return panel, port
        except OSError:
            if time.monotonic() > deadline or panel.poll() is not None:
                panel.kill()
                raise RuntimeError("the panel did not start") from None
            time.sleep(0.1)


def counts_per_request(database: Path, requests: list[tuple[str, dict[str, str]]]) -> list[tuple[float, int]]:
    """(engine pushes, bytes) of each request, asked twice in this process (the second is reported:
    a panel that keeps loaded games answers it from memory)."""
    from webpanel.app import close_app, create_app
    from webpanel.config import PanelSettings

    pushes = [0]
    original: Callable[..., None] = DigitalGame.push

    def counting_push(self: DigitalGame, move: Any) -> None:
        pushes[0] += 1
        original(self, move)

    app = create_app({"PANEL": PanelSettings(database=database), "TESTING": True})
    DigitalGame.push = counting_push  # type: ignore[method-assign]
    try:
        client = app.test_client()
        found = []
        for path, headers in requests:
            client.get(path, headers=headers)
            pushes[0] = 0
            answer = client.get(path, headers=headers)
            assert answer.status_code == 200, (path, answer.status_code)
            found.append((float(pushes[0]), len(answer.get_data())))
        return found
    finally:
        DigitalGame.push = original  # type: ignore[method-assign]
        close_app(app)


def side_by_side(
    port: int, path: str, headers: dict[str, str], seconds: float, rounds: int
) -> dict[str, float]:
    """The request's rate and the baseline's, alternating in *rounds* spells; the median ratio."""
    answers_200(port, path, headers)
    spell = seconds / rounds / 2
    pairs = [(requests_per_second(port, "/api/session", spell, THREADS),
              requests_per_second(port, path, spell, THREADS, headers)) for _ in range(rounds)]
    return {"session": statistics.mean(b for b, _ in pairs), "rps": statistics.mean(r for _, r in pairs),
            "ratio": statistics.median(r / b for b, r in pairs)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="seconds per figure (both sides)")
    parser.add_argument("--rounds", type=int, default=5, help="spells of each side per figure")
    parser.add_argument("--lengths", default=",".join(map(str, LENGTHS)), help="game lengths in moves")
    args = parser.parse_args()
    lengths = tuple(int(n) for n in args.lengths.split(","))
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        database = Path(tmp) / "bench.db"
        games = store_games(database, lengths)
        panel, port = start_panel(database, Path(tmp))
        try:
            requests_per_second(port, "/api/session", 0.5, THREADS)  # warm up every server thread
            for length, (game_id, token) in games.items():
                cases = [
                    ("spectator", f"/api/games/{game_id}", {}),
                    ("seat to act", f"/api/games/{game_id}", {"X-Seat-Token": token}),
                    ("page data", f"/api/games/{game_id}/hypnosia", {}),
                ]
                for who, path, headers in cases:
                    figures = side_by_side(port, path, headers, args.seconds, args.rounds)
                    rows.append({"moves": length, "who": who, "path": path, "headers": headers, **figures})
        finally:
            panel.terminate()
            panel.wait(10)
        counted = counts_per_request(database, [(r["path"], r["headers"]) for r in rows])
    for row, (pushes, size) in zip(rows, counted, strict=True):
        row["pushes"], row["bytes"] = pushes, size
    print(f"load after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"Hypnosia game state, {THREADS} keep-alive client threads, {args.seconds:g} s per figure"
          f" in {args.rounds} rounds")
    print(f"{'moves':>6} {'request':<24} {'req/s':>8} {'session req/s':>14} {'x session':>10}"
          f" {'pushes/req':>11} {'bytes':>7}")
    for r in rows:
        print(f"{r['moves']:>6} {r['who'] + (' /hypnosia' if r['who'] == 'page data' else ''):<24}"
              f" {r['rps']:>8.0f} {r['session']:>14.0f} {r['ratio']:>10.2f} {r['pushes']:>11.0f}"
              f" {r['bytes']:>7}")
    print(json.dumps([{k: v for k, v in r.items() if k != "headers"} for r in rows]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
