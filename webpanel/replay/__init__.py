"""The dispute replay: game records to download, the replay of a game step by step, the reveal of
the pawns by the players' consent, and the strongest computer player's view of each move.

See docs/game-record.md (the record format) and docs/replay.md (the pages and their rules).
"""

from webpanel.replay.pages import bp

__all__ = ["bp"]
