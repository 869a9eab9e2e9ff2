"""The season on the event server: events, which tournaments count, the ranking of one event; the
API's answers and refusals, the staff page's forms, and what the ranking then counts."""

from __future__ import annotations

import csv
import html
import io
import sqlite3

import pytest

from store.season import Calendar
from store.tournaments import Tournaments
from tests.webpanel.helpers import Api
from tests.webpanel.ranking import test_pages
from webpanel import i18n

LYON = {"id": "lyon-2026", "name": "Open de Lyon", "place": "Lyon", "starts_on": "2026-03-07",
        "ends_on": "2026-03-08"}


def form(staff: Api, url: str, **fields: str) -> str:
    return html.unescape(test_pages.form(staff, url, **fields))


def printemps(conn: sqlite3.Connection) -> int:
    (info,) = Tournaments(conn).all()
    return info.id


def test_staff_make_an_event_and_place_a_tournament_in_it(
    staff: Api, visitor: Api, conn: sqlite3.Connection, season: dict[str, int]
) -> None:
    tid = printemps(conn)
    made = staff.post("/api/event/season/events", LYON)
    assert made.status_code == 201 and made.get_json() == LYON
    changed = staff.post(f"/api/event/season/events/{LYON['id']}", {"place": "Lyon 7e", "ends_on": None})
    assert changed.get_json() == {**LYON, "place": "Lyon 7e", "ends_on": None}
    placed = staff.post(f"/api/event/tournaments/{tid}/season", {"event": LYON["id"]})
    assert placed.get_json() == {"tournament": tid, "event": LYON["id"], "counts": True}
    answer = visitor.get("/api/event/season").get_json()
    assert answer["events"] == [{**LYON, "place": "Lyon 7e", "ends_on": None, "tournaments": [tid]}]
    assert answer["tournaments"] == [{"id": tid, "name": "Printemps", "event": LYON["id"], "counts": True}]
    audit = staff.get("/api/event/season/audit").get_json()
    assert [(a["kind"], a["subject"]) for a in audit] == [
        ("tournament", str(tid)), ("event", LYON["id"]), ("event", LYON["id"]),
    ]
    assert all(a["actor"].startswith("staff@") for a in audit)


@pytest.mark.parametrize(
    ("url", "body", "status", "code"),
    [
        ("/api/event/season/events", {"id": "Lyon"}, 400, "bad_field"),
        ("/api/event/season/events", {"id": "lyon", "name": " "}, 422, "event_refused"),
        ("/api/event/season/events", {"id": "lyon", "place": "a\tb"}, 422, "event_refused"),
        ("/api/event/season/events", {"id": "lyon", "starts_on": "2026-13-01"}, 422, "event_refused"),
        ("/api/event/season/events", {"id": "lyon", "starts_on": "2026-03-08", "ends_on": "2026-03-07"}, 409,
         "event_dates"),
        ("/api/event/season/events", {"id": "paris-2026"}, 409, "event_exists"),
        ("/api/event/season/events", {"id": "lyon", "colour": "red"}, 400, "unknown_fields"),
        ("/api/event/season/events/nowhere", {"name": "X"}, 404, "event_not_found"),
        ("/api/event/season/events/paris-2026", {"ends_on": "2000-01-01", "starts_on": "2001-01-01"}, 409,
         "event_dates"),
        ("/api/event/tournaments/999/season", {"counts": False}, 404, "tournament_not_found"),
        ("/api/event/tournaments/{tid}/season", {"event": "nowhere"}, 404, "event_not_found"),
        ("/api/event/tournaments/{tid}/season", {"counts": "no"}, 400, "bad_field"),
        ("/api/event/tournaments/{tid}/season", {"event": 3}, 400, "bad_field"),
        ("/api/event/season/events/paris-2026", {"starts_on": ""}, 422, "event_refused"),
    ],
)
def test_a_refused_change_says_why_and_writes_nothing(
    staff: Api, conn: sqlite3.Connection, season: dict[str, int], url: str, body: dict[str, object],
    status: int, code: str,
) -> None:
    Calendar(conn).create("paris-2026", actor="staff@test")
    before = (Calendar(conn).events(), Calendar(conn).audit(), Tournaments(conn).all())
    answer = staff.post(url.format(tid=printemps(conn)), body)
    assert (answer.status_code, answer.get_json()["code"]) == (status, code), answer.get_json()
    assert (Calendar(conn).events(), Calendar(conn).audit(), Tournaments(conn).all()) == before


def test_changing_the_season_is_for_staff(
    visitor: Api, conn: sqlite3.Connection, season: dict[str, int]
) -> None:
    tid = printemps(conn)
    assert visitor.post("/api/event/season/events", LYON).status_code == 401
    assert visitor.post(f"/api/event/tournaments/{tid}/season", {"counts": False}).status_code == 401
    assert visitor.get("/api/event/season/audit").status_code == 401
    assert visitor.get("/season").status_code in (302, 303)
    assert Tournaments(conn).get(tid).counts and Calendar(conn).events() == []


