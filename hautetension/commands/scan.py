"""``hautetension scan``: watch the board's slots, button and faults live."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from configuration import CONFIG_OPTION_HELP, ConfigError, load_config
from games.hautetension.layout import Layout
from hardware.backend import BoardBackend
from hardware.console import BAD_CONFIG, open_for_command, run_scan


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=("gpio", "sim", "mock", "serial"),
                        help="gpio: multiplexers on this Pi's pins; sim/mock: the virtual board; "
                             "serial: a scanning microcontroller (default: [board] backend, else sim)")
    parser.add_argument("--config", help=CONFIG_OPTION_HELP)
    parser.add_argument("--layout", help="layout name or file (default: [board] layout, else pinwheel-80)")
    parser.add_argument("--port", help="serial port of the scanning microcontroller (serial backend)")
    parser.add_argument("--inject", action="append", metavar="FAULT",
                        help="sim only: stuck:M:C:high|low, dead:M, cable, noisy:SLOT[:P], blown:LAMP, "
                             "shorted:LAMP, conduction:SLOT (repeatable)")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "scan", help="print live slot changes, button presses and faults",
        description="Scan the board and print every debounced change and fault until Ctrl-C. "
                    "Lamps follow the circuit of the pawns seen, and go off on exit.")
    add_backend_options(parser)
    parser.add_argument("--scans", type=int, help="stop after this many scans")
    parser.add_argument("--seconds", type=float, help="stop after this many seconds")
    parser.add_argument("--no-lamps", dest="lamps", action="store_false", help="leave the lamps off")
    parser.add_argument("--demo", action="store_true",
                        help="sim only: place pawns to close a row, press the button, lift a pawn")
    parser.add_argument("--raw", action="store_true",
                        help="also print every channel level change, undebounced, with what is wired "
                             "there (gpio and sim: for checking the wiring contact by contact)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.set_defaults(func=run)


def open_board(args: argparse.Namespace) -> tuple[BoardBackend, Layout] | int:
    """The backend and layout the command line and the configuration file ask for, or an exit status."""
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"hautetension: {exc}", file=sys.stderr)
        return BAD_CONFIG
    return open_for_command(config, args)


def run(args: argparse.Namespace) -> int:
    opened = open_board(args)
    if isinstance(opened, int):
        return opened
    backend, layout = opened
    return run_scan(backend, layout, out=sys.stdout, scans=args.scans, seconds=args.seconds,
                    lamps=args.lamps, demo=args.demo, as_json=args.json, raw=args.raw)
