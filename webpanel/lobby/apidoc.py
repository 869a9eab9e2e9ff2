"""The lobby's paths in the panel's OpenAPI document."""

from __future__ import annotations

from store.move_requests import REQUEST_ID_PATTERN
from webpanel import openapi
from webpanel.errors import MAX_WHOLE
from webpanel.ids import path_id
from webpanel.lobby import schemas
from webpanel.openapi import error, json_body, json_response

GAME_ID = path_id("game_id")
SEAT_TOKEN = {"name": "X-Seat-Token", "in": "header", "required": False, "schema": {"type": "string"},
              "description": "A seat's token (from joining), or the hts_seat_<id> cookie."}
HOST_TOKEN = {"name": "X-Host-Token", "in": "header", "required": False, "schema": {"type": "string"},
              "description": "The game's host token (from creating it); or the hts_host_<id> cookie."}
GAME = {"$ref": "#/components/schemas/DigitalGame"}
LAST_EVENT_ID = {"type": "string", "pattern": "^([0-9]{1,18})?$",
                 "description": "A game version (empty: none)"}

openapi.add_schemas({
    "Move": {"description": "A move in the game's notation. Quantum tic-tac-toe: squares 0-8 row by row; "
                            "a pair [a, b], a collapse choice {\"collapse\": square}, X's last classical "
                            "mark [a]."},
    "Seat": {
        "type": "object",
        "properties": {
            "seat": {"type": "integer"}, "name": {"type": "string"}, "kind": {"enum": ["human", "ai"]},
            "level": {"type": ["string", "null"]}, "joined": {"type": "boolean"},
            "you": {"type": "boolean", "description": "The caller holds this seat."},
            "default_name": {"type": "boolean", "description": "The seat was created without a name: "
                             "`name` is the API's English one (Computer (level), Player n), which pages "
                             "show in their own language."},
            "join_code": {"type": "string", "description": "For the host until taken."},
            "join_url": {"type": "string"}, "qr_url": {"type": "string"},
        },
    },
    "DigitalGame": {
        "type": "object",
        "properties": {
            "id": {"type": "integer"}, "game": {"type": "string"},
            "status": {"enum": ["running", "over", "abandoned", "expired"],
                       "description": "running; over (by its rules); abandoned by its host; expired (nobody "
                                      "played it for [lobby] expire_idle_hours)."},
            "version": {"type": "integer", "description": "Bumped by every move and join."},
            "hot_seat": {"type": "boolean"},
            "seats": {"type": "array", "items": {"$ref": "#/components/schemas/Seat"}},
            "you": {"type": "object", "properties": {"seat": {"type": ["integer", "null"]},
                                                     "host": {"type": "boolean"}}},
            "to_act": {"type": ["integer", "null"]},
            "can_move": {"type": "boolean", "description": "The caller may play the next move."},
            "legal_moves": {"type": ["array", "null"], "items": {"$ref": "#/components/schemas/Move"},
                            "description": "Only for the caller who acts; null otherwise."},
            "ai_thinking": {"type": "boolean"}, "ai_error": {"type": ["string", "null"]},
            "outcome": {"type": ["object", "null"]},
            "moves": {"type": "integer", "description": "Moves played (the game's view may list them)."},
            "at": {"type": "integer", "description": "With ?at=: the replayed move count."},
            "view": {"type": "object", "description": "The game's view for the caller."},
        },
    },
})

openapi.add_schema_factory("CreateGame", schemas.create_game)
openapi.add_schema_factory("TableGame", schemas.table_game)

TOO_MANY_GUESSES = error("Too many wrong tokens or join codes from this address lately; see Retry-After "
                         "(too_many_wrong_codes)")
TOKENS_REFUSED = error("A seat or host token of another game (wrong_token)")
NO_GAME = error("No such game (game_not_found, not_found)")
ENDED = error("The game is over, abandoned or expired already (game_over, game_abandoned, game_expired)")
VERSION = {"type": "integer", "minimum": 0, "maximum": 2**62}

