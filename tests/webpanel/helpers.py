"""Helpers for the panel's tests: a stand-in for the board service, test clients that act like
the pages, a panel served by waitress, and what browser tests share.

The stand-in (:class:`FakeService`) takes pending commands and writes
``board_state`` and journal entries the way the board service does, using
the real rules engine, so the panel's tests do not depend on the service.
The fixtures that use these are in ``conftest.py``.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from werkzeug.security import generate_password_hash

from games.exc import GameError
from games.hautetension.game import Game
from games.hautetension.layout import load_layout
from games.hautetension.reported import ReportedGame
from games.hautetension.seats import Seat, default_lamps
from games.hautetension.views import public_view
from store.commands import Command, CommandKind, Commands
from store.db import connect
from store.journal import Journal, JournalEntry, JournalKind
from tournaments.points import lightings_of
from webpanel.app import close_app
from webpanel.config import PanelSettings

PIN = "246810"
# Cheaper scrypt parameters than the production hash: the tests log in hundreds of times.
PIN_HASH = generate_password_hash(PIN, method="scrypt:1024:8:1")


class FakeService:
    """A thread carrying out panel commands on a simulated board, as the board service would."""

    def __init__(self, database: Path, *, backend: str = "sim", heartbeat: bool = True) -> None:
        self.database = database
        self.backend = backend
        self.heartbeat = heartbeat
        self.layout = load_layout("pinwheel-80")
        self.board: dict[str, str] = {}
        self.game: Game | None = None
        self.game_id = 0
        self.status: str | None = None
        self.lamp_test = False
        self.button = False
        self.anomalies: list[dict[str, Any]] = []
        self.handled: list[Command] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fake-service", daemon=True)
        self._ready = threading.Event()

    def start(self) -> FakeService:
        self._thread.start()
        self._ready.wait(5)
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    # -- loop ---------------------------------------------------------------------

    def _run(self) -> None:
        conn = connect(self.database)
        journal, commands = Journal(conn), Commands(conn)
        journal.append(
            JournalKind.SERVICE_START,
            {"backend": self.backend},
            state_public=self.public(),
            state_private=self.private(),
        )
        self._ready.set()
        last_beat = 0.0
        try:
            while not self._stop.is_set():
                for command in commands.pending():
                    self._execute(journal, commands, command)
                if self.heartbeat and time.monotonic() - last_beat > 0.2:
                    journal.write_health(
                        {
                            "backend": self.backend,
                            "scans_per_second": 199.5,
                            "last_scan_seconds": 0.0011,
                            "faulted": False,
                            "faults": [],
                            "flicker": {"c3": 2},
                            "references": [],
                            "lamp_feedback": None,
                        }
                    )
                    last_beat = time.monotonic()
                self._stop.wait(0.003)
        finally:
            conn.close()

    def _execute(self, journal: Journal, commands: Commands, command: Command) -> None:
        try:
            result, entries = self._carry_out(command)
        except (GameError, ValueError) as exc:
            commands.fail(command.id, str(exc))
            return
        if entries:
            journal.append_many(
                entries,
                game_id=self.game_id or None,
                state_public=self.public(),
                state_private=self.private(),
            )
        commands.complete(command.id, result)
        self.handled.append(command)

    def _carry_out(self, command: Command) -> tuple[dict[str, Any], list[JournalEntry]]:
        payload = command.payload
        kind = command.kind
        if kind is CommandKind.NEW_GAME:
            if self.running:
                raise ValueError("a game is running")
            players = payload["players"]
            lamps = default_lamps(len(players))
            seats = [
                Seat(name=p["name"], lamp=lamp, colour=p["colour"])
                for p, lamp in zip(players, lamps, strict=True)
            ]
            first = payload.get("first", 0)
            if first == "draw":
                self.game = Game.with_drawn_order(self.layout, seats, seed=payload.get("seed"))
            else:
                self.game = Game(self.layout, seats, first=first)
            self.game_id += 1
            self.status = "running"
            self.board = {}
            players = [{"name": s.name, "colour": s.colour, "lamp": s.lamp} for s in seats]
            # as the board service writes it
            start = {"game": self.game_id, "players": players, "first": self.game.first,
                     "drawn": first == "draw", "handicap": {}, "layout": self.layout.name}
            return {"game": self.game_id}, [JournalEntry(JournalKind.GAME_START, start)]
        if kind is CommandKind.ABANDON_GAME:
            if not self.running:
                raise ValueError("no game is running")
            self.status = "abandoned"
            return {"game": self.game_id}, [JournalEntry(JournalKind.GAME_END, self._game_end("abandoned"))]
        if kind is CommandKind.LAMP_TEST:
            if self.running:
                raise ValueError("a game is running")
            self.lamp_test = bool(payload["on"])
            return {"on": self.lamp_test}, [JournalEntry(JournalKind.LAMP_TEST, {"on": self.lamp_test})]
        if kind is CommandKind.SELF_TEST:
            if self.running:
                raise ValueError("a game is running")
            return {"ok": True, "checks": [{"name": "references", "ok": True}]}, [
                JournalEntry(JournalKind.SELF_TEST, {"ok": True, "checks": 1})
            ]
        if kind is CommandKind.SIM_BUTTON:
            self._require_sim()
            self.button = bool(payload["held"])
            return {"held": self.button}, [JournalEntry(JournalKind.BUTTON, {"held": self.button})]
        if kind is CommandKind.SIM_SLOT:
            return self._sim_slot(payload)
        raise ValueError(f"unknown command {kind.value}")

    def _game_end(self, status: str) -> dict[str, Any]:
        """The game-end entry as the board service writes it."""
        assert self.game is not None
        public: dict[str, Any] = {
            "game": self.game_id, "status": status,
            "players": [s.name for s in self.game.seats], "moves": len(self.game.history),
        }
        outcome = self.game.outcome()
        if status == "over" and outcome is not None:
            public["outcome"] = outcome.to_dict()
            public["lightings"] = [x.to_dict() for x in lightings_of(self.game.history)]
            public.update(ReportedGame.of_game(self.game).to_json())  # the public record, its points
        return public

    def _require_sim(self) -> None:
        if self.backend != "sim":
            raise ValueError("only the simulated board takes pawns from the panel")

    def _sim_slot(self, payload: dict[str, Any]) -> tuple[dict[str, Any], list[JournalEntry]]:
        self._require_sim()
        slot = self.layout.check_slot(payload["slot"])
        pawn = payload["pawn"]
        if pawn is None:
            if slot not in self.board:
                raise ValueError(f"there is no pawn on {slot} to lift")
            del self.board[slot]
            entries: list[JournalEntry] = [JournalEntry(JournalKind.SLOT, {"slot": slot, "event": "lifted"})]
            if self.running:
                self.anomalies.append(
                    {"kind": "lifted", "slot": slot, "at": time.time(), "message": f"pawn lifted from {slot}"}
                )
            return {"slot": slot, "occupied": False}, entries
        if slot in self.board:
            raise ValueError(f"slot {slot} already holds a pawn")
        self.board[slot] = pawn
        entries = [JournalEntry(JournalKind.SLOT, {"slot": slot, "event": "placed"}, {"kind": pawn})]
        if self.running and self.game is not None:
            try:
                self.game.push(slot, pawn)
            except GameError:
                # As the service does: the pawn stays, an anomaly (worded without the kind) opens.
                message = f"the pawn on {slot} cannot be placed now: lift it"
                refused = {"kind": "refused", "slot": slot, "at": time.time(), "message": message}
                self.anomalies.append(refused)
                entries.append(JournalEntry(JournalKind.ANOMALY, {"slot": slot}))
                return {"slot": slot, "occupied": True}, entries
            last = self.game.history[-1]
            placed = {  # as the board service writes it
                "game": self.game_id, "slot": slot, "player": last.player, "move": len(self.game.history),
                "lit": sorted(last.lit), "eliminated": list(last.eliminated), "to_move": self.game.to_move,
            }
            entries.append(JournalEntry(JournalKind.PLACEMENT, placed, {"kind": pawn}))
            if self.game.is_over():
                self.status = "over"
                entries.append(JournalEntry(JournalKind.GAME_END, self._game_end("over")))
        return {"slot": slot, "occupied": True}, entries

    # -- state -----------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.status == "running"

    def public(self) -> dict[str, Any]:
        owners = self.game.pawns if self.game is not None and self.status else {}
        lit = sorted(self.game.lit) if self.game is not None and self.status else []
        if self.lamp_test or self.button:
            lit = list(self.layout.lamps)
        game = None
        if self.game is not None and self.status:
            game = {
                "id": self.game_id,
                "status": self.status,
                "view": public_view(self.game),
                "points": list(self.game.points()) if self.game.is_over() else None,
            }
        return {
            "layout": self.layout.name,
            "backend": self.backend,
            "game": game,
            "pawns": {
                s: {"owner": owners[s][0] if s in owners else None}
                for s in self.layout.slots
                if s in self.board
            },
            "lamps": {"lit": lit, "test": self.lamp_test or self.button},
            "anomalies": list(self.anomalies),
            "faults": [],
            "scanner_faulted": False,
        }

    def private(self) -> dict[str, Any]:
        game = self.game.to_json() if self.game is not None and self.status else None
        return {"board": dict(sorted(self.board.items())), "game": game, "lamp_test": self.lamp_test}


def make_settings(tmp_path: Path, **overrides: Any) -> PanelSettings:
    values: dict[str, Any] = {
        "database": tmp_path / "panel.db",
        "staff_pin_hash": PIN_HASH,
        "command_timeout": 2.0,
        "poll_interval": 0.01,
        "heartbeat_seconds": 0.5,
        "stream_max_seconds": 3.0,
    }
    values.update(overrides)
    return PanelSettings(**values)


class Api:
    """A test client that sends the CSRF token like the pages do."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.token = client.get("/api/session").get_json()["csrf_token"]

    def get(self, url: str, **kwargs: Any) -> Any:
        return self.client.get(url, **kwargs)

    def post(self, url: str, json: Any = None, **kwargs: Any) -> Any:
        headers = {"X-CSRF-Token": self.token, **kwargs.pop("headers", {})}
        if json is None and "data" not in kwargs:
            return self.client.post(url, headers=headers, **kwargs)
        return self.client.post(url, json=json, headers=headers, **kwargs)

    def login(self, pin: str = PIN) -> Any:
        response = self.post("/api/staff/login", {"pin": pin})
        if response.status_code == 200:
            self.token = response.get_json()["csrf_token"]
        return response


