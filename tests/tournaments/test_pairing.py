"""Who shares a table in a round seated by the standings: the fewest tied pairs the table sizes allow,
then the split closest to the standings, proved against a brute force over every split of small fields."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.hautetension.outcome import Lighting
from tournaments.model import Phase
from tournaments.pairing import displacement, split_tables, standings_table_sizes, tied_pairs
from tournaments.tournament import Tournament


def every_split(players: Sequence[int], sizes: Sequence[int]) -> list[list[list[int]]]:
    """Every way to seat the players at tables of these sizes (tables numbered, seats not)."""
    if not sizes:
        return [[]]
    out = []
    for table in itertools.combinations(players, sizes[0]):
        rest = [p for p in players if p not in table]
        out.extend([list(table), *more] for more in every_split(rest, sizes[1:]))
    return out


def allowed(tables: Sequence[Sequence[int]], ranked: Sequence[int], points: Mapping[int, int]) -> bool:
    """An odd count: the last table holds three players whose points are the three lowest."""
    if len(ranked) % 2 == 0:
        return True
    return sorted(points[p] for p in tables[-1]) == sorted(points[p] for p in ranked[-3:])


def brute_force(ranked: Sequence[int], points: Mapping[int, int]) -> tuple[int, int]:
    """The least (tied pairs, displacement) over every split the rules allow."""
    sizes = standings_table_sizes(len(ranked))
    return min(
        (tied_pairs(tables, points), displacement(tables, ranked, points, sizes))
        for tables in every_split(list(ranked), sizes)
        if allowed(tables, ranked, points)
    )


def standings(scores: Sequence[int]) -> tuple[list[int], dict[int, int]]:
    points = {player: score for player, score in enumerate(sorted(scores, reverse=True))}
    return list(points), points


@settings(max_examples=120, deadline=None)
@given(st.lists(st.integers(0, 8), min_size=5, max_size=10))
def test_the_split_reaches_the_brute_force_minimum(scores: list[int]) -> None:
    ranked, points = standings(scores)
    sizes = standings_table_sizes(len(ranked))
    tables = split_tables(ranked, points, sizes, lowest_three=len(ranked) % 2 == 1)
    assert [len(t) for t in tables] == sizes
    assert sorted(itertools.chain(*tables)) == ranked
    assert allowed(tables, ranked, points)
    assert all(table == sorted(table) for table in tables)  # each table in standings order
    got = (tied_pairs(tables, points), displacement(tables, ranked, points, sizes))
    assert got == brute_force(ranked, points)


def test_an_example_where_swaps_between_neighbouring_tables_were_not_enough() -> None:
    # Five players on 6 over three tables of four: two, two and one, so two tied pairs; the pairs
    # on 1 and on 0 at the last table must be split too, which takes players from table 3 to table 1.
    scores = [9, 6, 6, 6, 6, 6, 3, 2, 1, 1, 0, 0]
    ranked, points = standings(scores)
    tables = split_tables(ranked, points, [4, 4, 4])
    assert tied_pairs([ranked[:4], ranked[4:8], ranked[8:]], points) == 6
    assert (tied_pairs(tables, points), displacement(tables, ranked, points, [4, 4, 4])) == (2, 5)
    assert brute_force(ranked, points) == (2, 5)


def test_tied_players_straddling_the_three_lowest_may_sit_at_either_table() -> None:
    # 7 players: a four and the three lowest. The 3rd-lowest score (2) is shared by two players.
    ranked, points = standings([8, 5, 5, 2, 2, 1, 0])
    tables = split_tables(ranked, points, [4, 3], lowest_three=True)
    assert sorted(points[p] for p in tables[1]) == [0, 1, 2]
    assert tied_pairs(tables, points) == 1  # the two on 5 cannot both leave the four
    assert tables == [[0, 1, 2, 3], [4, 5, 6]]  # the better placed of the two on 2 stays at the four


def test_no_ties_leaves_the_tables_straight_down_the_standings() -> None:
    ranked, points = standings(list(range(12, 0, -1)))
    assert split_tables(ranked, points, [4, 4, 4]) == [ranked[:4], ranked[4:8], ranked[8:]]


def test_bad_sizes_are_refused() -> None:
    ranked, points = standings([3, 2, 1, 0])
    with pytest.raises(ValueError, match="do not seat"):
        split_tables(ranked, points, [3])
    with pytest.raises(ValueError, match="table of three"):
        split_tables(ranked, points, [4], lowest_three=True)


def random_lightings(n: int, rng: random.Random) -> list[Lighting]:
    """A game's lamp order: one lamp at a time, now and then several on one pawn (bonuses)."""
    left, out = list(range(n)), []
    while len(left) > 1:
        group = rng.sample(left, 1 if rng.random() < 0.7 else rng.randint(2, len(left)))
        out.append(Lighting(seats=tuple(group), by=rng.choice(left)))
        left = [s for s in left if s not in group]
    return out


def _rounds_of_simulated_tournaments() -> list[tuple[list[int], dict[int, int], list[list[int]]]]:
    """Standings rounds of 5 to 11 players from seeded random tournaments, with the points before them."""
    found = []
    for n_players in (7, 9, 10, 11, 13, 15):
        for seed in range(10):
            rng = random.Random(seed)
            t = Tournament(seed=seed)
            for i in range(n_players):
                t.register(f"P{i}")
            while not t.is_over():
                event = t.next_round()
                made = t.round(event["data"]["round"])
                if made.phase == Phase.STANDINGS and len(made.players()) <= 11:
                    totals = t.total_points()
                    ranked = t.ranking(made.players())
                    tables = [list(x.seats) for x in made.tables]
                    found.append((ranked, {p: totals[p] for p in ranked}, tables))
                for table in made.tables:
                    t.enter_result(made.number, table.number, random_lightings(len(table.seats), rng))
    return found


def test_tournaments_seat_the_fewest_tied_pairs_the_table_sizes_allow() -> None:
    rounds = _rounds_of_simulated_tournaments()
    assert len(rounds) > 40
    for ranked, points, tables in rounds:
        assert tied_pairs(tables, points) == brute_force(ranked, points)[0], (ranked, points, tables)
