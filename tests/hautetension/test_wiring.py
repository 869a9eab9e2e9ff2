"""``hautetension wiring learn | apply | reset`` on a small board (ten slots, two multiplexers): on the
board itself, through a running board service, and what it writes."""

from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from configuration import ConfigFile, load_config
from games.hautetension.layout import Layout, load_layout
from hardware.backends.sim import SimBoard
from hardware.service import BoardService, BoardSettings
from hardware.settings import HardwareSettings, load_settings
from hardware.wiring.console import Finish, finish, learn_through_service, learned
from hardware.wiring.demo import SimulatedBuilder, scramble
from hardware.wiring.learner import Progress
from hautetension.cli import main
from store.commands import Commands
from store.db import connect
from store.journal import Journal, JournalKind
from store.wiring import WiringProgress

TINY = {
    "name": "tiny-10", "description": "two straight rows", "grid": {"rows": 3, "columns": 7},
    "battery": [1, 0],
    "lamps": {"N": [0, 6], "S": [2, 6]},
    "slots": {f"{c}{r}": [0 if r == 3 else 2, i + 1] for r in (3, 1) for i, c in enumerate("abcde")},
    "rows": [{"id": "N1", "kind": "straight", "lamps": ["N"], "slots": ["a3", "b3", "c3", "d3", "e3"]},
             {"id": "S1", "kind": "straight", "lamps": ["S"], "slots": ["a1", "b1", "c1", "d1", "e1"]}],
}
CONFIG = """\
# a small test board
[board]
backend = "sim"
layout = "{layout}"

[hardware]
signal_gpios = [4, 17]   # two chips

[hardware.lamps]
N = {{ gpio = 12 }}
S = {{ gpio = 20 }}
"""


class Typed:
    """The builder's keyboard: lines typed during the wizard, answers to its questions."""

    def __init__(self, lines: list[str] | None = None, answers: list[str] | None = None) -> None:
        self.lines, self.answers = list(lines or []), list(answers or [])

    def poll(self) -> list[str]:
        lines, self.lines = self.lines, []
        return lines

    def ask(self, question: str) -> str:
        return self.answers.pop(0) if self.answers else ""


@pytest.fixture(autouse=True)
def no_system_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HAUTETENSION_CONFIG", raising=False)
    monkeypatch.setattr("configuration.file.DEFAULT_PATH", tmp_path / "absent.toml")


@pytest.fixture
def board(tmp_path: Path) -> tuple[Path, Path, Layout]:
    layout_path = tmp_path / "tiny.json"
    layout_path.write_text(json.dumps(TINY))
    config = tmp_path / "config.toml"
    config.write_text(CONFIG.format(layout=layout_path))
    return config, tmp_path / "board.db", load_layout(layout_path)


def args(config: Path, db: Path, *words: str) -> list[str]:
    return ["wiring", *words, "--config", str(config), "--db", str(db)]


def test_learn_on_a_scrambled_simulated_board_writes_checks_and_self_tests(
        board: tuple[Path, Path, Layout], capsys: pytest.CaptureFixture[str]) -> None:
    config, db, layout = board
    original = config.read_text()
    assert main(args(config, db, "learn", "--demo", "--scramble", "3", "--hold", "0.05", "--yes")) == 0
    out = capsys.readouterr().out
    assert "> Place a defense pawn on a3." in out and "e1 learned (10/10)" in out
    assert "20 contact(s) move:" in out and "… and 8 more" in out
    assert f"written {config}; the old file is kept as {config}.bak-" in out
    assert "[hardware] is fine for layout tiny-10" in out and "self-test PASSED on the sim board" in out
    assert 'tie channel 0 to low and add [[hardware.references]] multiplexer = 0, channel = 0' in out
    written = config.read_text()
    assert written.startswith(original + "\n[hardware.slots]\n# learned by hautetension wiring learn on ")
    [backup] = config.parent.glob("config.toml.bak-*")
    assert backup.read_text() == original
    settings = load_settings(load_config(config), layout)
    physical = scramble(load_settings(ConfigFile(load_config(backup).data), layout), layout, seed=3)
    assert settings.slot_map(layout) == physical
    # Learned again on the board now described right: nothing to write.
    assert main(args(config, db, "learn", "--restart", "--demo", "--hold", "0.05", "--yes")) == 0
    assert f"{config} already has this map: nothing to write" in capsys.readouterr().out
    assert config.read_text() == written


