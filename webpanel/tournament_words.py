"""What the panel says of a tournament, in the page's language (Flask-Babel).

The tournament pages speak these words, and so do the areas that show a
tournament's standings (the event server's pages: :mod:`webpanel.standings`)
or refuse a tournament's entry (:mod:`webpanel.refusals`).

Everything here is built from the tournament's facts (statuses, rounds,
tables, the error ``code`` and ``details`` of the engine's errors), never by
translating the engine's English sentences. Outside a request (the
``hautetension tournament`` command) the texts are the English source.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import flask_babel
from babel.lists import format_list
from flask_babel import get_locale, lazy_gettext, lazy_pgettext
from flask_babel.speaklater import LazyString
from markupsafe import Markup

from tournaments.model import Phase, Standing, Status
from webpanel import french, i18n


def _(text: str, **variables: object) -> str:
    """Flask-Babel's ``gettext``, typed: the text in the page's language (« de » elided before a name
    that asks for it, in French: :func:`webpanel.french.fill`)."""
    translated = str(flask_babel.gettext(text))  # without values: not formatted yet
    return _filled(translated, variables) if variables else translated


def ngettext(singular: str, plural: str, num: int, **variables: object) -> str:
    """Flask-Babel's ``ngettext``, typed (``%(num)d`` is *num*)."""
    form = str(flask_babel.get_translations().ungettext(singular, plural, num))
    return _filled(form, {"num": num, **variables})


def _filled(translated: str, variables: Mapping[str, object]) -> str:
    if str(get_locale() or "").startswith("fr"):
        return french.fill(translated, variables)
    return translated % variables


STATUS = {
    Status.IN: lazy_gettext("in contention"),
    Status.OUT: lazy_pgettext("tournament", "out"),
    Status.WITHDRAWN: lazy_gettext("withdrawn"),
    Status.FINALIST: lazy_gettext("finalist"),
    Status.WINNER: lazy_gettext("winner"),
}
PHASE = {
    Phase.DRAWN: lazy_gettext("drawn by lot"),
    Phase.STANDINGS: lazy_gettext("seated by the standings"),
    Phase.FINAL: lazy_gettext("final"),
}
ENTRY_KIND = {
    "register": lazy_gettext("registration"),
    "withdraw": lazy_gettext("withdrawal"),
    "round": lazy_gettext("round"),
    "result": lazy_gettext("result"),
    "correction": lazy_gettext("correction"),
}
LAMP_LIT = (
    lazy_gettext("1st lamp lit"),
    lazy_gettext("2nd lamp lit"),
    lazy_gettext("3rd lamp lit"),
)
"""The choices of the result form, in the players' words: a table of n players has n - 1 of them
(the game ends when one player is left)."""
SOURCE = {
    "tablet": lazy_gettext("tablet"),
    "board": lazy_gettext("board"),
    "digital": lazy_gettext("digital"),
}


def names(items: Iterable[str]) -> str:
    """Names joined as the page's language does: « Ada, Bob et Cid », "Ada, Bob and Cid"."""
    listed = list(items)
    return format_list(listed, locale=str(get_locale() or "en")) if listed else ""


def lamp_lit(number: int) -> str:
    """ "1st lamp lit" for the first lighting of a game, and so on."""
    return str(LAMP_LIT[number - 1]) if 1 <= number <= len(LAMP_LIT) else str(number)


def points(n: int) -> str:
    return ngettext("%(num)d point", "%(num)d points", n)


def players(n: int) -> str:
    return ngettext("%(num)d player", "%(num)d players", n)


# -- why a player is out, withdrawn or kept in --------------------------------------------------


def standing_notes(s: Standing, *, long: bool = False) -> list[str]:
    """The standings' reasons for a player, one sentence each (none for a player simply in).

    *long* explains the rule behind a player kept in (the player's own page)."""
    notes = []
    if s.out_in_round is not None and s.out_at_table is not None:
        if s.out_as_stood:
            notes.append(
                _(
                    "Out in round %(round)d: lamp lit first at table %(table)d, as the result stood"
                    " when round %(next)d was made.",
                    round=s.out_in_round,
                    table=s.out_at_table,
                    next=s.out_in_round + 1,
                )
            )
        else:
            notes.append(
                _(
                    "Out in round %(round)d: lamp lit first at table %(table)d.",
                    round=s.out_in_round,
                    table=s.out_at_table,
                )
            )
    if s.spared_in_round is not None and s.spared_at_table is not None:
        facts = {"round": s.spared_in_round, "table": s.spared_at_table}
        if long:
            notes.append(
                _(
                    "Lamp lit first at table %(table)d in round %(round)d, but kept in: putting out every"
                    " first lamp of that round would leave fewer than four for the final, so the best"
                    " placed stay in.",
                    **facts,
                )
            )
        else:
            notes.append(
                _(
                    "Kept in: lamp lit first at table %(table)d in round %(round)d, but four must remain"
                    " for the final.",
                    **facts,
                )
            )
    if s.withdrew_in_round is not None:
        if s.withdrew_in_round:
            notes.append(_("Withdrew in round %(round)d.", round=s.withdrew_in_round))
        else:
            notes.append(_("Withdrew before round 1."))
    return notes


