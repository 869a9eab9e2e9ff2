"""Who sits at which table in a round seated by the standings.

The rules: « Les joueurs ex aequo au classement général ne devraient
théoriquement pas se trouver à la même table », and for an odd count « une
partie de trois joueurs sera mise en place entre les trois joueurs ayant le
plus mauvais score au classement général ». The table sizes are fixed
beforehand (:func:`standings_table_sizes`);
this module chooses who sits where:

1. **Fewest tied pairs.** The number of pairs of players level on points who
   share a table is the least any split into those table sizes can reach
   (proved against a brute force in the tests).
2. **Then closest to the standings.** Filling the tables straight down the
   standings (best players at table 1) gives each group of players level on
   points its *home* tables: the tables its places fall on. Among the splits
   that reach the fewest tied pairs, the one kept moves players the fewest
   tables away from home: a player seated *d* tables from the nearest of their
   group's home tables counts *d*, and the total is the least possible. A
   group level on points may spread over its home tables freely, since its
   players' places differ only by the lot.
3. Within a group level on points, the better placed (by the lot) sit at the
   better tables. When several splits are equally good by 1 and 2, the one
   found first is kept: the split depends only on the standings.

For an odd count the last table (of three) holds three players whose points
are the three lowest; when players level on points straddle that boundary,
any of them may be the one who sits there (they have « le plus mauvais
score » alike), and 1 and 2 decide which.

The split is an exact minimum-cost flow: score groups supply players, tables
take as many as they seat, and the *m*-th player of one group at one table
costs *m* tied pairs (convex, so successive shortest paths are exact), plus
the distance from home, which weighs less than one tied pair.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence

from tournaments.exc import RoundError

__all__ = ["displacement", "split_tables", "tied_pairs"]


def tied_pairs(groups: Sequence[Sequence[int]], points: Mapping[int, int]) -> int:
    """How many pairs of players with the same points share a table."""
    return sum(
        1 for group in groups for i, a in enumerate(group) for b in group[i + 1 :] if points[a] == points[b]
    )


def _score_groups(ranked: Sequence[int], points: Mapping[int, int]) -> list[list[int]]:
    """Runs of players level on points, in standings order."""
    groups: list[list[int]] = []
    for player in ranked:
        if groups and points[groups[-1][-1]] == points[player]:
            groups[-1].append(player)
        else:
            groups.append([player])
    return groups


def _homes(groups: Sequence[Sequence[int]], sizes: Sequence[int]) -> list[tuple[int, int]]:
    """For each score group, the first and last table its places fall on when filling straight down."""
    table_of_place = [table for table, size in enumerate(sizes) for _ in range(size)]
    spans = []
    place = 0
    for group in groups:
        spans.append((table_of_place[place], table_of_place[place + len(group) - 1]))
        place += len(group)
    return spans


def _away(span: tuple[int, int], table: int) -> int:
    low, high = span
    return low - table if table < low else table - high if table > high else 0


def displacement(
    tables: Sequence[Sequence[int]], ranked: Sequence[int], points: Mapping[int, int], sizes: Sequence[int]
) -> int:
    """How many tables, in all, players sit away from their group's home tables (rule 2)."""
    groups = _score_groups(ranked, points)
    spans = _homes(groups, sizes)
    group_of = {p: g for g, members in enumerate(groups) for p in members}
    return sum(_away(spans[group_of[p]], t) for t, table in enumerate(tables) for p in table)


def split_tables(
    ranked: Sequence[int], points: Mapping[int, int], sizes: Sequence[int], *, lowest_three: bool = False
) -> list[list[int]]:
    """The players of ``ranked`` (best first) at tables of ``sizes``, by rules 1–3 of the module docstring.

    ``lowest_three``: the last table (of three) holds three players with the
    three lowest scores (an odd count). Each table lists its players in
    standings order.
    """
    n, k = len(ranked), len(sizes)
    if sum(sizes) != n:
        raise ValueError(f"tables of {list(sizes)} do not seat {n} players")
    if lowest_three and (not sizes or sizes[-1] != 3):
        raise ValueError("the three lowest-placed need a last table of three")
    groups = _score_groups(ranked, points)
    spans = _homes(groups, sizes)
    room = [[min(len(group), size) for size in sizes] for group in groups]
    if lowest_three:
        lowest = ranked[-3:]
        for g, group in enumerate(groups):
            room[g][k - 1] = sum(1 for p in group if p in lowest)
    seated = _min_cost_flow([len(g) for g in groups], list(sizes), room, spans, big=n * k + 1)
    tables: list[list[int]] = [[] for _ in sizes]
    for g, group in enumerate(groups):
        members = iter(group)  # better placed first, to the better tables (rule 3)
        for table in range(k):
            tables[table].extend(next(members) for _ in range(seated[g][table]))
    order = {p: i for i, p in enumerate(ranked)}
    return [sorted(table, key=order.__getitem__) for table in tables]


