"""|Hop>: boards as data, the rules engine (Bachelor, Master and Doctorate levels) and the computer players.

Moves are JSON values shared by the engine, the panel and saved games; the
notation is in docs/hop.md and :mod:`games.hop.game`.
"""

from __future__ import annotations

from games.frame import register_game
from games.hop.ai import AI_LEVELS
from games.hop.game import Hop, Termination

register_game(Hop, ai_levels=AI_LEVELS)

__all__ = ["Hop", "Termination"]
