"""``hautetension config check [FILE]``: validate the configuration before any pin is touched.

``[hardware]`` is checked in depth (the wiring against the layout); ``[board]``,
``[serial]``, ``[store]``, ``[panel]``, ``[lobby]``, ``[uplink]`` and ``[central]``
with the parsers of the parts that own them. Every problem of every section is listed at once.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from configuration import ConfigError, load_config
from hardware.console import BAD_CONFIG, SectionCheck, config_check


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("config", help="check the configuration file")
    actions = parser.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check", help="check the [hardware] pin map and wiring; list every problem",
        description="Exit status 0: the file is fine; 2: it has problems (each listed on stderr).")
    check.add_argument("file", nargs="?", help="configuration file (default: the one the service would read)")
    check.add_argument("--layout", help="layout name or file (default: [board] layout, else pinwheel-80)")
    check.add_argument("-v", "--verbose", action="store_true",
                       help="also print every GPIO and every slot's channels")
    check.set_defaults(func=run_check)


SECTIONS = ("hardware", "serial", "board", "store", "panel", "lobby", "uplink", "central")
"""Every section a configuration file may have (config.example.toml documents each)."""


def other_sections() -> dict[str, SectionCheck]:
    """The parsers of the sections other parts of the controller own (``panel`` reads ``[panel]``,
    ``[lobby]`` and the database's ``[store] path``)."""
    from firmware_bridge.host import LinkSettings
    from hardware.service import BoardSettings
    from hautetension.commands.central import CentralSettings
    from uplink.settings import UplinkSettings
    from webpanel.config import panel_sections

    return {
        "board": BoardSettings.from_config,
        "serial": LinkSettings.from_config,
        "panel": panel_sections,
        "uplink": UplinkSettings.from_config,
        "central": CentralSettings.from_config,
    }


def run_check(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.file)
    except ConfigError as exc:
        print(f"hautetension: {exc}", file=sys.stderr)
        return BAD_CONFIG
    return config_check(config, layout_name=args.layout, out=sys.stdout, err=sys.stderr,
                        verbose=args.verbose, other_sections=other_sections(), sections=SECTIONS)
