"""A registered player's name: the rule the board's game set-up imposes."""

from __future__ import annotations

from tournaments.exc import RegistrationError

MAX_NAME = 24
"""The longest player name the board's game set-up takes."""


def name_text(value: object) -> str:
    if not isinstance(value, str):
        raise RegistrationError("a player needs a name", code="name_missing")
    return value


def clean_name(name: object) -> str:
    """A player's name as the board takes it (spaces collapsed), or a RegistrationError saying why not."""
    if not isinstance(name, str) or not name.strip():
        raise RegistrationError("a player needs a name", code="name_missing")
    cleaned = " ".join(name.split())
    if len(cleaned) > MAX_NAME:
        raise RegistrationError(
            f"a player's name is at most {MAX_NAME} characters (as on the board)",
            code="name_too_long",
            maximum=MAX_NAME,
            name=cleaned,
        )
    if any(not ch.isprintable() for ch in cleaned):
        raise RegistrationError("a player's name must not contain control characters", code="name_control")
    return cleaned
