"""Secrecy on the wire: nothing a board sends tells an attack pawn from a defense pawn.

The property test of the panel (tests/webpanel/test_secrecy.py), extended to
the event network: two identical games are played on the board service, each
reported by its uplink to the real Mosquitto; they differ only in the kind of
the last pawn, placed in the same slot. Everything the broker delivers to a
subscriber on ``hautetension/#`` (status, outbox rows, live views) must be
byte for byte the same, unless the pawn lights a lamp, which the players see
on the table anyway. The clocks are held still, so the bytes can be compared.
"""

from __future__ import annotations

import queue
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import paho.mqtt.client as mqtt
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from paho.mqtt.enums import CallbackAPIVersion

from games.hautetension.layout import load_layout
from protocol import Leaf, topic
from store.db import connect
from tests.hardware.helpers import Rig
from tests.servers.mosquitto import MosquittoBroker
from tests.uplink.helpers import EVENT, broker_settings, wait_for
from tests.webpanel.helpers import a_possible_dark_last_pawn
from uplink.board import Phase, Uplink
from uplink.settings import UplinkSettings

LAYOUT = load_layout("pinwheel-80")
KINDS = ("attack", "defense")
NOW = 1_800_000_000.0
BOARD = "board-1"

Message = tuple[str, bytes, bool]


class StillClock:
    """The uplink's monotonic clock: moves only when told (a second per turn: every change is sent)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@contextmanager
def _subscriber(broker: MosquittoBroker) -> Iterator[queue.Queue[Message]]:
    received: queue.Queue[Message] = queue.Queue()
    subscribed: queue.Queue[int] = queue.Queue()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    client.on_message = lambda _c, _u, m: received.put((m.topic, bytes(m.payload), bool(m.retain)))
    client.on_subscribe = lambda _c, _u, mid, _r, _p: subscribed.put(mid)
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        _, mid = client.subscribe("hautetension/#", qos=1)
        assert subscribed.get(timeout=10) == mid
        yield received
    finally:
        # Clear what this game left retained on the broker, so the next game starts from nothing.
        client.publish(topic(EVENT, BOARD, Leaf.STATUS), b"", qos=1, retain=True).wait_for_publish(10)
        client.disconnect()
        client.loop_stop()


def _settle(uplink: Uplink, clock: StillClock) -> None:
    """Turn the uplink until everything the board wrote is out and taken by the broker."""

    def done() -> bool:
        clock.now += 1.0
        uplink.step()
        return (
            uplink.phase is Phase.SENDING
            and not uplink.outstanding
            and uplink.next_seq > uplink.outbox.last_seq()
        )

    wait_for(done, what="the uplink settled")


def _play(folder: Path, broker: MosquittoBroker, moves: list[tuple[str, str]]) -> dict[str, list[bytes]]:
    """Play *moves* and return what the broker delivered, topic by topic, in order."""
    with (
        mock.patch("time.time", return_value=NOW),
        mock.patch("store.outbox.secrets.token_hex", return_value="0123456789ab"),
        _subscriber(broker) as received,
    ):
        rig = Rig(folder)
        clock = StillClock()
        # No event server listens here: nothing is acknowledged, and nothing is sent again (the
        # clock is still, so the heartbeat of an unchanged status would only follow the test's pace).
        link = UplinkSettings(event=EVENT, board_id=BOARD, broker=broker_settings(broker), ack_wait=0.5,
                              resend_after=1e9, status_every=1e9)
        uplink = Uplink(connect(folder / "board.db"), link, clock=clock)
        uplink.start()

        def sending() -> bool:
            clock.now += 1.0  # past the wait for an acknowledgement no server sends here
            uplink.step()
            return uplink.phase is Phase.SENDING

        wait_for(sending, what="the uplink sending")
        rig.new_game()
        _settle(uplink, clock)
        for slot, kind in moves:
            rig.place(slot, kind)
            _settle(uplink, clock)
        uplink.close()
        rig.close()
        seen: dict[str, list[bytes]] = {}
        offline = (topic(EVENT, BOARD, Leaf.STATUS), b'{"online":false}', False)
        while True:
            message = received.get(timeout=10)
            if message == offline:
                break
            seen.setdefault(message[0], []).append(message[1])
    return seen


placements = st.lists(
    st.tuples(st.sampled_from(LAYOUT.slots), st.sampled_from(KINDS)), max_size=6, unique_by=lambda p: p[0]
)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prior=placements, final_slot=st.sampled_from(LAYOUT.slots))
def test_the_broker_delivers_the_same_bytes_for_an_attack_and_a_defense_pawn(
    broker: MosquittoBroker, prior: list[tuple[str, str]], final_slot: str
) -> None:
    assume(a_possible_dark_last_pawn(LAYOUT, prior, final_slot))
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as d:
        with_attack = _play(Path(a), broker, [*prior, (final_slot, "attack")])
        with_defense = _play(Path(d), broker, [*prior, (final_slot, "defense")])
    outbox = with_attack[topic(EVENT, BOARD, Leaf.OUTBOX)]
    assert any(b'"kind":"placement"' in row and final_slot.encode() in row for row in outbox)  # it was sent
    assert with_attack == with_defense


def test_a_lamp_lighting_is_the_only_difference_on_the_wire(tmp_path: Path, broker: MosquittoBroker) -> None:
    """The comparison above can fail: the last pawn of a closed row lights its lamp."""
    column_f = [(slot, "attack") for slot in ("f9", "f8", "f7", "f6")]
    lit = _play(tmp_path / "a", broker, [*column_f, ("f5", "attack")])
    dark = _play(tmp_path / "d", broker, [*column_f, ("f5", "defense")])
    assert lit != dark
    live = topic(EVENT, BOARD, Leaf.LIVE)
    assert b'"lit":["N"]' in lit[live][-1] and b'"lit":["N"]' not in dark[live][-1]
    assert all(
        b'"defense"' not in payload and b'"attack"' not in payload
        for payloads in (*lit.values(), *dark.values())
        for payload in payloads
    )


def test_a_game_end_and_its_public_record_tell_no_pawn_kind(tmp_path: Path, broker: MosquittoBroker) -> None:
    """A whole game to its end, whose two versions differ only in one of Ben's pawns that lights nothing:
    its end (the game's public record an event server checks: every placement with the lamps it lit and
    who it put out, the points) and everything else on the wire are the same bytes."""

    def game(kind: str) -> list[tuple[str, str]]:
        bens = [("a1", kind), ("b1", "attack"), ("c1", "attack"), ("d1", "attack")]
        anas = [(slot, "attack") for slot in ("f9", "f8", "f7", "f6")]
        return [move for pair in zip(anas, bens, strict=True) for move in pair] + [("f5", "attack")]

    with_attack = _play(tmp_path / "a", broker, game("attack"))
    with_defense = _play(tmp_path / "d", broker, game("defense"))
    (end,) = [row for row in with_attack[topic(EVENT, BOARD, Leaf.OUTBOX)] if b'"kind":"game-end"' in row]
    assert b'"placements":[{"eliminated":[],"lit":[],"player":0,"slot":"f9"}' in end  # the record was sent
    assert b'"lit":["N"],"player":0,"slot":"f5"}],"players":["Ana","Ben"],"points":[0,4]' in end
    assert with_attack == with_defense
