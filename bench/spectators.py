"""Benchmark: thousands of spectators of the event server's live pages, held by nginx (nchan).

    .venv/bin/python bench/spectators.py [--spectators 5000] [--changes 10] [--channels wall,game]

Starts ``hautetension central`` (this tree) on a temporary SQLite database with
``[panel] live_publisher`` set, behind Debian's nginx from the shipped template
with Debian's ``libnginx-mod-nchan`` (the test suite's tests/servers/nginx.py).
Then ``--spectators`` clients (one asyncio loop, raw sockets: no thread each;
each from a loopback address of its own, as spectators are) follow a channel
through nginx:

* ``wall``: the event's wall as its page follows it behind nginx
  (``/live/event-wall-en``): each message holds the wall's view, which the
  page draws (no request); a change is any commit to the event's database;
  the bench makes one by creating a lobby game;
* ``event``: the wall as its page followed it before (``/live/event``): told
  that the event changed, each spectator fetches ``GET /api/event/wall``
  through nginx (one fetch at a time, a change that came meanwhile fetched
  once more after it), and a change is delivered when its view is fetched;
* ``game``: a lobby game's spectator view (``/live/game-N``): a change is a
  move, posted by the display that plays the hot-seat game.

For each of ``--changes`` changes: how many spectators got it, and the delay
from the request that made it to each spectator's receipt (p50/p99 over all
of them). Reported besides: spectators connected, errors, the event
server's threads and RSS when idle (before any spectator) and with every
spectator connected, and the requests that reached the event server while
the changes were made (its ``/metrics`` request counter, read from the
loopback) besides the bench's own writes: per change per spectator. The
``game`` channel's spectators draw nothing (a game's message holds its
version only), so they fetch nothing here.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import tempfile
import time
import urllib.request
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from online import ROOT, Client, Tally, central, free_port, nginx_front, percentile, proc_status  # noqa: E402

FETCH_TIMEOUT_S = 30.0
CONNECT_BATCH = 200
"""Spectators connecting at once (nginx's listen backlog is 511)."""


class Spectator:
    """One EventSource on a channel, through nginx: the time each message arrived."""

    def __init__(self, number: int, fetch: str | None = None) -> None:
        self.address = f"127.{number // 60000 + 1}.{(number // 250) % 240 + 1}.{number % 250 + 2}"
        self.fetch = fetch
        """What the page fetches when told of a change (None: the message holds what it draws)."""
        self.arrivals: list[tuple[float, dict[str, Any]]] = []
        self.fetching = False
        self.pending = False
        self.fetches: set[asyncio.Task[None]] = set()
        self.connected = False
        self.error: str | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def follow(self, port: int, path: str) -> None:
        try:
            reader, self.writer = await asyncio.open_connection("127.0.0.1", port,
                                                                local_addr=(self.address, 0))
            self.writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                self.error = head.split(b"\r\n", 1)[0].decode()
                return
            self.connected = True
            buffer = b""
            while True:
                data = await reader.read(65536)
                if not data:
                    self.error = "closed"
                    return
                now = time.monotonic()
                buffer += data
                while b"\n\n" in buffer:
                    event, buffer = buffer.split(b"\n\n", 1)
                    for line in event.split(b"\n"):
                        if line.startswith(b"data:"):
                            with suppress(ValueError):
                                message = json.loads(line[5:])
                                if self.fetch is None:
                                    self.arrivals.append((now, message))
                                else:
                                    task = asyncio.get_running_loop().create_task(self.fetched(port))
                                    self.fetches.add(task)
                                    task.add_done_callback(self.fetches.discard)
        except (OSError, asyncio.IncompleteReadError) as exc:
            self.error = type(exc).__name__
        except asyncio.CancelledError:
            pass

    async def fetched(self, port: int) -> None:
        """The page's fetch of the view it was told changed (one at a time, as wall.js's refresh)."""
        if self.fetching:
            self.pending = True
            return
        self.fetching = True
        try:
            while True:
                self.pending = False
                reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                               local_addr=(self.address, 0))
                try:
                    writer.write(f"GET {self.fetch} HTTP/1.1\r\nHost: x\r\nAccept-Language: en\r\n"
                                 "Connection: close\r\n\r\n".encode())
                    answer = await asyncio.wait_for(reader.read(), FETCH_TIMEOUT_S)
                finally:
                    writer.close()
                if answer.startswith(b"HTTP/1.1 200"):
                    self.arrivals.append((time.monotonic(), {"fetched": True}))
                else:
                    self.error = answer.split(b"\r\n", 1)[0].decode() or "fetch failed"
                if not self.pending:
                    return
        except (TimeoutError, OSError) as exc:
            self.error = type(exc).__name__
        finally:
            self.fetching = False

    def close(self) -> None:
        for task in list(self.fetches):
            task.cancel()
        if self.writer is not None:
            self.writer.close()


