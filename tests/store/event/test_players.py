"""The player registry: identities, edits and merges with their audit trail, tournaments' links."""

from __future__ import annotations

import pytest

from store.dialect import Connection
from store.players import Player, PlayerError, PlayerNotFoundError, Players
from store.tournaments import Tournaments
from tournaments.exc import RegistrationError, TournamentError

STAFF = "staff@test"


@pytest.fixture
def players(conn: Connection) -> Players:
    return Players(conn)


def test_a_player_has_a_name_and_optionally_a_club_and_a_city(players: Players) -> None:
    ana = players.create("  Ana   Duval ", club="Club de Lyon", actor=STAFF)
    assert (ana.name, ana.club, ana.city, ana.label) == (
        "Ana Duval",
        "Club de Lyon",
        "",
        "Ana Duval (Club de Lyon)",
    )
    assert players.get(ana.id) == ana
    assert [a.kind for a in players.audit(ana.id)] == ["create"]
    assert players.audit(ana.id)[0].after["name"] == "Ana Duval"


def test_the_same_person_twice_is_refused_but_a_namesake_elsewhere_is_not(players: Players) -> None:
    players.create("Ana", city="Lyon", actor=STAFF)
    with pytest.raises(PlayerError, match="already registered"):
        players.create("ANA", city="lyon", actor=STAFF)
    other = players.create("Ana", city="Brest", actor=STAFF)
    assert [p.label for p in players.all()] == ["Ana (Brest)", "Ana (Lyon)"]
    with pytest.raises(PlayerError, match="already registered"):
        players.edit(other.id, city="LYON", actor=STAFF)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": ""}, "needs a name"),
        ({"name": 3}, "needs a name"),
        ({"name": "x" * 25}, "at most 24"),
        ({"name": "a\x00b"}, "control characters"),
        ({"name": "Ana", "club": "c" * 61}, "at most 60"),
        ({"name": "Ana", "city": ["Lyon"]}, "is text"),
        ({"name": "Ana", "club": "a\x07b"}, "control characters"),
    ],
)
def test_bad_fields_are_refused_and_nothing_is_written(
    players: Players, fields: dict[str, object], message: str
) -> None:
    with pytest.raises(PlayerError, match=message):
        values = dict(fields)
        players.create(values.pop("name"), **values, actor=STAFF)  # type: ignore[arg-type]
    assert players.all() == [] and players.audit() == []


def test_an_edit_keeps_the_values_before_and_after(players: Players) -> None:
    ana = players.create("Ana", actor=STAFF)
    edited = players.edit(ana.id, club="Haute-Tension Brest", actor="staff@tablet")
    assert edited.club == "Haute-Tension Brest" and edited.name == "Ana"
    entry = players.audit(ana.id)[-1]
    assert (entry.kind, entry.actor, entry.before["club"], entry.after["club"]) == (
        "edit",
        "staff@tablet",
        "",
        "Haute-Tension Brest",
    )
    players.edit(ana.id, club="Haute-Tension Brest", actor=STAFF)  # no change: no entry
    assert len(players.audit(ana.id)) == 2
    with pytest.raises(PlayerNotFoundError):
        players.edit(999, name="Ben", actor=STAFF)


def test_a_duplicate_merged_counts_as_the_player_kept_and_stays_in_the_audit(players: Players) -> None:
    ana = players.create("Ana", club="Lyon", actor=STAFF)
    dup = players.create("Anna", actor=STAFF)
    older = players.create("Ana D.", actor=STAFF)
    players.merge(older.id, dup.id, actor=STAFF)
    kept = players.merge(dup.id, ana.id, actor="staff@lead")
    assert kept == ana
    assert [p.id for p in players.all()] == [ana.id]
    # Nothing deleted; the chain is flattened, so every duplicate points at the player kept.
    assert players.canonical() == {ana.id: ana.id, dup.id: ana.id, older.id: ana.id}
    assert players.kept(older.id) == ana
    merge = players.audit(dup.id)[-1]
    assert (merge.kind, merge.player, merge.other, merge.actor) == ("merge", dup.id, ana.id, "staff@lead")
    assert (
        merge.before is not None
        and merge.before["merged_into"] is None
        and merge.after["merged_into"] == ana.id
    )
    with pytest.raises(PlayerError, match="already merged"):
        players.merge(dup.id, ana.id, actor=STAFF)
    with pytest.raises(PlayerError, match="itself"):
        players.merge(ana.id, ana.id, actor=STAFF)
    with pytest.raises(PlayerError, match="merged into"):
        players.edit(dup.id, name="X", actor=STAFF)
    # A merged player's identity is free again.
    assert players.create("Anna", actor=STAFF).name == "Anna"


def make_tournament(conn: Connection) -> int:
    return Tournaments(conn).create("Spring open", seed=7).id


