"""The `id` URL converter: what it takes, what it gives, what url_for makes of an id."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask, url_for

from webpanel.ids import MAX_ID


@pytest.mark.parametrize(("raw", "found"), [("0", 0), ("7", 7), ("007", 7), ("9" * 18, MAX_ID)])
def test_an_id_is_one_to_eighteen_ascii_digits(app: Flask, raw: str, found: int) -> None:
    adapter = app.url_map.bind("localhost")
    assert adapter.match(f"/api/games/{raw}")[1] == {"game_id": found}


def test_url_for_takes_ids_as_numbers_or_digits_and_nothing_else(app: Flask) -> None:
    with app.test_request_context():
        assert url_for("lobby.api_game", game_id=12) == "/api/games/12"
        assert url_for("lobby.api_game", game_id="12") == "/api/games/12"
        for bad in (-1, MAX_ID + 1, "x"):
            with pytest.raises(ValueError):
                url_for("lobby.api_game", game_id=bad)


def test_a_page_with_an_id_too_large_is_a_404_page(client: Any) -> None:
    response = client.get("/tournaments/" + "9" * 19)
    assert response.status_code == 404 and response.mimetype == "text/html"