HUMANS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bob"}]


class Lobby:
    """A device at the games lobby (the display or a tablet): its own cookies and CSRF token.

    ``game`` is the game that :meth:`create` starts.
    """

    def __init__(self, app: Flask, game: str) -> None:
        self.api = Api(app.test_client())
        self.game = game

    def get(self, url: str, **kwargs: Any) -> Any:
        return self.api.get(url, **kwargs)

    def post(self, url: str, json: Any = None, **kwargs: Any) -> Any:
        return self.api.post(url, json, **kwargs)

    def fetch(self, url: str, **kwargs: Any) -> dict[str, Any]:
        """The JSON body of a GET that must succeed."""
        response = self.get(url, **kwargs)
        assert response.status_code == 200, response.get_json()
        data: dict[str, Any] = response.get_json()
        return data

    def create(self, seats: list[dict[str, Any]] | None = None, **body: Any) -> dict[str, Any]:
        response = self.post("/api/games", {"game": self.game, "seats": seats or HUMANS, **body})
        assert response.status_code == 201, response.get_json()
        data: dict[str, Any] = response.get_json()
        return data

    def state(self, game_id: int, **kwargs: Any) -> dict[str, Any]:
        return self.fetch(f"/api/games/{game_id}", **kwargs)

    def move(self, game_id: int, move: Any, **kwargs: Any) -> Any:
        return self.post(f"/api/games/{game_id}/moves", {"move": move}, **kwargs)

    def join(self, game_id: int, code: str) -> Any:
        return self.post(f"/api/games/{game_id}/join", {"code": code})


