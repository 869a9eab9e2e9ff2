"""The event server with its database's disk full, and with PostgreSQL stopped: every page and API
answers 503 with a reason and ``Retry-After``, never 500 (staff login included), and works again once
the database is back.

The disk is a real small file system (tmpfs, mounted for the test) filled to its last byte; the
PostgreSQL server is a real one of the test's own, stopped and started again.
"""

from __future__ import annotations

import errno
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from store.event.settings import EventSettings
from tests.servers.postgres import PostgresCluster, find_postgres_bindir
from tests.servers.process import server_folder
from tests.uplink.helpers import wait_for
from tests.webpanel.helpers import Api, make_settings
from webpanel.app import close_app, create_app

PAGES = [
    "/",
    "/event",
    "/event/wall",
    "/event/boards",
    "/tournaments",
    "/ranking",
    "/api/session",
    "/api/event/boards",
    "/api/event/wall",
    "/api/event/results",
    "/api/event/ingest",
    "/api/tournaments",
    "/api/ranking",
    "/api/players",
]
"""Pages and APIs a visitor or staff opens (each reads the event's database)."""


def _mount_small_disk(folder: Path) -> None:
    folder.mkdir()
    try:
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=24m,mode=0755", "tmpfs", str(folder)],
            check=True,
            capture_output=True,
            text=True,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or exc
        pytest.skip(f"a small file system to fill needs mount -t tmpfs (as root): {detail}")


def _fill(folder: Path) -> Path:
    """Write a file until the file system has no byte left."""
    filler = folder / "filler"
    chunk = b"\0" * 65536
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(chunk)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    with filler.open("ab", buffering=0) as out:  # the last few bytes too
        try:
            while True:
                out.write(b"\0")
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    return filler


def _no_500(client: Api, pages: list[str] = PAGES) -> dict[str, int]:
    answers = {}
    for page in pages:
        response = client.get(page)
        answers[page] = response.status_code
        assert response.status_code != 500, (page, response.get_data(as_text=True)[:300])
        if response.status_code == 503:
            assert int(response.headers["Retry-After"]) > 0, page
    return answers


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "disk"
    _mount_small_disk(folder)
    yield folder
    subprocess.run(["umount", "--lazy", str(folder)], check=False, capture_output=True)


def test_staff_login_with_the_event_databases_disk_full_is_503_never_500(
    tmp_path: Path, small_disk: Path
) -> None:
    settings = EventSettings(event="paris-2026", database=small_disk / "central.db", confirm_timeout=60)
    app = create_app(
        {
            "PANEL": make_settings(small_disk, database=small_disk / "panel.db"),
            "EVENT": settings,
            "TESTING": True,
        }
    )
    try:
        staff = Api(app.test_client())
        _no_500(staff)  # every page opened once, on a disk with room
        filler = _fill(small_disk)

        login = staff.login()
        assert login.status_code == 503, login.get_data(as_text=True)
        assert login.get_json()["code"] == "database_full"
        assert int(login.headers["Retry-After"]) > 0
        assert login.get_json()["params"]["retry_after"] == int(login.headers["Retry-After"])
        _no_500(staff)

        filler.unlink()  # staff freed space: everything works again
        assert staff.login().status_code == 200
        assert staff.get("/event").status_code == 200
    finally:
        close_app(app)


def test_the_event_server_with_postgresql_stopped_answers_503_never_500(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each request waits for a pooled connection before it gives up: half a second here, not the
    # product's seconds (what is tested is the answer, not how long it waited).
    monkeypatch.setattr("store.dialect.POOL_WAIT_S", 0.5)
    bindir = find_postgres_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL is missing (apt-get install postgresql): this test stops a real server")
    cluster = PostgresCluster(server_folder("postgres-outage"), bindir=bindir)
    cluster.start()
    app: Flask | None = None
    try:
        dsn = cluster.create_database("outage")
        settings = EventSettings(event="paris-2026", database=dsn, confirm_timeout=60)
        app = create_app({"PANEL": make_settings(tmp_path), "EVENT": settings, "TESTING": True})
        staff = Api(app.test_client())
        assert staff.login().status_code == 200
        assert staff.get("/api/event/boards").status_code == 200

        cluster.stop()
        login = Api(app.test_client())
        answer = login.login()
        assert answer.status_code == 503 and answer.get_json()["code"] == "database_unavailable"
        assert int(answer.headers["Retry-After"]) > 0
        # Every one waits for the pool's connection: a page and an API of each kind.
        answers = _no_500(
            staff, ["/", "/event", "/event/wall", "/api/session", "/api/event/wall", "/api/ranking"]
        )
        assert 503 in answers.values()
        for language, words in (
            ("fr", "La base de données ne répond pas"),
            ("en", "The database is not answering"),
        ):
            page = Api(app.test_client()).get("/tournaments", headers={"Accept-Language": language})
            assert page.status_code == 503 and words in page.get_data(as_text=True), language
            assert int(page.headers["Retry-After"]) > 0

        cluster.start()  # back: the pool connects again by itself (it retries with a growing pause)
        assert app is not None
        client = app.test_client()
        wait_for(lambda: Api(client).login().status_code == 200, 90, "a login once PostgreSQL is back")
        assert staff.get("/api/event/boards").status_code == 200
    finally:
        if app is not None:
            close_app(app)
        cluster.kill()
        shutil.rmtree(cluster.folder, ignore_errors=True)
