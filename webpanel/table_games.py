"""A tournament's table played as a digital game: what the event server asks of the lobby.

The lobby keeps the digital games (``webpanel/lobby/``): their store and its
caps on open games, the computers that play them, the turn timers, and the
watch that enters a table's points into the tournament when its game ends.
The event server's online rounds (``webpanel/event/online.py``) make the games
of a round's tables, give the seats nobody took to a computer and list each
seat's link: they ask the lobby through :class:`TableGames`, which the lobby
provides when the app is made (its ``init_app``), rather than importing it. An
area imports the panel's core, never another area (docs/architecture.md).
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import Flask, current_app

from store.games import GameRecord

EXTENSION = "table_games"


class TableGames(Protocol):
    """The digital games of a tournament's tables; each refusal is an :class:`~webpanel.errors.ApiError`
    that says why."""

    def create(self, tid: int, number: int, table: int, options: dict[str, Any]) -> tuple[GameRecord, str]:
        """Create the game of round *number*'s *table*, its seats the table's players (with the staff's
        *options*: ``turn_timer``…): the game's record and its host token (this device hosts it)."""
        ...

    def give_to_computer(self, record: GameRecord, level: Any, seats: list[int] | None) -> GameRecord:
        """Let the computer (*level*) play *seats* (None: every seat nobody took): the game as it is then."""
        ...

    def seat_link(self, code: str) -> dict[str, str]:
        """A seat's way in: its join code, the whole address to send the player, and its QR code."""
        ...


def provide(app: Flask, games: TableGames) -> None:
    app.extensions[EXTENSION] = games


def table_games() -> TableGames:
    """The tables' games of this app (the lobby's)."""
    value: TableGames = current_app.extensions[EXTENSION]
    return value
