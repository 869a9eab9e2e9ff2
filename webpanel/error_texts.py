"""What a page shows for each API error code, in the page's language.

The API answers every error with an English sentence for programs and a
stable ``code`` (:mod:`webpanel.errors`); a page shows the code's text from
here instead (``errorText(err)`` in ``static/panel.js``), with the values of
the error's ``params`` put in (``%(retry_after)s``). Every code the API can
answer has its text: ``tests/webpanel/test_i18n.py`` fails on a code without
one, and on a text for a code the API does not have.

Texts are for the people at the table and the staff, not for programs: they
say what to do, in the glossary's words (docs/glossary.md).
"""

from __future__ import annotations

from flask_babel import lazy_gettext
from flask_babel.speaklater import LazyString

TEXTS: dict[str, LazyString] = {
    # -- requests a page sends wrong (a page bug, or a page older than the panel) ----------------
    "bad_json": lazy_gettext("The page sent a request that cannot be read: reload it."),
    "json_too_deep": lazy_gettext("The page sent a request that cannot be read: reload it."),
    "not_json": lazy_gettext("The page sent a request that cannot be read: reload it."),
    "not_an_object": lazy_gettext("The page sent a request that cannot be read: reload it."),
    "unknown_fields": lazy_gettext("The page sent a request that cannot be read: reload it."),
    "missing_fields": lazy_gettext("Something is missing from the form: fill it in and try again."),
    "bad_field": lazy_gettext("A value of the form is refused: check it and try again."),
    "bad_query": lazy_gettext("The address asks for something unknown: check it."),
    "bad_request": lazy_gettext("The panel did not understand this request: reload the page."),
    "not_found": lazy_gettext("This does not exist (any more): reload the page."),
    "method_not_allowed": lazy_gettext("The page sent a request that cannot be read: reload it."),
    "body_too_large": lazy_gettext("This is too long: shorten it."),
    "http_error": lazy_gettext("The request was refused: reload the page."),
    "internal_error": lazy_gettext("Something went wrong: try again, or tell the staff."),
    "database_full": lazy_gettext(
        "The database's disk is full: nothing can be saved until the staff free space. Trying again in"
        " %(retry_after)s s."
    ),
    "database_unavailable": lazy_gettext(
        "The database is not answering (it may be restarting): trying again in %(retry_after)s s."
    ),
    "server_busy": lazy_gettext("The server is busy: trying again in %(retry_after)s s."),
    "csrf_failed": lazy_gettext("This page has expired: reload it."),
    # -- staff ----------------------------------------------------------------------------------
    "staff_only": lazy_gettext("Log in as staff first."),
    "wrong_pin": lazy_gettext("Wrong PIN."),
    "too_many_wrong_pins": lazy_gettext("Too many wrong PINs: wait %(retry_after)s s, then try again."),
    "no_pin_set": lazy_gettext("No staff PIN is set: set one with “hautetension staff set-pin”."),
    "pin_hash_damaged": lazy_gettext(
        "The stored staff PIN cannot be read: set it again with “hautetension staff set-pin”."
    ),
    "pin_check_busy": lazy_gettext("Busy checking PINs: try again in a moment."),
    # -- the board and its service ----------------------------------------------------------------
    "service_not_responding": lazy_gettext("The board service is not responding: try again in a moment."),
    "service_refused": lazy_gettext("The board service refused: see why below, then try again."),
    "board_game_running": lazy_gettext("A game is running: finish or abandon it first."),
    "no_board_game": lazy_gettext("No game is running."),
    "bad_game_setup": lazy_gettext(
        "A game cannot start with these players, first player, seed or handicap: check them."
    ),
    "not_simulated": lazy_gettext("This is not the simulated board."),
    "no_such_slot": lazy_gettext("The board has no such slot."),
    "too_many_streams": lazy_gettext("Too many live pages are open: retrying shortly."),
    "too_many_streams_from_address": lazy_gettext(
        "Too many live pages are open from this network address: close some, retrying in %(retry_after)s s."
    ),
    # -- tournaments -----------------------------------------------------------------------------
    "tournament_not_found": lazy_gettext("This tournament does not exist (any more)."),
    "table_not_found": lazy_gettext("The tournament has no such round or table."),
    "result_exists": lazy_gettext("This table already has a result: tick “replace it” to correct it."),
    "no_result_yet": lazy_gettext("This table has no result to correct yet."),
    "impossible_result": lazy_gettext("These lamps cannot have lit in this order at this table: check them."),
    "nothing_to_undo": lazy_gettext("There is nothing left to undo."),
    # -- digital games (the lobby) ------------------------------------------------------------------
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
    "game_abandoned": lazy_gettext("The game was abandoned by the display that created it."),
    "game_expired": lazy_gettext("The game expired: nobody played it for too long."),
    "game_moved_on": lazy_gettext("The game moved on meanwhile: here it is as it is now."),
    "illegal_move": lazy_gettext("This move is not allowed."),
    "not_your_turn": lazy_gettext("It is not your turn."),
    "computer_turn": lazy_gettext("The computer is playing this turn."),
    "no_seat": lazy_gettext("You hold no seat in this game: join one with its code first."),
    "host_only": lazy_gettext("Only the display that created this game plays it."),
    "not_host": lazy_gettext("Only the display that created this game can abandon it."),
    "code_not_found": lazy_gettext("This join code opens no seat of this game."),
    "seat_taken": lazy_gettext("This seat is taken, or this device already plays a seat of this game."),
    "wrong_token": lazy_gettext("This device’s seat is from another game: reload the page."),
    "too_many_wrong_codes": lazy_gettext("Too many wrong join codes: wait a minute, then try again."),
    "wrong_game_kind": lazy_gettext("This is not a game of that kind."),
    "lobby_full": lazy_gettext("The lobby has too many games open: try again in a minute."),
    "too_many_open_games": lazy_gettext(
        "This device has too many games open: finish or abandon one first."
    ),
    "not_a_table": lazy_gettext("This game is not a tournament table."),
    "layout_not_found": lazy_gettext("This board layout is unknown."),
    # -- the player registry and the ranking (event server) ---------------------------------------
    "player_not_found": lazy_gettext("There is no such registered player."),
    "player_refused": lazy_gettext("The registry refuses this player: check the name, club and city."),
    "tournament_refused": lazy_gettext("The tournament refuses this entry (registration may be closed)."),
    "same_player_twice": lazy_gettext("The same player is named twice for this table."),
    # -- the season: events and the tournaments that count (event server) ---------------------------
    "event_not_found": lazy_gettext("There is no such event in the season."),
    "event_refused": lazy_gettext("The season refuses this event: check its name, place and days."),
    "event_exists": lazy_gettext("There is an event of this id in the season already."),
    "event_dates": lazy_gettext("The event's last day cannot come before its first."),
    "organiser_only": lazy_gettext(
        "Only the display that created this game, or staff, may change its seats."
    ),
    "no_empty_seat": lazy_gettext("Every seat is taken: choose the seats to give to the computer."),
    "no_such_computer": lazy_gettext("This game has no computer player of that level."),
    "not_a_human_seat": lazy_gettext("That seat is not a player's seat that nobody took."),
    # -- the replay --------------------------------------------------------------------------------
    "replay_not_found": lazy_gettext("There is no such game to replay."),
    "replay_not_yet": lazy_gettext("The replay opens to everyone when the game ends."),
    "reveal_too_early": lazy_gettext("Nothing is revealed before the game ends."),
    "not_your_seat": lazy_gettext(
        "Each player reveals only their own pawns: from their seat's device, "
        "or at the board's display with staff."
    ),
    "not_revealed": lazy_gettext("The analysis opens once every player has revealed their pawns."),
    "no_move_after_step": lazy_gettext("No move comes at or after this step."),
    "table_being_played": lazy_gettext("This table is being played as a digital game already."),
    # -- the event: the event server's boards and results, the table on a board ----------------
    "board_not_found": lazy_gettext("The event has not heard from this board."),
    "bad_label": lazy_gettext("A board needs a short label players recognise, like “Table 3”."),
    "assignment_not_found": lazy_gettext("This table assignment does not exist (any more): reload the page."),
    "assignment_refused": lazy_gettext(
        "The tables cannot go to the boards like this: no round yet, the table has its result, its "
        "game has started, or the board is not accepted."
    ),
    "result_not_found": lazy_gettext("No board sent a result for this game."),
    "result_state": lazy_gettext("This result has changed meanwhile: reload the page."),
    # -- a player's own link (webpanel/event/players.py) and the door (webpanel/event/door.py) -----
    "no_such_link": lazy_gettext("This link is not a player's link: check it, or ask staff at the desk."),
    "link_replaced": lazy_gettext(
        "Staff gave this player a new link: this one no longer works. Ask staff at the desk for the new one."
    ),
    "nothing_to_agree": lazy_gettext("Your table has no result from its board to agree to."),
    "nothing_to_flag": lazy_gettext("You have no table in this round."),
    "player_action_refused": lazy_gettext("You have withdrawn, or the tournament is over."),
    "no_such_code": lazy_gettext(
        "No player of this tournament has this code: check it, or find the player in the list."
    ),
    "no_table_to_start": lazy_gettext("There is no table to start on this board now."),
    "bad_confirmation": lazy_gettext("Choose your seat, or confirm for every player as staff."),
}
