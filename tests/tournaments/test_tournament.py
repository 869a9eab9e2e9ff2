"""The tournament engine: table sizes, seating, eliminations, the final, events, undo.

The simulations play whole tournaments with seeded random results and check
every rule at every round against an independent reading of the rules.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.exc import GameError
from games.hautetension.handicap import handicap_plan
from games.hautetension.layout import load_layout
from games.hautetension.outcome import MAX_GAME_POINTS, Lighting
from tournaments.exc import RegistrationError, ResultError, RoundError, TournamentError
from tournaments.handicap import table_handicap
from tournaments.model import Phase, Status
from tournaments.pairing import drawn_table_sizes, split_tables, standings_table_sizes, tied_pairs
from tournaments.points import possible_points
from tournaments.tournament import Tournament

# -- table sizes --------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "sizes"),
    [
        (2, [2]),
        (3, [3]),
        (4, [4]),
        (5, [3, 2]),
        (6, [3, 3]),
        (7, [4, 3]),
        (8, [4, 4]),
        (9, [4, 3, 2]),
        (10, [4, 3, 3]),
        (13, [4, 4, 3, 2]),
        (64, [4] * 16),
    ],
)
def test_drawn_rounds_are_fours_plus_one_or_two_small_tables(n: int, sizes: list[int]) -> None:
    assert drawn_table_sizes(n) == sizes


@pytest.mark.parametrize("n", range(2, 80))
def test_drawn_sizes_fit_the_exact_count(n: int) -> None:
    sizes = drawn_table_sizes(n)
    assert sum(sizes) == n
    small = [s for s in sizes if s != 4]
    assert len(small) <= 2 and all(s in (2, 3) for s in small)


@pytest.mark.parametrize(
    ("n", "sizes"),
    [
        (2, [2]),
        (5, [2, 3]),
        (6, [3, 3]),
        (7, [4, 3]),
        (9, [3, 3, 3]),
        (10, [4, 3, 3]),
        (11, [4, 4, 3]),
        (12, [4, 4, 4]),
        (13, [4, 3, 3, 3]),
        (15, [3, 3, 3, 3, 3]),
        (18, [3] * 6),
        (24, [4] * 6),
    ],
)
def test_standings_round_sizes(n: int, sizes: list[int]) -> None:
    assert standings_table_sizes(n) == sizes


@pytest.mark.parametrize("n", range(2, 80))
def test_standings_sizes_follow_the_rules(n: int) -> None:
    sizes = standings_table_sizes(n)
    assert sum(sizes) == n and all(2 <= s <= 4 for s in sizes)
    if n % 4 == 0:
        assert set(sizes) == {4}
    elif n % 3 == 0:
        assert set(sizes) == {3}
    elif n % 2 == 1:
        assert sizes[-1] == 3  # the three lowest-placed
    assert sizes.count(2) <= (1 if n in (2, 5) else 0)


@pytest.mark.parametrize("n", [0, 1])
def test_too_few_for_a_table(n: int) -> None:
    with pytest.raises(RoundError):
        drawn_table_sizes(n)
    with pytest.raises(RoundError):
        standings_table_sizes(n)


# -- simulation -------------------------------------------------------------------


def random_lightings(n: int, rng: random.Random) -> list[Lighting]:
    """A plausible game ending: mostly one lamp at a time, sometimes several, sometimes none."""
    if rng.random() < 0.05:
        return []  # the board filled up with no lamp lit
    left = list(range(n))
    out: list[Lighting] = []
    while len(left) > 1:
        size = 1 if rng.random() < 0.85 else rng.randint(1, len(left))
        group = rng.sample(left, size)
        by = rng.choice(left)
        out.append(Lighting(seats=tuple(group), by=by))
        left = [s for s in left if s not in group]
        if rng.random() < 0.05:
            break
    return out


class Checker:
    """Follows a tournament round by round and checks it against the rules text."""

    def __init__(self, t: Tournament) -> None:
        self.t = t
        self.out: set[int] = set()
        self.final_started = False
        self.duels: Counter[frozenset[int]] = Counter()

    def check_round(self, number: int) -> None:
        t = self.t
        made = t.round(number)
        seated = made.players()
        assert len(seated) == len(set(seated)), "a player is seated twice"
        assert not (set(seated) & self.out), "an eliminated player came back"
        totals_before = self._totals_before(number)
        previous = t.round(number - 1) if number > 1 else None
        registered = set(t.names) - {p for p, r in t.withdrawn.items() if r < number}
        if number <= 2:
            assert made.phase == Phase.DRAWN
            assert set(seated) == registered, "rounds 1 and 2 are played by everyone"
            assert sorted(len(x.seats) for x in made.tables) == sorted(drawn_table_sizes(len(seated)))
        else:
            assert previous is not None
            expected = self._expected_contenders(previous, totals_before, registered)
            if made.phase == Phase.FINAL and previous.phase == Phase.FINAL:
                assert made.finalists == previous.finalists
            else:
                assert set(seated) == set(expected), f"round {number} seats the wrong players"
                self.out |= set(previous.players()) - set(expected)
            if made.phase == Phase.STANDINGS:
                assert len(seated) > 4, "the final starts when four remain"
                self._check_standings_seating(made, totals_before)
            else:
                assert made.phase == Phase.FINAL
                assert len(made.finalists) <= 4
                self._check_final_round(made, number)
        for table in made.tables:
            assert 2 <= len(table.seats) <= 4
            assert 0 <= table.first < len(table.seats)
            assert all(1 <= v <= 3 for v in table.handicap.values())
            assert set(table.handicap) <= set(table.lamps)
            if not t.handicap:
                assert not table.handicap
            else:
                # Only the table's best (level players share it): one pawn per started step of
                # lead over the table's next-best player, at most 3.
                scores = sorted({totals_before[p] for p in table.seats}, reverse=True)
                for player, lamp in zip(table.seats, table.lamps, strict=True):
                    best = len(scores) > 1 and totals_before[player] == scores[0]
                    lead = scores[0] - scores[1] if best else 0
                    assert table.handicap.get(lamp, 0) == min(3, -(-lead // t.handicap_step))
                assert table.handicap_lead == (scores[0] - scores[1] if len(scores) > 1 else 0)

    def _totals_before(self, number: int) -> dict[int, int]:
        totals = dict.fromkeys(self.t.names, 0)
        for made in self.t.rounds[: number - 1]:
            for table in made.tables:
                result = self.t.result(made.number, table.number)
                assert result is not None
                for seat, player in enumerate(table.seats):
                    totals[player] += result.points[seat]
        return totals

    def _expected_contenders(self, previous, totals, registered) -> list[int]:  # type: ignore[no-untyped-def]
        seated = [p for p in previous.players() if p in registered]
        if previous.phase == Phase.FINAL:
            return seated
        if previous.number == 1:
            return seated
        # « Zéro point »: the first players of their game whose lamp lit, whatever bonus they earned.
        firsts = set()
        for table in previous.tables:
            result = self.t.result(previous.number, table.number)
            assert result is not None and result.lightings is not None
            if result.lightings:
                firsts |= {table.seats[s] for s in result.lightings[0].seats}
        out = [p for p in seated if p in firsts]
        kept = [p for p in seated if p not in firsts]
        # Elimination stops at four: the best placed of those whose lamp lit first stay.
        out.sort(key=lambda p: (-totals[p], self.t.lot(p)))
        return kept + out[: max(0, 4 - len(kept))]

    def _check_standings_seating(self, made, totals) -> None:  # type: ignore[no-untyped-def]
        key = {p: (-totals[p], self.t.lot(p)) for p in made.players()}
        n = len(made.players())
        assert [len(x.seats) for x in made.tables] == standings_table_sizes(n)
        for table in made.tables:
            # Increasing order of place around the table; the lowest score starts.
            assert list(table.seats) == sorted(table.seats, key=key.__getitem__)
            assert table.first == len(table.seats) - 1
            assert totals[table.seats[table.first]] == min(totals[p] for p in table.seats)
        if n % 2 == 1:
            # « les trois joueurs ayant le plus mauvais score »: players level on the third-lowest
            # score are equally among them.
            lowest = sorted(totals[p] for p in made.players())[:3]
            assert sorted(totals[p] for p in made.tables[-1].seats) == lowest, (
                "an odd count puts the three lowest together"
            )

    def _check_final_round(self, made, number: int) -> None:  # type: ignore[no-untyped-def]
        final_rounds = [r for r in self.t.rounds[:number] if r.phase == Phase.FINAL]
        finalists = set(made.finalists)
        if len(final_rounds) == 1 and len(finalists) >= 3:
            assert len(made.tables) == 1 and set(made.tables[0].seats) == finalists
        else:
            for table in made.tables:
                assert len(table.seats) == 2
                self.duels[frozenset(table.seats)] += 1

    def check_points(self, number: int) -> None:
        for table in self.t.round(number).tables:
            result = self.t.result(number, table.number)
            assert result is not None and len(result.points) == len(table.seats)
            for value in result.points:
                assert possible_points(value) and 0 <= value <= MAX_GAME_POINTS

    def check_end(self) -> None:
        t = self.t
        assert t.is_over()
        finalists = t.finalists()
        if len(finalists) == 4:
            assert set(self.duels) == {frozenset(p) for p in itertools.combinations(finalists, 2)}
            assert all(c == 1 for c in self.duels.values())
            for player in finalists:
                assert sum(1 for pair in self.duels if player in pair) == 3
        totals = t.total_points()
        winner = t.winner()
        assert winner is not None
        pool = [p for p in finalists if p not in t.withdrawn] or list(finalists)
        assert totals[winner] == max(totals[p] for p in pool)
        standings = t.standings()
        assert [s.points for s in standings] == sorted((s.points for s in standings), reverse=True)
        assert sum(s.status == "winner" for s in standings) == 1
        self.check_reasons()

    def check_reasons(self) -> None:
        """Every eliminated player's round and reason can be read in the standings."""
        t = self.t
        for line in t.standings():
            if line.status == Status.OUT:
                assert line.out_in_round is not None and line.out_at_table is not None
                assert line.note.startswith(
                    f"out in round {line.out_in_round}: lamp lit first at table {line.out_at_table}"
                )
                table = t.round(line.out_in_round).table(line.out_at_table)
                result = t.result(line.out_in_round, line.out_at_table)
                assert result is not None and result.lightings
                assert table.seat_of(line.player) in result.lightings[0].seats
            elif line.status == Status.WITHDRAWN:
                assert f"withdrew in round {t.withdrawn[line.player]}" in line.note
            else:
                assert line.out_in_round is None and "out in round" not in line.note


