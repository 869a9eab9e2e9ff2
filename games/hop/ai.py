"""Computer players of |Hop>: random, greedy, MCTS and expert (a longer MCTS).

* ``random`` plays any legal move (block, movement or pass).
* ``greedy`` looks one action ahead: it takes a winning action when there is
  one, otherwise the action whose resulting position :func:`evaluate` likes
  best; as blocker it blocks the action that would serve the active player
  best (a winning one first).
* ``mcts`` runs Monte Carlo tree search over every decision of the game --
  blocks included, so it sees what the opponent threatens and blocks it --
  trying the best-evaluated actions first and scoring new positions with
  :func:`evaluate` (random playouts were tried and played worse).
* ``expert`` is the same search with 1000 new nodes a decision instead of 300
  (four-player games: ``mcts`` already searches 1000).

Both searching levels are anytime: they stop at their number of new nodes or
at their time budget (games.budget), whichever comes first, and play the
action searched most so far.

Everything works on :class:`~games.hop.rules.State` and its action tuples.
"""

from __future__ import annotations

import math
import random
from collections import deque
from typing import Final

from games.budget import Budget, TimedLevel, deadline
from games.exc import GameOverError
from games.frame import DigitalGame, Move, PlayerFactory, RandomPlayer
from games.hop.board import Board
from games.hop.exc import NotationError
from games.hop.game import Hop
from games.hop.rules import DOWN, EMPTY, THESIS, THESIS_ACTION, UP, Action, Phase, State

STEEPNESS: Final = 3.0
"""How sharply :func:`evaluate` turns a lead in progress into a win chance."""
TEMPO: Final = 1.0
"""What one turn of advance in the race to an electrode is worth in :func:`evaluate`."""
EXPERT_ITERATIONS: Final = 1000
"""New nodes per decision of the ``expert`` level (MCTS searching longer: about a second a decision)."""
ENERGY_WEIGHT: Final = 0.15
"""What one energy token is worth, in electrons one step from the goal (Master)."""


def distances(board: Board) -> list[list[int]]:
    """``d[team][node]``: steps from ``node`` to the nearest electrode of another team.

    Steps go from site to adjacent site (electrons never pass through an
    electrode); the electrode of another team is the goal, at 0.
    """
    if "distances" not in board.memo:
        table: list[list[int]] = []
        far = len(board.nodes)
        for team in sorted(set(board.teams)):
            dist = [far] * len(board.nodes)
            queue: deque[int] = deque()
            for colour, node in enumerate(board.electrodes):
                if board.teams[colour] != team:
                    dist[node] = 0
                    queue.append(node)
            while queue:
                node = queue.popleft()
                for other in board.neighbours[node]:
                    if dist[other] > dist[node] + 1:
                        dist[other] = dist[node] + 1
                        if board.electrode_at[other] < 0:
                            queue.append(other)
            table.append(dist)
        board.memo["distances"] = table
    distances_table: list[list[int]] = board.memo["distances"]
    return distances_table


def progress(state: State) -> tuple[list[float], list[int]]:
    """Per team, how close its electrons are to an electrode of another team; per seat, its closest electron.

    Each electron counts 2^-d for d steps to go; electrons at home count
    from their electrode; in the Master level, energy tokens count too.
    """
    board = state.board
    dist = distances(board)
    teams = board.teams
    score = [0.0] * len(dist)
    nearest = [len(board.nodes)] * state.players
    place = state.place
    for index, colour in enumerate(place):
        if colour != EMPTY:
            team = teams[colour]
            d = dist[team][index >> 1]
            score[team] += 0.5**d
            if d < nearest[colour]:
                nearest[colour] = d
    for colour, row in enumerate(state.stock):
        count = row[colour]  # electrons at home; those in a partner's electrode are out of play
        if count:
            team = teams[colour]
            d = dist[team][board.electrodes[colour]]
            score[team] += count * 0.5**d
            if d < nearest[colour]:
                nearest[colour] = d
    if state.field or state.interaction:
        for seat, tokens in enumerate(state.energy):
            score[teams[seat]] += ENERGY_WEIGHT * 0.5 * tokens
    return score, nearest


