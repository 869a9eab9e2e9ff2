"""The tournaments pages and API: public reading, staff forms, tablet entry, board games, CSV."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from store.db import connect
from store.journal import Journal
from store.tournaments import Tournaments
from tests.webpanel.helpers import Api, make_settings
from webpanel.config import PanelSettings


@pytest.fixture
def settings(tmp_path: Path) -> PanelSettings:
    """These tests read the pages in English (the French ones: test_tournaments_i18n.py)."""
    return make_settings(tmp_path, language="en")


def _form(api: Any, url: str, data: dict[str, Any] | None = None) -> Any:
    """Post a page form the way a browser does: the CSRF token in a form field."""
    return api.client.post(url, data={"csrf_token": api.token, **(data or {})})


def _create(staff: Any, name: str = "Open", players: int = 0, **extra: Any) -> int:
    response = _form(staff, "/tournaments", {"name": name, "seed": "7", **extra})
    assert response.status_code == 303, response.data
    tid = int(response.headers["Location"].rstrip("/").split("/")[-1])
    if players:
        names = "\n".join(f"Player {i + 1}" for i in range(players))
        assert _form(staff, f"/tournaments/{tid}/players", {"names": names}).status_code == 303
    return tid


def _store(settings: PanelSettings) -> Tournaments:
    return Tournaments(connect(settings.database))


def _finish_round(staff: Any, settings: PanelSettings, tid: int) -> None:
    """Enter every pending table by the tablet form: the last seat's lamp first, then the others in turn."""
    t = _store(settings).load(tid)
    number = len(t.rounds)
    for table in t.pending_tables():
        n = len(table.seats)
        data = {f"lit{seat}": str(n - seat) for seat in range(1, n)}  # seat 0 never lit
        data["request_id"] = f"r{number}t{table.number}"
        response = _form(staff, f"/tournaments/{tid}/rounds/{number}/tables/{table.number}", data)
        assert response.status_code == 303, response.data.decode()


def test_public_pages_and_staff_guard(app: Flask, client: FlaskClient, staff: Any) -> None:
    tid = _create(staff, "Open de Lyon", players=5)
    assert _form(staff, f"/tournaments/{tid}/rounds").status_code == 303
    visitor = app.test_client()
    for url in (
        "/tournaments",
        f"/tournaments/{tid}",
        f"/tournaments/{tid}/rounds/1",
        f"/tournaments/{tid}/players/1",
        f"/tournaments/{tid}/standings.csv",
        f"/tournaments/{tid}/games.csv",
        "/api/tournaments",
        f"/api/tournaments/{tid}",
    ):
        assert visitor.get(url).status_code == 200, url
    page = visitor.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "Open de Lyon" in page and "Make round" not in page and "Undo" not in page
    anon = Api(visitor)
    for url in (
        f"/tournaments/{tid}/rounds",
        f"/tournaments/{tid}/undo",
        f"/tournaments/{tid}/players",
        f"/tournaments/{tid}/rounds/1/tables/1",
        "/tournaments",
    ):
        response = _form(anon, url, {"name": "x"})
        assert response.status_code == 302 and "/staff/login" in response.headers["Location"], url
    assert visitor.get(f"/tournaments/{tid}/rounds/1/tables/1").status_code == 302
    assert visitor.get(f"/tournaments/{tid}/audit").status_code == 302
    assert anon.post(f"/api/tournaments/{tid}/undo").status_code == 401
    assert anon.post(f"/api/tournaments/{tid}/rounds/1/tables/1/result", {"lightings": []}).status_code == 401
    assert _store(app.config["PANEL"]).load(tid).rounds[0].number == 1  # nothing changed


def test_forms_need_the_csrf_token(client: FlaskClient, staff: Any) -> None:
    response = client.post("/tournaments", data={"name": "No token"})
    assert response.status_code == 403
    assert client.get("/tournaments").get_data(as_text=True).count("No token") == 0


def test_missing_things_are_404(client: FlaskClient, staff: Any) -> None:
    tid = _create(staff, players=4)
    for url in (
        "/tournaments/999",
        f"/tournaments/{tid}/rounds/1",
        f"/tournaments/{tid}/players/99",
        f"/tournaments/{tid}/rounds/1/tables/1",
    ):
        assert client.get(url).status_code == 404, url
    assert staff.get("/api/tournaments/999").status_code == 404
    assert staff.get("/api/tournaments/x").status_code == 404


