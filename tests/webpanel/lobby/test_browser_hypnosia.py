"""Hypnosia in a real browser: a hot-seat game against the computer played to
the end by tapping pawns and highlighted squares, a game of computers watched
to the end, and real dice entered on the display.

Drives Debian's Chromium through Playwright against the panel served by
waitress, so the pages run under the real Content-Security-Policy.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from games.frame import ai_player
from games.hypnosia.game import Hypnosia
from tests.webpanel.helpers import choose_options, fetch_json, join_by_link, watch_errors

SEED = 5

pytestmark = pytest.mark.browser


def create(page: Any, url: str, seats: list[tuple[str, str]], *, hot_seat: bool,
           options: dict[str, Any] | None = None) -> int:
    """Create a game from the lobby's form: seats as (kind, level or name)."""
    page.goto(url + "/games")
    page.wait_for_selector(".seat-row[data-seat='1']")
    page.select_option("#game", "hypnosia")
    page.select_option("#seat-count", str(len(seats)))
    for number, (kind, what) in enumerate(seats):
        row = f".seat-row[data-seat='{number}']"
        page.select_option(f"{row} .seat-kind", kind)
        if kind == "ai":
            page.select_option(f"{row} .seat-level", what)
        else:
            page.fill(f"{row} .seat-name", what)
    if hot_seat:
        page.check("#hot-seat")
    else:
        page.select_option("#my-seat", "watch")  # the display shows the game; the tablets play
    choose_options(page, "hypnosia", options or {})
    page.click("#create summary")  # the seed is folded away
    page.fill("#seed", str(SEED))
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def shown_after(page: Any, version: int) -> None:
    page.wait_for_function("v => Number(document.getElementById('game-page').dataset.version) > v",
                           arg=version)


def check_board_drawn_from_geometry(page: Any, data: dict[str, Any]) -> None:
    board = data["board"]
    squares = {sq for circle in board["circles"] for sq in circle["next"]}
    squares |= {sq for colour in board["colours"] for sq in colour["start"]} | {"centre"}
    drawn = page.locator("#hyp-board .hyp-square").evaluate_all("gs => gs.map(g => g.dataset.square)")
    assert sorted(drawn) == sorted(squares)
    assert page.locator("#hyp-board .hyp-bridge").count() == len(board["bridges"])
    assert page.locator("#hyp-board .hyp-bridge-square").count() == len(board["bridges"])


def pawns_on_screen(page: Any) -> dict[str, str]:
    """Each drawn pawn and the square it is drawn on (by position), from the SVG."""
    found: dict[str, str] = page.evaluate("""() => {
        const at = {};
        document.querySelectorAll('#hyp-board .hyp-square').forEach(g => {
            const c = g.querySelector('circle');
            at[c.getAttribute('cx') + ',' + c.getAttribute('cy')] = g.dataset.square;
        });
        const out = {};
        document.querySelectorAll('#hyp-pawns .hyp-pawn').forEach(p => {
            const c = p.querySelector('circle');
            if (p.classList.contains('in-centre')) { out[p.dataset.pawn] = 'centre'; return; }
            let best = null, dist = Infinity;
            for (const key of Object.keys(at)) {
                const [x, y] = key.split(',').map(Number);
                const d = Math.hypot(x - Number(c.getAttribute('cx')), y - Number(c.getAttribute('cy')));
                if (d < dist) { dist = d; best = at[key]; }
            }
            out[p.dataset.pawn] = best;
        });
        return out;
    }""")
    return found


def key(move: dict[str, Any], game: Hypnosia) -> tuple[Any, ...]:
    """What a pawn move does: which pawn or stack, crossing or not, by how much."""
    dice = game.view()["dice"]["values"]
    value = dice[0] + dice[1] if move["die"] == "sum" else dice[move["die"]]
    return move["pawn"], move.get("stack", False), move.get("cross", False), value


def same_move(a: dict[str, Any], b: dict[str, Any], game: Hypnosia) -> bool:
    return key(a, game) == key(b, game)


