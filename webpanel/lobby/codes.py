"""The lobby's error codes (see :func:`webpanel.errors.define_code`): what pages translate."""

from __future__ import annotations

from webpanel.errors import define_code

GAME_NOT_FOUND = define_code("game_not_found", "No digital game has this id.")
UNKNOWN_GAME = define_code("unknown_game", "The lobby has no game of this name (the catalogue lists them).")
BAD_SEATS = define_code("bad_seats", "The seats do not fit the game (number, kind, computer level or name).")
BAD_OPTIONS = define_code("bad_options", "The game does not take these options.")
NO_HOT_SEAT = define_code("no_hot_seat", "A game that hides each seat's secrets cannot be played hot seat.")
NO_SUCH_POSITION = define_code("no_such_position", "The game has not reached that many moves (replay).")
GAME_OVER = define_code("game_over", "The game is over.")
GAME_ABANDONED = define_code(
    "game_abandoned", "The game's host abandoned it: it takes no more moves or joins."
)
GAME_EXPIRED = define_code("game_expired", "Nobody played the game for too long: it expired.")
ENDED_CODES = {"over": GAME_OVER, "abandoned": GAME_ABANDONED, "expired": GAME_EXPIRED}
"""The code of each way a game ends (store.games.ENDED_WORDS)."""
NOT_HOST = define_code("not_host", "Only the display that created this game may abandon it.")
LOBBY_FULL = define_code(
    "lobby_full", "The lobby holds as many open games as it takes: retry later (Retry-After)."
)
TOO_MANY_GAMES_HERE = define_code(
    "too_many_open_games", "This device has as many open games as it may: finish or abandon one first."
)
GAME_MOVED_ON = define_code("game_moved_on", "The game moved on since the version sent: reload it.")
ILLEGAL_MOVE = define_code(
    "illegal_move", "The engine refuses this move in this position (the error says why)."
)
NOT_YOUR_TURN = define_code("not_your_turn", "Another seat is to play.")
COMPUTER_TURN = define_code("computer_turn", "The computer plays the seat to act.")
NO_SEAT = define_code("no_seat", "The caller holds no seat in this game: join one with its code first.")
HOST_ONLY = define_code("host_only", "Only the display that created this hot-seat game plays it.")
CODE_NOT_FOUND = define_code("code_not_found", "No seat of this game opens with this join code.")
SEAT_TAKEN = define_code("seat_taken", "The seat is taken, or this device already holds a seat of the game.")
WRONG_GAME_KIND = define_code("wrong_game_kind", "This operation is for another game than this one.")
NOT_A_TABLE = define_code("not_a_table", "The digital game is not a tournament table.")
LAYOUT_NOT_FOUND = define_code("layout_not_found", "No board layout has this name.")
TABLE_BEING_PLAYED = define_code("table_being_played", "The table is being played as a digital game already.")
