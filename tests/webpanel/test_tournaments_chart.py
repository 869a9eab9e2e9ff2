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
    close = PointsChart(
        rounds=1, lines=tuple(Line(name=n, place=i + 1, totals=(4,)) for i, n in enumerate("ABC"))
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
