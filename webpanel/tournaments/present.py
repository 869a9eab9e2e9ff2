"""Tournament data shaped for pages, the JSON API and CSV exports (no Flask here)."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from games.hautetension.tournament import Lighting, Phase, Status, Table, Tournament, TournamentEvent
from games.hautetension.tournament_points import ResultError
from store.tournaments import AuditEntry, TournamentInfo

STATUS_LABELS = {
    Status.IN: "in contention",
    Status.OUT: "out",
    Status.WITHDRAWN: "withdrawn",
    Status.FINALIST: "finalist",
    Status.WINNER: "winner",
}
PHASE_LABELS = {Phase.DRAWN: "drawn", Phase.STANDINGS: "seated by the standings", Phase.FINAL: "final"}


def table_view(t: Tournament, round_number: int, table: Table) -> dict[str, Any]:
    result = t.result(round_number, table.number)
    return {
        "number": table.number,
        "seats": [
            {
                "seat": index + 1,
                "player": player,
                "name": t.names[player],
                "lamp": table.lamps[index],
                "starts": index == table.first,
                "handicap": table.handicap.get(table.lamps[index], 0),
                "points": None if result is None else result.points[index],
                "withdrawn": player in t.withdrawn,
            }
            for index, player in enumerate(table.seats)
        ],
        "first": table.first + 1,
        "handicap": dict(table.handicap),
        "handicap_note": handicap_note(t, table),
        "result": None
        if result is None
        else {
            "points": list(result.points),
            "source": dict(result.source),
            "lamp_order": describe_lightings(t, table, result.lightings),
        },
    }


def handicap_note(t: Tournament, table: Table) -> str | None:
    """Who carries the table's handicap pawns and why, as the pairing sheet says it (None: no handicap)."""
    carriers = table.carriers()
    if not carriers:
        return None
    pawns = table.handicap[table.lamps[table.seat_of(carriers[0])]]
    who = " and ".join(f"{t.names[p]} (lamp {table.lamps[table.seat_of(p)]})" for p in carriers)
    carry = "carries" if len(carriers) == 1 else "each carry"
    plural = "s" if pawns > 1 else ""
    text = f"Handicap: {who} {carry} {pawns} attack pawn{plural} on their lamp's direct rows"
    if not table.handicap_over:
        return text + "."  # a round made before the reason was kept
    best = "the best player at this table" if len(carriers) == 1 else "level at the top of this table"
    over = " and ".join(t.names[p] for p in table.handicap_over)
    step = t.handicap_step
    return (
        f"{text}: {best}, {table.handicap_lead} point{'s' if table.handicap_lead > 1 else ''} ahead of"
        f" {over}, the next-best (1 pawn for a lead of 1–{step} points, 2 for {step + 1}–{2 * step},"
        " 3 beyond)."
    )


def describe_lightings(t: Tournament, table: Table, lightings: Sequence[Lighting] | None) -> list[str]:
    if lightings is None:
        return []
    lines = []
    for number, lighting in enumerate(lightings, start=1):
        names = " and ".join(t.names[table.seats[s]] for s in lighting.seats)
        line = f"{number}. {names}"
        if lighting.by is not None and len(lighting.seats) > 1:
            line += f" (pawn placed by {t.names[table.seats[lighting.by]]})"
        lines.append(line)
    return lines


def round_view(t: Tournament, number: int) -> dict[str, Any]:
    made = t.round(number)
    return {
        "number": made.number,
        "phase": made.phase,
        "phase_label": PHASE_LABELS[made.phase],
        "complete": t.is_round_complete(made.number),
        "tables": [table_view(t, made.number, table) for table in made.tables],
        "eliminated": [t.names[p] for p in made.eliminated],
        "spared": [t.names[p] for p in made.spared],
    }


def standings_view(t: Tournament) -> list[dict[str, Any]]:
    return [
        {
            "place": s.place,
            "player": s.player,
            "name": s.name,
            "points": s.points,
            "status": s.status,
            "status_label": STATUS_LABELS[s.status],
            "out_in_round": s.out_in_round,
            "out_at_table": s.out_at_table,
            "note": s.note,
            "games": [
                {"round": g.round, "table": g.table, "seat": g.seat + 1, "points": g.points} for g in s.games
            ],
            "lot": round(s.lot, 6),
        }
        for s in t.standings()
    ]