def play_tournament(
    n_players: int, seed: int, *, handicap: bool = False, withdraw_rate: float = 0.0
) -> tuple[Tournament, Checker]:
    rng = random.Random(seed)
    t = Tournament(seed=seed, handicap=handicap)
    for i in range(n_players):
        t.register(f"Player {i + 1}")
    checker = Checker(t)
    for _ in range(200):
        if t.is_over():
            break
        number = len(t.rounds) + 1
        t.next_round()
        checker.check_round(number)
        for table in t.round(number).tables:
            t.enter_result(number, table.number, random_lightings(len(table.seats), rng))
        checker.check_points(number)
        if withdraw_rate and not t.is_over() and rng.random() < withdraw_rate:
            candidates = [p for p in t.in_contention() if p not in t.withdrawn]
            if len(candidates) > 2:
                t.withdraw(rng.choice(candidates))
    checker.check_end()
    return t, checker


@pytest.mark.parametrize("n_players", range(4, 65))
def test_full_tournaments_follow_the_rules(n_players: int) -> None:
    for seed in range(2):
        t, _ = play_tournament(n_players, seed)
        assert t.phase() == Phase.FINAL


@pytest.mark.parametrize("n_players", [4, 9, 20, 64])
def test_full_tournaments_with_handicap(n_players: int) -> None:
    # The checker compares every table's handicap with the rule, round by round.
    t, _ = play_tournament(n_players, 7, handicap=True)
    handicapped = [table for r in t.rounds for table in r.tables if table.handicap]
    assert handicapped, "no table was handicapped: the rule was never put to the test"
    assert not any(table.handicap for table in t.round(1).tables), "nobody leads before the first game"
    layout = load_layout()
    for table in handicapped:
        # Every handicap can be set up on the board: its pawns fit on the lamps' direct rows.
        plan = handicap_plan(layout, table.handicap)
        assert {lamp: len(slots) for lamp, slots in plan.items()} == dict(table.handicap)


