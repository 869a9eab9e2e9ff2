"""Quantum tic-tac-toe: the engine, the perfect-play solver and the computer players.

Moves are JSON values, shared by the engine, the command line and the panel:
squares are numbered 0-8 row by row from the top left; a pair of spooky marks
is ``[a, b]``; a collapse choice is ``{"collapse": square}`` (the square where
the mark that closed the cycle lands); X's classical ninth move in the last
free square is ``[a]``.
"""

from __future__ import annotations

from games.frame import register_game
from games.qttt.ai import AI_LEVELS
from games.qttt.game import QuantumTicTacToe, Termination

register_game(QuantumTicTacToe, ai_levels=AI_LEVELS)

__all__ = ["QuantumTicTacToe", "Termination"]
