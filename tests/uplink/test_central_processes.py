"""Two ``hautetension central`` processes on one PostgreSQL database, as a federation runs them.

Both are real processes (as their systemd units run them), each with its own
broker client: each receives every board message. A board's result reaches
both, is stored once and entered into the tournament exactly once; a write by
anyone on the database reaches the live pages of either process through
LISTEN/NOTIFY.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from protocol import Leaf, ReportedRow, dumps, topic
from store.db import transaction
from store.event.assignments import Assignments
from store.event.db import connect_event
from store.event.intake import Intake
from store.tournaments import Tournaments
from tests.servers.mosquitto import MosquittoBroker
from tests.servers.process import free_port
from tests.store.event.helpers import Reports, a_tournament, boards_online, table_of
from tests.uplink.helpers import BIN, EVENT, USERS, wait_for

STOPPED = re.compile(r"(\d+) messages received, (\d+) rows stored, (\d+) duplicates discarded")


class CentralProcess:
    """``hautetension central`` on the shared database, named *instance*."""

    def __init__(self, folder: Path, *, dsn: str, broker: MosquittoBroker, instance: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        # Process N is the broker's user central-N, its password in the configured file suffixed -N.
        password = folder / "central-password"
        password.with_name(f"central-password-{instance}").write_text(USERS[f"central-{instance}"] + "\n")
        self.config = folder / "central.toml"
        self.config.write_text(
            f'[central]\nevent = "{EVENT}"\ndatabase = "{dsn}"\nbroker = "{broker.url}"\n'
            f'username = "central"\npassword_file = "{password}"\ninstance = "{instance}"\n'
            f"port = {self.port}\n"
            # One secret key for every process behind the front server: a session works on either.
            f'[panel]\nsecret_key_file = "{folder.parent / "panel-secret.key"}"\n'
        )
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> CentralProcess:
        env = {k: v for k, v in os.environ.items() if k != "HAUTETENSION_CONFIG"}
        self.proc = subprocess.Popen(
            [str(BIN), "central", "--config", str(self.config)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_for(lambda: self._answers() or self.proc is None or self.proc.poll() is not None, 30, "central")
        assert self.proc.poll() is None, self.proc.stderr.read() if self.proc.stderr else "central exited"
        return self

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def counts(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.url("/api/event/ingest"), timeout=5) as response:
            counts: dict[str, Any] = json.loads(response.read())
        return counts

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.url("/api/event/boards"), timeout=2) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    def stop(self) -> tuple[int, int, int]:
        """SIGTERM; what it said it received, stored and discarded."""
        assert self.proc is not None and self.proc.stderr is not None
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=20)
        self.proc = None
        found = STOPPED.search(err)
        assert found, err
        received, stored, duplicates = (int(x) for x in found.groups())
        return received, stored, duplicates

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.communicate(timeout=10)
            self.proc = None


def _wire(row: ReportedRow) -> bytes:
    return dumps(
        {
            "seq": row.seq,
            "first": row.first,
            "history": row.history,
            "kind": row.kind,
            "game": row.game,
            "at": row.at,
            "body": dict(row.body),
        }
    )


class ChangeListener:
    """One live page's event stream (``/api/event/stream``) read in a thread."""

    def __init__(self, url: str) -> None:
        self.changes: list[int] = []
        self._response = urllib.request.urlopen(url, timeout=30)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        event = None
        try:
            for raw in self._response:
                line = raw.decode().strip()
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "change":
                    self.changes.append(int(json.loads(line[6:])["version"]))
        except (OSError, ValueError):
            return

    def close(self) -> None:
        self._response.close()


@pytest.fixture
def servers(
    tmp_path: Path, postgres_dsn: str, secured: MosquittoBroker
) -> Iterator[tuple[CentralProcess, CentralProcess]]:
    made = [CentralProcess(tmp_path / n, dsn=postgres_dsn, broker=secured, instance=n) for n in ("1", "2")]
    yield made[0], made[1]
    for server in made:
        server.kill()


def test_two_server_processes_enter_a_board_result_once_and_both_pages_follow(
    postgres_dsn: str, secured: MosquittoBroker, servers: tuple[CentralProcess, CentralProcess]
) -> None:
    with closing(connect_event(postgres_dsn)) as conn:
        tid = a_tournament(conn, players=4)
        boards_online(Intake(conn, confirm_timeout=60), "board-1")
        (assignment,) = Assignments(conn).assign_round(tid)
        table = table_of(conn, tid, 1, 1)
        players = table["players"]
    first, second = (server.start() for server in servers)
    # Each process subscribed to the boards (its ingest connected) before the board sends.
    for server in servers:
        wait_for(lambda server=server: server.counts()["connected"], what="the ingest connected")
    page = ChangeListener(second.url("/api/event/stream"))
    wait_for(lambda: page.changes, what="the live page's first state")

    # Anyone writing to the database (here this test's own process) wakes the other process's pages.
    seen = len(page.changes)
    with closing(connect_event(postgres_dsn)) as conn, transaction(conn):
        conn.execute("UPDATE event_boards SET label = 'Table 1 — by the window' WHERE board = 'board-1'")
    wait_for(lambda: len(page.changes) > seen, what="the change to reach the second process's page")

    # The board plays its table and every seat agrees: both processes receive each message.
    reports = Reports("board-1")
    rows = [*reports.game(1, **table, assignment=assignment.id), reports.agree(1, list(range(len(players))))]
    board = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="board-1")
    board.username_pw_set("board-1", USERS["board-1"])
    board.connect(secured.host, secured.port)
    board.loop_start()
    try:
        status = dumps(reports.status().status)
        board.publish(topic(EVENT, "board-1", Leaf.STATUS), status, qos=1, retain=True)
        for row in rows:
            board.publish(topic(EVENT, "board-1", Leaf.OUTBOX), _wire(row), qos=1).wait_for_publish(10)

        def entered() -> Any:
            with closing(connect_event(postgres_dsn)) as conn:
                return Tournaments(conn).load(tid).result(1, 1)

        result = wait_for(entered, 30, "the board's result in the standings")
        # Both processes took every row: one stored it, the other discarded its copy.
        for server in servers:
            wait_for(
                lambda server=server: server.counts()["stored"] + server.counts()["duplicates"] == len(rows),
                30,
                "every row through each process",
            )
            # The truth about each process's ingest: alive, never restarted, nothing refused.
            report = server.counts()
            assert report["alive"] and report["restarts"] == 0 and report["last_error"] is None
            assert report["refused"] == 0 and report["quarantined"] == {} and report["last_batch_at"]
        stats = [first.stop(), second.stop()]
    finally:
        board.loop_stop()
        board.disconnect()
        page.close()
    assert result.source["kind"] == "board"
    with closing(connect_event(postgres_dsn)) as conn:
        audit = Tournaments(conn).audit(tid)
        assert sum(entry.kind == "result" for entry in audit) == 1
        assert conn.execute("SELECT COUNT(*) FROM event_rows").fetchone()[0] == len(rows)
        assert conn.execute("SELECT status FROM event_results").fetchone()[0] == "entered"
        assert Assignments(conn).get(assignment.id).is_done  # type: ignore[union-attr]
    # Both received every row; between them each was stored once and discarded once.
    assert all(received >= len(rows) for received, _, _ in stats)  # and the status
    assert sum(stored for _, stored, _ in stats) == len(rows)
    assert sum(duplicates for _, _, duplicates in stats) == len(rows)