def tournament_view(info: TournamentInfo, t: Tournament) -> dict[str, Any]:
    winner = t.winner()
    return {
        "id": info.id,
        "name": info.name,
        "created_at": info.created_at,
        "settings": dict(info.settings),
        "players": len(t.names),
        "rounds": len(t.rounds),
        "phase": t.phase(),
        "over": t.is_over(),
        "winner": None if winner is None else {"player": winner, "name": t.names[winner]},
        "in_contention": [t.names[p] for p in t.in_contention()],
        "pending_tables": [table.number for table in t.pending_tables()],
    }


def lightings_from_form(form: Mapping[str, str], n_seats: int) -> list[Lighting]:
    """The tablet form: for each seat, the number of the lighting its lamp lit in (blank: never);
    seats with the same number lit together; ``by<number>`` names the seat that placed that pawn."""
    order: dict[int, list[int]] = {}
    for seat in range(n_seats):
        value = (form.get(f"lit{seat}") or "").strip()
        if not value:
            continue
        if not value.isdigit() or not 1 <= int(value) <= 4:
            raise ResultError(f"seat {seat + 1}: the lighting number is 1 to 4, not {value!r}")
        order.setdefault(int(value), []).append(seat)
    lightings = []
    for number in sorted(order):
        by = (form.get(f"by{number}") or "").strip()
        if by and (not by.isdigit() or not 1 <= int(by) <= n_seats):
            raise ResultError(f"lighting {number}: the placer is a seat from 1 to {n_seats}")
        lightings.append(Lighting(seats=tuple(order[number]), by=int(by) - 1 if by else None))
    return lightings


def audit_view(t: Tournament, entries: Sequence[AuditEntry]) -> list[dict[str, Any]]:
    return [
        {
            "id": e.id,
            "at": e.at,
            "actor": e.actor,
            "kind": e.kind,
            "summary": summarize(t, e.event),
            "undone_at": e.undone_at,
            "undone_by": e.undone_by,
        }
        for e in entries
    ]


def summarize(t: Tournament, event: TournamentEvent) -> str:
    if event["kind"] == "register":
        return f"registered {event['name']}"
    if event["kind"] == "withdraw":
        return f"{t.names.get(event['player'], '?')} withdrew"
    if event["kind"] == "round":
        data = event["data"]
        return f"round {data['round']} made ({len(data['tables'])} tables)"
    text = f"round {event['round']} table {event['table']}: {event['result']['points']}"
    source = event["result"].get("source", {})
    if source.get("kind") == "board":
        text += f" from board game {source.get('game_id')}"
    if event.get("correction"):
        previous = event.get("previous")
        text += f" (correction; was {None if previous is None else previous['points']})"
    return text


def standings_csv(t: Tournament) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    rounds = len(t.rounds)
    writer.writerow(
        [
            "place",
            "player",
            "name",
            "points",
            "status",
            "out_in_round",
            "out_at_table",
            "note",
            *[f"round_{r}" for r in range(1, rounds + 1)],
        ]
    )
    for s in t.standings():
        by_round = {g.round: g.points for g in s.games}
        writer.writerow(
            [
                s.place,
                s.player,
                _safe(s.name),
                s.points,
                s.status,
                s.out_in_round or "",
                s.out_at_table or "",
                _safe(s.note),
                *["" if by_round.get(r) is None else by_round[r] for r in range(1, rounds + 1)],
            ]
        )
    return out.getvalue()


def games_csv(t: Tournament) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "round",
            "phase",
            "table",
            "seat",
            "player",
            "name",
            "lamp",
            "starts",
            "handicap",
            "points",
            "source",
            "board_game",
        ]
    )
    for made in t.rounds:
        for table in made.tables:
            result = t.result(made.number, table.number)
            for index, player in enumerate(table.seats):
                writer.writerow(
                    [
                        made.number,
                        made.phase,
                        table.number,
                        index + 1,
                        player,
                        _safe(t.names[player]),
                        table.lamps[index],
                        "yes" if index == table.first else "",
                        table.handicap.get(table.lamps[index], 0),
                        "" if result is None else result.points[index],
                        "" if result is None else result.source.get("kind", ""),
                        "" if result is None else result.source.get("game_id", ""),
                    ]
                )
    return out.getvalue()


def _safe(text: str) -> str:
    """A cell a spreadsheet will not run as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
