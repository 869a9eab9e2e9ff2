"""Every player's own link at the event: badges, the door, check-in, the player's page, "I agree" from a
phone, a result flagged as wrong, withdrawal, late entries, and what a link never shows."""

from __future__ import annotations

from typing import Any

from flask import Flask

from store.dialect import Connection
from store.event.assignments import Assignments
from store.event.attendance import Attendance, PlayerLinks
from store.event.intake import Intake
from store.event.results import Results
from store.tournaments import Tournaments
from tests.store.event.helpers import Reports, boards_online, send, table_of
from tests.webpanel.helpers import Api


def _registered(conn: Connection, players: int, *, late_entries: bool = False) -> int:
    store = Tournaments(conn)
    tid = store.create("Paris open", seed=3, late_entries=late_entries).id
    for n in range(1, players + 1):
        store.record(tid, lambda t, n=n: t.register(f"P{n}"), actor="test")
    return tid


def _links(staff: Api, tid: int) -> dict[str, dict[str, Any]]:
    rows = staff.get(f"/api/event/tournaments/{tid}/players").get_json()
    return {row["name"]: row for row in rows}


def _path(url: str) -> str:
    return url[url.index("/p/"):]


def test_staff_print_badges_and_check_players_in_at_the_door(
    staff: Api, visitor: Api, conn: Connection
) -> None:
    tid = _registered(conn, 5)
    assert visitor.get(f"/api/event/tournaments/{tid}/players").status_code == 401
    links = _links(staff, tid)
    assert sorted(links) == ["P1", "P2", "P3", "P4", "P5"]
    assert {r["state"] for r in links.values()} == {"missing"}
    assert _links(staff, tid)["P2"]["code"] == links["P2"]["code"]  # issued once
    sheet = staff.get(f"/event/tournaments/{tid}/badges?lang=en").get_data(as_text=True)
    assert sheet.count('class="badge"') == 5 and sheet.count("<svg") == 5 and links["P3"]["code"] in sheet
    page = staff.get(f"/event/tournaments/{tid}/door?lang=en").get_data(as_text=True)
    assert "not checked in yet: 5" in page

    # A typed code (any case, a dash), a scanned link, a wrong code.
    code = links["P1"]["code"]
    staff.post(f"/event/tournaments/{tid}/door", data={"code": f"{code[:3].lower()}-{code[3:]}"})
    staff.post(f"/event/tournaments/{tid}/door", data={"code": links["P2"]["url"]})
    door = f"/event/tournaments/{tid}/door?lang=en"
    wrong = staff.post(door, data={"code": "ZZZZZZ"}, follow_redirects=True)
    assert "No player of this tournament has this code" in wrong.get_data(as_text=True)
    api = staff.post(f"/api/event/tournaments/{tid}/check-in", {"code": links["P3"]["code"]})
    assert api.get_json() == {"player": 3, "name": "P3", "state": "here"}
    assert staff.post(f"/api/event/tournaments/{tid}/check-in", {"code": "nope"}).status_code == 404
    staff.post(f"/event/tournaments/{tid}/players/5/absent")
    assert {n: r["state"] for n, r in _links(staff, tid).items()} == {
        "P1": "here", "P2": "here", "P3": "here", "P4": "missing", "P5": "away",
    }

    # Round 1 waits for staff's choice while someone never checked in; then seats only those here.
    refused = staff.post(f"/event/tournaments/{tid}/rounds?lang=en", data={}, follow_redirects=True)
    assert "Not checked in: P4" in refused.get_data(as_text=True)
    assert Tournaments(conn).load(tid).rounds == []
    staff.post(f"/event/tournaments/{tid}/players/4/here")  # seat them anyway
    staff.post(f"/event/tournaments/{tid}/rounds", data={"request_id": "r1"})
    seated = Tournaments(conn).load(tid).rounds[0].players()
    assert sorted(seated) == [1, 2, 3, 4]


