"""A player's rating over their games, drawn as SVG on the server.

The band is the mean ± spread × uncertainty after each game (wide for a
newcomer, narrowing as the games make it surer, widening again after a long
time away); the thick line is its lower edge, the rating shown; the thin one
the mean. Game 0 is the newcomer's rating. Two drawings of the same data, a
wide one and a narrow one for phones (``.chart-wide``, ``.chart-narrow`` in
``ranking.css``), so the text stays readable at both sizes. Colours are SVG
attributes: the Content-Security-Policy refuses ``style`` attributes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from flask_babel import format_decimal
from flask_babel import gettext as _
from markupsafe import Markup, escape

from tournaments.rating import MU, SIGMA, RatingRules, RatingStep

LINE_COLOUR = "#ffcc33"
MEAN_COLOUR = "#8cc8ff"
BAND_COLOUR = "#8cc8ff"
AXIS_COLOUR = "#a9b3bc"
GRID_COLOUR = "#3a444e"


@dataclass(frozen=True)
class _Frame:
    width: int
    height: int
    left: int = 48
    right: int = 12
    top: int = 12
    bottom: int = 36
    font: int = 14


WIDE = _Frame(720, 260)
NARROW = _Frame(360, 240, left=40, font=13)


def figure(steps: Sequence[RatingStep], rules: RatingRules, *, ident: str = "rating-chart") -> Markup:
    """The chart and its key; nothing when the player has no rated game."""
    if not steps:
        return Markup("")
    points = [(MU, SIGMA), *((s.mu, s.sigma) for s in steps)]
    title = _("Rating after each game")
    drawings = "".join(
        _svg(points, rules, frame, ident=f"{ident}-{css}", title=title, css=css)
        for frame, css in ((WIDE, "chart-wide"), (NARROW, "chart-narrow"))
    )
    shown, mean = escape(_("Rating shown")), escape(_("Mean"))
    band = escape(_("Uncertainty: mean ± %(spread)s ×", spread=_num(rules.spread)))
    key = (
        f'<figcaption class="chart-key"><span class="key-line">{shown}</span>'
        f' <span class="key-mean">{mean}</span> <span class="key-band">{band}</span></figcaption>'
    )
    return Markup(f'<figure class="rating-chart" id="{ident}">{drawings}{key}</figure>')


def _svg(points: Sequence[tuple[float, float]], rules: RatingRules, frame: _Frame, *, ident: str, title: str,
         css: str) -> str:
    lows = [mu - rules.spread * sigma for mu, sigma in points]
    highs = [mu + rules.spread * sigma for mu, sigma in points]
    step = _tick_step(max(highs) - min(lows))
    bottom = math.floor(min(lows) / step) * step
    top = math.ceil(max(highs) / step) * step
    inner_w = frame.width - frame.left - frame.right
    inner_h = frame.height - frame.top - frame.bottom
    games = len(points) - 1

    def x(i: int) -> float:
        return frame.left + (inner_w * i / games if games else inner_w / 2)

    def y(v: float) -> float:
        return frame.top + inner_h * (top - v) / (top - bottom)

    parts = [
        f'<svg class="{css}" id="{ident}" viewBox="0 0 {frame.width} {frame.height}" role="img"'
        f' aria-labelledby="{ident}-title" font-size="{frame.font}">',
        f'<title id="{ident}-title">{escape(title)}</title>',
    ]
    value = bottom
    while value <= top + 1e-9:
        level = f"{y(value):.1f}"
        parts.append(
            f'<line x1="{frame.left}" x2="{frame.width - frame.right}" y1="{level}" y2="{level}"'
            f' stroke="{GRID_COLOUR}" stroke-width="1"/>'
            f'<text x="{frame.left - 6}" y="{y(value) + frame.font / 3:.1f}" text-anchor="end"'
            f' fill="{AXIS_COLOUR}">{escape(_num(value))}</text>'
        )
        value += step
    band = [f"{x(i):.1f},{y(h):.1f}" for i, h in enumerate(highs)]
    band += [f"{x(i):.1f},{y(lo):.1f}" for i, lo in reversed(list(enumerate(lows)))]
    parts.append(f'<polygon points="{" ".join(band)}" fill="{BAND_COLOUR}" fill-opacity="0.18"/>')
    means = " ".join(f"{x(i):.1f},{y(mu):.1f}" for i, (mu, _s) in enumerate(points))
    shown = " ".join(f"{x(i):.1f},{y(lo):.1f}" for i, lo in enumerate(lows))
    parts.append(f'<polyline points="{means}" fill="none" stroke="{MEAN_COLOUR}" stroke-width="1.5"/>')
    parts.append(f'<polyline points="{shown}" fill="none" stroke="{LINE_COLOUR}" stroke-width="3"/>')
    baseline = frame.height - frame.bottom
    for i in _game_ticks(games):
        parts.append(
            f'<text x="{x(i):.1f}" y="{baseline + frame.font + 4}" text-anchor="middle"'
            f' fill="{AXIS_COLOUR}">{i}</text>'
        )
    games_label = escape(_("games"))
    parts.append(
        f'<text x="{frame.left + inner_w / 2:.1f}" y="{frame.height - 2}" text-anchor="middle"'
        f' fill="{AXIS_COLOUR}">{games_label}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def _tick_step(span: float) -> float:
    for step in (1, 2, 5, 10, 20, 50):
        if span / step <= 6:
            return step
    return 100


def _game_ticks(games: int) -> list[int]:
    if games <= 10:
        return list(range(games + 1))
    every = next(s for s in (2, 5, 10, 20, 50, 100, 200, 500, 10**9) if games / s <= 10)
    # The last game always has its number; a round tick too close to it gives way.
    return [*(i for i in range(0, games, every) if games - i >= every / 2), games]


def _num(value: float) -> str:
    return str(format_decimal(value, format="0.#"))
