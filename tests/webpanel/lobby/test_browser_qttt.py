"""Quantum tic-tac-toe in a real browser: the display creates a game against the
computer, a tablet joins by the link the display shows and plays it to the end;
a hot-seat game shows the cycle and offers the collapse to the right player only.

Drives Debian's Chromium through Playwright against the panel served by
waitress, so the pages run under the real Content-Security-Policy.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.webpanel.helpers import game_state, join_by_link, watch_errors

pytestmark = pytest.mark.browser


def shown_after(page: Any, version: int) -> None:
    """Wait until the page shows a version of the game newer than ``version`` (its move was answered)."""
    page.wait_for_function("v => Number(document.getElementById('game-page').dataset.version) > v",
                           arg=version)


def test_full_game_against_the_computer(served: Any, browser: Any) -> None:
    display = browser.new_page(viewport={"width": 1280, "height": 800})
    display_errors = watch_errors(display)
    display.goto(served.url + "/games")
    display.wait_for_selector(".seat-row[data-seat='1']")
    display.select_option("#game", "qttt")
    display.select_option(".seat-row[data-seat='1'] .seat-kind", "ai")
    display.select_option(".seat-row[data-seat='1'] .seat-level", "heuristic")
    display.fill(".seat-row[data-seat='0'] .seat-name", "Ada")
    display.select_option("#my-seat", "watch")  # the display shows the game; Ada plays from her tablet
    display.click("#create-button")
    display.wait_for_url(re.compile(r"/games/\d+$"))
    game_id = int(display.url.rsplit("/", 1)[1])

    # The display shows a QR code and the short link of Ada's free seat.
    display.wait_for_selector(".lobby-seat[data-seat='0'] img.qr")
    # The image is in the page before it has loaded: wait for the load, then check it decoded.
    display.wait_for_function(
        "() => { const img = document.querySelector(\".lobby-seat[data-seat='0'] img.qr\");"
        " return img && img.complete && img.naturalWidth > 0; }"
    )
    # The tablet (another device: its own cookies) opens the link and lands on its seat.
    tablet, tablet_errors = join_by_link(browser, display, served.url, game_id,
                                               viewport={"width": 800, "height": 1280})
    tablet.wait_for_selector(".lobby-seat[data-seat='0'] .seat-kind:has-text('you')")
    # The seat is taken: the display no longer offers its code.
    display.wait_for_selector(".lobby-seat[data-seat='0'] .join-link", state="detached")

    for _ in range(40):
        state = game_state(tablet, game_id)
        if state["status"] == "over":
            break
        if not state["can_move"]:
            tablet.wait_for_timeout(100)
            continue
        move = state["legal_moves"][0]
        tablet.wait_for_selector(f"#game-page[data-version='{state['version']}']")  # the screen caught up
        if isinstance(move, dict):
            buttons = tablet.wait_for_selector("#collapse-buttons .collapse-button")
            assert buttons is not None
            assert tablet.locator("#collapse-buttons .collapse-button").count() == 2
            assert tablet.locator("#qttt .cell.cycle").count() >= 2
            tablet.click(f"#collapse-buttons .collapse-button[data-square='{move['collapse']}']")
        elif len(move) == 1:
            tablet.click(f"#qttt .cell[data-square='{move[0]}']:not([disabled])")
        else:
            tablet.click(f"#qttt .cell[data-square='{move[0]}']:not([disabled])")
            tablet.wait_for_selector(f"#qttt .cell.selected[data-square='{move[0]}']")
            tablet.click(f"#qttt .cell[data-square='{move[1]}']:not([disabled])")
        shown_after(tablet, state["version"])
    final = game_state(tablet, game_id)
    assert final["status"] == "over", "the game did not end within 40 turns"

    # Both screens show the result, followed live (no reload).
    winner = final["view"]["winner"]
    expected = (
        "A draw" if final["outcome"]["draw"] else ("Ada wins with X" if winner == "X" else "wins with O")
    )
    for page in (tablet, display):
        page.wait_for_selector(f"#status:has-text('{expected}')")
        assert page.locator("#history li").count() == final["moves"]
    assert not tablet.locator("#qttt .cell:not([disabled])").count(), "a finished game takes no more moves"

    # Replay: back to the empty board, then one move on.
    display.click("#replay-first")
    display.wait_for_selector("#replay-note:has-text('move 0 of')")
    assert display.locator("#qttt .spooky-mark, #qttt .classical-mark").count() == 0
    display.click("#replay-next")
    display.wait_for_selector("#replay-note:has-text('move 1 of')")
    assert display.locator("#qttt .spooky-mark").count() == 2
    display.click("#replay-live")
    display.wait_for_selector("#replay-note", state="hidden")
    assert tablet.locator("#rematch").is_hidden(), "only the display that created the game offers a rematch"

    # The display starts the same game again: a new game, the same seats, new join codes.
    display.click("#rematch")
    display.wait_for_url(re.compile(rf"/games/{game_id + 1}$"))
    display.wait_for_selector(".lobby-seat[data-seat='0'] .join-link")
    # The computer's name says what it is, once: "Computer (medium)", not "… (computer, medium)".
    assert display.inner_text(".lobby-seat[data-seat='1']").strip() == "Computer (medium)"
    # The algorithm is said in the level's tooltip.
    assert "search" in (display.get_attribute(".lobby-seat[data-seat='1']", "title") or "")
    assert display_errors == [] and tablet_errors == [], (display_errors, tablet_errors)


def test_hot_seat_cycle_and_collapse_offered_to_the_chooser(served: Any, browser: Any) -> None:
    display = browser.new_page(viewport={"width": 1024, "height": 768})
    errors = watch_errors(display)
    display.goto(served.url + "/games")
    display.wait_for_selector(".seat-row[data-seat='1']")
    display.select_option("#game", "qttt")
    display.check("#hot-seat")
    display.click("#create-button")
    display.wait_for_url(re.compile(r"/games/\d+$"))
    game_id = int(display.url.rsplit("/", 1)[1])
    assert display.locator(".join-link").count() == 0  # hot seat: nobody joins

    def pair(a: int, b: int) -> None:
        version = game_state(display, game_id)["version"]
        display.wait_for_selector(f"#game-page[data-version='{version}']")
        display.click(f"#qttt .cell[data-square='{a}']:not([disabled])")
        display.click(f"#qttt .cell[data-square='{b}']:not([disabled])")
        shown_after(display, version)

    pair(0, 4)   # X1
    pair(4, 8)   # O2
    pair(8, 0)   # X3 closes the cycle 0-4-8: O chooses
    display.wait_for_selector("#collapse-buttons .collapse-button")
    cycle = display.locator("#qttt .cell.cycle").evaluate_all("cs => cs.map(c => c.dataset.square)")
    assert sorted(cycle) == ["0", "4", "8"]
    assert display.locator(".spooky-mark.closing").count() == 2
    assert "closed a cycle" in display.inner_text("#collapse-text")

    # A spectator's screen shows the cycle and who chooses, but offers no choice.
    spectator = browser.new_context().new_page()
    spectator.goto(f"{served.url}/games/{game_id}")
    spectator.wait_for_selector("#collapse-text:has-text('chooses where it lands')")
    assert spectator.locator("#collapse-buttons .collapse-button").count() == 0
    assert spectator.locator("#qttt .cell:not([disabled])").count() == 0
    spectator.click("#qttt .cell[data-square='0']", force=True)  # a tap does nothing

    display.click("#collapse-buttons .collapse-button[data-square='0']")
    display.wait_for_selector("#qttt .cell.classical[data-square='0'] .classical-mark")
    state = game_state(display, game_id)
    assert [sq["classical"]["symbol"] if sq["classical"] else None for sq in state["view"]["squares"]] == \
        ["X", None, None, None, "X", None, None, None, "O"]
    assert state["view"]["history"] == [[0, 4], [4, 8], [8, 0], {"collapse": 0}]
    spectator.wait_for_selector("#qttt .cell.classical[data-square='8']")
    # O moves twice in a row: after choosing, O places its own pair.
    assert "O" in display.inner_text("#hint")

    assert errors == [], errors

    # An illegal move is refused with the engine's reason and changes nothing.
    display.evaluate("""id => import('/static/panel.js')
        .then(panel => panel.api('POST', '/api/games/' + id + '/moves', {move: [0, 1]}))
        .catch(e => { document.getElementById('message').textContent = e.message; })""", game_id)
    assert "already holds" in display.inner_text("#message")
    assert game_state(display, game_id)["version"] == state["version"]


# Moves 1-9 make a path through every square, then O lands mark 9 on square 0: X completes row 0
# (its largest move number 9) and O row 1 (6) in the same collapse (tests/games/qttt/test_game.py).
BOTH_LINES = [[0, 1], [1, 3], [3, 2], [2, 4], [4, 6], [6, 5], [5, 7], [7, 8], [8, 0], {"collapse": 0}]
WHY = {
    "fr": ("gagne avec les O", "cases 3, 4 et 5", "coup 6", "cases 0, 1 et 2", "coup 9", "le plus petit"),
    "en": ("wins with O", "squares 3, 4, and 5", "move 6", "squares 0, 1, and 2", "move 9", "lower"),
}


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_when_both_players_complete_a_line_the_page_says_who_wins_and_why(
    served: Any, browser: Any, lang: str
) -> None:
    from tests.webpanel import i18n_checks
    from tests.webpanel.test_pages_browser import ARTIFACTS, LAYOUT_PROBLEMS, SHOWN_TEXT, TOUCH

    context = browser.new_context(locale="fr-FR" if lang == "fr" else "en-GB")
    display = context.new_page()
    errors = watch_errors(display)
    display.set_viewport_size({"width": 1920, "height": 1080})
    display.goto(served.url + "/games")
    display.wait_for_selector(".seat-row[data-seat='1']")
    display.select_option("#game", "qttt")
    display.check("#hot-seat")
    display.click("#create-button")
    display.wait_for_url(re.compile(r"/games/\d+$"))
    game_id = int(display.url.rsplit("/", 1)[1])
    display.evaluate("""([id, moves]) => import('/static/panel.js').then(async panel => {
        for (const move of moves) { await panel.api('POST', '/api/games/' + id + '/moves', {move}); } })""",
                     [game_id, BOTH_LINES])
    assert game_state(display, game_id)["view"]["winner"] == "O"
    winner, *reasons = WHY[lang]
    for size in [(1920, 1080), (820, 1180), (390, 844)]:
        display.set_viewport_size({"width": size[0], "height": size[1]})
        display.goto(f"{served.url}/games/{game_id}")
        display.wait_for_selector("#qttt-why:not([hidden])")
        why = display.inner_text("#qttt-why")
        assert all(reason in why for reason in reasons), why
        assert winner in display.inner_text("#status"), display.inner_text("#status")
        folder = ARTIFACTS / lang
        folder.mkdir(parents=True, exist_ok=True)
        display.screenshot(path=str(folder / f"qttt-both-lines-{size[0]}x{size[1]}.png"), full_page=True)
        assert display.evaluate(LAYOUT_PROBLEMS, size in TOUCH) == []
        if lang == "fr":
            assert i18n_checks.english_words_in(display.evaluate(SHOWN_TEXT)) == []
    assert errors == []
    context.close()
