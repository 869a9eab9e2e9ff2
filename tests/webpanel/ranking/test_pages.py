"""The ranking's pages and the registry's forms: in French without English, and what the forms do."""

from __future__ import annotations

import re
import sqlite3

import pytest

from store.players import Players
from store.tournaments import Tournaments
from tests.webpanel import i18n_checks
from tests.webpanel.helpers import Api
from webpanel import i18n

PUBLIC = [
    "/ranking",
    "/ranking?kiosk=1",
    "/ranking/players/{Ana}",
    "/ranking/handicap?p={Ana}&p={Ben}&p={Dan}",
]
STAFF = ["/players", "/players/{Ana}", "/season"]


@pytest.mark.parametrize("path", PUBLIC + STAFF)
def test_a_french_page_shows_no_english(staff: Api, season: dict[str, int], path: str) -> None:
    staff.client.set_cookie(i18n.COOKIE, "fr")
    page = staff.client.get(path.format(**season))
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert i18n_checks.page_language(html) == "fr"
    assert i18n_checks.english_words(html) == []


def test_the_ranking_page_lists_the_ranked_then_the_provisional(
    visitor: Api, conn: sqlite3.Connection, season: dict[str, int]
) -> None:
    late = Players(conn).create("Zoé", actor="t")
    tid = Tournaments(conn).create("Court", seed=2).id
    for pid in (late.id, season["Ana"], season["Ben"], season["Dan"]):
        Players(conn).enter(tid, pid, actor="t")
    Tournaments(conn).record(tid, lambda t: t.next_round(), actor="t")
    Tournaments(conn).record(
        tid, lambda t: t.enter_result(1, 1, []), actor="t"
    )  # one game: nobody's lamp lit
    html = visitor.client.get("/ranking", headers={"Accept-Language": "en"}).get_data(as_text=True)
    ranking, provisional = html.split('id="provisional"')
    assert all(f'id="player-{pid}"' in ranking for pid in season.values())
    assert f'id="player-{late.id}"' in provisional and f'id="player-{late.id}"' not in ranking
    assert "Club de Brest" in ranking


def test_a_merged_players_page_sends_to_the_player_kept(staff: Api, season: dict[str, int]) -> None:
    dup = staff.post("/api/players", {"name": "A. N."}).get_json()["id"]
    staff.post(f"/api/players/{dup}/merge", {"into": season["Ana"]})
    response = staff.client.get(f"/ranking/players/{dup}")
    assert response.status_code == 301 and response.headers["Location"].endswith(
        f"/ranking/players/{season['Ana']}"
    )
    assert staff.client.get("/ranking/players/999").status_code == 404
    assert staff.client.get("/players/999").status_code == 404


def test_the_registry_pages_are_for_staff(visitor: Api) -> None:
    assert visitor.client.get("/players").status_code in (302, 303)
    assert visitor.client.post("/players", data={"name": "X"}).status_code in (302, 303, 400, 403)
    assert visitor.client.get("/api/players").get_json() == []


def form(staff: Api, url: str, **fields: str) -> str:
    """Post a staff form as the page does; the message the page it leads to shows."""
    response = staff.client.post(
        url,
        data={"csrf_token": staff.token, **fields},
        follow_redirects=True,
        headers={"Accept-Language": "en"},
    )
    assert response.status_code == 200
    found = re.findall(r'<p class="msg (\w+)" role="status">(.*?)</p>', response.get_data(as_text=True), re.S)
    assert len(found) == 1, found
    # A refusal the pages have no words for is its English sentence, marked as English.
    said = re.sub(r'^<span lang="en">(.*)</span>$', r"\1", found[0][1])
    return f"{found[0][0]}: {said}"


def test_the_registry_forms(staff: Api, conn: sqlite3.Connection) -> None:
    assert form(staff, "/players", name="Ana", club="Brest") == "ok: Ana (Brest) is registered (player 1)."
    assert form(staff, "/players", name="ana", club="brest").startswith(
        "error: Ana (Brest) is already registered"
    )
    assert form(staff, "/players/1", name="Ana", club="", city="Quimper") == "ok: Saved: Ana (Quimper)."
    assert form(staff, "/players", name="Anna").startswith("ok:")
    assert form(staff, "/players/2/merge", into="x") == "error: Choose the player to keep."
    assert form(staff, "/players/2/merge", into="1").startswith("ok: Merged into Ana (Quimper)")
    tid = Tournaments(conn).create("Été", seed=1).id
    url = f"/players/tournaments/{tid}"
    assert (
        form(staff, f"{url}/enter", player="1", request_id="f1") == "ok: Ana is registered in the tournament."
    )
    assert form(staff, f"{url}/enter", player="").startswith("error: Choose a player")
    Tournaments(conn).record(tid, lambda t: t.register("Walk-in"), actor="t")
    assert form(staff, f"{url}/link").startswith("ok: 0 linked to a registered player, 1 registered anew")
    assert form(staff, f"{url}/link", number="9", player="1").startswith("error: Tournament")
    audit = [a.kind for a in Players(conn).audit()]
    assert audit.count("link") == 2 and audit.count("merge") == 1 and audit.count("edit") == 1
    page = staff.client.get(f"/players?t={tid}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Walk-in" in page and "Audit trail" in page
