"""Every page of the panel in a real browser: its scripts run to the end without
an error (an uncaught exception, a rejected promise, a module that fails to
load, a CSP violation) and leave no ``window.*`` global of the project's own —
the pages are ES modules that import what they share.

Each page is opened until its own script has drawn what it draws, so a script
that never ran fails too. Drives Debian's Chromium through Playwright against
the panel served by waitress, under the real Content-Security-Policy.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

import pytest

from games.frame import AI_LEVELS, GAMES, JSON, DigitalGame, Move, Outcome
from tests.webpanel import helpers

pytestmark = pytest.mark.browser

TIMEOUT_MS = 10_000

OWN_GLOBALS = """() => {
  // What the page added to window: its own properties that a fresh window of the same origin lacks.
  const blank = document.createElement("iframe");
  document.body.appendChild(blank);
  const builtin = new Set(Object.getOwnPropertyNames(blank.contentWindow));
  blank.remove();
  return Object.getOwnPropertyNames(window).filter(name => !builtin.has(name));
}"""

CREATE = """body => import("/static/panel.js").then(panel => panel.api("POST", "/api/games", body))"""
MOVE = """([id, move, version]) => import("/static/panel.js")
  .then(panel => panel.api("POST", "/api/games/" + id + "/moves", {move: move, version: version}))"""


class Visitor:
    """One device (its own cookies) visiting pages; each visit checks that page's scripts."""

    def __init__(self, browser: Any, base: str) -> None:
        self.base = base
        self.page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.errors: list[str] = helpers.watch_errors(self.page)

    def open(self, path: str, *ready: str) -> Any:
        """Open *path*, wait for the *ready* selectors (what its script draws) and check the page."""
        self.errors.clear()
        self.page.goto(self.base + path)
        for selector in ready:
            self.page.wait_for_selector(selector, state="attached")
        self.check(path)
        return self.page

    def check(self, what: str) -> None:
        assert self.errors == [], f"{what}: {self.errors}"
        assert self.page.evaluate(OWN_GLOBALS) == [], f"{what} leaves globals on window"


@pytest.fixture
def visitor(browser: Any, served: Any, service: Any) -> Visitor:
    return Visitor(browser, served.url)


def test_live_simulated_and_staff_pages(visitor: Visitor, served: Any) -> None:
    api = helpers.Api(served.app.test_client())
    api.post("/api/sim/slots/e3", {"pawn": "attack"})
    visitor.open("/", "#slot-e3.occupied", "#conn[data-state=live]")  # the sim board is the home page on sim
    visitor.open("/board", "#slot-e3.occupied", "#conn[data-state=live]")
    visitor.open("/board?kiosk=1", "#slot-e3.occupied", "#conn[data-state=live]")
    visitor.open("/sim", "#slot-e3.occupied", "#test-button")
    page = visitor.open("/staff/login", "#login-form")
    page.fill("#pin", helpers.PIN)
    page.click("#login-form button[type=submit]")  # the login script sends the PIN and opens the dashboard
    page.wait_for_selector("#health-page #health-summary dt")
    visitor.check("/staff (health)")
    visitor.open("/staff/tests", "#slot-board .slot[data-reading]")
    visitor.open("/staff/game", "fieldset.player[hidden]")  # the seats beyond the player count are folded
    visitor.open("/staff/journal", "#journal li")


