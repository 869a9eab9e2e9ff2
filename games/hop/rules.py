"""The |Hop> rules over a compact, copyable :class:`State`.

Everything the game is -- electrons on spins, electrons in electrodes, energy
tokens, whose turn and which action is blocked -- lives in one plain
:class:`State` that movement actions (and, at the Doctorate level, effects)
transform. Actions are small tuples (:data:`Action`); the JSON notation of
the frame is in :mod:`games.hop.game`.

Places: every site has a spin-up place (index ``2*node``) and a spin-down
place (``2*node + 1``), each holding at most one electron of any colour
(``EMPTY`` or the colour number). Electrodes hold electrons without spin,
counted per colour in :attr:`State.stock`.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, NamedTuple, TypeAlias

from games.hop.board import Board

ELECTRONS: Final = 7
"""Electrons per colour (28 tokens for 4 colours)."""
ENERGY_TOKENS: Final = 8
SITE_CARDS: Final = 36
"""Site cards in the box: the most a board can hold (an impurity adds a spare one)."""
EMPTY: Final = -1
UP: Final = 0
DOWN: Final = 1
SPINS: Final = ("up", "down")

# Movement actions (kinds) and the two turn steps that are not movements.
HOP: Final = 0
DOUBLON: Final = 1
SPIN_FLIP: Final = 2
CRADLE: Final = 3
TUNNEL: Final = 4
THESIS: Final = 5
"""The thesis defense (Doctorate): opens a defense in which effect cards are bought."""
BLOCK: Final = 8
PASS: Final = 9
EFFECT: Final = 10
"""``(EFFECT, card, a, b, c)``: an effect card played during a defense (games/hop/effects.py)."""
END_DEFENSE: Final = 11
SWAP: Final = 12
"""``(SWAP, node, exchange, -1, -1)``: after a turn, whether a heat source's two electrons are exchanged."""
COLLAPSE: Final = 13
"""``(COLLAPSE, node, spin, -1, -1)``: the owner of a superposed electron chooses its spin."""
QUANTUM_TUNNEL_CARD: Final = 7
"""The quantum tunnel effect card (games.hop.effects.QUANTUM_TUNNEL), which can win the game."""
ACTION_NAMES: Final = {
    HOP: "hop",
    DOUBLON: "doublon",
    SPIN_FLIP: "spin-flip",
    CRADLE: "cradle",
    TUNNEL: "tunnel",
    THESIS: "thesis-defense",
}
ACTION_KINDS: Final = {name: kind for kind, name in ACTION_NAMES.items()}
ACTION_TITLES: Final = {
    HOP: "Hop",
    DOUBLON: "Doublon",
    SPIN_FLIP: "Spin flip",
    CRADLE: "Cradle",
    TUNNEL: "Tunnel",
    THESIS: "Thesis defense",
}
"""What the movement board's tiles (and the pages) call each action."""

MOVEMENT_BOARDS: Final[dict[str, tuple[int, ...]]] = {
    "bachelor": (HOP, DOUBLON, SPIN_FLIP, CRADLE, TUNNEL),
    "master": (HOP, DOUBLON, SPIN_FLIP, CRADLE, TUNNEL),
    "doctorate": (HOP, DOUBLON, SPIN_FLIP, CRADLE, THESIS),
}
"""The movement board of each level, as data: the actions a blocker may block
and a player may make. (The Doctorate side puts the thesis defense in place of
the quantum tunnel, which becomes an effect card.)"""

LEVELS: Final = tuple(MOVEMENT_BOARDS)

Action: TypeAlias = tuple[int, int, int, int, int]
"""``(kind, source, spin, to, origin)``.

* movements: ``source`` is the node the player's electron moves from (or
  strikes from, for the cradle), ``spin`` its spin (for an electron leaving
  an electrode: the spin it takes; -1 for a doublon), ``to`` the node where
  the moving electron ends, ``origin`` the node that electron comes from
  (differs from ``source`` only for the cradle: the last electron of the line);
* ``(BLOCK, kind, -1, -1, -1)``; ``(PASS, -1, -1, -1, -1)``.
"""

PASS_ACTION: Final[Action] = (PASS, -1, -1, -1, -1)
THESIS_ACTION: Final[Action] = (THESIS, -1, -1, -1, -1)


