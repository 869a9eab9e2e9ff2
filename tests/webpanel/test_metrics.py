"""``GET /metrics`` on a board's panel: Prometheus' text format (read back with Prometheus' own parser),
the board service's figures, the slot health, the outbox, requests by route; only the allowed networks."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient
from prometheus_client.parser import text_string_to_metric_families

from protocol.health import NO_CONDUCTION, Finding
from store.db import connect
from store.journal import Journal
from store.slot_health import SlotHealthStore
from webpanel.config import PanelSettings
from webpanel.metrics import allowed


def scrape(client: FlaskClient) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """Every sample of ``/metrics``, by name and labels, as Prometheus reads them."""
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.content_type.startswith("text/plain; version=")
    samples: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def heartbeat(settings: PanelSettings, **service: Any) -> None:
    conn = connect(settings.database)
    try:
        Journal(conn).write_health({"faults": [{"kind": "flicker"}], "service": {
            "scan_period_ms": 5.0, "loop_period_ms": {"mean": 5.1, "max": 12.0}, "loop_turns": 1000,
            "scan_overruns": 3, **service}})
        SlotHealthStore(conn).save({"board": {"games": 12}, "c4": {"since_conduction": 12}},
                                   {"c4": [Finding("c4", NO_CONDUCTION, 12)]})
    finally:
        conn.close()


def test_the_board_s_figures_in_prometheus_text_format(client: FlaskClient, settings: PanelSettings) -> None:
    heartbeat(settings)
    assert client.get("/api/board").status_code == 200
    samples = scrape(client)
    assert samples["hautetension_scan_period_seconds"][()] == 0.005
    assert samples["hautetension_loop_period_seconds"][(("stat", "max"),)] == 0.012
    assert samples["hautetension_loop_turns_total"][()] == 1000
    assert samples["hautetension_scan_overruns_total"][()] == 3
    assert samples["hautetension_board_faults"][()] == 1
    assert samples["hautetension_games_counted_total"][()] == 12
    assert samples["hautetension_slot_health_finding"] == {(("kind", "no-conduction"), ("part", "c4")): 12}
    assert samples["hautetension_live_streams"][()] == 0
    requests = samples["hautetension_http_requests_total"]
    assert requests[(("method", "GET"), ("route", "/api/board"), ("status", "200"))] == 1


def test_requests_and_errors_are_counted_by_route(client: FlaskClient) -> None:
    client.get("/no/such/page")
    client.get("/api/board")
    client.get("/api/board")
    requests = scrape(client)["hautetension_http_requests_total"]
    assert requests[(("method", "GET"), ("route", "/api/board"), ("status", "200"))] == 2
    assert requests[(("method", "GET"), ("route", "(no route)"), ("status", "404"))] == 1
    assert "hautetension_http_errors_total" not in scrape(client)  # no server error: no series yet


def test_only_the_allowed_networks_get_an_answer(client: FlaskClient) -> None:
    outside = client.get("/metrics", environ_base={"REMOTE_ADDR": "192.168.1.20"})
    assert outside.status_code == 404
    assert "hautetension_" not in outside.get_data(as_text=True)
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200


def test_the_allowed_networks() -> None:
    networks = PanelSettings(metrics_from="127.0.0.1/8, 10.0.0.0/24").metrics_networks
    assert allowed("10.0.0.7", networks) and allowed("127.0.0.1", networks)
    assert not allowed("10.0.1.7", networks) and not allowed("not an address", networks)
    assert PanelSettings(metrics_from="10.0.0.0/33").problems() == [
        "metrics_from lists networks like 192.168.1.0/24, not '10.0.0.0/33'"]