# -- errors --------------------------------------------------------------------------------------

ERRORS: dict[str, LazyString] = {
    "name_taken": lazy_gettext("A player called %(name)s is already registered."),
    "name_missing": lazy_gettext("A player needs a name."),
    "name_too_long": lazy_gettext(
        "A player’s name is at most %(maximum)d characters, as on the board: %(name)s is longer."
    ),
    "name_control": lazy_gettext("A player’s name cannot contain control characters."),
    "registration_closed": lazy_gettext("Registration is closed: round 1 has been made."),
    "already_withdrawn": lazy_gettext("%(name)s has already withdrawn."),
    "tournament_over": lazy_gettext("The tournament is over."),
    "too_few_left": lazy_gettext("Fewer than two players are left to play."),
    "has_result": lazy_gettext(
        "Round %(round)d, table %(table)d already has a result: tick “Replace the recorded result” to"
        " correct it."
    ),
    "no_result": lazy_gettext("Round %(round)d, table %(table)d has no result to correct yet."),
    "nothing_to_undo": lazy_gettext("Nothing to undo."),
    "tournament_name_missing": lazy_gettext("A tournament needs a name."),
    "tournament_name_too_long": lazy_gettext("A tournament’s name is at most %(maximum)d characters."),
    "handicap_step": lazy_gettext("The points of lead per handicap pawn are a whole number, 1 or more."),
    "board_game_unfinished": lazy_gettext("Board game %(game)d is not a finished game."),
    "board_game_used": lazy_gettext(
        "Board game %(game)d is already the result of round %(round)d, table %(table)d."
    ),
    "board_game_size": lazy_gettext("The board game had %(players)d players but this table seats %(seats)d."),
    "points_mismatch": lazy_gettext("The points do not match the lamp order."),
    "no_such_player": lazy_gettext("There is no player number %(player)d."),
    "lit_twice": lazy_gettext("A lamp lights only once: check the lamp order."),
    "board_game_missing": lazy_gettext("Choose a board game from the list."),
    "no_such_round": lazy_gettext("There is no round %(round)d."),
    "no_such_table": lazy_gettext("There is no table %(table)d in this round."),
    "game_over_before": lazy_gettext(
        "The game was over before the %(lamp)s: only one player was left. Check the lamp order."
    ),
}
"""What a page says for an engine or store error, by its ``code``; the placeholders are the
error's ``details``. Errors the pages never meet keep the engine's English sentence."""


def error_text(exc: BaseException, seat_names: Sequence[str] = ()) -> str | Markup:
    """What a page says for a refused entry: by the error's code in the page's language, or, for an
    error the pages have no words for, the English sentence marked as English.

    *seat_names* are the table's players by seat, for the errors of a lamp order."""
    code = getattr(exc, "code", None)
    details: Mapping[str, object] = getattr(exc, "details", {}) or {}
    text = _coded(code, details, seat_names) if code else None
    if text is not None:
        return text
    english = str(exc)
    english = english[:1].upper() + english[1:] if english else exc.__class__.__name__
    return Markup('<span lang="en">{}</span>').format(english)


def _coded(code: str, details: Mapping[str, object], seat_names: Sequence[str]) -> str | None:
    def seat(index: object) -> str:
        i = int(str(index))
        return seat_names[i] if 0 <= i < len(seat_names) else _("Seat %(num)d", num=i + 1)

    if code == "round_not_finished":
        tables = [str(t) for t in details.get("tables", [])]  # type: ignore[attr-defined]
        return ngettext(
            "Round %(round)d is not finished: table %(tables)s has no result yet.",
            "Round %(round)d is not finished: tables %(tables)s have no result yet.",
            len(tables),
            round=details["round"],
            tables=names(tables),
        )
    if code == "too_few_players":
        return ngettext(
            "A tournament needs at least %(minimum)d players: %(num)d is registered.",
            "A tournament needs at least %(minimum)d players: %(num)d are registered.",
            int(str(details["registered"])),
            minimum=details["minimum"],
        )
    if code == "absent_in_later_round":
        return _(
            "Round %(round)d seats every player still in contention: withdraw %(names)s or wait for them.",
            round=details["round"],
            names=names(str(n) for n in details.get("players", [])),  # type: ignore[attr-defined]
        )
    if code == "placer_missing":
        together = names(seat(s) for s in details.get("seats", []))  # type: ignore[attr-defined]
        return _("The lamps of %(names)s lit together: say who placed the pawn.", names=together)
    if code == "placer_out":
        return _(
            "%(name)s’s lamp had already lit, so %(name)s cannot have placed the pawn of the %(lamp)s.",
            name=seat(details["seat"]),
            lamp=lamp_lit(int(str(details["lighting"]))),
        )
    if code == "game_over_before":
        return str(ERRORS[code]) % {"lamp": lamp_lit(int(str(details["lighting"])))}
    message = ERRORS.get(code) or i18n.ERROR_TEXTS.get(code)
    if message is None:
        return None
    try:
        return str(message) % dict(details)
    except (KeyError, TypeError, ValueError):
        return None
