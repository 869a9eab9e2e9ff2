"""``hautetension circuit`` and ``hautetension layout``: evaluate a board file, show or check a layout.

``circuit BOARD.json [--layout NAME_OR_FILE] [--button]`` prints one JSON
object: ``lit`` (sorted lamp names), ``closed_rows`` (sorted row ids), the
layout name and whether the button was held. A bad board file or layout exits
with status 2 and a one-line reason on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from games.exc import BoardFileError, LayoutError
from games.hautetension.board import read_position
from games.hautetension.circuit import evaluate
from games.hautetension.drawing import describe_layout
from games.hautetension.layout import DEFAULT_LAYOUT, available_layouts, load_layout

BAD_INPUT = 2


def register(subparsers: Any) -> None:
    circuit = subparsers.add_parser(
        "circuit",
        help="evaluate a board position: which rows are closed and which lamps light",
        description='Evaluate BOARD.json, {"attack": [slots...], "defense": [slots...]}, and print JSON.',
    )
    circuit.add_argument("board", metavar="BOARD.json", help="board position file ('-' reads stdin)")
    circuit.add_argument(
        "--layout", default=DEFAULT_LAYOUT, help="layout name or file (default: %(default)s)"
    )
    circuit.add_argument("--button", action="store_true", help="the test button is held: every lamp lights")
    circuit.set_defaults(func=run_circuit)

    layout = subparsers.add_parser("layout", help="show, list or check board layouts")
    actions = layout.add_subparsers(dest="layout_command", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="draw a layout: slots, lamps and where each row leads")
    show.add_argument(
        "name", nargs="?", default=DEFAULT_LAYOUT, help="layout name or file (default: %(default)s)"
    )
    show.add_argument(
        "--row", action="append", default=[], metavar="ID", help="bracket the slots of this row"
    )
    show.set_defaults(func=run_layout_show)
    listing = actions.add_parser("list", help="names of the layouts shipped with the controller")
    listing.set_defaults(func=run_layout_list)
    check = actions.add_parser("check", help="validate a layout file and list every problem")
    check.add_argument("file", help="layout name or file")
    check.set_defaults(func=run_layout_check)


def _fail(reason: str) -> int:
    print(f"hautetension: {reason}", file=sys.stderr)
    return BAD_INPUT


def _one_line(text: str) -> str:
    return " ".join(text.split())


def run_circuit(args: argparse.Namespace) -> int:
    try:
        layout = load_layout(args.layout)
    except LayoutError as exc:
        return _fail(_one_line(str(exc)))
    try:
        text = sys.stdin.read() if args.board == "-" else Path(args.board).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(_one_line(f"{args.board}: cannot read the board file ({exc})"))
    try:
        position = read_position(layout, text)
    except BoardFileError as exc:
        return _fail(_one_line(f"{args.board}: {exc}"))
    state = evaluate(layout, position.attack, button=args.button)
    print(json.dumps({**state.to_dict(), "layout": layout.name, "button": args.button}))
    return 0


def run_layout_show(args: argparse.Namespace) -> int:
    try:
        layout = load_layout(args.name)
    except LayoutError as exc:
        return _fail(_one_line(str(exc)))
    by_id = {row.id: row for row in layout.rows}
    unknown = [row_id for row_id in args.row if row_id not in by_id]
    if unknown:
        return _fail(f"layout {layout.name} has no row {', '.join(unknown)} (rows: {', '.join(by_id)})")
    highlight = {item for row_id in args.row for item in (*by_id[row_id].slots, *by_id[row_id].lamps)}
    print(describe_layout(layout, highlight=highlight))
    return 0


def run_layout_list(args: argparse.Namespace) -> int:
    for name in available_layouts():
        print(name)
    return 0


def run_layout_check(args: argparse.Namespace) -> int:
    try:
        layout = load_layout(args.file)
    except LayoutError as exc:
        print(f"{exc.source}: {len(exc.problems)} problem(s)", file=sys.stderr)
        for problem in exc.problems:
            print(f"  - {problem}", file=sys.stderr)
        return BAD_INPUT
    print(
        f"{args.file}: ok, layout {layout.name}: {len(layout.slots)} slots, {len(layout.lamps)} lamps, "
        f"{len(layout.rows)} rows"
    )
    return 0
