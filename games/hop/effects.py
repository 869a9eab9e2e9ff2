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
    QUANTUM_TUNNEL_CARD,
    SITE_CARDS,
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
EFFECT_TITLES: Final = {
    VORTEX: "Vortex",
    CAVITY: "Microwave cavity",
    RESISTANCE: "Resistance",
    HEAT_SOURCE: "Heat source",
    IMPURITY: "Impurity / vacancy",
    IONIZATION: "Ionization",
    MOBILITY_EDGE: "Mobility edge",
    QUANTUM_TUNNEL: "Quantum tunnel",
    DIFFUSION: "Diffusion",
    SUPERPOSITION: "Superposition",
    PENNING_TRAP: "Penning trap",
    DEAD_SHORT: "Dead short",
    LONG_RANGE_HOPPING: "Long-range hopping",
    ZERO_POINT_ENERGY: "Zero-point energy",
}
"""What the effect cards are called on the effects board (and the pages)."""

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
GROW: Final = 2
"""``(EFFECT, IMPURITY, x, y, GROW)``: a spare site card put at grid position (x, y) beside the board."""


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
        # With a superposed electron on its way, either spin of it is offered; its owner chooses on play.
        return [(EFFECT, card, a[1], a[2], a[3]) for a in state.movements(seat) if a[0] == TUNNEL]
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
    """Put a spare site card beside the board -- on a hole a vacancy left or past an edge -- while the
    box has one, or take away a card holding no token if the board stays connected."""
    board = state.board
    out: list[Action] = []
    if len(board.sites) - len(state.removed) < SITE_CARDS:
        present = set(board.sites).difference(state.removed)
        out.extend(
            (EFFECT, IMPURITY, n, 1, -1) for n in state.removed if present.intersection(board.neighbours[n])
        )
        beside = board.free_positions_beside_sites(state.removed)
        out.extend((EFFECT, IMPURITY, x, y, GROW) for x, y in beside)
    tokened = set(state.traps) | {n for t in state.tokens for n in token_sites(t)}
    for n in board.sites:
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


def _maybe(state: State, node: int, spin: int) -> int:
    """The colour that may be on this place: a superposed electron may be on either of its spins."""
    if any(n == node for n, _ in state.superposed):
        return max(state.place[2 * node], state.place[2 * node + 1])
    return state.place[2 * node + spin]


def _diffusions(state: State) -> list[Action]:
    """Two electrons of different colours on the same spin of neighbouring sites, neither trapped.

    A superposed electron is offered on either spin: its owner chooses when the card is played."""
    board = state.board
    out: list[Action] = []
    for a in board.sites:
        if a in state.traps:
            continue
        for b in board.neighbours[a]:
            if b <= a or board.electrode_at[b] >= 0 or b in state.traps:
                continue
            for spin in (UP, DOWN):
                x, y = _maybe(state, a, spin), _maybe(state, b, spin)
                if x != EMPTY and y != EMPTY and x != y:
                    out.append((EFFECT, DIFFUSION, a, spin, b))
    return out


def _long_hops(state: State) -> list[Action]:
    """One of the player's electrons re-created two sites away on a line, over any site, on a free place.

    It may land on a trapped site (a trap only keeps electrons in); a superposed electron -- the
    player's, or the one on the landing site -- is offered on either spin, its owner choosing on play."""
    board = state.board
    place = state.place
    held = {n for n, _ in state.superposed}
    out: list[Action] = []
    for node in board.sites:
        if node in state.traps:
            continue
        for spin in (UP, DOWN):
            if _maybe(state, node, spin) != state.turn:
                continue
            for ray in board.rays[node]:
                if len(ray) < 2 or board.electrode_at[ray[0]] >= 0 or board.electrode_at[ray[1]] >= 0:
                    continue
                if ray[0] in state.removed or ray[1] in state.removed:
                    continue  # it passes over a site card, never over a hole
                if place[2 * ray[1] + spin] == EMPTY or ray[1] in held:
                    out.append((EFFECT, LONG_RANGE_HOPPING, node, spin, ray[1]))
    return out


def effect_needs(state: State, action: Action) -> int:
    """The superposed site whose electron's spin an effect card needs (-1: none).

    « Dès qu'un mouvement ou un effet nécessite de connaître la position de l'électron, celui qui a
    joué la superposition choisit le spin » -- diffusion (both its sites), long-range hopping (where
    the electron leaves and lands) and the tunnel (its whole line). The others act on a card or an
    electron whatever its spin."""
    _, card, a, b, c = action
    if card in (DIFFUSION, LONG_RANGE_HOPPING):
        path = [a, c]
    elif card == QUANTUM_TUNNEL:
        path = movement_path(state, (TUNNEL, a, b, c, a))
    else:
        return -1
    for node in path:
        if any(n == node for n, _ in state.superposed):
            return node
    return -1


