"""``hautetension qttt``: quantum tic-tac-toe tools (the perfect-play solver)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import games.qttt.book
from games.exc import IllegalMoveError
from games.qttt.book import BOOK_FILE, VALUE_NAMES, generate, load_book
from games.qttt.game import QuantumTicTacToe
from games.qttt.rules import X
from games.qttt.solver import PerfectPlay, best_for, prove_openings

ILLEGAL = 2


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("qttt", help="quantum tic-tac-toe tools")
    commands = parser.add_subparsers(dest="qttt_command", metavar="COMMAND", required=True)
    solve = commands.add_parser(
        "solve",
        help="value and best move under perfect play",
        description="Print the value under perfect play of a position, a best move "
        "and the number of positions searched; with --openings, prove the value of every first move.",
    )
    solve.add_argument(
        "--moves",
        default=None,
        metavar="MOVES_JSON",
        help='moves so far, e.g. \'[[0, 4], [4, 8], [0, 8], {"collapse": 8}]\': squares 0-8 row by row, '
        'a pair [a, b], a collapse choice {"collapse": square}, X\'s last classical mark [a]',
    )
    solve.add_argument(
        "--openings",
        action="store_true",
        help="prove by search, without the opening book, the value of each of the 36 first moves "
        "(8 up to symmetry; seconds of CPU)",
    )
    solve.set_defaults(func=run_solve)
    book = commands.add_parser(
        "book",
        help="regenerate the opening book (solves the empty position: minutes of CPU)",
        description="Solve every opening position up to --depth moves and write the opening book.",
    )
    book.add_argument("--depth", type=int, default=3, help="moves the book covers (default 3)")
    book.add_argument("--output", type=Path, default=Path(games.qttt.book.__file__).with_name(BOOK_FILE),
                      help="where to write it (default: the book shipped with the package)")
    book.set_defaults(func=run_book)


def replay(moves_json: str) -> QuantumTicTacToe:
    """The game after the given moves; ValueError with the reason when they are not legal."""
    try:
        moves = json.loads(moves_json)
    except json.JSONDecodeError as exc:
        raise ValueError(f"MOVES_JSON is not JSON: {exc}") from exc
    if not isinstance(moves, list):
        raise ValueError("MOVES_JSON must be a JSON list of moves")
    game = QuantumTicTacToe(["X", "O"], seed=0)
    for number, move in enumerate(moves, 1):
        try:
            game.push(move)
        except IllegalMoveError as exc:
            raise ValueError(f"move {number} of the list ({json.dumps(move)}) is illegal: {exc}") from exc
    return game


def run_solve(args: argparse.Namespace) -> int:
    if args.openings:
        if args.moves is not None:
            print("hautetension qttt solve: --openings proves the first moves: it takes no --moves",
                  file=sys.stderr)
            return ILLEGAL
        return run_openings()
    try:
        game = replay("[]" if args.moves is None else args.moves)
    except ValueError as exc:
        print(f"hautetension qttt solve: {exc}", file=sys.stderr)
        return ILLEGAL
    start = time.perf_counter()
    analysis = PerfectPlay(book=load_book()).analyse(game.position, pending=game.pending)
    best = None
    if analysis.best is not None:
        kind, squares = analysis.best
        best = {"collapse": squares[0]} if kind == "collapse" else list(squares)
    to_act = game.to_act
    print(json.dumps({
        "value": VALUE_NAMES[analysis.value],
        "best": best,
        "nodes": analysis.nodes,
        "seconds": round(time.perf_counter() - start, 3),
        "from_book": analysis.from_book,
        "to_act": None if to_act is None else "XO"[to_act],
    }))
    return 0


def run_openings() -> int:
    """Print the value of every first move, proved by search (see docs/qttt.md)."""
    start = mark = time.perf_counter()
    openings: list[tuple[tuple[int, int], int]] = []
    classes: list[dict[str, Any]] = []
    for opening in prove_openings():
        seconds = round(time.perf_counter() - mark, 3)
        value = VALUE_NAMES[opening.value]
        classes.append({"moves": [list(m) for m in opening.moves], "value": value, "nodes": opening.nodes,
                        "seconds": seconds})
        openings.extend((move, opening.value) for move in opening.moves)
        print(f"{list(opening.moves[0])} and {len(opening.moves) - 1} symmetric: {value}, "
              f"{opening.nodes:,} positions, {seconds} s", file=sys.stderr, flush=True)
        mark = time.perf_counter()
    root = best_for(X, [v for _, v in openings])  # X places the first pair
    print(json.dumps({
        "value": VALUE_NAMES[root],
        "best": sorted(list(move) for move, v in openings if v == root),
        "openings": [{"move": list(move), "value": VALUE_NAMES[v]} for move, v in sorted(openings)],
        "classes": classes,
        "nodes": sum(c["nodes"] for c in classes),
        "seconds": round(time.perf_counter() - start, 3),
        "from_book": False,
    }))
    return 0


def run_book(args: argparse.Namespace) -> int:
    if args.depth < 0:
        print("hautetension qttt book: --depth must be 0 or more", file=sys.stderr)
        return ILLEGAL
    start = time.perf_counter()

    def progress(done: int, total: int, nodes: int) -> None:
        if done % 200 == 0 or done == total:
            print(f"{done}/{total} positions, {nodes:,} nodes searched, {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)

    data = generate(args.depth, progress=progress)
    data["seconds"] = round(time.perf_counter() - start, 1)
    text = json.dumps(data, separators=(",", ":")) + "\n"
    partial = args.output.with_name(args.output.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(args.output)  # a crash never leaves half a book
    print(f"{len(data['entries'])} positions, {data['nodes']:,} nodes, {data['seconds']} s -> {args.output}")  # type: ignore[arg-type]
    return 0
