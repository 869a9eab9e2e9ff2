"""How the lobby's pages name the games, their computer players and their colours, in the page's
language.

The engines name their computer levels by the algorithm (``random``, ``greedy``, ``mcts``…); a
player chooses by strength, so each level has a plain name (easy, medium, strong, expert, perfect)
and the algorithm is said in a tooltip. The API keeps the engine's level names: only the pages use
these words. A game that is not listed here shows its registered names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask_babel import lazy_gettext, lazy_pgettext
from flask_babel.speaklater import LazyString
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

TITLES: dict[str, LazyString] = {
    "qttt": lazy_gettext("Quantum tic-tac-toe"),
    "hypnosia": lazy_gettext("Hypnosia"),
    "hop": lazy_gettext("|Hop>"),
    "hautetension": lazy_gettext("Haute-Tension"),
}
"""How players call the games (a game not listed shows its registered name)."""

RULES = ("hautetension", "qttt", "hypnosia", "hop")
"""The games with a rules page (webpanel/lobby/rules.py), in the order the lobby lists them."""

STRENGTHS: dict[str, LazyString] = {
    "easy": lazy_pgettext("computer level", "easy"),
    "medium": lazy_pgettext("computer level", "medium"),
    "strong": lazy_pgettext("computer level", "strong"),
    "expert": lazy_pgettext("computer level", "expert"),
    "perfect": lazy_pgettext("computer level", "perfect"),
}
"""The computer levels as a player reads them, weakest first."""


@dataclass(frozen=True)
class Level:
    """A computer level as the pages show it: how strong it plays, and how it chooses."""

    strength: str
    algorithm: LazyString


RANDOM = lazy_gettext("Plays any legal move at random.")

LEVELS: dict[str, dict[str, Level]] = {
    "qttt": {
        "random": Level("easy", RANDOM),
        "heuristic": Level("medium", lazy_gettext(
            "A short search: takes a sure win, avoids giving one away, otherwise builds its own lines.")),
        "perfect": Level("perfect", lazy_gettext(
            "A complete search of the game (an opening book, then the solver): it never lets a won game "
            "slip.")),
    },
    "hypnosia": {
        "random": Level("easy", RANDOM),
        "greedy": Level("medium", lazy_gettext(
            "Tries every way to play both dice and keeps the position it likes best.")),
        "expectimax": Level("strong", lazy_gettext(
            "Expectimax: weighs the next player's 21 possible rolls and best reply; thinks up to a "
            "second.")),
    },
    "hop": {
        "random": Level("easy", RANDOM),
        "greedy": Level("medium", lazy_gettext(
            "Looks one action ahead: wins when it can, else the best-looking action; blocks what would "
            "help its opponent most.")),
        "mcts": Level("strong", lazy_gettext(
            "Monte Carlo tree search over blocks and movements: 300 positions a decision (1,000 with four "
            "players), up to a second.")),
        "expert": Level("expert", lazy_gettext(
            "The same tree search, with 1,000 positions a decision (up to a second).")),
    },
    "hautetension": {
        "random": Level("easy", lazy_gettext("Places any of its pawns on any free slot at random.")),
        "heuristic": Level("medium", lazy_gettext(
            "Rules of thumb, one pawn ahead: builds rows towards its opponents' lamps, guards its own, "
            "reads their bluffs.")),
        "ismcts": Level("strong", lazy_gettext(
            "Information-set Monte Carlo search: imagines the pawns it cannot see, plays out games, "
            "thinks up to a second.")),
    },
}
"""Each game's computer levels (the engine's names) as the pages present them."""

COLOURS: dict[str, LazyString] = {
    "red": lazy_pgettext("colour", "red"),
    "yellow": lazy_pgettext("colour", "yellow"),
    "green": lazy_pgettext("colour", "green"),
    "blue": lazy_pgettext("colour", "blue"),
    "purple": lazy_pgettext("colour", "purple"),
    "white": lazy_pgettext("colour", "white"),
    "black": lazy_pgettext("colour", "black"),
}
"""The pieces' colours by the names the engines give them (Hypnosia's pawns, |Hop>'s electrons)."""


