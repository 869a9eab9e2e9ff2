"""The lobby, every digital game's page (playing, and its result screen) and the rules pages in a
real browser, in French and English, at the sizes people see them: a TV (1920×1080), a laptop
(1280×800), a tablet upright (820×1180) and a phone (390×844).

At each size: nothing overflows the screen sideways, a game page does not scroll and its board is
inside the screen and the largest thing on it, no word is broken across two lines, the controls are
at least 44 CSS px on the tablet and the phone, and a French page shows no common English word once
its script has drawn it. Each page passes axe-core's checks of WCAG 2.1 levels A and AA in both
languages. Screenshots go to ``test-artifacts/lobby/`` (ignored by git) for people to look at.

One Chromium and one panel for the module; the games are made and played through the API by the
visitor's own page (it hosts them, as the display that creates a game does).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from tests.webpanel import helpers, i18n_checks
from tests.webpanel.test_pages_browser import LAYOUT_PROBLEMS, SHOWN_TEXT, SIZES, TOUCH
from webpanel.app import create_app
from webpanel.config import LobbySettings

pytestmark = pytest.mark.browser

ARTIFACTS = i18n_checks.REPO / "test-artifacts" / "lobby"
TIMEOUT_MS = 20_000
HUMANS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bob"}]

CREATE = """body => import("/static/panel.js").then(panel => panel.api("POST", "/api/games", body))"""
PLAY = """async ([id, moves]) => {
  // Play the first legal move *moves* times (or to the end): the host plays every seat of a hot-seat game.
  const panel = await import("/static/panel.js");
  let state = await panel.api("GET", "/api/games/" + id);
  for (let i = 0; i < moves && state.status === "running"; i++) {
    if (!state.legal_moves || !state.legal_moves.length) { break; }
    const move = {move: state.legal_moves[0], version: state.version};
    await panel.api("POST", "/api/games/" + id + "/moves", move);
    state = await panel.api("GET", "/api/games/" + id);
  }
  return state;
}"""
BOARD_FIT = """() => {
  // The game page's board (the board area's drawing) against the screen and the page's own height.
  const board = document.querySelector("#board-area > *");
  const r = board.getBoundingClientRect();
  const side = document.getElementById("game-side").getBoundingClientRect();
  return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, area: r.width * r.height,
           side: side.width * side.height, innerWidth: innerWidth, innerHeight: innerHeight,
           scrollHeight: document.scrollingElement.scrollHeight };
}"""

GAMES: dict[str, tuple[dict[str, Any], int, tuple[str, ...]]] = {
    # name: (the game's creation, moves played, what its script draws)
    "qttt": ({"game": "qttt", "seats": HUMANS, "hot_seat": True}, 1, ("#qttt .cell .spooky-mark",)),
    "qttt-over": ({"game": "qttt", "seats": HUMANS, "hot_seat": True}, 40,
                  ("#qttt-course:not([hidden]) path",)),
    "hypnosia": ({"game": "hypnosia", "seats": HUMANS, "hot_seat": True, "seed": 5}, 4,
                 ("#hyp-board .hyp-square", "#hyp-score-rows .hyp-player")),
    "hypnosia-over": ({"game": "hypnosia", "seats": HUMANS, "hot_seat": True, "seed": 5,
                       "options": {"max_rounds": 3}}, 400, ("#hyp-course:not([hidden]) polyline",)),
    "hop": ({"game": "hop", "seats": HUMANS, "hot_seat": True, "seed": 3,
             "options": {"level": "master", "field": "positive", "interaction": "attractive"}}, 2,
            ("#hop-board .hop-place", "#hop-bank .hamiltonian")),
    "hop-doctorate": ({"game": "hop", "seats": HUMANS, "hot_seat": True, "seed": 73,
                       "options": {"level": "doctorate", "field": "positive",
                                   "interaction": "attractive"}}, 1,
                      ("#hop-board .hop-place", "#hop-market .hop-card")),
    "hop-over": ({"game": "hop", "seats": HUMANS, "hot_seat": True, "seed": 3,
                  "options": {"level": "master", "field": "negative", "interaction": "repulsive",
                              "max_rounds": 2}}, 200, ("#hop-course:not([hidden]) polyline",)),
    # Ada plays first (the first player is drawn otherwise): the computer, seat 2, waits its turn, so the
    # page shows the version made here (drawn to the computer, its move could come after it).
    "hautetension": ({"game": "hautetension", "seats": [*HUMANS, {"kind": "ai", "level": "random"}],
                      "options": {"first": 0}}, 0,
                     ("#ht-board .slot", ".lobby-seat .join-link")),
}
RULES = ("hautetension", "qttt", "hypnosia", "hop")


@pytest.fixture(scope="module")
def panel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[helpers.Served]:
    settings = helpers.make_settings(tmp_path_factory.mktemp("lobby-pages"))
    fake = helpers.FakeService(settings.database).start()
    # Both languages' displays play from this one address: room for all their games.
    lobby = LobbySettings(max_open_games=100, max_open_games_per_device=50)
    app: Flask = create_app({"PANEL": settings, "LOBBY": lobby, "TESTING": True})
    served = helpers.Served(app)
    try:
        yield served
    finally:
        served.close()
        fake.stop()


@pytest.fixture(scope="module", params=["fr", "en"])
def visitor(request: pytest.FixtureRequest, chromium: Any, panel: helpers.Served) -> Iterator[Any]:
    """A display in one language (the browser asks for it) that created one game of each kind."""
    lang: str = request.param
    context = chromium.new_context(locale="fr-FR" if lang == "fr" else "en-GB")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(panel.url + "/games")
    made = {}
    for name, (body, moves, _) in GAMES.items():
        created = page.evaluate(CREATE, body)
        state = page.evaluate(PLAY, [created["id"], moves])
        if name.endswith("-over"):
            assert state["status"] == "over", (name, state["moves"])
        made[name] = state
    yield lang, page, panel.url, made
    context.close()


def _paths(made: dict[str, Any]) -> dict[str, tuple[str, tuple[str, ...]]]:
    paths = {"lobby": ("/games", ("#games tr", ".seat-row"))}
    for name, (_, _, ready) in GAMES.items():
        shown = f"#game-page[data-version='{made[name]['version']}']"
        paths[name] = (f"/games/{made[name]['id']}", (shown, *ready))
    for game in RULES:
        paths[f"rules-{game}"] = (f"/games/rules/{game}", ("#rules[data-drawn=true]",))
    return paths


PAGE_NAMES = ["lobby", *GAMES, *(f"rules-{game}" for game in RULES)]


def _open(page: Any, base: str, path: str, ready: tuple[str, ...]) -> None:
    page.goto(base + path)
    for selector in ready:
        page.wait_for_selector(selector, state="attached")


@pytest.mark.parametrize("name", PAGE_NAMES)
def test_page_at_every_size(visitor: Any, name: str) -> None:
    lang, page, base, made = visitor
    path, ready = _paths(made)[name]
    errors = helpers.watch_errors(page, [])
    _open(page, base, path, ready)
    assert page.get_attribute("html", "lang") == lang
    problems = []
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        folder = ARTIFACTS / lang
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}-{size[0]}x{size[1]}.png"), full_page=True)
        at = f"{size[0]}×{size[1]}"
        problems += [f"{at}: {p}" for p in page.evaluate(LAYOUT_PROBLEMS, size in TOUCH)]
        if name in GAMES:
            fit = page.evaluate(BOARD_FIT)
            if fit["scrollHeight"] > fit["innerHeight"] + 1:
                problems.append(f"{at}: the game page scrolls: {fit['scrollHeight']} > {fit['innerHeight']}")
            if fit["left"] < -1 or fit["right"] > fit["innerWidth"] + 1 or fit["top"] < -1 \
                    or fit["bottom"] > fit["innerHeight"] + 1:
                problems.append(f"{at}: the board is not inside the screen: {fit}")
            if fit["area"] < fit["side"]:
                problems.append(f"{at}: the board is smaller than the column beside it: {fit}")
    if lang == "fr":
        english = i18n_checks.english_words_in(page.evaluate(SHOWN_TEXT))
        assert english == [], f"{name} in French shows English: {english}"
    assert problems == [], "\n".join(problems)
    assert errors == []


@pytest.mark.parametrize("name", PAGE_NAMES)
def test_page_passes_axe(visitor: Any, name: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    _, page, base, made = visitor
    path, ready = _paths(made)[name]
    page.set_viewport_size({"width": 1280, "height": 800})
    _open(page, base, path, ready)
    results = Axe().run(page, options={"runOnly": {"type": "tag",
                                                   "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
    assert results.violations_count == 0, results.generate_report()


def test_the_options_are_controls_that_make_the_game(visitor: Any) -> None:
    """A person chooses |Hop>'s level and Hamiltonian, the number of players and a turn count with
    the form's controls; the game made has those options."""
    lang, page, base, _ = visitor
    page.set_viewport_size({"width": 1280, "height": 800})
    _open(page, base, "/games", (".seat-row",))
    page.select_option("#game", "hop")
    field = ".game-options[data-game='hop'] .option[data-option='field']"
    assert page.locator(field).is_hidden(), "the Hamiltonian is asked for from the Master level on"
    helpers.choose_options(page, "hop", {"level": "doctorate", "field": "negative",
                                         "interaction": "repulsive", "max_rounds": 7})
    assert page.locator(field).is_visible()
    page.select_option("#seat-count", "4")
    assert page.locator(".seat-row").count() == 4
    boards = page.eval_on_selector_all(
        ".game-options[data-game='hop'] .option[data-option='board'] option:not([disabled])",
        "os => os.map(o => JSON.parse(o.value))")
    assert boards == ["square-6x6-4"], "only the boards for four players are offered"
    levels = page.eval_on_selector_all(".seat-row[data-seat='1'] .seat-level option",
                                       "os => os.map(o => o.textContent)")
    named = {"fr": ["facile", "moyen", "fort", "expert"], "en": ["easy", "medium", "strong", "expert"]}
    assert levels == named[lang], "the computer levels are named by strength"
    page.click("#create-button")
    page.wait_for_url(lambda url: "/games/" in url and url.rsplit("/", 1)[1].isdigit())
    state = helpers.game_state(page, int(page.url.rsplit("/", 1)[1]))
    assert state["game"] == "hop" and len(state["seats"]) == 4
    view = state["view"]
    assert view["level"] == "doctorate" and view["max_turns"] == 7 * 4
    assert (view["hamiltonian"]["field"], view["hamiltonian"]["interaction"]) == ("negative", "repulsive")
    # A wrong number is said in the page's language, and nothing is sent.
    _open(page, base, "/games", (".seat-row",))
    page.select_option("#game", "hypnosia")
    helpers.choose_options(page, "hypnosia", {"max_rounds": 0})
    page.click("#create-button")
    message = page.inner_text("#create-message")
    assert ("nombre entier" in message) if lang == "fr" else ("whole number" in message), message
    assert page.url.endswith("/games")


