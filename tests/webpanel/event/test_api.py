"""The event server's JSON API: boards, tables, results, the wall (the panel in its event role)."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

import pytest
from flask import Flask

from protocol import LiveReport
from store.event.assignments import Assignments
from store.event.boards import Boards
from store.event.intake import Intake
from store.event.results import Results
from store.tournaments import Tournaments
from tests.store.event.helpers import Reports, a_tournament, boards_online, send, table_of
from tests.webpanel.helpers import Api


def test_boards_are_listed_at_once_waiting_for_staff(visitor: Api, intake: Intake) -> None:
    assert visitor.get("/api/event/boards").get_json() == []
    send(
        intake, "board-2", [Reports("board-2").status(game={"id": 1, "status": "running", "to_move": "Ana"})]
    )
    (board,) = visitor.get("/api/event/boards").get_json()
    assert {k: board[k] for k in ("id", "label", "accepted", "online", "game", "table")} == {
        "id": "board-2",
        "label": "",
        "accepted": False,
        "online": True,
        "table": None,
        "game": {"id": 1, "status": "running", "to_move": "Ana"},
    }
    assert isinstance(board["last_seen"], float) and board["faults"] == []


def test_staff_accept_and_label_a_board(visitor: Api, staff: Api, intake: Intake) -> None:
    send(intake, "board-2", [Reports("board-2").status()])
    assert visitor.post("/api/event/boards/board-2", {"label": "Table 2"}).status_code == 401
    assert staff.post("/api/event/boards/board-9", {"label": "Table 9"}).status_code == 404
    assert staff.post("/api/event/boards/board-2", {"label": "  "}).status_code == 422
    assert staff.post("/api/event/boards/board-2", {"label": 3}).status_code == 400
    accepted = staff.post("/api/event/boards/board-2", {"label": "Table 2 — by the window"}).get_json()
    assert accepted["accepted"] and accepted["label"] == "Table 2 — by the window"


def test_the_home_page_and_the_staff_pages(visitor: Api, staff: Api) -> None:
    home = visitor.get("/")
    assert home.status_code == 302 and home.headers["Location"].endswith("/event")
    assert visitor.get("/event").status_code == 302  # to the login page
    page = staff.get("/event")
    assert page.status_code == 200 and "Aucun plateau ne s’est encore signalé" in page.get_data(as_text=True)
    english = staff.get("/event?lang=en").get_data(as_text=True)
    assert "No board has reported yet" in english
    assert visitor.get("/event/wall").status_code == 200


def test_a_round_goes_to_the_boards_and_staff_move_a_table(
    staff: Api, conn: sqlite3.Connection, intake: Intake
) -> None:
    boards_online(intake, "board-1", "board-2")
    tid = a_tournament(conn, 8)
    assert staff.post(f"/api/event/tournaments/{tid}/assignments", {}).status_code == 201
    (one, two) = Assignments(conn).of_round(tid, 1)
    moved = staff.post(f"/api/event/assignments/{one.id}", {"board": "board-2"})
    assert [(a["table"], a["board"]) for a in moved.get_json()] == [(1, "board-2"), (2, "board-1")]
    assert staff.post(f"/api/event/assignments/{one.id}", {"board": 3}).status_code == 400
    assert staff.post(f"/api/event/assignments/{one.id}", {"board": "board-8"}).status_code == 404
    assert staff.post("/api/event/tournaments/99/assignments", {}).status_code == 404
    empty = Tournaments(conn).create("Later", seed=1).id
    assert staff.post(f"/api/event/tournaments/{empty}/assignments", {}).status_code == 409


def test_making_the_next_round_sends_it_with_one_click(
    staff: Api, conn: sqlite3.Connection, intake: Intake
) -> None:
    boards_online(intake, "board-1", "board-2", "board-3")
    tid = Tournaments(conn).create("Paris open", seed=5).id
    for n in range(12):
        Tournaments(conn).record(tid, lambda t, n=n: t.register(f"P{n}"), actor="test")
    response = staff.post(f"/event/tournaments/{tid}/rounds", data={"request_id": "r1"})
    assert response.status_code == 303
    assert [(a.table, a.board) for a in Assignments(conn).of_round(tid, 1)] == [
        (1, "board-1"),
        (2, "board-2"),
        (3, "board-3"),
    ]
    again = staff.post(f"/event/tournaments/{tid}/rounds", data={"request_id": "r1"})  # a double tap
    assert again.status_code == 303 and len(Tournaments(conn).load(tid).rounds) == 1
    page = staff.get(f"/event?t={tid}&lang=en").get_data(as_text=True)
    assert "Paris open — round 1" in page and "waiting to start" in page
    french = staff.get(f"/event?t={tid}&lang=fr").get_data(as_text=True)
    assert "Paris open — manche 1" in french and "en attente du départ" in french


def _played_round(conn: sqlite3.Connection, intake: Intake) -> tuple[int, str]:
    boards_online(intake, "board-1")
    tid = a_tournament(conn, 4)
    (assignment,) = Assignments(conn).assign_round(tid)
    reports = Reports("board-1")
    send(intake, "board-1", reports.game(1, **table_of(conn, tid, 1, 1), assignment=assignment.id))
    return tid, assignment.id


def test_staff_act_on_a_result_that_needs_them(
    staff: Api, visitor: Api, conn: sqlite3.Connection, intake: Intake
) -> None:
    tid, _ = _played_round(conn, intake)
    assert visitor.get("/api/event/results").status_code == 401
    (result,) = staff.get("/api/event/results").get_json()
    assert result["status"] == "waiting" and result["players"] and not result["overdue"]
    clash = staff.post(f"/api/event/results/{result['game']}/use-board", {})
    assert clash.status_code == 409 and clash.get_json()["code"] == "result_state"
    explode = staff.post(f"/api/event/results/{result['game']}/explode", {})
    assert explode.status_code == 404 and explode.get_json()["code"] == "not_found"
    unknown = staff.post("/api/event/results/77/confirm", {})
    assert unknown.status_code == 404 and unknown.get_json()["code"] == "result_not_found"
    confirmed = staff.post(f"/api/event/results/{result['game']}/confirm", {}).get_json()
    assert confirmed["status"] == "confirmed"
    Results(conn).settle()  # what the ingest does on its next turn
    assert Tournaments(conn).load(tid).result(1, 1) is not None


def test_the_wall_shows_boards_live_standings_and_tables(
    visitor: Api, conn: sqlite3.Connection, intake: Intake
) -> None:
    tid, assignment = _played_round(conn, intake)
    boards_online(intake, "board-new", accept=False)
    send(intake, "board-1", [LiveReport({"id": 40, "pawns": {"f9": {"owner": 0}}, "lamps": {"lit": ["N"]}})])
    wall = visitor.get("/api/event/wall").get_json()
    assert [b["id"] for b in wall["boards"]] == ["board-1"]  # accepted boards only
    assert wall["boards"][0]["live"]["pawns"] == {"f9": {"owner": 0}}
    assert wall["boards"][0]["table"] == {"round": 1, "table": 1}
    assert wall["tournament"]["name"] == "Paris open" and wall["tournament"]["round"] == 1
    assert len(wall["standings"]) == 4 and wall["next_round"] is None
    assert [(t["table"], t["state"]) for t in wall["tables"]] == [(1, "confirming")]
    Results(conn).confirm(1, actor="staff")
    Results(conn).settle()
    wall = visitor.get(f"/api/event/wall?t={tid}").get_json()
    assert wall["tables"][0]["state"] == "done" and wall["next_round"] is not None
    assert [b["table"] for b in wall["boards"]] == [None]  # the board is free again
    assert Boards(conn).get("board-1").name == "Table 1"


def test_the_change_stream(event_app: Flask, visitor: Api) -> None:
    response = visitor.get("/api/event/stream", buffered=False)
    try:
        assert response.mimetype == "text/event-stream"
        chunks = iter(response.response)
        first = b"".join(next(chunks) for _ in range(2)).decode()
        assert "retry:" in first and "event: change" in first
    finally:
        response.close()


def test_every_event_api_route_is_in_the_openapi_document(event_app: Flask, visitor: Api) -> None:
    doc: dict[str, Any] = visitor.get("/api/openapi.json").get_json()
    documented = {(path, method) for path, ops in doc["paths"].items() for method in ops}
    for rule in event_app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)  # <id:tid> is {tid}
            for method in rule.methods - {"HEAD", "OPTIONS"}:
                assert (path, method.lower()) in documented, f"{method} {path} is not in openapi.json"
    assert doc["paths"]["/api/event/boards"]["get"]["responses"]["200"]


def test_the_tablet_entry_page_offers_no_local_board_on_the_event_server(
    staff: Api, conn: sqlite3.Connection
) -> None:
    tid = a_tournament(conn, 4)
    page = staff.get(f"/tournaments/{tid}/rounds/1/tables/1?lang=en").get_data(as_text=True)
    assert "Enter the result" in page and "start-on-board" not in page


def test_every_event_route_with_an_id_takes_only_ids_a_database_can_hold(
    event_app: Flask, staff: Api
) -> None:
    # As on a board's panel: an id too large for SQLite, or "²", is no route (404), never a 500.
    rules = [rule for rule in event_app.url_map.iter_rules() if "<id:" in rule.rule]
    assert any(rule.rule.startswith("/api/event/") for rule in rules)
    for rule in rules:
        for bad in ("9" * 19, "²", "-1"):
            path = re.sub(r"<id:\w+>", bad, rule.rule).replace("<action>", "confirm")
            for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
                headers = {"X-CSRF-Token": staff.token}
                response = staff.client.open(path, method=method, headers=headers, json={})
                assert response.status_code == 404, (method, path, response.status_code)
    for query in ("t=²", "t=" + "9" * 30, "t=abc"):
        assert staff.get(f"/event/wall?{query}").status_code == 200, query
        refused = staff.get(f"/api/event/wall?{query}")
        assert refused.status_code == 400 and refused.get_json()["code"] == "bad_query", query


def test_the_event_api_says_what_is_wrong_by_code(staff: Api, intake: Intake) -> None:
    send(intake, "board-2", [Reports("board-2").status()])
    assert staff.post("/api/event/boards/board-9", {"label": "T"}).get_json()["code"] == "board_not_found"
    assert staff.post("/api/event/boards/board-2", {"label": " "}).get_json()["code"] == "bad_label"
    assert staff.post("/api/event/boards/board-2", {"label": 3}).get_json()["code"] == "bad_field"
    missing = staff.post("/api/event/assignments/nothing-here", {"board": None})
    assert missing.status_code == 404 and missing.get_json()["code"] == "assignment_not_found"
    no_tournament = staff.post("/api/event/tournaments/99/assignments", {})
    assert no_tournament.get_json()["code"] == "tournament_not_found"
def test_a_panel_without_an_ingest_says_it_takes_no_board_messages(visitor: Api) -> None:
    response = visitor.get("/api/event/ingest")
    assert response.status_code == 404 and "takes no board messages" in response.get_json()["error"]


def test_a_board_result_that_cannot_hold_is_shown_to_staff_and_no_page_fails(
    staff: Api, visitor: Api, conn: sqlite3.Connection, intake: Intake
) -> None:
    """A game end whose points list holds "x" (the event's pages once answered 500 until someone edited
    the database): a clash with its reason, which staff may dismiss but not enter as the board's."""
    boards_online(intake, "board-1")
    tid = a_tournament(conn, 4)
    (assignment,) = Assignments(conn).assign_round(tid)
    reports = Reports("board-1")
    table = table_of(conn, tid, 1, 1)
    rows = reports.game(1, **table, assignment=assignment.id, end={"points": ["x", 2, 0, 4]})
    send(intake, "board-1", [*rows, reports.agree(1, [0, 1, 2, 3])])
    (listed,) = staff.get("/api/event/results").get_json()
    assert listed["status"] == "confirmed" and not listed["holds"]
    Results(conn).settle()  # what the ingest does on its next turn
    (clash,) = staff.get("/api/event/results").get_json()
    assert clash["status"] == "clash" and "points is a whole number" in clash["problem"]
    page = staff.get(f"/event?t={tid}&lang=en")
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and "points is a whole number" in text and "use-board" not in text
    assert visitor.get(f"/api/event/wall?t={tid}").status_code == 200
    assert visitor.get("/event/wall").status_code == 200
    refused = staff.post(f"/api/event/results/{clash['game']}/use-board", {})
    assert refused.status_code == 409 and "cannot be used" in refused.get_json()["error"]
    assert staff.post(f"/api/event/results/{clash['game']}/dismiss", {}).get_json()["status"] == "dismissed"
    assert Tournaments(conn).load(tid).result(1, 1) is None


