"""Hypnosia: the board geometry, the rules engine and the computer players.

Moves are JSON values shared by the engine, the panel and saved games; the
notation is in docs/hypnosia.md and :mod:`games.hypnosia.game`.
"""

from __future__ import annotations

from games.frame import register_game
from games.hypnosia.ai import AI_LEVELS
from games.hypnosia.game import Hypnosia, Termination

register_game(Hypnosia, ai_levels=AI_LEVELS)

__all__ = ["Hypnosia", "Termination"]
