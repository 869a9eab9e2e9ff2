"""The public API: board, layout, session, events, OpenAPI, errors and headers."""

from __future__ import annotations

import re
import threading
import urllib.request
from typing import Any

from flask import Flask

from games.hautetension.layout import load_layout
from tests.webpanel.helpers import FakeService, make_settings, start_game, wait_for
from webpanel.security import CONTENT_SECURITY_POLICY


def test_board_without_service_says_it_is_not_running(client: Any) -> None:
    body = client.get("/api/board").get_json()
    assert body["service"] == {"running": False}
    assert body["game"] is None and body["pawns"] == {} and body["id"] == 0


def test_board_follows_the_service(staff: Any, service: Any) -> None:
    start_game(staff)
    assert staff.post("/api/sim/slots/c7", {"pawn": "attack"}).status_code == 200
    body = staff.get("/api/board").get_json()
    assert body["service"]["running"] is True
    assert body["backend"] == "sim"
    assert body["pawns"] == {"c7": {"owner": 0}}
    assert body["game"]["status"] == "running"
    assert [s["name"] for s in body["game"]["view"]["seats"]] == ["Ada", "Bob"]
    assert body["game"]["view"]["to_move"] == 1
    assert body["id"] > 0


def test_board_service_stale_heartbeat_is_not_running(tmp_path: Any) -> None:
    from webpanel.app import close_app, create_app

    settings = make_settings(tmp_path, service_stale_seconds=0.3)
    fake = FakeService(settings.database, heartbeat=False).start()
    app = create_app({"PANEL": settings, "TESTING": True})
    try:
        client = app.test_client()
        wait_for(lambda: client.get("/api/board").get_json()["service"]["running"] is False, 3)
        assert client.get("/api/board").get_json()["backend"] == "sim"
    finally:
        fake.stop()
        close_app(app)


def test_layout_is_the_board_layout(client: Any) -> None:
    body = client.get("/api/layout").get_json()
    assert body == load_layout("pinwheel-80").to_dict()
    assert len(body["slots"]) == 80


def test_session_gives_a_csrf_token_and_staff_flag(client: Any) -> None:
    body = client.get("/api/session").get_json()
    assert len(body["csrf_token"]) >= 32 and body["staff"] is False
    assert client.get("/api/session").get_json()["csrf_token"] == body["csrf_token"]


def test_security_headers_on_pages_and_api(client: Any) -> None:
    for url in ("/", "/board", "/api/board", "/staff/login", "/api/nope"):
        response = client.get(url)
        assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
    assert "script-src 'self'" in CONTENT_SECURITY_POLICY and "unsafe-inline" not in CONTENT_SECURITY_POLICY


def test_pages_have_no_inline_scripts_or_styles(client: Any, app: Flask) -> None:
    import json
    import re

    for url in ("/", "/board", "/staff/login"):
        html = client.get(url).get_data(as_text=True)
        scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
        assert scripts, url
        for attrs, body in scripts:
            if 'type="application/json"' in attrs:  # a data block (the scripts' catalogue): never run
                assert "src=" not in attrs and isinstance(json.loads(body), dict), url
                continue
            assert "src=" in attrs and body.strip() == "", url
        assert " style=" not in html and "<style" not in html
        assert re.search(r"\son[a-z]+=", html) is None, url


def test_session_cookie_is_httponly_and_samesite(client: Any) -> None:
    response = client.get("/api/session")
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie


def test_unknown_api_path_and_method_are_json(client: Any) -> None:
    response = client.get("/api/does-not-exist")
    assert response.status_code == 404 and "error" in response.get_json()
    response = client.delete("/api/board")
    assert response.status_code == 405 and "not allowed" in response.get_json()["error"]


def test_openapi_documents_every_api_route(client: Any, app: Flask) -> None:
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.")
    documented = {(path, method) for path, ops in doc["paths"].items() for method in ops}
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)  # <id:game_id> is {game_id}
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert (path, method.lower()) in documented, f"{method} {path} is not in openapi.json"


def test_openapi_registry_merges_paths() -> None:
    from webpanel import openapi

    openapi.add_paths({"/api/x-test": {"get": {"summary": "a"}}})
    openapi.add_paths({"/api/x-test": {"post": {"summary": "b"}}})
    try:
        assert set(openapi.document()["paths"]["/api/x-test"]) == {"get", "post"}
    finally:
        openapi._paths.pop("/api/x-test")


def test_body_too_large_is_413_json(api: Any, service: Any) -> None:
    response = api.post("/api/sim/slots/a9", data="x" * 70_000, content_type="application/json")
    assert response.status_code == 413 and "too large" in response.get_json()["error"]


def test_home_is_the_sim_board_on_the_sim_backend(client: Any, service: Any) -> None:
    html = client.get("/").get_data(as_text=True)
    assert 'class="board sim"' in html
    assert client.get("/sim").status_code == 200
    assert 'class="board sim"' not in client.get("/board").get_data(as_text=True)


