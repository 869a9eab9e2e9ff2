"""The wiring wizard's staff page and its API, on the real board service (in a thread) running a
virtual board wired otherwise than configured; the browser test drives the page as a builder would."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from games.hautetension.layout import load_layout
from games.hautetension.pawn import PawnKind
from hardware.backends.sim import SimBoard
from hardware.service import BoardService, BoardSettings
from hardware.settings import HardwareSettings, SlotWiring
from hardware.wiring.demo import scramble
from store.commands import Commands
from store.db import connect
from store.journal import Journal
from store.wiring import WiringProgress
from tests.webpanel.helpers import PIN, Api, wait_for, watch_errors
from webpanel.config import PanelSettings

TIMEOUT_MS = 10_000


class Board:
    """The board service in a thread, on a simulated board whose wires are scrambled."""

    def __init__(self, settings: PanelSettings) -> None:
        self.layout = load_layout()
        hardware = HardwareSettings()
        self.backend = SimBoard(hardware, self.layout)
        self.physical: dict[str, SlotWiring] = scramble(hardware, self.layout, seed=22)
        self.backend.virtual_board.rewire(self.physical)
        self.virtual = self.backend.virtual_board
        self.conn = connect(settings.database)
        self.service = BoardService(self.backend, self.layout, journal=Journal(self.conn),
                                    commands=Commands(self.conn),
                                    settings=BoardSettings(settle=0.05, min_turn=0))
        self.service.start()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.service.run, args=(self._stop,), daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.service.close()
        self.conn.close()


@pytest.fixture
def board(settings: PanelSettings) -> Iterator[Board]:
    running = Board(settings)
    yield running
    running.close()


def wizard(staff: Api) -> dict[str, Any]:
    response = staff.get("/api/staff/wiring")
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def test_staff_only(client: Any, board: Board) -> None:
    assert client.get("/api/staff/wiring").status_code == 401
    assert client.get("/staff/wiring").status_code == 302


def test_start_steer_and_stop_the_wizard_of_the_board_service(staff: Api, board: Board) -> None:
    before = wizard(staff)
    assert before["running"] is None and before["wizard"] is None and before["service"]["running"]
    started = staff.post("/api/staff/wiring", {"action": "start", "hold": 0.05})
    assert started.status_code == 200 and started.get_json()["result"]["running"] is True
    now = wait_for(lambda: (w := wizard(staff))["wizard"]["task"] == "defense" and w)
    assert now["running"] == "service" and now["runner"] == "board service" and now["wizard"]["slot"] == "a9"
    board.virtual.place("a9", PawnKind.ATTACK)  # the wrong kind: two channels close at once
    problem = wait_for(lambda: wizard(staff)["wizard"]["problems"])[0]
    assert problem["kind"] == "too-many-channels" and problem["slot"] == "a9"
    board.virtual.lift("a9")
    board.virtual.place("a9", PawnKind.DEFENSE)
    wait_for(lambda: wizard(staff)["wizard"]["task"] == "attack")
    board.virtual.lift("a9")
    board.virtual.place("a9", PawnKind.ATTACK)
    learned = wait_for(lambda: wizard(staff)["wizard"]["learned"])
    expected = board.physical["a9"]
    assert learned["a9"] == {"presence": [expected.presence.multiplexer, expected.presence.channel],  # type: ignore[union-attr]
                             "conduction": [expected.conduction.multiplexer, expected.conduction.channel]}  # type: ignore[union-attr]
    assert wizard(staff)["wizard"]["moved"] == ["a9"]
    redo = staff.post("/api/staff/wiring", {"action": "redo", "slot": "a9"})
    assert redo.status_code == 200 and redo.get_json()["result"]["view"]["slot"] == "a9"
    unknown = staff.post("/api/staff/wiring", {"action": "redo", "slot": "z9"})
    assert unknown.status_code == 409 and "no slot" in unknown.get_json()["error"]
    assert staff.post("/api/staff/wiring", {"action": "stop"}).status_code == 200
    stopped = wizard(staff)
    assert stopped["running"] is None and stopped["wizard"]["count"] == 0  # a9 was to be learned again


@pytest.mark.parametrize("body, error", [
    ({"action": "dance"}, "action must be one of start, stop, redo, accept, reset"),
    ({"action": "redo", "slot": 9}, "slot must be a slot name"),
    ({"action": "start", "restart": "yes"}, "restart must be true or false"),
    ({"action": "start", "hold": "long"}, "hold must be a number of seconds"),
    ({"action": "start", "hold": 10}, "hold must be a number of seconds from 0.02 to 5.0"),
    ({"action": ["start"]}, "action must be one of"),
    ({"action": "start", "colour": "red"}, "colour"),
    ({}, "action"),
])
def test_bad_requests_are_refused_and_change_nothing(staff: Api, board: Board, body: Any, error: str) -> None:
    response = staff.post("/api/staff/wiring", body)
    assert response.status_code == 400 and error in response.get_json()["error"]
    assert response.get_json()["code"] in {"bad_field", "unknown_fields", "missing_fields"}
    assert wizard(staff)["running"] is None


def test_the_panel_takes_the_wizards_own_hold_range() -> None:
    from hardware.wiring.session import HOLD_RANGE
    from webpanel.wiring import MAX_HOLD_S, MIN_HOLD_S

    assert (MIN_HOLD_S, MAX_HOLD_S) == HOLD_RANGE


def test_refused_during_a_game_as_the_slot_test_is(staff: Api, board: Board) -> None:
    assert staff.post("/api/staff/game", {"players": [{"name": "Ana"}, {"name": "Ben"}]}).status_code == 201
    for response in (staff.get("/api/staff/wiring"), staff.post("/api/staff/wiring", {"action": "start"})):
        assert response.status_code == 409 and response.get_json()["code"] == "board_game_running"
        assert response.get_json()["error"] == (
            "the wiring wizard is refused while a game is running: it reads raw slot readings")
    assert staff.post("/api/staff/wiring", {"action": "stop"}).status_code == 200
    assert board.service.wiring is None


def test_a_wizard_run_from_the_command_line_is_shown(staff: Api, settings: PanelSettings,
                                                     board: Board) -> None:
    conn = connect(settings.database)
    WiringProgress(conn).save("pinwheel-80", {}, {"task": "defense", "slot": "c9", "count": 2, "total": 80},
                              running="hautetension wiring learn (pid 4321)")
    conn.close()
    shown = wizard(staff)
    assert shown["running"] == "command" and shown["runner"] == "hautetension wiring learn (pid 4321)"
    assert shown["wizard"]["slot"] == "c9"


# -- in the browser -----------------------------------------------------------------------------------


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def wiring_page(browser: Any, served: Any, **context: Any) -> tuple[Any, list[str]]:
    """The wiring page on a device of its own, logged in as staff; and its errors."""
    page = browser.new_context(**context).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = watch_errors(page)
    page.goto(served.url + "/staff/login?next=/staff/wiring")
    page.fill("#pin", PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#wiring-status:not(:empty)")  # drawn, its buttons listening
    return page, errors


@pytest.mark.browser
def test_a_builder_learns_slots_on_the_page(browser: Any, served: Any, board: Board) -> None:
    page, errors = wiring_page(browser, served)
    expect(page.locator("#wiring-status")).to_contain_text("Not started")
    expect(page.locator("#slot-a9")).to_be_visible()
    page.click("#wiring-start")
    instruction = page.locator("#wiring-instruction")
    expect(instruction).to_have_text("Place a defense pawn on a9.")
    expect(page.locator("#slot-a9")).to_have_class("slot target")
    # The builder puts an attack pawn where a defense pawn was asked for: the page says what went wrong.
    board.virtual.place("a9", PawnKind.ATTACK)
    expect(page.locator("#wiring-problems li")).to_contain_text("an attack pawn instead of a defense pawn")
    board.virtual.lift("a9")
    for slot in ("a9", "b9", "c9"):
        expect(instruction).to_contain_text(f"place a defense pawn on {slot}.", ignore_case=True)
        for pawn in board.virtual.pawns.copy():
            board.virtual.lift(pawn)
        board.virtual.place(slot, PawnKind.DEFENSE)
        expect(instruction).to_have_text(f"Replace the defense pawn on {slot} with an attack pawn.")
        board.virtual.lift(slot)
        board.virtual.place(slot, PawnKind.ATTACK)
        expect(page.locator(f"#slot-{slot}")).to_have_class("slot moved lift")
    expect(instruction).to_have_text("Lift the pawn from c9, then place a defense pawn on d9.")
    expect(page.locator("#wiring-progress")).to_have_text("3 of 80 slots learned")
    expect(page.locator("#slot-d9")).to_have_class("slot target")
    # Learn b9 again: choose it on the drawing.
    page.click("#slot-b9")
    expect(page.locator("#wiring-selected")).to_have_text("Chosen: b9")
    page.click("#wiring-redo")
    expect(instruction).to_have_text("Lift the pawn from c9, then place a defense pawn on b9.")
    expect(page.locator("#wiring-progress")).to_have_text("2 of 80 slots learned")
    page.click("#wiring-stop")
    expect(page.locator("#wiring-status")).to_contain_text("Stopped with 2 of 80 slots learned")
    expect(page.locator("#wiring-start")).to_have_text("Resume")
    expect(instruction).to_have_text("")
    assert board.service.wiring is None
    # A finished wizard (its progress as the service leaves it) tells how to write the map.
    conn = connect(served.app.config["PANEL"].database)
    record = WiringProgress(conn).load()
    assert record is not None
    finished = {**record.view, "complete": True, "count": 80, "moved": ["a9", "c9"]}
    WiringProgress(conn).save("pinwheel-80", record.progress, finished, running=None)
    conn.close()
    expect(page.locator("#wiring-done")).to_be_visible()
    expect(page.locator("#wiring-summary")).to_have_text(
        "2 slots are wired otherwise than the configuration says.")
    expect(page.locator("#wiring-done code")).to_have_text("sudo hautetension wiring apply")
    assert errors == []


@pytest.mark.browser
def test_the_page_speaks_french_with_every_problem_in_words(browser: Any, served: Any, board: Board) -> None:
    from tests.webpanel import i18n_checks

    page, errors = wiring_page(browser, served, locale="fr-FR")
    page.click("#wiring-start")
    expect(page.locator("#wiring-instruction")).to_have_text("Posez un pion de défense sur a9.")
    board.virtual.place("a9", PawnKind.ATTACK)
    expect(page.locator("#wiring-problems li")).to_contain_text(
        "un pion d’attaque au lieu d’un pion de défense")
    assert page.get_attribute("html", "lang") == "fr"
    assert i18n_checks.english_words(page.content()) == []
    assert errors == []


def test_the_page_has_words_for_every_problem_the_wizard_explains() -> None:
    """A problem kind without its words on the page would be shown in the service's English."""
    from pathlib import Path

    from hardware.wiring.learner import ProblemKind

    script = (Path(__file__).parents[2] / "webpanel" / "static" / "wiring.js").read_text()
    assert [kind.value for kind in ProblemKind if f'case "{kind.value}":' not in script] == []


