"""``hautetension backup`` and ``restore`` against a real board service, and its rolling backups."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from store.backup import check_backup
from store.claim import EX_CLAIMED
from store.commands import CommandKind
from tests.hardware.helpers import ServiceProcess

BIN = Path(sys.executable).with_name("hautetension")
# The pre-game check is skipped: these tests are about files, not lamps.
PLAYERS = {"players": [{"name": "Ana"}, {"name": "Ben"}], "pregame_check": "skip"}


def _hautetension(folder: Path, *words: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HAUTETENSION_CONFIG", "NOTIFY_SOCKET")}
    env["HAUTETENSION_CONFIG"] = str(folder / "config.toml")
    return subprocess.run([str(BIN), *words], cwd=folder, env=env, capture_output=True, text=True, timeout=60)


def test_backup_while_the_service_plays_then_restore_once_it_is_stopped(tmp_path: Path) -> None:
    service = ServiceProcess(tmp_path)
    try:
        service.command(CommandKind.NEW_GAME, PLAYERS)
        service.place("a9")
        (tmp_path / "usb").mkdir()
        done = _hautetension(tmp_path, "backup", str(tmp_path / "usb"), "--db", str(service.db))
        assert done.returncode == 0, done.stderr
        [copy] = (tmp_path / "usb").iterdir()
        assert copy.name.startswith("hautetension-") and copy.suffix == ".db"
        assert f"copied to {copy}" in done.stdout and "journal entries" in done.stdout
        assert check_backup(copy).board_games == 1
        service.place("i1")  # the game goes on after the copy

        refused = _hautetension(tmp_path, "restore", str(copy), "--db", str(service.db))
        assert refused.returncode == EX_CLAIMED and "Traceback" not in refused.stderr
        assert f"already in use by pid {service.proc.pid}" in refused.stderr
        assert "stop the board service first" in refused.stderr and "nothing was changed" in refused.stderr
        assert service.state["game"]["view"]["moves"][-1]["slot"] == "i1"
        assert service.stop() == 0
    finally:
        service.close()

    restored = _hautetension(tmp_path, "restore", str(copy), "--db", str(service.db))
    assert restored.returncode == 0, restored.stderr
    assert "the database it replaced is kept as" in restored.stdout
    [kept] = (tmp_path / "backups").glob("before-restore-*.db")
    assert check_backup(kept).journal_entries > check_backup(copy).journal_entries

    again = ServiceProcess(tmp_path)  # the restored game, with i1 on the board but not in its journal
    try:
        start = again.journal.last_of_kind("service-start")
        assert start is not None and start.public["game"] == 1
        moves = again.state["game"]["view"]["moves"]
        assert moves == [{"slot": "a9", "player": 0}, {"slot": "i1", "player": 1}]  # one pawn while down
        assert again.stop() == 0
    finally:
        again.close()


def test_restore_refuses_what_is_not_a_backup_and_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "notes.db").write_text("shopping list\n" * 200)
    (tmp_path / "config.toml").write_text("")
    done = _hautetension(tmp_path, "restore", str(tmp_path / "notes.db"), "--db", str(tmp_path / "h.db"))
    assert done.returncode == 65 and "not an SQLite database" in done.stderr
    assert "nothing was changed" in done.stderr and not (tmp_path / "h.db").exists()


def test_backup_of_no_database_says_so(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("")
    done = _hautetension(tmp_path, "backup", "--db", str(tmp_path / "none.db"))
    assert done.returncode == 1 and f"{tmp_path / 'none.db'}: there is no database there" in done.stderr


def test_the_service_keeps_a_rolling_backup_at_every_game_end(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        f'[board]\nsettle_ms = 100\n[store]\nbackups_kept = 2\nbackup_folder = "{tmp_path / "kept"}"\n')
    service = ServiceProcess(tmp_path)
    try:
        for game in (1, 2, 3):
            service.command(CommandKind.NEW_GAME, PLAYERS)
            service.command(CommandKind.ABANDON_GAME, {})
            service._wait(lambda g=game: len(list((tmp_path / "kept").glob(f"game-*-{g}.db"))) == 1,
                          f"the copy of game {game}")
        # The oldest copy goes once the newest is written: two kept.
        service._wait(lambda: _games_kept(tmp_path / "kept") == ["2.db", "3.db"], "two copies kept")
        copies = sorted((tmp_path / "kept").glob("game-*.db"))
        assert check_backup(copies[-1]).board_games == 3
        assert service.stop() == 0
    finally:
        service.close()


def _games_kept(folder: Path) -> list[str]:
    return [c.name.rsplit("-", 1)[1] for c in sorted(folder.glob("game-*.db"))]
