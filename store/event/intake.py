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
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from store.db import transaction
from store.event import sql
from store.event.publish import Publications

GAP_RESEND_S = 2.0
"""A board whose rows have a gap is asked again at most this often (its resend is on its way)."""


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
        self, conn: sqlite3.Connection, *, confirm_timeout: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.conn = conn
        self.confirm_timeout = confirm_timeout
        self.clock = clock
        self.publications = Publications(conn)
        self._asked_again: dict[tuple[str, str], float] = {}

    def receive(self, reports: Iterable[tuple[str, Report]]) -> Receipt:
        """Store a batch of ``(board, report)``, in order, in one transaction."""
        receipt = Receipt()
        now = self.clock()
        touched: dict[tuple[str, str], None] = {}
        with transaction(self.conn):
            for board, report in reports:
                if self.conn.execute(sql.BOARD, (board,)).fetchone() is None:
                    receipt.new_boards.append(board)
                self.conn.execute(sql.BOARD_SEEN, (board, now, now))
                if isinstance(report, StatusReport):
                    self._status(board, report.status, now)
                elif isinstance(report, LiveReport):
                    self.conn.execute(sql.BOARD_LIVE, (_json(report.view), now, board))
                else:
                    self._row(board, report, now, receipt)
                    touched[(board, report.history)] = None
            for board, history in touched:
                receipt.acks[board] = self._acknowledge(board, history, now)
        return receipt

    # -- status -----------------------------------------------------------------------------

    def _status(self, board: str, status: Mapping[str, Any], now: float) -> None:
        online = bool(status.get("online"))
        if online:
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
        self.conn.execute(sql.HISTORY_ADD, (board, history, first, first - 1, now))
        self.conn.execute(sql.BOARD_HISTORY, (history, board))

    # -- rows -------------------------------------------------------------------------------

    def _row(self, board: str, row: ReportedRow, now: float, receipt: Receipt) -> None:
        self._history(board, row.history, row.first, now)
        body = row.body_text
        added = self.conn.execute(
            sql.ROW_ADD, (board, row.history, row.seq, row.kind, row.game, row.at, body, now)
        ).rowcount
        if not added:
            stored = self.conn.execute(sql.ROW_BODY, (board, row.history, row.seq)).fetchone()
            if stored is not None and json.loads(stored[0]) != row.body:
                self.conn.execute(sql.ROW_CONFLICT, (board, row.history, row.seq, body, now))
                receipt.conflicts += 1
            else:
                receipt.duplicates += 1
            return
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
        stored = self.conn.execute(sql.GAME_BY_BOARD_GAME, (board, row.history, game)).fetchone()
        if status == "over" and stored["assignment"] and isinstance(row.body.get("points"), list):
            self.conn.execute(
                sql.RESULT_ADD, (stored["id"], stored["assignment"], now, now + self.confirm_timeout)
            )

    def _result_confirmed(self, board: str, row: ReportedRow, now: float, receipt: Receipt) -> None:
        game = _int(row.body.get("game"), row.game)
        seats = row.body.get("seats")
        if game is None or not isinstance(seats, list):
            return
        stored = self.conn.execute(sql.GAME_BY_BOARD_GAME, (board, row.history, game)).fetchone()
        if stored is None:
            return
        result = self.conn.execute(sql.RESULT, (stored["id"],)).fetchone()
        if result is None or result["status"] != "waiting":
            return
        players = json.loads(stored["players"])
        agreed = sorted(set(json.loads(result["confirmed"])) | {s for s in seats if _int(s) is not None})
        by = "staff at the board" if row.body.get("by") == "staff" else "the players at the board"
        complete = set(range(len(players))) <= set(agreed)
        self.conn.execute(
            sql.RESULT_CONFIRM, (_json(agreed), by, "confirmed" if complete else "waiting", stored["id"])
        )
        receipt.results += complete

    # -- acknowledgements ----------------------------------------------------------------------

    def _acknowledge(self, board: str, history: str, now: float) -> Ack:
        first, acked = self.conn.execute(sql.HISTORY, (board, history)).fetchone()
        acked, gap = self._contiguous(board, history, max(acked, first - 1))
        self.conn.execute(sql.HISTORY_ACKED, (acked, board, history))
        self.publications.want(board, "ack", Ack(acked, history).payload())
        # A row missing below rows already here: ask for it again (not every batch: it is on its way).
        resend = gap and now - self._asked_again.get((board, history), float("-inf")) >= GAP_RESEND_S
        if resend:
            self._asked_again[(board, history)] = now
        return Ack(acked, history, resend)

    def _contiguous(self, board: str, history: str, acked: int) -> tuple[int, bool]:
        """The highest seq up to which every row from *acked* on is stored; and whether rows wait
        beyond a gap."""
        while True:
            above = [int(r[0]) for r in self.conn.execute(sql.ROWS_ABOVE, (board, history, acked, 500))]
            for seq in above:
                if seq != acked + 1:
                    return acked, True
                acked = seq
            if len(above) < 500:
                return acked, False


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
