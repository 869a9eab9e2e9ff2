"""A board's slot health as its status carries it: the findings, their kinds and their bounds.

A board watches its slots, lamps and scan across games (docs/hardware.md, "Slot
health") and reports what staff should check before players meet a fault: a
short list of *findings*, each naming a part of the board (a slot, ``lamps``,
``scan``, a reference channel), what was seen (its kind) and one number (games,
bounces per closing, milliseconds, per mille: each kind says which). The
event server shows them in staff's words; it never gets the counts behind
them, and no finding ever comes from a game still running (the board folds a
game's observations in when it ends).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from protocol.exc import MessageError

NO_PRESENCE = "no-presence"
"""The slot's presence contact never closed in the last ``n`` games."""
NO_CONDUCTION = "no-conduction"
"""Pawns stood in the slot, yet its conduction contact never closed in the last ``n`` games."""
BOUNCES = "bounces"
"""The slot's contacts bounce ``n`` tenths of a change per closing (beyond the clean ones), on average."""
SLOW_SETTLE = "slow-settle"
"""The slot's contacts take ``n`` milliseconds to settle after a pawn moves, on average."""
STUCK = "stuck"
"""The slot read conduction without presence (a contact stuck closed, bent) in one of the last ``n`` games."""
REFERENCE = "reference"
"""A reference channel read the wrong level in one of the last ``n`` games."""
LAMP = "lamp"
"""A lamp's current feedback disagreed with its output in one of the last ``n`` games."""
OVERRUNS = "overruns"
"""The scan loop overran its period in ``n`` per mille of its turns during the last game."""

KINDS = (NO_PRESENCE, NO_CONDUCTION, BOUNCES, SLOW_SETTLE, STUCK, REFERENCE, LAMP, OVERRUNS)
SLOT_KINDS = (NO_PRESENCE, NO_CONDUCTION, BOUNCES, SLOW_SETTLE, STUCK)
"""The kinds whose part is a slot (the others name a part of the board)."""

MAX_FINDINGS = 32
"""Findings a status carries at most (the worst first): 32 × about 50 bytes stays well inside the status's
bound, whatever else it says."""
MAX_N = 1_000_000
PART = re.compile(r"^[A-Za-z0-9 ._-]{1,16}$")
"""A part of the board: a slot's name (``c4``), ``lamps``, ``scan``, a reference channel (``ref 3.15``)."""


@dataclass(frozen=True, order=True)
class Finding:
    """Something about one part of the board that staff should check (see the module docstring)."""

    part: str
    kind: str
    n: int

    def to_json(self) -> dict[str, Any]:
        return {"part": self.part, "kind": self.kind, "n": self.n}

    @property
    def is_slot(self) -> bool:
        return self.kind in SLOT_KINDS


def parse_findings(value: Any, what: str = "a status's slot health") -> list[Finding]:
    """The findings of a status (``health.slots``), each checked; a refusal says why."""
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_FINDINGS:
        raise MessageError(f"{what} is a list of at most {MAX_FINDINGS} findings")
    return [_finding(item, what) for item in value]


def _finding(item: Any, what: str) -> Finding:
    if not isinstance(item, dict) or set(item) != {"part", "kind", "n"}:
        raise MessageError(f"{what}: a finding is {{part, kind, n}}")
    part, kind, n = item["part"], item["kind"], item["n"]
    if not isinstance(part, str) or not PART.match(part):
        raise MessageError(f"{what}: a part is 1 to 16 letters, digits, spaces, '.', '_' or '-'")
    if kind not in KINDS:
        raise MessageError(f"{what}: kind is one of {', '.join(KINDS)}")
    if type(n) is not int or not 0 <= n <= MAX_N:
        raise MessageError(f"{what}: n is a whole number from 0 to {MAX_N}")
    return Finding(part, kind, n)
