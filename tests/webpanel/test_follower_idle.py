"""The board follower costs nothing while no page follows the board, one read per change while one does."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from store.db import connect
from store.journal import Journal, JournalEntry, JournalKind
from tests.webpanel.helpers import make_settings
from webpanel.stream import BoardFollower


def _board_written(database: Path) -> Journal:
    journal = Journal(connect(database))
    journal.append_many([JournalEntry(JournalKind.SERVICE_START, {"pid": 1})], state_public={"pawns": {}},
                        state_private={})
    return journal


def _follower_threads(follower: BoardFollower) -> list[threading.Thread]:
    """*follower*'s reader threads (another test's panel may still be ending its own)."""
    return [t for t in threading.enumerate()
            if t.name == "board-follower" and getattr(getattr(t, "_target", None), "__self__", None)
            is follower]


def test_no_page_open_means_no_reader_thread_and_no_read(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, poll_interval=0.01, heartbeat_seconds=30.0)
    _board_written(settings.database)
    follower = BoardFollower(settings)
    try:
        time.sleep(0.2)  # twenty poll intervals
        assert (follower.polls, follower.runs, _follower_threads(follower)) == (0, 0, [])
    finally:
        follower.close()


def test_an_open_page_reads_once_per_change_and_the_last_page_ends_the_reader(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, poll_interval=0.01, heartbeat_seconds=30.0)
    journal = _board_written(settings.database)
    follower = BoardFollower(settings)
    try:
        assert follower.try_open_stream()
        first = follower.latest()
        assert first is not None and follower.runs == 1
        reads = follower.polls
        time.sleep(0.3)  # thirty poll intervals, and nothing written: the reader sleeps
        assert follower.polls == reads
        journal.append_many([JournalEntry(JournalKind.LAMPS, {"lit": ["N"]})], state_public={"pawns": {}},
                            state_private={})
        newer = follower.wait_newer(first.version, timeout=10)
        assert newer is not None and newer.journal_id > first.journal_id
        assert follower.polls <= reads + 3  # the commit's few writes, not thirty polls
        follower.close_stream()
        for thread in _follower_threads(follower):
            thread.join(timeout=10)
        assert _follower_threads(follower) == []
        # The next page starts a reader again, which finds the board as it is now.
        assert follower.try_open_stream()
        again = follower.latest()
        assert again is not None and follower.runs == 2
        follower.close_stream()
    finally:
        follower.close()
        journal.conn.close()


def test_a_page_opened_after_a_quiet_while_starts_from_the_board_as_it_is_now(tmp_path: Path) -> None:
    """What the board did while nobody followed it is what the next page is shown first, never the
    snapshot the last reader left behind."""
    settings = make_settings(tmp_path, poll_interval=0.01, heartbeat_seconds=30.0)
    journal = _board_written(settings.database)
    follower = BoardFollower(settings)
    try:
        assert follower.try_open_stream()
        before = follower.latest()
        assert before is not None
        follower.close_stream()
        for thread in _follower_threads(follower):
            thread.join(timeout=10)
        journal.append_many([JournalEntry(JournalKind.LAMPS, {"lit": ["S"]})], state_public={"pawns": {}},
                            state_private={})
        assert follower.try_open_stream()
        now = follower.latest(timeout=10)
        assert now is not None and now.journal_id > before.journal_id
        follower.close_stream()
    finally:
        follower.close()
        journal.conn.close()
