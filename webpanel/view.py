"""The public board view the panel serves: :func:`store.board_view.public_board`.

It lives in the store because the board's uplink sends the same view to the
event server (and may not import the panel).
"""

from __future__ import annotations

from store.board_view import public_board

__all__ = ["public_board"]
