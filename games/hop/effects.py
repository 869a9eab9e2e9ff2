"""The Doctorate level's effects market and the effect cards the engine plays.

The thesis defense (a movement action of the Doctorate movement board, not
subject to the Hamiltonian) opens a *defense*: the player buys effect cards
from the market, paying each card's position cost to the bank, then ends the
defense. Effect actions are tuples like every action:
``(EFFECT, card, a, b, c)``, the targets depending on the card (see
:func:`effect_actions`). Effects are not subject to the Hamiltonian.

After the turn the cards used move to the most expensive positions (in the
order they were used, the last one used on the dearest position) and the
others slide toward the cheaper ones.

Only the cards in :data:`PLAYABLE` are dealt to the market (every card of the
rules); docs/hop.md lists each with its notation and the decisions taken where
the rules are silent.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

from games.hop.board import Board
from games.hop.rules import (
    CRADLE,
    DOWN,
    EFFECT,
    EMPTY,
    END_DEFENSE,
    HOP,
    QUANTUM_TUNNEL_CARD,
    SPIN_FLIP,
    TUNNEL,
    UP,
    Action,
    Effects,
    movement_path,
)

if TYPE_CHECKING:
    from games.hop.rules import State

END_DEFENSE_ACTION: Final[Action] = (END_DEFENSE, -1, -1, -1, -1)

MARKET_COSTS: Final = (1, 1, 2, 2, 3, 3, 4)
"""The energy cost of each position of the effects board, cheapest first (DESIGN §5)."""
TOKENS_PER_TYPE: Final = 3
"""Effect tokens of each type (15 tokens, 3 per type)."""

# Effect cards, in the order of the rules.
VORTEX: Final = 0
CAVITY: Final = 1
RESISTANCE: Final = 2
HEAT_SOURCE: Final = 3
IMPURITY: Final = 4
IONIZATION: Final = 5
MOBILITY_EDGE: Final = 6
QUANTUM_TUNNEL: Final = QUANTUM_TUNNEL_CARD
DIFFUSION: Final = 8
SUPERPOSITION: Final = 9
PENNING_TRAP: Final = 10
DEAD_SHORT: Final = 11
LONG_RANGE_HOPPING: Final = 12
ZERO_POINT_ENERGY: Final = 13

EFFECT_NAMES: Final = {
    VORTEX: "vortex",
    CAVITY: "microwave-cavity",
    RESISTANCE: "resistance",
    HEAT_SOURCE: "heat-source",
    IMPURITY: "impurity-vacancy",
    IONIZATION: "ionization",
    MOBILITY_EDGE: "mobility-edge",
    QUANTUM_TUNNEL: "quantum-tunnel",
    DIFFUSION: "diffusion",
    SUPERPOSITION: "superposition",
    PENNING_TRAP: "penning-trap",
    DEAD_SHORT: "dead-short",
    LONG_RANGE_HOPPING: "long-range-hopping",
    ZERO_POINT_ENERGY: "zero-point-energy",
}
EFFECT_CARDS: Final = {name: card for card, name in EFFECT_NAMES.items()}

PLAYABLE: Final = (
    VORTEX,
    CAVITY,
    RESISTANCE,
    HEAT_SOURCE,
    IMPURITY,
    IONIZATION,
    MOBILITY_EDGE,
    QUANTUM_TUNNEL,
    DIFFUSION,
    SUPERPOSITION,
    PENNING_TRAP,
    DEAD_SHORT,
    LONG_RANGE_HOPPING,
    ZERO_POINT_ENERGY,
)
"""The effect cards the engine plays: the market is dealt from these only."""


ACTION_TOKENS: Final = (VORTEX, CAVITY, RESISTANCE)
"""The crystalline network: two of these tokens never touch the same site card, nor an electrode."""
CLOCKWISE: Final = 0
COUNTERCLOCKWISE: Final = 1
TURNINGS: Final = ("clockwise", "counterclockwise")


def squares(board: Board) -> list[tuple[int, int, int, int]]:
    """Every four site cards around one point (a 4-cycle of adjacent sites), clockwise from the lowest."""
    if "squares" not in board.memo:
        found: dict[frozenset[int], tuple[int, int, int, int]] = {}
        sites = set(board.sites)
        for a in board.sites:
            near = [n for n in board.neighbours[a] if n in sites]
            for b in near:
                for d in near:
                    if b >= d:
                        continue
                    for c in board.neighbours[b]:
                        if c != a and c in sites and c in board.neighbours[d]:
                            found.setdefault(frozenset((a, b, c, d)), _clockwise(board, (a, b, c, d)))
        board.memo["squares"] = sorted(found.values())
    table: list[tuple[int, int, int, int]] = board.memo["squares"]
    return table


def _clockwise(board: Board, cycle: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    xs = [board.positions[n][0] for n in cycle]
    ys = [board.positions[n][1] for n in cycle]
    cx, cy = sum(xs) / 4, sum(ys) / 4
    # y grows upward: clockwise is decreasing angle.
    order = sorted(cycle, key=lambda n: -math.atan2(board.positions[n][1] - cy, board.positions[n][0] - cx))
    start = order.index(min(order))
    turned = order[start:] + order[:start]
    return (turned[0], turned[1], turned[2], turned[3])


def token_sites(token: tuple[int, int, int, int, int]) -> tuple[int, ...]:
    card, a, b, c, d = token
    if card == VORTEX:
        return (a, b, c, d)
    if card in (CAVITY, RESISTANCE):
        return (a, b)
    return (a,)


def _network_free(state: State, sites: tuple[int, ...]) -> bool:
    """The crystalline network allows an action token on ``sites`` (site cards on the board)."""
    if any(state.board.is_electrode(n) or n in state.removed for n in sites):
        return False
    taken = {n for t in state.tokens if t[0] in ACTION_TOKENS for n in token_sites(t)}
    return not taken.intersection(sites)


def card_cost(state: State, card: int) -> int:
    return MARKET_COSTS[state.market.index(card)]


def effect_actions(state: State) -> list[Action]:
    """Every effect the defending player may buy now: cards on the market, unused this turn, affordable."""
    out: list[Action] = [END_DEFENSE_ACTION]
    for card in state.market:
        if card in state.used or card_cost(state, card) > state.energy[state.turn]:
            continue
        out.extend(_targets(state, card))
    return out


def _targets(state: State, card: int) -> list[Action]:
    seat = state.turn
    board = state.board
    place = state.place
    teams = board.teams
    if card in (MOBILITY_EDGE, ZERO_POINT_ENERGY):
        return [(EFFECT, card, -1, -1, -1)]
    if card == DEAD_SHORT:
        return [(EFFECT, card, s, -1, -1) for s in range(state.players) if s != seat and state.energy[s]]
    if card == IONIZATION:
        return [
            (EFFECT, card, i >> 1, i & 1, -1)
            for i, colour in enumerate(place)
            if colour != EMPTY and teams[colour] != teams[seat]
        ]
    if card == QUANTUM_TUNNEL:
        return [
            (EFFECT, card, a[1], a[2], a[3])
            for a in state.movements(seat)
            if a[0] == TUNNEL and state.quantum(a) < 0  # an effect card is never left hanging on a choice
        ]
    if card == SUPERPOSITION:
        held = {n for n, _ in state.superposed}
        return [
            (EFFECT, card, i >> 1, i & 1, -1)
            for i, colour in enumerate(place)
            if colour != EMPTY and place[i ^ 1] == EMPTY and i >> 1 not in held
        ]
    if card == PENNING_TRAP:
        if len(state.traps) >= TOKENS_PER_TYPE:
            return []
        return [
            (EFFECT, card, n, -1, -1) for n in board.sites if n not in state.traps and n not in state.removed
        ]
    if card in (VORTEX, CAVITY, RESISTANCE, HEAT_SOURCE):
        if sum(1 for t in state.tokens if t[0] == card) >= TOKENS_PER_TYPE:
            return []
        return _token_places(state, card)
    if card == IMPURITY:
        return _impurities(state)
    if card == DIFFUSION:
        return _diffusions(state)
    if card == LONG_RANGE_HOPPING:
        return _long_hops(state)
    return []


def _token_places(state: State, card: int) -> list[Action]:
    board = state.board
    out: list[Action] = []
    if card == HEAT_SOURCE:
        heated = {t[1] for t in state.tokens if t[0] == HEAT_SOURCE}
        return [(EFFECT, card, n, -1, -1) for n in board.sites if n not in heated and n not in state.removed]
    if card == VORTEX:
        for k, square in enumerate(squares(board)):
            if _network_free(state, square):
                out.extend((EFFECT, card, k, turning, -1) for turning in (CLOCKWISE, COUNTERCLOCKWISE))
        return out
    for a in board.sites:
        for b in board.neighbours[a]:
            if card == RESISTANCE and b < a:
                continue  # a resistance has no direction
            if _network_free(state, (a, b)):
                out.append((EFFECT, card, a, b, -1))
    return out


def _impurities(state: State) -> list[Action]:
    """Put back a card a vacancy took, or take away a card holding no token if the board stays connected."""
    out: list[Action] = [(EFFECT, IMPURITY, n, 1, -1) for n in state.removed]
    tokened = set(state.traps) | {n for t in state.tokens for n in token_sites(t)}
    for n in state.board.sites:
        if n not in state.removed and n not in tokened and connected(state, [*state.removed, n]):
            out.append((EFFECT, IMPURITY, n, 0, -1))
    return out


def connected(state: State, removed: list[int]) -> bool:
    """Every card left and every electrode can be reached from the first electrode."""
    board = state.board
    start = board.electrodes[0]
    gone = set(removed)
    seen = {start}
    stack = [start]
    while stack:
        node = stack.pop()
        if node != start and board.electrode_at[node] >= 0:
            continue  # electrons never pass through an electrode
        for other in board.neighbours[node]:
            if other not in seen and other not in gone:
                seen.add(other)
                stack.append(other)
    return len(seen) + len(gone) == len(board.nodes)


def _diffusions(state: State) -> list[Action]:
    """Two electrons of different colours on the same spin of neighbouring sites, neither trapped."""
    board = state.board
    place = state.place
    out: list[Action] = []
    held = state.traps + [n for n, _ in state.superposed]
    for a in board.sites:
        if a in held:
            continue
        for b in board.neighbours[a]:
            if b <= a or board.electrode_at[b] >= 0 or b in held:
                continue
            for spin in (UP, 1 - UP):
                x, y = place[2 * a + spin], place[2 * b + spin]
                if x != EMPTY and y != EMPTY and x != y:
                    out.append((EFFECT, DIFFUSION, a, spin, b))
    return out


def _long_hops(state: State) -> list[Action]:
    """One of the player's electrons re-created two sites away on a line, over any site, on a free place."""
    board = state.board
    place = state.place
    out: list[Action] = []
    held = state.traps + [n for n, _ in state.superposed]
    for i, colour in enumerate(place):
        node, spin = i >> 1, i & 1
        if colour != state.turn or node in held:
            continue
        for ray in board.rays[node]:
            if len(ray) < 2 or board.electrode_at[ray[0]] >= 0 or board.electrode_at[ray[1]] >= 0:
                continue
            if ray[0] in state.removed or ray[1] in state.removed:
                continue  # it passes over a site card, never over a hole
            if place[2 * ray[1] + spin] == EMPTY and ray[1] not in held:
                out.append((EFFECT, LONG_RANGE_HOPPING, node, spin, ray[1]))
    return out


