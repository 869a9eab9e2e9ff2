"""``GET /metrics``: the board's panel and the event server in Prometheus' text format.

What is counted as it happens (requests and server errors by route) lives in
the app's own registry (:class:`Metrics`, one per app, so that several apps in
one process, as in the tests, never mix their counts); everything else is read
when Prometheus scrapes, from what the processes already keep:

- on a board: the board service's heartbeat (its scan period, loop period,
  turns and overruns, faults now), the slot health (docs/hardware.md, "Slot
  health"), the outbox rows the event server has not acknowledged, live pages;
- on the event server: boards online, rows held above a gap per board, the
  ingest's batches, rows and refusals (this process), the messages
  quarantined per board, results waiting, each board's slot health, live pages.

Staff information: the slot health says which contacts fail, so ``/metrics``
answers only the addresses ``[panel] metrics_from`` allows (the machine itself
by default; behind nginx, the front server's configuration keeps it off the
public site too: docs/deployment.md, "Metrics"). Any other address gets 404.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from store.event.boards import Boards
from store.event.quarantine import Quarantine
from store.event.results import Results
from store.outbox import Outbox
from store.slot_health import BOARD_PART, SlotHealthStore
from webpanel.db import board_state, get_db, service_running

bp = Blueprint("metrics", __name__)

PREFIX = "hautetension"


class Metrics:
    """One app's counts of what happens (requests by route)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            f"{PREFIX}_http_requests", "HTTP requests answered, by route, method and status",
            ["route", "method", "status"], registry=self.registry)
        self.errors = Counter(
            f"{PREFIX}_http_errors", "HTTP requests answered with a server error (5xx), by route",
            ["route"], registry=self.registry)

    def answered(self, response: Response) -> Response:
        rule = request.url_rule
        route = rule.rule if rule is not None else "(no route)"  # a bounded set of labels: the app's routes
        self.requests.labels(route, request.method, str(response.status_code)).inc()
        if response.status_code >= 500:
            self.errors.labels(route).inc()
        return response


def init_app(app: Flask) -> None:
    metrics = Metrics()
    app.extensions["metrics"] = metrics
    app.after_request(metrics.answered)


