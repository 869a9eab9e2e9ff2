"""Entry point of the ``hautetension`` command."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

import hautetension.commands


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; with *argv*, of its command only when a module is named after it.

    ``hautetension board`` (and ``panel``, ``run``, ``game``, ...) imports only
    its own module: the long-running processes then start without importing
    what the other commands need (gpiozero's mock pins for ``scan``, the
    opening book's solver for ``qttt``). Any other first word, ``--help``
    included, gets every command."""
    parser = argparse.ArgumentParser(
        prog="hautetension",
        description="Controller, web panel and digital games for the Haute-Tension lamp board.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    names = sorted(m.name for m in pkgutil.iter_modules(hautetension.commands.__path__))
    word = next(iter(argv or ()), None)
    if word in names:
        names = [word]
    for name in names:
        module = importlib.import_module(f"hautetension.commands.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
    except KeyboardInterrupt:
        return 130
    return int(status or 0)


if __name__ == "__main__":
    sys.exit(main())
