"""The wiring wizard: learning which multiplexer channels a board's slots are wired to.

:mod:`~hardware.wiring.learner` learns from raw levels alone (no I/O);
:mod:`~hardware.wiring.session` feeds it from a board's scanner and keeps its
progress in the database (the board service's ``WIRING`` command);
:mod:`~hardware.wiring.config` turns what it learned into ``[hardware.slots]``;
:mod:`~hardware.wiring.console` is ``hautetension wiring learn`` and ``apply``
at a terminal; :mod:`~hardware.wiring.demo` scrambles a virtual board's wires
and places the pawns the wizard asks for.
"""
