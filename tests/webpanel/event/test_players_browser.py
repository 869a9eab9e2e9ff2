"""A whole event of 12 players on three boards, every player with their own link, in a real browser.

Every player checks in, sees their table, agrees to their table's result from their phone, and the
standings follow. Two players use real phone-sized pages in Chromium (one in French, one in English)
served by waitress with the real Content-Security-Policy; the ten others act through the same HTTP
routes with the Flask test client (their pages are the same), which keeps the test short. The boards'
reports are stored as the ingest stores them; the ingest's turn that enters confirmed results is
``Results.settle``. The pages must follow without a reload, and pass axe-core's WCAG 2.1 A/AA checks.
Screenshots go to ``test-artifacts/players/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from protocol import LiveReport
from store.dialect import Connection
from store.event.assignments import Assignments
from store.event.intake import Intake
from store.event.results import Results
from store.tournaments import Tournaments
from tests.store.event.helpers import Reports, boards_online, send, table_of
from tests.webpanel import i18n_checks
from tests.webpanel.helpers import Api, Served, watch_errors

pytestmark = pytest.mark.browser

ARTIFACTS = i18n_checks.REPO / "test-artifacts" / "players"
PHONE = {"width": 390, "height": 844}
WAIT = 15_000
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
VIBRATIONS = (
    "window.vibrations = []; navigator.vibrate = function (p) { window.vibrations.push(p); return true; };"
)
"""Headless Chromium has no vibrator: the page's calls are counted instead."""


@pytest.fixture
def served_event(event_app: Flask) -> Iterator[Served]:
    serving = Served(event_app)
    yield serving
    serving.close()


def _token(url: str) -> str:
    return url.rsplit("/", 1)[1]


def _axe(page: Any) -> None:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": AXE_TAGS}})
    assert results.violations_count == 0, results.generate_report()


def _shoot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _fits(page: Any) -> None:
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]  # no sideways scroll


def test_a_whole_event_from_the_players_phones(
    served_event: Served, browser: Any, event_app: Flask, conn: Connection, intake: Intake
) -> None:
    boards_online(intake, "board-1", "board-2", "board-3")
    store = Tournaments(conn)
    tid = store.create("Paris open", seed=11).id
    for n in range(1, 13):
        store.record(tid, lambda t, n=n: t.register(f"P{n}"), actor="test")
    staff = Api(event_app.test_client())
    assert staff.login().status_code == 200
    links = {row["name"]: row for row in staff.get(f"/api/event/tournaments/{tid}/players").get_json()}
    by_phone = {"P1": "en", "P2": "fr"}
    by_http = {name: Api(event_app.test_client()) for name in links if name not in by_phone}

    # The door's tablet and the badges sheet.
    staff_page = browser.new_page(viewport={"width": 800, "height": 1100})
    errors: list[str] = []
    watch_errors(staff_page, errors)
    staff_page.context.add_cookies(
        [{"name": "hautetension_session", "value": staff.client.get_cookie("hautetension_session").value,
          "url": served_event.url}]
    )
    staff_page.goto(f"{served_event.url}/event/tournaments/{tid}/badges?lang=fr")
    assert staff_page.locator(".badge").count() == 12 and staff_page.locator(".badge svg").count() == 12
    _shoot(staff_page, "badges-fr")

    # Two phones in the browser, one a language: each player checks in with one tap.
    phones: dict[str, Any] = {}
    for name, lang in by_phone.items():
        # The phone's own language (its Accept-Language), as a player's phone sends it.
        page = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True, locale=f"{lang}-FR")
        watch_errors(page, errors)
        page.add_init_script(VIBRATIONS)
        page.goto(f"{served_event.url}/p/{_token(links[name]['url'])}")
        page.wait_for_selector("#check-in-button")
        _shoot(page, f"check-in-{lang}")
        _axe(page)
        page.click("#check-in-button")
        page.wait_for_selector("#no-table")
        phones[name] = page
    for name, api in by_http.items():
        assert api.post(f"/api/event/players/{_token(links[name]['url'])}/check-in", {}).status_code == 200
    assert {r["state"] for r in staff.get(f"/api/event/tournaments/{tid}/players").get_json()} == {"here"}
    for lang in ("en", "fr"):  # the door's tablet, everyone in
        staff_page.goto(f"{served_event.url}/event/tournaments/{tid}/door?lang={lang}")
        assert staff_page.locator("#door-players tbody tr.state-here").count() == 12
        _shoot(staff_page, f"door-{lang}")
        _axe(staff_page)

    # Staff make round 1: every phone shows its table at once, without a reload.
    assert staff.post(f"/event/tournaments/{tid}/rounds", data={"request_id": "r1"}).status_code == 303
    t = store.load(tid)
    assert sorted(t.rounds[0].players()) == list(range(1, 13)) and len(t.rounds[0].tables) == 3
    for name, page in phones.items():
        page.wait_for_selector("#my-table", timeout=WAIT)
        page.wait_for_function("window.vibrations.length === 1", timeout=WAIT)  # the phone alerted once
        player = next(p for p, n in t.names.items() if n == name)
        table = next(x for x in t.rounds[0].tables if player in x.seats)
        heading = page.text_content("#my-table h2") or ""
        words = "Round 1: table" if by_phone[name] == "en" else "Manche 1\u00a0: table"
        assert heading == f"{words} {table.number}"
        assert page.locator("#my-table .seat-list li").count() == len(table.seats)
        assert page.locator("#my-table .seat-list li.you").count() == 1
        _fits(page)
    for name, api in by_http.items():
        view = api.get(f"/api/event/players/{_token(links[name]['url'])}").get_json()
        assert view["table"]["round"] == 1 and name in [s["name"] for s in view["table"]["seats"]]

    # The boards play; the phones show the game live, then the result to agree to.
    for assignment in Assignments(conn).of_round(tid, 1):
        board = assignment.board
        assert board is not None
        live = {"lit": [], "test": False, "safe": False}
        view = {"id": 3, "layout": "pinwheel-80", "pawns": {"f9": {"owner": 0}}, "lamps": live}
        send(intake, board, [LiveReport(view)])
    for page in phones.values():
        page.wait_for_selector("#live-board svg .slot", state="attached", timeout=WAIT)
    for lang, page in zip(by_phone.values(), phones.values(), strict=True):
        _shoot(page, f"table-{lang}")
        _axe(page)
    for assignment in Assignments(conn).of_round(tid, 1):
        reports = Reports(str(assignment.board), history=f"h-{assignment.table}")
        table_now = table_of(conn, tid, 1, assignment.table)
        rows = reports.game(1, **table_now, assignment=assignment.id, seed=assignment.table)
        send(intake, str(assignment.board), rows)
    for page in phones.values():
        page.wait_for_selector("#agree", timeout=WAIT)
    for lang, page in zip(by_phone.values(), phones.values(), strict=True):
        _shoot(page, f"agree-{lang}")
        _axe(page)
        page.click("#agree")
        page.wait_for_selector("#agreed")
    for name, api in by_http.items():
        assert api.post(f"/api/event/players/{_token(links[name]['url'])}/agree", {}).status_code == 200
    assert {r.status for r in Results(conn).all()} == {"confirmed"}
    Results(conn).settle()  # the ingest's turn: each result entered once

    # The standings follow: every table has its result, and each phone shows its points and place.
    t = store.load(tid)
    assert t.is_round_complete(1)
    standings = {s.name: s for s in t.standings()}
    for name, page in phones.items():
        page.wait_for_selector("#my-results tbody td:nth-child(3):not(:text('—'))", timeout=WAIT)
        row = page.locator("#my-results tbody tr").first
        assert row.locator("td").nth(2).text_content() == str(standings[name].points)
        assert f"{standings[name].place}" in (page.text_content("#standing .place") or "")
        _shoot(page, f"standing-{by_phone[name]}")
        _fits(page)
    for name, api in by_http.items():
        view = api.get(f"/api/event/players/{_token(links[name]['url'])}").get_json()
        assert view["standing"]["points"] == standings[name].points
        (game,) = view["results"]
        assert (game["round"], game["table"]) == (1, view["table"]["table"])
        assert game["points"] == standings[name].points
    assert errors == []


