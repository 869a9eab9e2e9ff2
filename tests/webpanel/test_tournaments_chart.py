"""The standings chart: each player's total round by round, drawn as SVG on the server."""

from __future__ import annotations

import re
from xml.etree import ElementTree

from flask import Flask

from webpanel.tournaments import chart
from webpanel.tournaments.chart import Ending, Line, PointsChart

SVG = "{http://www.w3.org/2000/svg}"


def _chart() -> PointsChart:
    return PointsChart(
        rounds=3,
        lines=(
            Line(name="Ada", place=1, totals=(4, 8, 12)),
            Line(name="Bob", place=2, totals=(3, 6, 11)),
            Line(name="Cid", place=3, totals=(2, 6, 10)),
            Line(name="Dée", place=4, totals=(4, 4), ending=Ending.OUT, ended_after=2),
            Line(name="Éva", place=5, totals=(0,), ending=Ending.WITHDREW, ended_after=1),
        ),
    )


def _drawings(app: Flask, data: PointsChart) -> list[ElementTree.Element]:
    with app.test_request_context("/?lang=en"):
        app.preprocess_request()
        html = str(chart.figure(data))
    svgs = re.findall(r"<svg class=\"chart .*?</svg>", html, re.S)
    return [
        ElementTree.fromstring(s.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1))
        for s in svgs
    ]


def test_the_leaders_are_coloured_the_others_grey_and_the_ends_marked(app: Flask) -> None:
    wide, narrow = _drawings(app, _chart())
    for drawing in (wide, narrow):
        leaders = drawing.findall(f"{SVG}polyline[@class='leader']")
        others = drawing.findall(f"{SVG}polyline[@class='other']")
        assert sorted(p.get("stroke") for p in leaders) == sorted(chart.LEADER_COLOURS[:3])
        assert {p.get("stroke") for p in others} == {chart.OTHER_COLOUR} and len(others) == 2
        assert len(drawing.findall(f"{SVG}path[@class='out-mark']")) == 1
        assert len(drawing.findall(f"{SVG}circle[@class='withdrew-mark']")) == 1
        # Each line starts at round 0 with 0 points and has one point per round played.
        points = [p.get("points", "").split() for p in leaders + others]
        assert sorted(len(p) for p in points) == [2, 3, 4, 4, 4]
        desc = drawing.find(f"{SVG}desc")
        assert desc is not None and desc.text == (
            "Leaders after round 3: 1. Ada: 12 points; 2. Bob: 11 points; 3. Cid: 10 points."
        )


def test_the_place_labels_never_cover_one_another(app: Flask) -> None:
    # 13, 12 and 11 points on a scale to 20: the three ends are closer than a marker is high.
    close = PointsChart(
        rounds=1, lines=(*(Line(name=n, place=i + 1, totals=(13 - i,)) for i, n in enumerate("ABC")),
                         Line(name="D", place=4, totals=(20,)))
    )
    for drawing in _drawings(app, close):
        ys = sorted(float(c.get("cy", "0")) for c in drawing.iter(f"{SVG}circle"))
        radius = float(next(drawing.iter(f"{SVG}circle")).get("r", "0"))
        assert all(b - a >= 2 * radius for a, b in zip(ys, ys[1:], strict=False)), ys
        height = float(drawing.get("viewBox", "0 0 0 0").split()[3])
        assert ys[-1] + radius <= height


def test_no_chart_before_the_first_round(app: Flask) -> None:
    with app.test_request_context("/"):
        assert str(chart.figure(PointsChart(rounds=0, lines=()))) == ""


def test_the_chart_is_in_the_page_language(app: Flask) -> None:
    with app.test_request_context("/?lang=fr"):
        app.preprocess_request()
        html = str(chart.figure(_chart()))
    assert "Total des points tour par tour" in html and "éliminé\u00a0: lampe allumée la première" in html
    assert "1. Ada\u00a0: 12 points" in html


def _tie() -> PointsChart:
    """Bob, Cid and Dée tied on 10 points after the same rounds (the tie-break sets their places);
    Bob and Cid ran together all along; Éva below."""
    return PointsChart(
        rounds=3,
        lines=(
            Line(name="Ada", place=1, totals=(4, 8, 12)),
            Line(name="Bob", place=2, totals=(4, 6, 10)),
            Line(name="Cid", place=3, totals=(4, 6, 10)),
            Line(name="Dée", place=4, totals=(2, 6, 10)),
            Line(name="Éva", place=5, totals=(3, 6, 9)),
        ),
    )


