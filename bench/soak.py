"""Soak: the whole controller under a steady load for a long time; does anything grow?

    .venv/bin/python bench/soak.py [--minutes 30] [--warmup 5] [--sample 30] [--out FILE]

It starts the real processes, as ``make run`` does: ``hautetension board``
on the simulated board and ``hautetension panel``, sharing one database in a
scratch folder (rolling backups on, as on a Pi). Then, for ``--minutes``:

* **the board**: a virtual hand plays physical games back to back through the
  panel's simulated-board API (``POST /api/sim/slots/<slot>``, one pawn every
  ``--pace`` seconds for the player to move, kinds from that player's stock),
  each game started and, once over, cleared as staff would (every fifth one
  abandoned half-way): every placement goes through the panel, the command
  queue, the scanner, the debounce, the referee, the lamps and the journal;
* **panel clients**: ``--pollers`` clients reading ``GET /api/board`` twice a
  second, and ``--streams`` clients following ``GET /api/events`` (reconnecting
  when the panel ends a stream, as browsers do);
* **the lobby**: ``--lobby`` digital games at a time between computer players
  (Quantum tic-tac-toe, Hypnosia, |Hop>, digital Haute-Tension in turn, at
  their first two levels), each followed by polling until it is over, then
  replaced by a new one.

Every ``--sample`` seconds it records, for the board service and the panel:
resident memory (``VmRSS``), threads, open files (``/proc/<pid>/fd``); and the
database's size (with its ``-wal`` and ``-shm``) and the backups folder's.
The baseline is each figure at the end of the warm-up (``--warmup`` minutes:
caches fill, the WAL reaches its checkpoint size), and the summary gives, after
warm-up: first and last value, the minimum and maximum, and the least-squares
slope per hour, with the counts of what was done (games, placements, requests,
events, lobby games), which do not depend on the machine. The samples are
written to ``--out`` (JSON lines) as they come.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import random
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from games.hautetension.layout import load_layout  # noqa: E402
from games.hautetension.pawn import PawnKind  # noqa: E402
from games.hautetension.setup import GameSetup  # noqa: E402
from store.commands import CommandKind, Commands, CommandStatus  # noqa: E402
from store.db import connect  # noqa: E402
from store.journal import Journal  # noqa: E402

LOBBY_GAMES = ("qttt", "hypnosia", "hop", "hautetension")
counts: Counter[str] = Counter()
counts_lock = threading.Lock()


def count(what: str, n: int = 1) -> None:
    with counts_lock:
        counts[what] += n


# -- HTTP ---------------------------------------------------------------------------------------


class Client:
    """A browser-like client of the panel: its own cookies and CSRF token."""

    def __init__(self, base: str) -> None:
        self.base = base
        cookies = urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        self.opener = urllib.request.build_opener(cookies)
        self.token = ""
        for attempt in range(10):  # a busy panel may reset a connection: as a browser, try again
            try:
                self.token = self.get("/api/session")["csrf_token"]
                break
            except OSError:
                count("session errors")
                time.sleep(1 + attempt)

    def request(self, method: str, path: str, body: Any = None, timeout: float = 15) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "X-CSRF-Token": self.token}
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        count("requests")
        try:
            with self.opener.open(request, timeout=timeout) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            count(f"http {exc.code}")
            exc.read()
            exc.close()
            raise

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: Any) -> Any:
        return self.request("POST", path, body)


# -- the board: physical games back to back -----------------------------------------------------------


class BoardPlayer(threading.Thread):
    """Plays physical games on the simulated board through the panel, one after another."""

    def __init__(self, base: str, database: Path, stop: threading.Event, pace: float, seed: int) -> None:
        super().__init__(name="board-player", daemon=True)
        self.base, self.database, self.stop_event, self.pace = base, database, stop, pace
        self.rng = random.Random(seed)
        self.layout = load_layout()

    def run(self) -> None:
        client = Client(self.base)
        conn = connect(self.database)
        journal, commands = Journal(conn), Commands(conn)
        try:
            while not self.stop_event.is_set():
                try:
                    self.one_game(client, journal, commands)
                except (urllib.error.URLError, TimeoutError, OSError, RuntimeError) as exc:
                    if self.stop_event.is_set():
                        return
                    count("board errors")
                    print(f"soak: board game interrupted: {exc}", file=sys.stderr, flush=True)
                    self.stop_event.wait(1)  # the next game starts by clearing the board
        finally:
            conn.close()

    def command(self, commands: Commands, kind: CommandKind, payload: dict[str, Any]) -> dict[str, Any]:
        done = commands.wait(commands.submit(kind, payload), timeout=10)
        if done is None or done.status is not CommandStatus.DONE:
            raise RuntimeError(f"{kind.value} not done: {done.result if done else 'no answer'}")
        return done.result or {}

    def state(self, journal: Journal) -> dict[str, Any]:
        state = journal.state()
        return state.public if state is not None else {}

    def one_game(self, client: Client, journal: Journal, commands: Commands) -> None:
        if (self.state(journal).get("game") or {}).get("status") == "running":  # left by an interruption
            self.command(commands, CommandKind.ABANDON_GAME, {})
        self.clear(client, journal)
        names = ["Ana", "Ben", "Cy", "Dee"][: self.rng.choice((2, 3, 4))]
        # No one holds the test button: the lamps' pre-game check is skipped, as ``make run``'s demo does.
        payload = {"players": [{"name": n} for n in names], "first": 0, "pregame_check": "skip"}
        self.command(commands, CommandKind.NEW_GAME, payload)
        game = GameSetup.from_payload(payload, lamps=self.layout.lamps).start(self.layout)  # the hand's copy
        abandon_at = self.rng.randrange(4, 12) if counts["games started"] % 5 == 4 else None
        count("games started")
        while not game.is_over() and not self.stop_event.is_set():
            if abandon_at is not None and len(game.history) >= abandon_at:
                self.command(commands, CommandKind.ABANDON_GAME, {})
                count("games abandoned")
                return
            player = game.to_move
            assert player is not None
            attack, defense = game.stock(player)
            kind = self.rng.choice([PawnKind.ATTACK] * attack + [PawnKind.DEFENSE] * defense)
            slot = self.rng.choice([s for s in self.layout.slots if s not in game.pawns])
            client.post(f"/api/sim/slots/{slot}", {"pawn": kind.value})
            game.push(slot, kind)
            count("placements")
            moves = len(game.history)
            self.wait_for(journal, _at_least_moves(moves), "the placement")
            if self.state(journal).get("anomalies"):
                raise RuntimeError(f"anomaly: {self.state(journal)['anomalies']}")
            self.stop_event.wait(self.pace)
        if game.is_over():
            self.wait_for(journal, lambda s: (s.get("game") or {}).get("status") == "over", "the game's end")
            count("games played")

    def clear(self, client: Client, journal: Journal) -> None:
        """Lift every pawn, as staff clear the board between games."""
        for slot in sorted(self.state(journal).get("pawns", {})):
            try:
                client.post(f"/api/sim/slots/{slot}", {"pawn": None})
            except urllib.error.HTTPError:
                count("clear refused")
        self.wait_for(journal, lambda s: not s.get("pawns"), "an empty board")

    def wait_for(self, journal: Journal, done: Callable[[dict[str, Any]], bool], what: str) -> None:
        deadline = time.monotonic() + 10
        while not done(self.state(journal)):
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out waiting for {what}")
            time.sleep(0.02)


def _moves(state: dict[str, Any]) -> int:
    view = (state.get("game") or {}).get("view") or {}
    return len(view.get("moves") or [])


def _at_least_moves(n: int) -> Callable[[dict[str, Any]], bool]:
    return lambda state: _moves(state) >= n


# -- panel clients ------------------------------------------------------------------------------------


def poller(base: str, stop: threading.Event) -> None:
    client = Client(base)
    while not stop.is_set():
        try:
            client.get("/api/board")
        except (urllib.error.URLError, OSError):
            count("poll errors")
        stop.wait(0.5)


def streamer(base: str, stop: threading.Event) -> None:
    """Follows /api/events as a browser does: reconnects with Last-Event-ID when the panel ends it."""
    last = ""
    while not stop.is_set():
        headers = {"Last-Event-ID": last} if last else {}
        request = urllib.request.Request(base + "/api/events", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                count("streams opened")
                for raw in response:
                    line = raw.decode().rstrip("\n")
                    if line.startswith("id:"):
                        last = line[3:].strip()
                        count("events")
                    if stop.is_set():
                        break
        except (urllib.error.URLError, OSError, TimeoutError):
            count("stream errors")
            stop.wait(1)


# -- the lobby: computer players --------------------------------------------------------------------


def lobby_player(base: str, stop: threading.Event, seed: int, pause: float) -> None:
    client = Client(base)
    rng = random.Random(seed)
    catalogue = {c["game"]: c for c in client.get("/api/games")["catalogue"]}
    games = [g for g in LOBBY_GAMES if g in catalogue]
    turn = seed
    while not stop.is_set():
        name = games[turn % len(games)]
        turn += 1
        entry = catalogue[name]
        levels = entry["levels"][:2]
        seats = [{"kind": "ai", "level": levels[i % len(levels)], "name": f"CPU {i + 1}"}
                 for i in range(entry["min_players"])]
        try:
            created = client.post("/api/games", {"game": name, "seats": seats, "seed": rng.randrange(10**6)})
            count("lobby games created")
            game_id = created["id"]
            deadline = time.monotonic() + 300
            while not stop.is_set() and time.monotonic() < deadline:
                if client.get(f"/api/games/{game_id}")["status"] == "over":
                    count("lobby games over")
                    break
                stop.wait(0.5)
            stop.wait(pause)
        except (urllib.error.URLError, OSError, KeyError) as exc:
            count("lobby errors")
            print(f"soak: lobby game interrupted: {exc}", file=sys.stderr, flush=True)
            stop.wait(2)


# -- sampling ---------------------------------------------------------------------------------------


def process_figures(pid: int) -> dict[str, float]:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return {
        "rss_mib": int(fields["VmRSS"].split()[0]) / 1024,
        "threads": int(fields["Threads"]),
        "open_files": len(os.listdir(f"/proc/{pid}/fd")),
    }


def folder_size(folder: Path) -> tuple[float, int]:
    files = [p for p in folder.glob("*") if p.is_file()] if folder.is_dir() else []
    return sum(p.stat().st_size for p in files) / 2**20, len(files)


def sample(started: float, processes: dict[str, subprocess.Popen[bytes]], database: Path) -> dict[str, Any]:
    row: dict[str, Any] = {"minute": round((time.monotonic() - started) / 60, 2)}
    for name, proc in processes.items():
        row[name] = process_figures(proc.pid)
    row["database_mib"] = sum(Path(f"{database}{s}").stat().st_size for s in ("", "-wal", "-shm")
                              if Path(f"{database}{s}").exists()) / 2**20
    row["backups_mib"], row["backups"] = folder_size(database.parent / "backups")
    with counts_lock:
        row["counts"] = dict(counts)
    return row


def _slope_per_hour(points: list[tuple[float, float]]) -> float:
    if len(points) < 2:
        return 0.0
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return 60 * sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var if var else 0.0


def summary(rows: list[dict[str, Any]], warmup: float) -> None:
    after = [r for r in rows if r["minute"] >= warmup] or rows[-1:]
    figures = [("board", "rss_mib"), ("board", "threads"), ("board", "open_files"),
               ("panel", "rss_mib"), ("panel", "threads"), ("panel", "open_files"),
               (None, "database_mib"), (None, "backups_mib")]
    print()
    print(f"after warm-up ({warmup:g} min), {len(after)} samples from minute {after[0]['minute']:g} "
          f"to {after[-1]['minute']:g}:")
    print(f"{'figure':<22} {'at warm-up end':>14} {'last':>8} {'min':>8} {'max':>8} {'last/first':>10} "
          f"{'slope /h':>9}")
    for process, key in figures:
        values = [(r["minute"], r[process][key] if process else r[key]) for r in after]
        first, last = values[0][1], values[-1][1]
        ys = [v for _, v in values]
        ratio = last / first if first else float("nan")
        print(f"{(process + ' ' if process else '') + key:<22} {first:>14.2f} {last:>8.2f} {min(ys):>8.2f} "
              f"{max(ys):>8.2f} {ratio:>10.3f} {_slope_per_hour(values):>+9.2f}")
    print()
    print("counts:", json.dumps(rows[-1]["counts"], sort_keys=True))


def table_sizes(database: Path) -> dict[str, tuple[int, float]]:
    """Each table's rows and KiB (its indexes included), read through SQLite's ``dbstat``."""
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        tables = [name for name, in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'")]
        owner = {name: table for name, table in conn.execute(
            "SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')")}
        kib: Counter[str] = Counter()
        for name, size in conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
            kib[owner.get(name, name)] += size / 1024
        return {t: (int(conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]), kib[t]) for t in tables}
    finally:
        conn.close()


def print_tables(database: Path) -> None:
    """What the database holds at the end: it grows with what was played, by so much per row."""
    print()
    print(f"{'table':<28} {'rows':>8} {'KiB':>9} {'bytes/row':>10}")
    for table, (rows, kib) in sorted(table_sizes(database).items(), key=lambda item: -item[1][1]):
        if rows:
            print(f"{table:<28} {rows:>8} {kib:>9.1f} {kib * 1024 / rows:>10.0f}")


# -- the run ----------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the panel stopped ({proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the panel did not listen")


def _wait_heartbeat(database: Path, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the board service stopped ({proc.returncode})")
        if database.exists():
            conn = connect(database)
            state = Journal(conn).state()
            conn.close()
            if state is not None and state.health and state.health["service"]["pid"] == proc.pid:
                return
        time.sleep(0.2)
    raise RuntimeError("the board service did not start")


def _interrupted(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="how long to run (default 30)")
    parser.add_argument("--warmup", type=float, default=5.0, help="minutes of warm-up (default 5)")
    parser.add_argument("--sample", type=float, default=30.0, help="seconds between samples (default 30)")
    parser.add_argument("--pace", type=float, default=0.25, help="seconds between two pawns (default 0.25)")
    parser.add_argument("--pollers", type=int, default=4)
    parser.add_argument("--streams", type=int, default=4)
    parser.add_argument("--lobby", type=int, default=2, help="lobby games at a time (default 2)")
    parser.add_argument("--lobby-pause", type=float, default=2.0,
                        help="seconds between a lobby game's end and the next one (default 2)")
    parser.add_argument("--out", type=Path,
                        help="samples as JSON lines (default: soak.jsonl in the scratch folder)")
    parser.add_argument("--folder", type=Path, help="scratch folder (default: a new temporary one)")
    args = parser.parse_args()

    folder = args.folder or Path(tempfile.mkdtemp(prefix="ht-soak-"))
    folder.mkdir(parents=True, exist_ok=True)
    if any(folder.iterdir()):
        parser.error(f"{folder} is not empty: a soak starts from a new database")
    database = folder / "hautetension.db"
    (folder / "config.toml").write_text("[board]\nmin_turn_s = 0\n[store]\nbackups_kept = 10\n")
    out = args.out or folder / "soak.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
    env["HAUTETENSION_CONFIG"] = str(folder / "config.toml")
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "hautetension"]
    board = subprocess.Popen([*command, "board", "--backend", "sim", "--db", str(database)], cwd=ROOT,
                             env=env)
    processes: dict[str, subprocess.Popen[bytes]] = {"board": board}
    stop = threading.Event()
    threads: list[threading.Thread] = []
    rows: list[dict[str, Any]] = []
    signal.signal(signal.SIGTERM, _interrupted)  # `kill` as Ctrl-C: the figures so far, then stop
    try:
        _wait_heartbeat(database, board)
        panel = subprocess.Popen([*command, "panel", "--db", str(database), "--port", str(port)], cwd=ROOT,
                                 env=env)
        processes["panel"] = panel
        _wait_port(port, panel)
        print(f"soak: {args.minutes:g} min in {folder}; load average {os.getloadavg()[0]:.2f} "
              "(2 shared cores)", flush=True)
        print(f"soak: pids {board.pid},{panel.pid}", flush=True)
        threads.append(BoardPlayer(base, database, stop, args.pace, seed=1))
        threads += [threading.Thread(target=poller, args=(base, stop), daemon=True)
                    for _ in range(args.pollers)]
        threads += [threading.Thread(target=streamer, args=(base, stop), daemon=True)
                    for _ in range(args.streams)]
        threads += [threading.Thread(target=lobby_player, args=(base, stop, n, args.lobby_pause), daemon=True)
                    for n in range(args.lobby)]
        for thread in threads:
            thread.start()
        started = time.monotonic()
        with out.open("w") as log:
            while True:
                for name, proc in processes.items():
                    if proc.poll() is not None:
                        raise RuntimeError(f"the {name} stopped ({proc.returncode})")
                row = sample(started, processes, database)
                rows.append(row)
                log.write(json.dumps(row) + "\n")
                log.flush()
                print(f"soak: min {row['minute']:6.1f}  board {row['board']['rss_mib']:6.1f} MiB "
                      f"{row['board']['threads']:3d} thr {row['board']['open_files']:3d} fds | panel "
                      f"{row['panel']['rss_mib']:6.1f} MiB {row['panel']['threads']:3d} thr "
                      f"{row['panel']['open_files']:3d} fds | db {row['database_mib']:6.2f} MiB, backups "
                      f"{row['backups']} ({row['backups_mib']:.1f} MiB) | games {counts['games played']}, "
                      f"placements {counts['placements']}, lobby {counts['lobby games over']}", flush=True)
                if row["minute"] >= args.minutes:
                    break
                time.sleep(args.sample)
    except KeyboardInterrupt:  # stopped early: the figures so far
        print("soak: interrupted", flush=True)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # stopping already
        stop.set()
        if rows:
            print(f"soak: load average at end {os.getloadavg()[0]:.2f}")
            summary(rows, args.warmup)
            print_tables(database)
        for proc in processes.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT if proc is processes.get("panel") else signal.SIGTERM)
        for proc in processes.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
