"""Benchmark: remote digital games on the event server, seats behaving as the game page does.

    .venv/bin/python bench/online.py [--games 16] [--kinds hautetension,qttt] [--think 0]
        [--seconds 20] [--processes 1] [--engines sqlite] [--root TREE ...] [--rounds 1]
        [--profile FILE]

Starts ``hautetension central`` (the event server: the panel in its "event"
role) on a temporary database and, in the same run, a bare Flask app on
waitress answering a trivial JSON POST: the stack's own ceiling on this
machine. Then ``--games`` games of each kind are played at once, each of its
seats a client of its own (a session, a seat token, a keep-alive connection
and an event stream) doing what ``webpanel/lobby/static/game.js`` does: it
fetches the game once, follows ``/api/games/<id>/events``, fetches the game
again when an event names a version it does not show, and when it may move,
waits ``--think`` seconds then posts a legal move (chosen at random) with the
version it saw and a request id of its own. A game that ends is replaced by a
new one. Every client is a coroutine on one asyncio loop (raw sockets:
thousands cost no thread).

Reported per kind and engine: moves per second and its ratio to the bare
stack's requests per second, requests per move, move → seen by the other
seats p50/p99 (from the mover's POST to each other seat holding the new
version), answers by status (any 5xx is an error; 503 is counted apart,
with or without ``Retry-After``), streams refused, and the server
processes' threads and RSS at the end.

``--root TREE`` runs the server from another checkout (``git archive`` of an
earlier revision, with this venv's Python); given several times, the trees
are measured one after the other in each of ``--rounds`` rounds, each round
after its own measure of the bare stack: before/after figures side by side
on a machine whose load moves.
``--nginx`` puts Debian's nginx from the shipped template in front
(``[panel] live_publisher`` set): the seats' requests go through it and they
follow their game's nchan channel (``/live/game-N``) instead of the
process's own stream. ``--profile FILE`` runs the (first) server under cProfile in every thread
(:data:`PROFILED_SERVER`), counting the measured window only, and adds
machine-independent counts to the figures: Python calls and SQL statements per
request the server answered and per move (the profile itself in ``FILE``,
pstats' format; the profiler slows the server, so its moves/s are not the
figures to quote). ``--engines postgresql`` starts the test suite's throwaway PostgreSQL cluster
(tests/servers/postgres.py); ``--processes 2`` runs two server processes on
it and spreads the seats over both.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import marshal
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PYTHON = str(ROOT / ".venv" / "bin" / "python")

BARE_APP = """
from flask import Flask, jsonify, request
import waitress
app = Flask(__name__)

@app.post("/echo")
def echo():
    body = request.get_json(silent=True) or {}
    return jsonify({"ok": True, "got": len(body)})

waitress.serve(app, host="127.0.0.1", port=int(__import__("sys").argv[1]), threads=%(threads)d, _quiet=True)
"""


PROFILED_SERVER = """
import cProfile, marshal, runpy, signal, sys, threading
out = sys.argv.pop(1)
profiles = [cProfile.Profile()]
started = threading.Thread.run

def run(self):
    profile = cProfile.Profile()
    profiles.append(profile)
    profile.enable()
    try:
        started(self)
    finally:
        profile.disable()

def clear(*_):
    for profile in list(profiles):
        profile.clear()

def dump(*_):
    merged = {}
    for profile in list(profiles):
        profile.snapshot_stats()
        for key, (cc, nc, tt, ct, callers) in profile.stats.items():
            old = merged.get(key)
            if old is None:
                merged[key] = (cc, nc, tt, ct, dict(callers))
                continue
            for caller, value in callers.items():
                got = old[4].get(caller)
                old[4][caller] = value if got is None else tuple(a + b for a, b in zip(got, value))
            merged[key] = (old[0] + cc, old[1] + nc, old[2] + tt, old[3] + ct, old[4])
    with open(out, "wb") as handle:
        marshal.dump(merged, handle)

