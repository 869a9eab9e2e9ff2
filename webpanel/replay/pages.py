"""The replay's pages and API: a game's record to download, its timeline, the reveal by consent.

Who sees what (docs/replay.md):

* a finished game (over or abandoned), board or lobby: anyone sees its public replay and downloads
  its public record — what everyone at the table saw;
* a running game: staff only, and still only the public replay (staff are no players' confidants);
* the kinds of the pawns, the closed rows and why each lamp lit: only once the game has ended and
  every player of the table has consented. A player consents for their own seat: on the lobby from
  the device holding the seat; on the board at the board's own display (the screen beside it,
  which browses the panel from the Pi itself: the players are in front of it, each taps their name
  and confirms), or with staff anywhere (a staff session). Computer players consent by themselves:
  they have no bluff to protect after the game.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from flask import Blueprint, Response, abort, jsonify, render_template, request

from games.exc import GameError
from games.hautetension.ai.analysis import analyse_move
from games.hautetension.record import MEDIA_TYPE, SUFFIX, Move
from store.consents import Consents, Source
from store.games import GameNotFoundError, GameStore
from store.journal import Journal
from webpanel import openapi
from webpanel.auth import is_staff
from webpanel.db import get_db
from webpanel.errors import BAD_QUERY, NOT_FOUND, ApiError, bad_field, define_code, json_object
from webpanel.replay.records import KeptGame, NoRecordError, board_game, board_games, lobby_game
from webpanel.replay.timeline import timeline
from webpanel.seats import identify

bp = Blueprint("replay", __name__, template_folder="templates")

NOT_YET = "the replay of a running game is for staff: it opens to everyone when the game ends"

REPLAY_NOT_FOUND = define_code("replay_not_found", "No game to replay at this address (source or id).")
REPLAY_NOT_YET = define_code("replay_not_yet", "A running game's replay is for staff until the game ends.")
REVEAL_TOO_EARLY = define_code("reveal_too_early", "Nothing is revealed before the game ends.")
NOT_YOUR_SEAT = define_code("not_your_seat", "A player reveals only their own seat's pawns.")
NOT_REVEALED = define_code("not_revealed", "The analysis opens once every player revealed their pawns.")
NO_MOVE_AFTER_STEP = define_code("no_move_after_step", "No move comes at or after this step of the replay.")


@dataclass(frozen=True)
class Table:
    """One game as the replay knows it: its record and who must consent to the reveal."""

    source: Source
    game_id: int
    kept: KeptGame
    humans: tuple[int, ...]
    """The seats that must consent (computer players do by themselves)."""

    def consents(self) -> dict[int, float]:
        return Consents(get_db()).of_game(self.source, self.game_id)

    def is_revealed(self, consents: dict[int, float]) -> bool:
        return self.kept.is_over and self.kept.kinds is not None and all(s in consents for s in self.humans)


def _table(source: str, raw_id: int | str) -> Table:
    game_id = _game_id(raw_id)
    try:
        if source == Source.BOARD:
            kept = board_game(Journal(get_db()), game_id)
            return Table(Source.BOARD, game_id, kept, tuple(range(len(kept.record.players))))
        if source == Source.LOBBY:
            stored = GameStore(get_db()).get(game_id)
            kept = lobby_game(stored)
            return Table(Source.LOBBY, game_id, kept, tuple(s.seat for s in stored.seats if not s.is_ai))
    except (NoRecordError, GameNotFoundError) as exc:
        raise ApiError(404, str(exc), code=REPLAY_NOT_FOUND) from None
    raise ApiError(404, f"games are played on the board or in the lobby, not {source!r}",
                   code=REPLAY_NOT_FOUND)


def _game_id(raw: int | str) -> int:
    """A game id from the address (the API's ids are plain text in its routes, as the lobby's)."""
    if isinstance(raw, int):
        return raw
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:  # "²" is a digit to isdigit()
        raise ApiError(404, f"there is no game {raw!r}", code=REPLAY_NOT_FOUND)
    return int(raw)


def _visible(table: Table) -> Table:
    if not table.kept.is_over and not is_staff():
        raise ApiError(403, NOT_YET, code=REPLAY_NOT_YET)
    return table


# -- pages ---------------------------------------------------------------------------------------------


@bp.get("/replay")
def index_page() -> str:
    journal = Journal(get_db())
    games = []
    for game_id in board_games(journal):
        kept = board_game(journal, game_id)
        if kept.is_over or is_staff():
            games.append(kept.record)
    return render_template("replay/index.html", games=games)


@bp.get("/replay/<source>/<int:game_id>")
def replay_page(source: str, game_id: int) -> str:
    try:
        table = _visible(_table(source, game_id))
    except ApiError as exc:
        abort(exc.status)
    return render_template("replay/game.html", table=table, record=table.kept.record)


@bp.get(f"/replay/<source>/<int:game_id>/record{SUFFIX}")
def record_file(source: str, game_id: int) -> Response:
    """The game record as a file (docs/game-record.md): with its reveal section once all consented."""
    table = _visible(_table(source, game_id))
    consents = table.consents()
    record = table.kept.revealed(max(consents.values())) if table.is_revealed(consents) else table.kept.record
    name = f"haute-tension-{source}-{game_id}{SUFFIX}"
    return Response(record.to_text(), mimetype=MEDIA_TYPE,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


# -- API -----------------------------------------------------------------------------------------------


@bp.get("/api/replay/<source>/<game_id>")
def api_replay(source: str, game_id: str) -> Response:
    table = _visible(_table(source, game_id))
    consents = table.consents()
    revealed = table.is_revealed(consents)
    game = table.kept.game() if revealed else None
    body = timeline(table.kept.record, table.kept.layout, game=game)
    body["drawing"] = table.kept.layout.to_dict()
    body["source"] = table.source.value
    body["id"] = table.game_id
    body["over"] = table.kept.is_over
    body["reveal"] = {
        "needed": list(table.humans),
        "consented": sorted(s for s in consents if s in table.humans),
        "may_consent": _may_consent(table, consents),
        # Where the players still to agree do it, when it is not here: the board's display, their device.
        "where": "board-display" if table.source is Source.BOARD else "seat-device",
        "possible": table.kept.is_over and table.kept.kinds is not None,
    }
    body["record_url"] = f"/replay/{table.source.value}/{table.game_id}/record{SUFFIX}"
    return jsonify(body)


@bp.post("/api/replay/<source>/<game_id>/reveal")
def api_reveal(source: str, game_id: str) -> Response:
    """A player consents to reveal their own pawns on the replay (once, for good)."""
    body = json_object(allowed={"seat"}, required={"seat"})
    seat = body["seat"]
    table = _table(source, game_id)
    # The game's end first: before it, no seat of any kind may consent, whatever the body names.
    if not table.kept.is_over:
        raise ApiError(409, "nothing is revealed before the game ends", code=REVEAL_TOO_EARLY)
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in table.humans:
        raise bad_field("seat", f"seat must be one of the players' seats {list(table.humans)}")
    if seat not in _may_consent(table, table.consents()) and seat not in table.consents():
        raise ApiError(403, "a player reveals only their own pawns: from their seat's device, or at the"
                            " board's display", code=NOT_YOUR_SEAT)
    Consents(get_db()).give(table.source, table.game_id, seat)
    consents = table.consents()
    return jsonify({"ok": True, "consented": sorted(consents), "revealed": table.is_revealed(consents)})


def at_the_boards_display() -> bool:
    """Whether this request comes from the board's own display: the Pi itself (loopback). Behind the
    front server the client's address is the one nginx saw (the panel trusts only its header), so a
    phone on the network is never taken for the display."""
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


def _may_consent(table: Table, consents: dict[int, float]) -> list[int]:
    """The seats this caller may consent for now (staff: any; the board's display: any of a board
    game, the player in front of it confirms; a lobby device: its own seat)."""
    if not table.kept.is_over:
        return []
    if is_staff() or (table.source is Source.BOARD and at_the_boards_display()):
        mine = set(table.humans)
    elif table.source is Source.LOBBY:
        caller = identify(GameStore(get_db()).get(table.game_id))
        mine = {caller.seat} if caller.seat is not None else set()
    else:
        mine = set()
    return sorted(seat for seat in mine if seat in table.humans and seat not in consents)



@bp.get("/api/replay/<source>/<game_id>/analysis")
def api_analysis(source: str, game_id: str) -> Response:
    """The strongest computer player's view of the move at (or next after) step ``?step=`` of the
    replay: only for a fully revealed game (it reads the mover's own pawn kinds)."""
    table = _visible(_table(source, game_id))
    if not table.is_revealed(table.consents()):
        raise ApiError(409, "the analysis reads the pawn kinds: it opens once every player revealed theirs",
                       code=NOT_REVEALED)
    raw = request.args.get("step", "")
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 6:
        raise ApiError(400, "step must be a step number of the replay", code=BAD_QUERY)
    lines = table.kept.record.lines
    following = [line for line in lines[max(0, int(raw) - 1):] if isinstance(line, Move)]
    if not following:
        raise ApiError(404, "no move comes at or after this step", code=NO_MOVE_AFTER_STEP)
    game = table.kept.game()
    assert game is not None
    try:
        analysis = analyse_move(game, following[0].number, seed=table.game_id)
    except GameError as exc:
        raise ApiError(404, str(exc), code=NOT_FOUND) from None
    return jsonify({"step": int(raw), **analysis.to_dict()})


_SOURCE = {"name": "source", "in": "path", "required": True, "schema": {"enum": [s.value for s in Source]},
           "description": "Where the game was played: the board or the lobby"}
_GAME = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "integer"}}
_SEEN = {"403": openapi.error("A running game (staff only)"), "404": openapi.error("No such game")}
openapi.add_paths({
    "/api/replay/{source}/{game_id}": {"get": {
        "summary": "A game's replay: its timeline step by step (kinds, closed rows and why each lamp lit once"
                   " every player consented), the reveal's consents, the record's address",
        "parameters": [_SOURCE, _GAME],
        "responses": {"200": openapi.json_response("The replay"), **_SEEN},
    }},
    "/api/replay/{source}/{game_id}/reveal": {"post": {
        "summary": "A player's consent to reveal their own pawns after the game (for good)",
        "parameters": [_SOURCE, _GAME, openapi.CSRF_PARAMETER],
        "requestBody": openapi.json_body({
            "type": "object", "required": ["seat"], "additionalProperties": False,
            "properties": {"seat": {"type": "integer", "minimum": 0}},
        }),
        "responses": {
            "200": openapi.json_response("Consented"),
            "400": openapi.error("Not a seat of the players"),
            "403": openapi.error("Not this seat's device (nor staff), or a missing CSRF token"),
            "404": openapi.error("No such game"),
            "409": openapi.error("The game has not ended"),
            "415": openapi.error("Body is not JSON"),
        },
    }},
    "/api/replay/{source}/{game_id}/analysis": {"get": {
        "summary": "The strongest computer player's view of the move at (or next after) a step",
        "parameters": [_SOURCE, _GAME, {"name": "step", "in": "query", "required": True,
                                        "schema": {"type": "integer", "minimum": 0}}],
        "responses": {
            "200": openapi.json_response("Its choice and chances, and its chances with the move played"),
            "400": openapi.error("Not a step number"),
            **_SEEN,
            "409": openapi.error("Not every player revealed their pawns"),
        },
    }},
})
