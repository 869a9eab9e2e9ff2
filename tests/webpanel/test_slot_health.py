"""The slot health on the board's panel: service mode's view (staff only, in words, each slot's colour),
and the table page's offer of the self-test, which names no slot."""

from __future__ import annotations

from flask.testing import FlaskClient

from protocol.health import BOUNCES, LAMP, NO_CONDUCTION, Finding
from store.db import connect
from store.slot_health import SlotHealthStore
from tests.webpanel.helpers import Api
from webpanel.config import PanelSettings

WORN = Finding("c4", NO_CONDUCTION, 12)


def save(settings: PanelSettings, *findings: Finding) -> None:
    conn = connect(settings.database)
    try:
        by_part: dict[str, list[Finding]] = {}
        for finding in findings:
            by_part.setdefault(finding.part, []).append(finding)
        counters = {part: {} for part in by_part} | {"board": {"games": 12}}
        SlotHealthStore(conn).save(counters, by_part)
    finally:
        conn.close()


def test_service_mode_shows_each_slot_s_health_with_what_to_check(
    staff: Api, settings: PanelSettings
) -> None:
    save(settings, WORN, Finding("a1", BOUNCES, 34), Finding("lamps", LAMP, 1))
    health = staff.get("/api/staff/slot-health", headers={"Accept-Language": "en"}).get_json()
    assert health["games"] == 12
    assert health["slots"] == {"c4": "fault", "a1": "watch"}
    assert [f["text"] for f in health["findings"]] == [
        "slot c4: no conduction in the last 12 games — check its contact",
        "a lamp's current disagreed with its switch in the last game — check the bulbs, fuses and drivers",
        "slot a1: its contacts bounce 3.4 times per move — clean or tighten them",
    ]


def test_in_french(staff: Api, settings: PanelSettings) -> None:
    save(settings, WORN)
    texts = [f["text"] for f in staff.get("/api/staff/slot-health", headers={"Accept-Language": "fr"})
             .get_json()["findings"]]
    assert texts == ["case c4\u00a0: aucune conduction depuis 12 parties — vérifiez son contact"]


def test_only_staff_see_it(client: FlaskClient, settings: PanelSettings) -> None:
    save(settings, WORN)
    assert client.get("/api/staff/slot-health").status_code == 401


def test_the_table_page_offers_the_self_test_without_naming_the_slot(client: FlaskClient,
                                                                     settings: PanelSettings) -> None:
    assert 'id="health-check"' not in client.get("/table").get_data(as_text=True)
    save(settings, WORN)
    page = client.get("/table").get_data(as_text=True)
    assert 'id="health-check"' in page and 'href="/staff/tests"' in page
    assert "c4" not in page and "conduction" not in page
