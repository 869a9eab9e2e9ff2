"""The ranking's JSON API and CSV, and the registry's API: answers, refusals, staff only."""

from __future__ import annotations

import csv
import io
import sqlite3

from store.players import Players
from store.ranking import Ranking
from store.tournaments import Tournaments
from tests.webpanel.helpers import Api


def test_the_ranking_is_the_stores_count(
    visitor: Api, conn: sqlite3.Connection, season: dict[str, int]
) -> None:
    answer = visitor.client.get("/api/ranking").get_json()
    expected = Ranking(conn, visitor.client.application.config["EVENT"].ranking).season()
    assert [
        (r["player"]["id"], r["games"], r["points"], r["place"], r["ranked"]) for r in answer["ranking"]
    ] == [(line.player, line.games, line.points, line.place, line.is_ranked) for line in expected.lines]
    assert answer["rules"]["min_games"] == 3
    first = answer["ranking"][0]
    assert first["best"][0]["name"] == "Printemps" and first["best"][0]["field"] == 5
    assert {r["player"]["name"] for r in answer["ranking"]} == set(season)


def test_the_csv_has_a_line_per_player_and_no_formula(
    visitor: Api, conn: sqlite3.Connection, season: dict[str, int]
) -> None:
    Players(conn).edit(season["Ben"], club="=HYPERLINK(1)", actor="staff@test")
    response = visitor.client.get("/ranking.csv")
    assert response.mimetype == "text/csv" and "attachment" in response.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert len(rows) == 5 and {r["name"] for r in rows} == set(season)
    assert next(r for r in rows if r["name"] == "Ben")["club"] == "'=HYPERLINK(1)"
    for row in rows:
        assert float(row["per_game"]) == round(int(row["points"]) / int(row["games"]), 3)


def test_a_players_games_and_a_merged_id_answers_for_the_player_kept(
    visitor: Api, staff: Api, season: dict[str, int]
) -> None:
    answer = visitor.client.get(f"/api/ranking/players/{season['Ana']}").get_json()
    assert answer["player"]["club"] == "Club de Brest"
    assert answer["line"]["games"] == len(answer["games"]) and all(g["counts"] for g in answer["games"])
    dup = staff.post("/api/players", {"name": "Ana B."}).get_json()["id"]
    assert staff.post(f"/api/players/{dup}/merge", {"into": season["Ana"]}).status_code == 200
    assert visitor.client.get(f"/api/ranking/players/{dup}").get_json()["player"]["id"] == season["Ana"]
    assert visitor.client.get("/api/ranking/players/999").status_code == 404
    assert visitor.client.get("/api/ranking/players/x").status_code == 404


def test_the_handicap_for_a_table(visitor: Api, season: dict[str, int]) -> None:
    ids = [season[n] for n in ("Ana", "Ben", "Chloé")]
    answer = visitor.client.get(f"/api/ranking/handicap?players={','.join(map(str, ids))}").get_json()
    assert [p["player"]["id"] for p in answer["players"]] == ids
    assert {p["player"]["id"] for p in answer["players"] if p["pawns"]} == set(answer["carriers"])
    for bad in ("", "1", "1,2,3,4,5", "1,x", "1,1"):
        assert visitor.client.get(f"/api/ranking/handicap?players={bad}").status_code == 400, bad
    assert visitor.client.get("/api/ranking/handicap?players=1,999").status_code == 404


def test_the_registry_is_public_to_read_and_staff_only_to_change(visitor: Api, staff: Api) -> None:
    assert visitor.post("/api/players", {"name": "Zoé"}).status_code == 401
    created = staff.post("/api/players", {"name": "Zoé", "city": "Lyon"})
    assert created.status_code == 201
    pid = created.get_json()["id"]
    assert visitor.client.get("/api/players").get_json() == [created.get_json()]
    assert visitor.client.get(f"/api/players/{pid}").get_json()["city"] == "Lyon"
    assert visitor.post(f"/api/players/{pid}", {"club": "X"}).status_code == 401
    assert staff.post(f"/api/players/{pid}", {"club": "Tension"}).get_json()["club"] == "Tension"
    assert visitor.client.get("/api/players/audit").status_code == 401
    audit = staff.client.get(f"/api/players/audit?player={pid}").get_json()
    assert [a["kind"] for a in audit] == ["create", "edit"] and audit[1]["before"]["club"] == ""


