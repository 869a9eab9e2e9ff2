"""The ranking's pages in a real browser, in French and English, on a TV, a tablet and a phone.

At each size nothing overflows the screen sideways, no word is broken across two lines, controls are
44 CSS px on the tablet and the phone (the panel's own page checks), and the French pages show no
common English word. Screenshots go to ``test-artifacts/pages/ranking/`` for people to look at.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from store.players import Players
from store.season import Calendar
from store.tournaments import Tournaments
from tests.webpanel import helpers, i18n_checks
from tests.webpanel.test_pages_browser import LAYOUT_PROBLEMS, SHOWN_TEXT

pytestmark = pytest.mark.browser

ARTIFACTS = i18n_checks.REPO / "test-artifacts" / "pages" / "ranking"
SIZES = [(1920, 1080), (820, 1180), (390, 844)]
TOUCH = {(820, 1180), (390, 844)}
PAGES = {
    "ranking": ("/ranking", "#ranking"),
    "ranking-kiosk": ("/ranking?kiosk=1", "#ranking"),
    "rating": ("/ranking?by=rating", "#rating"),
    "rating-kiosk": ("/ranking?by=rating&kiosk=1", "#rating"),
    "player": ("/ranking/players/{Ana}", "#games"),
    "player-rating": ("/ranking/players/{Ana}", "#rating-chart"),
    "round-chances": ("/tournaments/{round_tid}/rounds/1", ".chances"),
    "handicap": ("/ranking/handicap?p={Ben}&p={Chloé}&p={Eve}", "#proposal li"),
    "registry": ("/players", "#players"),
    "registry-player": ("/players/{Ana}", "#merge-player"),
    "ranking-event": ("/ranking?event=printemps-2026", "#ranking-event"),
    "season": ("/season", "#season-audit"),
}


@pytest.fixture
def served(event_app: Flask, season: dict[str, int], conn: sqlite3.Connection) -> Iterator[helpers.Served]:
    # The season page with what a federation's has: events (one with a long name), a friendly tournament.
    calendar = Calendar(conn)
    calendar.create(
        "printemps-2026", name="Grand tournoi de printemps de la ligue de Bretagne", place="Brest",
        starts_on="2026-04-11", ends_on="2026-04-12", actor="staff@test",
    )
    calendar.create("soirees", name="Soirées du club", actor="staff@test")
    (printemps,) = Tournaments(conn).all()
    calendar.place(printemps.id, event="printemps-2026", actor="staff@test")
    friendly = Tournaments(conn).create("Soirée découverte", event="soirees", counts=False)
    calendar.place(friendly.id, counts=True, actor="staff@test")
    calendar.place(friendly.id, counts=False, actor="staff@test")
    # A tournament whose first round waits for its games: its round page shows each table's chances.
    summer = Tournaments(conn).create("Été", seed=9).id
    for pid in season.values():
        Players(conn).enter(summer, pid, actor="staff@test")
    Tournaments(conn).record(summer, lambda t: t.next_round(), actor="staff@test")
    season["round_tid"] = summer
    serving = helpers.Served(event_app)
    yield serving
    serving.close()


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_ranking_page_at_every_size(
    served: helpers.Served, browser: Any, season: dict[str, int], lang: str
) -> None:
    context = browser.new_context(locale="fr-FR" if lang == "fr" else "en-GB")
    page = context.new_page()
    errors = helpers.watch_errors(page, [])
    page.goto(served.url + "/staff/login")
    page.fill("#pin", helpers.PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(re.compile(r"/event$"))  # the event server's staff page: the event's
    page.wait_for_selector("#boards")
    problems: list[str] = []
    for name, (path, selector) in PAGES.items():
        page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})
        page.goto(served.url + path.format(**season))
        page.wait_for_selector(selector)
        assert page.get_attribute("html", "lang") == lang
        for size in SIZES:
            page.set_viewport_size({"width": size[0], "height": size[1]})
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            (ARTIFACTS / lang).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / lang / f"{name}-{size[0]}x{size[1]}.png"), full_page=True)
            found = page.evaluate(LAYOUT_PROBLEMS, size in TOUCH)
            problems += [f"{name} {size[0]}×{size[1]}: {p}" for p in found]
        if lang == "fr":
            english = i18n_checks.english_words_in(page.evaluate(SHOWN_TEXT))
            assert english == [], f"{path} in French shows English: {english}"
    assert problems == [], "\n".join(problems)
    assert errors == []
    context.close()
