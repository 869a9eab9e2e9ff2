"""Tournament data shaped for pages, the JSON API and CSV exports.

The texts are in the page's language (:mod:`webpanel.tournament_words`); the
JSON API builds them in English (``flask_babel.force_locale("en")``), and the
``hautetension tournament`` command, outside any request, gets English too.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from games.hautetension.outcome import Lighting
from store.tournaments import AuditEntry, TournamentInfo
from tournaments.exc import ResultError, TournamentError
from tournaments.model import Standing, Status, Table, TournamentEvent
from tournaments.tournament import Tournament
from webpanel import tournament_words as words
from webpanel.spreadsheet import safe_cell
from webpanel.tournament_words import _, ngettext
from webpanel.tournaments import chart


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
    who = words.names(
        _("%(name)s (lamp %(lamp)s)", name=t.names[p], lamp=table.lamps[table.seat_of(p)]) for p in carriers
    )
    one = len(carriers) == 1
    if not table.handicap_over:  # a round made before the reason was kept
        if one:
            return ngettext(
                "Handicap: %(who)s carries %(num)d attack pawn on their lamp’s direct rows.",
                "Handicap: %(who)s carries %(num)d attack pawns on their lamp’s direct rows.",
                pawns,
                who=who,
            )
        return ngettext(
            "Handicap: %(who)s each carry %(num)d attack pawn on their lamp’s direct rows.",
            "Handicap: %(who)s each carry %(num)d attack pawns on their lamp’s direct rows.",
            pawns,
            who=who,
        )
    step = t.handicap_step
    why = {
        "who": who,
        "lead": words.points(table.handicap_lead),
        "over": words.names(t.names[p] for p in table.handicap_over),
        "rule": _(
            "1 pawn for a lead of 1 to %(step)d points, 2 for %(next)d to %(double)d, 3 beyond",
            step=step,
            next=step + 1,
            double=2 * step,
        ),
    }
    if one:
        return ngettext(
            "Handicap: %(who)s carries %(num)d attack pawn on their lamp’s direct rows: the best player at"
            " this table, %(lead)s ahead of %(over)s, the next best (%(rule)s).",
            "Handicap: %(who)s carries %(num)d attack pawns on their lamp’s direct rows: the best player at"
            " this table, %(lead)s ahead of %(over)s, the next best (%(rule)s).",
            pawns,
            **why,
        )
    return ngettext(
        "Handicap: %(who)s each carry %(num)d attack pawn on their lamp’s direct rows: level at the top of"
        " this table, %(lead)s ahead of %(over)s, the next best (%(rule)s).",
        "Handicap: %(who)s each carry %(num)d attack pawns on their lamp’s direct rows: level at the top of"
        " this table, %(lead)s ahead of %(over)s, the next best (%(rule)s).",
        pawns,
        **why,
    )


def describe_lightings(t: Tournament, table: Table, lightings: Sequence[Lighting] | None) -> list[str]:
    """The lamp order of a result, one line per lighting: "1st lamp lit: Ada"."""
    if lightings is None:
        return []
    lines = []
    for number, lighting in enumerate(lightings, start=1):
        who = words.names(t.names[table.seats[s]] for s in lighting.seats)
        if lighting.by is not None and len(lighting.seats) > 1:
            lines.append(
                _(
                    "%(lamp)s: %(names)s together (pawn placed by %(by)s)",
                    lamp=words.lamp_lit(number),
                    names=who,
                    by=t.names[table.seats[lighting.by]],
                )
            )
        else:
            lines.append(_("%(lamp)s: %(names)s", lamp=words.lamp_lit(number), names=who))
    return lines


def round_view(t: Tournament, number: int) -> dict[str, Any]:
    made = t.round(number)
    return {
        "number": made.number,
        "phase": made.phase,
        "phase_label": str(words.PHASE[made.phase]),
        "complete": t.is_round_complete(made.number),
        "tables": [table_view(t, made.number, table) for table in made.tables],
        "eliminated": [t.names[p] for p in made.eliminated],
        "spared": [t.names[p] for p in made.spared],
    }


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
        "handicap_step": t.handicap_step,
    }


def lightings_from_form(form: Mapping[str, str], n_seats: int) -> list[Lighting]:
    """The tablet form: for each seat, which lamp lit theirs (``lit<seat>``: 1 for the 1st lamp lit,
    2 for the 2nd, …; blank: never lit); seats with the same number lit together, and ``by<number>``
    names the seat (1, 2, …) that placed that pawn, asked only then."""
    order: dict[int, list[int]] = {}
    for seat in range(n_seats):
        value = (form.get(f"lit{seat}") or "").strip()
        if not value:
            continue
        if not value.isdigit() or not 1 <= int(value) <= 4:
            raise ResultError(
                f"seat {seat + 1}: the lighting number is 1 to 4, not {value!r}", code="lamp_order_unreadable"
            )
        order.setdefault(int(value), []).append(seat)
    lightings = []
    for number in sorted(order):
        seats = tuple(order[number])
        by = (form.get(f"by{number}") or "").strip() if len(seats) > 1 else ""
        if by and (not by.isdigit() or not 1 <= int(by) <= n_seats):
            raise ResultError(
                f"lighting {number}: the placer is a seat from 1 to {n_seats}", code="lamp_order_unreadable"
            )
        lightings.append(Lighting(seats=seats, by=int(by) - 1 if by else None))
    return lightings


def lit_together(form: Mapping[str, str], n_seats: int) -> dict[int, list[int]]:
    """The form's lamps that lit together: lighting number → its seats (two or more)."""
    groups: dict[int, list[int]] = {}
    for seat in range(n_seats):
        value = (form.get(f"lit{seat}") or "").strip()
        if value.isdigit():
            groups.setdefault(int(value), []).append(seat)
    return {number: seats for number, seats in groups.items() if len(seats) > 1}