def _min_cost_flow(
    supply: list[int], capacity: list[int], room: list[list[int]], spans: list[tuple[int, int]], *, big: int
) -> list[list[int]]:
    """How many of each group sit at each table: successive shortest paths, one player at a time.

    Seating the m-th player of group g at table t costs ``big * m`` (m tied
    pairs more, m counted from 0) plus the distance of t from g's home tables.
    Nodes: groups 0..G-1, tables G..G+k-1; residual arcs group→table while
    there is room, table→group while someone of the group sits there.
    """
    n_groups, k = len(supply), len(capacity)
    seated = [[0] * k for _ in range(n_groups)]
    away = [[_away(spans[g], t) for t in range(k)] for g in range(n_groups)]
    left, free = supply[:], capacity[:]
    for _ in range(sum(supply)):
        # Shortest paths (arcs may be negative, cycles never are) from every group with players left.
        inf = float("inf")
        dist = [0.0 if left[g] else inf for g in range(n_groups)] + [inf] * k
        back = [-1] * (n_groups + k)
        queue = deque(g for g in range(n_groups) if left[g])
        queued = [bool(left[g]) for g in range(n_groups)] + [False] * k
        while queue:
            node = queue.popleft()
            queued[node] = False
            if node < n_groups:
                g = node
                for t in range(k):
                    if seated[g][t] < room[g][t]:
                        _relax(dist, back, queue, queued, g, n_groups + t, big * seated[g][t] + away[g][t])
            else:
                t = node - n_groups
                for g in range(n_groups):
                    if seated[g][t]:
                        _relax(dist, back, queue, queued, node, g, -(big * (seated[g][t] - 1) + away[g][t]))
        end = min((t for t in range(k) if free[t]), key=lambda t: dist[n_groups + t])
        free[end] -= 1
        node = n_groups + end
        while back[node] >= 0:
            previous = back[node]
            if previous < n_groups:
                seated[previous][node - n_groups] += 1
            else:
                seated[node][previous - n_groups] -= 1
            node = previous
        left[node] -= 1
    return seated


def _relax(
    dist: list[float], back: list[int], queue: deque[int], queued: list[bool], a: int, b: int, cost: int
) -> None:
    if dist[a] + cost < dist[b]:
        dist[b] = dist[a] + cost
        back[b] = a
        if not queued[b]:
            queued[b] = True
            queue.append(b)


# -- table sizes ------------------------------------------------------------


def drawn_table_sizes(n: int) -> list[int]:
    """Rounds 1 and 2: tables of four, plus one or two tables of two or three for the exact count.

    Two more than a multiple of four makes two tables of three rather than a
    duel (a duel only for two players); one more makes a three and a duel.
    """
    if n < 2:
        raise RoundError(f"{n} player(s) cannot make a table")
    if n == 2:
        return [2]
    small = {0: [], 3: [3], 2: [3, 3], 1: [3, 2]}[n % 4]
    return [4] * ((n - sum(small)) // 4) + small


def standings_table_sizes(n: int) -> list[int]:
    """Rounds seated by the standings (best tables first).

    Multiple of four → fours; multiple of three → threes; odd → the three
    lowest at a table of three and the rest by the same rules; what is left
    (2 more than a multiple of four) → fours and two tables of three, or a duel
    for two players.
    """
    if n < 2:
        raise RoundError(f"{n} player(s) cannot make a table")
    if n % 4 == 0:
        return [4] * (n // 4)
    if n % 3 == 0:
        return [3] * (n // 3)
    if n % 2 == 1:
        return standings_table_sizes(n - 3) + [3]
    if n == 2:
        return [2]
    return [4] * ((n - 6) // 4) + [3, 3]