def test_leaving_out_the_missing_players_is_staffs_choice(staff: Api, conn: Connection) -> None:
    tid = _registered(conn, 6)
    for player in (1, 2, 3, 4):
        Attendance(conn).mark(tid, player, here=True, by="test")
    staff.post(f"/event/tournaments/{tid}/rounds", data={"leave_out": "1"})
    assert sorted(Tournaments(conn).load(tid).rounds[0].players()) == [1, 2, 3, 4]


def test_a_withdrawn_player_is_not_waited_for(staff: Api, conn: Connection) -> None:
    tid = _registered(conn, 5)
    Tournaments(conn).record(tid, lambda t: t.withdraw(5), actor="test")
    for player in (1, 2, 3, 4):
        Attendance(conn).mark(tid, player, here=True, by="test")
    staff.post(f"/event/tournaments/{tid}/rounds", data={})
    assert sorted(Tournaments(conn).load(tid).rounds[0].players()) == [1, 2, 3, 4]


def test_no_check_in_at_all_seats_everyone_as_before(staff: Api, conn: Connection) -> None:
    tid = _registered(conn, 5)
    staff.post(f"/event/tournaments/{tid}/rounds", data={})
    assert len(Tournaments(conn).load(tid).rounds[0].players()) == 5


def test_a_player_checks_in_sees_their_table_and_agrees_from_the_phone(
    staff: Api, event_app: Flask, conn: Connection, intake: Intake
) -> None:
    boards_online(intake, "board-1")
    tid = _registered(conn, 4)
    links = _links(staff, tid)
    phones = {name: Api(event_app.test_client()) for name in links}
    for name, phone in phones.items():
        page = phone.get(_path(links[name]["url"]) + "?lang=en").get_data(as_text=True)
        assert name in page and "I am here" in page
        phone.post(_path(links[name]["url"]) + "/check-in", data={})
    assert all(p.here for p in Attendance(conn).of_tournament(tid).values())
    staff.post(f"/event/tournaments/{tid}/rounds", data={"request_id": "r1"})

    token = links["P1"]["url"].rsplit("/", 1)[1]
    view = phones["P1"].get(f"/api/event/players/{token}").get_json()
    table = view["table"]
    assert table["round"] == 1 and table["board"]["name"] == "Table 1"
    assert [s["name"] for s in table["seats"]] == table_of(conn, tid, 1, 1)["players"]
    assert [s["you"] for s in table["seats"]].count(True) == 1 and table["state"] == "to-start"
    page = phones["P1"].get(f"/p/{token}?lang=fr").get_data(as_text=True)
    assert "Manche 1\u00a0: table 1" in page and "Plateau\u00a0: Table 1" in page

    # The game on the board, as its status says it (public: whose turn, how many moves).
    (assignment,) = Assignments(conn).of_round(tid, 1)
    running = {"id": 1, "status": "running", "to_move": "P3", "paused": False, "moves": 7,
               "assignment": assignment.id}
    send(intake, "board-1", [Reports("board-1").status(game=running)])
    playing = phones["P1"].get(f"/api/event/players/{token}").get_json()["table"]["game"]
    assert playing == {"status": "running", "to_move": "P3", "paused": False, "moves": 7}
    assert "P3 to play · 7 moves" in phones["P1"].get(f"/p/{token}?lang=en").get_data(as_text=True)

    # Nothing to agree to before the board's result.
    early = phones["P1"].post(f"/api/event/players/{token}/agree", {})
    assert early.status_code == 409 and early.get_json()["code"] == "nothing_to_agree"
    send(intake, "board-1", Reports("board-1").game(1, **table_of(conn, tid, 1, 1), assignment=assignment.id))
    for name, phone in phones.items():
        agreed = phone.post(_path(links[name]["url"]) + "/agree", data={}, follow_redirects=True)
        assert agreed.status_code == 200
    result = Results(conn).of_assignment(assignment.id)
    assert result is not None and result.status == "confirmed"
    Results(conn).settle()  # the ingest's next turn
    assert Tournaments(conn).load(tid).result(1, 1) is not None
    after = phones["P1"].get(f"/api/event/players/{token}").get_json()
    assert after["table"]["state"] == "done" and after["results"][0]["points"] is not None
    assert after["standing"]["place"] >= 1

    # "This result is wrong": staff's list of results that need them, until they saw it.
    flagged = phones["P2"].post(_path(links["P2"]["url"]) + "/flag", data={"word": "my lamp never lit"})
    assert flagged.status_code == 303
    overview = staff.get(f"/event?t={tid}&lang=en").get_data(as_text=True)
    assert "Results players say are wrong" in overview and "my lamp never lit" in overview
    p2 = links["P2"]["url"].rsplit("/", 1)[1]
    empty = phones["P2"].post(f"/api/event/players/{p2}/flag", {"word": " "})
    assert empty.status_code == 409


