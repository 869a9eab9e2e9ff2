"""|Hop> at the Master level in a real browser: a person plays a computer from
the display (blocking on the movement board, moving by tapping an electron
then where it goes, with the energy change shown), a spectator follows live,
and a game between two computers is watched until its result shows.

Drives Debian's Chromium through Playwright against the panel served by
waitress, so the pages run under the real Content-Security-Policy.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.webpanel.helpers import choose_options, fetch_json, game_state, watch_errors

MASTER = {"level": "master", "field": "positive", "interaction": "attractive"}

pytestmark = pytest.mark.browser


def create_from_lobby(page: Any, url: str, seats: list[tuple[str, str | None]], *, seed: int,
                      hot_seat: bool = False, max_rounds: int = 5) -> int:
    """Create a Master game with the lobby's form; seats are (name, computer level or None)."""
    page.goto(url + "/games")
    page.wait_for_selector(".seat-row[data-seat='1']")
    page.select_option("#game", "hop")
    for seat, (name, level) in enumerate(seats):
        row = f".seat-row[data-seat='{seat}']"
        page.fill(f"{row} .seat-name", name)
        if level is not None:
            page.select_option(f"{row} .seat-kind", "ai")
            page.select_option(f"{row} .seat-level", level)
    choose_options(page, "hop", {**MASTER, "max_rounds": max_rounds})
    page.click("#create details > summary")  # the seed is folded away
    page.fill("#seed", str(seed))
    if hot_seat:
        page.check("#hot-seat")
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def place(view: dict[str, Any], node: str, spin: str | None) -> str:
    """The selector of a spin place, or of an electrode (tapped as a whole)."""
    if any(e["node"] == node for e in view["board"]["electrodes"]):
        return f"#hop-board .hop-electrode[data-node='{node}']"
    return f"#hop-board .hop-place[data-node='{node}'][data-spin='{spin or 'up'}']"


def ends(view: dict[str, Any], move: dict[str, Any]) -> tuple[tuple[str, str | None], tuple[str, str | None]]:
    """Where a move starts and lands, as the page marks them (node, spin; None: the whole site)."""
    electrodes = {e["node"] for e in view["board"]["electrodes"]}
    if move["action"] == "spin-flip":
        return (move["at"], move["spin"]), (move["at"], "down" if move["spin"] == "up" else "up")
    if move["action"] == "doublon":
        return (move["from"], None), (move["to"], None)
    to_spin = None if move["to"] in electrodes else move["spin"]
    return (move["from"], move["spin"]), (move["to"], to_spin)


def touches(end: tuple[str, str | None], tap: tuple[str, str | None]) -> bool:
    """A tap on a place names this end of a move (a doublon's ends and electrodes are whole nodes)."""
    return end[0] == tap[0] and (end[1] is None or tap[1] is None or end[1] == tap[1])


def tapped_alike(view: dict[str, Any], moves: list[dict[str, Any]], start: tuple[str, str | None],
                 land: tuple[str, str | None]) -> list[dict[str, Any]]:
    """The moves a tap on ``start`` then on ``land`` may mean (the tests tap the up place of a whole site)."""
    def tap(end: tuple[str, str | None]) -> tuple[str, str | None]:
        electrode = any(e["node"] == end[0] for e in view["board"]["electrodes"])
        return (end[0], None if electrode else end[1] or "up")
    return [m for m in moves if touches(ends(view, m["move"])[0], tap(start))
            and touches(ends(view, m["move"])[1], tap(land))]


def delta_text(delta: int) -> str:
    return f"+{delta}" if delta > 0 else f"−{-delta}" if delta < 0 else "0"


