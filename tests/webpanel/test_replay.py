"""The replay: a board game played on the real board service (in-process, simulated board), then
its record, timeline, reveal by consent and analysis through the panel; a lobby game's too."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from games.hautetension import load_layout
from games.hautetension.record import read_record
from store.commands import CommandKind
from tests.hardware.helpers import Rig
from tests.webpanel.helpers import Api, Lobby
from tests.webpanel.test_secrecy import untimed
from webpanel.app import create_app

ANA = ["f9", "f8", "f7", "f6", "f5"]
"""Ana's straight row to her own lamp N: her fifth pawn lights it and puts her out."""
BEN = ["a1", "i1", "a3", "i3"]
BLUFF = ("defense", "defense", "defense", "attack")
"""Ben's pawns: his three defense pawns, then an attack pawn."""
PINWHEEL = load_layout("pinwheel-80")


def play(rig: Rig, ben: tuple[str, ...] = BLUFF) -> None:
    rig.new_game(pregame_check="ask")
    rig.hold_button()
    rig.command(CommandKind.PREGAME_CHECK, {"action": "confirm", "not_lit": []})
    for i, slot in enumerate(ANA):
        rig.place(slot)
        if i == 1:  # Ana lifts her pawn and puts it back: an anomaly, then the game goes on
            rig.lift(slot)
            rig.place(slot)
        if i < len(BEN):
            rig.place(BEN[i], ben[i])


@pytest.fixture
def board(settings: Any, tmp_path: Path) -> Iterator[Rig]:
    rig = Rig(tmp_path, database=settings.database)
    yield rig
    rig.close()


@pytest.fixture
def public(app: Flask) -> Api:
    return Api(app.test_client())


def replay_of(api: Api, game: str = "board/1") -> dict[str, Any]:
    response = api.get(f"/api/replay/{game}")
    assert response.status_code == 200, response.get_json()
    data: dict[str, Any] = response.get_json()
    return data


def test_a_running_game_is_replayed_for_staff_only(board: Rig, staff: Api, public: Api) -> None:
    board.new_game()
    board.place("f9")
    assert public.get("/api/replay/board/1").status_code == 403
    assert public.get("/replay/board/1/record.htn").status_code == 403
    assert public.get("/replay/board/1").status_code == 403
    steps = replay_of(staff)["steps"]
    assert [s["kind"] for s in steps] == ["start", "move"] and steps[1]["pawns"] == {"f9": {"owner": 0}}
    assert staff.post("/api/replay/board/1/reveal", {"seat": 0}).status_code == 409  # not before the end
    assert public.get("/replay").status_code == 200 and "board/1" not in public.get("/replay").get_data(True)
    assert "/replay/board/1" in staff.get("/replay").get_data(True)


def test_the_public_replay_shows_what_everyone_saw_step_by_step(board: Rig, public: Api) -> None:
    play(board)
    replay = replay_of(public)
    assert replay["status"] == "over" and replay["result"]["winners"] == [1]
    assert replay["check"]["result"] == "passed" and replay["revealed"] is False
    kinds = [s["kind"] for s in replay["steps"]]
    assert kinds[:4] == ["start", "move", "move", "move"] and "anomaly" in kinds and "resumed" in kinds
    last = replay["steps"][-1]
    assert last["lamps"] == ["N"] and last["eliminated"] == [0] and last["out"] == [0]
    assert last["pawns"] == {slot: {"owner": 0 if slot in ANA else 1} for slot in sorted(ANA + BEN)}
    anomaly = replay["steps"][kinds.index("anomaly")]
    assert anomaly["what"] == "lifted" and anomaly["anomalies"] == [ANA[1]]
    assert all(s["seconds"] is not None and s["seconds"] >= 0 for s in replay["steps"][1:])
    assert public.get("/replay/board/1").status_code == 200
    assert "/replay/board/1" in public.get("/replay").get_data(True)


