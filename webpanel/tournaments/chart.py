"""The points chart: each player's total points round by round, drawn as SVG on the server.

A reusable piece: it knows nothing of the tournament engine. Give it a
:class:`PointsChart` (each player's totals after each round, their place,
how their line ended) and :func:`figure` returns the HTML of a ``<figure>``:
the drawing and its key. The leaders' lines are coloured and numbered by
place, the others drawn thin and grey; a line ends with a cross where its
player went out and with a ring where they withdrew.

Ties read as ties: leaders whose lines end at the same total share one place
marker (their numbers side by side in one pill, in their colours), the key says
"tied", and a player tied on points with the last leader is a leader too. Where
leaders' lines run together, the lower place's line shows as a wider band under
the higher place's (which is drawn on top), so every colour stays visible and no
line seems to lie below another it equals.

Colours are SVG attributes (the Content-Security-Policy refuses ``style``
attributes), chosen to stand out at least 3:1 from the panel's dark cards;
a stylesheet may override them (print, another background). The text is in
the page's language (Flask-Babel). The figure holds two drawings of the same
data, a wide one and a narrow one for phones, so its text stays readable at
both sizes; the page's stylesheet shows one (``.chart-wide``,
``.chart-narrow``: see ``tournaments.css``).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from markupsafe import Markup, escape

from webpanel.tournament_words import _, points

LEADER_COLOURS = ("#ffcc33", "#8cc8ff", "#7bd88f", "#ffb199")
"""Yellow, blue, green, salmon: one per leader, all at least 3:1 on the panel's cards (#1b2128)."""
OTHER_COLOUR = "#7d8a96"
AXIS_COLOUR = "#a9b3bc"
GRID_COLOUR = "#3a444e"
OUT_COLOUR = "#ff8a80"


class Ending(StrEnum):
    """How a player's line ends before the last round."""

    OUT = "out"
    WITHDREW = "withdrew"


@dataclass(frozen=True)
class Line:
    """One player's line: their total after each round they played (round 1 first)."""

    name: str
    place: int
    totals: tuple[int, ...]
    """Total points after round 1, 2, … up to the last round whose result is in for them."""
    ending: Ending | None = None
    ended_after: int | None = None
    """The round after which the line ends with its mark (None: no mark)."""


@dataclass(frozen=True)
class PointsChart:
    rounds: int
    """Rounds made so far (the horizontal axis goes from the start, 0, to this round)."""
    lines: tuple[Line, ...]
    """In the order of the standings."""
    leaders: int = 3
    """How many of the first places are highlighted."""

    @property
    def highlighted(self) -> tuple[Line, ...]:
        """The leaders: the first places, and whoever ends tied with the last of them (up to one
        line per leader colour)."""
        leaders = [line for line in self.lines if line.place <= self.leaders]
        if leaders and leaders[-1].totals:
            last = _end(leaders[-1])
            leaders += [line for line in self.lines if line.place > self.leaders and _end(line) == last]
        return tuple(leaders[: len(LEADER_COLOURS)])

    def tied(self, line: Line) -> bool:
        """Whether *line* is a leader's ending where another leader's ends (the same total after the
        same round; a player without a result yet is tied with nobody)."""
        return bool(line.totals) and sum(1 for other in self.highlighted if _end(other) == _end(line)) > 1

    @property
    def top(self) -> int:
        return max((max(line.totals, default=0) for line in self.lines), default=0)