def test_hot_seat_game_against_the_computer_to_the_end(served: Any, browser: Any) -> None:
    display = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = watch_errors(display)
    game_id = create(display, served.url, [("human", "Ada"), ("ai", "greedy")], hot_seat=True)
    display.wait_for_selector("#hyp-board .hyp-square")
    check_board_drawn_from_geometry(display, fetch_json(display, f"/api/games/{game_id}/hypnosia"))

    # Ada plays the moves a sensible player would (the greedy computer's), by tapping the board.
    adviser = ai_player("hypnosia", "greedy", rng=random.Random(SEED))
    taps = several = 0
    for _ in range(400):
        state = fetch_json(display, f"/api/games/{game_id}")
        if state["status"] == "over":
            break
        if not state["can_move"]:
            display.wait_for_timeout(50)
            continue
        data = fetch_json(display, f"/api/games/{game_id}/hypnosia")
        if data["version"] != state["version"]:
            continue
        display.wait_for_selector(f"#game-page[data-version='{state['version']}']")
        game = Hypnosia.from_json({"players": [p["name"] for p in state["view"]["players"]],
                                   "options": state["view"]["options"], "seed": SEED, "moves": data["moves"]})
        move = adviser.choose(game)
        # With doubles, one die or the other is the same move: the page offers the first.
        index = [same_move(entry["move"], move, game) for entry in data["landings"]].index(True)
        origin, target = state["view"]["pawns"][move["pawn"]], data["landings"][index]["to"]
        display.click(f"#hyp-board .hyp-square.movable[data-square='{origin}']")
        display.wait_for_selector(f"#hyp-board .hyp-square.selected[data-square='{origin}']")
        highlighted = display.locator("#hyp-board .hyp-square.dest").evaluate_all(
            "gs => gs.map(g => g.dataset.square)")
        expected = {e["to"] for e in data["landings"] if state["view"]["pawns"][e["move"]["pawn"]] == origin}
        assert set(highlighted) == expected, "the legal destinations of the tapped pawn are highlighted"
        ways = {key(e["move"], game) for e in data["landings"]
                if state["view"]["pawns"][e["move"]["pawn"]] == origin and e["to"] == target}
        display.click(f"#hyp-board .hyp-square.dest[data-square='{target}']")
        if len(ways) > 1:
            # Several moves land there (either die, pawn or stack): the player picks one.
            display.wait_for_selector("#hyp-hint:has-text('Several moves land')")
            assert display.locator(".hyp-choice:visible").count() == len(ways)
            display.click(f".hyp-choice[data-index='{index}']")
            several += 1
        shown_after(display, state["version"])
        taps += 1
    final = fetch_json(display, f"/api/games/{game_id}")
    assert final["status"] == "over", "the game did not end"
    assert taps > 5 and several > 0, (taps, several)

    view = final["view"]
    display.wait_for_selector("#status:has-text('Game over')")
    # The status names each winner as the seat list does (a computer by its level: "Computer (medium)").
    winners = [display.inner_text(f".lobby-seat[data-seat='{w}'] .seat-name")
               for w in final["outcome"]["winners"]]
    status = display.inner_text("#status")
    assert all(name in status for name in winners), status
    scores = display.locator("#hyp-score-rows .hyp-score").all_inner_texts()
    assert scores == [str(p["score"]) for p in view["players"]]
    arrivals = display.locator("#hyp-centre li:not(.hyp-none)").all_inner_texts()
    # Each pawn by its colour and number, as players say it ("blue1" is "blue 1").
    assert [a.split(" — ")[0] for a in arrivals] == [re.sub(r"(\d+)$", r" \1", p) for p in view["centre"]]
    assert display.locator("#history li").count() == final["moves"]
    on_board = {p: sq for p, sq in view["pawns"].items() if sq != "captured"}
    assert pawns_on_screen(display) == on_board
    assert display.locator("#hyp-board .hyp-square.movable").count() == 0, "a finished game takes no move"

    # Replay: the first position shows every pawn at its start.
    display.click("#replay-first")
    display.wait_for_selector("#replay-note:has-text('move 0 of')")
    start = pawns_on_screen(display)
    assert start and all(sq.endswith(("-s1", "-s2", "-s3", "-s4")) for sq in start.values())
    display.click("#replay-live")
    display.wait_for_selector("#replay-note", state="hidden")
    assert errors == [], errors


def test_computers_play_to_the_end_while_a_spectator_watches(served: Any, browser: Any) -> None:
    display = browser.new_page(viewport={"width": 1920, "height": 1080})  # a TV
    errors = watch_errors(display)
    game_id = create(display, served.url, [("ai", "greedy"), ("ai", "greedy"), ("ai", "random")],
                     hot_seat=False)
    spectator = browser.new_context(viewport={"width": 800, "height": 1280}).new_page()
    spectator_errors = watch_errors(spectator)
    spectator.goto(f"{served.url}/games/{game_id}")
    for page in (display, spectator):
        page.wait_for_selector("#status:has-text('Game over')", timeout=45_000)
    final = fetch_json(spectator, f"/api/games/{game_id}")
    assert final["status"] == "over" and final["outcome"]["termination"] in ("centre_full", "no_pawn_left")
    for page in (display, spectator):
        page.wait_for_function("n => document.querySelectorAll('#history li').length === n",
                               arg=final["moves"])
        on_board = {p: sq for p, sq in final["view"]["pawns"].items() if sq != "captured"}
        assert pawns_on_screen(page) == on_board
        assert page.locator("#hyp-centre li:not(.hyp-none)").count() == len(final["view"]["centre"])
        assert page.locator("#hyp-enter").is_hidden()
    assert errors == [] and spectator_errors == [], (errors, spectator_errors)