threading.Thread.run = run
signal.signal(signal.SIGUSR1, clear)
signal.signal(signal.SIGUSR2, dump)
profiles[0].enable()
sys.argv = ["hautetension", *sys.argv[1:]]
runpy.run_module("hautetension", run_name="__main__", alter_sys=True)
"""
"""``--profile``: the server under cProfile in every thread (``-m cProfile`` sees the main thread only);
SIGUSR1 starts the count afresh, SIGUSR2 writes every thread's counts merged (pstats' format)."""


THROUGH_NGINX = [False]
"""Whether the seats reach the server through nginx and follow their game's nchan channel (--nginx)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def proc_status(pid: int) -> tuple[int, float]:
    """Threads and RSS (MiB) of process *pid*."""
    threads, rss = 0, 0.0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Threads:"):
                threads = int(line.split()[1])
            elif line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
    except OSError:
        pass
    return threads, rss


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_answers(port: int, path: str, proc: subprocess.Popen[Any], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server ended: {log.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(f"GET {path} HTTP/1.0\r\nHost: x\r\n\r\n".encode())
                if s.recv(12).startswith(b"HTTP/1"):
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server did not answer: {log.read_text()[-2000:]}")


@contextmanager
def central(folder: Path, root: Path, database: str, name: str, games: int,
            profile: Path | None = None, *, port: int | None = None,
            live_publisher: str = "") -> Iterator[tuple[int, int]]:
    """``hautetension central`` from *root* on *database*: yields (port, pid)."""
    folder.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    config = folder / "central.toml"
    # Behind nginx: the clients' own addresses come from it (X-Forwarded-For), as install.sh sets it up.
    publisher = ""
    if live_publisher:
        publisher = f'live_publisher = "{live_publisher}"\ntrusted_proxy = "127.0.0.1"\n'

    streams = max(64, games * 4 * 2 + 16)
    config.write_text(
        f'[central]\nevent = "bench"\ndatabase = "{database}"\nbroker = "mqtt://127.0.0.1:{free_port()}"\n'
        f'instance = "{name}"\nport = {port}\n'
        f'[panel]\nsecret_key_file = "{folder.parent / "secret.key"}"\nmax_streams = {streams}\n'
        f'max_streams_per_address = {streams}\n{publisher}'
        f'[lobby]\nmax_open_games = {games * 4 + 100}\nmax_open_games_per_device = {games * 4 + 100}\n'
        f'cached_games = {max(64, games * 3)}\n'
    )
    env = {k: v for k, v in os.environ.items() if k != "HAUTETENSION_CONFIG"}
    env["PYTHONPATH"] = str(root)
    log = folder / "central.log"
    with log.open("w") as out:
        program = ["-c", PROFILED_SERVER, str(profile)] if profile is not None else ["-m", "hautetension"]
        command = [PYTHON, *program, "central", "--config", str(config)]
        proc = subprocess.Popen(command, cwd=root, env=env, stdout=out, stderr=out)
    try:
        wait_answers(port, "/api/session", proc, log)
        yield port, proc.pid
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def bare_stack(folder: Path, threads: int) -> Iterator[tuple[int, int]]:
    port = free_port()
    script = folder / "bare.py"
    script.write_text(BARE_APP % {"threads": threads})
    log = folder / "bare.log"
    with log.open("w") as out:
        proc = subprocess.Popen([PYTHON, str(script), str(port)], stdout=out, stderr=out)
    try:
        wait_answers(port, "/", proc, log)
        yield port, proc.pid
    finally:
        proc.kill()
        proc.wait()


# -- the HTTP client: one keep-alive connection, raw asyncio streams --------------------------


class HttpError(Exception):
    pass


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Client:
    """One browser's worth of HTTP: its cookies, its CSRF token, one keep-alive connection."""

    def __init__(self, port: int, tally: Tally) -> None:
        self.port = port
        self.tally = tally
        self.cookies: dict[str, str] = {}
        self.csrf = ""
        self.headers: dict[str, str] = {}
        self.address = f"127.{random.randint(1, 254)}.{random.randint(1, 254)}.{random.randint(1, 254)}"
        """Where this client connects from: each player is a device of its own (a loopback address)."""
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        """Keep-alive connections not in use (a browser opens another when one is busy)."""

    def _head(self, method: str, path: str, body: bytes | None) -> bytes:
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if method == "POST":
            lines.append(f"X-CSRF-Token: {self.csrf}")
            lines.append("Content-Type: application/json")
            lines.append(f"Content-Length: {len(body or b'')}")
        lines.extend(f"{k}: {v}" for k, v in self.headers.items())
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")

    async def request(self, method: str, path: str, payload: Any = None, *, kind: str = "") -> Answer:
        body = None if payload is None else json.dumps(payload).encode()
        for attempt in range(2):
            if self._idle:
                reader, writer = self._idle.pop()
            else:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port,
                                                               local_addr=(self.address, 0))
            try:
                writer.write(self._head(method, path, body))
                status, headers = await read_head(reader)
                answer = Answer(status, headers, await read_body(reader, headers))
            except (ConnectionError, asyncio.IncompleteReadError, HttpError):
                writer.close()
                if attempt == 1:
                    self.tally.statuses["disconnected"] += 1
                    raise
                continue
            if headers.get("connection", "").lower() == "close":
                writer.close()
            else:
                self._idle.append((reader, writer))
            self._keep_cookies(headers)
            self.tally.requests += 1
            self.tally.statuses[str(status) + ("+Retry-After" if "retry-after" in headers else "")] += 1
            if status >= 500:
                self.tally.errors.append(f"{status} {method} {kind or path}: {answer.body[:160]!r}")
            return answer
        raise AssertionError("unreachable")

    def _keep_cookies(self, headers: dict[str, str]) -> None:
        for raw in headers.get("set-cookie", "").split("\n"):
            pair = raw.split(";", 1)[0]
            if "=" in pair:
                name, value = pair.split("=", 1)
                self.cookies[name.strip()] = value.strip()

    async def start_session(self) -> None:
        answer = await self.request("GET", "/api/session")
        self.csrf = answer.json()["csrf_token"]

    def close(self) -> None:
        for _, writer in self._idle:
            writer.close()
        self._idle.clear()


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    raw = await reader.readuntil(b"\r\n\r\n")
    lines = raw.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise HttpError(lines[0])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            name = name.strip().lower()
            headers[name] = (headers[name] + "\n" if name in headers else "") + value.strip()
    return int(parts[1]), headers


async def read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    if headers.get("transfer-encoding", "").lower() == "chunked":
        out = b""
        async for chunk in chunks(reader):
            out += chunk
        return out
    return await reader.read()


async def chunks(reader: asyncio.StreamReader) -> Any:
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return
        data = await reader.readexactly(size)
        await reader.readexactly(2)
        yield data


async def events(port: int, path: str, client: Client) -> Any:
    """The SSE events of *path* as (event, data), on a connection of its own; None when refused."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(client.address, 0))
    try:
        head = client._head("GET", path, None)
        writer.write(head.replace(b"\r\n\r\n", b"\r\nAccept: text/event-stream\r\n\r\n", 1))
        status, headers = await read_head(reader)
        if status != 200:
            client.tally.refused_streams[status] += 1
            await read_body(reader, headers)
            yield None
            return
        client.tally.streams += 1
        chunked = headers.get("transfer-encoding", "").lower() == "chunked"
        source = chunks(reader) if chunked else raw_reads(reader)
        buffer, name, data = "", "message", ""
        async for piece in source:
            buffer += piece.decode()
            while "\n" in buffer:
                line, buffer = buffer.split("\n", 1)
                if line == "":
                    if data:
                        yield name, data
                    name, data = "message", ""
                elif line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    data += line[5:].strip()
    except (ConnectionError, asyncio.IncompleteReadError):
        return
    finally:
        writer.close()


async def raw_reads(reader: asyncio.StreamReader) -> Any:
    while True:
        data = await reader.read(65536)
        if not data:
            return
        yield data


# -- the games ---------------------------------------------------------------------------------


@dataclass
class Tally:
    requests: int = 0
    moves: int = 0
    games_ended: int = 0
    streams: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    refused_streams: Counter[int] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    seen_ms: list[float] = field(default_factory=list)
    posted_at: dict[tuple[int, int], float] = field(default_factory=dict)
    """(game, version the move made) → when the move was posted."""


class Seat:
    """One seat's page: follows the game, fetches it once per new version, moves when it may."""

    def __init__(self, game: Game, client: Client, seat: int) -> None:
        self.game = game
        self.client = client
        self.seat = seat
        self.version = -1
        self.state: dict[str, Any] | None = None
        self.moving = False
        self.posting = False

    async def refresh(self) -> None:
        answer = await self.client.request("GET", f"/api/games/{self.game.id}", kind="GET game")
        if answer.status == 200:
            self.take(answer.json())

    def take(self, state: dict[str, Any]) -> None:
        if state["version"] < self.version:
            return
        if state["version"] > self.version:
            posted = self.game.tally.posted_at.get((self.game.id, state["version"]))
            if posted is not None and not self.moving:
                self.game.tally.seen_ms.append((time.monotonic() - posted) * 1000)
        self.version, self.state = state["version"], state
        if state["status"] != "running":
            self.game.over.set()
        elif state["can_move"] and not self.moving:
            self.moving = True
            task = asyncio.get_running_loop().create_task(self.move())
            self.game.tasks.add(task)  # the loop holds a task weakly: kept until it is done
            task.add_done_callback(self.game.tasks.discard)

    async def move(self) -> None:
        if self.game.think:
            await asyncio.sleep(random.uniform(0.5, 1.5) * self.game.think)
        state = self.state
        if state is None or not state["legal_moves"] or self.game.over.is_set():
            self.moving = False
            return
        move = random.choice(state["legal_moves"])
        self.game.tally.posted_at[(self.game.id, state["version"] + 1)] = time.monotonic()
        self.posting = True
        try:
            answer = await self.client.request("POST", f"/api/games/{self.game.id}/moves",
                                               {"move": move, "version": state["version"],
                                                "request_id": uuid.uuid4().hex}, kind="POST move")
        except (OSError, HttpError, asyncio.IncompleteReadError):
            self.moving = False
            return
        finally:
            self.posting = False
        self.moving = False  # the answer may let this seat move again (take starts it)
        if answer.status == 200:
            self.game.tally.moves += 1
            self.take(answer.json())
            return
        if answer.status == 503:
            await asyncio.sleep(float(answer.headers.get("retry-after", "1")))
        await self.refresh()

    async def follow(self) -> None:
        await self.refresh()
        while not self.game.over.is_set() and not self.game.stop.is_set():
            path = (f"/live/game-{self.game.id}" if self.game.through_nginx
                    else f"/api/games/{self.game.id}/events")
            async for item in events(self.client.port, path, self.client):
                if item is None:
                    await asyncio.sleep(2)  # refused: the page retries
                    break
                name, data = item
                if name == "game":
                    version = json.loads(data).get("version")
                    while self.posting:  # as the page does: the move's answer brings the new view
                        await asyncio.sleep(0.001)
                    if version > self.version:
                        await self.refresh()
                if self.game.over.is_set() or self.game.stop.is_set():
                    break


class Game:
    def __init__(self, kind: str, ports: list[int], tally: Tally, think: float, stop: asyncio.Event) -> None:
        self.kind = kind
        self.ports = ports
        self.through_nginx = THROUGH_NGINX[0]
        self.tally = tally
        self.think = think
        self.stop = stop
        self.id = 0
        self.over = asyncio.Event()
        self.tasks: set[asyncio.Task[None]] = set()

    async def play(self) -> None:
        host = Client(random.choice(self.ports), self.tally)
        await host.start_session()
        players = 4 if self.kind == "hautetension" else 2
        answer = await host.request("POST", "/api/games",
                                    {"game": self.kind, "seats": [{"kind": "human"}] * players})
        if answer.status != 201:
            raise RuntimeError(f"cannot create a game: {answer.status} {answer.body[:300]!r}")
        created = answer.json()
        self.id = created["id"]
        seats = []
        for entry in created["seats"]:
            client = Client(self.ports[entry["seat"] % len(self.ports)], self.tally)
            await client.start_session()
            joined = await client.request("POST", f"/api/games/{self.id}/join", {"code": entry["join_code"]})
            if joined.status != 200:
                raise RuntimeError(f"cannot join: {joined.status} {joined.body[:300]!r}")
            client.headers["X-Seat-Token"] = joined.json()["token"]
            seats.append(Seat(self, client, entry["seat"]))
        host.close()
        followers = [asyncio.get_running_loop().create_task(s.follow()) for s in seats]
        stopped = asyncio.get_running_loop().create_task(self.stop.wait())
        await asyncio.wait([stopped, asyncio.get_running_loop().create_task(self.over.wait())],
                           return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if self.over.is_set():
            self.tally.games_ended += 1
        for task in followers:
            task.cancel()
        for seat in seats:
            seat.client.close()


async def keep_playing(kind: str, ports: list[int], tally: Tally, think: float, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            await Game(kind, ports, tally, think, stop).play()
        except (OSError, RuntimeError, HttpError, asyncio.IncompleteReadError) as exc:
            tally.errors.append(f"game: {exc}"[:300])
            await asyncio.sleep(1)


async def play_games(kind: str, ports: list[int], games: int, think: float, seconds: float,
                     warmup: float, window: Callable[[bool], None] = lambda _start: None,
                     ) -> tuple[Tally, float]:
    """Play for *warmup* then *seconds* seconds, measured; *window* is told when the measure starts (True)
    and ends (False)."""
    tally = Tally()
    stop = asyncio.Event()
    tasks = [asyncio.get_running_loop().create_task(keep_playing(kind, ports, tally, think, stop))
             for _ in range(games)]
    await asyncio.sleep(warmup)
    start_moves, start_requests = tally.moves, tally.requests
    tally.seen_ms.clear()
    tally.statuses.clear()
    window(True)
    started = time.monotonic()
    await asyncio.sleep(seconds)
    elapsed = time.monotonic() - started
    window(False)
    measured = Tally(requests=tally.requests - start_requests, moves=tally.moves - start_moves,
                     games_ended=tally.games_ended, streams=tally.streams, statuses=Counter(tally.statuses),
                     refused_streams=tally.refused_streams, errors=list(tally.errors),
                     seen_ms=list(tally.seen_ms))
    stop.set()
    await asyncio.wait(tasks, timeout=10)
    for task in tasks:
        task.cancel()
    return measured, elapsed


async def bare_rate(port: int, clients: int, seconds: float) -> float:
    tally = Tally()
    stop = time.monotonic() + seconds

    async def hammer() -> None:
        client = Client(port, tally)
        while time.monotonic() < stop:
            await client.request("POST", "/echo", {"move": [1, 2], "version": 3})
        client.close()

    await asyncio.gather(*(hammer() for _ in range(clients)))
    return tally.requests / seconds


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Figures:
    label: str
    moves_per_s: float
    ratio: float
    requests_per_move: float
    seen_p50: float
    seen_p99: float
    statuses: dict[str, int]
    refused_streams: int
    errors_5xx: int
    threads: list[int]
    rss_mib: list[float]
    cpu_share: list[float]
    first_errors: list[str]
    counts: dict[str, float] = field(default_factory=dict)
    """Machine-independent counts from a profiled run (``--profile``): per request and per move."""

    def line(self) -> str:
        return (f"{self.label}: {self.moves_per_s:.1f} moves/s ({self.ratio:.3f}x bare), "
                f"{self.requests_per_move:.2f} requests/move, "
                f"seen p50/p99 {self.seen_p50:.0f}/{self.seen_p99:.0f} ms, "
                f"5xx {self.errors_5xx}, refused streams {self.refused_streams}, statuses {self.statuses}, "
                f"threads {self.threads}, RSS {[round(r) for r in self.rss_mib]} MiB, "
                f"CPU share {[round(c, 2) for c in self.cpu_share]}"
                + "".join(f", {name} {value:.1f}" for name, value in self.counts.items()))


def postgres_dsn(stack: ExitStack, folder: Path) -> str:
    sys.path.insert(0, str(ROOT))
    from tests.servers.postgres import PostgresCluster, find_postgres_bindir  # the suite's cluster
    from tests.servers.process import server_folder

    bindir = find_postgres_bindir()
    if bindir is None:
        raise SystemExit("PostgreSQL's server is not installed (tools/ensure_packages.py)")
    place = server_folder("bench-postgres")  # a folder PostgreSQL's own user can reach
    stack.callback(shutil.rmtree, place, True)
    server = stack.enter_context(PostgresCluster(place, bindir=bindir, durable=True))
    return str(server.create_database("bench_online"))


def measure(args: argparse.Namespace, folder: Path, root: Path, engine: str, kind: str, bare: float,
            tag: str) -> Figures:
    """One measure: ``--games`` games of *kind* on the server from *root* (behind nginx with ``--nginx``)."""
    with ExitStack() as stack:
        where = Path(tempfile.mkdtemp(prefix=f"{engine}-{kind}-", dir=folder))
        database = postgres_dsn(stack, where) if engine == "postgresql" else str(where / "event.db")
        front = None
        if args.nginx:
            front = nginx_front(where / "nginx", free_port())
        servers = [stack.enter_context(central(
            where / f"p{n}", root, database, f"p{n}", args.games, args.profile if n == 0 else None,
            port=int(front.panel.rsplit(":", 1)[1]) if front is not None and n == 0 else None,
            live_publisher=front.publisher_url if front is not None else ""))
            for n in range(args.processes)]
        ports = [port for port, _ in servers]
        pids = [pid for _, pid in servers]
        if front is not None:
            front.start()
            stack.callback(front.stop)
            ports = [front.port]
        THROUGH_NGINX[0] = front is not None
        cpu0 = [cpu_seconds(pid) for pid in pids]
        wall0 = time.monotonic()
        profiled = args.profile is not None

        def window(start: bool) -> None:
            if profiled:
                if not start and args.profile.exists():
                    args.profile.unlink()
                os.kill(pids[0], signal.SIGUSR1 if start else signal.SIGUSR2)

        played = play_games(kind, ports, args.games, args.think, args.seconds, args.warmup, window)
        tally, elapsed = asyncio.run(played)
        counts = profile_counts(args.profile, tally, processes=args.processes) if profiled else {}
        wall = time.monotonic() - wall0
        status = [proc_status(pid) for pid in pids]
        cpu = [(cpu_seconds(pid) - c) / wall for pid, c in zip(pids, cpu0, strict=True)]
    moves = tally.moves / elapsed
    fives = sum(n for s, n in tally.statuses.items() if s.startswith("5") or s == "disconnected")
    return Figures(
        label=(f"{tag}: {args.games} {kind} games, {engine}, {args.processes} process(es),"
               f" think {args.think}s{', behind nginx (nchan)' if front is not None else ''}"),
        moves_per_s=moves, ratio=moves / bare if bare else float("nan"),
        requests_per_move=tally.requests / tally.moves if tally.moves else float("nan"),
        seen_p50=percentile(tally.seen_ms, 0.5), seen_p99=percentile(tally.seen_ms, 0.99),
        statuses=dict(tally.statuses), refused_streams=sum(tally.refused_streams.values()),
        errors_5xx=fives, threads=[t for t, _ in status], rss_mib=[r for _, r in status],
        cpu_share=cpu, first_errors=tally.errors[:5], counts=counts,
    )


SQL_CALLS = ("<method 'execute' of 'sqlite3.Connection' objects>",
             "<method 'execute' of 'sqlite3.Cursor' objects>",
             "<method 'executemany' of 'sqlite3.Connection' objects>",
             "<method 'executescript' of 'sqlite3.Connection' objects>")


def profile_counts(path: Path, tally: Tally, *, processes: int) -> dict[str, float]:
    """Python calls and SQL statements per request and per move, from the profiled server's counts.

    Requests are those the server's Flask app answered in the measured window (the event streams'
    included); moves, those the clients saw played then (with several processes, only the first is
    profiled: its share of the moves is taken as 1/processes).
    """
    deadline = time.monotonic() + 30
    while not path.exists() or path.stat().st_size == 0:
        if time.monotonic() > deadline:
            return {}
        time.sleep(0.2)
    time.sleep(0.5)  # written at once by the server's main thread: let it finish
    stats = marshal.loads(path.read_bytes())
    python_calls = sum(nc for (filename, _, _), (_, nc, *_rest) in stats.items() if filename != "~")
    sql = sum(nc for (filename, _, name), (_, nc, *_rest) in stats.items()
              if filename == "~" and name in SQL_CALLS)
    requests = sum(nc for (filename, _, name), (_, nc, *_rest) in stats.items()
                   if name == "wsgi_app" and filename.endswith(os.path.join("flask", "app.py")))
    moves = tally.moves / processes
    return {
        "Python calls/request": python_calls / requests if requests else float("nan"),
        "SQL statements/request": sql / requests if requests else float("nan"),
        "Python calls/move": python_calls / moves if moves else float("nan"),
        "SQL statements/move": sql / moves if moves else float("nan"),
    }


def nginx_front(folder: Path, panel_port: int) -> Any:
    """Debian's nginx from the shipped template, with nchan (tests/servers/nginx.py); not started yet."""
    sys.path.insert(0, str(ROOT))
    from tests.servers.nginx import NginxFront
    from tests.servers.process import find_binary

    binary = find_binary("nginx")
    if binary is None:
        raise SystemExit("nginx is not installed (tools/ensure_packages.py)")
    folder.mkdir(parents=True, exist_ok=True)
    return NginxFront(folder, binary=binary, panel=f"127.0.0.1:{panel_port}", worker_connections=20000)


def run(args: argparse.Namespace) -> list[Figures]:
    """Each round: the bare stack, then every tree (``--root``, in order) on every engine and kind."""
    results: list[Figures] = []
    with tempfile.TemporaryDirectory(prefix="ht-online-") as tmp, ExitStack() as outer:
        folder = Path(tmp)
        bare_port, _ = outer.enter_context(bare_stack(folder, threads=16))
        for round_number in range(args.rounds):
            bare = asyncio.run(bare_rate(bare_port, clients=16, seconds=args.bare_seconds))
            print(f"round {round_number + 1}: bare stack (Flask on waitress, trivial JSON POST, 16 keep-alive"
                  f" clients): {bare:.0f} requests/s", flush=True)
            for root in args.root:
                tag = root.name if root != ROOT else "this tree"
                for engine in args.engines.split(","):
                    for kind in args.kinds.split(","):
                        figures = measure(args, folder, root, engine, kind, bare, tag)
                        print(figures.line(), flush=True)
                        for error in figures.first_errors:
                            print("   ", error, flush=True)
                        results.append(figures)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--kinds", default="hautetension")
    parser.add_argument("--think", type=float, default=0.0, help="seconds a seat thinks before moving (mean)")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=4.0)
    parser.add_argument("--bare-seconds", type=float, default=5.0)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--engines", default="sqlite")
    parser.add_argument("--root", type=Path, action="append",
                        help="a checkout whose server runs (this one if none; give several to compare them"
                             " side by side, round after round)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--nginx", action="store_true",
                        help="the seats through Debian's nginx with nchan, following their game's channel"
                             " there")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--profile", type=Path,
                        help="run the (first) server under cProfile in every thread, its counts of the"
                             " measured window here (pstats' format); adds Python calls and SQL statements"
                             " per request and per move to the figures")
    args = parser.parse_args()
    args.root = [root.resolve() for root in (args.root or [ROOT])]
    results = run(args)
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=1))


if __name__ == "__main__":
    main()
