"""``hautetension selftest``: the board's health self-test; non-zero exit if anything fails."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hardware.console import run_selftest_command
from hautetension.commands.scan import add_backend_options, open_board


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "selftest", help="check reference channels, channel stability, multiplexers and lamps",
        description="Run the health self-test once and print a report. Exit status 0: passed; "
                    "1: a check failed; 2: the board could not be opened.")
    add_backend_options(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    opened = open_board(args)
    if isinstance(opened, int):
        return opened
    backend, _ = opened
    return run_selftest_command(backend, out=sys.stdout, as_json=args.json)
