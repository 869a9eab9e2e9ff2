"""The event server's end of the link: every board's messages into the event store, and back.

One loop (:meth:`Ingest.run`) in the event server's process:

1. take what paho's thread received (waiting at most ``poll`` for the first
   message), a batch at a time, and store it with
   :meth:`store.event.intake.Intake.receive` in one transaction: statuses,
   live views and outbox rows, exactly once, with each history's new
   acknowledgement;
2. when the batch found a gap in a board's rows, ask that board at once to
   send again from it (an ack with ``resend``);
3. enter the results the players confirmed into their tournaments
   (:meth:`store.event.results.Results.settle`): only this loop does, so two
   threads never race to enter one result;
4. publish what the store wants published (acknowledgements, assignments),
   retained; after every (re)connect, all of it again.

Every payload is read by the protocol leaf's bounded reader; one it refuses
is kept in the quarantine for staff (:mod:`store.event.quarantine`), counted,
and an outbox row whose place is known is stood in for, acknowledged and named
in the board's ack, so it is never sent again. A batch the store fails on for
any reason but a database that is down is tried again (:data:`BATCH_TRIES`),
then split in halves until the messages at fault are found and quarantined:
one bad row never holds back the others. A database that is down loses
nothing: the batch is not acknowledged, the boards send it again. The loop is
supervised (:mod:`uplink.supervisor`) and reports the truth
(:meth:`Ingest.report`).
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable
from typing import Any

from protocol import (
    Leaf,
    MessageError,
    ReportedRow,
    StatusReport,
    dumps,
    event_filter,
    parse_live,
    parse_row,
    parse_status,
    parse_topic,
    row_message,
    topic,
)
from store.db import transaction
from store.dialect import Connection, unavailable_errors
from store.event.intake import Intake, Receipt, Report
from store.event.publish import Publications
from store.event.quarantine import Refusal
from store.event.results import Results
from uplink.client import Connected, Disconnected, LinkClient, LinkEvent, LinkLoop, Received, Refused
from uplink.settings import BrokerSettings

log = logging.getLogger(__name__)

BATCH_MAX = 500
"""Messages stored in one transaction at most (a catch-up of thousands of rows goes in a few)."""
BATCH_TRIES = 2
"""Times a batch the store fails on (for any reason but a database that is down) is tried whole, before
it is split to find the messages at fault."""


class Ingest(LinkLoop):
    """The event server's MQTT client and intake loop (a context manager)."""

    def __init__(
        self,
        conn: Connection,
        broker: BrokerSettings,
        *,
        event: str,
        confirm_timeout: float,
        instance: str = "",
        poll: float = 0.05,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.event = event
        self.poll = poll
        self.conn = conn
        self.intake = Intake(conn, confirm_timeout=confirm_timeout, clock=clock)
        self.results = Results(conn, clock=clock)
        self.publications = Publications(conn)
        username = broker.username or "central"
        self.link = LinkClient(
            broker,
            # The broker pins a client's id to its user (use_username_as_clientid): several server
            # processes on one database each have their own user (central-N), hence their own session,
            # each receiving every message; the store keeps each row once whichever process stores it.
            client_id=username,
            username=username,
            topics=[event_filter(event)],
            persistent=True,
        )
        self.connected = False
        self.connects = 0
        """Connections the broker accepted: more than one means the link dropped (or was taken over)."""
        self.received = 0
        self.dropped = 0
        self.stored = 0
        self.duplicates = 0
        """Rows received again and discarded (a resend after a drop): counted, never stored twice."""
        self.last_receipt = Receipt()
        self.batches = 0
        """Batches of messages taken into the database."""
        self.store_errors = 0
        """Batches the database failed to take (PostgreSQL restarting, SQLite locked too long)."""
        self.quarantined = 0
        """Messages this process refused and kept for staff."""
        self.faults = 0
        """Errors nobody foresaw, caught (a batch split, a turn that failed)."""
        self.unstored = 0
        """Refused messages the quarantine itself could not keep (logged)."""
        self.turns = 0
        self.last_batch_at: float | None = None
        self.last_turn_at: float | None = None
        self.last_error: str | None = None
        self.last_error_at: float | None = None
        self.clock = clock
        self._unavailable = unavailable_errors()
        self._publish_all = False
        """Everything is to be published again (the link just connected)."""

    # -- one loop turn ------------------------------------------------------------------------

    def step(self) -> None:
        self.turns += 1
        self.last_turn_at = self.clock()
        reports = self._collect()
        try:
            self._store(reports)
        except self._unavailable as exc:
            # Nothing is lost: what this batch held was not acknowledged, so each board sends it again.
            self.store_errors += 1
            self._note(f"the event's database failed: {exc}")
            log.error("the event's database failed (%s): the boards will send this batch again", exc)
            time.sleep(1.0)
        except Exception as exc:  # never foreseen: the turn is lost, the loop goes on
            self.faults += 1
            self._note(f"{type(exc).__name__}: {exc}")
            log.exception("the ingest's turn failed: going on")
            time.sleep(0.2)

    def _store(self, reports: list[tuple[str, Report]]) -> None:
        if self._publish_all:
            # After a (re)connect, before the batch: written here, where a failing database is survived
            # (and this is tried again on the next turn), not where the connect was taken off the queue.
            with transaction(self.conn):
                self.publications.all_again()
            self._publish_all = False
        if reports:
            self.last_receipt = receipt = self._receive(reports)
            self.last_batch_at = self.clock()
            self.batches += 1
            self.stored += receipt.stored
            self.duplicates += receipt.duplicates
            self.quarantined += receipt.quarantined
            for board in receipt.new_boards:
                log.info("a new board: %s (waiting for staff to accept it)", board)
            for board, ack in receipt.acks.items():
                if ack.resend and self.connected:
                    log.info("board %s: rows missing after %s, asked again", board, ack.seq)
                    self.link.publish(topic(self.event, board, Leaf.ACK), ack.payload(), qos=1, retain=True)
        self.results.settle()
        self._publish()

    # -- a batch, whatever it holds -----------------------------------------------------------

    def _receive(self, reports: list[tuple[str, Report]]) -> Receipt:
        """Store *reports*; tried :data:`BATCH_TRIES` times, then split (:meth:`_split`). A database that is
        down is not the batch's fault: it propagates (the batch goes unacknowledged)."""
        for _ in range(BATCH_TRIES):
            try:
                return self.intake.receive(reports)
            except self._unavailable:
                raise
            except Exception as exc:
                failure = exc
                self.faults += 1
                self._note(f"storing a batch of {len(reports)}: {type(exc).__name__}: {exc}")
                log.exception("a batch of %s messages failed to store", len(reports))
        return self._split(reports, failure)

    def _split(self, reports: list[tuple[str, Report]], failure: Exception) -> Receipt:
        """Halves of a batch that failed, each stored on its own (in order: a board's rows stay in order);
        a single message that fails is quarantined with the reason."""
        if len(reports) == 1:
            return self._quarantine(*reports[0], failure)
        half = len(reports) // 2
        receipt = Receipt()
        for part in (reports[:half], reports[half:]):
            try:
                done = self.intake.receive(part)
            except self._unavailable:
                raise
            except Exception as exc:
                done = self._split(part, exc)
            receipt.stored += done.stored
            receipt.duplicates += done.duplicates
            receipt.conflicts += done.conflicts
            receipt.results += done.results
            receipt.quarantined += done.quarantined
            receipt.new_boards += [b for b in done.new_boards if b not in receipt.new_boards]
            receipt.acks.update(done.acks)
        return receipt

    def _quarantine(self, board: str, report: Report, failure: Exception) -> Receipt:
        reason = f"could not be stored ({type(failure).__name__}: {str(failure)[:200]})"
        if isinstance(report, Refusal):
            refusal = report  # the quarantine itself failed on it: nothing more to try
        elif isinstance(report, ReportedRow):
            refusal = Refusal("outbox", reason, row_message(report), report.history, report.seq, report.first)
        else:
            leaf = "status" if isinstance(report, StatusReport) else "live"
            refusal = Refusal(leaf, reason, dumps(report.status if isinstance(report, StatusReport)
                                                  else report.view))
        if report is not refusal:
            try:
                return self.intake.receive([(board, refusal)])
            except self._unavailable:
                raise
            except Exception:
                log.exception("board %s: a refused message could not be kept either", board)
        self.unstored += 1
        log.error("board %s: a message on %s was lost: %s", board, refusal.topic, refusal.reason)
        return Receipt()

    def _note(self, error: str) -> None:
        self.last_error, self.last_error_at = error[:500], self.clock()

    def _collect(self) -> list[tuple[str, Report]]:
        reports: list[tuple[str, Report]] = []
        try:
            event: LinkEvent | None = self.link.events.get(timeout=self.poll)
        except queue.Empty:
            return reports
        while event is not None and len(reports) < BATCH_MAX:
            report = self._handle(event)
            if report is not None:
                reports.append(report)
            try:
                event = self.link.events.get_nowait()
            except queue.Empty:
                event = None
        if event is not None:
            report = self._handle(event)
            if report is not None:
                reports.append(report)
        return reports

    def _handle(self, event: LinkEvent) -> tuple[str, Report] | None:
        if isinstance(event, Connected):
            self.connected = True
            self.connects += 1
            self._publish_all = True
        elif isinstance(event, Disconnected):
            if self.connected:
                log.warning("link to the broker lost (%s): reconnecting", event.reason)
            self.connected = False
        elif isinstance(event, Refused):
            log.error("the broker refused the event server: %s", event.reason)
        elif isinstance(event, Received):
            return self._report(event)
        return None

    def _report(self, message: Received) -> tuple[str, Report] | None:
        try:
            event, board, leaf = parse_topic(message.topic)
        except MessageError as exc:
            # The broker's ACL lets no board write there: nothing to keep for a board.
            self.received += 1
            self.dropped += 1
            log.warning("dropped a message on %s: %s", message.topic[:120], exc)
            return None
        if event != self.event or leaf in (Leaf.ACK, Leaf.ASSIGNMENT):
            return None  # another event's, or what this server itself published
        self.received += 1
        try:
            if leaf is Leaf.STATUS:
                if not message.payload:
                    return None  # a cleared status
                return board, parse_status(message.payload)
            if leaf is Leaf.LIVE:
                return board, parse_live(message.payload)
            return board, parse_row(message.payload)
        except MessageError as exc:
            log.warning("board %s: refused a message on %s: %s", board, leaf.value, exc.reason)
            return board, Refusal(leaf.value, exc.reason, message.payload, exc.history, exc.seq, exc.first)

    def report(self) -> dict[str, Any]:
        """What this process's ingest did, as ``GET /api/event/ingest`` tells it (its supervisor adds
        whether it is alive)."""
        return {
            "connected": self.connected,
            "received": self.received,
            "stored": self.stored,
            "batches": self.batches,
            "duplicates": self.duplicates,
            "store_errors": self.store_errors,
            "refused": self.quarantined,
            "faults": self.faults,
            "last_batch_at": None if self.last_batch_at is None else round(self.last_batch_at, 3),
            "last_turn_at": None if self.last_turn_at is None else round(self.last_turn_at, 3),
            "last_error": None
            if self.last_error is None
            else {"at": round(self.last_error_at or 0.0, 3), "message": self.last_error},
        }

    def _publish(self) -> None:
        if not self.connected:
            return
        pending = self.publications.pending()
        if not pending:
            return
        with transaction(self.conn):
            for publication in pending:
                name = topic(self.event, publication.board, Leaf(publication.leaf))
                if self.link.publish(name, publication.payload, qos=1, retain=True) is None:
                    return  # the link dropped: all of it goes again after the next connect
                self.publications.published(publication)