class Phase(enum.IntEnum):
    BLOCK = 0
    """The player on the active player's left blocks one movement action."""
    FIRST = 1
    SECOND = 2
    OVER = 3


class Termination(enum.Enum):
    ELECTRODE_REACHED = "electrode_reached"
    """An electron entered an electrode of another team: that team has lost."""
    TURN_LIMIT = "turn_limit"
    """The turn limit was reached with no electrode reached: a draw."""


class Effects(NamedTuple):
    """What the Doctorate's effect cards add to a turn: ``games.hop.effects.EFFECTS``, given to
    :func:`start_state` (the cards build on the rules; the rules do not import the cards)."""

    effect_actions: Callable[[State], list[Action]]
    resistances_crossed: Callable[[State, Action], list[tuple[int, int]]]
    play_effect: Callable[[State, Action], None]
    finish_effect: Callable[[State, Action], None]
    """After the owner of a superposed electron chose its spin: the pending effect acts, or is lost."""
    effect_needs: Callable[[State, Action], int]
    """The superposed site whose spin an effect card needs (-1: none)."""
    token_needs: Callable[[State, tuple[int, int, int, int, int]], int]
    """The superposed site whose spin a token needs before it acts (-1: none)."""
    slide_market: Callable[[State], None]
    tokens_act: Callable[[State, int], None]
    """After a turn: the tokens act in placement order, from the given token on."""


def movement_path(state: State, action: Action) -> list[int]:
    """The nodes a movement's electrons leave, cross or land on (for a line: the whole line)."""
    kind, source, _, to, _ = action
    if kind in (TUNNEL, CRADLE):
        ray = next(r for r in state.board.rays[source] if to in r)
        return [source, *ray[: ray.index(to) + 1]]
    return [source, to]