@pytest.mark.browser
def test_on_the_simulated_board_the_page_does_what_it_asks(browser: Any, served: Any, board: Board) -> None:
    page, errors = wiring_page(browser, served)
    simulate = page.locator("#wiring-simulate")
    expect(simulate).to_be_hidden()
    page.click("#wiring-start")
    instruction = page.locator("#wiring-instruction")
    expect(instruction).to_have_text("Place a defense pawn on a9.")
    simulate.click()
    expect(instruction).to_have_text("Replace the defense pawn on a9 with an attack pawn.")
    assert board.virtual.pawns == {"a9": PawnKind.DEFENSE}
    simulate.click()
    expect(instruction).to_have_text("Lift the pawn from a9, then place a defense pawn on b9.")
    assert board.virtual.pawns == {"a9": PawnKind.ATTACK}
    simulate.click()
    expect(instruction).to_have_text("Place a defense pawn on b9.")
    assert board.virtual.pawns == {}
    expect(page.locator("#wiring-progress")).to_have_text("1 of 80 slots learned")
    assert errors == []


@pytest.mark.browser
def test_the_wizard_is_followed_by_hand_on_the_simulated_board(
    browser: Any, served: Any, board: Board
) -> None:
    """/sim shows the simulated board's real pawns during the wizard: a click lifts the pawn that is there."""
    board.virtual.place("e7", PawnKind.DEFENSE)  # a pawn left from before the wizard
    page, errors = wiring_page(browser, served)
    page.click("#wiring-start")
    instruction = page.locator("#wiring-instruction")
    expect(instruction).to_have_text("Clear the board: lift every pawn.")
    sim = page.context.new_page()  # the builder's other tab: the simulated board in their hands
    sim.set_default_timeout(TIMEOUT_MS)
    sim_errors = watch_errors(sim)
    sim.goto(served.url + "/sim")
    expect(sim.locator("#board [data-slot=e7].occupied")).to_have_count(1)  # it is there, drawn
    sim.click("#board [data-slot=e7]")  # lifted, not "already holds a pawn"
    expect(sim.locator("#board [data-slot=e7].occupied")).to_have_count(0)
    expect(instruction).to_have_text("Place a defense pawn on a9.")
    sim.check("#pawn-defense")
    sim.click("#board [data-slot=a9]")
    expect(sim.locator("#board [data-slot=a9].occupied")).to_have_count(1)
    expect(instruction).to_have_text("Replace the defense pawn on a9 with an attack pawn.")
    sim.click("#board [data-slot=a9]")
    expect(sim.locator("#board [data-slot=a9].occupied")).to_have_count(0)
    sim.check("#pawn-attack")
    sim.click("#board [data-slot=a9]")
    expect(instruction).to_have_text("Lift the pawn from a9, then place a defense pawn on b9.")
    expect(sim.locator("#board [data-slot=a9].occupied")).to_have_count(1)  # drawn: a click lifts it
    sim.click("#board [data-slot=a9]")
    expect(instruction).to_have_text("Place a defense pawn on b9.")
    expect(page.locator("#wiring-progress")).to_have_text("1 of 80 slots learned")
    assert board.virtual.pawns == {}
    expect(sim.locator("#sim-msg")).to_have_text("")
    assert errors == [] and sim_errors == []
