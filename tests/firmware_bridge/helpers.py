"""Helpers for the serial link tests (and the board service's test on a serial board)."""

from __future__ import annotations

from typing import Any

from configuration import ConfigFile

FAST = {
    "heartbeat_ms": 100,
    "timeout_ms": 400,
    "handshake_ms": 300,
    "ack_ms": 100,
    "host_timeout_ms": 1000,
    "reconnect_min_ms": 20,
    "reconnect_max_ms": 100,
    "error_window_s": 0.5,
    "error_threshold": 5,
    "long_press_s": 0.2,
    "poll_period_ms": 2,
}
"""Short timings so that faults show within a fraction of a second."""


def fast_config(**overrides: Any) -> ConfigFile:
    return ConfigFile({"serial": {**FAST, **overrides}})