def allowed(address: str | None, networks: Iterable[str]) -> bool:
    """Whether *address* is in one of *networks* (``[panel] metrics_from``)."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(net, strict=False) for net in networks)


@bp.get("/metrics")
def metrics() -> Response:
    settings = current_app.config["PANEL"]
    if not allowed(request.remote_addr, settings.metrics_networks):
        abort(404)
    now = _Now(current_app.config.get("ROLE") == "event")
    text = generate_latest(current_app.extensions["metrics"].registry) + generate_latest(now.registry())
    return Response(text, content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})


class _Now(Collector):
    """What the process and its database say at this scrape."""

    def __init__(self, event: bool) -> None:
        self.event = event

    def registry(self) -> CollectorRegistry:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(self)
        return registry

    def collect(self) -> Iterator[Metric]:
        yield from _streams()
        if self.event:
            yield from _event()
        else:
            yield from _board()


def _gauge(name: str, doc: str, value: float | None = None, labels: Iterable[str] = ()) -> GaugeMetricFamily:
    return GaugeMetricFamily(f"{PREFIX}_{name}", doc, value=value, labels=list(labels) or None)


def _streams() -> Iterator[Metric]:
    followers = [current_app.extensions.get(name) for name in ("board_follower", "event_follower")]
    yield _gauge("live_streams", "Live pages (event streams) this process holds open",
                 sum(f.open_streams for f in followers if f is not None))


def _board() -> Iterator[Metric]:
    state = board_state()
    health = _object((state.health or {}) if state is not None else {})
    service = _object(health.get("service"))
    yield _gauge("board_service_up", "Whether the board service's heartbeat is fresh",
                 float(service_running(state)))
    scan_ms = _number(service.get("scan_period_ms"))
    if scan_ms is not None:
        yield _gauge("scan_period_seconds", "The board service's scan period, as configured", scan_ms / 1e3)
    loop = _object(service.get("loop_period_ms"))
    periods = _gauge("loop_period_seconds", "The board service loop's period over its last turns",
                     labels=["stat"])
    for stat in ("mean", "max"):
        if (value := _number(loop.get(stat))) is not None:
            periods.add_metric([stat], value / 1e3)
    yield periods
    for key, doc in (("loop_turns", "Turns of the board service's loop since it started"),
                     ("scan_overruns", "Loop turns later than twice the scan period, since it started")):
        if (value := _number(service.get(key))) is not None:
            yield CounterMetricFamily(f"{PREFIX}_{key}", doc, value=value)
    faults = health.get("faults")
    yield _gauge("board_faults", "Faults the board reports now",
                 len(faults) if isinstance(faults, list) else 0)
    yield from _slot_health()
    yield from _outbox()


def _slot_health() -> Iterator[Metric]:
    store = SlotHealthStore(get_db())
    board = store.counters().get(BOARD_PART, {})
    yield CounterMetricFamily(f"{PREFIX}_games_counted", "Games the slot health has counted",
                              value=_number(board.get("games")) or 0)
    findings = _findings(["part", "kind"])
    for f in store.findings(limit=1000):
        findings.add_metric([f.part, f.kind], f.n)
    yield findings


def _findings(labels: list[str]) -> GaugeMetricFamily:
    return _gauge("slot_health_finding", "What the slot health asks staff to check: a part of the board, what"
                  " was seen, its number (games, tenths of a bounce per move, ms, per mille)", labels=labels)


def _outbox() -> Iterator[Metric]:
    outbox = Outbox(get_db())
    state = outbox.state()
    if state is not None:
        pending = max(0, outbox.last_seq() - max(state.acked_seq, state.first_seq - 1))
        yield _gauge("outbox_rows_pending", "Outbox rows the event server has not acknowledged yet", pending)
        yield _gauge("uplink_connected", "Whether the uplink is connected to the event's broker",
                     float(state.connected))


def _event() -> Iterator[Metric]:
    conn = get_db()
    boards = Boards(conn).all()
    online = _gauge("event_board_online", "Whether each board is online (its retained status)",
                    labels=["board"])
    pending = _gauge("event_rows_pending", "Rows stored above a gap in a board's history, waiting for the"
                     " rows before them", labels=["board"])
    findings = _findings(["board", "part", "kind"])
    held = _rows_above_ack(conn)
    for board in boards:
        online.add_metric([board.id], float(board.online))
        pending.add_metric([board.id], held.get(board.id, 0))
        for f in board.slot_findings:
            findings.add_metric([board.id, f.part, f.kind], f.n)
    yield _gauge("event_boards_online", "Boards online", sum(1 for b in boards if b.online))
    yield _gauge("event_boards", "Boards the event has heard from", len(boards))
    yield online
    yield pending
    yield findings
    quarantined = CounterMetricFamily(f"{PREFIX}_event_quarantined", "Messages refused from each board over"
                                      " the whole event (every process's)", labels=["board"])
    for name, count in Quarantine(conn).counts().items():
        quarantined.add_metric([name], count)
    yield quarantined
    results = _gauge("event_results", "Board results by where they stand (waiting: for the players to agree)",
                     labels=["status"])
    counts: dict[str, int] = {}
    for result in Results(conn).all():
        counts[result.status] = counts.get(result.status, 0) + 1
    for status, count in sorted(counts.items()):
        results.add_metric([status], count)
    yield results
    yield from _ingest()


def _rows_above_ack(conn: Any) -> dict[str, int]:
    rows = conn.execute(
        "SELECT h.board, COUNT(r.seq) FROM event_boards b JOIN event_histories h"
        " ON h.board = b.board AND h.history = b.history"
        " JOIN event_rows r ON r.board = h.board AND r.history = h.history AND r.seq > h.acked_seq"
        " GROUP BY h.board")
    return {str(row[0]): int(row[1]) for row in rows}


def _ingest() -> Iterator[Metric]:
    counts = current_app.extensions.get("ingest_counts")
    if counts is None:
        return  # pages without an ingest (a second process of the pages only)
    report = counts()
    yield _gauge("event_ingest_up", "Whether this process's ingest loop is running",
                 float(bool(report["alive"])))
    for key, doc in (("batches", "Batches of board messages taken into the database"),
                     ("received", "Board messages received"), ("stored", "Outbox rows stored"),
                     ("duplicates", "Rows received again and discarded"),
                     ("refused", "Messages refused and quarantined"),
                     ("store_errors", "Batches the database failed to take"),
                     ("restarts", "Times the ingest's loop was started again")):
        yield CounterMetricFamily(f"{PREFIX}_event_ingest_{key}", f"{doc} (this process)",
                                  value=float(report.get(key) or 0))


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