def play_effect(state: State, action: Action) -> None:
    """Pay for and play an effect (assumed legal: see :func:`effect_actions`)."""
    _, card, a, b, c = action
    seat = state.turn
    cost = card_cost(state, card)
    state.energy[seat] -= cost
    state.bank += cost
    state.used.append(card)
    place = state.place
    if card == MOBILITY_EDGE:
        state.extra += 1
    elif card == ZERO_POINT_ENERGY:
        for other in range(state.players):
            if other != seat and state.energy[other]:
                state.energy[other] -= 1
                state.bank += 1
    elif card == DEAD_SHORT:
        state.energy[a] -= 1
        state.energy[seat] += 1
    elif card == IONIZATION:
        colour = place[2 * a + b]
        place[2 * a + b] = EMPTY
        state.ionized[colour] += 1
        _unsuperpose(state, a)
    elif card == SUPERPOSITION:
        state.superposed.append((a, seat))
    elif card == PENNING_TRAP:
        state.traps.append(a)
    elif card == IMPURITY:
        if b:
            state.removed.remove(a)
        else:
            # The card's electrons go home to their own electrodes, with no energy change.
            for spin in (UP, DOWN):
                colour = place[2 * a + spin]
                if colour != EMPTY:
                    state.stock[colour][colour] += 1
                    place[2 * a + spin] = EMPTY
            state.removed.append(a)
            _unsuperpose(state, a)
    elif card == VORTEX:
        n0, n1, n2, n3 = squares(state.board)[a]
        ring = (n0, n1, n2, n3) if b == CLOCKWISE else (n0, n3, n2, n1)
        state.tokens.append((VORTEX, *ring))
    elif card in (CAVITY, RESISTANCE, HEAT_SOURCE):
        state.tokens.append((card, a, b, -1, -1))
    elif card == DIFFUSION:
        place[2 * a + b], place[2 * c + b] = place[2 * c + b], place[2 * a + b]
    elif card == LONG_RANGE_HOPPING:
        place[2 * c + b] = place[2 * a + b]
        place[2 * a + b] = EMPTY
    elif card == QUANTUM_TUNNEL:
        state.move_electron((TUNNEL, a, b, c, a))


