"""One controller per database and per board: real board service processes, and each backend's claim."""

from __future__ import annotations

import gc
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from configuration import ConfigFile
from firmware_bridge.simulator import SimulatedDevice
from games.hautetension.layout import Layout
from hardware.backends import gpio as gpio_backend
from hardware.backends import open_backend
from hardware.exc import BoardClaimedError, PinAccessError
from hardware.virtual.board import VirtualBoard
from hardware.virtual.lgpio import PI5_LINES, VirtualLgpio, installed, lgpio_pin_factory
from store.claim import EX_CLAIMED, Claim, ClaimedError, lock_path
from store.commands import CommandKind
from tests.firmware_bridge.helpers import fast_config
from tests.hardware.helpers import ServiceProcess, board_command


@pytest.fixture
def services() -> Iterator[list[ServiceProcess]]:
    started: list[ServiceProcess] = []
    yield started
    for service in started:
        service.close()


# The pre-game check is skipped: these tests are about claims, not lamps.
TWO_PLAYERS = {"players": [{"name": "Ana"}, {"name": "Ben"}], "pregame_check": "skip"}


def _refused(folder: Path, db: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command, env = board_command(folder, db, *options)
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=60)


def test_a_second_service_on_the_same_database_is_refused_and_the_first_goes_on(
    tmp_path: Path, services: list[ServiceProcess]
) -> None:
    first = ServiceProcess(tmp_path)
    services.append(first)
    first.command(CommandKind.NEW_GAME, TWO_PLAYERS)
    first.place("a9")
    entries = first.journal.last_id()

    second = _refused(tmp_path, first.db)
    assert second.returncode == EX_CLAIMED
    message = second.stderr
    assert f"the database {first.db} is already in use by pid {first.proc.pid}" in message
    assert "hautetension board" in message and "running since" in message and "stop that one first" in message
    assert "Traceback" not in message
    # The second one wrote nothing: no second service-start, no second "resume".
    starts = [e for e in first.journal.tail(0, limit=10_000) if e.kind == "service-start"]
    assert [e.public["pid"] for e in starts] == [first.proc.pid]
    first.place("i1")
    assert first.journal.last_id() > entries
    moves = first.state["game"]["view"]["moves"]
    assert moves == [{"slot": "a9", "player": 0}, {"slot": "i1", "player": 1}]
    assert first.stop() == 0


def test_kill_9_then_restart_at_once(tmp_path: Path, services: list[ServiceProcess]) -> None:
    first = ServiceProcess(tmp_path)
    services.append(first)
    first.command(CommandKind.NEW_GAME, TWO_PLAYERS)
    first.place("a9")
    first.kill()
    assert lock_path(first.db).exists()  # left behind by the killed process, and harmless
    second = ServiceProcess(tmp_path)  # no wait: the kernel dropped the lock with the process
    services.append(second)
    assert second.state["game"]["view"]["moves"] == [{"slot": "a9", "player": 0}]
    assert second.stop() == 0


def test_the_simulated_board_file_has_one_service(tmp_path: Path, services: list[ServiceProcess]) -> None:
    shared = tmp_path / "board.json"
    first = ServiceProcess(tmp_path, "--sim-board", str(shared))
    services.append(first)
    second = _refused(tmp_path, tmp_path / "other.db", "--sim-board", str(shared))
    assert second.returncode == EX_CLAIMED
    assert f"the simulated board's file {shared} is already in use by pid {first.proc.pid}" in second.stderr
    assert first.stop() == 0


# -- each backend's claim -------------------------------------------------------------------


def test_the_gpio_chip_is_claimed_for_the_life_of_the_board(
    tmp_path: Path, pinwheel: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On gpiozero's lgpio factory (a Pi 5's) the board holds /dev/gpiochipN; a second one is refused."""
    monkeypatch.setattr(gpio_backend, "DEVICES", tmp_path)
    (tmp_path / "gpiochip0").write_bytes(b"")
    from hardware.settings import HardwareSettings

    board = VirtualBoard(HardwareSettings(), pinwheel)
    with installed(VirtualLgpio({0: (PI5_LINES, board)})):
        factory = lgpio_pin_factory(chip=0)
        try:
            backend = open_backend("gpio", ConfigFile(), layout=pinwheel, pin_factory=factory)
            try:
                held_by_us = f"the GPIO chip is already in use by pid {os.getpid()}"
                with pytest.raises(ClaimedError, match=held_by_us):
                    Claim(tmp_path / "gpiochip0", what="the GPIO chip", create=False)
            finally:
                backend.close()
            Claim(tmp_path / "gpiochip0", what="the GPIO chip", create=False).release()  # free again
            with (Claim(tmp_path / "gpiochip0", what="the GPIO chip", create=False),
                  pytest.raises(BoardClaimedError, match="one board service per board")):
                open_backend("gpio", ConfigFile(), layout=pinwheel, pin_factory=factory)
        finally:
            factory.close()
            board.close()


def test_a_busy_lgpio_line_is_a_clear_error_not_a_raw_lgpio_error(pinwheel: Layout) -> None:
    """lgpio's own ``error("GPIO busy")`` (a line another process holds) is translated, like gpiozero's."""
    from hardware.settings import HardwareSettings

    board = VirtualBoard(HardwareSettings(), pinwheel)
    lgpio = VirtualLgpio({0: (PI5_LINES, board)})
    with installed(lgpio):
        other = lgpio.gpiochip_open(0)  # another process on the same chip
        lgpio.gpio_claim_input(other, HardwareSettings().button_gpio)
        factory = lgpio_pin_factory(chip=0)
        try:
            with pytest.raises(PinAccessError) as refused:
                open_backend("gpio", ConfigFile(), layout=pinwheel, pin_factory=factory)
            error, message = refused.value, str(refused.value)
            assert isinstance(error, BoardClaimedError) and type(error.__cause__) is lgpio.error
            assert "GPIO busy" in message and "already running" in message
            # The traceback holds the half-built gpiozero device, whose pin reservation gpiozero keeps
            # process-wide (for every lgpio factory) until the device is collected.
            del refused, error
            gc.collect()
        finally:
            factory.close()
            lgpio.gpiochip_close(other)
            board.close()


def test_the_serial_port_is_claimed(tmp_path: Path, pinwheel: Layout) -> None:
    """The link opens its port exclusively (pyserial's flock); a second board on that port is refused."""
    with SimulatedDevice(link=tmp_path / "ttyACM0") as device:
        first = open_backend("serial", fast_config(), layout=pinwheel, port=device.port)
        try:
            assert first.health()["link"]["state"] == "connected"
            held = f"the serial port {device.port} is already in use by pid {os.getpid()}"
            with pytest.raises(BoardClaimedError, match=held):
                open_backend("serial", fast_config(), layout=pinwheel, port=device.port)
        finally:
            first.close()
        open_backend("serial", fast_config(), layout=pinwheel, port=device.port).close()  # free once closed