@dataclass(frozen=True)
class _Frame:
    """Where the plot sits in the drawing's coordinates."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    font: int

    def x(self, chart: PointsChart, round_number: float) -> float:
        span = self.width - self.left - self.right
        return self.left + span * round_number / max(chart.rounds, 1)

    def y(self, value: float, top: int) -> float:
        span = self.height - self.top - self.bottom
        return self.height - self.bottom - span * value / max(top, 1)


WIDE = _Frame(width=720, height=400, left=58, right=46, top=16, bottom=58, font=17)
NARROW = _Frame(width=360, height=300, left=44, right=34, top=12, bottom=50, font=14)


def _end(line: Line) -> tuple[int, int]:
    """Where a line ends: the rounds it has, its last total."""
    return len(line.totals), line.totals[-1] if line.totals else 0


LEADER_WIDTH = 4.0
CASING = 3.0
"""How much wider a leader's line is drawn for each higher place's line that runs along it."""


def figure(chart: PointsChart, *, ident: str = "points-chart") -> Markup:
    """The chart as an HTML ``<figure>``: a wide and a narrow drawing, and the key."""
    if chart.rounds < 1:
        return Markup("")
    title = _("Total points round by round")
    return Markup(
        '<figure class="points-chart" id="{ident}">{wide}{narrow}<figcaption>{key}</figcaption></figure>'
    ).format(
        ident=ident,
        wide=svg(chart, WIDE, ident=f"{ident}-wide", title=title, css="chart-wide"),
        narrow=svg(chart, NARROW, ident=f"{ident}-narrow", title=title, css="chart-narrow"),
        key=key(chart),
    )


def svg(chart: PointsChart, frame: _Frame, *, ident: str, title: str, css: str) -> Markup:
    top = _nice_top(chart.top)
    widest = max((len(group) for group in _label_groups(chart.highlighted)), default=1)
    if widest > 1:  # a shared marker is wider than one place's: room for it on the right
        frame = dataclasses.replace(frame, right=max(frame.right, round(frame.font * (1.3 * widest + 1.2))))
    parts: list[str] = [
        f'<svg class="chart {css}" viewBox="0 0 {frame.width} {frame.height}" role="img"'
        f' aria-labelledby="{ident}-title {ident}-desc" font-size="{frame.font}"'
        ' font-family="system-ui,sans-serif">',
        f'<title id="{ident}-title">{escape(title)}</title>',
        f'<desc id="{ident}-desc">{escape(describe(chart))}</desc>',
    ]
    parts += _axes(chart, frame, top)
    highlighted = chart.highlighted
    for line in chart.lines:
        if line not in highlighted:
            parts.append(_polyline(chart, frame, top, line, OTHER_COLOUR, 1.5, "other"))
    parts += _casings(chart, frame, top, highlighted)
    # The lower places first: the first place's line is drawn last, on top of the others.
    for line, colour in zip(reversed(highlighted), reversed(LEADER_COLOURS[: len(highlighted)]), strict=True):
        parts.append(_polyline(chart, frame, top, line, colour, LEADER_WIDTH, "leader"))
    parts += [_mark(chart, frame, top, line) for line in chart.lines if line.ending is not None]
    parts += _place_labels(chart, frame, top, highlighted, ident)
    parts.append("</svg>")
    return Markup("".join(parts))


def _points(chart: PointsChart, frame: _Frame, top: int, line: Line) -> list[tuple[float, float]]:
    values = (0, *line.totals)
    return [(frame.x(chart, r), frame.y(v, top)) for r, v in enumerate(values)]


def _casings(chart: PointsChart, frame: _Frame, top: int, highlighted: Sequence[Line]) -> list[str]:
    """Where a leader's line runs along higher places' lines (the same totals at both ends of a
    round), a wider band of its colour under them: one more band width per line above it."""
    bands: list[tuple[float, str]] = []
    for index, (line, colour) in enumerate(zip(highlighted, LEADER_COLOURS, strict=False)):
        values = (0, *line.totals)
        for r in range(1, len(values)):
            above = sum(
                1 for other in highlighted[:index]
                if len(other.totals) >= r and (0, *other.totals)[r - 1 : r + 1] == values[r - 1 : r + 1]
            )
            if above:
                width = LEADER_WIDTH + CASING * above
                (x1, y1), (x2, y2) = _points(chart, frame, top, line)[r - 1 : r + 1]
                bands.append((width, f'<line class="tie-band" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}"'
                                     f' y2="{y2:.1f}" stroke="{colour}" stroke-width="{width:g}"'
                                     ' stroke-linecap="round"/>'))
    return [band for _width, band in sorted(bands, key=lambda item: -item[0])]


def _polyline(
    chart: PointsChart, frame: _Frame, top: int, line: Line, colour: str, width: float, css: str
) -> str:
    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in _points(chart, frame, top, line))
    return (
        f'<polyline class="{css}" points="{points}" fill="none" stroke="{colour}" stroke-width="{width}"'
        f' stroke-linejoin="round" stroke-linecap="round">'
        f"<title>{escape(_line_title(line))}</title></polyline>"
    )


def _mark(chart: PointsChart, frame: _Frame, top: int, line: Line) -> str:
    after = line.ended_after if line.ended_after is not None else len(line.totals)
    value = line.totals[after - 1] if 1 <= after <= len(line.totals) else 0
    x, y = frame.x(chart, after), frame.y(value, top)
    r = frame.font * 0.32
    if line.ending == Ending.OUT:
        return (
            f'<path class="out-mark" d="M{x - r:.1f},{y - r:.1f}L{x + r:.1f},{y + r:.1f}'
            f'M{x - r:.1f},{y + r:.1f}L{x + r:.1f},{y - r:.1f}" stroke="{OUT_COLOUR}" stroke-width="2.5"'
            ' stroke-linecap="round"/>'
        )
    return (
        f'<circle class="withdrew-mark" cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="none"'
        f' stroke="{AXIS_COLOUR}" stroke-width="2"/>'
    )


def _label_groups(highlighted: Sequence[Line]) -> list[list[Line]]:
    """The leaders by where their lines end: lines ending at one point share a marker."""
    groups: dict[tuple[int, ...], list[Line]] = {}
    for line in highlighted:  # a line without a result yet has its own marker
        groups.setdefault(_end(line) if line.totals else (-1, line.place), []).append(line)
    return list(groups.values())


def _place_labels(
    chart: PointsChart, frame: _Frame, top: int, highlighted: Sequence[Line], ident: str
) -> list[str]:
    """The leaders' place numbers at the end of their lines, spread apart so none hides another; the
    places of lines that end together side by side in one marker (a tie), never one below another."""
    r = frame.font * 0.7
    groups = [(group, _points(chart, frame, top, group[0])[-1]) for group in _label_groups(highlighted)]
    groups.sort(key=lambda item: (item[1][1], min(line.place for line in item[0])))
    placed: list[float] = []
    for _group, (_x, y) in groups:
        y = max(y, frame.top + r)
        if placed and y - placed[-1] < 2 * r + 1:
            y = placed[-1] + 2 * r + 1
        placed.append(y)
    overflow = placed[-1] + r - (frame.height - 2) if placed else 0
    if overflow > 0:  # pushed below the drawing: move them all up
        placed = [y - overflow for y in placed]
    parts = []
    colours = dict(zip((line.place for line in highlighted), LEADER_COLOURS, strict=False))
    for (group, (x, y)), label_y in zip(groups, placed, strict=True):
        label_x = x + r + 4
        first = colours[group[0].place]
        if len(group) == 1:
            line = group[0]
            parts.append(
                f'<g class="place-label"><line x1="{x:.1f}" y1="{y:.1f}"'
                f' x2="{label_x - r:.1f}" y2="{label_y:.1f}"'
                f' stroke="{first}" stroke-width="1.5"/>'
                f'<circle cx="{label_x:.1f}" cy="{label_y:.1f}" r="{r:.1f}" fill="{first}"/>'
                f'<text x="{label_x:.1f}" y="{label_y:.1f}" text-anchor="middle" dominant-baseline="central"'
                f' fill="#111" font-weight="700">{line.place}</text></g>'
            )
            continue
        # A tie: one pill, a segment per place in its line's colour, the numbers side by side.
        step = 1.3 * frame.font
        left = label_x - r
        width = step * len(group)
        places = " ".join(str(line.place) for line in group)
        clip = f"{ident}-tie-{group[0].place}"
        cells = []
        for i, line in enumerate(group):
            cx = left + step * (i + 0.5)
            cells.append(
                f'<rect x="{left + step * i:.1f}" y="{label_y - r:.1f}" width="{step:.1f}"'
                f' height="{2 * r:.1f}" fill="{colours[line.place]}"/>'
                f'<text x="{cx:.1f}" y="{label_y:.1f}" text-anchor="middle" dominant-baseline="central"'
                f' fill="#111" font-weight="700">{line.place}</text>'
            )
        parts.append(
            f'<g class="place-label tied" data-places="{places}"><line x1="{x:.1f}" y1="{y:.1f}"'
            f' x2="{left:.1f}" y2="{label_y:.1f}" stroke="{first}" stroke-width="1.5"/>'
            f'<clipPath id="{clip}"><rect x="{left:.1f}" y="{label_y - r:.1f}"'
            f' width="{width:.1f}" height="{2 * r:.1f}" rx="{r:.1f}"/></clipPath>'
            f'<g clip-path="url(#{clip})">{"".join(cells)}</g>'
            f'<rect x="{left:.1f}" y="{label_y - r:.1f}" width="{width:.1f}" height="{2 * r:.1f}"'
            f' rx="{r:.1f}" fill="none" stroke="#111" stroke-width="1"/></g>'
        )
    return parts


def _axes(chart: PointsChart, frame: _Frame, top: int) -> list[str]:
    parts = []
    step = _tick_step(top)
    for value in range(0, top + 1, step):
        y = frame.y(value, top)
        parts.append(
            f'<line class="grid" x1="{frame.left}" x2="{frame.width - frame.right}" y1="{y:.1f}" y2="{y:.1f}"'
            f' stroke="{GRID_COLOUR}" stroke-width="1"/>'
            f'<text x="{frame.left - 8}" y="{y:.1f}" text-anchor="end" dominant-baseline="central"'
            f' fill="{AXIS_COLOUR}">{value}</text>'
        )
    every = max(1, math.ceil(chart.rounds / (14 if frame is WIDE else 7)))
    base = frame.height - frame.bottom
    for number in range(0, chart.rounds + 1, every):
        x = frame.x(chart, number)
        parts.append(
            f'<text x="{x:.1f}" y="{base + frame.font + 4}" text-anchor="middle"'
            f' fill="{AXIS_COLOUR}">{number}</text>'
        )
    parts.append(
        f'<text x="{(frame.left + frame.width - frame.right) / 2:.1f}" y="{frame.height - 6}"'
        f' text-anchor="middle" fill="{AXIS_COLOUR}">{escape(_("Round"))}</text>'
    )
    parts.append(
        f'<text transform="translate({frame.font},{(frame.top + base) / 2:.1f}) rotate(-90)"'
        f' text-anchor="middle" fill="{AXIS_COLOUR}">{escape(_("Points"))}</text>'
    )
    parts.append(
        f'<path d="M{frame.left},{frame.top}V{base}H{frame.width - frame.right}" fill="none"'
        f' stroke="{AXIS_COLOUR}" stroke-width="1.5"/>'
    )
    return parts


def _nice_top(value: int) -> int:
    step = _tick_step(value)
    return max(step, math.ceil(value / step) * step)


def _tick_step(value: int) -> int:
    for step in itertools.chain((2, 4, 5, 10, 20, 25, 50), itertools.count(100, 100)):
        if value / step <= 6:
            return step
    raise AssertionError("unreachable")  # pragma: no cover


def _line_title(line: Line) -> str:
    total = line.totals[-1] if line.totals else 0
    return _("%(place)d. %(name)s: %(points)s", place=line.place, name=line.name, points=points(total))


def _leader_title(chart: PointsChart, line: Line) -> str:
    """A leader's title, saying "tied" when another leader ends with the same total."""
    title = _line_title(line)
    return _("%(title)s (tied)", title=title) if chart.tied(line) else title


