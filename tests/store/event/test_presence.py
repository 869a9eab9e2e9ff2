"""Two places for one board: an uplink id heard again after another one; any garbage in between."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from store.event.presence import KEY, SHOWN_S, WINDOW_S, Uplinks, two_places_since


def _heard(uplinks: Uplinks, uplink: Any, now: float, stored: float | None = None) -> dict[str, Any]:
    return uplinks.heard("board-1", {"online": True, "uplink": uplink}, now, stored)


def test_alternating_ids_are_two_places_and_a_restart_is_not() -> None:
    uplinks = Uplinks()
    for now, uplink in enumerate(["a", "a", "b", "c"]):  # one board restarting its uplink twice
        assert KEY not in _heard(uplinks, uplink, float(now))
    status = _heard(uplinks, "b", 10.0)  # b again, after c: two uplinks at once
    assert status[KEY] == 10.0 and two_places_since(status, 10.0 + SHOWN_S) == 10.0
    assert two_places_since(status, 11.0 + SHOWN_S) is None  # shown for a while, then not


def test_an_id_heard_again_long_after_is_not_two_places() -> None:
    uplinks = Uplinks()
    _heard(uplinks, "a", 0.0)
    _heard(uplinks, "b", 1.0)
    assert KEY not in _heard(uplinks, "a", 2.0 + WINDOW_S)


def test_a_boards_own_two_places_key_is_dropped() -> None:
    status = Uplinks().heard("board-1", {"online": True, KEY: 99.0}, 100.0, None)
    assert KEY not in status


@given(
    st.lists(st.one_of(st.none(), st.integers(), st.text(max_size=80), st.binary(max_size=8)), max_size=60)
)
def test_any_ids_keep_memory_bounded_and_never_fail(ids: list[Any]) -> None:
    uplinks = Uplinks()
    for now, uplink in enumerate(ids):
        status = _heard(uplinks, uplink, float(now))
        assert status.get("uplink") == uplink
    assert all(len(seen) <= 8 for seen in uplinks._seen.values())