def check_table(page: Any, view: dict[str, Any]) -> None:
    """Energy of each player and of the bank, and every electron, as the view says."""
    for seat, player in enumerate(view["players"]):
        assert page.inner_text(f"#hop-players li[data-seat='{seat}'] .energy") == f"⚡ {player['energy']}"
    assert page.inner_text("#hop-bank .bank") == f"Bank ⚡ {view['bank']}"
    shown = page.locator("#hop-board .hop-place.taken").evaluate_all(
        "ps => ps.map(p => [p.dataset.node, p.dataset.spin, p.dataset.colour])")
    expected = [[node, spin, colour] for node, spins in view["sites"].items()
                for spin, colour in spins.items() if colour]
    assert sorted(shown) == sorted(expected)
    for electrode in view["board"]["electrodes"]:
        counts = page.locator(f".hop-electrode[data-node='{electrode['node']}'] .count").evaluate_all(
            "cs => cs.map(c => [c.dataset.colour, Number(c.textContent)])")
        assert dict(counts) == view["electrodes"][electrode["colour"]]


def test_master_game_played_against_the_computer(served: Any, browser: Any) -> None:
    display = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = watch_errors(display)
    game_id = create_from_lobby(display, served.url, [("Ada", None), ("Hal", "mcts")], seed=11, hot_seat=True)
    display.wait_for_selector("#hop-board .hop-electrode[data-node='a1']")
    spectator = browser.new_context(viewport={"width": 800, "height": 1280}).new_page()
    spectator_errors = watch_errors(spectator)
    spectator.goto(f"{served.url}/games/{game_id}")
    spectator.wait_for_selector("#hop-board .hop-electrode[data-node='e5']")
    # 25 site cards with two spin places each, and the two electrodes.
    assert display.locator("#hop-board .hop-site").count() == 23
    assert display.locator("#hop-board .hop-place[data-spin]").count() == 46
    assert display.locator("#hop-board .hop-electrode").count() == 2
    # On a portrait tablet each spin place is at least a fingertip (44 CSS pixels) high.
    spot = spectator.locator("#hop-board .hop-place[data-node='c3'][data-spin='up'] .hit").bounding_box()
    assert spot is not None and spot["height"] >= 44 and spot["width"] >= 88

    blocks = taps = 0
    seen_blocked = False
    for _ in range(120):
        state = game_state(display, game_id)
        if state["status"] == "over":
            break
        if not state["can_move"]:
            display.wait_for_timeout(50)
            continue
        view = state["view"]
        display.wait_for_selector(f"#game-page[data-version='{state['version']}']")
        check_table(display, view)
        answer = fetch_json(display, f"/api/games/{game_id}/hop/moves")
        assert answer["version"] == state["version"]
        legal = answer["moves"]
        assert [m["move"] for m in legal] == state["legal_moves"]
        if view["phase"] == "block":
            # The blocker chooses on the movement board; the action kept free this turn is not offered.
            offered = display.locator("#hop-actions .hop-action.choice").evaluate_all(
                "ts => ts.map(t => t.dataset.action)")
            assert offered == [m["move"]["block"] for m in legal]
            if view["not_blockable"]:
                assert display.locator(f".hop-action[data-action='{view['not_blockable']}']").is_disabled()
            display.click(f"#hop-actions .hop-action.choice[data-action='{legal[-1]['move']['block']}']")
            blocks += 1
        elif legal[0]["move"].get("pass"):
            display.click("#hop-choices .hop-move")
        else:
            # The action the computer blocked is struck out on the movement board.
            display.wait_for_selector(f".hop-action.blocked[data-action='{view['blocked']}']")
            seen_blocked = True
            moves = [m for m in legal if "action" in m["move"]]
            display.wait_for_selector("#hop[data-energy-shown='true']")
            assert display.locator("#hop-choices .hop-move").count() == len(moves)
            # Prefer a move into the opponent's electrode, else one that gains energy.
            chosen = max(moves, key=lambda m: (m["move"].get("to") == "e5", -m["energy_change"]))
            start, land = ends(view, chosen["move"])
            display.click(place(view, *start))
            display.wait_for_selector(f"{place(view, *start)}.selected")
            if taps == 0:  # a second tap on the same electron lets it go
                display.click(place(view, *start))
                display.wait_for_selector("#hop-board .selected", state="detached")
                assert display.locator("#hop-choices .hop-move").count() == len(moves)
                display.click(place(view, *start))
                display.wait_for_selector(f"{place(view, *start)}.selected")
            # Every landing place of the tapped electron is highlighted with its energy change.
            label = display.text_content(f"{place(view, *land)} .delta") or ""
            assert delta_text(chosen["energy_change"]) in label.split("/")
            display.click(place(view, *land))
            if len(tapped_alike(view, moves, start, land)) == 1:
                taps += 1  # the second tap played it
            else:
                # Several moves start and end there (a hop or a doublon out of the electrode):
                # the page lists just those, with their energy change.
                display.wait_for_selector("#message:has-text('Several moves end there')")
                offered = [json.loads(m) for m in display.locator("#hop-choices .hop-move").evaluate_all(
                    "bs => bs.map(b => b.dataset.move)")]
                alike = tapped_alike(view, moves, start, land)
                assert chosen["move"] in offered and len(offered) == len(alike)
                display.locator("#hop-choices .hop-move").nth(offered.index(chosen["move"])).click()
        display.wait_for_function("v => Number(document.getElementById('game-page').dataset.version) > v",
                                  arg=state["version"])
    final = game_state(display, game_id)
    assert final["status"] == "over", "the game did not end"
    assert blocks > 0 and taps > 0 and seen_blocked
    for page in (display, spectator):
        page.wait_for_selector("#status:has-text('Game over')")
        assert page.locator("#history li").count() == final["moves"]
        check_table(page, final["view"])
    assert display.locator("#hop-choices .hop-move").count() == 0, "a finished game offers no move"
    assert display.locator("#hop-actions .hop-action:not([disabled])").count() == 0
    # The move log names who moved: Hal blocks first, for Ada.
    assert display.inner_text("#history li:first-child") == \
        f"Hal: block {final['view']['history'][0]['block'].replace('-', ' ')} (for Ada)"
    # A spectator never saw a move to make.
    assert spectator.locator("#hop-choices .hop-move").count() == 0
    assert errors == [] and spectator_errors == [], (errors, spectator_errors)