def test_tied_leaders_share_one_marker_and_the_key_says_tied(app: Flask) -> None:
    """Lines that end together read as a tie: one marker holds their places side by side (never one
    below another, which would read as fewer points), and the key and the text alternative say
    tied. A player tied on points with the last leader is one of the leaders."""
    for drawing in _drawings(app, _tie()):
        labels = drawing.findall(f"{SVG}g[@class='place-label']")
        tied = drawing.findall(f"{SVG}g[@class='place-label tied']")
        assert [g.get("data-places") for g in tied] == ["2 3 4"]
        assert len(labels) == 1  # Ada alone
        numbers = [t.text for t in tied[0].iter(f"{SVG}text")]
        assert numbers == ["2", "3", "4"]
        xs = [float(t.get("x", "0")) for t in tied[0].iter(f"{SVG}text")]
        ys = {t.get("y") for t in tied[0].iter(f"{SVG}text")}
        assert xs == sorted(xs) and len(ys) == 1  # side by side, on one level
        # The shared marker stays in the drawing (its right margin grew for it).
        right = max(float(r.get("x", "0")) + float(r.get("width", "0")) for r in tied[0].iter(f"{SVG}rect"))
        assert right <= float(drawing.get("viewBox", "0 0 0 0").split()[2])
        leaders = drawing.findall(f"{SVG}polyline[@class='leader']")
        assert len(leaders) == 4 and {p.get("stroke") for p in leaders} == set(chart.LEADER_COLOURS)
        desc = drawing.find(f"{SVG}desc")
        assert desc is not None and desc.text == (
            "Leaders after round 3: 1. Ada: 12 points; 2. Bob: 10 points (tied); 3. Cid: 10 points (tied);"
            " 4. Dée: 10 points (tied)."
        )
    with app.test_request_context("/?lang=en"):
        app.preprocess_request()
        key = str(chart.key(_tie()))
    assert "2. Bob: 10 points (tied)" in key and "1. Ada: 12 points</span>" in key


def test_where_leaders_lines_run_together_every_colour_shows_and_the_first_place_is_on_top(
    app: Flask,
) -> None:
    """Bob (2nd) and Cid (3rd) have the same totals every round (Ada too in round 1), and all three
    tied players the same last round: the lower places' lines are drawn first and show as wider
    bands under the higher places' lines, so no colour hides another; the first place's line is
    drawn last."""
    for drawing in _drawings(app, _tie()):
        leaders = drawing.findall(f"{SVG}polyline[@class='leader']")
        assert [p.get("stroke") for p in leaders] == list(reversed(chart.LEADER_COLOURS))  # 1st last
        bands = drawing.findall(f"{SVG}line[@class='tie-band']")
        blue, green, salmon = chart.LEADER_COLOURS[1:4]
        by_colour: dict[str | None, list[float]] = {}
        for band in bands:
            by_colour.setdefault(band.get("stroke"), []).append(float(band.get("stroke-width", "0")))
        # Round 1: Ada, Bob and Cid all score 4; then Cid runs under Bob; Dée under both in round 3.
        assert by_colour[blue] == [7.0]
        assert sorted(by_colour[green]) == [7.0, 7.0, 10.0] and by_colour[salmon] == [10.0]
        children = list(drawing)
        first_leader = children.index(leaders[0])
        assert all(children.index(b) < first_leader for b in bands)  # under every leader's line
        widths = [float(b.get("stroke-width", "0")) for b in bands]
        assert widths == sorted(widths, reverse=True)  # the widest band at the bottom


def test_players_without_a_result_yet_are_tied_with_nobody(app: Flask) -> None:
    """Before their table's result is in, players have no total: they are not a tie at 0."""
    waiting = PointsChart(
        rounds=1,
        lines=(
            Line(name="Ada", place=1, totals=(4,)),
            Line(name="Bob", place=2, totals=(2,)),
            Line(name="Cid", place=3, totals=()),
            Line(name="Dée", place=4, totals=()),
        ),
    )
    assert [line.name for line in waiting.highlighted] == ["Ada", "Bob", "Cid"]
    for drawing in _drawings(app, waiting):
        assert drawing.findall(f"{SVG}g[@class='place-label tied']") == []
        desc = drawing.find(f"{SVG}desc")
        assert desc is not None and "tied" not in (desc.text or "")