@pytest.mark.parametrize("n_players", [6, 12, 30])
def test_full_tournaments_with_withdrawals(n_players: int) -> None:
    for seed in range(4):
        play_tournament(n_players, 100 + seed, withdraw_rate=0.3)


@settings(max_examples=40, deadline=None)
@given(st.integers(4, 40), st.integers(0, 10_000))
def test_property_every_round_seats_every_contender_once(n_players: int, seed: int) -> None:
    t, _ = play_tournament(n_players, seed)
    assert t.winner() in t.finalists()


def test_simulation_is_reproducible_from_the_seed() -> None:
    a, _ = play_tournament(17, 5)
    b, _ = play_tournament(17, 5)
    assert a.events == b.events
    c, _ = play_tournament(17, 6)
    assert c.events != a.events


def test_replaying_the_events_gives_the_same_tournament() -> None:
    t, _ = play_tournament(23, 3, handicap=True)
    again = Tournament.replay(t.settings(), json.loads(json.dumps(t.events)))
    assert again.standings() == t.standings()
    assert again.rounds == t.rounds


# -- specific rules ---------------------------------------------------------------


def _tournament(n: int, **options: object) -> Tournament:
    t = Tournament(seed="test", **options)  # type: ignore[arg-type]
    for i in range(n):
        t.register(f"P{i + 1}")
    return t


