"""Entry point of the ``hautetension`` command."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

import hautetension.commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hautetension",
        description="Controller, web panel and digital games for the Haute-Tension lamp board.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_info in sorted(pkgutil.iter_modules(hautetension.commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"hautetension.commands.{module_info.name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
    except KeyboardInterrupt:
        return 130
    return int(status or 0)


if __name__ == "__main__":
    sys.exit(main())
