"""What players see: a public view for everyone and a private view per player.

Secrecy is a rule of the game. The public view shows who placed a pawn where
and which lamps are lit (the lamps are visible on the table), never which
pawns conduct nor anything that gives it away: no pawn kinds, no closed rows,
no count of defense pawns left. The number of pawns a player has placed or
has left is public: everyone can count them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from games.hautetension.game import Game


def public_view(game: Game) -> dict[str, Any]:
    outcome = game.outcome()
    return {
        "layout": game.layout.name,
        "seats": [
            {
                "name": seat.name,
                "colour": seat.colour,
                "lamp": seat.lamp,
                "eliminated": game.is_eliminated(index),
                "pawns_left": game.pawns_left(index),
            }
            for index, seat in enumerate(game.seats)
        ],
        "to_move": game.to_move,
        "handicap": dict(game.handicap),
        "pawns": {slot: {"owner": owner} for slot, (owner, _kind) in game.pawns.items()},
        "moves": [{"slot": p.slot, "player": p.player} for p in game.history],
        "lit": sorted(game.lit),
        "eliminations": [
            {"player": e.player, "lamp": e.lamp, "move": e.move, "by": e.by} for e in game.eliminated
        ],
        "outcome": outcome.to_dict() if outcome else None,
        "points": list(game.points()) if outcome else None,
    }


def player_view(game: Game, player: int) -> dict[str, Any]:
    attack, defense = game.stock(player)  # first: a seat the game does not have is a SetupError
    view = public_view(game)
    view["you"] = {
        "seat": player,
        "pawns": {slot: kind.value for slot, (owner, kind) in game.pawns.items() if owner == player},
        "stock": {"attack": attack, "defense": defense},
    }
    return view
