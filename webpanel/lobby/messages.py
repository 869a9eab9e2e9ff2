"""What the lobby's pages say for the API's error codes, in the page's language.

The API's ``error`` stays an English sentence for programs; its ``code`` is what a page translates
(docs/webpanel.md, "API errors"). A refusal by a game's engine (``illegal_move``) comes with the
engine's reason in English, which the pages show after this text, marked as English.
"""

from __future__ import annotations

from flask_babel import lazy_gettext

from webpanel.i18n import add_error_texts

add_error_texts(
    {
        "game_not_found": lazy_gettext("There is no such game."),
        "unknown_game": lazy_gettext("The lobby does not know this game."),
        "bad_seats": lazy_gettext(
            "The seats do not fit this game: check the number of players, the computer levels and the names."
        ),
        "bad_options": lazy_gettext("This game does not take these options."),
        "no_hot_seat": lazy_gettext(
            "This game hides each player’s pawns: play it from phones or tablets, not on one display."
        ),
        "no_such_position": lazy_gettext("The game has not got that far."),
        "game_over": lazy_gettext("The game is over."),
        "game_moved_on": lazy_gettext("The game moved on meanwhile: here it is as it is now."),
        "illegal_move": lazy_gettext("This move is not allowed."),
        "not_your_turn": lazy_gettext("It is not your turn."),
        "computer_turn": lazy_gettext("The computer is playing this turn."),
        "no_seat": lazy_gettext("You hold no seat in this game: join one with its code first."),
        "host_only": lazy_gettext("Only the display that created this game plays it."),
        "code_not_found": lazy_gettext("This join code opens no seat of this game."),
        "seat_taken": lazy_gettext("This seat is taken, or this device already plays a seat of this game."),
        "wrong_token": lazy_gettext("This device’s seat is from another game: reload the page."),
        "too_many_wrong_codes": lazy_gettext("Too many wrong join codes: wait a minute, then try again."),
        "wrong_game_kind": lazy_gettext("This is not a game of that kind."),
        "layout_not_found": lazy_gettext("This board layout is unknown."),
        "too_many_games_here": lazy_gettext(
            "This device has too many games open: finish or abandon one first."
        ),
        "too_many_games": lazy_gettext("The lobby has too many games open: try again in a minute."),
        "bad_request": lazy_gettext("The panel did not understand this request: reload the page."),
    }
)
