"""The quantum tic-tac-toe solver's search as it was before nodes were made cheaper (commit bbf2b93).

Kept unchanged, as the baseline of ``bench/qttt.py``'s before/after table:
every node decodes its position from the byte string, keys it with 8
``translate`` calls, and works out both collapses of every cycle-closing pair
one pair at a time. Same answers, same transposition-table rules.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.qttt.rules import CODE_TABLES, LINES, PAIR_CODE, PAIRS, X, line_winner  # noqa: E402
from games.qttt.solver import SearchLimitReached, Solver  # noqa: E402

_RANGE9 = tuple(range(9))
_LINES = LINES


class PreviousSolver(Solver):
    """:class:`Solver` with the search of commit bbf2b93."""

    def _searcher(self, target: int) -> Callable[[bytes], bool]:
        """Build the recursive search for one target player.

        Everything the inner loop touches is bound to a local name: this is
        the hot path of the empty-position solve.
        """
        stats = self.stats
        table = self._tables[target]
        use_table = self.transposition
        tables = CODE_TABLES if self.symmetry else CODE_TABLES[:1]
        table_moves = self.table_moves
        pairs = PAIRS
        pair_code = PAIR_CODE
        squares = _RANGE9
        lines = _LINES
        target_is_x = target == X
        winner_of = line_winner
        limit = self.node_limit or -1

        def outcome(cells: list[int]) -> int:
            """-1 when play goes on, else 1 if target won, 0 if not."""
            best_x = best_o = 10
            for a, b, c in lines:
                ka = cells[a]
                kb = cells[b]
                kc = cells[c]
                if ka and kb and kc and ka % 2 == kb % 2 == kc % 2:
                    top = ka if ka > kb else kb
                    if kc > top:
                        top = kc
                    if ka % 2:
                        if top < best_x:
                            best_x = top
                    elif top < best_o:
                        best_o = top
            if best_x == best_o:
                return 0 if all(cells) else -1
            return 1 if (best_x < best_o) == target_is_x else 0

        def search(position: bytes) -> bool:
            n = len(position) + 1
            key = b""
            if use_table and n <= table_moves:
                key = min([position.translate(t) for t in tables])
                known = table.get(key)
                if known is not None:
                    stats.table_hits += 1
                    return known
            stats.nodes += 1
            if stats.nodes == limit:
                raise SearchLimitReached(f"gave up after {limit} positions")
            cells = [0] * 9
            label = list(squares)
            links: list[list[tuple[int, int]]] = [[], [], [], [], [], [], [], [], []]
            for i, code in enumerate(position):
                if code < 9:
                    cells[code] = i + 1
                else:
                    a, b = pairs[code - 9]
                    links[a].append((i, b))
                    links[b].append((i, a))
                    la = label[a]
                    lb = label[b]
                    if la != lb:
                        label = [la if x == lb else x for x in label]
            free = [s for s in squares if not cells[s]]
            if len(free) == 1:  # X's ninth move: a classical mark in the last square
                cells[free[0]] = n
                answer = winner_of(cells) == target
                if key:
                    table[key] = answer
                return answer
            mover_is_target = (n % 2 == 1) == target_is_x
            # Pairs that close a cycle end in a collapse chosen by the other
            # player; settle them first, since a collapse often decides the game.
            pending: list[tuple[bytes | None, bytes | None]] = []
            opening: list[bytes] = []
            for j, a in enumerate(free):
                for b in free[j + 1:]:
                    if label[a] != label[b]:
                        opening.append(position + bytes((pair_code[a][b],)))
                        continue
                    # Both collapses of the new pair (a, b), mark ``last``.
                    children: list[bytes | None] = []
                    verdicts: list[int] = []
                    for square in (a, b):
                        codes = bytearray(position)
                        codes.append(square)
                        grid = cells[:]
                        grid[square] = n
                        todo = [square]
                        while todo:
                            here = todo.pop()
                            for i, there in links[here]:
                                if codes[i] >= 9:
                                    codes[i] = there
                                    grid[there] = i + 1
                                    todo.append(there)
                        verdict = outcome(grid)
                        verdicts.append(verdict)
                        children.append(bytes(codes) if verdict < 0 else None)
                    # The chooser is the player who did not close the cycle.
                    if mover_is_target:
                        if verdicts[0] == 1 and verdicts[1] == 1:
                            if key:
                                table[key] = True
                            return True
                        if verdicts[0] == 0 or verdicts[1] == 0:
                            continue  # the opponent chooses that collapse
                    else:
                        if verdicts[0] == 0 and verdicts[1] == 0:
                            if key:
                                table[key] = False
                            return False
                        if verdicts[0] == 1 or verdicts[1] == 1:
                            continue  # the target chooses that collapse
                    pending.append((children[0], children[1]))
            for first, second in pending:
                # Neither collapse is decided yet on the spot (or only one is,
                # in the chooser's disfavour): search the undecided ones.
                if mover_is_target:  # the opponent chooses: target needs both
                    answer = (first is None or search(first)) and (second is None or search(second))
                else:  # the target chooses: one good collapse is enough
                    answer = (first is not None and search(first)) or (second is not None and search(second))
                if answer == mover_is_target:
                    if key:
                        table[key] = answer
                    return answer
            for child in opening:
                if search(child) == mover_is_target:
                    if key:
                        table[key] = mover_is_target
                    return mover_is_target
            answer = not mover_is_target
            if key:
                table[key] = answer
            return answer

        return search
