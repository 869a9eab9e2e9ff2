"""bench/soak.py: what it samples is what it says, and a short run of it plays, polls and samples."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def soak() -> ModuleType:
    spec = importlib.util.spec_from_file_location("soak", ROOT / "bench" / "soak.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_process_figures_count_threads_and_open_files(soak: ModuleType, tmp_path: Path) -> None:
    before = soak.process_figures(os.getpid())
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        with open(tmp_path / "held", "w"):
            during = soak.process_figures(os.getpid())
    finally:
        release.set()
        thread.join()
    assert during["threads"] == before["threads"] + 1
    assert during["open_files"] == before["open_files"] + 1
    assert during["rss_mib"] > 0


def test_the_slope_is_per_hour_and_the_folder_size_counts_files(soak: ModuleType, tmp_path: Path) -> None:
    assert soak._slope_per_hour([(0.0, 10.0), (1.0, 12.0), (2.0, 14.0)]) == pytest.approx(120.0)
    assert soak._slope_per_hour([(5.0, 3.0), (6.0, 3.0), (9.0, 3.0)]) == 0.0
    (tmp_path / "a").write_bytes(b"x" * 2**20)
    (tmp_path / "b").write_bytes(b"x" * 2**19)
    assert soak.folder_size(tmp_path) == (1.5, 2)
    assert soak.folder_size(tmp_path / "none") == (0.0, 0)


def test_a_short_soak_plays_polls_and_samples_both_processes(tmp_path: Path) -> None:
    out, folder = tmp_path / "samples.jsonl", tmp_path / "run"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "soak.py"), "--minutes", "0.15", "--warmup", "0.05",
         "--sample", "2", "--pollers", "1", "--streams", "1", "--lobby", "1", "--out", str(out),
         "--folder", str(folder)],
        capture_output=True, text=True, timeout=180,
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) >= 3 and rows[-1]["minute"] >= 0.15
    for row in rows:
        for process in ("board", "panel"):
            assert row[process]["rss_mib"] > 0 and row[process]["threads"] >= 1
            assert row[process]["open_files"] >= 3  # stdin, stdout, stderr at least
        assert row["database_mib"] > 0
    counts = rows[-1]["counts"]
    assert counts["placements"] >= 1 and counts["lobby games created"] >= 1
    # The board service took the placements one after another (one it held back, as for the lamps'
    # pre-game check, waits 10 s and the soak plays nothing more).
    assert counts["placements"] >= 2 and "board errors" not in counts, done.stderr
    assert counts["requests"] > counts["placements"] and counts["events"] >= 1
    assert "after warm-up" in done.stdout and "board rss_mib" in done.stdout
    journal = next(line for line in done.stdout.splitlines() if line.startswith("journal "))
    assert int(journal.split()[1]) >= counts["placements"]  # a row per placement at least
    # The processes it started are gone.
    pids = [line.split()[-1] for line in done.stdout.splitlines() if line.startswith("soak: pids")]
    assert pids and not any(Path(f"/proc/{pid}").exists() for pid in pids[0].split(","))


def test_a_soak_starts_from_a_new_database(tmp_path: Path) -> None:
    (tmp_path / "hautetension.db").write_bytes(b"")
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "soak.py"), "--folder", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "is not empty" in done.stderr
