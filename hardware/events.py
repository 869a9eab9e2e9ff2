"""What a board backend reports: debounced pawn changes, the button, faults.

Every backend (direct GPIO, the serial microcontroller, the simulated board)
emits these same values, so the board service cannot tell them apart.
Times are ``time.monotonic()`` seconds, taken when the change was confirmed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from games.hautetension.pawn import PawnKind


@dataclass(frozen=True)
class PawnPlaced:
    """A pawn now stands in *slot* (stable for the debounce time)."""

    slot: str
    kind: PawnKind
    at: float


@dataclass(frozen=True)
class PawnLifted:
    """The pawn that stood in *slot* is gone (stable for the debounce time)."""

    slot: str
    kind: PawnKind
    at: float


@dataclass(frozen=True)
class ButtonPressed:
    at: float


@dataclass(frozen=True)
class ButtonReleased:
    at: float
    held_for: float


@dataclass(frozen=True)
class ButtonLongPress:
    """The button has been held for the long-press time: run the self-test."""

    at: float


class FaultKind(enum.Enum):
    CONDUCTION_WITHOUT_PRESENCE = "conduction-without-presence"
    FLICKER = "flicker"
    REFERENCE_MISMATCH = "reference-mismatch"
    DEAD_MULTIPLEXER = "dead-multiplexer"
    DISCONNECTED = "disconnected"
    LINK_ERROR = "link-error"
    LAMP_FEEDBACK = "lamp-feedback"


@dataclass(frozen=True)
class Fault:
    """Something is wrong with the board or its link; ``message`` says what, for staff.

    ``slot`` names the slot involved (chess-style), ``multiplexer`` and
    ``channel`` the hardware position, when they apply. ``scanner_faulted``
    is true when the readings themselves can no longer be trusted (dead
    multiplexer, disconnected link): lamps then go to their safe state.
    """

    kind: FaultKind
    message: str
    at: float
    slot: str | None = None
    multiplexer: int | None = None
    channel: int | None = None
    scanner_faulted: bool = False


@dataclass(frozen=True)
class FaultCleared:
    """A fault reported earlier is over."""

    kind: FaultKind
    message: str
    at: float
    slot: str | None = None
    multiplexer: int | None = None


BoardEvent = PawnPlaced | PawnLifted | ButtonPressed | ButtonReleased | ButtonLongPress | Fault | FaultCleared
