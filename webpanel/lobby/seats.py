"""Who is asking: the seat token and host token a request carries.

A device that joins a seat gets the seat's token in an HttpOnly cookie (and
in the answer, for API clients, which send it back in ``X-Seat-Token``); the
device that creates a game gets the host token the same way (cookie, or
``X-Host-Token``). Tokens never leave the device that received them: pages
cannot read the cookies, and the database keeps only their hashes.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Response, current_app, request

from store.games import GameRecord
from webpanel.auth import AttemptLimiter
from webpanel.errors import ApiError

SEAT_HEADER = "X-Seat-Token"
HOST_HEADER = "X-Host-Token"
COOKIE_DAYS = 2
GUESSES_PER_MINUTE = 10
"""Wrong join codes and tokens a client may send per minute before it must wait."""


def guesses() -> AttemptLimiter:
    value: AttemptLimiter = current_app.extensions["lobby_guesses"]
    return value


def client_address() -> str:
    """The device asking, as far as the panel can tell (the front server's X-Forwarded-For on a Pi)."""
    return request.remote_addr or "unknown"


def check_guessing() -> None:
    """Refuse a client that sent too many wrong codes or tokens lately (they are guessing)."""
    wait = guesses().retry_after(client_address())
    if wait:
        raise ApiError(429, f"too many wrong join codes or tokens: try again in {wait} s",
                       code="too_many_wrong_codes", headers={"Retry-After": str(wait)})


def wrong_guess() -> None:
    guesses().failed(client_address())


def seat_cookie(game_id: int) -> str:
    return f"hts_seat_{game_id}"


def host_cookie(game_id: int) -> str:
    return f"hts_host_{game_id}"


@dataclass(frozen=True)
class Caller:
    """The requester's rights in one game."""

    seat: int | None
    host: bool
    seat_token: str | None

    def acts_for(self, record: GameRecord, to_act: int | None) -> bool:
        """Whether this caller may push the move of seat ``to_act`` now."""
        if to_act is None or not 0 <= to_act < len(record.seats) or record.seats[to_act].is_ai:
            return False
        if self.seat is not None:
            return self.seat == to_act
        return record.hot_seat and self.host

    def view_seat(self, record: GameRecord, to_act: int | None) -> int | None:
        """The seat whose view this caller sees (None: a spectator's)."""
        if self.seat is not None:
            return self.seat
        if record.hot_seat and self.host and self.acts_for(record, to_act):
            return to_act  # hot seat: the display shows whoever is to play
        return None


def identify(record: GameRecord) -> Caller:
    """The caller's seat and host rights; a token sent in a header that is not this game's is refused.

    The record holds its version's token hashes (a join makes a new version): no query.
    """
    header_seat = request.headers.get(SEAT_HEADER)
    header_host = request.headers.get(HOST_HEADER)
    if header_seat is not None or header_host is not None:
        check_guessing()
    seat: int | None = None
    if header_seat is not None:
        seat = record.seat_of(header_seat)
        if seat is None:
            wrong_guess()
            raise ApiError(403, "this seat token does not belong to this game", code="wrong_token")
        seat_token: str | None = header_seat
    else:
        # A cookie left from an old game (or a wiped database) simply makes a spectator.
        seat_token = request.cookies.get(seat_cookie(record.id))
        seat = record.seat_of(seat_token)
        if seat is None:
            seat_token = None
    if header_host is not None:
        if not record.is_host(header_host):
            wrong_guess()
            raise ApiError(403, "this host token does not belong to this game", code="wrong_token")
        host = True
    else:
        host = record.is_host(request.cookies.get(host_cookie(record.id)))
    return Caller(seat=seat, host=host, seat_token=seat_token)


def set_token_cookie(response: Response, name: str, token: str) -> None:
    response.set_cookie(
        name, token, max_age=COOKIE_DAYS * 86400, path="/", httponly=True, samesite="Strict",
        secure=bool(current_app.config["PANEL"].secure_cookies),
    )
