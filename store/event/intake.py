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
* game starts and ends become the event's games, whatever order they come in;
  a finished game's public record is read and scored by the server
  (:mod:`games.hautetension.reported`: the board's points are a claim, never the
  result), and a game played for a table becomes a result waiting for the
  players' confirmation; the ``result-confirmed`` rows stored for a game (before
  its end or after) count the seats that agreed whenever its end or start comes.

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

from games.hautetension.reported import ReportedGame, ReportedGameError, judge
from protocol import (
    REFUSED_KIND,
    Ack,
    LiveReport,
    ReportedRow,
    StatusReport,
    compact,
    dumps,
    row_message,
    stand_in,
)
from protocol.limits import MAX_HISTORIES, MAX_REFUSED_IN_ACK
from store.db import transaction
from store.dialect import Connection, placeholders
from store.event import presence, sql
from store.event.publish import Publications
from store.event.quarantine import Quarantine, Refusal

GAP_RESEND_S = 2.0
"""A board whose rows have a gap is asked again at most this often (its resend is on its way)."""
ROWS_AT_ONCE = 100
"""Outbox rows (or boards) one statement stores (or looks up) at most."""
KEEP_CONFLICTS = 200
"""Conflicts kept per board (the newest): a board whose database was rolled back makes a few; one sending
other bodies under stored numbers over and over cannot fill the database."""
ACK_SCAN = 500
"""Stored rows read at once when working out how far a history is stored without a gap."""


Report = ReportedRow | StatusReport | LiveReport | Refusal
"""What the ingest hands over: a message as the protocol leaf read it, or one it refused."""


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
    quarantined: int = 0
    """Messages of the batch refused and kept for staff (:mod:`store.event.quarantine`)."""


