"""The systemd notify protocol against a real AF_UNIX datagram socket."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hardware.service.notify import SystemdNotifier

BIN = Path(sys.executable).with_name("hautetension")


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[tuple[str, socket.socket]]:
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(5.0)
    yield path, sock
    sock.close()


def _fields(datagram: bytes) -> dict[str, str]:
    return dict(line.split("=", 1) for line in datagram.decode().splitlines())


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_ready_status_and_stopping_reach_the_socket(notify_socket: tuple[str, socket.socket]) -> None:
    path, sock = notify_socket
    notifier = SystemdNotifier({"NOTIFY_SOCKET": path})
    assert notifier.enabled
    assert notifier.ready("game 1: Ana to move")
    ready = _fields(sock.recv(4096))
    assert ready == {"READY": "1", "STATUS": "game 1: Ana to move", "MAINPID": str(os.getpid())}
    assert notifier.status("scanner faulted: lamps off")
    assert _fields(sock.recv(4096)) == {"STATUS": "scanner faulted: lamps off"}
    assert notifier.stopping()
    assert _fields(sock.recv(4096))["STOPPING"] == "1"
    assert notifier.sent == 3
    notifier.close()


def test_abstract_socket_address() -> None:
    name = f"hautetension-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.settimeout(5.0)
    try:
        notifier = SystemdNotifier({"NOTIFY_SOCKET": "@" + name})
        assert notifier.status("ok")
        assert _fields(sock.recv(4096)) == {"STATUS": "ok"}
        notifier.close()
    finally:
        sock.close()


def test_watchdog_pings_at_half_the_period(notify_socket: tuple[str, socket.socket]) -> None:
    path, sock = notify_socket
    clock = FakeClock()
    notifier = SystemdNotifier(
        {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000", "WATCHDOG_PID": str(os.getpid())}, clock=clock
    )
    assert notifier.watchdog_interval == 2.0
    pings = 0
    for _ in range(41):  # 4 seconds in steps of 0.1 s
        pings += notifier.watchdog()
        clock.now += 0.1
    assert pings == 4  # at 0, 1, 2 and 3 s: every half period
    for _ in range(pings):
        assert _fields(sock.recv(4096)) == {"WATCHDOG": "1"}
    notifier.close()


def test_no_socket_or_another_process_watchdog_means_silence(tmp_path: Path) -> None:
    assert not SystemdNotifier({}).ready("x")
    other = SystemdNotifier(
        {
            "NOTIFY_SOCKET": str(tmp_path / "s"),
            "WATCHDOG_USEC": "1000000",
            "WATCHDOG_PID": str(os.getpid() + 1),
        }
    )
    assert other.watchdog_interval is None and not other.watchdog()
    # A socket that went away: the board must keep running, the call just says it failed.
    assert not other.status("nobody listens")
    other.close()
    assert not SystemdNotifier({"NOTIFY_SOCKET": "relative/path"}).enabled


def test_the_board_service_announces_ready_and_pings_the_watchdog(
    notify_socket: tuple[str, socket.socket], tmp_path: Path
) -> None:
    """A real ``hautetension board`` process under a fake systemd."""
    path, sock = notify_socket
    env = {k: v for k, v in os.environ.items() if k != "HAUTETENSION_CONFIG"}
    env.update(NOTIFY_SOCKET=path, WATCHDOG_USEC="400000", HAUTETENSION_CONFIG=str(tmp_path / "c.toml"))
    (tmp_path / "c.toml").write_text("[board]\nsettle_ms = 50\n")
    proc = subprocess.Popen(
        [str(BIN), "board", "--backend", "sim", "--db", str(tmp_path / "b.db")],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        messages: list[dict[str, str]] = []
        deadline = time.monotonic() + 10
        while sum("WATCHDOG" in m for m in messages) < 3 and time.monotonic() < deadline:
            messages.append(_fields(sock.recv(4096)))
        ready = [m for m in messages if m.get("READY") == "1"]
        assert ready and ready[0]["MAINPID"] == str(proc.pid) and "no game" in ready[0]["STATUS"]
        assert sum("WATCHDOG" in m for m in messages) >= 3
        proc.send_signal(signal.SIGTERM)
        while "STOPPING" not in messages[-1]:
            messages.append(_fields(sock.recv(4096)))
        assert proc.wait(timeout=5) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stderr is not None
        proc.stderr.close()


def test_a_hung_scan_loop_stops_the_pings(notify_socket: tuple[str, socket.socket], tmp_path: Path) -> None:
    """The pings come from the scan loop itself: when a poll hangs, systemd hears nothing."""
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("service_rig_notify", Path(__file__).with_name("test_service.py"))
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    path, sock = notify_socket
    rig = module.Rig(tmp_path)
    rig.service.notifier = SystemdNotifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"})
    release = threading.Event()
    entered = threading.Event()
    original = rig.backend.poll

    def hanging_poll() -> list[object]:
        entered.set()
        release.wait(10)
        return original()  # type: ignore[no-any-return]

    stop = threading.Event()
    loop = threading.Thread(target=rig.service.run, args=(stop,))
    loop.start()
    try:
        assert _fields(sock.recv(4096)) == {"WATCHDOG": "1"}
        rig.backend.poll = hanging_poll
        assert entered.wait(5)
        sock.setblocking(False)
        while True:  # what was sent before the hang
            try:
                sock.recv(4096)
            except BlockingIOError:
                break
        sock.settimeout(0.4)  # four watchdog periods
        with pytest.raises(TimeoutError):
            sock.recv(4096)
        rig.backend.poll = original
        release.set()
        sock.settimeout(5.0)
        assert _fields(sock.recv(4096)) == {"WATCHDOG": "1"}
    finally:
        release.set()
        stop.set()
        loop.join(5)
        rig.service.notifier.close()
        rig.close()