def test_a_friendly_tournament_leaves_the_ranking_csv_and_handicap(
    staff: Api, visitor: Api, conn: sqlite3.Connection, season: dict[str, int]
) -> None:
    tid = printemps(conn)
    table = ",".join(str(season[n]) for n in ("Ben", "Chloé", "Eve"))
    assert len(visitor.get("/api/ranking").get_json()["ranking"]) == 5
    assert visitor.get(f"/api/ranking/handicap?players={table}").get_json()["unranked"] == []
    staff.post(f"/api/event/tournaments/{tid}/season", {"counts": False})
    assert visitor.get("/api/ranking").get_json()["ranking"] == []
    assert visitor.get(f"/api/ranking/players/{season['Ana']}").get_json()["games"] == []
    rows = list(csv.reader(io.StringIO(visitor.get("/ranking.csv").get_data(as_text=True))))
    assert len(rows) == 1  # the header alone
    unranked = visitor.get(f"/api/ranking/handicap?players={table}").get_json()["unranked"]
    assert sorted(unranked) == sorted(season[n] for n in ("Ben", "Chloé", "Eve"))
    page = visitor.get("/ranking", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'id="nobody-ranked"' in page and "Friendly tournaments do not count." in page


def test_the_ranking_of_one_event(
    staff: Api, visitor: Api, conn: sqlite3.Connection, season: dict[str, int]
) -> None:
    tid = printemps(conn)
    staff.post("/api/event/season/events", LYON)
    staff.post("/api/event/season/events", {"id": "brest"})
    staff.post(f"/api/event/tournaments/{tid}/season", {"event": LYON["id"]})
    of_lyon = visitor.get(f"/api/ranking?event={LYON['id']}").get_json()
    assert of_lyon["event"] == LYON["id"] and len(of_lyon["ranking"]) == 5
    assert visitor.get("/api/ranking").get_json()["event"] is None
    assert visitor.get("/api/ranking?event=brest").get_json()["ranking"] == []
    rows = list(csv.DictReader(io.StringIO(visitor.get("/ranking.csv?event=brest").get_data(as_text=True))))
    assert rows == []
    assert visitor.get(f"/api/ranking/players/{season['Ana']}?event=brest").get_json()["line"] is None
    for url in ("/api/ranking?event=nowhere", f"/api/ranking/players/{season['Ana']}?event=nowhere",
                f"/api/ranking/handicap?players={season['Ana']},{season['Ben']}&event=nowhere"):
        answer = visitor.get(url)
        assert (answer.status_code, answer.get_json()["code"]) == (404, "event_not_found"), url
    for url in ("/ranking?event=nowhere", "/ranking.csv?event=nowhere"):
        assert visitor.get(url).status_code == 404
    page = visitor.get(f"/ranking?event={LYON['id']}", headers={"Accept-Language": "en"})
    page = page.get_data(as_text=True)
    assert '<span id="ranking-event">Open de Lyon</span>' in page
    assert f"/ranking.csv?event={LYON['id']}" in page and f'<option value="{LYON["id"]}" selected>' in page


def test_a_tournament_made_on_the_event_server_belongs_to_its_event(
    staff: Api, conn: sqlite3.Connection
) -> None:
    staff.client.post("/tournaments", data={"csrf_token": staff.token, "name": "Été"})
    (info,) = Tournaments(conn).all()
    assert (info.event, info.counts) == ("paris-2026", True)  # the event server's [central] event
    assert Calendar(conn).get("paris-2026").name == "paris-2026"
    staff.client.post("/tournaments", data={"csrf_token": staff.token, "name": "Automne"})
    assert [e.id for e in Calendar(conn).events()] == ["paris-2026"]  # made once


def test_the_season_page_forms(staff: Api, conn: sqlite3.Connection, season: dict[str, int]) -> None:
    tid = printemps(conn)
    assert form(staff, "/season/events", id="lyon-2026", name="Open de Lyon", place="Lyon",
                starts_on="2026-03-07", ends_on="") == "ok: Event Open de Lyon is in the season."
    assert form(staff, "/season/events", id="lyon-2026").startswith("error: There is an event")
    assert form(staff, "/season/events", id="Lyon").startswith("error: An event's id")
    assert form(staff, "/season/events/lyon-2026", name="Open de Lyon", place="", starts_on="2026-03-07",
                ends_on="2026-03-06") == "error: An event's last day cannot come before its first"
    assert form(staff, "/season/events/lyon-2026", name="Lyon Open", place="Lyon", starts_on="2026-03-07",
                ends_on="2026-03-08") == "ok: Saved: Lyon Open."
    assert form(staff, f"/season/tournaments/{tid}", event="lyon-2026", counts="no") == (
        "ok: Printemps is a friendly tournament: it does not count for the general ranking."
    )
    info = Tournaments(conn).get(tid)
    assert (info.event, info.counts) == ("lyon-2026", False)
    assert form(staff, f"/season/tournaments/{tid}", event="", counts="yes") == (
        "ok: Printemps counts for the general ranking."
    )
    assert (Tournaments(conn).get(tid).event, Tournaments(conn).get(tid).counts) == (None, True)
    assert form(staff, f"/season/tournaments/{tid}", event="nowhere", counts="yes").startswith(
        "error: There is no event"
    )
    staff.client.set_cookie(i18n.COOKIE, "fr")
    page = staff.get("/season").get_data(as_text=True)
    assert "Lyon Open" in page and "Amical\u00a0: ne compte pas" in page and "événement modifié" in page
