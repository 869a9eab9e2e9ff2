"""A Haute-Tension tournament: registration, rounds, tables, points, eliminations, the final.

The rules text ("Règles spécifiques aux tournois") and the decisions taken
where it is silent are in docs/tournaments.md ("Rules notes"). In short:

- Rounds 1 and 2 are played by everyone, at tables of four plus one or two
  tables of two or three; tables and the first player are drawn from the seed.
- After round 2, whoever "made zero" in round 2 is out -- the rules' own
  definition: the first player of their game whose lamp lit (all of them when
  several lit first together), whatever bonus the same pawn earned; from then
  on a player is out as soon as their lamp lights first. Elimination never
  leaves fewer than four players in contention: the best placed of them are
  spared to make four, and the standings say so.
- Later rounds are seated by the standings: table sizes by the rules (fours
  for a multiple of four, threes for a multiple of three, the three lowest at
  a table of three for an odd count), as few tied players at one table as the
  sizes allow (:mod:`tournaments.pairing`), players in increasing order
  of their place, the lowest-placed starts.
- Handicap (an option): the best player(s) of each table carry 1 to 3 attack
  pawns, by their lead over the table's next-best player.
- With four (or fewer) left, the final: one game all together and a round of
  duels (each finalist meets each other one), no elimination; the winner has
  the most points in the general standings.

The tournament is event-sourced: every change is an event (a typed dict of
plain JSON data, one :class:`~typing.TypedDict` per kind) that
:meth:`Tournament.apply` folds into the state, so the store only has to keep
the list of events, and undo is replaying all but the last one. A round event
carries its full pairings: history never depends on how pairings are computed.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from games.exc import GameError
from games.hautetension.draw import draw_first_player
from games.hautetension.outcome import Lighting
from games.hautetension.seats import default_lamps
from tournaments.exc import RegistrationError, ResultError, RoundError, TournamentError
from tournaments.handicap import DEFAULT_HANDICAP_STEP, table_handicap
from tournaments.model import (
    FINAL_SIZE,
    MIN_PLAYERS,
    Contenders,
    GameLine,
    Phase,
    RegisterEvent,
    Result,
    ResultEvent,
    Round,
    RoundEvent,
    Standing,
    Status,
    Table,
    TournamentEvent,
    WithdrawEvent,
    result_event,
)
from tournaments.names import clean_name, name_text
from tournaments.pairing import drawn_table_sizes, split_tables, standings_table_sizes
from tournaments.points import check_points, game_points

# -- the tournament ---------------------------------------------------------


class Tournament:
    """One tournament, built by applying events (see the module docstring).

    Use the commands (:meth:`register`, :meth:`withdraw`, :meth:`next_round`,
    :meth:`enter_result`, :meth:`import_result`) to make events; each returns
    the event it applied, which is what a store persists.
    """

    def __init__(
        self,
        *,
        seed: int | str = 0,
        handicap: bool = False,
        handicap_step: int = DEFAULT_HANDICAP_STEP,
        late_entries: bool = False,
    ) -> None:
        if handicap_step < 1:
            raise TournamentError(
                f"the handicap step is a number of points of at least 1, not {handicap_step}",
                code="handicap_step",
                step=handicap_step,
            )
        self.seed = str(seed)
        self.handicap = handicap
        self.handicap_step = handicap_step
        self.late_entries = late_entries
        """Whether a player may still register once round 1 is made (before round 2 only)."""
        self.events: list[TournamentEvent] = []
        self.names: dict[int, str] = {}
        self.withdrawn: dict[int, int] = {}
        """Player → number of rounds made when they withdrew."""
        self.rounds: list[Round] = []
        self.results: dict[tuple[int, int], Result] = {}
        self._lots: dict[int, float] = {}

    # -- building from events -------------------------------------------------

    def settings(self) -> dict[str, Any]:
        kept: dict[str, Any] = {
            "seed": self.seed,
            "handicap": self.handicap,
            "handicap_step": self.handicap_step,
        }
        if self.late_entries:  # kept only when set: the settings of every earlier tournament read the same
            kept["late_entries"] = True
        return kept

    @classmethod
    def replay(cls, settings: Mapping[str, Any], events: Iterable[Mapping[str, Any]]) -> Tournament:
        tournament = cls(
            seed=settings.get("seed", 0),
            handicap=bool(settings.get("handicap", False)),
            handicap_step=int(settings.get("handicap_step", DEFAULT_HANDICAP_STEP)),
            late_entries=bool(settings.get("late_entries", False)),
        )
        for event in events:
            tournament.apply(event)
        return tournament

    def copy(self) -> Tournament:
        return copy.deepcopy(self)

    def undo(self) -> Tournament:
        """The tournament without its last event (python-chess ``pop`` style), rebuilt from the others.

        This tournament is left as it is; ``self.events[-1]`` is the event taken back.
        """
        if not self.events:
            raise TournamentError("nothing to undo", code="nothing_to_undo")
        return Tournament.replay(self.settings(), self.events[:-1])

    def apply(self, event: Mapping[str, Any]) -> TournamentEvent:
        """Fold one event into the state, checking it is allowed now; return it as it is kept."""
        kind = event.get("kind")
        handler = _HANDLERS.get(str(kind))
        if handler is None:
            raise TournamentError(f"unknown tournament event {kind!r}")
        # A JSON copy: the caller cannot change it afterwards, and it is what a store can keep.
        try:
            data: dict[str, Any] = json.loads(json.dumps(dict(event)))
        except (TypeError, ValueError) as exc:
            raise TournamentError(f"a {kind} event must be plain JSON data: {exc}") from None
        try:
            stored = handler(self, data)
        except GameError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise TournamentError(f"malformed {kind} event: {exc}") from None
        self.events.append(stored)
        return stored

    def _apply_register(self, data: Mapping[str, Any]) -> RegisterEvent:
        event: RegisterEvent = {
            "kind": "register",
            "player": int(data["player"]),
            "name": name_text(data["name"]),
        }
        if self.rounds and not self.takes_late_entries():
            raise RegistrationError(
                "registration is closed: the first round has been made", code="registration_closed"
            )
        name = clean_name(event["name"])
        if any(n.casefold() == name.casefold() for n in self.names.values()):
            raise RegistrationError(
                f"a player called {name!r} is already registered", code="name_taken", name=name
            )
        player = event["player"]
        if player in self.names:
            raise RegistrationError(f"player number {player} is already taken")
        self.names[player] = name
        return event

    def _apply_withdraw(self, data: Mapping[str, Any]) -> WithdrawEvent:
        event: WithdrawEvent = {"kind": "withdraw", "player": int(data["player"])}
        player = self._check_player(event["player"])
        if player in self.withdrawn:
            raise RegistrationError(
                f"{self.names[player]} has already withdrawn",
                code="already_withdrawn",
                name=self.names[player],
            )
        if self.is_over():
            raise RegistrationError("the tournament is over", code="tournament_over")
        self.withdrawn[player] = len(self.rounds)
        return event

    def _apply_round(self, data: Mapping[str, Any]) -> RoundEvent:
        made = Round.from_dict(data["data"])
        if self.rounds and not self.is_round_complete(self.rounds[-1].number):
            raise RoundError(
                f"round {self.rounds[-1].number} is not finished",
                code="round_not_finished",
                round=self.rounds[-1].number,
                tables=[t.number for t in self.pending_tables()],
            )
        if made.number != len(self.rounds) + 1:
            raise RoundError(f"round {made.number} cannot follow round {len(self.rounds)}")
        seated = made.players()
        if len(set(seated)) != len(seated):
            raise RoundError(f"round {made.number} seats a player twice")
        for player in seated:
            self._check_player(player)
        self.rounds.append(made)
        return {"kind": "round", "data": made.to_dict()}

    def _apply_result(self, data: Mapping[str, Any]) -> ResultEvent:
        number, table_no = int(data["round"]), int(data["table"])
        table = self.round(number).table(table_no)
        result = Result.from_dict(data["result"])
        check_points(len(table.seats), result.points)
        if result.lightings is not None and game_points(len(table.seats), result.lightings) != result.points:
            raise ResultError("the points do not match the lamp order", code="points_mismatch")
        correction = bool(data.get("correction"))
        already = (number, table_no) in self.results
        if already and not correction:
            raise ResultError(
                f"round {number} table {table_no} already has a result: correct it instead",
                code="has_result",
                round=number,
                table=table_no,
            )
        if not already and correction:
            raise ResultError(
                f"round {number} table {table_no} has no result to correct yet",
                code="no_result",
                round=number,
                table=table_no,
            )
        self.results[(number, table_no)] = result
        previous = data.get("previous")
        return result_event(
            number,
            table_no,
            result,
            correction=correction,
            previous=None if previous is None else Result.from_dict(previous),
        )

    # -- commands ---------------------------------------------------------------

    def register(self, name: str) -> RegisterEvent:
        player = max(self.names, default=0) + 1
        event = self.apply({"kind": "register", "player": player, "name": name})
        assert event["kind"] == "register"
        return event

    def withdraw(self, player: int) -> WithdrawEvent:
        event = self.apply({"kind": "withdraw", "player": player})
        assert event["kind"] == "withdraw"
        return event

    def next_round(self, *, absent: Collection[int] = ()) -> RoundEvent:
        """Make the next round's tables (all results of the current round must be in), leaving the
        *absent* players out (see :meth:`plan_next_round`)."""
        event = self.apply({"kind": "round", "data": self.plan_next_round(absent=absent).to_dict()})
        assert event["kind"] == "round"
        return event

    def enter_result(
        self,
        round_number: int,
        table_number: int,
        lightings: Sequence[Lighting],
        *,
        correction: bool = False,
        source: Mapping[str, Any] | None = None,
    ) -> ResultEvent:
        """Record a game entered by hand: the points are computed from the lamp order."""
        table = self.round(round_number).table(table_number)
        points = game_points(len(table.seats), lightings)
        result = Result(points=points, lightings=tuple(lightings), source=dict(source or {"kind": "tablet"}))
        return self._result_event(round_number, table_number, result, correction)

    def import_result(
        self,
        round_number: int,
        table_number: int,
        points: Sequence[int],
        *,
        source: Mapping[str, Any],
        lightings: Sequence[Lighting] | None = None,
        correction: bool = False,
    ) -> ResultEvent:
        """Record a game whose points the game engine computed (a board game)."""
        table = self.round(round_number).table(table_number)
        result = Result(
            points=check_points(len(table.seats), points),
            lightings=None if lightings is None else tuple(lightings),
            source=dict(source),
        )
        return self._result_event(round_number, table_number, result, correction)

    def _result_event(
        self, round_number: int, table_number: int, result: Result, correction: bool
    ) -> ResultEvent:
        previous = self.results.get((round_number, table_number))
        event = self.apply(
            result_event(round_number, table_number, result, correction=correction, previous=previous)
        )
        assert event["kind"] == "result"
        return event

    # -- queries ----------------------------------------------------------------

    def round(self, number: int) -> Round:
        if not 1 <= number <= len(self.rounds):
            raise RoundError(
                f"there is no round {number} (rounds made: {len(self.rounds)})",
                code="no_such_round",
                round=number,
            )
        return self.rounds[number - 1]

    @property
    def current_round(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    def result(self, round_number: int, table_number: int) -> Result | None:
        return self.results.get((round_number, table_number))

    def is_round_complete(self, number: int) -> bool:
        made = self.round(number)
        return all((number, t.number) in self.results for t in made.tables)

    def pending_tables(self) -> list[Table]:
        made = self.current_round
        if made is None:
            return []
        return [t for t in made.tables if (made.number, t.number) not in self.results]

    def points_in(self, round_number: int, player: int) -> int | None:
        made = self.round(round_number)
        for table in made.tables:
            if player in table.seats:
                result = self.results.get((round_number, table.number))
                return None if result is None else result.points[table.seat_of(player)]
        return None

    def total_points(self) -> dict[int, int]:
        totals = dict.fromkeys(self.names, 0)
        for made in self.rounds:
            for table in made.tables:
                result = self.results.get((made.number, table.number))
                if result is not None:
                    for seat, player in enumerate(table.seats):
                        totals[player] += result.points[seat]
        return totals

    def lot(self, player: int) -> float:
        """The player's tie-break draw: fixed by the seed and the player number."""
        if player not in self._lots:
            self._lots[player] = random.Random(f"{self.seed}:lot:{player}").random()
        return self._lots[player]

    def ranking(self, players: Iterable[int] | None = None) -> list[int]:
        """Players best first: most points, then the seeded lot."""
        totals = self.total_points()
        pool = self.names if players is None else players
        return sorted(pool, key=lambda p: (-totals[p], self.lot(p), p))

    def phase(self) -> Phase | None:
        return None if not self.rounds else self.rounds[-1].phase

    def finalists(self) -> tuple[int, ...]:
        for made in self.rounds:
            if made.phase == Phase.FINAL:
                return made.finalists
        return ()

    def in_contention(self) -> list[int]:
        """Players who play the next round (or the rest of the final), best first.

        While the current round's results are not all in, this is the players of
        that round (no one is out before their table's game is over); after round 1,
        every registered player not withdrawn (round 2 seats everyone, one who sat
        round 1 out too).
        """
        active = self._contenders().active
        return self.ranking(active)

    def first_lit(self, round_number: int, table: Table) -> tuple[int, ...]:
        """The players at the table whose lamp lit first: « zéro point » as the rules define it.

        All of them when several lamps lit first together; nobody when no lamp
        lit or the result is not in. A result recorded without its lamp order
        (a board game whose placements the journal no longer has) shows only
        the players who scored 0; a correction with the lamp order says more.
        """
        result = self.results.get((round_number, table.number))
        if result is None:
            return ()
        if result.lightings is None:
            return tuple(p for seat, p in enumerate(table.seats) if result.points[seat] == 0)
        return tuple(table.seats[s] for s in result.lightings[0].seats) if result.lightings else ()

    def _contenders(self) -> Contenders:
        """Who plays on after the last round, who its first lamps put out, and who they spared."""
        if not self.rounds:
            return Contenders([p for p in self.names if p not in self.withdrawn])
        last = self.rounds[-1]
        if last.phase == Phase.FINAL:
            return Contenders([p for p in last.finalists if p not in self.withdrawn])
        if last.number == 1:
            # Rounds 1 and 2 are played by everyone: one who sat round 1 out or came late plays round 2.
            return Contenders([p for p in self.names if p not in self.withdrawn])
        seated = [p for p in last.players() if p not in self.withdrawn]
        if not self.is_round_complete(last.number):
            return Contenders(seated)
        firsts = {p for table in last.tables for p in self.first_lit(last.number, table)}
        kept = [p for p in seated if p not in firsts]
        lit = [p for p in seated if p in firsts]
        spared = self.ranking(lit)[: max(0, FINAL_SIZE - len(kept))]
        out = [p for p in lit if p not in spared]
        return Contenders(kept + spared, tuple(out), tuple(spared))

    def eliminated_in(self) -> dict[int, int]:
        """Player → round whose first lamp put them out."""
        return {player: at[0] for player, at in self.eliminations().items()}

    def eliminations(self) -> dict[int, tuple[int, int]]:
        """Player → (round, table) where their lamp lit first and put them out."""
        return self._fates(lambda made: made.eliminated, lambda now: now.out)

    def spared_in(self) -> dict[int, tuple[int, int]]:
        """Player → (round, table) where their lamp lit first but they were kept in to make four."""
        return self._fates(lambda made: made.spared, lambda now: now.spared)

    def _fates(
        self, listed: Callable[[Round], Sequence[int]], pending: Callable[[Contenders], Sequence[int]]
    ) -> dict[int, tuple[int, int]]:
        """Players a round lists (eliminated or spared by the round before it), and those of the
        last round when its results are all in but the next round is not made yet."""
        fates: dict[int, tuple[int, int]] = {}
        for made in self.rounds[1:]:
            previous = self.rounds[made.number - 2]
            for player in listed(made):
                fates[player] = (previous.number, self._table_of(previous, player))
        last = self.current_round
        if last is not None and last.phase != Phase.FINAL:
            for player in pending(self._contenders()):
                fates[player] = (last.number, self._table_of(last, player))
        return fates

    @staticmethod
    def _table_of(made: Round, player: int) -> int:
        return next(table.number for table in made.tables if player in table.seats)

    def is_over(self) -> bool:
        """The final is played out, or at most one player is left in contention."""
        if not self.rounds:
            return False
        last = self.rounds[-1]
        if not self.is_round_complete(last.number):
            return False
        if last.phase == Phase.FINAL:
            return len(self.final_schedule(last.finalists)) == sum(
                1 for r in self.rounds if r.phase == Phase.FINAL
            )
        return last.number >= 2 and len(self._contenders().active) <= 1

    def winner(self) -> int | None:
        """The finalist (or last player in contention) with the most points, once the tournament is over."""
        if not self.is_over():
            return None
        pool = self.finalists() or tuple(self._contenders().active)
        pool = tuple(p for p in pool if p not in self.withdrawn) or pool
        if not pool:
            return None
        return self.ranking(pool)[0]

    def standings(self) -> list[Standing]:
        totals = self.total_points()
        out_at = self.eliminations()
        spared = self.spared_in()
        contenders = set(self._contenders().active)
        finalists = set(self.finalists())
        winner = self.winner()
        lines: list[Standing] = []
        for place, player in enumerate(self.ranking(), start=1):
            if player == winner:
                status = Status.WINNER
            elif player in self.withdrawn:
                status = Status.WITHDRAWN
            elif player in finalists:
                status = Status.FINALIST
            elif player in out_at or (self.rounds and player not in contenders):
                status = Status.OUT
            else:
                status = Status.IN
            out = out_at.get(player)
            lines.append(
                Standing(
                    place=place,
                    player=player,
                    name=self.names[player],
                    points=totals[player],
                    games=self.history(player),
                    status=status,
                    out_in_round=None if out is None else out[0],
                    lot=self.lot(player),
                    out_at_table=None if out is None else out[1],
                    note=self._note(player, out, spared.get(player)),
                    out_as_stood=out is not None and self._out_as_stood(player, out),
                    spared_in_round=None if player not in spared else spared[player][0],
                    spared_at_table=None if player not in spared else spared[player][1],
                    withdrew_in_round=self.withdrawn.get(player),
                )
            )
        return lines

    def _note(self, player: int, out: tuple[int, int] | None, spared: tuple[int, int] | None) -> str:
        """Why a player is out, withdrawn or spared, in the standings' words."""
        parts = []
        if out is not None:
            number, table = out
            parts.append(f"out in round {number}: lamp lit first at table {table}")
            if self._out_as_stood(player, out):
                parts[-1] += f" (as the result stood when round {number + 1} was made)"
        if spared is not None:
            number, table = spared
            parts.append(
                f"lamp lit first at table {table} in round {number}, but kept in: putting out every first"
                " lamp of that round would leave fewer than four for the final, so the best placed stay in"
            )
        if player in self.withdrawn:
            made = self.withdrawn[player]
            parts.append(f"withdrew in round {made}" if made else "withdrew before round 1")
        return "; ".join(parts)

    def _out_as_stood(self, player: int, out: tuple[int, int]) -> bool:
        number, table = out
        return player not in self.first_lit(number, self.round(number).table(table))

    def history(self, player: int) -> tuple[GameLine, ...]:
        lines = []
        for made in self.rounds:
            for table in made.tables:
                if player in table.seats:
                    result = self.results.get((made.number, table.number))
                    seat = table.seat_of(player)
                    lines.append(
                        GameLine(
                            made.number, table.number, seat, None if result is None else result.points[seat]
                        )
                    )
        return tuple(lines)

    # -- making rounds ---------------------------------------------------------

    def takes_late_entries(self) -> bool:
        """Whether a player may register now although round 1 is made: the setting allows it and round 2
        is not made yet. Rounds 1 and 2 are played by everyone; from round 3 on only those who did not
        make zero in round 2 play, which a player who joins later cannot be."""
        return self.late_entries and len(self.rounds) == 1

    def plan_next_round(self, *, absent: Collection[int] = ()) -> Round:
        """The next round's tables, without applying them.

        *absent*: players not in the hall, left out of the round. Only rounds 1 and 2 can do without
        someone (the rules seat everyone at them; one absent from round 1 plays round 2, one absent from
        round 2 has not played it, and only its players go on); from round 3 on, a player who is not
        there is withdrawn or waited for, and naming one is refused."""
        if self.rounds and not self.is_round_complete(self.rounds[-1].number):
            missing = ", ".join(str(t.number) for t in self.pending_tables())
            raise RoundError(
                f"round {self.rounds[-1].number} is not finished: table(s) {missing} have no result",
                code="round_not_finished",
                round=self.rounds[-1].number,
                tables=[t.number for t in self.pending_tables()],
            )
        if self.is_over():
            raise RoundError("the tournament is over", code="tournament_over")
        number = len(self.rounds) + 1
        active, out, spared = self._contenders()
        away = sorted(p for p in absent if p in active)
        if away and number > 2:
            raise RoundError(
                f"round {number} seats every player in contention: withdraw or wait for "
                + ", ".join(self.names[p] for p in away),
                code="absent_in_later_round",
                round=number,
                players=[self.names[p] for p in away],
            )
        active = [p for p in active if p not in away]
        if number == 1 and len(active) < MIN_PLAYERS:
            raise RoundError(
                f"a tournament needs at least {MIN_PLAYERS} players, {len(active)} registered",
                code="too_few_players",
                minimum=MIN_PLAYERS,
                registered=len(active),
            )
        if number <= 2:
            if len(active) < 2:
                raise RoundError("fewer than two players are left to play", code="too_few_left")
            return self._drawn_round(number, active)
        if self.phase() == Phase.FINAL or len(active) <= FINAL_SIZE:
            return self._final_round(number, active, out, spared)
        return self._standings_round(number, active, out, spared)

    def _drawn_round(self, number: int, players: list[int]) -> Round:
        rng = random.Random(f"{self.seed}:round:{number}")
        order = sorted(players)
        rng.shuffle(order)
        tables: list[Table] = []
        start = 0
        for index, size in enumerate(drawn_table_sizes(len(order)), start=1):
            seats = tuple(order[start : start + size])
            start += size
            first = draw_first_player(size, f"{self.seed}:round:{number}:table:{index}")
            tables.append(self._table(index, seats, first))
        # Round 2 follows round 1's points for the handicap only; its eliminations come after it.
        return Round(number=number, phase=Phase.DRAWN, tables=tuple(tables))

    def _standings_round(
        self, number: int, active: list[int], out: Sequence[int], spared: Sequence[int]
    ) -> Round:
        ranked = self.ranking(active)
        # Tied players apart as far as the sizes allow; an odd count puts the three lowest together.
        groups = split_tables(
            ranked,
            self.total_points(),
            standings_table_sizes(len(ranked)),
            lowest_three=len(ranked) % 2 == 1,
        )
        tables = tuple(self._seated_table(index, group) for index, group in enumerate(groups, start=1))
        return Round(
            number=number,
            phase=Phase.STANDINGS,
            tables=tables,
            eliminated=tuple(sorted(out)),
            spared=tuple(sorted(spared)),
        )

    def _final_round(
        self, number: int, active: list[int], out: Sequence[int], spared: Sequence[int]
    ) -> Round:
        if self.phase() == Phase.FINAL:
            finalists = self.finalists()
            eliminated: tuple[int, ...] = ()
            spared_now: tuple[int, ...] = ()
        else:
            finalists = tuple(self.ranking(active))
            eliminated, spared_now = tuple(sorted(out)), tuple(sorted(spared))
            if len(finalists) < 2:
                raise RoundError("fewer than two players are left for a final", code="too_few_left")
        played = sum(1 for r in self.rounds if r.phase == Phase.FINAL)
        groups = self.final_schedule(finalists)[played]
        tables = tuple(self._seated_table(index, list(group)) for index, group in enumerate(groups, start=1))
        return Round(
            number=number,
            phase=Phase.FINAL,
            tables=tables,
            eliminated=eliminated,
            spared=spared_now,
            finalists=finalists,
        )

    @staticmethod
    def final_schedule(finalists: Sequence[int]) -> list[list[tuple[int, ...]]]:
        """The final's rounds: one game all together, then duels so that each pair meets.

        Four finalists a, b, c, d (standings order): the four-player game, then
        (a–d, b–c), (a–c, b–d), (a–b, c–d): each plays three duels. Three
        finalists: their game, then the three duels one by one. Two: three duels.
        """
        f = tuple(finalists)
        if len(f) == 4:
            a, b, c, d = f
            return [[f], [(a, d), (b, c)], [(a, c), (b, d)], [(a, b), (c, d)]]
        if len(f) == 3:
            a, b, c = f
            return [[f], [(b, c)], [(a, c)], [(a, b)]]
        if len(f) == 2:
            return [[f], [f], [f]]
        raise RoundError(f"a final needs two to four players, not {len(f)}")

    def _seated_table(self, number: int, players: Sequence[int]) -> Table:
        """Seats in increasing order of place (best first, clockwise); the lowest-placed starts."""
        seats = tuple(self.ranking(players))
        return self._table(number, seats, first=len(seats) - 1)

    def _table(self, number: int, seats: tuple[int, ...], first: int) -> Table:
        lamps = default_lamps(len(seats))
        if not self.handicap:
            return Table(number=number, seats=seats, first=first, lamps=lamps)
        totals = self.total_points()
        plan = table_handicap({p: totals[p] for p in seats}, self.handicap_step)
        return Table(
            number=number,
            seats=seats,
            first=first,
            lamps=lamps,
            handicap={lamp: plan.pawns for p, lamp in zip(seats, lamps, strict=True) if p in plan.carriers},
            handicap_lead=plan.lead,
            handicap_over=plan.over,
        )

    def _check_player(self, player: int) -> int:
        if player not in self.names:
            raise RegistrationError(
                f"there is no player number {player}", code="no_such_player", player=player
            )
        return player


_HANDLERS: dict[str, Callable[[Tournament, Mapping[str, Any]], TournamentEvent]] = {
    "register": Tournament._apply_register,
    "withdraw": Tournament._apply_withdraw,
    "round": Tournament._apply_round,
    "result": Tournament._apply_result,
}
"""Each kind of event: it reads the JSON data into the typed event, checks it and folds it in."""
