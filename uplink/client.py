"""One paho-mqtt client, set up the same way at both ends of the link.

paho runs the network in its own thread (``loop_start``) and reconnects by
itself, with a growing delay, when the broker or the Wi-Fi goes away. Its
callbacks only put what happened on a queue: the owner of the client reads the
queue in its own thread, so the database and the bookkeeping are touched by
one thread only.
"""

from __future__ import annotations

import abc
import contextlib
import queue
import random
import ssl
import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from uplink.settings import BrokerSettings

RECONNECT_MIN_S = 1
RECONNECT_MAX_S = 15
SHORT_CONNECTION_S = 10.0
"""A connection lost sooner than this after it was made counts as cut short."""
TAKEN_OVER_MAX_S = 30.0
"""The longest pause before reconnecting after connections cut short one after another."""


@dataclass(frozen=True)
class Connected:
    """The broker accepted the connection."""


@dataclass(frozen=True)
class Refused:
    reason: str


@dataclass(frozen=True)
class Disconnected:
    reason: str


@dataclass(frozen=True)
class Received:
    topic: str
    payload: bytes
    retained: bool


@dataclass(frozen=True)
class Published:
    """The broker acknowledged a QoS 1 message (PUBACK)."""

    mid: int


LinkEvent = Connected | Refused | Disconnected | Received | Published


class LinkLoop(abc.ABC):
    """What both ends of the link share: their client started once, a loop of steps until told to stop,
    and a clean stop (a context manager)."""

    link: LinkClient
    _started: bool = False

    def start(self) -> None:
        self.link.start()
        self._started = True

    def run(self, stop: threading.Event) -> None:
        """Loop until *stop* is set."""
        if not self._started:
            self.start()
        while not stop.is_set():
            self.step()
            self.pause()

    @abc.abstractmethod
    def step(self) -> None:
        """One turn of the loop."""

    def pause(self) -> None:
        """Between two steps (a step that waits for the link itself needs no pause)."""
        return None

    def wake(self) -> None:
        """End a :meth:`pause` now (the loop is to stop, or has something to do)."""
        return None

    def farewell(self) -> tuple[str, bytes] | None:
        """The retained message to publish on a clean stop, if any."""
        return None

    def close(self) -> None:
        if self._started:
            self._started = False
            self.link.stop(last=self.farewell())

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class LinkClient:
    """A paho client whose callbacks feed :attr:`events`; subscribes to *topics* on every connect."""

    def __init__(
        self,
        broker: BrokerSettings,
        *,
        client_id: str,
        username: str | None,
        topics: list[str],
        will: tuple[str, bytes] | None = None,
        max_inflight: int = 20,
        persistent: bool = False,
    ) -> None:
        self.broker = broker
        self.topics = topics
        self.events: queue.Queue[LinkEvent] = queue.Queue()
        # A persistent session (the event server's): the broker keeps what arrives while it is away.
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            protocol=mqtt.MQTTv311,
            clean_session=not persistent,
        )
        password = broker.secret()
        if username:
            client.username_pw_set(username, password)
        if broker.address.tls:
            client.tls_set(
                ca_certs=str(broker.ca_file) if broker.ca_file else None, tls_version=ssl.PROTOCOL_TLS_CLIENT
            )
        if will is not None:
            client.will_set(will[0], will[1], qos=1, retain=True)
        client.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)
        client.max_inflight_messages_set(max_inflight)
        self._connected_at: float | None = None
        self.cut_short = 0
        """Connections in a row lost within SHORT_CONNECTION_S of being made."""
        self._random = random.Random()
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_publish = self._on_publish
        self.client = client

    def start(self) -> None:
        """Connect in the background (paho retries until the broker answers)."""
        self.client.connect_async(self.broker.address.host, self.broker.address.port, self.broker.keepalive)
        self.client.loop_start()

    def publish(self, topic: str, payload: bytes, *, qos: int, retain: bool = False) -> int | None:
        """Hand a message to paho; its message id, or None when there is no connection right now."""
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        return info.mid if info.rc == mqtt.MQTT_ERR_SUCCESS else None

    def stop(self, *, last: tuple[str, bytes] | None = None, timeout: float = 2.0) -> None:
        """Disconnect cleanly, after publishing *last* (a retained status) if the link is up."""
        if last is not None and self.client.is_connected():
            info = self.client.publish(last[0], last[1], qos=1, retain=True)
            # The link may go down meanwhile: the broker sends the will instead.
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout)
        self.client.disconnect()
        self.client.loop_stop()

    # -- paho's thread -------------------------------------------------------------------

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            self.events.put(Refused(str(reason)))
            return
        self._connected_at = time.monotonic()
        client.subscribe([(name, 1) for name in self.topics])
        self.events.put(Connected())

    def _on_disconnect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        self._pause_if_cut_short(client)
        self.events.put(Disconnected(str(reason)))

    def _pause_if_cut_short(self, client: mqtt.Client) -> None:
        """Connections cut short one after another are what a session taken over looks like: another
        client with this user (the broker pins the client id to it: a copy of this board's SD card)
        connected, and the broker closed this one. Reconnecting at once would close the other's in turn,
        every second, and neither would get its rows through: wait a random pause that doubles with each
        short connection (up to TAKEN_OVER_MAX_S), so each holds the link for a while in turn. paho waits
        its reconnect delay right after this callback; a connection that lasted resets it."""
        if self._connected_at is None:
            return  # never connected: paho's own growing delay applies
        lasted = time.monotonic() - self._connected_at
        self._connected_at = None
        if lasted >= SHORT_CONNECTION_S:
            self.cut_short = 0
            client.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)
            return
        self.cut_short += 1
        ceiling = min(TAKEN_OVER_MAX_S, 2.0 * 2**self.cut_short)
        pause = round(self._random.uniform(RECONNECT_MIN_S, ceiling))
        client.reconnect_delay_set(min_delay=max(1, pause), max_delay=max(RECONNECT_MAX_S, round(ceiling)))

    def _on_message(self, _c: mqtt.Client, _u: Any, message: mqtt.MQTTMessage) -> None:
        self.events.put(Received(message.topic, bytes(message.payload), bool(message.retain)))

    def _on_publish(self, _c: mqtt.Client, _u: Any, mid: int, _r: Any, _p: Any) -> None:
        self.events.put(Published(mid))