def test_a_whole_tournament_through_the_pages(
    client: FlaskClient, staff: Any, settings: PanelSettings
) -> None:
    tid = _create(staff, players=9)
    overview = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert overview.count("Player ") >= 9 and "registration open" in overview
    for _ in range(30):
        t = _store(settings).load(tid)
        if t.is_over():
            break
        response = _form(staff, f"/tournaments/{tid}/rounds")
        assert response.status_code == 303
        number = len(_store(settings).load(tid).rounds)
        assert response.headers["Location"].endswith(f"/tournaments/{tid}/rounds/{number}")
        pairings = client.get(f"/tournaments/{tid}/rounds/{number}").get_data(as_text=True)
        assert "Table 1" in pairings and "starts" in pairings
        _finish_round(staff, settings, tid)
    t = _store(settings).load(tid)
    assert t.is_over() and t.winner() is not None
    page = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    winner = re.search(r'id="winner">([^<]+)<', page)
    assert winner and winner.group(1) == t.names[t.winner()]  # type: ignore[index]
    rows = list(
        csv.DictReader(io.StringIO(client.get(f"/tournaments/{tid}/standings.csv").get_data(as_text=True)))
    )
    assert len(rows) == 9 and rows[0]["Status"] == "winner"
    assert [int(r["Points"]) for r in rows] == sorted((int(r["Points"]) for r in rows), reverse=True)
    for row in rows:
        played = [int(row[k]) for k in row if k.startswith("Round ") and row[k] != ""]
        assert sum(played) == int(row["Points"])
    games = list(
        csv.DictReader(io.StringIO(client.get(f"/tournaments/{tid}/games.csv").get_data(as_text=True)))
    )
    assert len(games) == sum(len(x.seats) for r in t.rounds for x in r.tables)
    assert all(g["Entered from"] == "tablet" and g["Points"] != "" for g in games)
    history = client.get(f"/tournaments/{tid}/players/{t.winner()}").get_data(as_text=True)
    assert history.count("<tr>") == len(t.history(t.winner())) + 1  # type: ignore[arg-type]


def test_tablet_entry_preview_errors_double_submit_and_correction(
    client: FlaskClient, staff: Any, settings: PanelSettings
) -> None:
    tid = _create(staff, players=4)
    _form(staff, f"/tournaments/{tid}/rounds")
    url = f"/tournaments/{tid}/rounds/1/tables/1"
    page = client.get(url).get_data(as_text=True)
    assert page.count('<select name="lit') == 4
    # Preview: the engine's points, nothing written.
    preview = _form(staff, url, {"lit0": "1", "lit1": "1", "by1": "3", "lit3": "2", "action": "preview"})
    assert preview.status_code == 200
    assert re.search(
        r"Player \d+ 0, Player \d+ 0, Player \d+ 8, Player \d+ 3", preview.get_data(as_text=True)
    )
    assert _store(settings).load(tid).result(1, 1) is None
    # The form comes back as it was filled in.
    html = preview.get_data(as_text=True)
    selected = r'<select name="(\w+)"[^>]*>(?:(?!</select>).)*?value="(\d+)" selected'
    chosen = dict(re.findall(selected, html, re.S))
    assert chosen == {"lit0": "1", "lit1": "1", "lit3": "2", "by1": "3"}
    # Impossible: two lamps at once without the placer.
    bad = _form(staff, url, {"lit0": "1", "lit1": "1", "action": "save"})
    assert bad.status_code == 422 and "say who placed" in bad.get_data(as_text=True)
    bad = _form(staff, url, {"lit0": "9", "action": "save"})
    assert bad.status_code == 422
    assert _store(settings).load(tid).result(1, 1) is None
    # Saved twice with the same request id (a double tap): recorded once.
    data = {"lit2": "1", "lit1": "2", "lit0": "3", "request_id": "tap-1", "action": "save"}
    assert _form(staff, url, data).status_code == 303
    assert _form(staff, url, data).status_code == 303
    store = _store(settings)
    assert store.load(tid).result(1, 1).points == (3, 2, 0, 4)  # type: ignore[union-attr]
    assert sum(e.kind == "result" for e in store.audit(tid)) == 1
    # A correction needs the box ticked, and keeps the old value in the audit trail.
    again = _form(staff, url, {"lit3": "1", "request_id": "tap-2", "action": "save"})
    assert again.status_code == 422 and "Replace the recorded result" in again.get_data(as_text=True)
    fixed = _form(
        staff, url, {"lit3": "1", "request_id": "tap-3", "action": "save", "confirm_correction": "on"}
    )
    assert fixed.status_code == 303
    assert _store(settings).load(tid).result(1, 1).points == (4, 4, 4, 0)  # type: ignore[union-attr]
    audit = client.get(f"/tournaments/{tid}/audit").get_data(as_text=True)
    seated = [_store(settings).load(tid).names[p] for p in _store(settings).load(tid).round(1).table(1).seats]
    was = ", ".join(f"{name} {points}" for name, points in zip(seated, (3, 2, 0, 4), strict=True))
    now = ", ".join(f"{name} {points}" for name, points in zip(seated, (4, 4, 4, 0), strict=True))
    assert f"Round 1, table 1: {now} (correction; was {was})" in audit
    # Undo says what it would undo, then takes the correction back.
    ask = client.get(f"/tournaments/{tid}/undo").get_data(as_text=True)
    assert f'id="last-entry"><strong>Correction</strong> · Round 1, table 1: {now}' in ask
    assert _store(settings).load(tid).result(1, 1).points == (4, 4, 4, 0)  # type: ignore[union-attr]
    assert _form(staff, f"/tournaments/{tid}/undo").status_code == 303
    assert _store(settings).load(tid).result(1, 1).points == (3, 2, 0, 4)  # type: ignore[union-attr]
    audit = client.get(f"/tournaments/{tid}/audit").get_data(as_text=True)
    assert 'class="undone"' in audit