def points_chart(t: Tournament, standings: Sequence[Standing] | None = None) -> chart.PointsChart:
    """Each player's total after every round whose result is in for them, in standings order."""
    lines = []
    for s in t.standings() if standings is None else standings:
        totals: list[int] = []
        for game in s.games:
            if game.points is None or game.round != len(totals) + 1:
                break
            totals.append((totals[-1] if totals else 0) + game.points)
        ending, after = None, None
        if s.status == Status.OUT and s.out_in_round is not None:
            ending, after = chart.Ending.OUT, min(s.out_in_round, len(totals))
        elif s.status == Status.WITHDRAWN:
            ending, after = chart.Ending.WITHDREW, len(totals)
        lines.append(
            chart.Line(name=s.name, place=s.place, totals=tuple(totals), ending=ending, ended_after=after)
        )
    return chart.PointsChart(rounds=len(t.rounds), lines=tuple(lines))


def audit_view(t: Tournament, entries: Sequence[AuditEntry]) -> list[dict[str, Any]]:
    return [
        {
            "id": e.id,
            "at": e.at,
            "actor": e.actor,
            "who": actor_text(e.actor),
            "kind": e.kind,
            "kind_label": str(words.ENTRY_KIND.get(e.kind, e.kind)),
            "summary": summarize(t, e.event),
            "undone_at": e.undone_at,
            "undone_by": e.undone_by,
            "undone_who": None if e.undone_by is None else actor_text(e.undone_by),
        }
        for e in entries
    ]


def actor_text(actor: str) -> str:
    """Who made an entry: "staff@192.168.1.20" is the staff at that address."""
    if actor.startswith("staff@"):
        return _("staff at %(address)s", address=actor.removeprefix("staff@"))
    return actor


def summarize(t: Tournament, event: TournamentEvent) -> str:
    """One entry of the audit trail in words."""
    if event["kind"] == "register":
        return _("Registered %(name)s", name=event["name"])
    if event["kind"] == "withdraw":
        return _("%(name)s withdrew", name=t.names.get(event["player"], "?"))
    if event["kind"] == "round":
        data = event["data"]
        return ngettext(
            "Round %(round)d made (%(num)d table)",
            "Round %(round)d made (%(num)d tables)",
            len(data["tables"]),
            round=data["round"],
        )
    seats = _seats_of(t, event["round"], event["table"])
    facts = {
        "round": event["round"],
        "table": event["table"],
        "points": _table_points(t, seats, event["result"]["points"]),
    }
    text = _("Round %(round)d, table %(table)d: %(points)s", **facts)
    source = event["result"].get("source", {})
    if source.get("kind") == "board":
        text = _("%(entry)s, from board game %(game)s", entry=text, game=source.get("game_id"))
    if event.get("correction"):
        previous = event.get("previous")
        was = _("nothing") if previous is None else _table_points(t, seats, previous["points"])
        text = _("%(entry)s (correction; was %(was)s)", entry=text, was=was)
    return text


def _seats_of(t: Tournament, round_number: int, table_number: int) -> tuple[int, ...]:
    try:
        return t.round(round_number).table(table_number).seats
    except TournamentError:  # an entry undone with its round: the points alone
        return ()


def _table_points(t: Tournament, seats: Sequence[int], values: Sequence[int]) -> str:
    if len(seats) != len(values):
        return ", ".join(str(v) for v in values)
    return ", ".join(
        _("%(name)s %(points)d", name=t.names.get(p, "?"), points=v)
        for p, v in zip(seats, values, strict=True)
    )


def standings_csv(t: Tournament) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    rounds = len(t.rounds)
    writer.writerow(
        [
            _("Place"),
            _("Player number"),
            _("Name"),
            _("Points"),
            _("Status"),
            _("Out in round"),
            _("At table"),
            _("Why"),
            *[_("Round %(round)d", round=r) for r in range(1, rounds + 1)],
        ]
    )
    for s in t.standings():
        by_round = {g.round: g.points for g in s.games}
        writer.writerow(
            [
                s.place,
                s.player,
                safe_cell(s.name),
                s.points,
                words.STATUS[s.status],
                s.out_in_round or "",
                s.out_at_table or "",
                " ".join(words.standing_notes(s, long=True)),
                *["" if by_round.get(r) is None else by_round[r] for r in range(1, rounds + 1)],
            ]
        )
    return out.getvalue()


def games_csv(t: Tournament) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            _("Round"),
            _("Phase"),
            _("Table"),
            _("Seat"),
            _("Player number"),
            _("Name"),
            _("Lamp"),
            _("Starts"),
            _("Handicap pawns"),
            _("Points"),
            _("Entered from"),
            _("Board game"),
        ]
    )
    for made in t.rounds:
        for table in made.tables:
            result = t.result(made.number, table.number)
            for index, player in enumerate(table.seats):
                source = "" if result is None else str(result.source.get("kind", ""))
                writer.writerow(
                    [
                        made.number,
                        words.PHASE[made.phase],
                        table.number,
                        index + 1,
                        player,
                        safe_cell(t.names[player]),
                        table.lamps[index],
                        _("yes") if index == table.first else "",
                        table.handicap.get(table.lamps[index], 0),
                        "" if result is None else result.points[index],
                        words.SOURCE.get(source, source),
                        "" if result is None else result.source.get("game_id", ""),
                    ]
                )
    return out.getvalue()
