"""Secrecy: during a game nothing public tells an attack pawn from a defense pawn.

Two identical games are played side by side, each with its own panel and
service; they differ only in the kind of the last pawn, placed in the same
slot. Every public answer (the placement's response, GET /api/board, the
layout, the SSE event a live page receives) must be byte-for-byte the same,
unless the pawn lights a lamp, which the players see on the table anyway.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games.hautetension.layout import load_layout
from tests.webpanel.helpers import (
    Api,
    FakeService,
    a_possible_dark_last_pawn,
    make_settings,
    start_game,
    wait_for,
)
from webpanel.app import close_app, create_app
from webpanel.board import BoardStream
from webpanel.hub import hub_of

LAYOUT = load_layout("pinwheel-80")
KINDS = ("attack", "defense")


def untimed(text: str) -> str:
    """A replay or record without its clock times (two games are never played in the same second)."""
    text = re.sub(r'"(seconds|started_at)":[0-9.]+', r'"\1":0', text)
    text = re.sub(r'\[(Date|UTCTime|CheckTime) "[^"]*"\]', "", text)
    return re.sub(r"^(\d+\. |! )[0-9.]+", r"\1T", text, flags=re.MULTILINE)


def _event_text(app: Any, journal_id: int) -> str:
    follower = app.extensions["board_follower"]
    assert follower.try_open_stream()  # the follower reads the board while a stream is open
    wait_for(lambda: (snap := follower.latest()) is not None and snap.journal_id == journal_id)
    stream = BoardStream(follower, hub_of(app.extensions), last_event_id=None)
    events = stream._events()
    try:
        return "".join(next(events) for _ in range(3))  # retry hint, board, service
    finally:
        events.close()
        stream.close()


def _play(tmp: Path, prior: list[tuple[str, str]], final: tuple[str, str]) -> list[Any]:
    """Play *prior* then *final* and return everything public the panel said along the way."""
    settings_ = make_settings(tmp)
    fake = FakeService(settings_.database).start()
    app = create_app({"PANEL": settings_, "TESTING": True, "SECRET_KEY": "k" * 32})
    seen: list[Any] = []
    try:
        staff = Api(app.test_client())
        staff.login()
        start_game(staff)
        player = Api(app.test_client())
        for slot, kind in [*prior, final]:
            response = player.post(f"/api/sim/slots/{slot}", {"pawn": kind})
            seen.append((response.status_code, response.content_type, response.get_data(as_text=True)))
        board = player.get("/api/board")
        seen.append((board.status_code, board.get_data(as_text=True)))
        seen.append(player.get("/api/layout").get_data(as_text=True))
        seen.append(_event_text(app, board.get_json()["id"]))
        # The staff pages of a running game must not give it away either.
        seen.append(staff.get("/api/staff/slots").get_data(as_text=True))
        journal = staff.get("/api/staff/journal").get_json()
        seen.append([(e["kind"], e["public"]) for e in journal["entries"] if e["kind"] != "service-start"])
        # Nor the replay staff follow during the game, nor, once it ends, the public replay and record.
        seen.append(untimed(staff.get("/api/replay/board/1").get_data(as_text=True)))
        staff.post("/api/staff/game/abandon")
        seen.append(untimed(player.get("/api/replay/board/1").get_data(as_text=True)))
        seen.append(untimed(player.get("/replay/board/1/record.htn").get_data(as_text=True)))
    finally:
        fake.stop()
        close_app(app)
    return seen


placements = st.lists(
    st.tuples(st.sampled_from(LAYOUT.slots), st.sampled_from(KINDS)), max_size=8, unique_by=lambda p: p[0]
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prior=placements, final_slot=st.sampled_from(LAYOUT.slots))
def test_no_public_answer_differs_between_attack_and_defense(
    prior: list[tuple[str, str]], final_slot: str
) -> None:
    # A real hand holds at most 3 defense pawns; the game is on before the last pawn, which lights nothing.
    assume(a_possible_dark_last_pawn(LAYOUT, prior, final_slot))
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as d:
        with_attack = _play(Path(a), prior, (final_slot, "attack"))
        with_defense = _play(Path(d), prior, (final_slot, "defense"))
    assert with_attack[-9][0] == 200  # the last placement was taken in both games
    assert with_attack == with_defense


def test_a_lamp_lighting_is_the_only_visible_difference(tmp_path: Path) -> None:
    """The comparison above can fail: the last pawn of a closed row lights its lamp."""
    column_f = ["f9", "f8", "f7", "f6"]
    prior = [(slot, "attack") for slot in column_f]
    lit = _play(tmp_path / "a", prior, ("f5", "attack"))
    dark = _play(tmp_path / "d", prior, ("f5", "defense"))
    assert lit != dark
    assert '"lit":["N"]' in lit[-8][1] and '"lit":["N"]' not in dark[-8][1]
    assert '"steps"' in lit[-3] and '"steps"' in lit[-2] and lit[-1].startswith("; Haute-Tension game record")
    assert "5. T P1 f5 lit N" in lit[-1] and "5. T P1 f5 ;" in dark[-1]  # the replay shows the lamp too