class Intake:
    """Receives the boards' messages (on its own connection)."""

    def __init__(
        self, conn: Connection, *, confirm_timeout: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.conn = conn
        self.confirm_timeout = confirm_timeout
        self.clock = clock
        self.publications = Publications(conn)
        self.quarantine = Quarantine(conn)
        self._board_histories: dict[str, set[str]] = {}
        """The histories each board opened (read once a board, kept up to date): the cap's count."""
        self._refused: dict[tuple[str, str], list[int]] = {}
        """The refused rows of each history this process stood in for, named in its acks."""
        self._conflicted: set[str] = set()
        """Boards with a conflict kept in this batch (their oldest beyond :data:`KEEP_CONFLICTS` go)."""
        self._asked_again: dict[tuple[str, str], float] = {}
        self._histories: dict[str, str] = {}
        self._games: dict[tuple[str, str, int], None] = {}
        """The board games whose start, end or "I agree" rows this batch stored (their results to update)."""
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
        self._games = {}
        self._conflicted = set()
        boards = list(dict.fromkeys(board for board, _ in reports))
        with transaction(self.conn):
            known = self._known(boards)
            receipt.new_boards = [board for board in boards if board not in known]
            for board in boards:
                self.conn.execute(sql.BOARD_SEEN, (board, now, now))
            reports = self._refuse(reports, now, receipt)
            rows = [(board, report) for board, report in reports if isinstance(report, ReportedRow)]
            new, bodies = self._add_rows(rows, now)
            for board, report in reports:
                if isinstance(report, StatusReport):
                    self._status(board, report.status, now)
                elif isinstance(report, LiveReport):
                    self.conn.execute(sql.BOARD_LIVE, (_json(report.view), now, board))
                elif isinstance(report, ReportedRow):
                    self._row(board, report, now, receipt, new, bodies)
                    touched[(board, report.history)] = None
            self._confirm(receipt)
            receipt.acks = self._acknowledge(list(touched), now)
            for board in self._conflicted:
                self.conn.execute(sql.CONFLICTS_PRUNE, (board, board, KEEP_CONFLICTS))
        return receipt

    def _refuse(
        self, reports: list[tuple[str, Report]], now: float, receipt: Receipt
    ) -> list[tuple[str, Report]]:
        """Keep the batch's refused messages for staff, and those beyond a bound the store sets (a history
        past :data:`~protocol.limits.MAX_HISTORIES`); an outbox row refused whose place in its history is
        known becomes its stand-in (stored, acknowledged, named in the ack: never sent again)."""
        kept: list[tuple[str, Report]] = []
        quarantined: dict[str, None] = {}
        for board, report in reports:
            refusal = report if isinstance(report, Refusal) else self._beyond_bounds(board, report)
            if refusal is None:
                kept.append((board, report))
                continue
            self.quarantine.keep(board, refusal, now)
            quarantined[board] = None
            receipt.quarantined += 1
            if isinstance(report, StatusReport):
                kept.append((board, StatusReport({"online": report.status.get("online") is True})))
            standing = self._stand_in(board, refusal, report.at if isinstance(report, ReportedRow) else now)
            if standing is not None:
                kept.append((board, standing))
        self.quarantine.prune(list(quarantined))
        return kept

    def _stand_in(self, board: str, refusal: Refusal, at: float) -> ReportedRow | None:
        history, seq, first = refusal.history, refusal.seq, refusal.first
        if history is None or seq is None or first is None or not self._may_open(board, history):
            return None
        return stand_in(history, seq, first, refusal.reason, at=at)

    def _beyond_bounds(self, board: str, report: Report) -> Refusal | None:
        if isinstance(report, ReportedRow):
            history: str | None = report.history
            leaf, payload = "outbox", row_message(report)
        elif isinstance(report, StatusReport) and report.status.get("online") is True:
            history = h if isinstance(h := report.status.get("history"), str) else None
            leaf, payload = "status", dumps(report.status)
        else:
            return None
        if history is None or self._may_open(board, history):
            return None
        return Refusal(
            leaf,
            f"board {board} opened more than {MAX_HISTORIES} histories at this event: history"
            f" {history} refused",
            payload,
        )

    def _may_open(self, board: str, history: str) -> bool:
        """Whether *board* has *history* open already, or may open it (fewer than the cap so far)."""
        opened = self._board_histories.get(board)
        if opened is None:
            opened = {str(r[0]) for r in self.conn.execute(sql.BOARD_HISTORIES, (board,))}
            self._board_histories[board] = opened
        if history in opened:
            return True
        if len(opened) >= MAX_HISTORIES:
            return False
        opened.add(history)
        return True

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
                self._conflicted.add(board)
                receipt.conflicts += 1
            else:
                receipt.duplicates += 1
            return
        new.discard(key)  # the same row again later in this batch is a duplicate
        bodies[key] = row.body_text
        receipt.stored += 1
        if row.kind == REFUSED_KIND:
            refused = self._refused.setdefault((board, row.history), [])
            refused[:] = [*refused, row.seq][-MAX_REFUSED_IN_ACK:]
        handler = _GAME_ROWS.get(row.kind)
        if handler is not None:
            handler(self, board, row, now, receipt)

    def _game_start(self, board: str, row: ReportedRow, now: float, receipt: Receipt) -> None:
        game = _int(row.body.get("game"), row.game)
        if game is None:
            return
        names = _names(row.body.get("players"))
        assignment = _assignment(row.body.get("assignment"))
        self.conn.execute(
            sql.GAME_START, (board, row.history, game, assignment, _json(names), row.seq, row.at)
        )
        self._games[(board, row.history, game)] = None  # its result may have waited for its start

    def _game_end(self, board: str, row: ReportedRow, now: float, receipt: Receipt) -> None:
        """A game's end: its public record read and scored by the server (games/hautetension/reported.py),
        kept with what does not hold, if anything; a game played for a table becomes a result waiting for
        the players, whatever its record says (staff see one that does not hold, it is never lost)."""
        game = _int(row.body.get("game"), row.game)
        if game is None:
            return
        status = "over" if row.body.get("status", "over") == "over" else "abandoned"
        assignment = _assignment(row.body.get("assignment"))
        scored = _scored(row.body) if status == "over" else {}
        end_seq = row.seq
        earlier = self.conn.execute(sql.GAME_ENDED, (board, row.history, game)).fetchone()
        if earlier is not None and earlier["end_seq"] is not None and int(earlier["end_seq"]) != row.seq:
            # A game ends once: two ends are a board that cannot be believed, whichever came first.
            first, second = sorted((int(earlier["end_seq"]), row.seq))
            end_seq = first
            twice = f"the board ended its game {game} twice (rows {first} and {second})"
            scored = {"report": None, "problem": twice}
        self.conn.execute(
            sql.GAME_END,
            (
                board,
                row.history,
                game,
                assignment,
                _json(_names(row.body.get("players"))),
                status,
                end_seq,
                row.at,
                _json(scored),
            ),
        )
        if status == "over" and assignment is not None:
            self.conn.execute(
                sql.RESULT_ADD, (assignment, now, now + self.confirm_timeout, board, row.history, game)
            )
            self._games[(board, row.history, game)] = None

    def _result_confirmed(self, board: str, row: ReportedRow, now: float, receipt: Receipt) -> None:
        # Stored with the other rows; counted from there whenever the game's end and start are in.
        if row.game is not None and _int(row.body.get("game"), row.game) == row.game:
            self._games[(board, row.history, row.game)] = None

    def _confirm(self, receipt: Receipt) -> None:
        """Bring each result this batch touched up to date with every "I agree" row stored for its game
        (whenever they came: before its end, before its start, in this batch or an earlier one). A result
        is confirmed once every seat agreed and its start is in; the results and the rows read in one
        statement each."""
        keys = list(self._games)
        results: dict[tuple[str, str, int], Any] = {}
        agreed: dict[tuple[str, str, int], list[Mapping[str, Any]]] = {}
        for i in range(0, len(keys), ROWS_AT_ONCE):
            values = [value for key in keys[i : i + ROWS_AT_ONCE] for value in key]
            shape = placeholders(len(values) // 3, 3)
            for r in self.conn.execute(sql.RESULTS_OF_BOARD_GAMES.format(shape), values):
                results[(str(r["board"]), str(r["history"]), int(r["board_game"]))] = r
            for r in self.conn.execute(sql.CONFIRMATIONS_OF_GAMES.format(shape), values):
                body = json.loads(r["body"])
                if isinstance(body, Mapping):
                    agreed.setdefault((str(r["board"]), str(r["history"]), int(r["game"])), []).append(body)
        for key, result in results.items():
            if result["status"] not in ("waiting", "confirmed"):
                continue  # settled: entered, a clash, refused or dismissed
            seats = len(json.loads(result["players"]))
            rows = agreed.get(key, [])
            before = json.loads(result["confirmed"])
            said = {s for body in rows for s in _list(body.get("seats")) if _int(s) is not None}
            confirmed = sorted({s for s in said if 0 <= s < seats} | set(before))
            if result["status"] == "confirmed" or not rows:
                continue  # staff confirmed it already, or no seat agreed yet
            staff = any(body.get("by") == "staff" for body in rows)
            by = "staff at the board" if staff else "the players at the board"
            complete = set(range(seats)) <= set(confirmed) and result["start_seq"] is not None
            status = "confirmed" if complete else "waiting"
            if (confirmed, by, status) != (before, result["confirmed_by"], "waiting"):
                self.conn.execute(sql.RESULT_CONFIRM, (_json(confirmed), by, status, result["game"]))
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
            refused = tuple(self._refused.get((board, history), ()))
            self.publications.want(board, "ack", Ack(acked, history, refused=refused).payload())
            # A row missing below rows already here: ask for it again (not every batch: it is on its way).
            resend = gap and now - self._asked_again.get((board, history), float("-inf")) >= GAP_RESEND_S
            if resend:
                self._asked_again[(board, history)] = now
            acks[board] = Ack(acked, history, resend, refused)
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
    return compact(value)


def _names(players: Any) -> list[str]:
    """A game's player names (a start lists ``{"name": …}`` objects, an end the names)."""
    return [
        str(p.get("name")) if isinstance(p, Mapping) else str(p)
        for p in (players if isinstance(players, list) else [])
    ]


def _assignment(value: Any) -> str | None:
    """The table assignment a game names: an id this event server made is 1-64 letters and digits."""
    return value if isinstance(value, str) and 1 <= len(value) <= 64 and value.isalnum() else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _scored(body: Mapping[str, Any]) -> dict[str, Any]:
    """What the server makes of a finished game's record: the record as it read it and the points it
    derived, or why the record does not hold (kept for staff, with the points the board claimed)."""
    try:
        report = ReportedGame.from_json(body)
    except ReportedGameError as exc:
        return {"report": None, "problem": str(exc)}
    try:
        verdict = judge(report)
    except ReportedGameError as exc:
        return {"report": report.to_json(), "problem": str(exc)}
    return {
        "report": report.to_json(),
        "problem": None,
        "points": list(verdict.points),
        "lightings": [x.to_dict() for x in verdict.lightings],
    }


def _int(*values: Any) -> int | None:
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None

