"""The panel copies the database at every tournament round made (``[store] backups_kept``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from store.backup import RollingBackups, check_backup
from tests.webpanel.helpers import Api
from webpanel.app import close_app, create_app
from webpanel.config import PanelSettings


@pytest.fixture
def backups(settings: PanelSettings, tmp_path: Path) -> Iterator[RollingBackups]:
    rolling = RollingBackups(settings.database, folder=tmp_path / "backups", keep=3)
    yield rolling
    rolling.close()


@pytest.fixture
def panel(settings: PanelSettings, backups: RollingBackups) -> Iterator[Flask]:
    application = create_app({"PANEL": settings, "TESTING": True, "BACKUPS": backups})
    yield application
    close_app(application)


def test_a_round_made_from_the_staff_page_is_copied(panel: Flask, backups: RollingBackups) -> None:
    staff = Api(panel.test_client())
    assert staff.login().status_code == 200

    def form(url: str, data: dict[str, str] | None = None) -> int:
        response = staff.client.post(url, data={"csrf_token": staff.token, **(data or {})})
        return int(response.status_code)

    created = {"csrf_token": staff.token, "name": "Open", "seed": "7"}
    response = staff.client.post("/tournaments", data=created)
    tid = int(response.headers["Location"].rstrip("/").split("/")[-1])
    assert form(f"/tournaments/{tid}/players", {"names": "Ana\nBen\nCy\nDee"}) == 303
    backups.wait()
    assert backups.copies("round") == []
    assert form(f"/tournaments/{tid}/rounds") == 303
    backups.wait()
    [copy] = backups.copies("round")
    assert copy.name.endswith(f"-t{tid}-r1.db") and check_backup(copy).tournaments == 1