def _play_round(t: Tournament, zero_seats: dict[int, int] | None = None) -> None:
    """Finish the current round: at every table the last seat's lamp lights first, then the rest in order."""
    number = t.rounds[-1].number
    for table in t.round(number).tables:
        order = list(range(len(table.seats)))[::-1]
        t.enter_result(number, table.number, [Lighting(seats=(s,)) for s in order[:-1]])


def test_registration_rules() -> None:
    t = Tournament()
    t.register("Alice")
    with pytest.raises(RegistrationError, match="already registered") as taken:
        t.register("  alice ")
    # What a page needs to say it in its own language.
    assert (taken.value.code, taken.value.details) == ("name_taken", {"name": "alice"})
    with pytest.raises(RegistrationError, match="needs a name"):
        t.register("   ")
    with pytest.raises(RegistrationError, match="at most 24"):
        t.register("x" * 25)
    with pytest.raises(RegistrationError, match="control characters"):
        t.register("a\x00b")
    for name in ("Bob", "Chloé", "Dan"):
        t.register(name)
    t.next_round()
    with pytest.raises(RegistrationError, match="closed"):
        t.register("Eve")
    with pytest.raises(RegistrationError, match="no player number 9"):
        t.withdraw(9)


def test_at_least_four_players() -> None:
    t = _tournament(3)
    with pytest.raises(RoundError, match="at least 4"):
        t.next_round()


def test_round_cannot_start_before_the_last_one_ends() -> None:
    t = _tournament(8)
    t.next_round()
    t.enter_result(1, 1, [Lighting((0,))])
    with pytest.raises(RoundError, match=r"table\(s\) 2 have no result") as unfinished:
        t.next_round()
    assert unfinished.value.code == "round_not_finished" and unfinished.value.details["tables"] == [2]