HOP_TITLES: dict[str, LazyString] = {
    "hop": lazy_pgettext("hop action", "Hop"),
    "doublon": lazy_pgettext("hop action", "Doublon"),
    "spin-flip": lazy_pgettext("hop action", "Spin flip"),
    "cradle": lazy_pgettext("hop action", "Cradle"),
    "tunnel": lazy_pgettext("hop action", "Tunnel"),
    "thesis-defense": lazy_pgettext("hop action", "Thesis defense"),
    "vortex": lazy_pgettext("hop effect", "Vortex"),
    "microwave-cavity": lazy_pgettext("hop effect", "Microwave cavity"),
    "resistance": lazy_pgettext("hop effect", "Resistance"),
    "heat-source": lazy_pgettext("hop effect", "Heat source"),
    "impurity-vacancy": lazy_pgettext("hop effect", "Impurity / vacancy"),
    "ionization": lazy_pgettext("hop effect", "Ionization"),
    "mobility-edge": lazy_pgettext("hop effect", "Mobility edge"),
    "quantum-tunnel": lazy_pgettext("hop effect", "Quantum tunnel"),
    "diffusion": lazy_pgettext("hop effect", "Diffusion"),
    "superposition": lazy_pgettext("hop effect", "Superposition"),
    "penning-trap": lazy_pgettext("hop effect", "Penning trap"),
    "dead-short": lazy_pgettext("hop effect", "Dead short"),
    "long-range-hopping": lazy_pgettext("hop effect", "Long-range hopping"),
    "zero-point-energy": lazy_pgettext("hop effect", "Zero-point energy"),
}
"""|Hop>'s movement actions and effect cards by the engine's names, in the words of the rules
(the English ones are the engine's titles, which the view also sends)."""


def default_seat_name(kind: str, level: str | None, number: int) -> str:
    """The API's name for a seat created without one; pages show it in their language (the seat's
    ``default_name``)."""
    return f"Computer ({level})" if kind == "ai" else f"Player {number + 1}"


def seat_name(game: str, kind: str, level: str | None, number: int, name: str) -> str:
    """What a page calls a seat: its name, or the default name in the page's language."""
    if name != default_seat_name(kind, level, number):
        return name
    if kind == "ai":
        return str(lazy_gettext("Computer (%(level)s)", level=level_name(game, level or "")))
    return str(lazy_gettext("Player %(num)d", num=number + 1))


def title(game: str) -> str:
    """What players call *game*."""
    return str(TITLES.get(game, game))


def level_name(game: str, level: str) -> str:
    """The computer level *level* of *game* as a player reads it (the engine's name when unknown)."""
    found = LEVELS.get(game, {}).get(level)
    return str(STRENGTHS[found.strength]) if found else level


def level_algorithm(game: str, level: str) -> str:
    found = LEVELS.get(game, {}).get(level)
    return str(found.algorithm) if found else level


def page_names(games: dict[str, Any]) -> dict[str, Any]:
    """The names the lobby's scripts show, in the current language: each game's title and its
    computer levels (``levels[game][level] = {"name", "algorithm"}``), the colours and |Hop>'s
    actions and effect cards."""
    return {
        "titles": {game: title(game) for game in games},
        "levels": {
            game: {level: {"name": level_name(game, level), "algorithm": level_algorithm(game, level)}
                   for level in levels}
            for game, levels in games.items()
        },
        "colours": {name: str(text) for name, text in COLOURS.items()},
        "hop": {name: str(text) for name, text in HOP_TITLES.items()},
    }


def names_json(games: dict[str, Any]) -> Markup:
    """:func:`page_names` for a ``<script type="application/json">`` block (never run: the CSP
    allows it); ``<``, ``>``, ``&`` and ``'`` are escaped so no text can close the block."""
    return htmlsafe_json_dumps(page_names(games), sort_keys=True)
