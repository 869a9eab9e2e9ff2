"""The board service: scan → rules → lamps, with a journal that loses nothing.

One loop, run every scan period of the backend (5 ms by default):

1. ``backend.poll()`` — one scan; debounced slot, button and fault events;
2. the :class:`~hardware.service.referee.Referee` follows the game from those
   events (attribution by turn order, anomalies);
3. the lamps are set to the true circuit of the board (all off while the
   scanner is faulted, all lit for the lamp test);
4. everything that happened goes to the journal with the board state in one
   durable transaction;
5. about every 20 ms, commands from the panel or the CLI are carried out;
   about every second, the health report (the heartbeat) is written;
6. the systemd watchdog is pinged at half its period.

The lamps are set before the journal is written: they are the physical truth
and must not wait for the disk. Commands are acknowledged only after the
journal holds what they did (``synchronous=FULL``: durable before
acknowledged). The board state contract is in docs/board-service.md.

The package: :mod:`~hardware.service.loop` (the loop, its commands and its
health), :mod:`~hardware.service.referee` (the physical game),
:mod:`~hardware.service.recovery` (the game back from the journal after a
restart), :mod:`~hardware.service.notify` (systemd), :mod:`~hardware.service.sim`
(the simulated board's pawns on disk) and :mod:`~hardware.service.settings`
(``[board]``).
"""

from __future__ import annotations

from hardware.service.loop import STALE_COMMAND_S, BoardService, CommandRefused, LatencyStats
from hardware.service.settings import BACKEND_NAMES, BoardSettings

__all__ = [
    "BACKEND_NAMES", "STALE_COMMAND_S", "BoardService", "BoardSettings", "CommandRefused", "LatencyStats",
]