def test_registry_refusals_say_why_and_change_nothing(staff: Api) -> None:
    staff.post("/api/players", {"name": "Zoé"})
    cases = [
        ("/api/players", {"name": "Zoé"}, 422, "already registered"),
        ("/api/players", {"name": ""}, 422, "needs a name"),
        ("/api/players", {"club": "x"}, 400, "missing"),
        ("/api/players", {"name": "A", "age": 3}, 400, "unknown"),
        ("/api/players/1", {"name": "y" * 30}, 422, "at most 24"),
        ("/api/players/99", {"name": "Y"}, 404, "no registered player"),
        ("/api/players/1/merge", {"into": 1}, 422, "itself"),
        ("/api/players/1/merge", {"into": "2"}, 400, "into"),
        ("/api/players/1/merge", {"into": 42}, 404, "no registered player"),
    ]
    for url, body, status, words in cases:
        response = staff.post(url, body)
        assert response.status_code == status, (url, body, response.get_json())
        assert words in response.get_json()["error"]
    assert [p["name"] for p in staff.client.get("/api/players").get_json()] == ["Zoé"]


def test_entering_and_linking_players_of_a_tournament(staff: Api, conn: sqlite3.Connection) -> None:
    tid = Tournaments(conn).create("Été", seed=1).id
    ana = staff.post("/api/players", {"name": "Ana"}).get_json()["id"]
    url = f"/api/event/tournaments/{tid}/players"
    first = staff.post(url, {"player": ana, "request_id": "form-1"})
    assert first.status_code == 201 and first.get_json()["number"] == 1
    again = staff.post(url, {"player": ana, "request_id": "form-1"})
    assert again.status_code == 200 and again.get_json()["duplicate"] is True
    assert staff.post(url, {"player": ana}).status_code == 409  # already in it by that name
    assert staff.post(url, {"player": 77}).status_code == 404
    assert staff.post(url, {"player": "1"}).status_code == 400
    assert staff.post("/api/event/tournaments/99/players", {"player": ana}).status_code == 404
    Tournaments(conn).record(tid, lambda t: t.register("Walk-in"), actor="staff@test")
    adopted = staff.post(f"{url}/link", {}).get_json()
    assert adopted["created"][0][0] == 2 and adopted["linked"] == []
    assert staff.post(f"{url}/link", {"number": 5, "player": ana}).status_code == 422
    assert staff.post(f"{url}/link", {"number": 1}).status_code == 400
    assert {e.player for e in Players(conn).entrants(tid)} == {1, 2}


def test_the_handicaps_document_and_answers_agree_on_an_empty_list(visitor: Api) -> None:
    import jsonschema_rs  # what schemathesis checks the document with

    document = visitor.client.get("/api/openapi.json").get_json()
    (players,) = [p for p in document["paths"]["/api/ranking/handicap"]["get"]["parameters"]
                  if p["name"] == "players"]
    validator = jsonschema_rs.validator_for(players["schema"])
    # What the document allows the server answers (here 404: ids nobody holds), and what it refuses, 400.
    for raw in ("", " ", ",", "1", "1,", "1,,2", "1,2,3,4,5", "1,x", "1,²", "1,-2", "1,1234567890123",
                "1,2\n"):
        assert not validator.is_valid(raw), raw
        assert visitor.client.get("/api/ranking/handicap", query_string={"players": raw}).status_code == 400
    for raw in ("1,2", "1, 2", " 1 ,2,3 ", "1,2,3,4", "123456789012,2"):
        assert validator.is_valid(raw), raw
        assert visitor.client.get("/api/ranking/handicap", query_string={"players": raw}).status_code == 404


def test_options_on_the_registrys_audit_lists_only_what_it_answers(visitor: Api) -> None:
    response = visitor.client.options("/api/players/audit")
    assert set(response.headers["Allow"].replace(" ", "").split(",")) == {"GET", "HEAD", "OPTIONS"}
    assert visitor.client.post("/api/players/audit", json={}).status_code == 405
    edit = visitor.client.options("/api/players/12")
    assert set(edit.headers["Allow"].replace(" ", "").split(",")) == {"GET", "HEAD", "OPTIONS", "POST"}
