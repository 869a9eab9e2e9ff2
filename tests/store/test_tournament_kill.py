"""A writer process killed between (and during) entries loses nothing and doubles nothing."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from games.hautetension.outcome import Lighting
from store.db import connect
from store.tournaments import Tournaments
from tournaments.tournament import Tournament

WRITER = Path(__file__).with_name("tournament_writer.py")
ROOT = Path(__file__).resolve().parents[2]


def _script(seed: int) -> dict[str, object]:
    """Every event of a whole 9-player tournament, played in memory."""
    rng = random.Random(seed)
    t = Tournament(seed=seed)
    for i in range(9):
        t.register(f"P{i + 1}")
    while not t.is_over():
        number = t.next_round()["data"]["round"]
        for table in t.round(number).tables:
            order = rng.sample(range(len(table.seats)), len(table.seats) - 1)
            t.enter_result(number, table.number, [Lighting((s,)) for s in order])
    return {"seed": seed, "events": t.events}


def _start(db: Path, script: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(db), str(script)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def test_killed_writer_loses_and_doubles_nothing(tmp_path: Path) -> None:
    script = _script(5)
    events = script["events"]
    assert isinstance(events, list) and len(events) > 30
    script_path = tmp_path / "script.json"
    script_path.write_text(json.dumps(script))
    db = tmp_path / "board.db"
    rng = random.Random(1)
    acknowledged = -1
    kills = 0
    finished = False
    for attempt in range(40):
        proc = _start(db, script_path)
        assert proc.stdout is not None
        # Between entries: right after an acknowledged new entry; or at a random moment.
        stop_after = acknowledged + rng.randint(1, 6)
        mid_entry = attempt % 3 == 2
        started = time.monotonic()
        for line in proc.stdout:
            if line.startswith("finished"):
                finished = True
                break
            _, index, status = line.split()
            acknowledged = max(acknowledged, int(index))
            if status == "new" and int(index) >= stop_after and not mid_entry:
                proc.send_signal(signal.SIGKILL)
                kills += 1
                break
            if mid_entry and time.monotonic() - started > rng.uniform(0.0, 0.3):
                proc.send_signal(signal.SIGKILL)
                kills += 1
                break
        proc.wait(timeout=30)
        proc.stdout.close()
        if finished:
            break
        # Whatever was acknowledged before the kill is in the database.
        stored = Tournaments(connect(db))
        live = [e for e in stored.audit(stored.all()[0].id) if not e.is_undone]
        assert len(live) >= acknowledged + 1
    assert finished and kills >= 3
    stored = Tournaments(connect(db))
    tid = stored.all()[0].id
    entries = stored.audit(tid)
    assert [e.request_id for e in entries] == [f"step-{i}" for i in range(len(events))]
    assert [e.event for e in entries] == events
    loaded = stored.load(tid)
    reference = Tournament.replay({"seed": 5}, events)
    assert loaded.standings() == reference.standings()
    assert loaded.winner() == reference.winner() is not None
