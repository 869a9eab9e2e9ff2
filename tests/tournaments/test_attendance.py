"""Who sits a round out, and who comes late: what the tournament does with the players not in the hall."""

from __future__ import annotations

import pytest

from tournaments.exc import RegistrationError, RoundError
from tournaments.model import Status
from tournaments.tournament import Tournament


def _tournament(players: int, *, late_entries: bool = False) -> Tournament:
    t = Tournament(seed=7, late_entries=late_entries)
    for n in range(1, players + 1):
        t.register(f"P{n}")
    return t


def _play_out(t: Tournament) -> None:
    """Every table of the current round: the first seat's lamp lights first, the others never."""
    current = t.current_round
    assert current is not None
    for table in current.tables:
        points = [0] + [4] * (len(table.seats) - 1)
        t.import_result(current.number, table.number, points, source={"kind": "test"})


def test_an_absent_player_sits_round_1_out_and_plays_round_2() -> None:
    t = _tournament(9)
    t.next_round(absent={9})
    assert 9 not in t.rounds[0].players() and len(t.rounds[0].players()) == 8
    assert [len(table.seats) for table in t.rounds[0].tables] == [4, 4]
    _play_out(t)
    assert 9 in t.in_contention()
    t.next_round()
    assert 9 in t.rounds[1].players() and len(t.rounds[1].players()) == 9
    standing = next(s for s in t.standings() if s.player == 9)
    assert standing.status == Status.IN and standing.games[0].round == 2


def test_one_absent_from_round_2_has_not_played_it_and_goes_no_further() -> None:
    t = _tournament(9)
    t.next_round()
    _play_out(t)
    t.next_round(absent={3})
    assert 3 not in t.rounds[1].players()
    _play_out(t)
    assert 3 not in t.in_contention()
    assert next(s for s in t.standings() if s.player == 3).status == Status.OUT


def test_from_round_3_an_absent_player_is_withdrawn_or_waited_for() -> None:
    t = _tournament(12)
    for _ in range(2):
        t.next_round()
        _play_out(t)
    someone = t.in_contention()[0]
    with pytest.raises(RoundError) as refused:
        t.next_round(absent={someone})
    assert refused.value.code == "absent_in_later_round"
    assert refused.value.details["players"] == [t.names[someone]]
    assert len(t.rounds) == 2
    t.withdraw(someone)
    t.next_round()
    assert someone not in t.rounds[2].players()


def test_an_absent_player_out_of_contention_changes_nothing() -> None:
    t = _tournament(12)
    for _ in range(2):
        t.next_round()
        _play_out(t)
    out = next(p for p in t.names if p not in t.in_contention())
    t.next_round(absent={out})
    assert len(t.rounds) == 3


def test_round_1_needs_enough_players_in_the_hall() -> None:
    t = _tournament(5)
    with pytest.raises(RoundError) as refused:
        t.next_round(absent={1, 2})
    assert refused.value.code == "too_few_players"


def test_a_late_entry_joins_before_round_2_only_when_the_tournament_allows_it() -> None:
    strict = _tournament(8)
    strict.next_round()
    with pytest.raises(RegistrationError) as closed:
        strict.register("Late")
    assert closed.value.code == "registration_closed"

    t = _tournament(8, late_entries=True)
    t.next_round()
    assert t.takes_late_entries()
    late = t.register("Late")["player"]
    _play_out(t)
    t.next_round()
    assert late in t.rounds[1].players() and len(t.rounds[1].players()) == 9
    assert not t.takes_late_entries()
    with pytest.raises(RegistrationError):
        t.register("Too late")


def test_the_late_entries_setting_is_kept_and_replayed() -> None:
    t = _tournament(8, late_entries=True)
    t.next_round()
    t.register("Late")
    again = Tournament.replay(t.settings(), t.events)
    assert again.settings() == t.settings() and again.settings()["late_entries"] is True
    assert again.names == t.names
    assert "late_entries" not in Tournament(seed=1).settings()  # earlier tournaments' settings unchanged