def test_home_is_the_live_board_on_real_hardware(tmp_path: Any) -> None:
    from webpanel.app import close_app, create_app

    settings = make_settings(tmp_path)
    fake = FakeService(settings.database, backend="gpio").start()
    app = create_app({"PANEL": settings, "TESTING": True})
    try:
        client = app.test_client()
        assert 'class="board sim"' not in client.get("/").get_data(as_text=True)
        assert client.get("/sim").status_code == 404
    finally:
        fake.stop()
        close_app(app)


def test_kiosk_mode_hides_navigation(client: Any) -> None:
    assert 'class="kiosk' in client.get("/board?kiosk=1").get_data(as_text=True)
    assert 'class="kiosk' not in client.get("/board").get_data(as_text=True)


def test_a_transaction_left_open_is_rolled_back_after_the_request(app: Flask, caplog: Any) -> None:
    from webpanel.db import get_db

    @app.get("/api/test-leaky")
    def leaky() -> Any:
        get_db().execute("BEGIN IMMEDIATE")  # a view that forgets to commit
        return {"ok": True}

    client = app.test_client()
    assert client.get("/api/test-leaky").status_code == 200
    with app.app_context():
        assert not get_db().in_transaction
    assert "rolled back" in caplog.text


def test_requests_on_every_server_thread_share_a_few_connections(app: Flask, served: Any) -> None:
    # waitress gives each request to the thread that waited longest: with a connection per thread,
    # 40 requests one after another opened 40 connections, each filling its own caches slowly.
    threads = app.config["PANEL"].worker_threads
    assert threads >= 40
    for _ in range(40):
        with urllib.request.urlopen(served.url + "/api/board", timeout=10) as response:
            assert response.status == 200
    assert app.extensions["db_pool"].opened == 1


def test_a_connection_serves_one_request_at_a_time_and_a_burst_is_given_back(app: Flask) -> None:
    from webpanel.db import IDLE_CONNECTIONS, get_db

    pool = app.extensions["db_pool"]
    burst = IDLE_CONNECTIONS + 3
    lent: list[int] = []
    inside, leave = threading.Barrier(burst + 1), threading.Event()

    def request() -> None:
        with app.app_context():
            lent.append(id(get_db()))
            assert get_db().execute("SELECT 1").fetchone()[0] == 1
            inside.wait(timeout=10)
            leave.wait(timeout=10)

    threads = [threading.Thread(target=request) for _ in range(burst)]
    for thread in threads:
        thread.start()
    inside.wait(timeout=10)
    assert len(set(lent)) == burst and pool.opened == burst  # never two requests on one connection
    leave.set()
    for thread in threads:
        thread.join()
    assert pool.opened == IDLE_CONNECTIONS  # the ones beyond those kept are closed
    with app.app_context():
        assert id(get_db()) in lent  # and the kept ones serve the next request


def test_public_view_keeps_only_known_fields() -> None:
    from webpanel.view import public_board

    public = {
        "layout": "pinwheel-80",
        "backend": "sim",
        "pawns": {"a9": {"owner": 0, "kind": "defense"}},
        "kinds": {"a9": "defense"},
        "lamps": {"lit": ["N"], "test": False, "safe": True, "closed_rows": ["N1"]},
        "game": {
            "id": 1,
            "status": "running",
            "stock": [[22, 2]],
            "view": {
                "to_move": 1,
                "seats": [
                    {
                        "name": "A",
                        "colour": "red",
                        "lamp": "N",
                        "eliminated": False,
                        "pawns_left": 24,
                        "defense_left": 2,
                    }
                ],
                "pawns": {"a9": {"owner": 0, "kind": "defense"}},
                "closed_rows": ["N1"],
                "you": {"pawns": {"a9": "defense"}},
            },
        },
        "anomalies": [{"kind": "refused", "slot": "a9", "at": 1.0, "message": "m", "pawn": "defense"}],
    }
    board = public_board(public, journal_id=7, service_running=True)
    text = str(board)
    for secret in ("'defense'", "'closed_rows'", "'stock'", "'you'", "'defense_left'", "'kinds'"):
        assert secret not in text, secret
    assert board["pawns"] == {"a9": {"owner": 0}}
    assert board["lamps"] == {"lit": ["N"], "test": False, "safe": True}
    assert board["game"]["view"]["seats"][0]["pawns_left"] == 24
    assert board["anomalies"] == [{"kind": "refused", "slot": "a9", "at": 1.0, "message": "m"}]


def test_every_connection_has_small_caches(app: Flask) -> None:
    # SQLite's default (2,000 KiB a connection, never given back) grew the panel by its connections
    # times the database's size, up to 2 MiB each (bench/soak.py).
    from webpanel.db import CACHED_STATEMENTS, PAGE_CACHE_KIB, get_db

    sizes: list[int] = []

    def look() -> None:
        with app.app_context():
            sizes.append(get_db().execute("PRAGMA cache_size").fetchone()[0])

    threads = [threading.Thread(target=look) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sizes == [-PAGE_CACHE_KIB] * 4 and PAGE_CACHE_KIB * 80 <= 20 * 1024  # 20 MiB at 80 threads
    # And few prepared statements each (sqlite3 does not tell a connection's: the pool's opener does).
    assert app.extensions["db_pool"].opener.keywords == {"cached_statements": CACHED_STATEMENTS}
    assert CACHED_STATEMENTS < 128
