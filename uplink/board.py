"""The board's uplink: the outbox, the board's status and its live view, to the event's broker.

One loop (:meth:`Uplink.run`), woken by what can change something (below):

1. read what paho's thread saw (connected, a message, a PUBACK, a drop): it
   also wakes the loop, so a catch-up sends as fast as the broker takes it;
2. after a connect, wait for the server's retained ``ack`` (at most
   ``ack_wait_s``: none means nothing acknowledged yet), then send every
   outbox row above it, in order, at most ``max_inflight`` unacknowledged by
   the broker at a time; then follow new rows as the journal writes them;
3. publish the board's status (retained) when it changes, and its public live
   view (QoS 0) when it changes, at most ``live_max_per_s`` times a second;
4. keep ``uplink_state`` up to date: connected or not, the last ack, the table
   assigned to the board (the retained ``assignment``), for the board's pages.

The uplink never writes the journal and never reads a private payload: what
it sends is the outbox (public payloads) and the public board view, nothing
else. A drop loses nothing: paho reconnects, and the next connect starts again
from the server's acknowledgement.

An idle board costs the uplink nothing: the loop sleeps until the board's
database is written (:mod:`store.file_watch`, inotify; the board service's
heartbeat is such a write, once a second), paho's thread has something to
say, or one of the loop's own deadlines comes (the ack wait, the live view's
rate limit, a resend, the board service's heartbeat going stale, the status
repeated every ``status_every_s``). A write is looked at through SQLite's
``data_version``, which moves only when another connection committed: the
uplink's own writes wake it once and read nothing. Where writes cannot be
watched, it looks every ``poll_ms`` as before.
"""

from __future__ import annotations

import enum
import importlib.metadata
import logging
import queue
import secrets
import sqlite3
import time
from collections.abc import Callable
from typing import Any

from protocol import (
    OFFLINE,
    Ack,
    Leaf,
    MessageError,
    dumps,
    parse_ack,
    parse_assignment,
    parse_row,
    row_message,
    stand_in,
    topic,
)
from store.board_view import public_board
from store.file_watch import FileWatch, open_watch
from store.journal import BoardState, Journal
from store.outbox import Outbox, OutboxRow, UplinkState
from store.slot_health import SlotHealthStore
from uplink.client import (
    Connected,
    Disconnected,
    LinkClient,
    LinkEvent,
    LinkLoop,
    Published,
    Received,
    Refused,
)
from uplink.settings import UplinkSettings

log = logging.getLogger(__name__)


COMMIT_GRACE_S = 0.25
"""After a write was seen, the database's data version is looked at for this long: the kernel tells of
the write to the WAL before the commit is visible to readers (the writer syncs the file first)."""

RECHECK_S = 0.001
"""...first this long after the write was seen, then twice as long each time, until the commit shows;
then once more at the end of the grace (a second commit whose write was told of with the first)."""

IDLE_WAKE_S = 60.0
"""The longest sleep with nothing due (offline, waiting for the broker): a wake-up a minute."""


class _WakingQueue(queue.Queue[LinkEvent]):
    """paho's events, each also waking the loop's sleep on the database."""

    def __init__(self, wake: Callable[[], None]) -> None:
        super().__init__()
        self._wake = wake

    def put(self, item: LinkEvent, block: bool = True, timeout: float | None = None) -> None:
        super().put(item, block, timeout)
        self._wake()


class Phase(enum.Enum):
    OFFLINE = "offline"
    WAITING_FOR_ACK = "waiting for the server's acknowledgement"
    SENDING = "sending"