def test_the_public_replay_and_record_tell_no_pawn_kind(settings: Any, tmp_path: Path, app: Flask) -> None:
    seen = []
    for name, ben in (("bluff", BLUFF), ("other", ("attack", "defense", "defense", "defense"))):
        (tmp_path / name).mkdir()
        rig = Rig(tmp_path / name, database=tmp_path / f"{name}.db")
        try:
            play(rig, ben)
        finally:
            rig.close()
        api = Api(make_app(dataclasses.replace(settings, database=tmp_path / f"{name}.db")).test_client())
        body = api.get("/api/replay/board/1").get_data(True)
        record = api.get("/replay/board/1/record.htn").get_data(True)
        assert '"steps"' in body and record.startswith("; Haute-Tension game record")
        seen.append((untimed(body), untimed(record)))
    assert seen[0] == seen[1]


def make_app(settings: Any) -> Flask:
    return create_app({"TESTING": True, "PANEL": settings})


def test_the_record_downloads_and_reads_back_against_the_rules(board: Rig, public: Api) -> None:
    play(board)
    response = public.get("/replay/board/1/record.htn")
    assert response.status_code == 200 and response.mimetype == "text/plain"
    assert 'filename="haute-tension-board-1.htn"' in response.headers["Content-Disposition"]
    record = read_record(response.get_data(True), layout=PINWHEEL)
    in_turn = [slot for pair in zip(ANA, [*BEN, ""], strict=True) for slot in pair if slot]
    assert [m.slot for m in record.moves] == in_turn
    assert record.check is not None and record.check.result.value == "passed"
    assert record.board == "sim" and record.reveal is None and "defense" not in response.get_data(True)