def race(state: State, nearest: list[int]) -> list[float]:
    """Per team, when (in turns from now) its fastest electron can reach a goal at two hops a turn.

    The seat ``j`` places after the active one moves at ``j / players``, then
    once a turn; the active seat's current turn has its remaining actions, and
    a win within them counts as far ahead of everything else.
    """
    players = state.players
    teams = state.board.teams
    left = 1 if state.phase == Phase.SECOND else 2
    when = [math.inf] * len(set(teams))
    for j in range(players):
        seat = (state.turn + j) % players
        d = nearest[seat]
        t = j / players + (d + 1) // 2 - 1  # its turns come at j / players, then once a turn
        if j == 0:
            t = -2.0 if d <= left else float((d - left + 1) // 2)
        team = teams[seat]
        when[team] = min(when[team], t)
    return when


def reach(state: State, seat: int, cap: int = 6) -> int:
    """The fewest movement actions that bring one of ``seat``'s electrons into another team's electrode.

    A breadth-first search over (site, spin) places by hops, tunnels and spin
    flips, the other electrons standing still (blocks and energy aside);
    ``cap + 1`` when it takes more than ``cap`` actions.
    """
    board = state.board
    place = state.place
    electrode_at = board.electrode_at
    teams = board.teams
    mine = teams[seat]
    seen = bytearray(len(place))
    current = [(i >> 1, i & 1) for i, colour in enumerate(place) if colour == seat]
    if state.stock[seat][seat]:
        home = board.electrodes[seat]
        current += [(home, UP), (home, DOWN)]  # an electron leaving home takes either spin
    for node, spin in current:
        seen[2 * node + spin] = 1
    for level in range(1, cap + 1):
        following: list[tuple[int, int]] = []
        for node, spin in current:
            for ray in board.rays[node]:
                k = 0
                while k < len(ray) and electrode_at[ray[k]] < 0 and place[2 * ray[k] + spin] != EMPTY:
                    k += 1  # k == 0: a hop; k > 0: a tunnel through the line
                if k == len(ray):
                    continue
                target = ray[k]
                e = electrode_at[target]
                if e >= 0:
                    if teams[e] != mine:
                        return level
                elif not seen[2 * target + spin]:
                    seen[2 * target + spin] = 1
                    following.append((target, spin))
            other = 2 * node + 1 - spin
            if electrode_at[node] < 0 and place[other] == EMPTY and not seen[other]:
                seen[other] = 1
                following.append((node, 1 - spin))
        current = following
    return cap + 1


def evaluate(state: State, *, deep: bool = False) -> list[float]:
    """Per seat, a win chance in [0, 1]: 1 or 0 once decided, otherwise a guess.

    The guess weighs the race (:func:`race`) and the team's lead in progress
    (:func:`progress`). The race counts hops to the goal; ``deep`` counts the
    actions :func:`reach` finds instead, tunnels included (slower, sharper).
    """
    players = state.players
    teams = state.board.teams
    if state.phase == Phase.OVER:
        if not state.losers:
            return [0.5] * players
        return [0.0 if s in state.losers else 1.0 for s in range(players)]
    score, nearest = progress(state)
    if deep:
        nearest = [reach(state, seat) for seat in range(players)]
    when = race(state, nearest)
    out = []
    for seat in range(players):
        mine = teams[seat]
        others = [t for t in range(len(score)) if t != mine]
        lead = score[mine] - max(score[t] for t in others)
        tempo = min(when[t] for t in others) - when[mine]
        out.append(1.0 / (1.0 + math.exp(-(STEEPNESS * lead + TEMPO * max(-3.0, min(3.0, tempo))))))
    return out


def _hop(game: DigitalGame) -> Hop:
    if not isinstance(game, Hop):
        raise NotationError(f"a |Hop> player cannot play {game.name}")
    if game.is_over():
        raise GameOverError("the game is over")
    return game


def winning_action(state: State, actions: list[Action]) -> Action | None:
    for action in actions:
        if state.wins_now(action):
            return action
    return None


class GreedyPlayer:
    """One action ahead: a winning action, else the best-evaluated one; blocks the most useful action."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()
        self.nodes = 0
        """Positions evaluated so far: a machine-independent count of the work done."""

    def choose(self, game: DigitalGame) -> Move:
        hop = _hop(game)
        return hop.move_to_json(self.choose_action(hop.state))

    def choose_action(self, state: State) -> Action:
        actions = state.legal_actions()
        self.rng.shuffle(actions)  # ties broken at random
        if state.phase == Phase.BLOCK and not state.swaps and state.token_wait < 0:
            return self._block(state, actions)  # not a heat exchange or a spin a token waits for
        win = winning_action(state, actions)
        if win is not None:
            return win
        # The seat deciding: the active player, or the owner of a superposed electron choosing its
        # spin, or the player who just played deciding a heat exchange.
        seat = state.turn if state.to_act is None else state.to_act
        return max(actions, key=lambda a: self._after(state, a)[seat])

    def _after(self, state: State, action: Action) -> list[float]:
        self.nodes += 1
        child = state.copy()
        child.apply(action)
        return evaluate(child)

    def _block(self, state: State, blocks: list[Action]) -> Action:
        """Block the kind of action whose best use serves the active player most."""
        mover = state.copy()
        mover.phase = Phase.FIRST
        mover.blocked = -1
        best: dict[int, float] = {}
        board = mover.movement_board
        for action in mover.movements(mover.turn):
            if action[0] not in board or not mover.affordable(action):
                continue
            value = 2.0 if mover.wins_now(action) else self._after(mover, action)[mover.turn]
            best[action[0]] = max(best.get(action[0], -1.0), value)
        if THESIS in board:
            # The thesis defense is worth the best effect it can buy (or none).
            defense = mover.copy()
            defense.apply(THESIS_ACTION)
            for action in defense.legal_actions():
                value = 2.0 if defense.wins_now(action) else self._after(defense, action)[mover.turn]
                best[THESIS] = max(best.get(THESIS, -1.0), value)
        return max(blocks, key=lambda b: best.get(b[1], -1.0))


class _Node:
    """A decision in the search tree, reached by the actions on the path from the root."""

    __slots__ = ("actor", "untried", "children", "visits", "totals", "value")

    def __init__(self, state: State, value: list[float] | None = None) -> None:
        self.actor = state.to_act
        self.children: list[tuple[Action, _Node]] = []
        self.visits = 0
        self.totals: list[float] = [0.0] * state.players
        self.untried: list[tuple[Action, list[float]]] = []
        """Actions not searched yet with the evaluation of their result, best last."""
        self.value = value if value is not None else evaluate(state)
        """What this position is worth to each seat before any search."""
        if self.actor is None:
            return
        actions = state.legal_actions()
        if state.phase == Phase.BLOCK:
            self.untried = [(action, self.value) for action in actions]
            return
        win = winning_action(state, actions)
        if win is not None:
            # A winning action is always best: the position is won, nothing to search.
            self.untried = [
                (win, [1.0 if state.team(s) == state.team(self.actor) else 0.0 for s in range(state.players)])
            ]
            self.value = self.untried[0][1]
            return
        scored = []
        for action in actions:
            child = state.copy()
            child.apply(action)
            scored.append((action, evaluate(child)))
        actor = self.actor
        scored.sort(key=lambda item: item[1][actor])
        self.untried = scored


class MctsPlayer:
    """Monte Carlo tree search over blocks and movements, led by :func:`evaluate`.

    Every decision is a node (a turn is three: the block and two movements);
    a node's actions are tried best-evaluated first, and a node widens to
    more of them as it is visited (progressive widening), so the search
    reads the opponent's best replies -- and the blocks that stop them --
    rather than averaging over poor ones. A position where the seat to move
    has a winning action counts as won. ``iterations`` new nodes per decision:
    by default 300, and 1000 in four-player games, where three other players'
    turns lie between two of one's own (measured in docs/hop.md), within
    ``budget`` (None: no time limit).
    """

    def __init__(
        self,
        rng: random.Random | None = None,
        *,
        iterations: int | None = None,
        width: int = 3,
        exploration: float = 0.5,
        deep: bool | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.rng = rng or random.Random()
        self.budget = budget
        self.deep = deep
        """Score new nodes with the tunnel-aware race (:func:`reach`); None: only in four-player games,
        where it was measured to help (docs/hop.md), while it hurt with two players."""
        self.iterations = iterations
        """New nodes per decision; None: 300, or 1000 in four-player games (docs/hop.md)."""
        self.width = width
        self.exploration = exploration
        self.nodes = 0
        """Positions evaluated so far: a machine-independent count of the work done."""
        self.searched = 0
        """Iterations run so far (decisions with one legal action or a win need none)."""
        self.cut = 0
        """Decisions whose search the time budget stopped before its number of iterations."""

    def choose(self, game: DigitalGame) -> Move:
        hop = _hop(game)
        return hop.move_to_json(self.choose_action(hop.state))

    def choose_action(self, state: State) -> Action:
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]
        if state.phase != Phase.BLOCK:
            win = winning_action(state, actions)
            if win is not None:
                return win
        self.rng.shuffle(actions)
        until = deadline(self.budget)
        root = _Node(state)
        deep = self.deep if self.deep is not None else state.players >= 4
        iterations = self.iterations or (1000 if state.players >= 4 else 300)
        for _ in range(iterations):
            if until.passed():
                self.cut += 1
                break
            self._iterate(root, state.copy(), deep)
            self.searched += 1
        if not root.children:
            return root.untried[-1][0]  # no time to search: the best-evaluated action
        return max(root.children, key=lambda child: (child[1].visits, child[1].totals[root.actor or 0]))[0]

    def _iterate(self, root: _Node, state: State, deep: bool) -> None:
        path = [root]
        node = root
        while True:
            if node.untried and len(node.children) < self.width + math.isqrt(node.visits):
                action, value = node.untried.pop()
                state.apply(action)
                child = _Node(state, evaluate(state, deep=True) if deep else value)
                self.nodes += 1 + len(child.untried)
                node.children.append((action, child))
                path.append(child)
                reward = child.value
                break
            if not node.children:
                reward = node.value  # the game is over here
                break
            action, node = self._select(node)
            state.apply(action)
            path.append(node)
        for visited in path:
            visited.visits += 1
            totals = visited.totals
            for seat, share in enumerate(reward):
                totals[seat] += share

    def _select(self, node: _Node) -> tuple[Action, _Node]:
        """UCB1 from the point of view of the seat deciding at ``node``."""
        actor = node.actor if node.actor is not None else 0
        scale = self.exploration * math.sqrt(math.log(node.visits))
        return max(
            node.children,
            key=lambda item: item[1].totals[actor] / item[1].visits + scale / math.sqrt(item[1].visits),
        )


AI_LEVELS: Final[dict[str, PlayerFactory]] = {
    "random": lambda rng: RandomPlayer(rng),
    "greedy": lambda rng: GreedyPlayer(rng),
    "mcts": TimedLevel(lambda rng, budget: MctsPlayer(rng, budget=budget)),
    "expert": TimedLevel(lambda rng, budget: MctsPlayer(rng, iterations=EXPERT_ITERATIONS, budget=budget)),
}