@dataclass(slots=True)
class State:
    """A |Hop> position; copy it with :meth:`copy` (the board is shared).

    Slots: with 30 fields an instance would outgrow CPython's shared-key dict (30 keys) and
    every copy, which the computer players make by the thousand, would cost a third more."""

    board: Board
    players: int
    level: str
    field: int
    """The magnetic field h: +1 positive, -1 negative, 0 without a Hamiltonian."""
    interaction: int
    """Energy of a doubly occupied site: -1 attractive, +1 repulsive, 0 without a Hamiltonian."""
    max_turns: int
    place: list[int]
    stock: list[list[int]]
    """``stock[e][c]``: electrons of colour ``c`` in the electrode of colour ``e``."""
    energy: list[int]
    bank: int
    turn: int = 0
    """The active seat."""
    phase: Phase = Phase.BLOCK
    blocked: int = -1
    """The action blocked this turn (-1 before the block)."""
    last_blocked: list[int] = dataclasses.field(default_factory=list)
    """Per seat, the action blocked on its previous turn (-1: none)."""
    turns: int = 0
    """Turns completed."""
    losers: tuple[int, ...] = ()
    """The seats of the team whose electrode was reached."""
    market: list[int] = dataclasses.field(default_factory=list)
    """Doctorate: the effect cards on the effects board, cheapest position first."""
    used: list[int] = dataclasses.field(default_factory=list)
    """Doctorate: the effect cards played this turn, in the order played."""
    defending: bool = False
    """Doctorate: a thesis defense is open (effects may be bought until it ends)."""
    extra: int = 0
    """Doctorate: additional movement actions left this turn (mobility edge)."""
    traps: list[int] = dataclasses.field(default_factory=list)
    """Doctorate: the sites holding a Penning trap token."""
    ionized: list[int] = dataclasses.field(default_factory=list)
    """Doctorate: per colour, the electrons eliminated from the game by ionization."""
    tokens: list[tuple[int, int, int, int, int]] = dataclasses.field(default_factory=list)
    """Doctorate: the vortex, cavity, resistance and heat-source tokens, in the order placed
    (``(card, a, b, c, d)``, see games/hop/effects.py)."""
    swaps: list[int] = dataclasses.field(default_factory=list)
    """Doctorate: heat-source sites holding two electrons whose exchange the last player decides."""
    swapper: int = -1
    """Doctorate: the player who decides the heat-source exchanges (the one who just played)."""
    removed: list[int] = dataclasses.field(default_factory=list)
    """Doctorate: the site cards a vacancy took off the board."""
    superposed: list[tuple[int, int]] = dataclasses.field(default_factory=list)
    """Doctorate: (site, owner) of each superposed electron. It is kept on the place it was on, and
    the site's other place stays empty but closed to other electrons until it collapses."""
    pending: Action | None = None
    """Doctorate: a movement or an effect card waiting for the owner of a superposed electron to choose
    its spin."""
    after_turn: list[tuple[int, int, int, int]] = dataclasses.field(default_factory=list)
    """Doctorate: what the tokens did after the last turn, ``(card, node, spin, to)`` per electron moved."""
    token_wait: int = -1
    """Doctorate: after a turn, the token (index in :attr:`tokens`) waiting for the owner of a superposed
    electron to choose its spin before it acts; the tokens after it act once it has (-1: none)."""
    effects: Effects | None = None
    """Doctorate: the effect cards' rules (None at the other levels)."""

    def copy(self) -> State:
        return State(
            self.board,
            self.players,
            self.level,
            self.field,
            self.interaction,
            self.max_turns,
            self.place[:],
            [row[:] for row in self.stock],
            self.energy[:],
            self.bank,
            self.turn,
            self.phase,
            self.blocked,
            self.last_blocked[:],
            self.turns,
            self.losers,
            self.market[:],
            self.used[:],
            self.defending,
            self.extra,
            self.traps[:],
            self.ionized[:],
            self.tokens[:],
            self.swaps[:],
            self.swapper,
            self.removed[:],
            self.superposed[:],
            self.pending,
            self.after_turn[:],
            self.token_wait,
            self.effects,
        )

    def _effects(self) -> Effects:
        if self.effects is None:
            raise RuntimeError("a Doctorate position needs its effects: start_state(..., effects=...)")
        return self.effects

    # -- who -------------------------------------------------------------

    @property
    def movement_board(self) -> tuple[int, ...]:
        return MOVEMENT_BOARDS[self.level]

    @property
    def blocker(self) -> int:
        """The seat on the active player's left (the next in the order of play)."""
        return (self.turn + 1) % self.players

    @property
    def to_act(self) -> int | None:
        if self.phase == Phase.OVER:
            return None
        if self.pending is not None or self.token_wait >= 0:
            return self._collapsing()[1]
        if self.swaps:
            return self.swapper
        return self.blocker if self.phase == Phase.BLOCK else self.turn

    def team(self, seat: int) -> int:
        return self.board.teams[seat]

    def winners(self) -> tuple[int, ...]:
        if not self.losers:
            return ()
        return tuple(s for s in range(self.players) if s not in self.losers)

    # -- energy ----------------------------------------------------------

    def site_energy(self, node: int) -> int:
        """The Hamiltonian's energy of one site: -h·s per electron, plus the pair interaction."""
        return self._energy(self.place[2 * node] != EMPTY, self.place[2 * node + 1] != EMPTY)

    def board_energy(self) -> int:
        return sum(self.site_energy(n) for n in self.board.sites)

    def electrons(self, colour: int) -> int:
        """Every electron of ``colour`` on the board and in the electrodes."""
        return self.place.count(colour) + sum(row[colour] for row in self.stock)

    # -- moves -----------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """Every action the actor may take now, with the energy rule applied."""
        if self.phase == Phase.OVER:
            return []
        if self.pending is not None or self.token_wait >= 0:
            node = self._collapsing()[0]
            return [(COLLAPSE, node, UP, -1, -1), (COLLAPSE, node, DOWN, -1, -1)]
        if self.swaps:
            return [(SWAP, self.swaps[0], 1, -1, -1), (SWAP, self.swaps[0], 0, -1, -1)]
        if self.phase == Phase.BLOCK:
            last = self.last_blocked[self.turn]
            return [(BLOCK, kind, -1, -1, -1) for kind in self.movement_board if kind != last]
        if self.defending:
            return self._effects().effect_actions(self)
        board = self.movement_board
        moves = [
            a
            for a in self.movements(self.turn)
            if a[0] != self.blocked and a[0] in board and (self.affordable(a) or self.quantum(a) >= 0)
        ]
        if THESIS in board and self.blocked != THESIS:
            moves.append(THESIS_ACTION)  # exempt from the Hamiltonian
        return moves or [PASS_ACTION]

    def affordable(self, action: Action) -> bool:
        delta = self.payment(action)
        if delta > 0:
            return self.energy[self.turn] >= delta
        return self.bank >= -delta

    def payment(self, action: Action) -> int:
        """What the mover pays the bank for a movement (negative: takes from it): ΔE less the resistances."""
        delta = self.energy_change(action)
        if self.tokens and action[0] < THESIS:
            delta -= len(self._effects().resistances_crossed(self, action))
        return delta

    def energy_change(self, action: Action) -> int:
        """ΔE of the board's energy if ``action`` is made (0 for blocks and passes)."""
        kind, source, spin, to, origin = action
        if kind >= THESIS or not self.field and not self.interaction:
            return 0
        electrode_at = self.board.electrode_at
        # The places the action empties (False) and fills (True); electrodes hold no energy.
        changes: dict[int, bool] = {}
        if kind == DOUBLON:
            if electrode_at[source] < 0:
                changes[2 * source] = changes[2 * source + 1] = False
            changes[2 * to] = changes[2 * to + 1] = True
        elif kind == SPIN_FLIP:
            changes[2 * source + spin] = False
            changes[2 * source + 1 - spin] = True
        else:
            if electrode_at[origin] < 0:
                changes[2 * origin + spin] = False
            if electrode_at[to] < 0:
                changes[2 * to + spin] = True
        place = self.place
        delta = 0
        for node in {index >> 1 for index in changes}:
            up = place[2 * node] != EMPTY
            down = place[2 * node + 1] != EMPTY
            delta += self._energy(changes.get(2 * node, up), changes.get(2 * node + 1, down))
            delta -= self._energy(up, down)
        return delta

    def _energy(self, up: bool, down: bool) -> int:
        return -self.field * (up - down) + (self.interaction if up and down else 0)

    def quantum(self, action: Action) -> int:
        """The superposed site a movement or an effect card needs to know the spin of (-1: none)."""
        if not self.superposed:
            return -1
        if action[0] == EFFECT:
            return self._effects().effect_needs(self, action)
        if action[0] >= THESIS:
            return -1
        path = movement_path(self, action)
        for node, _ in self.superposed:
            if node in path:
                return node
        return -1

    def _collapsing(self) -> tuple[int, int]:
        """(site, owner) of the superposed electron the pending movement or effect, or a token, waits for."""
        if self.pending is not None:
            node = self.quantum(self.pending)
        else:
            node = self._effects().token_needs(self, self.tokens[self.token_wait])
        return next(entry for entry in self.superposed if entry[0] == node)

    def movements(self, seat: int) -> list[Action]:
        """Every movement of ``seat``'s electrons the board allows, energy aside.

        With superposed electrons, the movements possible with either spin of each are listed."""
        if not self.superposed:
            return self._movements(seat)
        seen = dict.fromkeys(self._movements(seat))
        for node, _ in self.superposed:
            other = self.copy()
            other.superposed = []
            up, down = other.place[2 * node], other.place[2 * node + 1]
            other.place[2 * node], other.place[2 * node + 1] = down, up
            for action in other._movements(seat):
                if action not in seen and self.quantum(action) >= 0:
                    seen[action] = None
        # Whatever enters a superposed site needs its spin, so the owner is asked first (see apply).
        return list(seen)

    def _movements(self, seat: int) -> list[Action]:
        board = self.board
        place = self.place
        out: list[Action] = []
        own = board.electrodes[seat]
        my_team = board.teams[seat]
        electrode_at = board.electrode_at
        teams = board.teams
        for node, rays in enumerate(board.rays):
            colour_here = electrode_at[node]
            if colour_here >= 0:
                if node == own and self.stock[seat][seat]:
                    self._leave_electrode(node, rays, seat, out)
                continue
            for spin in (UP, DOWN):
                if place[2 * node + spin] != seat:
                    continue
                if place[2 * node + 1 - spin] == EMPTY:
                    out.append((SPIN_FLIP, node, spin, node, node))
                elif spin == UP and place[2 * node + 1] == seat:
                    for ray in rays:
                        t = ray[0]
                        if electrode_at[t] < 0 and place[2 * t] == EMPTY and place[2 * t + 1] == EMPTY:
                            out.append((DOUBLON, node, -1, t, node))
                for ray in rays:
                    t = ray[0]
                    e = electrode_at[t]
                    if e < 0:
                        if place[2 * t + spin] == EMPTY:
                            out.append((HOP, node, spin, t, node))
                        else:
                            self._through_line(node, spin, ray, my_team, out)
                    elif teams[e] != my_team:
                        out.append((HOP, node, spin, t, node))
        if self.removed:
            # No electron lands where a vacancy took the card away (lines of electrons stop there too).
            removed = self.removed
            out = [a for a in out if a[3] not in removed]
        if self.traps:
            # A Penning trap: electrons may enter its site but none may leave it.
            traps = self.traps
            out = [a for a in out if not (a[4] in traps and a[3] != a[4])]
        return out

    def _leave_electrode(
        self, node: int, rays: tuple[tuple[int, ...], ...], seat: int, out: list[Action]
    ) -> None:
        board = self.board
        place = self.place
        my_team = board.teams[seat]
        for ray in rays:
            t = ray[0]
            e = board.electrode_at[t]
            if e >= 0:
                if board.teams[e] != my_team:
                    out.append((HOP, node, UP, t, node))
                continue
            free = 0
            for spin in (UP, DOWN):
                if place[2 * t + spin] == EMPTY:
                    free += 1
                    out.append((HOP, node, spin, t, node))
                else:
                    self._through_line(node, spin, ray, my_team, out)
            if free == 2 and self.stock[seat][seat] >= 2:
                out.append((DOUBLON, node, -1, t, node))

    def _through_line(
        self, source: int, spin: int, ray: tuple[int, ...], my_team: int, out: list[Action]
    ) -> None:
        """Cradle and tunnel from ``source`` along ``ray``, whose first site holds spin ``spin``."""
        place = self.place
        electrode_at = self.board.electrode_at
        k = 0
        while k < len(ray) and electrode_at[ray[k]] < 0 and place[2 * ray[k] + spin] != EMPTY:
            k += 1
        if k == len(ray):
            return  # the line of electrons runs into the edge of the board
        beyond = ray[k]
        e = electrode_at[beyond]
        out.append((CRADLE, source, spin, beyond, ray[k - 1]))
        if e < 0 or self.board.teams[e] != my_team:
            out.append((TUNNEL, source, spin, beyond, source))

    def _move(self, action: Action) -> None:
        """Move the electrons of a movement action, nothing else."""
        kind, source, spin, to, origin = action
        board = self.board
        place = self.place
        if kind == DOUBLON:
            if board.electrode_at[source] >= 0:
                self.stock[board.electrode_at[source]][self.turn] -= 2
                colours = (self.turn, self.turn)
            else:
                colours = (place[2 * source], place[2 * source + 1])
                place[2 * source] = place[2 * source + 1] = EMPTY
            place[2 * to], place[2 * to + 1] = colours
            return
        if kind == SPIN_FLIP:
            place[2 * source + 1 - spin] = place[2 * source + spin]
            place[2 * source + spin] = EMPTY
            return
        if board.electrode_at[origin] >= 0:
            colour = self.turn
            self.stock[board.electrode_at[origin]][colour] -= 1
        else:
            colour = place[2 * origin + spin]
            place[2 * origin + spin] = EMPTY
        e = board.electrode_at[to]
        if e >= 0:
            self.stock[e][colour] += 1
        else:
            place[2 * to + spin] = colour

    def mover_colour(self, action: Action) -> int:
        """The colour of the electron that ends on ``action``'s ``to`` node."""
        origin, spin = action[4], action[2]
        if self.board.electrode_at[origin] >= 0 or action[0] == DOUBLON:
            return self.turn
        return self.place[2 * origin + spin]

    def apply(self, action: Action) -> None:
        """Take ``action`` (assumed legal: see :meth:`legal_actions`)."""
        kind = action[0]
        if kind == BLOCK:
            self.blocked = action[1]
            self.last_blocked[self.turn] = action[1]
            self.phase = Phase.FIRST
            return
        if kind == THESIS:
            self.defending = True
            return
        if kind == COLLAPSE:
            self._collapse(action[1], action[2])
            return
        if kind < THESIS and self.quantum(action) >= 0:
            self.pending = action  # the owner of the superposed electron chooses its spin first
            return
        if kind == SWAP:
            node = self.swaps.pop(0)
            if action[2]:
                self.place[2 * node], self.place[2 * node + 1] = (
                    self.place[2 * node + 1],
                    self.place[2 * node],
                )
            return
        if kind == EFFECT:
            self._effects().play_effect(self, action)
            return
        if kind == END_DEFENSE:
            self.defending = False
            self._action_done()
            return
        if kind != PASS:
            delta = self.payment(action)
            self.energy[self.turn] -= delta
            self.bank += delta
            if self.move_electron(action):
                return
            self._action_done()
            return
        self._end_turn()  # a pass means no movement is possible

    def _collapse(self, node: int, spin: int) -> None:
        """The superposed electron at ``node`` takes ``spin``; what waited for it goes on, or is lost."""
        self.superposed = [entry for entry in self.superposed if entry[0] != node]
        colour = max(self.place[2 * node], self.place[2 * node + 1])
        self.place[2 * node + spin], self.place[2 * node + 1 - spin] = colour, EMPTY
        pending = self.pending
        if pending is None:
            self._effects().tokens_act(self, self.token_wait)  # the token that waited acts, then the others
            return
        if self.quantum(pending) >= 0:
            return  # it needs another superposed electron's spin too
        self.pending = None
        if pending[0] == EFFECT:
            # Paid when played: it acts if it still can, else it is lost.
            self._effects().finish_effect(self, pending)
        elif pending in self.legal_actions():
            self.apply(pending)
        else:
            self._action_done()  # the chosen spin makes the movement impossible: it is lost

    def move_electron(self, action: Action) -> bool:
        """Move the electrons of a movement; True when that ends the game (an electrode reached)."""
        colour = self.mover_colour(action)
        self._move(action)
        e = self.board.electrode_at[action[3]]
        if e >= 0 and self.board.teams[colour] != self.board.teams[e]:
            # An electron entered an electrode of another team: that team has lost.
            team = self.board.teams[e]
            self.losers = tuple(s for s in range(self.players) if self.board.teams[s] == team)
            self.phase = Phase.OVER
            self.defending = False
            return True
        return False

    def _action_done(self) -> None:
        """One movement action made: the second follows, or an extra one (mobility edge), or the turn ends."""
        if self.phase == Phase.FIRST:
            self.phase = Phase.SECOND
        elif self.extra:
            self.extra -= 1
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        if self.market:
            self._effects().slide_market(self)
        if self.tokens:
            self._effects().tokens_act(self, 0)
        self.extra = 0
        self.defending = False
        self.turns += 1
        self.turn = (self.turn + 1) % self.players
        self.blocked = -1
        self.phase = Phase.OVER if self.turns >= self.max_turns else Phase.BLOCK
        if self.phase == Phase.OVER:
            self.swaps.clear()
            self.token_wait = -1

    def wins_now(self, action: Action) -> bool:
        """Whether ``action`` brings an electron of the mover's team into another team's electrode."""
        if action[0] == EFFECT and action[1] == QUANTUM_TUNNEL_CARD:
            action = (TUNNEL, action[2], action[3], action[4], action[2])
        if self.quantum(action) >= 0:
            return False  # it hangs on another player's choice
        e = self.board.electrode_at[action[3]] if action[0] < THESIS else -1
        if e < 0:
            return False
        colour = self.mover_colour(action)
        my_team = self.board.teams[self.turn]
        return self.board.teams[colour] == my_team and self.board.teams[e] != my_team


def start_state(
    board: Board,
    *,
    players: int,
    level: str,
    field: int,
    interaction: int,
    max_turns: int,
    market: list[int] | None = None,
    effects: Effects | None = None,
) -> State:
    """Electrons in their electrodes; 1 energy each (2 each with two players), the rest in the bank."""
    each = 2 if players == 2 else 1
    stock = [[0] * players for _ in range(players)]
    for colour in range(players):
        stock[colour][colour] = ELECTRONS
    return State(
        board=board,
        players=players,
        level=level,
        field=field,
        interaction=interaction,
        max_turns=max_turns,
        place=[EMPTY] * (2 * len(board.nodes)),
        stock=stock,
        energy=[each] * players,
        bank=ENERGY_TOKENS - each * players,
        last_blocked=[-1] * players,
        market=list(market or []),
        ionized=[0] * players,
        effects=effects,
    )
