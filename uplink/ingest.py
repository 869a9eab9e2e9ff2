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

A malformed message is logged and dropped (the board sends its rows again
from the last acknowledgement, so a row is never lost by dropping a copy).
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable

from store.db import transaction
from store.dialect import Connection, database_errors
from store.event.intake import Intake, LiveReport, Receipt, Report
from store.event.publish import Publications
from store.event.results import Results
from uplink.client import Connected, Disconnected, LinkClient, LinkEvent, LinkLoop, Received, Refused
from uplink.exc import MessageError
from uplink.protocol import Leaf, event_filter, loads, parse_row, parse_status, parse_topic, topic
from uplink.settings import BrokerSettings

log = logging.getLogger(__name__)

BATCH_MAX = 500
"""Messages stored in one transaction at most (a catch-up of thousands of rows goes in a few)."""


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
        self.store_errors = 0
        """Batches the database failed to take (PostgreSQL restarting, SQLite locked too long)."""
        self._database_errors = database_errors()
        self._publish_all = False
        """Everything is to be published again (the link just connected)."""

    # -- one loop turn ------------------------------------------------------------------------

    def step(self) -> None:
        reports = self._collect()
        try:
            self._store(reports)
        except self._database_errors as exc:
            # Nothing is lost: what this batch held was not acknowledged, so each board sends it again.
            self.store_errors += 1
            log.error("the event's database failed (%s): the boards will send this batch again", exc)
            time.sleep(1.0)

    def _store(self, reports: list[tuple[str, Report]]) -> None:
        if self._publish_all:
            # After a (re)connect, before the batch: written here, where a failing database is survived
            # (and this is tried again on the next turn), not where the connect was taken off the queue.
            with transaction(self.conn):
                self.publications.all_again()
            self._publish_all = False
        if reports:
            self.last_receipt = receipt = self.intake.receive(reports)
            self.stored += receipt.stored
            self.duplicates += receipt.duplicates
            for board in receipt.new_boards:
                log.info("a new board: %s (waiting for staff to accept it)", board)
            for board, ack in receipt.acks.items():
                if ack.resend and self.connected:
                    log.info("board %s: rows missing after %s, asked again", board, ack.seq)
                    self.link.publish(topic(self.event, board, Leaf.ACK), ack.payload(), qos=1, retain=True)
        self.results.settle()
        self._publish()

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
        self.received += 1
        try:
            event, board, leaf = parse_topic(message.topic)
            if event != self.event or leaf in (Leaf.ACK, Leaf.ASSIGNMENT):
                return None  # another event's, or what this server itself published
            if leaf is Leaf.STATUS:
                if not message.payload:
                    return None  # a cleared status
                return board, parse_status(message.payload)
            if leaf is Leaf.LIVE:
                return board, LiveReport(loads(message.payload))
            return board, parse_row(message.payload)
        except MessageError as exc:
            self.dropped += 1
            log.warning("dropped a message on %s: %s", message.topic[:120], exc)
            return None

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
