"""The event database's backup as its systemd unit takes it (pg_dump), and the documented restore."""

from __future__ import annotations

import configparser
import os
import shlex
import subprocess
from contextlib import closing
from pathlib import Path

from store.event.db import connect_event
from store.tournaments import Tournaments
from tests.servers.postgres import SUPERUSER, PostgresCluster

REPO = Path(__file__).resolve().parents[2]


def _backup_command(folder: Path, cluster: PostgresCluster, database: str) -> str:
    """hautetension-backup.service's command, pointed at the test's cluster and folder."""
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.read(REPO / "systemd/hautetension-backup.service")
    command = shlex.split(unit["Service"]["ExecStart"])
    assert command[:2] == ["/bin/sh", "-c"]
    script = command[2].replace("%%", "%").replace("/var/backups/hautetension", str(folder))
    server = f"--host={cluster.host} --port={cluster.port} --username={SUPERUSER}"
    script = script.replace("--host=/var/run/postgresql", server)
    assert script.count(" hautetension &&") == 1
    return script.replace(" hautetension &&", f" {database} &&")


def test_a_backup_restores_the_whole_event(tmp_path: Path, postgres_cluster: PostgresCluster) -> None:
    source = postgres_cluster.create_database("season")
    with closing(connect_event(source)) as conn:
        tournaments = Tournaments(conn)
        tid = tournaments.create("Paris open", seed=4).id
        for name in ("Ada", "Bo", "Cy", "Di"):
            tournaments.record(tid, lambda t, name=name: t.register(name), actor="staff")
        tournaments.record(tid, lambda t: t.next_round(), actor="staff")
    env = {**os.environ, "PATH": f"{postgres_cluster.bindir}:{os.environ['PATH']}"}
    folder = tmp_path / "backups"
    folder.mkdir()
    stale = folder / "hautetension-20200101T000000Z.dump"
    stale.write_bytes(b"old")
    os.utime(stale, (0, 0))
    done = subprocess.run(
        ["/bin/sh", "-c", _backup_command(folder, postgres_cluster, source.rsplit("/", 1)[1])],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (dump,) = folder.glob("hautetension-*.dump")  # the stale one is gone, no .part left
    assert dump != stale

    # The restore of docs/deployment.md, into a new empty database.
    target = postgres_cluster.create_database("restored")
    restored = subprocess.run(
        [
            "pg_restore",
            "--clean",
            "--if-exists",
            "--no-owner",
            f"--host={postgres_cluster.host}",
            f"--port={postgres_cluster.port}",
            f"--username={SUPERUSER}",
            f"--dbname={target.rsplit('/', 1)[1]}",
            str(dump),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert restored.returncode == 0, restored.stderr
    with closing(connect_event(target)) as conn:
        again = Tournaments(conn).load(tid)
        assert list(again.names.values()) == ["Ada", "Bo", "Cy", "Di"] and len(again.rounds) == 1
        # The restored database goes on numbering where the original stopped.
        assert Tournaments(conn).create("Lyon open").id == tid + 1