def test_refused_actions_are_flashed(client: FlaskClient, staff: Any, settings: PanelSettings) -> None:
    tid = _create(staff, players=3)
    response = _form(staff, f"/tournaments/{tid}/rounds")
    assert response.status_code == 303
    page = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "at least 4 players" in page
    _form(staff, f"/tournaments/{tid}/players", {"names": "Player 1"})
    assert "already registered" in client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert len(_store(settings).load(tid).names) == 3
    bad = _form(staff, "/tournaments", {"name": "   "})
    assert bad.status_code == 303 and "needs a name" in client.get("/tournaments").get_data(as_text=True)


def test_withdraw_from_the_page(client: FlaskClient, staff: Any, settings: PanelSettings) -> None:
    tid = _create(staff, players=6)
    _form(staff, f"/tournaments/{tid}/rounds")
    assert _form(staff, f"/tournaments/{tid}/players/2/withdraw").status_code == 303
    _finish_round(staff, settings, tid)
    _form(staff, f"/tournaments/{tid}/rounds")
    t = _store(settings).load(tid)
    assert 2 not in t.round(2).players()
    assert "withdrawn" in client.get(f"/tournaments/{tid}").get_data(as_text=True)


def test_result_from_a_board_game(client: FlaskClient, staff: Any, settings: PanelSettings) -> None:
    tid = _create(staff, players=4)
    _form(staff, f"/tournaments/{tid}/rounds")
    t = _store(settings).load(tid)
    names = [t.names[p] for p in t.round(1).table(1).seats]
    journal = Journal(connect(settings.database))
    # As the board service writes it (docs/board-service.md): placements, then "game-end".
    board_seats = [names[1], names[0], names[2], names[3]]
    for move, (player, out) in enumerate([(0, [3]), (1, [2]), (3, [1])], start=1):
        journal.append(
            "placement",
            {
                "game": 5,
                "slot": "a1",
                "player": player,
                "move": move,
                "lit": [],
                "eliminated": out,
                "to_move": 0,
            },
            {"kind": "attack"},
            game_id=5,
        )
    journal.append(
        "game-end",
        {"game": 5, "status": "over", "players": board_seats, "moves": 30, "points": [4, 3, 2, 0]},
        game_id=5,
    )
    journal.append(
        "game-end", {"game": 6, "status": "over", "players": ["X", "Y", "Z", "W"], "points": [4, 0, 2, 3]}
    )
    url = f"/tournaments/{tid}/rounds/1/tables/1"
    page = client.get(url).get_data(as_text=True)
    assert "#5" in page and "Use this game" in page
    # The game of this table's players comes first, marked, although game 6 ended later.
    assert page.index("#5") < page.index("#6")
    assert re.search(r'<tr class="match">\s*<td[^>]*>#5</td>', page)
    assert not re.search(r'<tr class="match">\s*<td[^>]*>#6</td>', page)
    response = _form(staff, url + "/board", {"game_id": "5", "request_id": "b-5"})
    assert response.status_code == 303
    result = _store(settings).load(tid).result(1, 1)
    assert result is not None and result.points == (3, 4, 2, 0) and result.source["game_id"] == 5
    assert "From board game 5" in client.get(url).get_data(as_text=True)
    # Attaching again without ticking "replace" is refused.
    _form(staff, url + "/board", {"game_id": "5"})
    assert "Replace the recorded result" in client.get(url).get_data(as_text=True)
    _form(staff, url + "/board", {"game_id": "nope", "confirm_correction": "on"})
    assert "Choose a board game from the list" in client.get(url).get_data(as_text=True)
    assert _store(settings).load(tid).result(1, 1).points == (3, 4, 2, 0)  # type: ignore[union-attr]


