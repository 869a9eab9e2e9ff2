"""Benchmark of the protocol leaf's bounded reader: what reading every payload within bounds costs.

Run: ``.venv/bin/python bench/reader.py`` (about 10 s).

1. Honest messages as the boards send them (an outbox row, a game's end with
   every move of a long game, a status, a live view of a running game, an ack),
   each read by the bounded reader (``protocol.parse_*``) side by side in the
   same run with the baseline: what the ingest did before, ``json.loads`` alone
   (and, for a row, its body written as stored), which a hostile payload could
   kill. Best of many repeats, so a busy machine blurs the ratio less than the
   times.
2. What refusing the attacks of the hostile-board tests costs: JSON nested
   5,000 deep, a 1 MB and a 16 MB row, a 1 MB live view, a number of 5,000
   digits (``json.loads`` alone on the first two raises RecursionError, on the
   others stores megabytes).

Machine-independent counts: the bytes of each message, whether the reader
walked its values one by one (it does only when the text shows something out of
the ordinary).
"""

from __future__ import annotations

import functools
import json
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol import Ack, MessageError, parse_ack, parse_live, parse_row, parse_status  # noqa: E402
from protocol.reader import scan_text  # noqa: E402


def compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), sort_keys=True).encode()


def row(kind: str, body: dict[str, Any]) -> bytes:
    head = {"seq": 1234, "history": "a1b2c3d4e5f6", "first": 1, "kind": kind, "game": 3, "at": 1796000000.123}
    return compact({**head, "body": body})


SEATS = [
    {"name": f"Player {i}", "colour": colour, "lamp": lamp, "eliminated": False}
    for i, (colour, lamp) in enumerate((("red", "N"), ("blue", "E"), ("black", "S"), ("white", "W")))
]
NAMES = [s["name"] for s in SEATS]
MOVES = [
    {"slot": f"{'abcdefghij'[i % 10]}{i % 9 + 1}", "seat": i % 4, "lit": ["N"] if i % 17 == 0 else []}
    for i in range(120)
]
GAME_END = {
    "game": 3,
    "players": NAMES,
    "status": "over",
    "points": [4, 0, 2, 3],
    "lightings": [{"seats": [1], "by": 0}, {"seats": [2], "by": 0}],
    "moves": MOVES,
}
STATUS = {
    "online": True,
    "since": 1796000000.5,
    "software": "1.4.0",
    "history": "a1b2c3d4e5f6",
    "first": 1,
    "layout": "pinwheel-80",
    "game": {"id": 3, "status": "running", "players": NAMES, "to_move": "Player 1", "paused": False,
             "moves": 40, "lit": ["N"], "points": None, "confirmed": []},
    "health": {"ok": True, "faults": []},
}
LIVE = {
    "id": 99,
    "layout": "pinwheel-80",
    "pawns": {f"s{i}": {"owner": i % 4} for i in range(40)},
    "lamps": {"lit": ["N", "E"], "test": False, "safe": False},
    "game": {"id": 3, "status": "running", "view": {"seats": SEATS, "to_move": 1, "moves": MOVES[:40]}},
}
HONEST: list[tuple[str, bytes, Callable[[bytes], Any]]] = [
    ("outbox row (a placement)", row("placement", {"n": 12, "slot": "f9", "seat": 2}), parse_row),
    ("outbox row (a game's end, 120 moves)", row("game-end", GAME_END), parse_row),
    ("status", compact(STATUS), parse_status),
    ("live view (a running game)", compact(LIVE), parse_live),
    ("ack", Ack(1234, "a1b2c3d4e5f6").payload(), parse_ack),
]
HOSTILE: list[tuple[str, bytes, Callable[[bytes], Any]]] = [
    ("outbox row nested 5,000 deep", b'{"a":' * 5000 + b"1" + b"}" * 5000, parse_row),
    ("live view nested 5,000 deep", b"[" * 5000 + b"]" * 5000, parse_live),
    ("1 MB outbox row", row("placement", {"pad": ["x" * 2000] * 524}), parse_row),
    ("16 MB outbox row", row("placement", {"pad": ["x" * 2000] * 8390}), parse_row),
    ("1 MB live view", compact({"pad": ["x" * 2000] * 524}), parse_live),
    ("a number of 5,000 digits", b'{"a":' + b"9" * 5000 + b"}", parse_live),
]


def stored_before(payload: bytes) -> str:
    """What the ingest did with a row before the reader: parse it, and write its body as stored."""
    return compact(json.loads(payload)["body"]).decode()


def read_as_stored(payload: bytes) -> str:
    """What the ingest does with a row now: read it, and write its body as stored (measured once)."""
    return parse_row(payload).body_text


def best(call: Callable[[], Any], number: int) -> float:
    return min(timeit.repeat(call, number=number, repeat=30)) / number


def refuse(read: Callable[[bytes], Any], payload: bytes) -> None:
    try:
        read(payload)
    except MessageError:
        return
    raise AssertionError("not refused")


def main() -> None:
    print("honest messages: the bounded reader against json.loads alone, rows with their body as stored (best"
          " of 30 runs)")
    for name, payload, read in HONEST:
        read(payload)
        walked = scan_text(payload, "x").suspicious
        row = read is parse_row
        base = best(functools.partial(stored_before if row else json.loads, payload), 300)
        reader = best(functools.partial(read_as_stored if row else read, payload), 300)
        print(
            f"  {name:40} {len(payload):6,} B  json.loads {base * 1e6:7.1f} µs  reader {reader * 1e6:7.1f} µs"
            f"  ×{reader / base:.2f}  values walked: {'yes' if walked else 'no'}"
        )
    print("refusing the hostile board's messages")
    for name, payload, read in HOSTILE:
        refuse(read, payload)
        took = best(functools.partial(refuse, read, payload), 3)
        print(f"  {name:40} {len(payload):12,} B  refused in {took * 1e6:9.1f} µs")


if __name__ == "__main__":
    main()