def test_tournament_pages(visitor: Visitor) -> None:
    page = visitor.open("/staff/login?next=/tournaments", "#login-form")
    page.fill("#pin", helpers.PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(visitor.base + "/tournaments")
    visitor.check("/tournaments")
    page.fill("input[name=name]", "Module cup")
    with page.expect_navigation():  # the tournament pages are forms answered by a new page
        page.click("button:has-text('Create')")
    page.fill("textarea[name=names]", "Ada\nBob\nCid\nDee")
    with page.expect_navigation():
        page.click("button:has-text('Register')")
    with page.expect_navigation():
        page.click("#next-round")
    page.wait_for_selector("#table-1")
    visitor.check("a tournament's overview")
    for path in ("/tournaments/1/rounds/1", "/tournaments/1/rounds/1/tables/1", "/tournaments/1/players/1",
                 "/tournaments/1/audit", "/tournaments/1/undo", "/tournaments/1?kiosk=1"):
        visitor.open(path, "main")


class Countdown(DigitalGame):
    """A game with no board page of its own: the players count down from 3, whoever says 0 wins."""

    name: ClassVar[str] = "countdown"

    class End(enum.Enum):
        ZERO = "zero"

    def __init__(self, players: Sequence[str], *, options: Mapping[str, JSON] | None = None,
                 seed: int | None = None) -> None:
        super().__init__(players, options=options, seed=seed)
        self._restart()

    def _restart(self) -> None:
        self.left = 3

    @property
    def to_act(self) -> int | None:
        return None if self.left == 0 else len(self.history) % 2

    def legal_moves(self) -> list[Move]:
        return [self.left - 1] if self.left else []

    def _apply(self, move: Move) -> None:
        self.left = move

    def outcome(self) -> Outcome | None:
        return Outcome(self.End.ZERO, winners=((len(self.history) - 1) % 2,)) if self.left == 0 else None

    def view(self, seat: int | None = None) -> dict[str, JSON]:
        return {"left": self.left, "history": list(self.history)}


@pytest.fixture
def countdown(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(GAMES, Countdown.name, Countdown)
    monkeypatch.setitem(AI_LEVELS, Countdown.name, {})
    yield


HUMANS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bob"}]
GAME_PAGES: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
    ("qttt", {}, ("#qttt .cell",)),
    ("hypnosia", {}, ("#hyp-board .hyp-square", "#hyp-score-rows .hyp-player")),
    ("hop", {"level": "bachelor"}, ("#hop-board .hop-place", "#hop-actions .hop-action")),
    ("hop", {"level": "master", "field": "positive", "interaction": "attractive"},
     ("#hop-board .hop-place", "#hop-bank .hamiltonian")),
    ("hop", {"level": "doctorate", "field": "positive", "interaction": "attractive"},
     ("#hop-board .hop-place", "#hop-market .hop-card")),
    ("countdown", {}, ("#generic-view:not(:empty)",)),
]


def test_lobby_and_every_game_page(visitor: Visitor, countdown: None) -> None:
    page = visitor.open("/games", ".seat-row[data-seat='1']", "#game option[value=countdown]")
    for game, options, ready in GAME_PAGES:
        created = page.evaluate(CREATE, {"game": game, "seats": HUMANS, "options": options, "seed": 3,
                                         "hot_seat": True})
        played = page.evaluate(MOVE, [created["id"], created["legal_moves"][0], created["version"]])
        visitor.open(f"/games/{created['id']}", f"#game-page[data-version='{played['version']}']",
                     "#history .history-move", *ready)
        page.click("#replay-first")  # the replay shows the start
        page.wait_for_selector("#replay-note:not([hidden])")
        visitor.check(f"{game} {options} replayed")
        page.goto(visitor.base + "/games")
    # A game with secrets is played from tablets: the display shows the join links, a tablet follows one.
    created = page.evaluate(CREATE, {"game": "hautetension", "seats": HUMANS, "seed": 3})
    visitor.open(f"/games/{created['id']}", "#ht-board .slot[data-slot='a9']", ".lobby-seat .join-link")
    join = page.get_attribute(".lobby-seat[data-seat='0'] .join-link", "href")
    page.goto(visitor.base + join)  # the join page takes the seat, then opens the game
    page.wait_for_url(re.compile(rf"/games/{created['id']}$"))
    page.wait_for_selector("#ht-stock:not([hidden])")  # the seat's own stock: this device holds seat 0
    visitor.check("the join link, then the seat's own page")
