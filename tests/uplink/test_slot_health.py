"""A board with a worn contact is flagged on the event server's staff page after the stated number of
games, end to end: the board service on a simulated board whose slot c4 no longer conducts, its panel,
its uplink, the real Mosquitto, the event server's ingest and its pages. The wall and the board's public
pages say nothing of it."""

from __future__ import annotations

import functools
import html
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from prometheus_client.parser import text_string_to_metric_families

from hardware.settings import Signal
from hardware.slot_health import GAMES_NO_CONDUCTION
from hautetension.commands.central import ingest_report
from store.event.settings import EventSettings
from store.slot_health import SlotHealthStore
from tests.hardware.helpers import LiveService
from tests.servers.mosquitto import MosquittoBroker
from tests.uplink.helpers import EVENT, Central, UplinkThread, broker_settings, uplink_settings, wait_for
from tests.webpanel.helpers import Api, make_settings
from webpanel.app import close_app, create_app

WORN = "c4"
NORTH_ROW = ["f9", "f8", "f7", "f6", "f5"]
"""Attack pawns along this row light N: its owner is out, and a game of two is over."""
FLAG = f"Table 7, slot {WORN}: no conduction in the last {GAMES_NO_CONDUCTION} games — check its contact"


class WornBoard:
    """A board Pi whose slot c4's conduction contact is worn through: the board service on the simulated
    board, its panel (staff logged in), its uplink to the event."""

    def __init__(self, folder: Path, broker: MosquittoBroker, board_id: str) -> None:
        settings = make_settings(folder)
        self.id = board_id
        self.service = LiveService(settings.database)
        virtual = self.service.service.backend.virtual_board
        assert virtual is not None
        virtual.age(WORN, Signal.CONDUCTION)
        self.app: Flask = create_app({"PANEL": settings, "TESTING": True})
        self.staff = Api(self.app.test_client())
        assert self.staff.login().status_code == 200
        link = uplink_settings(broker_settings(broker, board_id), board_id)
        self.uplink = UplinkThread(settings.database, link)

    def play(self) -> None:
        """A short game: a pawn on c4, then the N row; every pawn lifted afterwards."""
        players = [{"name": "Ana", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
        started = self.staff.post("/api/staff/game", {"players": players, "pregame_check": "skip"})
        assert started.status_code == 201, started.get_json()
        slots = [WORN, *NORTH_ROW]
        for slot in slots:
            self._sim(slot, "attack")
        wait_for(lambda: self.staff.get("/api/board").get_json()["game"]["status"] == "over",
                 what="the game over")
        for slot in slots:
            self._sim(slot, None)

    def _sim(self, slot: str, pawn: str | None) -> None:
        assert self.staff.post(f"/api/sim/slots/{slot}", {"pawn": pawn}).status_code == 200
        wait_for(lambda: (slot in self.staff.get("/api/board").get_json()["pawns"]) == (pawn is not None),
                 what=f"{slot} {'placed' if pawn else 'lifted'}")

    def close(self) -> None:
        self.uplink.close()
        close_app(self.app)
        self.service.stop()


@pytest.fixture
def board(tmp_path: Path, secured: MosquittoBroker) -> Iterator[WornBoard]:
    made = WornBoard(tmp_path / "board-1", secured, "board-1")
    yield made
    made.close()


@pytest.fixture
def event(tmp_path: Path, central: Central) -> Iterator[Api]:
    """The event server's pages, staff logged in."""
    settings = EventSettings(event=EVENT, database=central.path, confirm_timeout=60)
    app = create_app({"PANEL": make_settings(tmp_path / "server"), "EVENT": settings, "TESTING": True})
    ingest, supervisor = central.ingest, central.supervisor
    assert ingest is not None and supervisor is not None
    # As hautetension central wires it: this process's ingest, for /api/event/ingest and /metrics.
    app.extensions["ingest_counts"] = functools.partial(ingest_report, ingest, supervisor, "central")
    staff = Api(app.test_client())
    assert staff.login().status_code == 200
    yield staff
    close_app(app)


def scrape(client: FlaskClient) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """``/metrics``, read with Prometheus' own parser: each sample by name and labels."""
    response = client.get("/metrics")
    assert response.status_code == 200
    samples: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def overview(event: Api) -> str:
    response = event.get("/event", headers={"Accept-Language": "en"})
    assert response.status_code == 200
    return html.unescape(response.get_data(as_text=True))


def test_a_worn_contact_is_flagged_on_the_staff_page_after_the_stated_number_of_games(
    board: WornBoard, event: Api
) -> None:
    wait_for(lambda: event.get("/api/event/boards").get_json(), what="the board")
    assert event.post("/api/event/boards/board-1", {"label": "Table 7"}).status_code == 200
    for _ in range(GAMES_NO_CONDUCTION - 1):
        board.play()
    # (The scan's own finding, overruns, depends on how busy the machine running the tests is.)
    assert [f for f in SlotHealthStore(board.service.conn).findings() if f.is_slot] == []
    assert "no conduction" not in overview(event)

    board.play()
    page = wait_for(lambda: FLAG in (text := overview(event)) and text, what="the flag on the staff page")
    assert 'id="slot-health"' in page
    assert '<a class="fault slot-health" href="#slot-health">1 part to check</a>' in page  # the board's row
    # Staff only: the public wall and the board's public pages say nothing of it.
    wall = event.get("/api/event/wall").get_data(as_text=True)
    assert "no-conduction" not in wall and '"part"' not in wall and "no conduction" not in wall
    public = board.staff.client.get("/api/board").get_data(as_text=True)
    assert "no-conduction" not in public
    # The board's service mode shows it on its drawing, with what to check.
    health = board.staff.get("/api/staff/slot-health", headers={"Accept-Language": "en"}).get_json()
    assert health["slots"] == {WORN: "fault"}
    assert health["games"] == GAMES_NO_CONDUCTION
    texts = [f["text"] for f in health["findings"] if f["slot"]]
    assert texts == [f"slot {WORN}: no conduction in the last 12 games — check its contact"]
    # /metrics says it too, on the event server and on the board.
    server = scrape(event.client)
    worn = (("board", "board-1"), ("kind", "no-conduction"), ("part", WORN))
    assert server["hautetension_slot_health_finding"][worn] == GAMES_NO_CONDUCTION
    assert server["hautetension_event_boards_online"][()] == 1
    assert server["hautetension_event_board_online"][(("board", "board-1"),)] == 1
    assert server["hautetension_event_rows_pending"][(("board", "board-1"),)] == 0
    assert server["hautetension_event_ingest_batches_total"][()] >= 1
    assert server["hautetension_event_ingest_stored_total"][()] >= 1
    assert server["hautetension_event_ingest_refused_total"][()] == 0
    on_board = scrape(board.staff.client)
    assert on_board["hautetension_slot_health_finding"][(("kind", "no-conduction"), ("part", WORN))] == 12
    assert on_board["hautetension_games_counted_total"][()] == GAMES_NO_CONDUCTION
    assert on_board["hautetension_uplink_connected"][()] == 1