CAMERA = """
window.BarcodeDetector = class {
  constructor(options) { this.formats = options.formats; }
  async detect(_video) {
    return window.badgeShown ? [{ rawValue: window.badgeShown, format: "qr_code" }] : [];
  }
};
navigator.mediaDevices.getUserMedia = async function () {
  const canvas = document.createElement("canvas");
  canvas.width = 64; canvas.height = 48;
  canvas.getContext("2d").fillRect(0, 0, 64, 48);
  return canvas.captureStream(5);
};
"""
"""A tablet's camera and QR reader as the browser gives them (headless Chromium has neither): the camera
films a grey card, the reader sees the badge the test holds up (``window.badgeShown``)."""


@pytest.mark.parametrize("db_location", ["sqlite"], indirect=True)  # a page's script: one engine does
def test_the_door_tablet_reads_a_badge_with_its_camera(
    served_event: Served, browser: Any, event_app: Flask, conn: Connection
) -> None:
    store = Tournaments(conn)
    tid = store.create("Paris open", seed=11).id
    for n in range(1, 5):
        store.record(tid, lambda t, n=n: t.register(f"P{n}"), actor="test")
    staff = Api(event_app.test_client())
    assert staff.login().status_code == 200
    links = {row["name"]: row for row in staff.get(f"/api/event/tournaments/{tid}/players").get_json()}
    tablet = browser.new_page(viewport={"width": 800, "height": 1100})
    errors = watch_errors(tablet)
    tablet.add_init_script(CAMERA)
    session = staff.client.get_cookie("hautetension_session")
    assert session is not None
    cookie = {"name": "hautetension_session", "value": session.value, "url": served_event.url}
    tablet.context.add_cookies([cookie])
    tablet.goto(f"{served_event.url}/event/tournaments/{tid}/door?lang=en")
    tablet.click("#door-camera")
    tablet.wait_for_selector("#door-video:not([hidden])")
    tablet.evaluate("url => { window.badgeShown = url; }", links["P3"]["url"])
    tablet.wait_for_selector("#door-player-3.state-here", timeout=WAIT)
    assert "P3 is checked in." in (tablet.text_content(".msg.ok") or "")
    assert errors == []


@pytest.mark.parametrize("db_location", ["sqlite"], indirect=True)
def test_without_a_qr_reader_the_door_offers_typing_only(
    served_event: Served, browser: Any, event_app: Flask, conn: Connection
) -> None:
    tid = Tournaments(conn).create("Paris open", seed=11).id
    staff = Api(event_app.test_client())
    assert staff.login().status_code == 200
    tablet = browser.new_page(viewport={"width": 800, "height": 1100})
    errors = watch_errors(tablet)
    tablet.add_init_script("delete window.BarcodeDetector;")
    session = staff.client.get_cookie("hautetension_session")
    assert session is not None
    cookie = {"name": "hautetension_session", "value": session.value, "url": served_event.url}
    tablet.context.add_cookies([cookie])
    tablet.goto(f"{served_event.url}/event/tournaments/{tid}/door?lang=en")
    tablet.wait_for_selector("#door-code")
    assert tablet.locator("#door-camera").is_hidden()
    assert errors == []