def served_requests(panel_port: int) -> int:
    """The requests the event server answered so far (its ``/metrics`` counter, but ``/metrics``'s own)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{panel_port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    total = 0.0
    for line in text.splitlines():
        if line.startswith("hautetension_http_requests_total{") and 'route="/metrics"' not in line:
            total += float(line.rsplit(" ", 1)[1])
    return int(total)


async def spectate(port: int, panel_port: int, channel: str, spectators: int, changes: int,
                   pid: int) -> dict[str, Any]:
    tally = Tally()
    display = Client(port, tally)
    await display.start_session()
    game: dict[str, Any] = {}
    if channel == "game":
        made = await display.request("POST", "/api/games", {"game": "qttt", "seats": [{"kind": "human"}] * 2,
                                                             "hot_seat": True})
        game = made.json()
    path = {"game": f"/live/game-{game.get('id')}", "wall": "/live/event-wall-en"}.get(channel, "/live/event")
    fetch = "/api/event/wall" if channel == "event" else None
    idle_threads, idle_rss = proc_status(pid)
    crowd = [Spectator(n, fetch) for n in range(spectators)]
    tasks: list[asyncio.Task[None]] = []
    started = time.monotonic()
    for first in range(0, spectators, CONNECT_BATCH):
        batch = crowd[first:first + CONNECT_BATCH]
        tasks += [asyncio.get_running_loop().create_task(s.follow(port, path)) for s in batch]
        while sum(1 for s in batch if s.connected or s.error) < len(batch):
            await asyncio.sleep(0.01)
    connect_s = time.monotonic() - started
    await asyncio.sleep(1.0)  # the message kept on the channel, if any, has arrived
    crowd_threads, crowd_rss = proc_status(pid)
    delays: list[float] = []
    reached: list[int] = []
    while any(s.fetching for s in crowd):  # a page fetches once when it opens: not a change's cost
        await asyncio.sleep(0.01)
    served_before, written = served_requests(panel_port), 0
    for change in range(changes):
        for spectator in crowd:
            spectator.arrivals.clear()
        sent = time.monotonic()
        if channel == "game":
            state = (await display.request("GET", f"/api/games/{game['id']}")).json()
            if not state["legal_moves"]:
                break
            answer = await display.request("POST", f"/api/games/{game['id']}/moves",
                                           {"move": state["legal_moves"][0], "version": state["version"]})
            sent_version = answer.json().get("version")
            written += 2
        else:
            await display.request("POST", "/api/games", {"game": "qttt", "seats": [{"kind": "human"}] * 2})
            sent_version = None
            written += 1
        deadline = time.monotonic() + (10 if fetch is None else 60)
        while time.monotonic() < deadline:
            got = [s for s in crowd if s.connected and any(
                sent_version is None or m.get("version") == sent_version for _, m in s.arrivals)]
            if len(got) == sum(1 for s in crowd if s.connected):
                break
            await asyncio.sleep(0.005)
        arrived = [min(t for t, m in s.arrivals if sent_version is None or m.get("version") == sent_version)
                   for s in got]
        delays += [(t - sent) * 1000 for t in arrived]
        reached.append(len(got))
        await asyncio.sleep(0.3 if change % 2 else 0.05)
    while any(s.fetching for s in crowd):  # the last fetches are the last change's cost too
        await asyncio.sleep(0.01)
    served = served_requests(panel_port) - served_before - written
    busy_threads, busy_rss = proc_status(pid)
    for spectator in crowd:
        spectator.close()
    for task in tasks:
        task.cancel()
    errors = [s.error for s in crowd if s.error and s.error != "closed"]
    return {
        "channel": channel, "spectators": spectators, "connected": sum(1 for s in crowd if s.connected),
        "connect_s": round(connect_s, 1), "changes": len(reached), "reached_min": min(reached, default=0),
        "delivery_p50_ms": round(percentile(delays, 0.5), 1),
        "delivery_p99_ms": round(percentile(delays, 0.99), 1),
        "errors": len(errors), "first_errors": errors[:3],
        "threads_idle_crowd_after": [idle_threads, crowd_threads, busy_threads],
        "rss_mib_idle_crowd_after": [round(idle_rss), round(crowd_rss), round(busy_rss)],
        "server_5xx": sum(n for s, n in tally.statuses.items() if s.startswith("5")),
        "spectators_requests": served,
        "requests_per_change_per_spectator": round(served / max(1, len(reached) * spectators), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--spectators", type=int, default=5000)
    parser.add_argument("--changes", type=int, default=10)
    parser.add_argument("--channels", default="wall,game",
                        help="wall, event (the wall fetched on each change, as before), game")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.spectators + 100:
        raise SystemExit(f"this process may open {hard} files: fewer than the spectators")
    with tempfile.TemporaryDirectory(prefix="ht-spectators-") as tmp, ExitStack() as stack:
        folder = Path(tmp)
        panel_port = free_port()
        front = nginx_front(folder / "nginx", panel_port)
        # A fetching page holds its stream and a fetch, and nginx a connection to the server for it.
        front.worker_connections = (3 if "event" in args.channels.split(",") else 1) * args.spectators + 1000
        _, pid = stack.enter_context(central(folder / "central", ROOT, str(folder / "event.db"), "p0", 4,
                                             port=panel_port, live_publisher=front.publisher_url))
        front.start()
        stack.callback(front.stop)
        for channel in args.channels.split(","):
            watched = spectate(front.port, panel_port, channel, args.spectators, args.changes, pid)
            figures = asyncio.run(watched)
            print(json.dumps(figures), flush=True)



if __name__ == "__main__":
    main()
