"""The lobby's paths in the panel's OpenAPI document."""

from __future__ import annotations

from webpanel import openapi
from webpanel.openapi import CSRF_PARAMETER, error, json_body, json_response

GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "integer"}}
SEAT_TOKEN = {"name": "X-Seat-Token", "in": "header", "required": False, "schema": {"type": "string"},
              "description": "A seat's token (from joining), or the hts_seat_<id> cookie."}
HOST_TOKEN = {"name": "X-Host-Token", "in": "header", "required": False, "schema": {"type": "string"},
              "description": "The game's host token (from creating it); or the hts_host_<id> cookie."}
GAME = {"$ref": "#/components/schemas/DigitalGame"}

openapi.add_schemas({
    "Move": {"description": "A move in the game's notation. Quantum tic-tac-toe: squares 0-8 row by row; "
                            "a pair [a, b], a collapse choice {\"collapse\": square}, X's last classical "
                            "mark [a]."},
    "SeatRequest": {
        "type": "object", "required": ["kind"],
        "properties": {"kind": {"enum": ["human", "ai"]},
                       "level": {"type": "string", "description": "Computer level (random, ...)"},
                       "name": {"type": "string", "maxLength": 40}},
    },
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

openapi.add_paths({
    "/api/games": {
        "get": {
            "summary": "The newest digital games and the games one can create",
            "responses": {"200": json_response("Games and catalogue")},
        },
        "post": {
            "summary": "Create a game (the caller becomes its host: cookie and host_token)",
            "parameters": [CSRF_PARAMETER],
            "requestBody": json_body({
                "type": "object", "required": ["game", "seats"],
                "properties": {
                    "game": {"type": "string", "example": "qttt"},
                    "seats": {"type": "array", "items": {"$ref": "#/components/schemas/SeatRequest"}},
                    "options": {"type": "object"}, "seed": {"type": "integer"},
                    "hot_seat": {"type": "boolean", "description": "The display plays every human seat."},
                },
            }),
            "responses": {"201": json_response("The new game, with host_token", GAME),
                          "400": error("Bad JSON, unknown game, bad seats or options"),
                          "403": error("Missing CSRF token"), "415": error("Not JSON"),
                          "429": error("This device has its share of open games already "
                                       "([lobby] max_open_games_per_device)"),
                          "503": error("The lobby is full ([lobby] max_open_games open games)")},
        },
    },
    "/api/games/{game_id}": {
        "get": {
            "summary": "A game as the caller may see it (spectator without a seat token)",
            "parameters": [GAME_ID, SEAT_TOKEN, HOST_TOKEN,
                           {"name": "at", "in": "query", "required": False, "schema": {"type": "integer"},
                            "description": "Replay: the position after this many moves (nobody may move)."}],
            "responses": {"200": json_response("The game", GAME), "400": error("Bad replay position"),
                          "403": error("A token of another game"),
                          "404": error("No such game")},
        },
    },
    "/api/games/{game_id}/moves": {
        "post": {
            "summary": "Play the next move (the seat to act, or the host of a hot-seat game)",
            "parameters": [GAME_ID, CSRF_PARAMETER, SEAT_TOKEN, HOST_TOKEN],
            "requestBody": json_body({
                "type": "object", "required": ["move"],
                "properties": {"move": {"$ref": "#/components/schemas/Move"},
                               "version": {"type": "integer", "description": "Refuse if the game moved on."}},
            }),
            "responses": {
                "200": json_response("The game after the move", GAME),
                "400": error("Bad JSON"), "403": error("No seat, or a token of another game"),
                "404": error("No such game"),
                "409": error("Not your turn, the computer's turn, the game is over or moved on"),
                "422": error("Illegal move, with the engine's reason"),
                "429": error("Too many wrong tokens lately"),
            },
        },
    },
    "/api/games/{game_id}/join": {
        "post": {
            "summary": "Take a human seat with its join code (one seat per device and game)",
            "parameters": [GAME_ID, CSRF_PARAMETER],
            "requestBody": json_body({"type": "object", "required": ["code"],
                                      "properties": {"code": {"type": "string"}}}),
            "responses": {"200": json_response("The game, with seat and token (also set as a cookie)", GAME),
                          "400": error("Bad JSON"), "404": error("No such game or code"),
                          "409": error("Seat taken, device already seated, or game over"),
                          "429": error("Too many wrong codes or tokens lately")},
        },
    },
    "/api/games/{game_id}/abandon": {
        "post": {
            "summary": "The host gives the game up: it ends without a result (status abandoned)",
            "parameters": [GAME_ID, CSRF_PARAMETER, HOST_TOKEN],
            "responses": {"200": json_response("The game, abandoned", GAME),
                          "403": error("Not the game's host, or a missing CSRF token"),
                          "404": error("No such game"),
                          "409": error("The game is over, abandoned or expired already"),
                          "429": error("Too many wrong tokens lately")},
        },
    },
    "/api/games/{game_id}/events": {
        "get": {
            "summary": "Server-Sent Events: a 'game' event {version, status} at every change",
            "parameters": [GAME_ID, {"name": "Last-Event-ID", "in": "header", "required": False,
                                     "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "text/event-stream",
                                  "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                          "404": error("No such game"), "503": error("Too many open streams")},
        },
    },
})