def test_creating_a_game_seats_its_creator_unless_they_watch(visitor: Any) -> None:
    """The person who creates a game on their device takes the first free seat: the board is theirs to
    play at once, on the screen (no "Play this seat here" to find below the fold). "Watch only" takes none."""
    lang, page, base, _ = visitor
    for size in ((390, 844), (820, 1180), (1920, 1080)):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        _open(page, base, "/games", (".seat-row",))
        page.select_option("#game", "qttt")
        assert page.input_value("#my-seat") == "first"
        page.click("#create-button")
        page.wait_for_url(lambda url: "/games/" in url and url.rsplit("/", 1)[1].isdigit())
        game_id = int(page.url.rsplit("/", 1)[1])
        state = helpers.game_state(page, game_id)
        assert state["you"]["seat"] == 0 and state["seats"][0]["joined"], state["you"]
        cell = page.locator("#qttt .cell:not([disabled])").first  # the board answers this device's hand
        cell.wait_for()
        box = cell.bounding_box()
        assert box is not None and box["y"] + box["height"] <= size[1], (size, box)
        ARTIFACTS.joinpath(lang).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / lang / f"created-seated-{size[0]}x{size[1]}.png"))
        cell.click()  # a quantum move: two squares
        page.locator("#qttt .cell:not([disabled])").nth(1).click()
        page.wait_for_selector("#qttt .cell .spooky-mark")
    # Another seat, or none.
    page.set_viewport_size({"width": 1280, "height": 800})
    _open(page, base, "/games", (".seat-row",))
    page.select_option("#game", "qttt")
    page.select_option("#my-seat", "1")
    page.click("#create-button")
    page.wait_for_url(lambda url: "/games/" in url and url.rsplit("/", 1)[1].isdigit())
    assert helpers.game_state(page, int(page.url.rsplit("/", 1)[1]))["you"]["seat"] == 1
    _open(page, base, "/games", (".seat-row",))
    page.select_option("#game", "qttt")
    page.select_option("#my-seat", "watch")
    page.click("#create-button")
    page.wait_for_url(lambda url: "/games/" in url and url.rsplit("/", 1)[1].isdigit())
    assert helpers.game_state(page, int(page.url.rsplit("/", 1)[1]))["you"]["seat"] is None
    # A hot-seat game is played whole on this display: nothing to choose.
    _open(page, base, "/games", (".seat-row",))
    page.select_option("#game", "qttt")
    page.check("#hot-seat")
    assert page.locator("#my-seat").is_hidden()
