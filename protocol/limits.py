"""The bounds of the event network's messages: what the bounded reader refuses (docs/event-network.md).

A board is authenticated, never believed: whatever it sends is read within
these bounds on both ends, so no message can exhaust memory, the database, the
pages that serve it again, or the reader's own stack.
"""

from __future__ import annotations

MAX_ROW = 64 * 1024
"""Bytes of one outbox row (its head and the journal entry's public payload). The largest honest row is a
game's end with every move of a long game, a few kilobytes. Every kind's bound is checked before anything
is parsed."""

MAX_BODY = 48 * 1024
"""Bytes of one outbox row's body as the event stores it (compact JSON): what a row can cost the
event's database, whatever its kind."""

MAX_LIVE = 32 * 1024
"""Bytes of a board's public live view: the wall serves every accepted board's, to every viewer, so this
bounds what one board can make the public pages re-serve."""

MAX_STATUS = 16 * 1024
"""Bytes of a board's status (presence, the game in a few words, health: a fault is about 100 bytes, so a
board with every slot of its layout faulted still fits): read by every staff page, and in part served
again by the wall."""

MAX_ACK = 2 * 1024
"""Bytes of the server's acknowledgement (a history, a sequence number, the refused rows it names)."""

MAX_ASSIGNMENT = 16 * 1024
"""Bytes of the table the server assigns a board (its players' names, the round and table)."""

MAX_DEPTH = 16
"""Nesting of arrays and objects at most. The deepest honest message (a live view's game) is about six
levels; the depth is checked by scanning the text before parsing, so no message can make the parser
recurse (a payload nested 5,000 deep used to raise RecursionError in the ingest)."""

MAX_STRING = 2 * 1024
"""Characters of any string (or object key) at most: names, fault messages, ids are short."""

MAX_NAME = 80
"""Characters of a player's name as a board reports it (a game's start and end, its status): the pages show
them in tables and on the wall."""

MAX_ITEMS = 4096
"""Elements of any one array or members of any one object at most."""

MIN_INT = -(2**63)
MAX_INT = 2**63 - 1
"""Every integer fits a signed 64-bit column (SQLite's INTEGER, PostgreSQL's BIGINT): a larger one used to
raise OverflowError in the ingest."""

MAX_SEQ = 2**53
"""Sequence numbers, game ids and first rows are whole numbers from 0 to this (exact in a double, and room
for the arithmetic done on them in a 64-bit column)."""

MAX_REFUSED_IN_ACK = 16
"""Refused rows an acknowledgement names at most (the most recent of the history)."""

QUARANTINE_HEAD = 256
"""Bytes of a refused message kept for staff (its first bytes: enough to see what it was)."""

MAX_HISTORIES = 16
"""Histories one board may open at one event (a new one each time its database is replaced or restored):
beyond, what it sends under a new history is refused, so a board cannot fill the event's database with
histories."""
