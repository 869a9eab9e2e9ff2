"""Enters a scripted tournament into a database, one entry at a time (run by test_tournament_kill.py).

Usage: python tournament_writer.py DB SCRIPT_JSON

The script is a list of events. Each run sends every event from the first,
each with its own request id, as a tablet would resend after a power cut:
entries already recorded come back as duplicates and are not written again.
After each entry it prints ``done <index> <new|dup>`` and flushes.
"""

from __future__ import annotations

import json
import sys

from store.db import connect
from store.tournaments import Tournaments


def main(db: str, script_path: str) -> int:
    with open(script_path, encoding="utf-8") as f:
        script = json.load(f)
    store = Tournaments(connect(db))
    existing = store.all()
    tid = existing[0].id if existing else store.create("Kill test", seed=script["seed"]).id
    for index, event in enumerate(script["events"]):
        recorded = store.record(
            tid, lambda t, e=event: t.apply(e), actor="writer", request_id=f"step-{index}"
        )
        print(f"done {index} {'dup' if recorded.duplicate else 'new'}", flush=True)
    print("finished", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