@pytest.mark.parametrize("db_location", ["sqlite"], indirect=True)  # words: one engine is enough
def test_what_the_staff_pages_flash_is_in_the_pages_language(
    staff: Api, conn: sqlite3.Connection, intake: Intake
) -> None:
    from tests.webpanel import i18n_checks
    from webpanel import i18n

    staff.client.set_cookie(i18n.COOKIE, "fr")
    boards_online(intake, "board-1", "board-2", "board-3")
    tid = Tournaments(conn).create("Paris open", seed=5).id
    for n in range(12):
        Tournaments(conn).record(tid, lambda t, n=n: t.register(f"P{n}"), actor="test")

    def flashed(path: str, **form: str) -> str:
        page = staff.post(path, data=form, follow_redirects=True).get_data(as_text=True)
        (message,) = re.findall(r'<p class="msg [a-z]+" role="status">(.*?)</p>', page, re.S)
        assert i18n_checks.english_words(f'<html lang="fr"><p>{message}</p></html>') == [], message
        return str(message)

    assert "Manche faite" in flashed(f"/event/tournaments/{tid}/rounds", request_id="r1")
    (one, _two, _three) = Assignments(conn).of_round(tid, 1)
    assert "Tables et plateaux" in flashed(f"/event/assignments/{one.id}", board="board-2")
    # A refusal the pages have words for is said in French too; one they have none for is marked English.
    flashed(f"/event/assignments/{one.id}", board="board-9")
