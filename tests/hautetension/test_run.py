"""``hautetension run`` (what ``make run`` calls): board service + panel, a demo game, clean Ctrl-C."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from store.db import connect
from store.journal import Journal

BIN = Path(sys.executable).with_name("hautetension")
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_run_starts_both_processes_and_a_demo_game_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("HAUTETENSION_CONFIG", "NOTIFY_SOCKET")}
    proc = subprocess.Popen(
        [str(BIN), "run", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()  # printed once both are up and the demo game is started
        assert f"http://127.0.0.1:{port}/" in banner, (
            proc.stderr.read() if proc.poll() is not None else banner
        )
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert response.status == 200
        journal = Journal(connect(tmp_path / "var/hautetension.db"))  # the default database, no config
        state = journal.state()
        assert state is not None and state.public["backend"] == "sim"
        game = state.public["game"]
        assert game["status"] == "running" and [s["name"] for s in game["view"]["seats"]] == ["Ana", "Ben"]
        board_pid = state.health["service"]["pid"] if state.health else None
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
        stop = journal.last_of_kind("service-stop")
        assert stop is not None and stop.public["pid"] == board_pid
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", port)) != 0  # the panel is gone too
        journal.conn.close()
        assert proc.stderr is not None and "demo game 1 started" in proc.stderr.read()

        # A second run resumes the game instead of starting another; and if "run" itself is
        # killed with SIGKILL, its children do not stay behind.
        again = subprocess.Popen(
            [str(BIN), "run", "--port", str(_free_port())],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert again.stdout is not None and again.stderr is not None
        again.stdout.readline()
        journal = Journal(connect(tmp_path / "var/hautetension.db"))
        state = journal.state()
        assert state is not None and state.health is not None
        board_pid = state.health["service"]["pid"]
        again.kill()
        again.wait(timeout=5)
        assert "game 1 resumed" in again.stderr.read()
        deadline = time.monotonic() + 10
        while (stop := journal.last_of_kind("service-stop")) is None or stop.public["pid"] != board_pid:
            assert time.monotonic() < deadline, "the board service outlived a killed 'hautetension run'"
            time.sleep(0.05)
        journal.conn.close()
        again.stdout.close()
        again.stderr.close()
    finally:
        if proc.poll() is None:
            proc.terminate()  # lets it stop its children
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()


def test_make_run_twice_on_one_database(tmp_path: Path) -> None:
    """The second ``make run`` stops at once, naming the board service that runs; the first goes on."""
    db = tmp_path / "h.db"
    unset = ("HAUTETENSION_CONFIG", "NOTIFY_SOCKET", "MAKEFLAGS")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    venv = Path(sys.prefix)

    def make_run(port: int) -> list[str]:
        # -o: the venv is there already (this test runs in it); do not reinstall it.
        return ["make", "--no-print-directory", "-C", str(ROOT), f"VENV={venv}",
                "-o", f"{venv}/.installed-run", "run", f"PORT={port}", f"DB={db}"]

    port = _free_port()
    first = subprocess.Popen(make_run(port), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    try:
        assert first.stdout is not None and first.stderr is not None
        banner = first.stdout.readline()  # make echoes the command first
        if "http://" not in banner:
            banner = first.stdout.readline()
        if f"http://127.0.0.1:{port}/" not in banner:
            raise AssertionError(first.stderr.read() if first.poll() is not None else banner)
        journal = Journal(connect(db))
        state = journal.state()
        assert state is not None and state.health is not None
        board_pid = state.health["service"]["pid"]

        second = subprocess.run(make_run(_free_port()), env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode != 0 and "Traceback" not in second.stderr
        assert f"the database {db} is already in use by pid {board_pid} (hautetension board" in second.stderr
        assert f"{db} already has a controller" in second.stderr
        assert "Error 75" in second.stderr  # make passes on the board service's status
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/board", timeout=10) as response:
            assert response.status == 200  # the first one still serves
        assert first.poll() is None
    finally:
        os.killpg(first.pid, signal.SIGTERM)
        first.wait(timeout=20)
        for stream in (first.stdout, first.stderr):
            if stream:
                stream.close()
    stop = journal.last_of_kind("service-stop")
    assert stop is not None and stop.public["pid"] == board_pid
    starts = [e.public["pid"] for e in journal.tail(0, limit=10_000) if e.kind == "service-start"]
    assert starts == [board_pid]
    journal.conn.close()