def start_game(
    staff_api: Api, names: tuple[str, ...] = ("Ada", "Bob"), first: int | str = 0, *, check: str = "skip"
) -> Any:
    """Start a game as staff; the pre-game check skipped unless *check* is ``"ask"``."""
    colours = ("red", "blue", "black", "white")
    players = [{"name": n, "colour": c} for n, c in zip(names, colours, strict=False)]
    body = {"players": players, "first": first, "pregame_check": check}
    response = staff_api.post("/api/staff/game", body)
    assert response.status_code == 201, response.get_json()
    return response


def pass_pregame_check(api: Api) -> None:
    """The players hold the test button of the simulated board and say every lamp lit: the rules' check
    before each game (hardware/service/pregame.py), with the real board service."""
    def check() -> Any:
        return api.get("/api/board").get_json()["game"]["check"]["status"]

    assert api.post("/api/sim/button", {"held": True}).status_code == 200
    wait_for(lambda: check() == "holding", 15)
    time.sleep(0.6)  # a press long enough to look at the lamps (MIN_HOLD_S)
    assert api.post("/api/sim/button", {"held": False}).status_code == 200
    wait_for(lambda: check() == "confirm", 15)
    assert api.post("/api/board/check", {"not_lit": []}).status_code == 200


def wait_for(predicate: Any, timeout: float = 5.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError("condition not met in time")


class Served:
    """A panel app served by waitress on a free loopback port, in a thread."""

    def __init__(self, app: Flask) -> None:
        from webpanel.serve import make_server

        self.app = app
        self.server: Any = make_server(app, host="127.0.0.1", port=0)
        self.port = int(self.server.effective_port)
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self._run, name="waitress", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with contextlib.suppress(OSError, ValueError):  # closed under its feet at teardown
            self.server.run()

    def close(self) -> None:
        from waitress import wasyncore

        lobby_ai = self.app.extensions.get("lobby_ai")
        if lobby_ai is not None:  # its computer players write to the database closed below
            lobby_ai.close()
        close_app(self.app)  # wakes and ends every open stream
        server = self.server

        def close_connections() -> None:
            # In the server's own loop: close the listener and every connection, but not the trigger
            # (the server's own close() would take it along): worker threads still pull it when
            # they finish a response, and a pull on a closed trigger is an OSError in that thread.
            for dispatcher in list(server._map.values()):
                if dispatcher is server:
                    wasyncore.dispatcher.close(server)
                elif dispatcher is not server.trigger:
                    dispatcher.close()

        server.trigger.pull_trigger(close_connections)
        server.task_dispatcher.shutdown(timeout=5)
        # No worker is left to pull it: close the trigger too; the loop, its map empty, ends. Under a
        # heavy load the loop may have dropped the trigger already (its pipe reported closed): then
        # there is nothing left to wake, and the join below still waits for the loop's end.
        with contextlib.suppress(OSError):
            server.trigger.pull_trigger(server.trigger.close)
        self.thread.join(5)


@contextlib.contextmanager
def staff_tablet(chromium: Any, base_url: str, lang: str, *, timeout_ms: int) -> Iterator[Any]:
    """A page of a staff tablet in *lang* (its browser asks for that language), logged in."""
    context = chromium.new_context(locale="fr-FR" if lang == "fr" else "en-GB")
    try:
        page = context.new_page()
        page.set_default_timeout(timeout_ms)
        page.goto(base_url + "/staff/login")
        page.fill("#pin", PIN)
        page.click("#login-form button[type=submit]")
        # Staff's page: a board's health, or on the event server the event's page.
        page.wait_for_url(re.compile(r"/(staff|event)$"))
        page.wait_for_load_state("load")
        yield page
    finally:
        context.close()


def watch_errors(page: Any, errors: list[str] | None = None) -> list[str]:
    """The page's console errors and uncaught exceptions (a CSP violation shows up here),
    appended to *errors* (a new list if omitted) as they happen."""
    seen: list[str] = [] if errors is None else errors
    page.on("console", lambda msg: seen.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: seen.append(str(exc)))
    return seen


def fetch_json(page: Any, path: str) -> Any:
    """A JSON answer as this page's device gets it (with its cookies)."""
    return page.evaluate("path => fetch(path, {credentials: 'same-origin'}).then(r => r.json())", path)


def join_by_link(browser: Any, display: Any, base_url: str, game_id: int, *, seat: int = 0,
                 **context_options: Any) -> tuple[Any, list[str]]:
    """Another device (its own cookies) opens the short join link *display* shows for *seat*
    and lands on the game: that device's page and its errors."""
    join_path = display.get_attribute(f".lobby-seat[data-seat='{seat}'] .join-link", "href")
    assert join_path is not None and re.fullmatch(r"/j/[a-z0-9]{6}", join_path), join_path
    page = browser.new_context(**context_options).new_page()
    errors = watch_errors(page)
    page.goto(base_url + join_path)
    page.wait_for_url(re.compile(rf"/games/{game_id}$"))
    return page, errors


def choose_options(page: Any, game: str, options: dict[str, Any]) -> None:
    """Set the lobby form's controls of *game*'s options as a person does (choose, type, tick)."""
    for key, value in options.items():
        box = f".game-options[data-game='{game}'] .option[data-option='{key}']"
        control = page.get_attribute(box, "data-control")
        if control == "select" or control == "seat":
            page.select_option(f"{box} .option-input", json.dumps(value))
        elif control == "number":
            page.fill(f"{box} .option-input", str(value))
        elif control == "toggle":
            page.set_checked(f"{box} .option-input", bool(value))
        elif control == "colours":
            for colour in value:
                page.check(f"{box} .option-colour[value='{json.dumps(colour)}']")
        else:
            raise AssertionError(f"{game} has no control for {key} ({control})")


def game_state(page: Any, game_id: int) -> dict[str, Any]:
    """A lobby game as this page's device sees it."""
    state: dict[str, Any] = fetch_json(page, f"/api/games/{game_id}")
    return state


class SseClient:
    """A minimal Server-Sent Events reader over http.client (what EventSource does)."""

    def __init__(self, port: int, *, last_event_id: str | None = None, timeout: float = 5.0) -> None:
        import http.client

        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        self.conn.request("GET", "/api/events", headers=headers)
        self.response = self.conn.getresponse()
        self.status = self.response.status

    def next_event(self) -> dict[str, str] | None:
        """The next event (fields by name; comments skipped), or None when the stream ends."""
        fields: dict[str, str] = {}
        while True:
            line = self.response.readline()
            if not line:
                return None
            text = line.decode().rstrip("\n")
            if text == "":
                if fields and set(fields) != {"retry"}:
                    return fields
                fields = {}
                continue
            if text.startswith(":"):
                fields.setdefault("comment", text)
                if set(fields) == {"comment"}:
                    fields = {}
                continue
            name, _, value = text.partition(": ")
            fields[name] = fields[name] + "\n" + value if name in fields else value

    def next_of(self, event: str) -> dict[str, str]:
        while True:
            fields = self.next_event()
            assert fields is not None, f"stream ended before a {event} event"
            if fields.get("event") == event:
                return fields

    def close(self) -> None:
        self.conn.close()


def a_possible_dark_last_pawn(layout: Any, prior: list[tuple[str, str]], final_slot: str) -> bool:
    """Whether a two-player game of *prior* placements then one more pawn on *final_slot* can be played
    (no hand holds a fourth defense pawn, no lamp lit before) and that last pawn, whatever its kind,
    lights no lamp: the secrecy tests' games, where attack and defense must look the same."""
    from games.hautetension.circuit import evaluate

    if final_slot in {slot for slot, _ in prior}:
        return False
    final_player = len(prior) % 2
    for player in (0, 1):
        defense = sum(1 for i, (_, kind) in enumerate(prior) if kind == "defense" and i % 2 == player)
        if defense + (player == final_player) > 3:
            return False
    attack = {slot for slot, kind in prior if kind == "attack"}
    before = evaluate(layout, attack).lit
    return not before and evaluate(layout, attack | {final_slot}).lit == before
