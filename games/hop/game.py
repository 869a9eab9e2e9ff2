"""|Hop> on the games frame: options, move notation, readable errors, views.

Moves are JSON values (docs/hop.md has the full notation):

* ``{"block": "tunnel"}`` -- the blocker (the player on the active player's
  left) blocks one movement action for this turn;
* ``{"action": "hop", "from": "a1", "spin": "up", "to": "b1"}`` and
  likewise ``"cradle"`` and ``"tunnel"`` (``to`` is where the electron that
  moves lands: for the cradle, the last electron of the line);
  ``{"action": "doublon", "from": "b2", "to": "b3"}``;
  ``{"action": "spin-flip", "at": "b2", "spin": "up"}`` (the spin it leaves);
* ``{"pass": true}`` -- only when no movement action is possible; it ends the turn.
* Doctorate: ``{"action": "thesis-defense"}`` opens a defense, in which
  ``{"effect": name, ...targets}`` buys and plays an effect card and
  ``{"end_defense": true}`` ends the defense (docs/hop.md, "Doctorate").

Every legal move comes with its energy change: :meth:`Hop.energy_change` and
:meth:`Hop.annotated_moves` (the board's ΔE; the mover pays it to the bank
when positive, takes it from the bank when negative).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final, TypedDict

from games.frame import JSON, DigitalGame, Move, Outcome
from games.hop.board import DEFAULT_BOARDS, Board, board_names, load_board, square_name
from games.hop.effects import (
    CAVITY,
    DEAD_SHORT,
    EFFECT_CARDS,
    EFFECT_NAMES,
    EFFECT_TITLES,
    EFFECTS,
    GROW,
    HEAT_SOURCE,
    IMPURITY,
    IONIZATION,
    MARKET_COSTS,
    PENNING_TRAP,
    PLAYABLE,
    RESISTANCE,
    SUPERPOSITION,
    TURNINGS,
    VORTEX,
    resistances_crossed,
    squares,
)
from games.hop.exc import (
    BlockedActionError,
    BlockError,
    EnergyError,
    ImpossibleMoveError,
    NotationError,
    NotYourElectronError,
    PlaceTakenError,
    WrongPhaseError,
)
from games.hop.rules import (
    ACTION_KINDS,
    ACTION_NAMES,
    ACTION_TITLES,
    BLOCK,
    COLLAPSE,
    CRADLE,
    DOUBLON,
    EFFECT,
    EMPTY,
    END_DEFENSE,
    HOP,
    LEVELS,
    PASS,
    PASS_ACTION,
    SITE_CARDS,
    SPIN_FLIP,
    SPINS,
    SWAP,
    THESIS,
    TUNNEL,
    Action,
    Phase,
    State,
    Termination,
    start_state,
)
from games.options import Kind, Option, Table

HopMove = TypedDict(
    "HopMove",
    {
        "block": str,
        "action": str,
        "from": str,
        "to": str,
        "spin": str,
        "at": str,
        "pass": bool,
        "end_defense": bool,
        "heat_exchange": bool,
        "collapse": str,
        "effect": str,
        "player": int,
        "sites": list[str],
        "turning": str,
        "between": list[str],
        "add": str,
        "remove": str,
    },
    total=False,
)
"""A |Hop> move in the notation above: the keys of its kind only (a JSON object)."""

DEFAULT_MAX_ROUNDS: Final = 100
"""Turns per player before a game with no winner is drawn (docs/hop.md)."""
FIELDS: Final = {"positive": 1, "negative": -1}
INTERACTIONS: Final = {"attractive": -1, "repulsive": 1}


def boards_for(table: Table) -> list[str]:
    """The shipped boards for as many players as sit at the table (never a path: a player must not
    make the server read its files)."""
    return [name for name in board_names() if load_board(name).seats == table.players]


HAMILTONIAN: Final = ("level", tuple(level for level in LEVELS if level != "bachelor"))
"""The Hamiltonian cards are played from the Master level on: the Bachelor level has none."""

OPTIONS: Final = (
    Option("level", Kind.CHOICE, "the level is {either}, not {value!r}", default="bachelor", choices=LEVELS),
    Option(
        "board",
        Kind.CHOICE,
        "the board option names a shipped board for {players} players ({choices}), not {value!r}",
        default=lambda table: DEFAULT_BOARDS[table.players],
        choices=boards_for,
    ),
    *(
        Option(
            card,
            Kind.CHOICE,
            f"the {card} card is {', '.join(sides)} or random, not {{value!r}}",
            default="random",
            choices=("random", *sides),
            only_with=HAMILTONIAN,
        )
        for card, sides in (("field", FIELDS), ("interaction", INTERACTIONS))
    ),
    Option(
        "max_rounds",
        Kind.WHOLE,
        "max_rounds is a whole number of turns per player, at least 1, not {value!r}",
        default=DEFAULT_MAX_ROUNDS,
        minimum=1,
    ),
)
"""|Hop>'s options: the level, the board, the Hamiltonian cards (drawn at random unless chosen), the
turn limit."""


class Hop(DigitalGame):
    """A game of |Hop> for 2 to 4 players (four players play in two teams)."""

    name: ClassVar[str] = "hop"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    known_options: ClassVar[tuple[Option, ...]] = OPTIONS

    def __init__(
        self, players: Sequence[str], *, options: Mapping[str, JSON] | None = None, seed: int | None = None
    ) -> None:
        super().__init__(players, options=options, seed=seed)
        if self.options["level"] != "bachelor":
            # The Hamiltonian cards are drawn from the seed, then written into the options
            # so that a saved game says which cards were played.
            draw = random.Random(f"hop/{self.seed}/hamiltonian")
            for key, sides in (("field", FIELDS), ("interaction", INTERACTIONS)):
                if self.options[key] == "random":
                    self.options[key] = draw.choice(sorted(sides))
        self.start_board: Board = load_board(self.options["board"])
        """The board as the game starts (an impurity may add site cards: :attr:`board`)."""
        self._restart()

    @property
    def board(self) -> Board:
        """The board now: the starting one, or it with the site cards impurities added."""
        return self.state.board

    def _restart(self) -> None:
        field = FIELDS.get(str(self.options["field"]), 0)
        interaction = INTERACTIONS.get(str(self.options["interaction"]), 0)
        market: list[int] = []
        if self.options["level"] == "doctorate":
            # The effects board is dealt from the seed: 7 cards at random, each on its position.
            market = random.Random(f"hop/{self.seed}/market").sample(PLAYABLE, len(MARKET_COSTS))
        self.state: State = start_state(
            self.start_board,
            players=len(self.players),
            level=str(self.options["level"]),
            field=field,
            interaction=interaction,
            max_turns=int(self.options["max_rounds"]) * len(self.players),
            market=market,
            effects=EFFECTS,
        )
        self.energy_by_turn: list[list[int]] = [list(self.state.energy)]
        """Every player's energy at the start and after each turn (the result screen's chart)."""

    # -- state ----------------------------------------------------------

    @property
    def to_act(self) -> int | None:
        return self.state.to_act

    def legal_moves(self) -> list[HopMove]:
        return [self.move_to_json(a) for a in self.state.legal_actions()]

    def annotated_moves(self) -> list[dict[str, JSON]]:
        """Every legal move with the energy change it causes (``energy_change``, the board's ΔE)."""
        return [
            {
                "move": self.move_to_json(a),
                "energy_change": self.state.energy_change(a),
                **({"energy_paid": self.state.payment(a)} if self.state.level == "doctorate" else {}),
            }
            for a in self.state.legal_actions()
        ]

    def energy_change(self, move: Move) -> int:
        """The board's ΔE if ``move`` is pushed: the mover pays it when positive, takes -ΔE when negative."""
        return self.state.energy_change(self.parse_move(move))

    def _apply(self, move: Move) -> None:
        turns = self.state.turns
        self.state.apply(self.parse_move(move))
        if self.state.turns != turns or self.state.phase == Phase.OVER:
            self.energy_by_turn.append(list(self.state.energy))  # a turn ended, or the game

    def outcome(self) -> Outcome | None:
        state = self.state
        if state.phase != Phase.OVER:
            return None
        if state.losers:
            return Outcome(Termination.ELECTRODE_REACHED, winners=state.winners())
        return Outcome(Termination.TURN_LIMIT)

    # -- notation -------------------------------------------------------

    def move_to_json(self, action: Action) -> HopMove:
        kind, source, spin, to, _ = action
        nodes = self.board.nodes
        if kind == BLOCK:
            return {"block": ACTION_NAMES[source]}
        if kind == PASS:
            return {"pass": True}
        if kind == THESIS:
            return {"action": "thesis-defense"}
        if kind == END_DEFENSE:
            return {"end_defense": True}
        if kind == EFFECT:
            return self._effect_to_json(action)
        if kind == SWAP:
            return {"heat_exchange": bool(spin), "at": nodes[source]}
        if kind == COLLAPSE:
            return {"collapse": SPINS[spin], "at": nodes[source]}
        name = ACTION_NAMES[kind]
        if kind == SPIN_FLIP:
            return {"action": name, "at": nodes[source], "spin": SPINS[spin]}
        if kind == DOUBLON:
            return {"action": name, "from": nodes[source], "to": nodes[to]}
        return {"action": name, "from": nodes[source], "spin": SPINS[spin], "to": nodes[to]}

    def _effect_to_json(self, action: Action) -> HopMove:
        _, card, a, b, c = action
        nodes = self.board.nodes
        out: HopMove = {"effect": EFFECT_NAMES[card]}
        if card == DEAD_SHORT:
            out["player"] = a
        elif card == VORTEX:
            out.update({"sites": [nodes[n] for n in squares(self.board)[a]], "turning": TURNINGS[b]})
        elif card in (CAVITY,):
            out.update({"from": nodes[a], "to": nodes[b]})
        elif card == RESISTANCE:
            out["between"] = [nodes[a], nodes[b]]
        elif card == HEAT_SOURCE:
            out["at"] = nodes[a]
        elif card == IMPURITY:
            if c == GROW:
                out["add"] = square_name(a, b)
            elif b:
                out["add"] = nodes[a]
            else:
                out["remove"] = nodes[a]
        elif card in (IONIZATION, SUPERPOSITION):
            out.update({"at": nodes[a], "spin": SPINS[b]})
        elif card == PENNING_TRAP:
            out["at"] = nodes[a]
        elif a >= 0:
            out.update({"from": nodes[a], "spin": SPINS[b], "to": nodes[c]})
        return out

    def _parse_defense(self, move: Mapping[str, Any]) -> Action:
        """A thesis defense, an effect or the end of a defense, matched against the legal ones."""
        state = self.state
        if state.level != "doctorate":
            raise ImpossibleMoveError(
                f"thesis defenses and effects belong to the Doctorate level, not {state.level}"
            )
        if "effect" in move or "end_defense" in move:
            if not state.defending:
                raise WrongPhaseError(
                    "effects are bought during a thesis defense: play the thesis defense first"
                )
        elif state.defending:
            raise WrongPhaseError(
                'a thesis defense is open: buy effects or end it with {"end_defense": true}'
            )
        elif state.blocked == THESIS:
            raise BlockedActionError("thesis-defense is blocked this turn")
        if "effect" in move:
            name = move["effect"]
            if not isinstance(name, str) or name not in EFFECT_CARDS:
                raise NotationError(f"the effect is one of {', '.join(EFFECT_CARDS)}, not {name!r}")
            card = EFFECT_CARDS[name]
            if card not in state.market:
                raise ImpossibleMoveError(f"{name} is not on the effects board")
            if card in state.used:
                raise ImpossibleMoveError(f"{name} was already played this turn")
            cost = MARKET_COSTS[state.market.index(card)]
            if cost > state.energy[state.turn]:
                raise EnergyError(
                    f"{name} costs {cost} and {self._who(state.turn)} has {state.energy[state.turn]}"
                )
        for action in state.legal_actions():
            if self.move_to_json(action) == dict(move):
                return action
        raise ImpossibleMoveError(
            f"{dict(move)!r} is not a possible effect here (see docs/hop.md, Doctorate)"
        )

    def _parse_collapse(self, move: Mapping[str, Any]) -> Action:
        state = self.state
        if state.pending is None and state.token_wait < 0:
            raise WrongPhaseError("nothing waits for a superposed electron's spin now")
        node, owner = state._collapsing()
        at = self.board.nodes[node]
        for action in state.legal_actions():
            if self.move_to_json(action) == dict(move):
                return action
        raise WrongPhaseError(
            f"{self._who(owner)} first chooses the spin of the superposed electron at {at}: "
            f'{{"collapse": "up" or "down", "at": "{at}"}}'
        )

    def _parse_exchange(self, move: Mapping[str, Any]) -> Action:
        state = self.state
        if not state.swaps:
            raise WrongPhaseError("no heat source holds two electrons to exchange now")
        wanted = {"heat_exchange": True, "at": self.board.nodes[state.swaps[0]]}
        if set(move) != set(wanted) or not isinstance(move["heat_exchange"], bool):
            raise WrongPhaseError(
                f"{self._who(state.swapper)} first decides whether the heat source at {wanted['at']} "
                f'exchanges its two electrons: {{"heat_exchange": true or false, "at": "{wanted["at"]}"}}'
            )
        for action in state.legal_actions():
            if self.move_to_json(action) == dict(move):
                return action
        raise ImpossibleMoveError(f"the heat source to decide now is at {wanted['at']}")

    def parse_move(self, move: Move) -> Action:
        """The engine's action for a JSON move legal now, or a specific IllegalMoveError."""
        if not isinstance(move, Mapping):
            raise NotationError(
                f'{move!r} is not a move: {{"block": ...}}, {{"action": ...}} or {{"pass": true}}'
            )
        state = self.state
        if state.pending is not None or state.token_wait >= 0 or "collapse" in move:
            return self._parse_collapse(move)
        if state.swaps or "heat_exchange" in move:
            return self._parse_exchange(move)
        if "block" in move:
            return self._parse_block(move)
        if state.phase == Phase.BLOCK:
            raise WrongPhaseError(
                f"{self._who(state.blocker)} must first block one of "
                f"{self._who(state.turn)}'s movement actions"
            )
        if "pass" in move:
            if set(move) != {"pass"} or move["pass"] is not True:
                raise NotationError('a pass is written {"pass": true}')
            if state.legal_actions() != [PASS_ACTION]:
                raise WrongPhaseError(
                    "a movement action is possible: passing is only for a player who cannot move"
                )
            return PASS_ACTION
        if "effect" in move or "end_defense" in move or move.get("action") == "thesis-defense":
            return self._parse_defense(move)
        if state.defending:
            raise WrongPhaseError(
                'a thesis defense is open: buy effects or end it with {"end_defense": true}'
            )
        return self._parse_movement(move)

    def _parse_block(self, move: Mapping[str, Any]) -> Action:
        state = self.state
        if set(move) != {"block"} or move["block"] not in ACTION_KINDS:
            raise NotationError(f'a block is {{"block": action}} with an action of {", ".join(ACTION_KINDS)}')
        kind = ACTION_KINDS[move["block"]]
        if state.phase != Phase.BLOCK:
            raise WrongPhaseError(f"the block of this turn is made; {self._who(state.turn)} moves")
        if kind not in state.movement_board:
            raise BlockError(f"{move['block']} is not on the {state.level} movement board")
        if kind == state.last_blocked[state.turn]:
            raise BlockError(
                f"{move['block']} was blocked for {self._who(state.turn)} last turn: "
                "the same action cannot be blocked two turns in a row"
            )
        return (BLOCK, kind, -1, -1, -1)

    def _parse_movement(self, move: Mapping[str, Any]) -> Action:
        state = self.state
        name = move.get("action")
        if not isinstance(name, str) or name not in ACTION_KINDS:
            raise NotationError(f"the action is one of {', '.join(ACTION_KINDS)}, not {name!r}")
        kind = ACTION_KINDS[name]
        if kind == SPIN_FLIP:
            keys, source_key = {"action", "at", "spin"}, "at"
        elif kind == DOUBLON:
            keys, source_key = {"action", "from", "to"}, "from"
        else:
            keys, source_key = {"action", "from", "spin", "to"}, "from"
        if set(move) != keys:
            raise NotationError(
                f"a {name} is written with {', '.join(sorted(keys))}, not {', '.join(sorted(move))}"
            )
        source = self._node(move[source_key])
        to = source if kind == SPIN_FLIP else self._node(move["to"])
        spin = -1 if kind == DOUBLON else self._spin(move["spin"])
        if kind not in state.movement_board:
            raise ImpossibleMoveError(f"{name} is not on the {state.level} movement board")
        if kind == state.blocked:
            raise BlockedActionError(f"{name} is blocked this turn")
        for action in state.movements(state.turn):
            if action[:4] == (kind, source, spin, to):
                if not state.affordable(action) and state.quantum(action) < 0:
                    raise EnergyError(self._why_unbalanced(name, action))
                return action
        self._check_source(kind, source, spin, move[source_key])
        if kind in (HOP, DOUBLON, SPIN_FLIP):
            self._check_destination(kind, to, spin)
        raise ImpossibleMoveError(self._why_impossible(kind, move))

    def _why_unbalanced(self, name: str, action: Action) -> str:
        """Why a movement cannot be balanced, in a player's words: who would pay what to whom."""
        state = self.state
        delta = state.energy_change(action)
        crossed = resistances_crossed(state, action) if state.tokens else []
        who = self._who(state.turn)
        parts = []
        if delta:
            parts.append(f"{'raises' if delta > 0 else 'lowers'} the board's energy by {abs(delta)}")
        if crossed:
            cards = " and ".join(f"{self.board.nodes[a]} and {self.board.nodes[b]}" for a, b in crossed)
            which = "a resistance" if len(crossed) == 1 else f"{len(crossed)} resistances"
            parts.append(
                f"crosses {which} between {cards} (whoever crosses one takes 1 energy token from the bank)"
            )
        text = f"this {name} " + ", and ".join(parts)
        paid = delta - len(crossed)
        if paid > 0:
            return f"{text}: {who} must pay {paid} energy to the bank and has {state.energy[state.turn]}"
        if not delta and state.bank == 0:
            return f"{text}, and the bank is empty, so nobody can pay it"
        bank = "the bank is empty" if state.bank == 0 else f"the bank has only {state.bank}"
        return f"{text}: {who} must take {-paid} energy from the bank, and {bank}"

    def _who(self, seat: int) -> str:
        return f"{self.players[seat]} ({self.board.colours[seat]})"

    def _node(self, value: Any) -> int:
        if not isinstance(value, str) or value not in self.board.index:
            raise NotationError(
                f"{value!r} is not a node of board {self.board.name} (e.g. {self.board.nodes[1]!r})"
            )
        return self.board.index[value]

    def _spin(self, value: Any) -> int:
        if value not in SPINS:
            raise NotationError(f'a spin is "up" or "down", not {value!r}')
        return SPINS.index(value)

    def _check_source(self, kind: int, source: int, spin: int, name: str) -> None:
        state = self.state
        board = self.board
        seat = state.turn
        e = board.electrode_at[source]
        if e >= 0:
            needed = 2 if kind == DOUBLON else 1
            if e != seat or state.stock[seat][seat] < needed or kind == SPIN_FLIP:
                raise NotYourElectronError(
                    f"electrode {name} is not {self._who(seat)}'s electrode holding {needed} of its electrons"
                    if kind != SPIN_FLIP
                    else "a spin flip is made on a site, not in an electrode"
                )
            return
        spins = (0, 1) if kind == DOUBLON else (spin,)
        for s in spins:
            if state.place[2 * source + s] != seat:
                raise NotYourElectronError(
                    f"spin {SPINS[s]} of {name} holds no {board.colours[seat]} electron"
                )

    def _check_destination(self, kind: int, to: int, spin: int) -> None:
        state = self.state
        if self.board.electrode_at[to] >= 0:
            return
        if kind == SPIN_FLIP:
            spins: tuple[int, ...] = (1 - spin,)
        elif kind == DOUBLON:
            spins = (0, 1)
        else:
            spins = (spin,)
        for s in spins:
            if state.place[2 * to + s] != EMPTY:
                raise PlaceTakenError(f"spin {SPINS[s]} of {self.board.nodes[to]} already holds an electron")

    def _why_impossible(self, kind: int, move: Mapping[str, Any]) -> str:
        name = ACTION_NAMES[kind]
        if kind in (HOP, DOUBLON):
            return (
                f"no {name} from {move['from']} to {move['to']}: it goes to an orthogonally adjacent site "
                "(a hop may also enter an electrode of another team)"
            )
        if kind in (CRADLE, TUNNEL):
            what = "the last electron of the line" if kind == CRADLE else "the electron"
            return (
                f"no {name} from {move['from']} to {move['to']}: it needs a straight line of "
                f"spin-{move['spin']} electrons next to {move['from']}, and {what} lands just beyond it"
                + (" (never in the mover's own team's electrode)" if kind == TUNNEL else "")
            )
        return f"no spin flip at {move['at']}"

    # -- views ----------------------------------------------------------

    def view(self, seat: int | None = None) -> dict[str, JSON]:
        """The whole table: |Hop> hides nothing from anyone."""
        state = self.state
        board = self.board
        colours = board.colours
        sites = {
            board.nodes[n]: {
                SPINS[s]: (None if state.place[2 * n + s] == EMPTY else colours[state.place[2 * n + s]])
                for s in (0, 1)
            }
            for n in board.sites
        }
        electrodes = {
            colours[e]: {colours[c]: count for c, count in enumerate(state.stock[e]) if count}
            for e in range(state.players)
        }
        outcome = self.outcome()
        to_act = state.to_act
        return {
            "game": self.name,
            "seat": seat,
            "players": [
                {"name": name, "colour": colours[k], "team": board.teams[k], "energy": state.energy[k]}
                for k, name in enumerate(self.players)
            ],
            "level": state.level,
            "hamiltonian": None
            if state.level == "bachelor"
            else {"field": self.options["field"], "interaction": self.options["interaction"]},
            "board": board.to_dict(),
            "sites": sites,
            "electrodes": electrodes,
            "bank": state.bank,
            "board_energy": state.board_energy(),
            "movement_board": [ACTION_NAMES[k] for k in state.movement_board],
            "turn": state.turn,
            "turns_played": state.turns,
            "energy_by_turn": [list(energies) for energies in self.energy_by_turn],
            "max_turns": state.max_turns,
            "phase": state.phase.name.lower(),
            "blocker": state.blocker,
            "blocked": None if state.blocked < 0 else ACTION_NAMES[state.blocked],
            # While the block is due: the action blocked for this player last turn, which may not be again.
            "not_blockable": (
                ACTION_NAMES[state.last_blocked[state.turn]]
                if state.phase == Phase.BLOCK and state.last_blocked[state.turn] >= 0
                else None
            ),
            "to_act": to_act,
            "legal_moves": self.annotated_moves(),
            "outcome": None if outcome is None else outcome.to_json(),
            **self._doctorate_view(),
            "history": list(self.history),
            "titles": self._titles(),
        }

    def _titles(self) -> dict[str, JSON]:
        """The display names of this level's actions and (Doctorate) effect cards, by notation name:
        the board page shows the engine's own words rather than keeping a copy."""
        state = self.state
        titles: dict[str, JSON] = {ACTION_NAMES[kind]: ACTION_TITLES[kind] for kind in state.movement_board}
        if state.level == "doctorate":
            titles.update({EFFECT_NAMES[card]: EFFECT_TITLES[card] for card in PLAYABLE})
        return titles

    def _doctorate_view(self) -> dict[str, JSON]:
        state = self.state
        if state.level != "doctorate":
            return {}
        return {
            "market": [
                {"effect": EFFECT_NAMES[card], "cost": cost, "used": card in state.used}
                for card, cost in zip(state.market, MARKET_COSTS, strict=True)
            ],
            "defending": state.defending,
            "extra_actions": state.extra,
            "tokens": [{"effect": "penning-trap", "at": self.board.nodes[n]} for n in state.traps]
            + [self._token_json(t) for t in state.tokens],
            "removed": [self.board.nodes[n] for n in state.removed],
            "spare_cards": SITE_CARDS - len(self.board.sites) + len(state.removed),
            # What the tokens did after the last turn (the move log shows only the players' moves).
            "after_turn": [
                {
                    "effect": EFFECT_NAMES[card],
                    "from": self.board.nodes[n],
                    "spin": SPINS[spin],
                    "to": self.board.nodes[to],
                }
                for card, n, spin, to in state.after_turn
            ],
            "superposed": [
                {
                    "at": self.board.nodes[n],
                    "owner": owner,
                    "shown_on": SPINS[0 if state.place[2 * n] != EMPTY else 1],
                }
                for n, owner in state.superposed
            ],
            # The superposed electron whose spin is asked now, and the movement or effect card waiting
            # for it (None: a token waits, after the turn).
            "collapse": None
            if state.pending is None and state.token_wait < 0
            else {
                "at": self.board.nodes[state._collapsing()[0]],
                "move": None if state.pending is None else self.move_to_json(state.pending),
            },
            "heat_exchange": None if not state.swaps else self.board.nodes[state.swaps[0]],
            "ionized": {self.board.colours[c]: n for c, n in enumerate(state.ionized) if n},
        }

    def _token_json(self, token: tuple[int, int, int, int, int]) -> dict[str, JSON]:
        card, a, b, c, d = token
        nodes = self.board.nodes
        name = EFFECT_NAMES[card]
        if card == VORTEX:
            ring = (a, b, c, d)
            clockwise = squares(self.board)[[set(q) for q in squares(self.board)].index(set(ring))]
            turning = (
                "clockwise"
                if any(ring == clockwise[k:] + clockwise[:k] for k in range(4))
                else ("counterclockwise")
            )
            # "sites": the cards in the order an electron goes round them.
            return {"effect": name, "sites": [nodes[n] for n in ring], "turning": turning}
        if card == CAVITY:
            return {"effect": name, "from": nodes[a], "to": nodes[b]}
        if card == RESISTANCE:
            return {"effect": name, "between": [nodes[a], nodes[b]]}
        return {"effect": name, "at": nodes[a]}

    def __repr__(self) -> str:
        return f"<Hop {self.options} moves={len(self.history)}>"


__all__ = ["Hop", "HopMove", "Termination"]