def test_double_entry_is_refused_and_a_correction_keeps_the_previous_value() -> None:
    t = _tournament(8)
    t.next_round()
    t.enter_result(1, 1, [Lighting((0,)), Lighting((1,)), Lighting((2,))])
    with pytest.raises(ResultError, match="correct it instead"):
        t.enter_result(1, 1, [Lighting((3,))])
    event = t.enter_result(1, 1, [Lighting((3,))], correction=True)
    assert event["previous"]["points"] == [0, 2, 3, 4]
    assert t.result(1, 1).points == (4, 4, 4, 0)  # type: ignore[union-attr]
    assert t.events[-1] == event
    undone = t.undo()
    assert t.result(1, 1).points == (4, 4, 4, 0)  # type: ignore[union-attr]  # undo rebuilds a copy
    t = undone
    assert t.result(1, 1).points == (0, 2, 3, 4)  # type: ignore[union-attr]
    with pytest.raises(ResultError, match="no result to correct"):
        t.enter_result(1, 2, [], correction=True)


def test_unknown_round_and_table() -> None:
    t = _tournament(4)
    with pytest.raises(RoundError, match="no round 1"):
        t.enter_result(1, 1, [])
    t.next_round()
    with pytest.raises(RoundError, match="no table 2"):
        t.enter_result(1, 2, [])


def test_round_two_zeros_are_out_and_round_one_zeros_are_not() -> None:
    t = _tournament(12)
    t.next_round()
    _play_round(t)
    assert len(t.in_contention()) == 12
    t.next_round()
    _play_round(t)
    zeros = [p for p in t.names if t.points_in(2, p) == 0]
    assert len(zeros) == 3
    assert set(t.in_contention()) == set(t.names) - set(zeros)
    event = t.next_round()
    assert sorted(event["data"]["eliminated"]) == sorted(zeros)
    assert all(s.status == "out" and s.out_in_round == 2 for s in t.standings() if s.player in zeros)


def test_elimination_stops_at_four() -> None:
    t = _tournament(5)
    t.next_round()
    _play_round(t)
    t.next_round()  # 3 + 2: two zeros would leave 3
    _play_round(t)
    zeros = [p for p in t.names if t.points_in(2, p) == 0]
    assert len(zeros) == 2
    contenders = t.in_contention()
    assert len(contenders) == 4
    spared = [p for p in zeros if p in contenders]
    assert len(spared) == 1
    assert spared[0] == t.ranking(zeros)[0]
    made = t.round(int(t.next_round()["data"]["round"]))
    assert made.phase == Phase.FINAL and made.spared == tuple(spared)
    # The standings say why: whose lamp lit first where, and that four must remain for the final.
    lines = {line.player: line for line in t.standings()}
    (kept,) = spared
    (gone,) = set(zeros) - set(spared)
    kept_at = t.round(2).table(next(x.number for x in t.round(2).tables if kept in x.seats)).number
    assert lines[kept].status == Status.FINALIST and lines[kept].out_in_round is None
    assert lines[kept].note.startswith(f"lamp lit first at table {kept_at} in round 2, but kept in")
    assert "fewer than four for the final" in lines[kept].note
    assert lines[gone].status == Status.OUT and lines[gone].note.startswith("out in round 2: lamp lit first")
    # The same facts as fields, for pages that say them in another language.
    assert (lines[kept].spared_in_round, lines[kept].spared_at_table) == (2, kept_at)
    assert (lines[gone].spared_in_round, lines[gone].out_in_round) == (None, 2)
    assert not lines[gone].out_as_stood and lines[gone].withdrew_in_round is None


