"""``hautetension game …``: commands through the database to a running board service."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games.hautetension.draw import draw_first_player
from hautetension.cli import main
from store.commands import Commands, CommandStatus
from store.db import connect
from tests.hardware.helpers import Rig


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Any]:
    """A board service stepping in a background thread, as the real process would."""
    rig = Rig(tmp_path)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            rig.run(0.01)
            time.sleep(0.002)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    yield rig
    stop.set()
    thread.join(5)
    rig.close()


def _game(db: Path, *words: str) -> int:
    return main(["game", *words, "--db", str(db)])


def test_new_status_and_abandon(service: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "board.db"
    assert _game(db, "new", "--players", "Ana, Ben,Cy", "--colours", "red,green") == 0
    assert "game 1 started: Ana, Ben, Cy; Ana plays first" in capsys.readouterr().out
    assert _game(db, "status") == 0
    out = capsys.readouterr().out
    assert "pre-game check: waiting for the players to hold the test button" in out and "to move" not in out
    assert _game(db, "skip-check") == 0
    assert "game 1: pre-game check skipped" in capsys.readouterr().out
    assert _game(db, "skip-check") == 1  # nothing waits for it any more
    assert "no game is waiting for its pre-game check" in capsys.readouterr().err
    assert _game(db, "status") == 0
    out = capsys.readouterr().out
    assert "board service: running" in out and "to move: Ana" in out and "Ben (E, 25 left)" in out
    assert _game(db, "new", "--players", "Dee,Eve") == 1
    assert "refused: game 1 is still running" in capsys.readouterr().err
    assert _game(db, "lamp-test", "on") == 1
    assert _game(db, "abandon") == 0
    assert "game 1 abandoned" in capsys.readouterr().out
    assert _game(db, "status", "--json") == 0
    public = json.loads(capsys.readouterr().out)["public"]
    assert public["game"]["status"] == "abandoned"
    assert [s["colour"] for s in public["game"]["view"]["seats"]] == ["red", "green", "black"]


def test_drawn_first_player_handicap_and_lamp_test(
    service: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "board.db"
    assert _game(db, "lamp-test", "on") == 0
    assert _game(db, "status") == 0
    assert "lamps lit: E, N, S, W (test)" in capsys.readouterr().out
    assert _game(db, "lamp-test", "off") == 0
    assert _game(db, "self-test") == 0  # the virtual board is healthy
    assert "self-test" in capsys.readouterr().out
    assert (
        _game(db, "new", "--players", "Ana,Ben", "--first", "draw", "--seed", "11", "--handicap", "N=1") == 0
    )
    first = ["Ana", "Ben"][draw_first_player(2, 11)]
    assert f"{first} plays first" in capsys.readouterr().out
    assert _game(db, "status") == 0
    assert "ANOMALY handicap" in capsys.readouterr().out


def test_bad_options_are_refused_before_anything_is_queued(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "board.db"
    assert _game(db, "new", "--players", "Ana,Ben", "--first", "left") == 2
    assert _game(db, "new", "--players", "Ana,Ben", "--handicap", "N:1") == 2
    assert Commands(connect(db)).pending() == []


def test_without_a_service_the_command_is_withdrawn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "board.db"
    started = time.monotonic()
    assert main(["game", "new", "--players", "Ana,Ben", "--db", str(db), "--timeout", "0.3"]) == 3
    assert time.monotonic() - started < 5
    assert "did not answer" in capsys.readouterr().err
    command = Commands(connect(db)).get(1)
    assert command is not None and command.status is CommandStatus.FAILED  # never carried out later
    assert _game(db, "status") == 3


@pytest.mark.parametrize(
    "config",
    [
        '[board]\nbackend = "usb"\n',
        "[board\n",
        '[board]\nlayout = "no-such-layout"\n',
        "[hardware]\nselect_gpios = 5\n",
    ],
)
def test_board_refuses_a_configuration_that_cannot_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(config)
    assert main(["board", "--config", str(path), "--db", str(tmp_path / "b.db")]) == 78  # no restart loop
    err = capsys.readouterr().err
    assert err.startswith("hautetension board: ") and (str(path) in err or "no-such-layout" in err)
