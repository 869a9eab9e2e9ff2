"""What the event server publishes, kept until it is out: acknowledgements and assignments.

The panel never talks to the broker: it writes here what each board's
retained topic should hold (an assignment, or an empty payload that clears
it), and so does the intake for acknowledgements. The ingest publishes what is
newer than what it last published, and everything again after each connect
(a broker restarted without its retained messages gets them back at once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from store.dialect import Connection, placeholders
from store.event import sql

LEAVES = ("ack", "assignment")


@dataclass(frozen=True)
class Publication:
    board: str
    leaf: str
    """``ack`` or ``assignment`` (the topic ``hautetension/<event>/board/<board>/<leaf>``)."""
    payload: bytes
    """Empty: clear the retained message."""
    version: int


class Publications:
    """The retained value each board topic should hold, on one connection (callers hold the transaction)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def want(self, board: str, leaf: str, payload: bytes) -> None:
        if leaf not in LEAVES:
            raise ValueError(f"the server publishes only {', '.join(LEAVES)}, not {leaf!r}")
        self.conn.execute(sql.PUBLISH_WANT, (board, leaf, payload))

    def wanted(self, board: str, leaf: str) -> bytes | None:
        row = self.conn.execute(sql.PUBLISHED, (board, leaf)).fetchone()
        return None if row is None else bytes(row[0])

    def wanted_each(self, boards: Sequence[str], leaf: str) -> dict[str, bytes]:
        """:meth:`wanted` for several boards at once (those that have one)."""
        boards = list(dict.fromkeys(boards))
        if not boards:
            return {}
        rows = self.conn.execute(sql.PUBLISHED_EACH.format(placeholders(len(boards))), [leaf, *boards])
        return {str(r[0]): bytes(r[1]) for r in rows}

    def pending(self) -> list[Publication]:
        return [
            Publication(r[0], r[1], bytes(r[2]), int(r[3])) for r in self.conn.execute(sql.PUBLISH_PENDING)
        ]

    def published(self, publication: Publication) -> None:
        self.conn.execute(
            sql.PUBLISH_DONE, (publication.version, publication.board, publication.leaf, publication.version)
        )

    def all_again(self) -> None:
        """After a (re)connect: everything is to be published again."""
        self.conn.execute(sql.PUBLISH_AGAIN)