def test_two_computers_watched_to_the_result(served: Any, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1920, "height": 1080})  # the TV
    errors = watch_errors(page)
    game_id = create_from_lobby(page, served.url, [("Ada", "mcts"), ("Hal", "greedy")], seed=5,
                                max_rounds=40)  # long enough for an electrode to be reached
    page.wait_for_selector("#status:has-text('Game over')", timeout=45_000)
    final = game_state(page, game_id)
    assert final["status"] == "over" and final["view"]["level"] == "master"
    assert final["outcome"]["termination"] == "electrode_reached"
    page.wait_for_selector(f"#game-page[data-version='{final['version']}']")
    check_table(page, final["view"])
    assert page.locator("#history li").count() == final["moves"] > 0
    assert page.locator("#hop-choices .hop-move").count() == 0
    winners = [page.inner_text(f".lobby-seat[data-seat='{w}'] .seat-name")
               for w in final["outcome"]["winners"]]
    status = page.inner_text("#status")
    assert all(name in status for name in winners), status
    players = final["view"]["players"]
    loser = next(p for seat, p in enumerate(players) if seat not in final["outcome"]["winners"])
    assert f"reached the {loser['colour']} electrode" in status, status
    # The Hamiltonian in play is shown.
    assert "field positive" in page.inner_text("#hop-bank") and "attractive" in page.inner_text("#hop-bank")
    # Replay: the first position has every electron at home.
    page.click("#replay-first")
    page.wait_for_selector("#replay-note:has-text('move 0 of')")
    assert page.locator("#hop-board .hop-place.taken").count() == 0
    assert page.text_content(".hop-electrode[data-node='a1'] .count[data-colour='red']") == "7"
    assert errors == [], errors
