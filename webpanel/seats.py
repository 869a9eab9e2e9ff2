"""Who is asking a digital game: the seat token and host token a request carries.

A device that joins a seat gets the seat's token in an HttpOnly cookie (and
in the answer, for API clients, which send it back in ``X-Seat-Token``); the
device that creates a game gets the host token the same way (cookie, or
``X-Host-Token``). Tokens never leave the device that received them: pages
cannot read the cookies, and the database keeps only their hashes.

The lobby's games (``webpanel/lobby/``), their replays (``webpanel/replay/``)
and the event server's online rounds (``webpanel/event/online.py``, which
makes the games of a round's tables on the staff device that then hosts them)
all ask who a request is, or hand a device its token.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, Response, current_app, request

from store.games import GameRecord
from webpanel.errors import ApiError, define_code
from webpanel.guesses import Attempt, GuessLimiter, GuessPolicy, TooManyGuesses

SEAT_HEADER = "X-Seat-Token"
HOST_HEADER = "X-Host-Token"
COOKIE_DAYS = 2
GUESSES_AT_ONCE = 10
"""Wrong join codes and tokens an address may send before each must wait (1 s, 2 s, 4 s, … at most
a minute); its address block (/24, /64: the event's Wi-Fi) may send ten times as many, so that one
guesser does not slow the players down. A join code is one of 36**6: a guesser at this pace finds
none in years (docs/games-lobby.md)."""
GUESS_WINDOW = 3600.0
MAX_GUESS_DELAY = 60.0

WRONG_TOKEN = define_code("wrong_token", "The seat or host token sent is not this game's.")
TOO_MANY_WRONG_CODES = define_code(
    "too_many_wrong_codes",
    "Too many wrong join codes or tokens from this address: wait params.retry_after seconds.",
)


def make_guess_limiter() -> GuessLimiter:
    return GuessLimiter(
        address=GuessPolicy(free=GUESSES_AT_ONCE, window=GUESS_WINDOW, max_delay=MAX_GUESS_DELAY),
        block=GuessPolicy(free=10 * GUESSES_AT_ONCE, window=GUESS_WINDOW, max_delay=MAX_GUESS_DELAY),
    )


def init_app(app: Flask) -> None:
    app.extensions["seat_guesses"] = make_guess_limiter()


def guesses() -> GuessLimiter:
    value: GuessLimiter = current_app.extensions["seat_guesses"]
    return value


def client_address() -> str:
    """The device asking, as far as the panel can tell (the front server's X-Forwarded-For on a Pi)."""
    return request.remote_addr or "unknown"


def guess() -> Attempt:
    """Count a guess (a join code or a token) before it is checked, or refuse a client that must wait."""
    try:
        return guesses().attempt(client_address())
    except TooManyGuesses as exc:
        raise ApiError(429, f"too many wrong join codes or tokens: try again in {exc.retry_after} s",
                       code=TOO_MANY_WRONG_CODES, headers={"Retry-After": str(exc.retry_after)},
                       params={"retry_after": exc.retry_after}) from None


def right_guess(attempt: Attempt) -> None:
    guesses().forgive(attempt)


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
    attempt = guess() if header_seat is not None or header_host is not None else None
    seat: int | None = None
    if header_seat is not None:
        seat = record.seat_of(header_seat)
        if seat is None:
            raise ApiError(403, "this seat token does not belong to this game", code=WRONG_TOKEN)
        seat_token: str | None = header_seat
    else:
        # A cookie left from an old game (or a wiped database) simply makes a spectator.
        seat_token = request.cookies.get(seat_cookie(record.id))
        seat = record.seat_of(seat_token)
        if seat is None:
            seat_token = None
    if header_host is not None:
        if not record.is_host(header_host):
            raise ApiError(403, "this host token does not belong to this game", code=WRONG_TOKEN)
        host = True
    else:
        host = record.is_host(request.cookies.get(host_cookie(record.id)))
    if attempt is not None:
        right_guess(attempt)
    return Caller(seat=seat, host=host, seat_token=seat_token)


def set_token_cookie(response: Response, name: str, token: str) -> None:
    response.set_cookie(
        name, token, max_age=COOKIE_DAYS * 86400, path="/", httponly=True, samesite="Strict",
        secure=bool(current_app.config["PANEL"].secure_cookies),
    )