openapi.add_paths({
    "/api/games": {
        "get": {
            "summary": "The newest digital games and the games one can create",
            "responses": {"200": json_response("Games and catalogue")},
        },
        "post": {
            "summary": "Create a game (the caller becomes its host: cookie and host_token)",
            "requestBody": json_body({"$ref": "#/components/schemas/CreateGame"}),
            "responses": {"201": json_response("The new game, with host_token", GAME),
                          "400": error("Bad JSON, unknown game, bad seats or options (see code)"),
                          "429": error("This device has its share of open games already "
                                       "([lobby] max_open_games_per_device: too_many_open_games)"),
                          "503": error("The lobby is full ([lobby] max_open_games open games: lobby_full); "
                                       "see Retry-After")},
        },
    },
    "/api/games/{game_id}": {
        "get": {
            "summary": "A game as the caller may see it (spectator without a seat token)",
            "parameters": [GAME_ID, SEAT_TOKEN, HOST_TOKEN,
                           {"name": "at", "in": "query", "required": False,
                            "schema": {"type": "integer", "minimum": 0, "maximum": MAX_WHOLE},
                            "description": "Replay: the position after this many moves (nobody may move)."}],
            "responses": {"200": json_response("The game", GAME),
                          "400": error("`at` is not a whole number (bad_query)"),
                          "403": TOKENS_REFUSED,
                          "404": error("No such game, or no position after `at` moves yet "
                                       "(game_not_found, no_such_position)"),
                          "429": TOO_MANY_GUESSES},
        },
    },
    "/api/games/{game_id}/moves": {
        "post": {
            "summary": "Play the next move (the seat to act, or the host of a hot-seat game)",
            "parameters": [GAME_ID, SEAT_TOKEN, HOST_TOKEN],
            "requestBody": json_body({
                "type": "object", "required": ["move"], "additionalProperties": False,
                "properties": {"move": {"$ref": "#/components/schemas/Move"},
                               "version": {**VERSION, "description": "Refuse if the game moved on."},
                               "request_id": {"type": "string", "pattern": REQUEST_ID_PATTERN,
                                              "description": "The page's own id for this move: sent again,"
                                                             " the move is played once"}},
            }),
            "responses": {
                "200": json_response("The game after the move (the same request_id again: the game as it"
                                     " is, the move played once)", GAME),
                "403": error("No seat (no_seat, host_only), or a token of another game (wrong_token), or "
                             "the CSRF token (csrf_failed)"),
                "404": NO_GAME,
                "409": error("Not your turn, the computer's turn, the game ended or moved on "
                             "(not_your_turn, computer_turn, game_over, game_abandoned, game_expired, "
                             "game_moved_on)"),
                "422": error("The engine refuses the move in this position, with its reason (illegal_move)"),
                "429": TOO_MANY_GUESSES,
                "503": error("The server is busy (server_busy, database_unavailable): send the same move with"
                             " its request_id again after Retry-After"),
            },
        },
    },
    "/api/games/{game_id}/join": {
        "post": {
            "summary": "Take a human seat with its join code (one seat per device and game)",
            "parameters": [GAME_ID, SEAT_TOKEN, HOST_TOKEN],
            "requestBody": json_body({"type": "object", "required": ["code"], "additionalProperties": False,
                                      "properties": {"code": {"type": "string", "minLength": 1,
                                                              "maxLength": 32}}}),
            "responses": {"200": json_response("The game, with seat and token (also set as a cookie)", GAME),
                          "403": TOKENS_REFUSED,
                          "404": error("No such game, or no seat of it opens with this code "
                                       "(game_not_found, code_not_found)"),
                          "409": error("Seat taken, device already seated, or the game ended "
                                       "(seat_taken, game_over, game_abandoned, game_expired)"),
                          "429": TOO_MANY_GUESSES},
        },
    },
    "/api/games/{game_id}/abandon": {
        "post": {
            "summary": "The host gives the game up: it ends without a result (status abandoned)",
            "parameters": [GAME_ID, SEAT_TOKEN, HOST_TOKEN],
            "responses": {"200": json_response("The game, abandoned", GAME),
                          "403": error("Not the game's host (not_host), a token of another game "
                                       "(wrong_token), or the CSRF token (csrf_failed)"),
                          "404": NO_GAME,
                          "409": ENDED,
                          "429": TOO_MANY_GUESSES},
        },
    },
    "/api/games/{game_id}/events": {
        "get": {
            "summary": "Server-Sent Events: a 'game' event {version, status} at every change",
            "parameters": [GAME_ID, {"name": "Last-Event-ID", "in": "header", "required": False,
                                     "schema": LAST_EVENT_ID},
                           {"name": "since", "in": "query", "required": False, "schema": LAST_EVENT_ID,
                            "description": "Same as Last-Event-ID, for clients that cannot set it"}],
            "responses": {"200": {"description": "text/event-stream",
                                  "content": {"text/event-stream": {
                                      "schema": openapi.sse_events("game", "reconnect")}}},
                          "400": error("Last-Event-ID is not a version (bad_query)"),
                          "404": NO_GAME, "503": error("Too many open streams (too_many_streams)"),
                          "429": error("Too many open streams from this address"
                                       " (too_many_streams_from_address)")},
        },
    },
})
