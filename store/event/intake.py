"""What the boards send, into the event store: exactly once, in each board's own order.

The ingest (``uplink/ingest.py``) hands over a batch of messages at a time;
:meth:`Intake.receive` stores the whole batch in one transaction:

* a board heard of for the first time is listed at once, waiting for staff to
  accept it;
* an outbox row is stored under ``(board, history, seq)``: a row received again
  (after a reconnect, a resend) is discarded but still acknowledged; the same
  key with a different body (a board whose database was rolled back) is kept
  aside as a conflict for staff, never overwriting what was stored;
* the acknowledgement of each history is the highest ``seq`` up to which every
  row is stored (contiguous from the history's first row); a gap is not
  acknowledged past, and the board is asked to send again from it;
* game starts and ends become the event's games; a finished game started from
  an assignment becomes a result waiting for the players' confirmation, and
  each ``result-confirmed`` row counts the seats that agreed.

The acknowledgements are written to the publish table (:mod:`store.event.publish`)
in that same transaction, so they are sent again after any restart. Entering a
confirmed result into its tournament is :meth:`store.event.results.Results.settle`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from store.db import transaction
from store.dialect import Connection, placeholders
from store.event import presence, sql
from store.event.publish import Publications

GAP_RESEND_S = 2.0
"""A board whose rows have a gap is asked again at most this often (its resend is on its way)."""
ROWS_AT_ONCE = 100
"""Outbox rows (or boards) one statement stores (or looks up) at most."""
ACK_SCAN = 500
"""Stored rows read at once when working out how far a history is stored without a gap."""


@dataclass(frozen=True)
class ReportedRow:
    """One outbox row as a board reported it (docs/event-network.md, ``outbox``)."""

    seq: int
    history: str
    first: int
    kind: str
    game: int | None
    at: float
    body: Mapping[str, Any]

    @property
    def body_text(self) -> str:
        return json.dumps(self.body, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class StatusReport:
    status: Mapping[str, Any]


@dataclass(frozen=True)
class LiveReport:
    view: Mapping[str, Any]


Report = ReportedRow | StatusReport | LiveReport


@dataclass(frozen=True)
class Ack:
    seq: int
    history: str
    resend: bool = False

    def payload(self) -> bytes:
        body: dict[str, Any] = {"seq": self.seq, "history": self.history}
        if self.resend:
            body["resend"] = True
        return json.dumps(body, separators=(",", ":"), sort_keys=True).encode()


@dataclass
class Receipt:
    """What a batch did: rows stored, duplicates discarded, conflicts kept aside, acks to send."""

    stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    new_boards: list[str] = field(default_factory=list)
    acks: dict[str, Ack] = field(default_factory=dict)
    results: int = 0
    """Results that became confirmed in this batch (to enter into their tournaments)."""


class Intake:
    """Receives the boards' messages (on its own connection)."""

    def __init__(
        self, conn: Connection, *, confirm_timeout: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.conn = conn
        self.confirm_timeout = confirm_timeout
        self.clock = clock
        self.publications = Publications(conn)
        self._asked_again: dict[tuple[str, str], float] = {}
        self._histories: dict[str, str] = {}
        self._confirmations: list[tuple[str, ReportedRow, int, list[Any]]] = []
        self.uplinks = presence.Uplinks()

    def receive(self, reports: Iterable[tuple[str, Report]]) -> Receipt:
        """Store a batch of ``(board, report)``, in order, in one transaction.

        What can be written for the whole batch at once is: its boards' presence (which of them are new
        read in one statement), its outbox rows (stored in statements of :data:`ROWS_AT_ONCE` rows,
        which tell which were new); on PostgreSQL the writes nobody reads cost no round trip (the
        transaction is pipelined, see :meth:`store.dialect.PgDatabase.transaction`)."""
        receipt = Receipt()
        now = self.clock()
        reports = list(reports)
        touched: dict[tuple[str, str], None] = {}
        self._histories = {}
        self._confirmations = []
        boards = list(dict.fromkeys(board for board, _ in reports))
        with transaction(self.conn):
            known = self._known(boards)
            receipt.new_boards = [board for board in boards if board not in known]
            for board in boards:
                self.conn.execute(sql.BOARD_SEEN, (board, now, now))
            rows = [(board, report) for board, report in reports if isinstance(report, ReportedRow)]
            new, bodies = self._add_rows(rows, now)
            for board, report in reports:
                if isinstance(report, StatusReport):
                    self._status(board, report.status, now)
                elif isinstance(report, LiveReport):
                    self.conn.execute(sql.BOARD_LIVE, (_json(report.view), now, board))
                else:
                    self._row(board, report, now, receipt, new, bodies)
                    touched[(board, report.history)] = None
            self._confirm(receipt)
            receipt.acks = self._acknowledge(list(touched), now)
        return receipt

    def _known(self, boards: list[str]) -> set[str]:
        """Which of *boards* the event has heard from before."""
        known: set[str] = set()
        for i in range(0, len(boards), ROWS_AT_ONCE):
            some = boards[i : i + ROWS_AT_ONCE]
            rows = self.conn.execute(sql.BOARDS_KNOWN.format(placeholders(len(some))), some)
            known |= {str(r[0]) for r in rows}
        return known

    def _add_rows(
        self, rows: list[tuple[str, ReportedRow]], now: float
    ) -> tuple[set[tuple[str, str, int]], dict[tuple[str, str, int], str]]:
        """Store the outbox rows not stored yet; the keys of those just stored, and the stored bodies of
        those that were there already (a row received again, or in conflict with what it was)."""
        new: set[tuple[str, str, int]] = set()
        for i in range(0, len(rows), ROWS_AT_ONCE):
            some = rows[i : i + ROWS_AT_ONCE]
            values = [
                value
                for board, row in some
                for value in (board, row.history, row.seq, row.kind, row.game, row.at, row.body_text, now)
            ]
            added = self.conn.execute(sql.ROWS_ADD.format(placeholders(len(some), 8)), values)
            new |= {(str(r[0]), str(r[1]), int(r[2])) for r in added}
        keys = [(board, row.history, row.seq) for board, row in rows]
        again = list(dict.fromkeys(key for key in keys if key not in new))
        bodies: dict[tuple[str, str, int], str] = {}
        for i in range(0, len(again), ROWS_AT_ONCE):
            values = [value for key in again[i : i + ROWS_AT_ONCE] for value in key]
            for r in self.conn.execute(sql.ROW_BODIES.format(placeholders(len(values) // 3, 3)), values):
                bodies[(str(r[0]), str(r[1]), int(r[2]))] = str(r[3])
        return new, bodies

    # -- status -----------------------------------------------------------------------------

    def _status(self, board: str, status: Mapping[str, Any], now: float) -> None:
        online = bool(status.get("online"))
        if online:
            # Two uplinks with this board id, taking turns (a copied SD card): said in the stored status.
            row = self.conn.execute(sql.BOARD, (board,)).fetchone()
            before = json.loads(row["status"]) if row is not None and row["status"] else None
            status = self.uplinks.heard(board, status, now, presence.two_places_since(before, now))
            self.conn.execute(sql.BOARD_STATUS, (_json(status), now, 1, board))
        else:
            # The last will carries nothing but presence: keep what the board said before it went.
            row = self.conn.execute(sql.BOARD, (board,)).fetchone()
            previous = json.loads(row["status"]) if row["status"] else {}
            self.conn.execute(sql.BOARD_STATUS, (_json({**previous, "online": False}), now, 0, board))
        history, first = status.get("history"), status.get("first")
        if online and isinstance(history, str) and isinstance(first, int) and not isinstance(first, bool):
            self._history(board, history, first, now)

    def _history(self, board: str, history: str, first: int, now: float) -> None:
        if self._histories.get(board) == history:
            return  # written already in this batch
        self.conn.execute(sql.HISTORY_ADD, (board, history, first, first - 1, now))
        self.conn.execute(sql.BOARD_HISTORY, (history, board))
        self._histories[board] = history

    # -- rows -------------------------------------------------------------------------------

    def _row(
        self,
        board: str,
        row: ReportedRow,
        now: float,
        receipt: Receipt,
        new: set[tuple[str, str, int]],
        bodies: dict[tuple[str, str, int], str],
    ) -> None:
        """One outbox row of the batch (:meth:`_add_rows` stored it, or found it there): its effects
        once, when it was just stored; else a duplicate, or a conflict kept aside."""
        self._history(board, row.history, row.first, now)
        key = (board, row.history, row.seq)
        if key not in new:
            stored = bodies.get(key)
            if stored is not None and json.loads(stored) != row.body:
                self.conn.execute(sql.ROW_CONFLICT, (board, row.history, row.seq, row.body_text, now))
                receipt.conflicts += 1
            else:
                receipt.duplicates += 1
            return
        new.discard(key)  # the same row again later in this batch is a duplicate
        bodies[key] = row.body_text
        receipt.stored += 1
        handler = _GAME_ROWS.get(row.kind)
        if handler is not None:
            handler(self, board, row, now, receipt)

    def _game_start(self, board: str, row: ReportedRow, now: float, receipt: Receipt) -> None:
        game = _int(row.body.get("game"), row.game)
        if game is None:
            return
        names = [
            str(p.get("name")) if isinstance(p, Mapping) else str(p) for p in row.body.get("players") or []
        ]
        assignment = row.body.get("assignment")
        self.conn.execute(
            sql.GAME_START,
            (
                board,
                row.history,
                game,
                assignment if isinstance(assignment, str) else None,
                _json(names),
                row.seq,
                row.at,
            ),
        )

    def _game_end(self, board: str, row: ReportedRow, now: float, receipt: Receipt) -> None:
        game = _int(row.body.get("game"), row.game)
        if game is None:
            return
        names = [
            str(p.get("name")) if isinstance(p, Mapping) else str(p) for p in row.body.get("players") or []
        ]
        status = str(row.body.get("status", "over"))
        result = {key: row.body.get(key) for key in ("points", "lightings", "outcome", "moves")}
        self.conn.execute(
            sql.GAME_END, (board, row.history, game, _json(names), status, row.seq, row.at, _json(result))
        )
        if status == "over" and isinstance(row.body.get("points"), list):
            # A result waits for the players if the game was started from a table (in the same statement:
            # nothing to read back).
            self.conn.execute(sql.RESULT_ADD, (now, now + self.confirm_timeout, board, row.history, game))

    def _result_confirmed(self, board: str, row: ReportedRow, now: float, receipt: Receipt) -> None:
        game = _int(row.body.get("game"), row.game)
        seats = row.body.get("seats")
        if game is not None and isinstance(seats, list):
            self._confirmations.append((board, row, game, seats))  # counted after the batch's game ends

    def _confirm(self, receipt: Receipt) -> None:
        """Count the seats each ``result-confirmed`` row of the batch agreed for, in order: the results
        they name read in one statement once the batch's game ends are written."""
        keys = list(dict.fromkeys((board, row.history, game) for board, row, game, _ in self._confirmations))
        results: dict[tuple[str, str, int], dict[str, Any]] = {}
        for i in range(0, len(keys), ROWS_AT_ONCE):
            values = [value for key in keys[i : i + ROWS_AT_ONCE] for value in key]
            query = sql.RESULTS_OF_BOARD_GAMES.format(placeholders(len(values) // 3, 3))
            for r in self.conn.execute(query, values):
                results[(str(r["board"]), str(r["history"]), int(r["board_game"]))] = {
                    "game": r["game"],
                    "status": r["status"],
                    "confirmed": json.loads(r["confirmed"]),
                    "players": json.loads(r["players"]),
                }
        for board, row, game, seats in self._confirmations:
            result = results.get((board, row.history, game))
            if result is None or result["status"] != "waiting":
                continue
            agreed = sorted(set(result["confirmed"]) | {s for s in seats if _int(s) is not None})
            by = "staff at the board" if row.body.get("by") == "staff" else "the players at the board"
            complete = set(range(len(result["players"]))) <= set(agreed)
            result.update(confirmed=agreed, status="confirmed" if complete else "waiting")
            self.conn.execute(sql.RESULT_CONFIRM, (_json(agreed), by, result["status"], result["game"]))
            receipt.results += complete

    # -- acknowledgements ----------------------------------------------------------------------

    def _acknowledge(self, histories: list[tuple[str, str]], now: float) -> dict[str, Ack]:
        """Each history's new acknowledgement: how far its rows are stored without a gap. One statement
        reads every history of the batch with the rows just above its acknowledgement (up to
        :data:`ACK_SCAN` of them) and its highest row; a longer catch-up reads on, :data:`ACK_SCAN`
        rows at a time."""
        found: dict[tuple[str, str], tuple[int, int | None, list[int]]] = {}
        for i in range(0, len(histories), ROWS_AT_ONCE):
            some = histories[i : i + ROWS_AT_ONCE]
            values: list[Any] = [ACK_SCAN, *(value for key in some for value in key)]
            query = sql.HISTORIES_ABOVE.format(placeholders(len(some), 2))
            for r in self.conn.execute(query, values):
                key = (str(r["board"]), str(r["history"]))
                base = max(int(r["acked_seq"]), int(r["first_seq"]) - 1)
                _, top, above = found.setdefault(key, (base, r["top"], []))
                if r["seq"] is not None:
                    above.append(int(r["seq"]))
        acks: dict[str, Ack] = {}
        for board, history in histories:
            base, top, above = found[(board, history)]
            acked = self._contiguous(board, history, base, sorted(above))
            gap = top is not None and int(top) > acked
            self.conn.execute(sql.HISTORY_ACKED, (acked, board, history))
            self.publications.want(board, "ack", Ack(acked, history).payload())
            # A row missing below rows already here: ask for it again (not every batch: it is on its way).
            resend = gap and now - self._asked_again.get((board, history), float("-inf")) >= GAP_RESEND_S
            if resend:
                self._asked_again[(board, history)] = now
            acks[board] = Ack(acked, history, resend)
        return acks

    def _contiguous(self, board: str, history: str, acked: int, above: list[int]) -> int:
        """The highest seq up to which every row from *acked* on is stored (*above*: the stored rows
        just above *acked*, :data:`ACK_SCAN` of them when there may be more)."""
        while True:
            for seq in above:
                if seq != acked + 1:
                    return acked
                acked = seq
            if len(above) < ACK_SCAN:
                return acked
            above = [int(r[0]) for r in self.conn.execute(sql.ROWS_ABOVE, (board, history, acked, ACK_SCAN))]


_GAME_ROWS: dict[str, Callable[[Intake, str, ReportedRow, float, Receipt], None]] = {
    "game-start": Intake._game_start,
    "game-end": Intake._game_end,
    "result-confirmed": Intake._result_confirmed,
}


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _int(*values: Any) -> int | None:
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None