def _unsuperpose(state: State, node: int) -> None:
    state.superposed[:] = [entry for entry in state.superposed if entry[0] != node]


def slide_market(state: State) -> None:
    """After the turn: the cards used go to the dearest positions, the others slide toward the cheap ones."""
    state.market[:] = [card for card in state.market if card not in state.used] + state.used
    state.used.clear()


def resistances_crossed(state: State, action: Action) -> int:
    """The resistance tokens between the cards a movement takes electrons across."""
    kind, source, spin, to, origin = action
    if kind == SPIN_FLIP:
        return 0
    # A cradle moves only the last electron of its line.
    path = [origin, to] if kind == CRADLE else movement_path(state, action)
    crossed = {frozenset(pair) for pair in zip(path, path[1:], strict=False)}
    return sum(1 for t in state.tokens if t[0] == RESISTANCE and frozenset((t[1], t[2])) in crossed)


def _settle(state: State, payer: int, movement: Action) -> bool:
    """Balance a token's movement by the Hamiltonian, the player who just played paying.

    False (and nothing moves) when neither that player nor the bank can cover it."""
    delta = state.energy_change(movement)
    if delta > 0 and state.energy[payer] < delta or delta < 0 and state.bank < -delta:
        return False
    state.energy[payer] -= delta
    state.bank += delta
    return True


