"""``hautetension tournament``: list, standings and CSV export from the database."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from games.hautetension.outcome import Lighting
from hautetension.cli import main
from store.db import connect
from store.tournaments import Tournaments


@pytest.fixture()
def database(tmp_path: Path) -> Path:
    path = tmp_path / "board.db"
    store = Tournaments(connect(path))
    tid = store.create("Open de Lyon", seed=1).id
    for name in ("Ada", "Bob", "Cid", "Dee"):
        store.record(tid, lambda t, n=name: t.register(n), actor="test")
    store.record(tid, lambda t: t.next_round(), actor="test")
    store.record(
        tid, lambda t: t.enter_result(1, 1, [Lighting((0,)), Lighting((1,)), Lighting((2,))]), actor="x"
    )
    return path


def test_list_and_standings(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--db", str(database), "list"]) == 0
    assert capsys.readouterr().out == "1\tOpen de Lyon\t4 players\tround 1\n"
    assert main(["tournament", "--db", str(database), "standings", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Open de Lyon — 1 round(s)"
    assert [int(line.split()[-2]) for line in lines[1:]] == [4, 3, 2, 0]


def test_export(database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.csv"
    assert main(["tournament", "--db", str(database), "export", "1", "games", "-o", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert sorted(int(r["Points"]) for r in rows) == [0, 2, 3, 4]
    assert main(["tournament", "--db", str(database), "export", "1", "standings"]) == 0
    assert capsys.readouterr().out.startswith("Place,Player number,Name,Points,Status")


def test_errors(database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--db", str(database), "standings", "7"]) == 2
    assert "there is no tournament 7" in capsys.readouterr().err
    assert main(["tournament", "--db", str(tmp_path / "none.db"), "list"]) == 2
    assert "no database at" in capsys.readouterr().err
    assert not (tmp_path / "none.db").exists()
