"""The wiring wizard's progress in the database."""

from __future__ import annotations

from pathlib import Path

from store.db import connect
from store.wiring import WiringProgress


def test_progress_is_saved_resumed_stopped_and_forgotten(tmp_path: Path) -> None:
    conn = connect(tmp_path / "board.db")
    store = WiringProgress(conn)
    assert store.load() is None and store.clear() is False
    store.save("pinwheel-80", {"learned": {}}, {"task": "clear"}, running="board service")
    first = store.load()
    assert first is not None and first.running == "board service" and first.view == {"task": "clear"}
    store.save("pinwheel-80", {"learned": {"a9": 1}}, {"task": "defense"}, running="board service")
    again = store.load()
    assert again is not None and again.progress == {"learned": {"a9": 1}}
    assert again.started_at == first.started_at and again.updated_at >= first.updated_at
    store.stopped()
    assert store.load().running is None  # type: ignore[union-attr]
    other = connect(tmp_path / "board.db")  # durable: another connection (process) sees it
    assert WiringProgress(other).load().progress == {"learned": {"a9": 1}}  # type: ignore[union-attr]
    assert store.clear() is True and WiringProgress(other).load() is None
    other.close()
    conn.close()
