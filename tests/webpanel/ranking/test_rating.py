"""The rating on the ranking's pages, JSON and CSV, and a table's chances (API and the staff round page)."""

from __future__ import annotations

import csv
import io
import sqlite3

import pytest
from flask import Flask

from store.players import Players
from store.ranking import Ranking
from store.tournaments import Tournaments
from tests.webpanel.helpers import Api


def test_the_rating_json_is_the_stores_rating_best_first(
    visitor: Api, conn: sqlite3.Connection, season: dict[str, int]
) -> None:
    answer = visitor.get("/api/ranking/rating").get_json()
    expected = Ranking(conn).season().ratings
    assert [(r["player"]["id"], r["games"], r["place"]) for r in answer["rating"]] == [
        (line.player, line.games, line.place) for line in expected.lines
    ]
    values = [r["rating"] for r in answer["rating"]]
    assert values == sorted(values, reverse=True) and len(values) == 5
    assert answer["rules"] == {"spread": 3.0, "drift": 4.0}
    for r in answer["rating"]:
        assert r["rating"] == pytest.approx(r["mean"] - 3 * r["uncertainty"], abs=0.02)


def test_the_rating_csv_has_a_line_per_rated_player_and_no_formula(
    visitor: Api, conn: sqlite3.Connection, season: dict[str, int]
) -> None:
    Players(conn).edit(season["Ben"], club="=HYPERLINK(1)", actor="staff@test")
    response = visitor.client.get("/ranking/rating.csv")
    assert response.mimetype == "text/csv" and "attachment" in response.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert {r["name"] for r in rows} == set(season)
    assert next(r for r in rows if r["name"] == "Ben")["club"] == "'=HYPERLINK(1)"
    assert [int(r["place"]) for r in rows] == sorted(int(r["place"]) for r in rows)


def test_a_players_json_has_their_rating_after_each_game(
    visitor: Api, staff: Api, season: dict[str, int]
) -> None:
    answer = visitor.get(f"/api/ranking/players/{season['Ana']}").get_json()
    assert answer["rating"]["games"] == len(answer["history"]) == len(answer["games"])
    assert answer["rating"]["player"]["id"] == season["Ana"]
    assert answer["history"][-1]["mean"] == answer["rating"]["mean"]
    assert [h["at"] for h in answer["history"]] == sorted(h["at"] for h in answer["history"])
    newcomer = staff.post("/api/players", {"name": "Zoé"}).get_json()["id"]
    fresh = visitor.get(f"/api/ranking/players/{newcomer}").get_json()
    assert fresh["rating"]["games"] == 0 and fresh["history"] == [] and fresh["rating"]["rating"] == 0


def test_the_ranking_page_switches_between_points_and_rating(visitor: Api, season: dict[str, int]) -> None:
    for lang in ("en", "fr"):
        points = visitor.get("/ranking", headers={"Accept-Language": lang}).get_data(as_text=True)
        assert 'id="ranking-by"' in points and 'id="ranking"' in points and 'id="rating"' not in points
        assert 'href="/ranking?by=rating"' in points
        rating = visitor.get("/ranking?by=rating", headers={"Accept-Language": lang}).get_data(as_text=True)
        assert 'id="rating"' in rating and 'id="ranking"' not in rating
        assert rating.count('<tr id="player-') == 5
        assert '<a href="/ranking?by=rating" aria-current="page">' in rating
    french = visitor.get("/ranking?by=rating", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "Incertitude" in french and "Classement (CSV)" in french


def test_a_players_page_draws_their_rating(visitor: Api, season: dict[str, int]) -> None:
    page = visitor.get(f"/ranking/players/{season['Ana']}", headers={"Accept-Language": "en"}).get_data(
        as_text=True
    )
    assert 'id="player-rating"' in page and 'id="rating-chart"' in page
    assert page.count("<svg") == 2  # the wide drawing and the phone's
    assert "style=" not in page.split('id="rating-chart"')[1].split("</figure>")[0]


def test_a_tables_chances_sum_to_one_and_refusals(visitor: Api, season: dict[str, int]) -> None:
    ids = [season[n] for n in ("Ana", "Ben", "Chloé")]
    answer = visitor.get(f"/api/ranking/chances?players={','.join(map(str, ids))}").get_json()
    assert [p["player"]["id"] for p in answer["players"]] == ids
    assert sum(p["win"] for p in answer["players"]) == pytest.approx(1.0, abs=1e-3)
    assert answer["newcomers"] == []
    for bad in ("", "1", "1,2,3,4,5", "1,x"):
        assert visitor.client.get("/api/ranking/chances", query_string={"players": bad}).status_code == 400
    same = f"{ids[0]},{ids[0]}"
    assert visitor.client.get(f"/api/ranking/chances?players={same}").status_code == 400
    assert visitor.client.get("/api/ranking/chances?players=1,999").status_code == 404


def test_the_staff_round_page_shows_each_tables_chances_before_its_game(
    visitor: Api, staff: Api, conn: sqlite3.Connection, season: dict[str, int]
) -> None:
    store = Tournaments(conn)
    tid = store.create("Été", seed=9).id
    for pid in season.values():
        Players(conn).enter(tid, pid, actor="staff@test")
    store.record(tid, lambda t: t.next_round(), actor="staff@test")
    answer = visitor.get(f"/api/ranking/tournaments/{tid}/rounds/1/chances").get_json()
    tables = answer["tables"]
    assert sum(len(t["players"]) for t in tables) == 5
    for table in tables:
        assert sum(p["win"] for p in table["players"]) == pytest.approx(1.0, abs=1e-3)
    assert visitor.client.get(f"/api/ranking/tournaments/{tid}/rounds/2/chances").status_code == 404
    assert visitor.client.get("/api/ranking/tournaments/999/rounds/1/chances").status_code == 404
    url = f"/tournaments/{tid}/rounds/1"
    shown = staff.get(url, headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert shown.count('class="chances no-print"') == len(tables)
    assert "Chances to finish first, by the rating" in shown
    assert 'class="chances' not in visitor.get(url).get_data(as_text=True)


def test_the_round_pages_chances_ignore_an_event_in_its_query(
    staff: Api, conn: sqlite3.Connection, season: dict[str, int]
) -> None:
    store = Tournaments(conn)
    tid = store.create("Automne", seed=11).id
    for pid in season.values():
        Players(conn).enter(tid, pid, actor="staff@test")
    store.record(tid, lambda t: t.next_round(), actor="staff@test")
    response = staff.get(f"/tournaments/{tid}/rounds/1?event=nowhere", headers={"Accept-Language": "en"})
    assert response.status_code == 200
    assert "Chances to finish first, by the rating" in response.get_data(as_text=True)


def test_a_tables_percents_add_up_to_a_hundred(event_app: Flask) -> None:
    from webpanel.ranking.rating import TableChances

    with event_app.test_request_context(headers={"Accept-Language": "en"}):
        shown = TableChances(1, {1: 0.305, 2: 0.392, 3: 0.303}, (), ()).percent
    assert shown == {1: "31%", 2: "39%", 3: "30%"}