def software_version() -> str:
    try:
        return importlib.metadata.version("hautetension")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class Uplink(LinkLoop):
    """The uplink of one board database (a context manager: it stops and goes offline cleanly)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        settings: UplinkSettings,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        missing = settings.missing()
        if missing:
            raise ValueError("; ".join(missing))
        self.settings = settings
        self.clock = clock
        self.outbox = Outbox(conn)
        self.journal = Journal(conn)
        self.slot_health = SlotHealthStore(conn)
        self.state: UplinkState = self.outbox.enroll(settings.event, settings.board_id)
        self.topics = {leaf: topic(settings.event, settings.board_id, leaf) for leaf in Leaf}
        self.link = LinkClient(
            settings.broker,
            # The broker replaces it by the user name anyway (use_username_as_clientid): a board, a session.
            client_id=settings.username,
            username=settings.username,
            topics=[self.topics[Leaf.ACK], self.topics[Leaf.ASSIGNMENT]],
            will=(self.topics[Leaf.STATUS], OFFLINE),
            max_inflight=settings.max_inflight,
        )
        self.uplink_id = secrets.token_hex(6)
        """This uplink process among any other using the same board id (a copied SD card): its status says
        it, so the server sees two alternating and tells staff "connected from two places"."""
        self.phase = Phase.OFFLINE
        self.next_seq = 0
        """The next outbox row to publish (while sending)."""
        self.acked = self.state.acked_seq
        self.progress_at = 0.0
        """When the server's acknowledgement last moved (or sending started)."""
        self.resent = 0
        self.outstanding: set[int] = set()
        self.connected_at: float | None = None
        self.ack_deadline = 0.0
        self.sent_rows = 0
        self.connects = 0
        self._status: bytes | None = None
        self._status_at = float("-inf")
        self._looked_at = float("-inf")
        self._live: tuple[int, bool] | None = None
        self._live_at = float("-inf")
        self._told_refused: set[int] = set()
        self.watch: FileWatch | None = None
        """The board database's writes (from :meth:`start`); None: look every ``poll_ms``."""
        self.turns = 0
        """Loop turns so far (an idle board adds none)."""
        self._written = True
        """The database was written (or the loop was woken) since the last look at its data version."""
        self._data_version: int | None = None
        self._recheck_until = float("-inf")
        self._recheck_at = float("inf")
        self._recheck_step = RECHECK_S
        self._state_due = float("-inf")
        """When the board's state must be looked at again with no write (status repeat, stale heartbeat,
        a live view held back by the rate limit)."""
        self._rows_due = True
        """Whether the outbox may hold rows to send: a write, room freed, the next row moved back."""
        self.link.events = _WakingQueue(self.wake)

    # -- life ----------------------------------------------------------------------------

    def start(self) -> None:
        super().start()
        path = _database_file(self.outbox.conn)
        self.watch = open_watch(path) if path is not None else None

    def wake(self) -> None:
        """End the loop's sleep on the database now: a link event, or a stop (a signal's handler runs
        between two waits, and would otherwise be seen at the loop's next deadline)."""
        watch = self.watch
        if watch is not None:
            watch.wake()

    def pause(self) -> None:
        """Until the link has something to say (a PUBACK frees room for the next rows at once while
        catching up, an ack, a drop), the database is written, or a deadline of the loop comes; without
        a watch on the database, at most ``poll_ms`` (time to look at the outbox and the board)."""
        watch = self.watch
        if watch is not None:
            if watch.wait(self._next_due() - self.clock()):
                self._written = True
            return
        try:
            event = self.link.events.get(timeout=self.settings.poll_interval)
        except queue.Empty:
            return
        self._handle(event)

    def _next_due(self) -> float:
        """When the loop must turn again though nothing wakes it."""
        due = [self._recheck_at]
        if self.phase is Phase.WAITING_FOR_ACK:
            due.append(self.ack_deadline)
        if self.phase is not Phase.OFFLINE:
            due.append(self._state_due)
        if self.phase is Phase.SENDING and self.acked + 1 < self.next_seq:
            due.append(self.progress_at + self.settings.resend_after)
        return min(min(due), self.clock() + IDLE_WAKE_S)

    def farewell(self) -> tuple[str, bytes]:
        """Going offline cleanly: the retained status says so at once (no waiting for the keep-alive)."""
        return self.topics[Leaf.STATUS], OFFLINE

    def close(self) -> None:
        super().close()
        watch, self.watch = self.watch, None
        if watch is not None:
            watch.close()
        if self.phase is not Phase.OFFLINE:
            self.phase = Phase.OFFLINE
            self.outbox.set_connected(False)

    # -- one loop turn -------------------------------------------------------------------

    def step(self) -> None:
        self.turns += 1
        self._drain()
        if self.phase is Phase.OFFLINE:
            return
        if self.phase is Phase.WAITING_FOR_ACK and self.clock() >= self.ack_deadline:
            log.info("no acknowledgement from the server: sending from row %s", self.state.first_seq)
            self._start_sending(self.state.first_seq - 1)
        now = self.clock()
        committed = self._committed(now)
        if committed:
            self._rows_due = True
        if committed or now >= self._state_due:
            if now - self._looked_at >= self.settings.poll_interval:
                # The board's state once per poll, not on every PUBACK of a catch-up.
                self._looked_at, wall = now, time.time()
                board = self.journal.state()
                self._publish_status(board)
                self._publish_live(board)
                self._state_due = self._state_due_after(board, now, wall)
            else:
                self._state_due = min(self._state_due, self._looked_at + self.settings.poll_interval)
        if self.phase is Phase.SENDING:
            self._resend_unacknowledged()
            if self._rows_due:
                self._rows_due = False
                self._send_rows()

    def _committed(self, now: float) -> bool:
        """Whether another connection committed to the database since the last look (always true where
        writes cannot be watched: look every turn, as every ``poll_ms``)."""
        if self.watch is None:
            return True
        if self.watch.changed() or self._written:  # a write told of since the sleep, too
            self._written = False
            self._recheck_until = now + COMMIT_GRACE_S
            self._recheck_step = RECHECK_S
        elif now < self._recheck_at:
            return False
        version = int(self.outbox.conn.execute("PRAGMA data_version").fetchone()[0])
        changed = version != self._data_version
        self._data_version = version
        if now >= self._recheck_until:
            self._recheck_at = float("inf")
        elif changed:
            self._recheck_at = self._recheck_until
        else:
            self._recheck_at = min(now + self._recheck_step, self._recheck_until)
            self._recheck_step *= 2
        return changed

    def _state_due_after(self, board: BoardState | None, now: float, wall: float) -> float:
        """When to look at the board's state again though the database was not written: the status
        repeated, the service's heartbeat going stale, a live view the rate limit held back. *wall*:
        the wall clock before this look, before which the status may have said "running"."""
        if self.watch is None:
            return now
        due = [self._status_at + self.settings.status_every]
        if board is not None and (stale_at := board.updated_at + self.settings.service_stale) > wall:
            due.append(now + stale_at - wall)
        if self._live is None or self._live[1] != self._service_running(board) or (
            board is not None and self._live[0] != board.journal_id
        ):
            due.append(self._live_at + self.settings.live_interval)
        return max(min(due), now + self.settings.poll_interval)

    def _resend_unacknowledged(self) -> None:
        """The broker took rows the server never acknowledged (nobody was there to store them): again."""
        if self.acked + 1 < self.next_seq and self.clock() - self.progress_at > self.settings.resend_after:
            log.info("rows %s to %s not acknowledged after %.0f s: sending them again", self.acked + 1,
                     self.next_seq - 1, self.settings.resend_after)
            self.next_seq = max(self.acked + 1, self.state.first_seq)
            self.progress_at = self.clock()
            self.resent += 1
            self._rows_due = True

    def _drain(self) -> None:
        while True:
            try:
                event = self.link.events.get_nowait()
            except queue.Empty:
                return
            self._handle(event)

    def _handle(self, event: LinkEvent) -> None:
        if isinstance(event, Connected):
            self._rows_due = True
            self.connects += 1
            self.phase = Phase.WAITING_FOR_ACK
            self.connected_at = time.time()
            self.ack_deadline = self.clock() + self.settings.ack_wait
            self.outstanding.clear()
            self._looked_at = float("-inf")
            self._state_due = float("-inf")
            self._status = None
            self._live = None
            self.outbox.set_connected(True)
            self.outbox.set_note(None)
        elif isinstance(event, Refused):
            log.warning("the broker refused the connection: %s", event.reason)
            self.outbox.set_note(
                f"the broker at {self.settings.broker.address.url} refused this board:"
                f" {event.reason} (check [uplink] board_id and the password)"
            )
        elif isinstance(event, Disconnected):
            if self.phase is not Phase.OFFLINE:
                log.warning("link to the broker lost (%s): reconnecting", event.reason)
                self.phase = Phase.OFFLINE
                self.outbox.set_connected(False)
        elif isinstance(event, Published):
            if event.mid in self.outstanding:  # a row's: room for the next ones (not the status's)
                self.outstanding.discard(event.mid)
                self._rows_due = True
        else:
            self._rows_due = True  # an ack may move the next row back, or start the sending
            self._received(event)

    def _received(self, message: Received) -> None:
        try:
            if message.topic == self.topics[Leaf.ACK]:
                self._acknowledged(parse_ack(message.payload))
            elif message.topic == self.topics[Leaf.ASSIGNMENT]:
                self.outbox.set_assignment(parse_assignment(message.payload))
        except MessageError as exc:
            log.warning("ignored a message on %s: %s", message.topic, exc)

    def _acknowledged(self, ack: Ack) -> None:
        if ack.history != self.state.history:
            # The server's word on another history of this board id: this database's previous one (it was
            # replaced), or a copy of this board's SD card connected elsewhere. The retained ack is not
            # ours, so none is coming: send from the start now (the server discards what it holds).
            if self.phase is Phase.WAITING_FOR_ACK:
                self._start_sending(self.state.first_seq - 1)
            return
        if ack.seq > self.outbox.last_seq() and self.outbox.skip_past(ack.seq):
            note = (
                f"the event server holds rows up to {ack.seq}, more than this database has (it was"
                " replaced or restored): new rows are numbered after them"
            )
            log.warning(note)
            self.outbox.set_note(note)
        self._refused(ack)
        if ack.seq > self.acked:
            self.acked = ack.seq
            self.progress_at = self.clock()
            self.outbox.record_ack(ack.seq)
        if self.phase is Phase.WAITING_FOR_ACK:
            self._start_sending(ack.seq)
        elif self.phase is Phase.SENDING and ack.resend and ack.seq + 1 < self.next_seq:
            log.info("the server asks again for the rows after %s", ack.seq)
            self.next_seq = ack.seq + 1

    def _refused(self, ack: Ack) -> None:
        """Rows the server refused (it keeps them for staff and acknowledged past them): never sent again,
        and said on the board's table page."""
        new = sorted(set(ack.refused) - self._told_refused)
        if not new:
            return
        self._told_refused |= set(new)
        note = (
            f"the event server refused row(s) {', '.join(map(str, new))} of this board (kept aside for the"
            " event's staff, not sent again)"
        )
        log.warning(note)
        self.outbox.set_note(note)

    def _start_sending(self, acked: int) -> None:
        self.phase = Phase.SENDING
        self.next_seq = max(acked + 1, self.state.first_seq)
        self.progress_at = self.clock()

    def _send_rows(self) -> None:
        room = self.settings.max_inflight - len(self.outstanding)
        if room <= 0:
            return
        for row in self.outbox.rows(self.next_seq - 1, limit=room):
            mid = self.link.publish(self.topics[Leaf.OUTBOX], self._message(row), qos=1)
            if mid is None:
                return  # the link dropped meanwhile: the next connect resends from the ack
            self.outstanding.add(mid)
            self.next_seq = row.seq + 1
            self.sent_rows += 1

    def _message(self, row: OutboxRow) -> bytes:
        """The row as published, read first with the reader the server uses: a row the server would
        refuse (too big) goes as its stand-in, so the board's history has no gap and nothing waits
        behind it (the row stays in this board's journal)."""
        message = row.message(self.state)
        try:
            parse_row(message)
        except MessageError as exc:
            reason = f"refused by the board itself: {exc.reason}"
            log.warning("outbox row %s: %s", row.seq, reason)
            self.outbox.set_note(f"outbox row {row.seq} was not sent ({exc.reason}): it stays on this board")
            state = self.state
            return row_message(stand_in(state.history, row.seq, state.first_seq, reason, at=row.at))
        return message

    # -- status and live view -------------------------------------------------------------

    def status(self, board: BoardState | None) -> dict[str, Any]:
        """The retained status (docs/event-network.md): presence, the game in short, health; read from
        the board's state through its public view, which checks every field it keeps."""
        running = self._service_running(board)
        view = public_board(board.public if board is not None else None,
                            journal_id=board.journal_id if board is not None else 0, service_running=running)
        faults = [
            {"kind": str(f["kind"]), "message": str(f["message"]), "slot": f["slot"]} for f in view["faults"]
        ]
        if not running:
            faults.insert(
                0, {"kind": "service-down", "message": "the board service is not running", "slot": None}
            )
        if view["scanner_faulted"]:
            faults.append({"kind": "scanner", "message": "the scanner is faulted: lamps off", "slot": None})
        return {
            "online": True,
            "uplink": self.uplink_id,
            "since": round(self.connected_at or time.time(), 3),
            "software": software_version(),
            "history": self.state.history,
            "first": self.state.first_seq,
            "layout": view["layout"],
            "game": game_summary(view),
            "health": {"ok": not faults, "faults": faults, "slots": self._slot_findings()},
        }

    def _slot_findings(self) -> list[dict[str, Any]]:
        """What the slot health asks staff to check (from finished games only: the board service writes it
        when a game ends), the worst first, bounded (protocol/health.py)."""
        return [finding.to_json() for finding in self.slot_health.findings()]

    def _service_running(self, board: BoardState | None) -> bool:
        return board is not None and time.time() - board.updated_at < self.settings.service_stale

    def _publish_status(self, board: BoardState | None) -> None:
        payload = dumps(self.status(board))
        due = self.clock() - self._status_at >= self.settings.status_every
        if (payload != self._status or due) and self.link.publish(
            self.topics[Leaf.STATUS], payload, qos=1, retain=True
        ) is not None:
            self._status, self._status_at = payload, self.clock()

    def _publish_live(self, board: BoardState | None) -> None:
        running = self._service_running(board)
        current = (board.journal_id if board is not None else 0, running)
        if current == self._live or self.clock() - self._live_at < self.settings.live_interval:
            return
        view = public_board(board.public if board else None, journal_id=current[0], service_running=running)
        if self.link.publish(self.topics[Leaf.LIVE], dumps(view), qos=0) is not None:
            self._live, self._live_at = current, self.clock()


def _database_file(conn: object) -> str | None:
    """The file of the connection's main database (None: in memory, or not SQLite)."""
    if not isinstance(conn, sqlite3.Connection):
        return None
    try:
        for _seq, name, file in conn.execute("PRAGMA database_list"):
            if name == "main":
                return str(file) or None
    except sqlite3.Error:
        return None
    return None


def game_summary(view: dict[str, Any]) -> dict[str, Any] | None:
    """The game in a few words for the server's board list: who plays, whose turn, which lamps (*view*:
    the board's public view, :func:`store.board_view.public_board`)."""
    game = view["game"]
    if game is None:
        return None
    names = [str(seat.get("name")) for seat in game["view"]["seats"]]
    to_move = game["view"].get("to_move")
    mover = names[to_move] if isinstance(to_move, int) and 0 <= to_move < len(names) else None
    return {
        "id": game["id"],
        "status": game["status"],
        "assignment": game["assignment"],
        "players": names,
        "to_move": None if view["paused"] else mover,
        "paused": view["paused"],
        "moves": len(game["view"]["moves"]),
        "lit": view["lamps"]["lit"],
        "points": game["points"],
        "confirmed": game["confirmed"],
    }