def test_a_lamp_lit_first_is_out_even_when_its_pawn_earned_a_bonus() -> None:
    t = _tournament(8)
    t.next_round()
    _play_round(t)
    t.next_round()
    one, two = t.round(2).tables
    # Table 1: seat 1's own pawn lights its lamp together with seats 2 and 3: 0 + 4 points, all first.
    t.enter_result(2, 1, [Lighting(seats=(0, 1, 2), by=0)])
    t.enter_result(2, 2, [Lighting((3,)), Lighting((2,)), Lighting((1,))])
    bonus = one.seats[0]
    assert t.points_in(2, bonus) == 4
    firsts = {*one.seats[:3], two.seats[3]}
    assert set(t.first_lit(2, one)) == set(one.seats[:3]) and t.first_lit(2, two) == (two.seats[3],)
    assert set(t.in_contention()) == set(t.names) - firsts
    event = t.next_round()
    assert set(event["data"]["eliminated"]) == firsts
    lines = {line.player: line for line in t.standings()}
    assert lines[bonus].status == Status.OUT
    assert (lines[bonus].out_in_round, lines[bonus].out_at_table) == (2, 1)
    assert lines[bonus].note == "out in round 2: lamp lit first at table 1"
    assert lines[two.seats[3]].note == "out in round 2: lamp lit first at table 2"


def test_a_result_without_its_lamp_order_puts_out_the_zeros() -> None:
    t = _tournament(8)
    for number in (1, 2):
        t.next_round()
        for table in t.round(number).tables:
            t.import_result(number, table.number, [4, 3, 2, 0], source={"kind": "board", "game_id": number})
    assert all(len(t.first_lit(2, table)) == 1 for table in t.round(2).tables)
    assert len(t.in_contention()) == 6


def test_final_with_four_players_is_a_four_player_game_and_three_duels_each() -> None:
    t = _tournament(4)
    for _ in range(2):
        t.next_round()
        _play_round(t)
    phases = []
    while not t.is_over():
        t.next_round()
        phases.append([len(table.seats) for table in t.rounds[-1].tables])
        _play_round(t)
    assert phases == [[4], [2, 2], [2, 2], [2, 2]]
    assert t.winner() == t.ranking(t.finalists())[0]
    with pytest.raises(RoundError, match="over"):
        t.next_round()
    with pytest.raises(RegistrationError, match="over"):
        t.withdraw(1)


def test_first_two_rounds_are_drawn_from_the_seed() -> None:
    a, b, c = _tournament(16), _tournament(16), Tournament(seed="other")
    for i in range(16):
        c.register(f"P{i + 1}")
    for t in (a, b, c):
        t.next_round()
    assert a.rounds[0] == b.rounds[0]
    assert a.rounds[0] != c.rounds[0]
    firsts = {table.first for r in (a, c) for table in r.rounds[0].tables}
    assert len(firsts) > 1  # drawn, not always the same seat


def test_handicap_goes_only_to_the_best_players_at_the_table() -> None:
    t = _tournament(4, handicap=True)
    t.next_round()
    assert t.round(1).table(1).handicap == {}  # nobody leads yet
    # One pawn of seat 1 lit seats 3 and 4 together; then the board filled: 8, 4, 0, 0.
    t.enter_result(1, 1, [Lighting(seats=(2, 3), by=0)])
    t.next_round()
    table = t.round(2).table(1)
    totals = t.total_points()
    assert sorted(totals.values(), reverse=True) == [8, 4, 0, 0]
    best = next(p for p in table.seats if totals[p] == 8)
    second = next(p for p in table.seats if totals[p] == 4)
    # Only the best carries: 4 points ahead of the next-best, one started step of 4: one pawn.
    assert table.handicap == {table.lamps[table.seat_of(best)]: 1}
    assert table.carriers() == (best,)
    assert (table.handicap_lead, table.handicap_over) == (4, (second,))