def play_effect(state: State, action: Action) -> None:
    """Pay for and play an effect (assumed legal: see :func:`effect_actions`).

    An effect that needs a superposed electron's spin waits for its owner's
    choice (:attr:`State.pending`), paid and used: it acts after the choice if
    it still can, and is lost otherwise."""
    _, card, a, b, c = action
    seat = state.turn
    cost = card_cost(state, card)
    state.energy[seat] -= cost
    state.bank += cost
    state.used.append(card)
    if effect_needs(state, action) >= 0:
        state.pending = action
        return
    _act(state, action)


def finish_effect(state: State, action: Action) -> None:
    """After the owner's choice of spin: the effect acts if it still can; if not, it is lost."""
    if action in _targets(state, action[1]):
        _act(state, action)


def _act(state: State, action: Action) -> None:
    """What an effect does (paid already)."""
    _, card, a, b, c = action
    seat = state.turn
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
        _impurity(state, a, b, c)
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


def _impurity(state: State, a: int, b: int, how: int) -> None:
    place = state.place
    if how == GROW:
        # A spare card beside the board: a new node, numbered last, so nothing else moves.
        state.board = state.board.with_card(a, b)
        place.extend((EMPTY, EMPTY))
    elif b:
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


def _unsuperpose(state: State, node: int) -> None:
    state.superposed[:] = [entry for entry in state.superposed if entry[0] != node]


def slide_market(state: State) -> None:
    """After the turn: the cards used go to the dearest positions, the others slide toward the cheap ones."""
    state.market[:] = [card for card in state.market if card not in state.used] + state.used
    state.used.clear()


def resistances_crossed(state: State, action: Action) -> list[tuple[int, int]]:
    """The resistance tokens (their two cards) between the cards a movement takes electrons across."""
    kind, source, spin, to, origin = action
    if kind == SPIN_FLIP:
        return []
    # A cradle moves only the last electron of its line.
    path = [origin, to] if kind == CRADLE else movement_path(state, action)
    crossed = {frozenset(pair) for pair in zip(path, path[1:], strict=False)}
    return [(t[1], t[2]) for t in state.tokens if t[0] == RESISTANCE and frozenset((t[1], t[2])) in crossed]


def token_needs(state: State, token: tuple[int, int, int, int, int]) -> int:
    """The superposed site whose electron's spin a token needs before it acts (-1: none).

    A cavity needs it on its initial card, or on its final card when electrons wait to move there;
    a heat source on its card. A vortex turns whole cards and carries it, still superposed."""
    card, a, b, _, _ = token
    held = {n for n, _ in state.superposed}
    place = state.place
    if card == CAVITY and a not in state.traps:
        if a in held:
            return a
        if b in held and (place[2 * a] != EMPTY or place[2 * a + 1] != EMPTY):
            return b
    elif card == HEAT_SOURCE and a in held:
        return a
    return -1


def tokens_act(state: State, start: int = 0) -> None:
    """After a turn, the tokens act in the order they were placed (docs/hop.md, Doctorate).

    Effects are not subject to the Hamiltonian: what the tokens move changes no energy token and
    is never refused for energy. A token that needs a superposed electron's spin stops the others
    until its owner has chosen (:attr:`State.token_wait`); they then go on from it (``start``)."""
    place = state.place
    done = state.after_turn
    if start == 0:
        done.clear()
        state.swapper = state.turn  # the player who just played
    state.token_wait = -1
    for k in range(start, len(state.tokens)):
        if token_needs(state, state.tokens[k]) >= 0:
            state.token_wait = k
            return
        card, a, b, c, d = state.tokens[k]
        if card == VORTEX:
            ring = (a, b, c, d)
            if any(n in state.traps for n in ring):
                continue  # a trapped site holds the wheel still
            for spin in (UP, DOWN):
                held = [place[2 * n + spin] for n in ring]
                for i, n in enumerate(ring):
                    place[2 * n + spin] = held[i - 1]  # each electron moves one card along the ring
                    if held[i - 1] != EMPTY:
                        done.append((VORTEX, ring[i - 1], spin, n))
            # A superposed electron turns with its card, still superposed (its spin is not needed).
            state.superposed[:] = [
                (ring[(ring.index(n) + 1) % 4] if n in ring else n, owner) for n, owner in state.superposed
            ]
        elif card == CAVITY:
            if a in state.traps:
                continue
            for spin in (UP, DOWN):
                if place[2 * a + spin] != EMPTY and place[2 * b + spin] == EMPTY:
                    place[2 * b + spin] = place[2 * a + spin]
                    place[2 * a + spin] = EMPTY
                    done.append((CAVITY, a, spin, b))
        elif card == HEAT_SOURCE and place[2 * a + DOWN] != EMPTY and place[2 * a + UP] == EMPTY:
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


EFFECTS: Final = Effects(
    effect_actions=effect_actions,
    resistances_crossed=resistances_crossed,
    play_effect=play_effect,
    finish_effect=finish_effect,
    effect_needs=effect_needs,
    token_needs=token_needs,
    slide_market=slide_market,
    tokens_act=tokens_act,
)
"""The cards' rules as a position calls them (``start_state(..., effects=EFFECTS)``)."""