def test_json_api(client: FlaskClient, staff: Any, settings: PanelSettings) -> None:
    tid = _create(staff, "API cup", players=4)
    _form(staff, f"/tournaments/{tid}/rounds")
    url = f"/api/tournaments/{tid}/rounds/1/tables/1/result"
    body = staff.get(f"/api/tournaments/{tid}").get_json()
    assert body["name"] == "API cup" and len(body["standings"]) == 4 and body["pending_tables"] == [1]
    assert body["round_details"][0]["tables"][0]["first"] in (1, 2, 3, 4)
    assert body["settings"]["seed"] == "7"
    public = Api(client.application.test_client()).get(f"/api/tournaments/{tid}").get_json()
    assert "seed" not in public["settings"] and public["standings"] == body["standings"]
    listed = staff.get("/api/tournaments").get_json()["tournaments"]
    assert [x["id"] for x in listed] == [tid]
    assert staff.post(url, {"lightings": "x"}).status_code == 400
    assert staff.post(url, {"lightings": [], "extra": 1}).status_code == 400
    assert staff.post(url, {"lightings": [], "correction": "yes"}).status_code == 400
    assert staff.post(url, {"lightings": [{"seats": [0, 1]}]}).status_code == 422
    assert (
        staff.post(f"/api/tournaments/{tid}/rounds/1/tables/2/result", {"lightings": []}).status_code == 404
    )
    assert (
        staff.post(f"/api/tournaments/{tid}/rounds/9/tables/1/result", {"lightings": []}).status_code == 404
    )
    assert staff.post(url, {"lightings": [], "correction": True}).status_code == 409
    first = staff.post(url, {"lightings": [{"seats": [0]}, {"seats": [1, 2], "by": 3}], "request_id": "q1"})
    assert first.status_code == 201 and first.get_json()["points"] == [0, 2, 2, 8]
    repeat = staff.post(url, {"lightings": [{"seats": [0]}], "request_id": "q1"})
    assert repeat.status_code == 200 and repeat.get_json()["duplicate"] is True
    assert staff.post(url, {"lightings": [{"seats": [3]}]}).status_code == 409
    fixed = staff.post(url, {"lightings": [{"seats": [3]}], "correction": True})
    assert fixed.status_code == 201 and fixed.get_json()["points"] == [4, 4, 4, 0]
    no_token = client.post(url, json={"lightings": []})
    assert no_token.status_code == 403
    undo = staff.post(f"/api/tournaments/{tid}/undo")
    assert undo.status_code == 200 and "correction" in undo.get_json()["summary"]
    assert _store(settings).load(tid).result(1, 1).points == (0, 2, 2, 8)  # type: ignore[union-attr]
    empty = _create(staff, "Empty")
    assert staff.post(f"/api/tournaments/{empty}/undo").status_code == 409
    assert "Nothing to undo" in client.get(f"/tournaments/{empty}/undo").get_data(as_text=True)


def test_wall_display_and_print_styles(client: FlaskClient, staff: Any) -> None:
    tid = _create(staff, players=4)
    kiosk = client.get(f"/tournaments/{tid}?kiosk=1").get_data(as_text=True)
    assert f'data-next="/tournaments/{tid}?kiosk=1"' in kiosk and "Make round" not in kiosk
    with client.get("/tournaments/static/tournaments.css") as response:
        assert "@media print" in response.get_data(as_text=True)


def test_csv_cells_cannot_run_as_formulas(client: FlaskClient, staff: Any) -> None:
    tid = _create(staff)
    _form(staff, f"/tournaments/{tid}/players", {"names": "=HYPERLINK(1)\nBob\nCid\nDan"})
    _form(staff, f"/tournaments/{tid}/rounds")
    for name in ("standings", "games"):
        response = client.get(f"/tournaments/{tid}/{name}.csv")
        assert response.mimetype == "text/csv" and "attachment" in response.headers["Content-Disposition"]
        text = response.get_data(as_text=True)
        assert "'=HYPERLINK(1)" in text and ",=HYPERLINK" not in text