def tokens_act(state: State) -> None:
    """After a turn, the tokens act in the order they were placed (docs/hop.md, Doctorate)."""
    payer = state.turn
    place = state.place
    done = state.after_turn
    done.clear()
    for token in state.tokens:
        card, a, b, c, d = token
        if card == VORTEX:
            ring = (a, b, c, d)
            if any(n in state.traps for n in ring):
                continue  # a trapped site holds the wheel still
            for spin in (UP, DOWN):
                held = [place[2 * n + spin] for n in ring]
                for k, n in enumerate(ring):
                    place[2 * n + spin] = held[k - 1]  # each electron moves one card along the ring
                    if held[k - 1] != EMPTY:
                        done.append((VORTEX, ring[k - 1], spin, n))
            # A superposed electron turns with its card, still superposed (its spin is not needed).
            state.superposed[:] = [
                (ring[(ring.index(n) + 1) % 4] if n in ring else n, owner) for n, owner in state.superposed
            ]
        elif card == CAVITY:
            if a in state.traps or any(n in (a, b) for n, _ in state.superposed):
                continue
            for spin in (UP, DOWN):
                free = place[2 * a + spin] != EMPTY and place[2 * b + spin] == EMPTY
                if free and _settle(state, payer, (HOP, a, spin, b, a)):
                    place[2 * b + spin] = place[2 * a + spin]
                    place[2 * a + spin] = EMPTY
                    done.append((CAVITY, a, spin, b))
        elif card == HEAT_SOURCE:
            if any(n == a for n, _ in state.superposed):
                continue
            free = place[2 * a + DOWN] != EMPTY and place[2 * a + UP] == EMPTY
            if free and _settle(state, payer, (SPIN_FLIP, a, DOWN, a, a)):
                place[2 * a + UP] = place[2 * a + DOWN]
                place[2 * a + DOWN] = EMPTY
                done.append((HEAT_SOURCE, a, DOWN, a))
    # Heat sources holding two electrons: the player who just played may exchange them.
    state.swaps[:] = [
        t[1]
        for t in state.tokens
        if t[0] == HEAT_SOURCE
        and place[2 * t[1]] != EMPTY
        and place[2 * t[1] + 1] != EMPTY
        and place[2 * t[1]] != place[2 * t[1] + 1]
    ]
    state.swapper = payer


EFFECTS: Final = Effects(effect_actions, resistances_crossed, play_effect, slide_market, tokens_act)
"""The cards' rules as a position calls them (``start_state(..., effects=EFFECTS)``)."""