def test_learn_is_refused_during_a_game(board: tuple[Path, Path, Layout],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    config, db, _ = board
    conn = connect(db)
    Journal(conn).append(JournalKind.GAME_START, {"game": 3}, game_id=3,
                         state_public={"game": {"id": 3, "status": "running"}})
    conn.close()
    assert main(args(config, db, "learn")) == 1
    assert ("the wiring wizard reads raw slot readings, which a running game keeps secret: abandon or finish "
            "game 3 first") in capsys.readouterr().err


def test_learn_needs_a_file_to_write_into_and_a_board_the_pi_scans(
        board: tuple[Path, Path, Layout], capsys: pytest.CaptureFixture[str]) -> None:
    config, db, _ = board
    assert main(["wiring", "learn", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "no configuration file to write the map into: name one with --config FILE" in err
    config.write_text(config.read_text().replace('backend = "sim"', 'backend = "serial"'))
    assert main(args(config, db, "learn")) == 2
    assert "the serial board's microcontroller reads the channels with its own map" in capsys.readouterr().err
    config.write_text(config.read_text().replace('backend = "serial"', 'backend = "gpio"'))
    assert main(args(config, db, "learn", "--backend", "gpio", "--demo")) == 2


def complete_progress(db: Path, layout: Layout, wiring: dict[str, object], *, complete: bool = True) -> None:
    progress = Progress(multiplexers=2, channels=16, learned=wiring)  # type: ignore[arg-type]
    conn = connect(db)
    WiringProgress(conn).save(layout.name, progress.to_json(),
                              {"complete": complete, "count": len(wiring), "total": 10}, running=None)
    conn.close()


def test_apply_writes_what_the_staff_page_learned(board: tuple[Path, Path, Layout],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    config, db, layout = board
    assert main(args(config, db, "apply", "--yes")) == 2
    assert "no wiring has been learned" in capsys.readouterr().err
    settings = load_settings(load_config(config), layout)
    physical = scramble(settings, layout, seed=8)
    complete_progress(db, layout, dict(list(physical.items())[:4]), complete=False)
    assert main(args(config, db, "apply", "--yes")) == 2
    assert "the wizard has learned 4 of 10 slots: finish it first" in capsys.readouterr().err
    complete_progress(db, layout, physical)
    assert main(args(config, db, "apply", "--yes")) == 0
    out = capsys.readouterr().out
    assert "written" in out and "self-test PASSED" in out
    assert load_settings(load_config(config), layout).slot_map(layout) == physical


def test_a_map_not_confirmed_is_not_written(board: tuple[Path, Path, Layout]) -> None:
    config, _, layout = board
    original = config.read_text()
    settings = load_settings(load_config(config), layout)
    progress = Progress(2, 16, learned=scramble(settings, layout, seed=4))
    out = io.StringIO()
    how = Finish(path=config, settings=settings, layout=layout, check=lambda _: 0, selftest=lambda: 0)
    assert finish(learned(progress, settings, layout), how, out=out, lines=Typed(answers=["n"])) == 1
    assert config.read_text() == original and not list(config.parent.glob("*.bak-*"))
    assert "+[hardware.slots]" in out.getvalue() and "not written; the learned map stays" in out.getvalue()


def test_a_file_that_cannot_be_edited_safely_is_left_alone(board: tuple[Path, Path, Layout]) -> None:
    config, _, layout = board
    config.write_text(config.read_text().replace("[hardware]\n", "[hardware]\nslots = { }\n"))
    original = config.read_text()
    settings = load_settings(load_config(config), layout)
    progress = Progress(2, 16, learned=scramble(settings, layout, seed=4))
    out = io.StringIO()
    how = Finish(path=config, settings=settings, layout=layout, check=lambda _: 0, selftest=lambda: 0)
    assert finish(learned(progress, settings, layout), how, out=out, lines=Typed(), yes=True) == 2
    assert "is written inline or with dotted keys" in out.getvalue() and config.read_text() == original


def test_reset_forgets_the_progress(board: tuple[Path, Path, Layout],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    config, db, layout = board
    complete_progress(db, layout, {})
    assert main(args(config, db, "reset")) == 0
    assert "progress is forgotten" in capsys.readouterr().out
    assert main(args(config, db, "reset")) == 0
    assert "there was no progress to forget" in capsys.readouterr().out


@pytest.fixture
def service(board: tuple[Path, Path, Layout]) -> Iterator[tuple[SimBoard, dict[str, object]]]:
    """The board service in a thread, on a simulated board wired otherwise than configured."""
    config, db, layout = board
    settings = load_settings(load_config(config), layout)
    backend = SimBoard(settings, layout)
    physical = scramble(settings, layout, seed=11)
    backend.virtual_board.rewire(physical)
    conn = connect(db)
    running = BoardService(backend, layout, journal=Journal(conn), commands=Commands(conn),
                           settings=BoardSettings(settle=0.05, min_turn=0.0))
    running.start()
    stop = threading.Event()
    thread = threading.Thread(target=running.run, args=(stop,), daemon=True)
    thread.start()
    yield backend, physical  # type: ignore[misc]
    stop.set()
    thread.join(10)
    running.close()
    conn.close()


def test_learn_through_a_running_board_service(board: tuple[Path, Path, Layout],
                                               service: tuple[SimBoard, dict[str, object]]) -> None:
    config, db, layout = board
    backend, physical = service
    conn = connect(db)
    store = WiringProgress(conn)
    builder = SimulatedBuilder(backend.virtual_board, lambda: (store.load() or _none()).view, pace=0.05)

    def sleep(seconds: float) -> None:
        builder.act(time.monotonic())
        time.sleep(seconds)

    out = io.StringIO()
    typed = Typed(["hello", "accept"])
    progress = learn_through_service(conn, out=out, lines=typed, hold=0.05, interval=0.02, sleep=sleep)
    assert progress is not None
    settings = HardwareSettings.from_config(load_config(config))
    assert learned(progress, settings, layout).slots == physical
    assert "learning the wiring through the board service" in out.getvalue()
    assert "? 'hello': type: redo SLOT" in out.getvalue()
    assert "? no channel reads closed: there is nothing to leave out" in out.getvalue()
    assert store.load().running is None  # type: ignore[union-attr]  # stopped once done
    assert not backend.scanner.every_channel
    conn.close()


def _none() -> object:
    class Empty:
        view: dict[str, object] = {}
    return Empty()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_run_as_root_it_leaves_the_database_files_to_their_owner(tmp_path: Path) -> None:
    from hautetension.commands.wiring import keep_owner

    database = tmp_path / "board.db"
    conn = connect(database)
    os.chown(database, 65534, 65534)  # the database belongs to the service's user
    keep_owner(database)
    for suffix in ("-wal", "-shm"):
        side = tmp_path / f"board.db{suffix}"
        assert (side.stat().st_uid, side.stat().st_gid) == (65534, 65534)
    conn.close()
