"""``hautetension event demo`` (``make event``): broker, event server, boards, a tournament ready."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from store.event.db import connect_event
from store.season import Calendar
from store.tournaments import Tournaments
from tests.servers.process import find_binary, server_folder

BIN = Path(sys.executable).with_name("hautetension")


def _free_ports(count: int) -> int:
    """A port with the *count* - 1 next ones free too, below the kernel's ephemeral range: the other
    tests' servers bind port 0 and get ports in that range, so none takes one of these meanwhile."""
    ephemeral_low = _ephemeral_range()[0]
    for _ in range(200):
        base = random.randrange(10_000, ephemeral_low - count)
        if all(_is_free(base + n) and _can_bind(base + n) for n in range(count)):
            return base
    raise AssertionError("no run of free ports")


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default


def _can_bind(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _is_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


@pytest.mark.skipif(
    find_binary("mosquitto") is None, reason="Mosquitto is missing (apt-get install mosquitto)"
)
def test_the_demo_event_runs_two_boards_and_a_tournament_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    port = _free_ports(3)
    broker = _free_ports(1)  # chosen, as make event BROKER_PORT=… does
    folder = server_folder("event-demo")
    folder.chmod(0o700)  # as `make run` leaves var/: the broker, even started by root, reads its files
    env = {k: v for k, v in os.environ.items() if k not in ("HAUTETENSION_CONFIG", "NOTIFY_SOCKET")}
    proc = subprocess.Popen(
        [
            str(BIN),
            "event",
            "demo",
            "--port",
            str(port),
            "--boards",
            "2",
            "--players",
            "8",
            "--broker-port",
            str(broker),
            "--folder",
            str(folder / "demo"),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()
        assert "Demo event (2 board(s), 8 players" in banner, (
            proc.stderr.read() if proc.poll() is not None else banner
        )
        lines = [proc.stdout.readline() for _ in range(5)]
        assert (
            f"http://127.0.0.1:{port}/event" in lines[0] and f"http://127.0.0.1:{port + 2}/table" in lines[3]
        )
        assert f"broker: mqtt://127.0.0.1:{broker};" in lines[4]
        assert not _is_free(broker)  # Mosquitto listens there
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/event/boards", timeout=10) as response:
            boards = json.load(response)
        assert [(b["id"], b["label"], b["accepted"], b["online"]) for b in boards] == [
            ("board-1", "Table 1", True, True),
            ("board-2", "Table 2", True, True),
        ]
        with urllib.request.urlopen(f"http://127.0.0.1:{port + 1}/api/table", timeout=10) as response:
            table = json.load(response)
        assert table["phase"] == "waiting" and table["event"]["connected"]
        conn = connect_event(folder / "demo" / "central.db")
        (info,) = Tournaments(conn).all()
        assert (info.event, info.counts) == ("demo", False)  # a demonstration: never in the general ranking
        assert Calendar(conn).counted() == set() and Calendar(conn).get("demo").name == "Demonstration"
        t = Tournaments(conn).load(info.id)
        assert len(t.names) == 8 and t.rounds == [] and t.plan_next_round().number == 1  # ready for round 1
        conn.close()
        # The demo's broker runs the shipped rules for clients (pinned ids, size and queue limits).
        from hautetension.commands.event import broker_rules

        conf = (folder / "demo" / "broker" / "mosquitto.conf").read_text().splitlines()
        assert "use_username_as_clientid true" in conf and set(broker_rules()) <= set(conf)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        for busy in [*range(port, port + 3), broker]:
            assert _is_free(busy)  # every server is gone
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        shutil.rmtree(folder, ignore_errors=True)


def _demo(*options: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HAUTETENSION_CONFIG", "NOTIFY_SOCKET")}
    return subprocess.run([str(BIN), "event", "demo", *options], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60, check=False)


@pytest.mark.skipif(
    find_binary("mosquitto") is None, reason="Mosquitto is missing (apt-get install mosquitto)"
)
def test_the_brokers_port_is_refused_when_taken_or_one_of_the_panels(tmp_path: Path) -> None:
    """Before anything starts, with what to do: a broker's port in use, or one the event server or a
    board would take; a port that is not one."""
    port = _free_ports(3)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = int(taken.getsockname()[1])
        refused = _demo("--port", str(port), "--boards", "2", "--broker-port", str(busy), cwd=tmp_path)
    assert refused.returncode == 1
    assert f"the broker's port {busy} is taken" in refused.stderr and "BROKER_PORT" in refused.stderr
    clash = _demo("--port", str(port), "--boards", "2", "--broker-port", str(port + 1), cwd=tmp_path)
    assert clash.returncode == 1 and f"the broker's port {port + 1} is one of" in clash.stderr
    assert not (tmp_path / "var").exists()  # nothing was made
    for bad in ("0", "65536", "mqtt"):
        wrong = _demo("--broker-port", bad, cwd=tmp_path)
        assert wrong.returncode == 2 and "--broker-port" in wrong.stderr and "a port" in wrong.stderr


def test_make_event_passes_broker_port_to_the_demo() -> None:
    """make event BROKER_PORT=… gives the demo its broker's port; without it, the demo picks one."""
    root = Path(__file__).resolve().parents[2]
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is missing (apt-get install make)")

    def planned(*variables: str) -> str:
        run = subprocess.run([make, "-n", "-C", str(root), "event", *variables], capture_output=True,
                             text=True, timeout=60, check=True)
        return next(line for line in run.stdout.splitlines() if "event demo" in line)

    chosen = planned("EVENT_PORT=9000", "BROKER_PORT=9100")
    assert chosen.endswith("event demo --port 9000 --broker-port 9100")
    assert planned().endswith("event demo --port 8090")


@pytest.mark.skipif(
    find_binary("mosquitto") is None, reason="Mosquitto is missing (apt-get install mosquitto)"
)
def test_a_broker_that_stops_is_reported_with_its_last_words(tmp_path: Path) -> None:
    import argparse

    from hautetension.commands.event import Demo, _mosquitto

    binaries = _mosquitto()
    assert binaries is not None
    parent = tmp_path / "private"
    parent.mkdir(mode=0o700)
    args = argparse.Namespace(folder=str(parent / "demo"), boards=1, players=4, port=_free_ports(2),
                              broker_port=None)
    demo = Demo(args, binaries)
    demo.prepare()
    config = parent / "demo" / "broker" / "mosquitto.conf"
    config.write_text(config.read_text() + "no_such_option yes\n")  # the broker refuses to start
    demo.start()
    try:
        with pytest.raises(RuntimeError) as stopped:
            demo.set_up_event(timeout=30)
    finally:
        demo.stop()
    said = str(stopped.value)
    assert said.startswith("mosquitto stopped (exit status ") and "no_such_option" in said, said
