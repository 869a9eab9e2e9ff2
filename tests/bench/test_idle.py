"""bench/idle.py: its counts per idle scan (machine-independent, so asserted) and its call counter."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def idle() -> ModuleType:
    spec = importlib.util.spec_from_file_location("idle_bench", ROOT / "bench" / "idle.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_call_counter_counts_a_driver_call_once(idle: ModuleType) -> None:
    def inner() -> int:
        return len([1, 2])

    def outer() -> None:
        inner()
        inner()

    counter = idle.CallCounter()
    counter.run(outer)
    assert (counter.calls, counter.builtins) == (3, 2)  # outer, inner twice; len twice
    from games.hautetension.layout import load_layout
    from hardware.settings import ChannelRef, HardwareSettings
    from hardware.virtual.board import VirtualBoard

    board = VirtualBoard(HardwareSettings(), load_layout())
    try:
        driver = idle.CallCounter()
        # The virtual board is the pins' driver: a call into it is one, whatever it calls inside.
        ref = ChannelRef(0, 1)
        driver.run(lambda: board.channel_level(ref, True, 0.0))
        assert driver.calls == 2  # the lambda and channel_level
    finally:
        board.close()


@pytest.fixture(scope="module")
def counts() -> dict[str, dict[str, int]]:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "idle.py"), "--counts-only", "--json",
                           "--polls", "20"], capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return {row["path"]: row for row in json.loads(done.stdout)}


def test_an_unchanged_scan_through_line_groups_is_32_gpio_operations_and_few_calls(
        counts: dict[str, dict[str, int]]) -> None:
    assert set(counts) == {"sim groups", "mock per-pin", "lgpio groups", "lgpio per-pin"}
    for path in ("sim groups", "lgpio groups"):
        row = counts[path]
        assert row["ops"] == 32, path
        assert row["scan_calls"] <= 64, (path, row["scan_calls"])
        assert row["poll_calls"] <= 64, (path, row["poll_calls"])
    for path in ("mock per-pin", "lgpio per-pin"):
        assert counts[path]["ops"] == 176, path


def test_idle_polls_do_not_grow_memory(counts: dict[str, dict[str, int]]) -> None:
    for path, row in counts.items():
        assert row["retained_bytes"] < 4096, (path, row["retained_bytes"])
