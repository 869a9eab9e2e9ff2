"""The extension contract other areas build on (docs/webpanel.md, "Extending the panel")."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest
from flask import Blueprint, Flask, jsonify

from tests.webpanel.helpers import Api, make_settings
from webpanel import app as app_module
from webpanel.app import close_app, create_app
from webpanel.auth import is_staff, staff_required


def _area() -> types.ModuleType:
    module = types.ModuleType("panel_test_area")
    bp = Blueprint("test_area", "panel_test_area")
    module.calls = []  # type: ignore[attr-defined]

    @bp.get("/api/test-area/secret")
    @staff_required
    def secret() -> Any:
        return jsonify({"staff": is_staff()})

    @bp.post("/api/test-area/things")
    def things() -> Any:
        return jsonify({"made": True}), 201

    @bp.get("/test-area")
    @staff_required
    def page() -> str:
        return "area page"

    def init_app(app: Flask) -> None:
        module.calls.append(app)  # type: ignore[attr-defined]

    module.bp = bp  # type: ignore[attr-defined]
    module.init_app = init_app  # type: ignore[attr-defined]
    return module


@pytest.mark.parametrize("as_object", [False, True])
def test_a_new_blueprint_gets_guard_csrf_and_init(
    tmp_path: Path, monkeypatch: Any, as_object: bool
) -> None:
    module = _area()
    monkeypatch.setitem(sys.modules, "panel_test_area", module)
    entry: Any = module.bp if as_object else "panel_test_area:bp"  # type: ignore[attr-defined]
    monkeypatch.setattr(app_module, "BLUEPRINTS", [*app_module.BLUEPRINTS, entry])
    app = create_app({"PANEL": make_settings(tmp_path), "TESTING": True})
    try:
        assert module.calls == [app]  # type: ignore[attr-defined]
        api = Api(app.test_client())
        assert api.get("/api/test-area/secret").status_code == 401
        page = api.get("/test-area")
        assert page.status_code == 302 and "/staff/login?next=/test-area" in page.headers["Location"]
        # CSRF for free: without the token the view never runs.
        assert api.client.post("/api/test-area/things", json={}).status_code == 403
        assert api.post("/api/test-area/things", {}).status_code == 201
        api.login()
        assert api.get("/api/test-area/secret").get_json() == {"staff": True}
        assert api.get("/test-area").get_data(as_text=True) == "area page"
        assert api.get("/api/test-area/secret").headers["Content-Security-Policy"]
    finally:
        close_app(app)


def test_a_wrong_entry_is_refused(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(app_module, "BLUEPRINTS", ["webpanel.app:create_app"])
    with pytest.raises(TypeError, match="not a Flask Blueprint"):
        create_app({"PANEL": make_settings(tmp_path), "TESTING": True})


def test_base_template_blocks(client: Any) -> None:
    html = client.get("/board").get_data(as_text=True)
    assert '<meta name="csrf-token" content="' in html
    assert "/static/panel.js" in html and "/static/panel.css" in html


def test_registered_areas_are_linked_from_every_page(client: Any) -> None:
    for path in ("/board", "/games", "/tournaments"):
        html = client.get(path).get_data(as_text=True)
        assert html.count('href="/games"') == 1, path
        assert html.count('href="/tournaments"') == 1, path


def test_an_area_left_out_is_not_linked(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(app_module, "BLUEPRINTS", [e for e in app_module.BLUEPRINTS if "lobby" not in str(e)])
    app = create_app({"PANEL": make_settings(tmp_path), "TESTING": True})
    try:
        html = app.test_client().get("/board").get_data(as_text=True)
        assert 'href="/games"' not in html and 'href="/tournaments"' in html
    finally:
        close_app(app)