@pytest.fixture
def phone(app: Flask) -> Api:
    """A player's phone on the hall's network (not the board's display, which browses from the Pi)."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    return Api(client)


def test_the_reveal_needs_every_player_and_then_shows_kinds_rows_and_why(board: Rig, staff: Api,
                                                                          public: Api, phone: Api) -> None:
    play(board)
    refused = phone.post("/api/replay/board/1/reveal", {"seat": 1})
    assert refused.status_code == 403 and "their own pawns" in refused.get_json()["error"]
    assert replay_of(phone)["reveal"]["may_consent"] == []
    assert replay_of(phone)["reveal"]["where"] == "board-display"  # the page says where to go
    assert staff.post("/api/replay/board/1/reveal", {"seat": 5}).status_code == 400
    assert staff.post("/api/replay/board/1/reveal", {"seat": True}).status_code == 400
    first = staff.post("/api/replay/board/1/reveal", {"seat": 1})
    assert first.status_code == 200 and first.get_json() == {"ok": True, "consented": [1], "revealed": False}
    half = replay_of(public)
    assert half["revealed"] is False and "kinds" not in json.dumps(half["steps"])
    assert "defense" not in json.dumps(half) and half["reveal"]["consented"] == [1]
    assert public.get("/api/replay/board/1/analysis?step=1").status_code == 409
    assert staff.post("/api/replay/board/1/reveal", {"seat": 0}).get_json()["revealed"] is True
    full = replay_of(public)
    last = full["steps"][-1]
    assert full["revealed"] is True and last["kinds"] == {**dict.fromkeys(ANA, "attack"),
                                                         **dict(zip(BEN, BLUFF, strict=True))}
    assert last["why_lit"]["N"] == last["closed_rows"] and len(last["closed_rows"]) == 1
    text = public.get("/replay/board/1/record.htn").get_data(True)
    revealed = read_record(text, layout=PINWHEEL)  # the kinds light exactly the recorded lamps
    assert revealed.reveal is not None and revealed.reveal.defense == ((), tuple(BEN[:3]))


def test_at_the_boards_display_each_player_consents_for_their_own_seat(board: Rig, public: Api,
                                                                       phone: Api) -> None:
    """The display beside the board (the Pi's own browser, no staff session): the players in front of it
    each tap their name and confirm; still nothing is shown before every player has."""
    play(board)
    at_display = replay_of(public)["reveal"]
    assert at_display["may_consent"] == [0, 1] and at_display["consented"] == []
    assert public.post("/api/replay/board/1/reveal", {"seat": 1}).get_json() == {
        "ok": True, "consented": [1], "revealed": False}
    half = replay_of(phone)
    assert half["revealed"] is False and "defense" not in json.dumps(half)
    assert replay_of(public)["reveal"]["may_consent"] == [0]
    assert phone.post("/api/replay/board/1/reveal", {"seat": 0}).status_code == 403  # not from a phone
    assert public.post("/api/replay/board/1/reveal", {"seat": 0}).get_json()["revealed"] is True
    assert replay_of(phone)["revealed"] is True


def test_the_analysis_of_a_revealed_move(board: Rig, staff: Api, public: Api) -> None:
    play(board)
    for seat in (0, 1):
        staff.post("/api/replay/board/1/reveal", {"seat": seat})
    response = public.get("/api/replay/board/1/analysis?step=0")
    assert response.status_code == 200, response.get_json()
    analysis = response.get_json()
    assert analysis["move"] == 1 and analysis["player"] == 0
    assert analysis["played"]["slot"] == "f9" and analysis["played"]["pawn"] == "attack"
    assert 0 <= analysis["best"]["chances"] <= 1 and analysis["best"]["playouts"] > 0
    assert analysis["change"] == round(analysis["played"]["chances"] - analysis["best"]["chances"], 3)
    assert public.get("/api/replay/board/1/analysis?step=0").get_json() == analysis  # seeded: the same
    assert public.get("/api/replay/board/1/analysis?step=x").status_code == 400
    assert public.get("/api/replay/board/1/analysis?step=999").status_code == 404


def test_unknown_games_are_404(public: Api, board: Rig) -> None:
    assert public.get("/api/replay/board/9").status_code == 404
    assert public.get("/api/replay/moon/1").status_code == 404
    assert public.get("/api/replay/lobby/9").status_code == 404


def test_a_lobby_game_is_replayed_and_revealed_by_each_players_device(app: Flask) -> None:
    display = Lobby(app, "hautetension")
    game = display.create([{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Ben"}],
                          options={"first": 0})
    gid = game["id"]
    tablets = []
    for seat in game["seats"]:
        tablet = Lobby(app, "hautetension")
        assert tablet.join(gid, seat["join_code"]).status_code == 200
        tablets.append(tablet)
    ana, ben = tablets
    assert ana.get(f"/api/replay/lobby/{gid}").status_code == 403  # running: staff only
    for i, slot in enumerate(ANA):
        assert ana.move(gid, {"slot": slot, "pawn": "attack"}).status_code == 200
        if i < len(BEN):
            assert ben.move(gid, {"slot": BEN[i], "pawn": BLUFF[i]}).status_code == 200
    replay = ana.fetch(f"/api/replay/lobby/{gid}")
    assert replay["status"] == "over" and replay["check"] is None and replay["reveal"]["may_consent"] == [0]
    assert display.fetch(f"/api/replay/lobby/{gid}")["reveal"]["may_consent"] == []
    assert ana.post(f"/api/replay/lobby/{gid}/reveal", {"seat": 1}).status_code == 403  # not Ana's seat
    assert ana.post(f"/api/replay/lobby/{gid}/reveal", {"seat": 0}).get_json()["revealed"] is False
    assert ben.post(f"/api/replay/lobby/{gid}/reveal", {"seat": 1}).get_json()["revealed"] is True
    assert f"/replay/lobby/{gid}" in display.get(f"/games/{gid}").get_data(True)  # the game page links to it
    text = display.get(f"/replay/lobby/{gid}/record.htn").get_data(True)
    record = read_record(text, layout=PINWHEEL)
    assert record.board == "digital" and record.reveal is not None
    assert record.reveal.defense[1] == tuple(BEN[:3])
    assert [m.tenths for m in record.moves] == [None] * len(record.moves)  # the lobby keeps no move times