def test_real_dice_entered_on_the_display(served: Any, browser: Any) -> None:
    display = browser.new_page(viewport={"width": 1024, "height": 768})
    errors = watch_errors(display)
    game_id = create(display, served.url, [("human", "Ada"), ("human", "Bob")], hot_seat=True,
                     options={"dice": "entered"})
    spectator = browser.new_context().new_page()
    spectator.goto(f"{served.url}/games/{game_id}")
    spectator.wait_for_selector("#status:has-text('Waiting for the dice of Ada')")
    assert spectator.locator("#hyp-enter").is_hidden(), "only the display enters the dice"

    def enter(a: int, b: int) -> None:
        version = fetch_json(display, f"/api/games/{game_id}")["version"]
        display.wait_for_selector(f"#game-page[data-version='{version}']")
        display.wait_for_selector("#hyp-enter:not([hidden])")
        assert display.is_disabled("#hyp-enter-roll"), "both dice first"
        display.click(f".hyp-die-button[data-die='0'][data-value='{a}']")
        display.click(f".hyp-die-button[data-die='1'][data-value='{b}']")
        display.click("#hyp-enter-roll")
        shown_after(display, version)

    enter(6, 6)  # Ada's opening roll
    enter(2, 1)  # Bob's: Ada starts
    enter(4, 3)  # Ada's first turn
    display.wait_for_selector("#hyp-dice .hyp-die")
    assert display.locator("#hyp-dice .hyp-die").all_inner_texts() == ["4", "3"]
    assert "Opening rolls: Ada 12, Bob 3" in display.inner_text("#hyp-opening")
    assert display.locator("#history li").all_inner_texts() == [
        "Ada: dice 6 · 6", "Bob: dice 2 · 1", "Ada: dice 4 · 3"]
    assert display.locator("#hyp-enter").is_hidden()
    state = fetch_json(display, f"/api/games/{game_id}")
    assert state["view"]["dice"] == {"values": [4, 3], "used": [False, False]}
    spectator.wait_for_selector("#hyp-dice .hyp-die")

    # Ada moves red4 (4 steps to its entry, the first die): the die is then shown as played.
    display.focus("#hyp-board .hyp-square.movable[data-square='red-s4']")  # the keyboard works too
    display.keyboard.press("Enter")
    display.wait_for_selector("#hyp-choices .hyp-choice")
    assert display.locator("#hyp-board .hyp-square.dest[data-square='o0']").count() == 1
    display.click("#hyp-board .hyp-square.dest[data-square='o0']")
    display.wait_for_selector("#hyp-dice .hyp-die.used")
    assert fetch_json(display, f"/api/games/{game_id}")["view"]["pawns"]["red4"] == "o0"
    assert spectator.locator("#hyp-board .hyp-square.movable").count() == 0
    assert errors == [], errors


def test_a_tablet_enters_its_own_dice_and_the_display_the_computers(
    served: Any, browser: Any
) -> None:
    display = browser.new_page(viewport={"width": 1920, "height": 1080})
    errors = watch_errors(display)
    game_id = create(display, served.url, [("human", "Ada"), ("ai", "greedy")], hot_seat=False,
                     options={"dice": "entered"})
    tablet, tablet_errors = join_by_link(browser, display, served.url, game_id,
                                               viewport={"width": 800, "height": 1280}, has_touch=True)

    def enter(page: Any, a: int, b: int) -> None:
        version = fetch_json(page, f"/api/games/{game_id}")["version"]
        page.wait_for_selector(f"#game-page[data-version='{version}'] #hyp-enter:not([hidden])")
        press = page.tap if page is tablet else page.click  # the tablet's screen is touched
        press(f".hyp-die-button[data-die='0'][data-value='{a}']")
        press(f".hyp-die-button[data-die='1'][data-value='{b}']")
        press("#hyp-enter-roll")
        shown_after(page, version)

    enter(tablet, 5, 5)   # Ada's opening roll, on her tablet
    tablet.wait_for_selector("#status:has-text('Waiting for the dice of Computer')")
    assert tablet.locator("#hyp-enter").is_hidden(), "a tablet enters only its own seat's dice"
    enter(display, 1, 2)  # the computer's, on the display: Ada starts
    enter(tablet, 3, 4)
    tablet.wait_for_selector("#hyp-board .hyp-square.movable")
    tablet.tap("#hyp-board .hyp-square.movable[data-square='red-s3']")
    tablet.tap("#hyp-board .hyp-square.dest[data-square='o0']")  # red3 by the 3
    tablet.wait_for_selector("#hyp-dice .hyp-die.used")
    assert fetch_json(display, f"/api/games/{game_id}")["view"]["pawns"]["red3"] == "o0"
    display.wait_for_selector("#hyp-dice .hyp-die.used")  # the display follows live
    assert pawns_on_screen(display)["red3"] == "o0"
    assert errors == [] and tablet_errors == [], (errors, tablet_errors)
