"""The virtual board, for development, tests and benchmarks: the electronics in software.

:mod:`~hardware.virtual.board` wires gpiozero's mock pins as the real board is
wired (multiplexers, pawns, lamps, the button, injected faults);
:mod:`~hardware.virtual.lgpio` is lgpio's API on virtual gpiochips wired to it.
"""
