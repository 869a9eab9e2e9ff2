"""How a long-running command stops: SIGTERM and SIGINT both call one function.

SIGTERM is how systemd stops a unit and how ``hautetension run`` and ``event
demo`` stop their children; SIGINT is Ctrl-C. The command owns its process, so
it alone installs the handlers, once, before its loop starts: the packages'
loops take a stop event (``BoardService.run(stop)``, ``Uplink.run(stop)``) or
end on :class:`KeyboardInterrupt` (the panel's server, the wait for children),
and never touch signals themselves. The one exception is ``hautetension
scan``'s loop (:mod:`hardware.console`): it turns SIGTERM into Ctrl-C only
while it scans and then puts the caller's handler back, since it also runs
inside other programs (the tests), and the hardware package may not import
this one.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import NoReturn


def stop_on_signals(stop: Callable[[], object]) -> None:
    """From now on, SIGTERM and SIGINT call *stop* (in the main thread, between two of its steps).

    SIGINT is taken over too, even when the process was started with it ignored (a background job
    inherits ``SIG_IGN``), so Ctrl-C and ``kill -INT`` always stop the command."""

    def handler(_signum: int, _frame: object) -> None:
        stop()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def interrupt() -> NoReturn:
    """Stop as Ctrl-C does, wherever the main thread is: for a command whose loop ends on
    :class:`KeyboardInterrupt` (``stop_on_signals(interrupt)``)."""
    raise KeyboardInterrupt