def test_entering_a_player_registers_them_in_the_tournament_and_links_them(
    conn: Connection, players: Players
) -> None:
    tid = make_tournament(conn)
    ana = players.create("Ana", actor=STAFF)
    recorded = players.enter(tid, ana.id, actor=STAFF, request_id="r1")
    assert Tournaments(conn).load(tid).names == {1: "Ana"}
    assert [(e.player, e.name, e.player_id) for e in players.entrants(tid)] == [(1, "Ana", ana.id)]
    again = players.enter(tid, ana.id, actor=STAFF, request_id="r1")  # the same form sent twice
    assert again.duplicate and again.entry.id == recorded.entry.id
    assert len(Tournaments(conn).load(tid).names) == 1
    assert [a.kind for a in players.audit(ana.id)] == ["create", "link"]


def test_namesakes_enter_one_tournament_told_apart_by_club(
    conn: Connection, players: Players
) -> None:
    tid = make_tournament(conn)
    a = players.create("Ana", club="Lyon", actor=STAFF)
    b = players.create("Ana", club="Brest", actor=STAFF)
    c = players.create("Ana", club="Un club au nom bien trop long", actor=STAFF)
    players.enter(tid, a.id, actor=STAFF)
    players.enter(tid, b.id, actor=STAFF)
    with pytest.raises(TournamentError, match="already registered in this tournament"):
        players.enter(tid, c.id, actor=STAFF)
    assert Tournaments(conn).load(tid).names == {1: "Ana", 2: "Ana (Brest)"}
    assert len(players.entrants(tid)) == 2  # the refused entry linked nobody


def test_a_refused_entry_writes_nothing(conn: Connection, players: Players) -> None:
    tid = make_tournament(conn)
    merged = players.create("Zoé", actor=STAFF)
    kept = players.create("Zoe", actor=STAFF)
    players.merge(merged.id, kept.id, actor=STAFF)
    with pytest.raises(PlayerError, match="merged into"):
        players.enter(tid, merged.id, actor=STAFF)
    for name in "ABCD":
        players.enter(tid, players.create(name, actor=STAFF).id, actor=STAFF)
    Tournaments(conn).record(tid, lambda t: t.next_round(), actor=STAFF)
    late = players.create("Eve", actor=STAFF)
    with pytest.raises(RegistrationError, match="closed"):
        players.enter(tid, late.id, actor=STAFF)
    assert [a.kind for a in players.audit(late.id)] == ["create"]
    assert len(Tournaments(conn).load(tid).names) == 4


def test_a_link_does_not_survive_its_registration_being_undone(
    conn: Connection, players: Players
) -> None:
    tid = make_tournament(conn)
    ana = players.create("Ana", actor=STAFF)
    players.enter(tid, ana.id, actor=STAFF)
    Tournaments(conn).undo(tid, actor=STAFF)
    Tournaments(conn).record(tid, lambda t: t.register("Ben"), actor=STAFF)  # takes player number 1 again
    assert players.entrants(tid) == []


def test_adopt_links_players_registered_by_name(conn: Connection, players: Players) -> None:
    tid = make_tournament(conn)
    ana = players.create("Ana", actor=STAFF)
    players.create("Ben", city="Lyon", actor=STAFF)
    players.create("Ben", city="Brest", actor=STAFF)
    for name in ("ana", "Ben", "Chloé"):
        Tournaments(conn).record(tid, lambda t, n=name: t.register(n), actor=STAFF)
    adopted = players.adopt(tid, actor=STAFF)
    chloe = next(p for p in players.all() if p.name == "Chloé")
    assert adopted.linked == ((1, ana.id),)
    assert adopted.created == ((3, chloe.id),)
    assert adopted.ambiguous == (2,)  # two Bens: staff choose
    ben = players.all()[1]
    players.link(tid, 2, ben.id, actor=STAFF)
    assert {e.player: e.player_id for e in players.entrants(tid)} == {1: ana.id, 2: ben.id, 3: chloe.id}
    assert players.adopt(tid, actor=STAFF).linked == ()  # nothing left to adopt
    with pytest.raises(PlayerError, match="no player 9"):
        players.link(tid, 9, ana.id, actor=STAFF)


def test_two_people_of_one_tournament_cannot_be_merged(conn: Connection, players: Players) -> None:
    tid = make_tournament(conn)
    a, b = players.create("Ana", actor=STAFF), players.create("Anna", actor=STAFF)
    players.enter(tid, a.id, actor=STAFF)
    players.enter(tid, b.id, actor=STAFF)
    with pytest.raises(PlayerError, match="both play in tournament"):
        players.merge(b.id, a.id, actor=STAFF)
    assert players.get(b.id).merged_into is None


def test_player_json_is_what_the_api_shows() -> None:
    player = Player(3, "Ana", "Lyon", "", 0.0, None, None)
    assert player.to_json() == {"id": 3, "name": "Ana", "club": "Lyon", "city": "", "merged_into": None}