def test_a_link_shows_that_player_only(staff: Api, visitor: Api, conn: Connection, intake: Intake) -> None:
    boards_online(intake, "board-1")
    tid = _registered(conn, 4)
    links = _links(staff, tid)
    staff.post(f"/event/tournaments/{tid}/rounds", data={})
    token = links["P1"]["url"].rsplit("/", 1)[1]
    text = visitor.get(f"/api/event/players/{token}").get_data(as_text=True)
    for other in ("P2", "P3", "P4"):
        assert links[other]["code"] not in text and links[other]["url"].rsplit("/", 1)[1] not in text
    assert links["P1"]["code"] not in text  # not even their own code: the badge has it
    page = visitor.get(f"/p/{token}").get_data(as_text=True)
    for other in ("P2", "P3", "P4"):
        assert links[other]["code"] not in page and links[other]["url"].rsplit("/", 1)[1] not in page


def test_wrong_tokens_are_guesses_and_a_replaced_link_says_so(
    staff: Api, event_app: Flask, conn: Connection
) -> None:
    tid = _registered(conn, 4)
    links = _links(staff, tid)
    old = links["P1"]["url"].rsplit("/", 1)[1]
    staff.post(f"/event/tournaments/{tid}/players/1/new-link")
    fresh = _links(staff, tid)["P1"]["url"].rsplit("/", 1)[1]
    guesser = Api(event_app.test_client())
    assert guesser.get(f"/api/event/players/{old}").get_json()["code"] == "link_replaced"
    assert guesser.get(f"/p/{old}").status_code == 410
    assert guesser.get(f"/api/event/players/{fresh}").status_code == 200
    statuses = [guesser.get(f"/api/event/players/wrong{n}").status_code for n in range(12)]
    assert statuses[:10] == [404] * 10 and statuses[-1] == 429
    assert guesser.get("/p/wrong-again").status_code == 429
    other = Api(event_app.test_client())
    other_address = {"REMOTE_ADDR": "198.51.100.7"}  # another phone elsewhere is not slowed down
    assert other.get(f"/api/event/players/{fresh}", environ_overrides=other_address).status_code == 200


def test_a_player_withdraws_only_when_sure(event_app: Flask, staff: Api, conn: Connection) -> None:
    tid = _registered(conn, 5)
    token = _links(staff, tid)["P5"]["url"].rsplit("/", 1)[1]
    phone = Api(event_app.test_client())
    unsure = phone.post(f"/api/event/players/{token}/withdraw", {})
    assert unsure.status_code == 409 and unsure.get_json()["code"] == "player_action_refused"
    assert phone.post(f"/api/event/players/{token}/withdraw", {"sure": "yes"}).status_code == 400
    done = phone.post(f"/api/event/players/{token}/withdraw", {"sure": True}).get_json()
    assert done["player"]["player"]["withdrawn"] and 5 in Tournaments(conn).load(tid).withdrawn
    assert phone.post(f"/api/event/players/{token}/check-in", {}).status_code == 409
    assert phone.post(f"/api/event/players/{token}/explode", {}).status_code == 404


