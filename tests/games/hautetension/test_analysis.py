"""The replay's analysis: the strongest computer player's choice and chances for a move played."""

from __future__ import annotations

import pytest

from games.exc import GameError
from games.hautetension import Game, PawnKind, default_seats, load_layout
from games.hautetension.ai.analysis import analyse_move

PINWHEEL = load_layout("pinwheel-80")


def missed_win() -> tuple[Game, str]:
    """Ana (lamp N) has four attack pawns on a straight row to Ben's lamp S and, at move 9, places a
    defense pawn far away instead of the fifth pawn that would put Ben out and win."""
    row = next(r for r in PINWHEEL.rows if r.kind.value == "straight" and r.lamps == ("S",))
    ben = ["a9", "i9", "a8", "i8"]
    game = Game(PINWHEEL, default_seats(["Ana", "Ben"]), first=0)
    for mine, his in zip(row.slots[:4], ben, strict=True):
        game.push(mine, PawnKind.ATTACK)
        game.push(his, PawnKind.DEFENSE if his != "i8" else PawnKind.ATTACK)
    game.push("i5", PawnKind.DEFENSE)
    return game, row.slots[4]


def test_a_missed_win_shows_as_lost_chances() -> None:
    game, winning = missed_win()
    analysis = analyse_move(game, 9, seed=1, iterations=300)
    assert analysis.player == 0 and analysis.move == 9
    assert (analysis.best.slot, analysis.best.pawn) == (winning, PawnKind.ATTACK)
    assert analysis.played.slot == "i5" and analysis.played.pawn is PawnKind.DEFENSE
    assert analysis.best.chances > analysis.played.chances and not analysis.is_best
    assert analysis.to_dict()["change"] < 0
    assert analyse_move(game, 9, seed=1, iterations=300) == analysis  # seeded


def test_the_best_move_played_is_its_own_best() -> None:
    game, winning = missed_win()
    game.pop()
    game.push(winning, PawnKind.ATTACK)
    analysis = analyse_move(game, 9, seed=1, iterations=300)
    assert analysis.is_best and analysis.to_dict()["change"] == 0


@pytest.mark.parametrize("move", [0, 10])
def test_only_moves_of_the_game(move: int) -> None:
    game, _ = missed_win()
    with pytest.raises(GameError, match="there is no move"):
        analyse_move(game, move)
