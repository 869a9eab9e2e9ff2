"""The rules pages: each game's rules in the project's own words, with a drawing of its board.

A summary a player reads before a first game (the full texts are the authors'): one template per
game, ``templates/lobby/rules/<game>.html``, in English marked for translation. The drawing is made
in the page from the same data the games use (the Haute-Tension layout, the Hypnosia and |Hop>
boards), put in the page as a JSON block, so a new layout or board is drawn as it is played.
"""

from __future__ import annotations

from typing import Any

from flask import abort, render_template
from jinja2.utils import htmlsafe_json_dumps

from webpanel.db import board_state
from webpanel.lobby.blueprint import bp
from webpanel.lobby.names import RULES, title


def drawing_data(game: str) -> dict[str, Any]:
    """What the rules page of *game* draws its board from."""
    if game == "hautetension":
        from games.hautetension.layout import DEFAULT_LAYOUT, load_layout

        state = board_state()  # the layout of the board on this table, as the live board draws it
        name = (state.public.get("layout") if state else None) or DEFAULT_LAYOUT
        return {"layout": load_layout(str(name)).to_dict()}
    if game == "hypnosia":
        from games.hypnosia.board import load_board

        return {"board": load_board().to_dict()}
    if game == "hop":
        from games.hop.board import DEFAULT_BOARDS
        from games.hop.board import load_board as load_hop_board

        return {"boards": {players: load_hop_board(name).to_dict()
                           for players, name in DEFAULT_BOARDS.items()}}
    return {}


@bp.get("/games/rules/<game>")
def rules_page(game: str) -> str:
    if game not in RULES:
        abort(404)
    data = htmlsafe_json_dumps(drawing_data(game), sort_keys=True)
    return render_template(f"lobby/rules/{game}.html", game=game, title=title(game), data=data, rules=RULES,
                           titles={g: title(g) for g in RULES})