def test_start_a_table_on_the_board(
    client: FlaskClient, staff: Any, settings: PanelSettings, service: Any
) -> None:
    tid = _create(staff, players=4, handicap="on")
    _form(staff, f"/tournaments/{tid}/rounds")
    _finish_round(staff, settings, tid)
    _form(staff, f"/tournaments/{tid}/rounds")
    t = _store(settings).load(tid)
    table = t.round(2).table(1)
    url = f"/tournaments/{tid}/rounds/2/tables/1"
    assert "Start this game on the board" in client.get(url).get_data(as_text=True)
    assert _form(staff, url + "/start").status_code == 303
    assert "started on the board (game 1)" in client.get(url).get_data(as_text=True)
    payload = service.handled[-1].payload
    assert [p["name"] for p in payload["players"]] == [t.names[p] for p in table.seats]
    assert payload["first"] == table.first
    assert payload.get("handicap", {}) == dict(table.handicap) and table.handicap
    # A second start while that game runs is refused with a reason.
    _form(staff, url + "/start")
    page = client.get(url).get_data(as_text=True)
    assert "a game is running" in page.lower(), re.findall(r'class="msg[^"]*"[^>]*>([^<]*)<', page)
    assert _form(staff, f"/tournaments/{tid}/rounds/2/tables/9/start").status_code == 404


def test_start_on_board_without_the_service(client: FlaskClient, staff: Any) -> None:
    tid = _create(staff, players=4)
    _form(staff, f"/tournaments/{tid}/rounds")
    url = f"/tournaments/{tid}/rounds/1/tables/1"
    assert _form(staff, url + "/start").status_code == 303
    assert "board service is not responding" in client.get(url).get_data(as_text=True).lower()


def test_the_pairing_sheet_says_who_carries_the_handicap_and_why(
    client: FlaskClient, staff: Any, settings: PanelSettings
) -> None:
    tid = _create(staff, "Handicap cup", players=4, handicap="on")
    _form(staff, f"/tournaments/{tid}/rounds")
    # One pawn of seat 1 lit seats 3 and 4 together, then the board filled: 8, 4, 0, 0.
    url = f"/api/tournaments/{tid}/rounds/1/tables/1/result"
    lit = staff.post(url, {"lightings": [{"seats": [2, 3], "by": 0}]})
    assert lit.get_json()["points"] == [8, 4, 0, 0]
    _form(staff, f"/tournaments/{tid}/rounds")
    t = _store(settings).load(tid)
    table = t.round(2).table(1)
    totals = t.total_points()
    best = next(p for p in table.seats if totals[p] == 8)
    second = next(p for p in table.seats if totals[p] == 4)
    lamp = table.lamps[table.seat_of(best)]
    page = client.get(f"/tournaments/{tid}/rounds/2").get_data(as_text=True)
    assert (
        f"Handicap: {t.names[best]} (lamp {lamp}) carries 1 attack pawn on their lamp’s direct rows:"
        f" the best player at this table, 4 points ahead of {t.names[second]}, the next best"
    ) in page
    body = client.get(f"/api/tournaments/{tid}").get_json()
    shown = body["round_details"][1]["tables"][0]
    assert shown["handicap"] == {lamp: 1} and shown["handicap_note"].startswith(f"Handicap: {t.names[best]}")


def test_the_standings_say_when_and_why_each_player_went_out(
    client: FlaskClient, staff: Any, settings: PanelSettings
) -> None:
    tid = _create(staff, "Reasons cup", players=8)
    _form(staff, f"/tournaments/{tid}/rounds")
    _finish_round(staff, settings, tid)
    _form(staff, f"/tournaments/{tid}/rounds")
    # Table 1: seat 1's pawn lights its own lamp with seats 2 and 3 (0 + 4 points): all three are out.
    url = f"/api/tournaments/{tid}/rounds/2/tables/1/result"
    staff.post(url, {"lightings": [{"seats": [0, 1, 2], "by": 0}]})
    _finish_round(staff, settings, tid)
    _form(staff, f"/tournaments/{tid}/rounds")
    t = _store(settings).load(tid)
    bonus = t.round(2).table(1).seats[0]
    assert t.points_in(2, bonus) == 4
    page = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    row = re.search(rf">{t.names[bonus]}</a>.*?</tr>", page, re.S)
    assert row and "Out in round 2: lamp lit first at table 1" in row.group(0)
    body = client.get(f"/api/tournaments/{tid}").get_json()
    line = next(s for s in body["standings"] if s["player"] == bonus)
    assert (line["status"], line["out_in_round"], line["out_at_table"]) == ("out", 2, 1)
    text = client.get(f"/tournaments/{tid}/standings.csv").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    out = [r for r in rows if r["Status"] == "out"]
    assert len(out) == 4
    assert all(r["Why"].startswith("Out in round 2: lamp lit first at table ") for r in out)