def describe(chart: PointsChart) -> str:
    """The drawing in words (its text alternative): the leaders and where they stand."""
    leaders = "; ".join(_leader_title(chart, line) for line in chart.highlighted)
    return _("Leaders after round %(round)d: %(leaders)s.", round=chart.rounds, leaders=leaders)


def key(chart: PointsChart) -> Markup:
    """The key under the drawing: each leader's colour, place, name and points, and the marks."""
    items = []
    for line, colour in zip(chart.highlighted, LEADER_COLOURS, strict=False):
        items.append(
            Markup(
                '<li><svg class="swatch-line" viewBox="0 0 24 12" aria-hidden="true">'
                '<line x1="1" y1="6" x2="23" y2="6" stroke="{colour}" stroke-width="4"'
                ' stroke-linecap="round"/></svg><span>{title}</span></li>'
            ).format(colour=colour, title=_leader_title(chart, line))
        )
    marks = []
    if any(line.ending == Ending.OUT for line in chart.lines):
        marks.append(
            Markup(
                '<li><svg class="swatch-mark" viewBox="0 0 12 12" aria-hidden="true">'
                '<path d="M2,2L10,10M2,10L10,2"'
                ' stroke="{colour}" stroke-width="2.5" stroke-linecap="round"/></svg><span>{text}</span></li>'
            ).format(colour=OUT_COLOUR, text=_("out: lamp lit first"))
        )
    if any(line.ending == Ending.WITHDREW for line in chart.lines):
        marks.append(
            Markup(
                '<li><svg class="swatch-mark" viewBox="0 0 12 12" aria-hidden="true">'
                '<circle cx="6" cy="6" r="4"'
                ' fill="none" stroke="{colour}" stroke-width="2"/></svg><span>{text}</span></li>'
            ).format(colour=AXIS_COLOUR, text=_("withdrew"))
        )
    return Markup('<ol class="chart-key">{}</ol>{}').format(
        Markup("").join(items),
        Markup('<ul class="chart-marks">{}</ul>').format(Markup("").join(marks)) if marks else "",
    )