@pytest.mark.parametrize(
    ("points", "pawns", "carriers", "lead", "over"),
    [
        ({1: 8, 2: 4, 3: 0, 4: 0}, 1, (1,), 4, (2,)),
        ({1: 9, 2: 4, 3: 0}, 2, (1,), 5, (2,)),
        ({1: 20, 2: 11, 3: 11, 4: 0}, 3, (1,), 9, (2, 3)),
        ({1: 30, 2: 2}, 3, (1,), 28, (2,)),
        ({1: 10, 2: 10, 3: 7, 4: 0}, 1, (1, 2), 3, (3,)),
        ({1: 5, 2: 5, 3: 5}, 0, (), 0, ()),
    ],
)
def test_the_handicap_rule(
    points: dict[int, int], pawns: int, carriers: tuple[int, ...], lead: int, over: tuple[int, ...]
) -> None:
    assert table_handicap(points, 4) == (pawns, carriers, lead, over)
    assert table_handicap(points, 10).pawns == (0 if not lead else min(3, -(-lead // 10)))


def test_ties_at_a_standings_table_are_as_few_as_the_table_sizes_allow() -> None:
    # Against a brute force over every split: tests/tournaments/test_pairing.py.
    t, _ = play_tournament(40, 11)
    checked = 0
    for made in t.rounds:
        if made.phase != Phase.STANDINGS:
            continue
        players = made.players()
        totals = {p: sum(t.points_in(r.number, p) or 0 for r in t.rounds[: made.number - 1]) for p in players}
        ranked = sorted(players, key=lambda p: (-totals[p], t.lot(p)))
        groups = [list(x.seats) for x in made.tables]
        sizes = [len(g) for g in groups]
        best = split_tables(ranked, totals, sizes, lowest_three=len(ranked) % 2 == 1)
        assert tied_pairs(groups, totals) == tied_pairs(best, totals)
        checked += 1
    assert checked


def test_withdrawn_player_plays_no_further_round() -> None:
    t = _tournament(8)
    t.next_round()
    t.withdraw(3)
    with pytest.raises(RegistrationError, match="already withdrawn"):
        t.withdraw(3)
    _play_round(t)
    t.next_round()
    assert 3 not in t.round(2).players()
    assert len(t.round(2).players()) == 7
    line = next(s for s in t.standings() if s.player == 3)
    assert line.status == "withdrawn" and line.note == "withdrew in round 1" and line.withdrew_in_round == 1


def test_undo_takes_back_events_one_by_one() -> None:
    t = _tournament(5)
    t.next_round()
    before = t.copy()
    event = t.enter_result(1, 1, [Lighting((0,))])
    assert t.events[-1] == event
    t = t.undo()
    assert t.events == before.events and t.results == before.results
    t = t.undo()
    assert t.rounds == []
    for _ in range(5):
        t = t.undo()
    with pytest.raises(TournamentError, match="nothing to undo"):
        t.undo()


@pytest.mark.parametrize(
    "event",
    [
        {"kind": "nonsense"},
        {"kind": "register"},
        {"kind": "round", "data": {"round": 2, "phase": "drawn", "tables": []}},
        {"kind": "result", "round": "x", "table": 1},
        {
            "kind": "round",
            "data": {
                "round": 1,
                "phase": "drawn",
                "tables": [{"table": 1, "seats": [1, 1], "first": 0, "lamps": ["N", "S"]}],
            },
        },
    ],
)
def test_malformed_events_are_refused_and_change_nothing(event: dict[str, object]) -> None:
    t = _tournament(4)
    before = list(t.events)
    with pytest.raises(GameError):
        t.apply(event)
    assert t.events == before


def test_imported_points_are_checked() -> None:
    t = _tournament(4)
    t.next_round()
    with pytest.raises(ResultError, match="cannot be scored"):
        t.import_result(1, 1, [5, 0, 2, 3], source={"kind": "board"})
    t.import_result(1, 1, [0, 2, 3, 4], source={"kind": "board", "game_id": 7})
    assert t.result(1, 1).source["game_id"] == 7  # type: ignore[union-attr]
    with pytest.raises(ResultError, match="do not match"):
        t.apply(
            {
                "kind": "result",
                "round": 1,
                "table": 1,
                "correction": True,
                "result": {"points": [4, 4, 4, 4], "lightings": [{"seats": [0], "by": None}]},
            }
        )


def test_events_must_be_plain_json() -> None:
    t = _tournament(4)
    with pytest.raises(TournamentError, match="plain JSON"):
        t.apply({"kind": "register", "player": 9, "name": "Eve", "extra": object()})
    assert 9 not in t.names
