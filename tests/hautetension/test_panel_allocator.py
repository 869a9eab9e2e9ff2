"""``hautetension panel`` runs with glibc's allocator settings (no per-thread cache, two arenas),
however it is started: by systemd, by ``make run`` or by hand (bench/soak.py measured why)."""

from __future__ import annotations

import os
import platform
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hautetension.commands.panel import MALLOC_TUNABLES, allocator_environment

ROOT = Path(__file__).resolve().parents[2]
WANTED = ":".join(f"{name}={value}" for name, value in MALLOC_TUNABLES.items())
glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's settings: only on glibc")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@glibc
def test_the_settings_are_added_to_the_operators_own_and_never_replace_them() -> None:
    assert allocator_environment({"HOME": "/h"}) == {"HOME": "/h", "GLIBC_TUNABLES": WANTED}
    mine = allocator_environment({"GLIBC_TUNABLES": "glibc.malloc.arena_max=4"})
    assert mine is not None
    assert mine["GLIBC_TUNABLES"] == "glibc.malloc.arena_max=4:glibc.malloc.tcache_count=0"
    assert allocator_environment({"GLIBC_TUNABLES": WANTED}) is None  # nothing to do: no second start


@glibc
def test_a_panel_started_without_them_runs_with_them(tmp_path: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("GLIBC_TUNABLES", "HAUTETENSION_CONFIG")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "hautetension", "panel", "--db", str(tmp_path / "ht.db"), "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, f"the panel stopped ({proc.returncode})"
            assert time.monotonic() < deadline, "the panel did not listen"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        # The same process (systemd and `hautetension run` follow its pid), started again with them.
        # glibc cuts the variable as it reads it: its first setting is what is left to see.
        environment = Path(f"/proc/{proc.pid}/environ").read_bytes().split(b"\0")
        first = WANTED.split(":")[0]
        assert f"GLIBC_TUNABLES={first}".encode() in environment
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_the_panels_unit_sets_them_so_that_it_starts_once() -> None:
    unit = (ROOT / "systemd" / "hautetension-panel.service").read_text().splitlines()
    assert f"Environment=GLIBC_TUNABLES={WANTED}" in unit