def test_a_late_player_registers_at_the_door_before_round_2(staff: Api, conn: Connection) -> None:
    tid = _registered(conn, 4, late_entries=True)
    staff.post(f"/event/tournaments/{tid}/rounds", data={})
    door = staff.get(f"/event/tournaments/{tid}/door?lang=en").get_data(as_text=True)
    assert "Late entry (before round 2)" in door
    staff.post(f"/event/tournaments/{tid}/late", data={"name": "Latecomer"})
    t = Tournaments(conn).load(tid)
    assert "Latecomer" in t.names.values() and PlayerLinks(conn).of_tournament(tid) != {}
    strict = _registered(conn, 4)
    staff.post(f"/event/tournaments/{strict}/rounds", data={})
    late = f"/event/tournaments/{strict}/late?lang=en"
    refused = staff.post(late, data={"name": "Late"}, follow_redirects=True)
    assert "Registration is closed" in refused.get_data(as_text=True)


def test_staff_create_a_tournament_that_takes_late_entries(staff: Api, conn: Connection) -> None:
    form = staff.get("/tournaments?lang=en").get_data(as_text=True)
    assert 'name="late_entries"' in form
    staff.post("/tournaments", data={"name": "Late open", "late_entries": "on"})
    staff.post("/tournaments", data={"name": "Strict open"})
    settings = {info.name: info.settings for info in Tournaments(conn).all()}
    assert settings["Late open"]["late_entries"] is True and "late_entries" not in settings["Strict open"]


def test_the_page_says_the_players_place_in_the_general_ranking(
    staff: Api, visitor: Api, conn: Connection
) -> None:
    from store.players import Players
    from store.ranking import Ranking
    from tests.store.event.helpers import play

    registry = Players(conn)
    ids = [registry.create(name, actor="staff").id for name in ("Ada", "Bob", "Cid", "Dan")]
    tid = Tournaments(conn).create("Open", seed=1).id
    for pid in ids:
        registry.enter(tid, pid, actor="staff")
    play(conn, tid, seed=2, rounds=1)
    unlinked = Tournaments(conn).create("Friendly", seed=1).id
    Tournaments(conn).record(unlinked, lambda t: t.register("Eve"), actor="test")
    links = _links(staff, tid)
    view = visitor.get(f"/api/event/players/{links['Bob']['url'].rsplit('/', 1)[1]}").get_json()
    line = Ranking(conn).season().line(ids[1])
    assert line is not None
    assert view["ranking"] == {"place": line.place, "points": line.points, "games": line.games,
                               "ranked": line.is_ranked}
    eve = _links(staff, unlinked)["Eve"]["url"].rsplit("/", 1)[1]
    assert visitor.get(f"/api/event/players/{eve}").get_json()["ranking"] is None  # not in the registry


def test_the_table_says_who_starts_and_where_the_handicap_pawns_go(
    staff: Api, visitor: Api, conn: Connection
) -> None:
    tid = _registered(conn, 4)
    table = {"table": 1, "seats": [3, 1, 4, 2], "first": 2, "lamps": ["N", "E", "S", "W"],
             "handicap": {"E": 2}, "handicap_lead": 9, "handicap_over": [3]}
    made = {"round": 1, "phase": "drawn", "tables": [table], "eliminated": [], "spared": [], "finalists": []}
    Tournaments(conn).record(tid, lambda t: t.apply({"kind": "round", "data": made}), actor="test")
    token = _links(staff, tid)["P1"]["url"].rsplit("/", 1)[1]
    view = visitor.get(f"/api/event/players/{token}").get_json()["table"]
    assert [(s["name"], s["lamp"], s["handicap"], s["you"]) for s in view["seats"]] == [
        ("P3", "N", 0, False), ("P1", "E", 2, True), ("P4", "S", 0, False), ("P2", "W", 0, False),
    ]
    assert view["first"] == "P4" and not view["you_start"]
    page = visitor.get(f"/p/{token}?lang=en").get_data(as_text=True)
    assert "P4 starts." in page
    assert "2 attack pawns placed before the game, one on each of 2 rows leading straight from the battery" \
        " to lamp E" in page
