"""The tournament pages in French (the panel's default language): every page, the refusals the
staff meet, the CSV headers; and the JSON API, which stays English with a stable error ``code``."""

from __future__ import annotations

import csv
import io
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from games.exc import GameError
from store.db import connect
from store.tournaments import Tournaments
from tests.webpanel import i18n_checks
from webpanel import tournament_words as words
from webpanel.config import PanelSettings


def _form(api: Any, url: str, data: dict[str, str] | None = None) -> Any:
    return api.client.post(url, data={"csrf_token": api.token, **(data or {})})


def _messages(html: str) -> str:
    return " ".join(part.split("</p>")[0] for part in html.split('class="msg')[1:])


def _tournament(staff: Any, settings: PanelSettings) -> int:
    response = _form(staff, "/tournaments", {"name": "Coupe d’automne", "seed": "5", "handicap": "on"})
    tid = int(response.headers["Location"].rstrip("/").split("/")[-1])
    _form(staff, f"/tournaments/{tid}/players", {"names": "Ada\nBéa\nCid\nDée\nÉva"})
    assert _form(staff, f"/tournaments/{tid}/rounds").status_code == 303
    return tid


def test_every_tournament_page_is_french(client: FlaskClient, staff: Any, settings: PanelSettings) -> None:
    tid = _tournament(staff, settings)
    t = Tournaments(connect(settings.database)).load(tid)
    table = t.round(1).table(1)
    url = f"/tournaments/{tid}/rounds/1/tables/1"
    assert (
        _form(staff, url, {f"lit{s}": "1" if s == 0 else "" for s in range(len(table.seats))}).status_code
        == 303
    )
    _form(staff, f"/tournaments/{tid}/players/{table.seats[0]}/withdraw")
    pages = [
        "/tournaments",
        f"/tournaments/{tid}",
        f"/tournaments/{tid}?kiosk=1",
        f"/tournaments/{tid}/rounds/1",
        url,
        f"/tournaments/{tid}/rounds/1/tables/2",
        f"/tournaments/{tid}/players/{table.seats[0]}",
        f"/tournaments/{tid}/audit",
        f"/tournaments/{tid}/undo",
    ]
    for path in pages:
        html = client.get(path).get_data(as_text=True)
        assert i18n_checks.page_language(html) == "fr", path
        assert i18n_checks.english_words(html) == [], path
    overview = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "5 joueurs" in overview and "retiré" in overview and "Constituer le tour 2" in overview
    assert "Retiré au tour 1." in overview
    entry = client.get(url).get_data(as_text=True)
    assert "1re lampe allumée" in entry and "jamais allumée" in entry


def test_refusals_are_said_in_french(client: FlaskClient, staff: Any, settings: PanelSettings) -> None:
    tid = _tournament(staff, settings)
    _form(staff, f"/tournaments/{tid}/players", {"names": "Zoé"})
    shown = _messages(client.get(f"/tournaments/{tid}").get_data(as_text=True))
    assert "Les inscriptions sont closes\u00a0: le tour 1 est constitué." in shown
    _form(staff, f"/tournaments/{tid}/rounds")
    shown = _messages(client.get(f"/tournaments/{tid}").get_data(as_text=True))
    assert "Le tour 1 n’est pas fini\u00a0: les tables 1 et 2 n’ont pas encore de résultat." in shown
    # Two lamps lit together, without saying who placed the pawn: the form asks, in French.
    t = Tournaments(connect(settings.database)).load(tid)
    table = t.round(1).table(1)
    response = _form(staff, f"/tournaments/{tid}/rounds/1/tables/1", {"lit0": "1", "lit1": "1"})
    page = response.get_data(as_text=True)
    names = [t.names[p] for p in table.seats[:2]]
    assert response.status_code == 422
    assert (
        f"Les lampes de {names[0]} et {names[1]} se sont allumées ensemble\u00a0: dites qui a posé le pion."
        in page
    )
    assert 'id="placer-1" data-lighting="1">' in page and 'id="placer-2" data-lighting="2" hidden>' in page
    other = _form(staff, "/tournaments", {"name": "x", "handicap_step": "quatre"})
    assert other.status_code == 303
    assert "Les points d’avance par pion de handicap sont un nombre entier" in _messages(
        client.get("/tournaments").get_data(as_text=True)
    )


def test_csv_headers_and_values_are_in_the_page_language(
    client: FlaskClient, staff: Any, settings: PanelSettings
) -> None:
    tid = _tournament(staff, settings)
    rows = list(
        csv.DictReader(io.StringIO(client.get(f"/tournaments/{tid}/standings.csv").get_data(as_text=True)))
    )
    assert list(rows[0])[:5] == ["Rang", "Numéro du joueur", "Nom", "Points", "Statut"]
    assert {r["Statut"] for r in rows} == {"en lice"}
    english = client.get(f"/tournaments/{tid}/games.csv?lang=en").get_data(as_text=True)
    assert english.splitlines()[0].startswith("Round,Phase,Table,Seat,Player number,Name,Lamp,Starts")


def test_the_api_stays_english_with_a_code(
    app: Flask, client: FlaskClient, staff: Any, settings: PanelSettings
) -> None:
    tid = _tournament(staff, settings)
    body = client.get(f"/api/tournaments/{tid}", headers={"Accept-Language": "fr"}).get_json()
    assert {s["status_label"] for s in body["standings"]} == {"in contention"}
    assert body["round_details"][0]["phase_label"] == "drawn by lot"
    url = f"/api/tournaments/{tid}/rounds/1/tables/1/result"
    refused = staff.post(url, {"lightings": [{"seats": [0, 1]}]})
    assert refused.status_code == 422
    assert refused.get_json() == {
        "error": "lighting 1 lit several lamps: say who placed the pawn",
        "code": "impossible_result",
    }
    missing = client.get("/api/tournaments/999")
    assert missing.status_code == 404 and missing.get_json()["code"] == "tournament_not_found"
    assert (
        staff.post(f"/api/tournaments/{tid}/rounds/9/tables/1/result", {"lightings": []}).get_json()["code"]
        == "table_not_found"
    )


def test_an_error_without_words_is_shown_as_english(app: Flask) -> None:
    with app.test_request_context("/?lang=fr"):
        app.preprocess_request()
        text = words.error_text(GameError("something nobody translated", code="unknown_code"))
        assert str(text) == '<span lang="en">Something nobody translated</span>'
        assert words.error_text(GameError("a tournament needs a name", code="tournament_name_missing")) == (
            "Un tournoi doit avoir un nom."
        )
