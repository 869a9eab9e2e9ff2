"""Every tournament page in a real browser, in French and English, at the sizes people see them: the
wall display on a TV (1920×1080), the scorekeeper's tablet (820×1180), a laptop (1280×800) and a
phone (390×844); and the pairings printed on A4 and Letter.

The checks are those of the other areas' pages (test_pages_browser.py: nothing overflows sideways,
no word broken across lines, 44 px touch targets on the tablet and the phone, no English word on a
French page, axe-core's WCAG 2.1 A and AA), plus: the wall display fits the screen without scrolling
whatever the tournament's size (9 players, 40 players a page at a time), the result form asks who
placed the pawn only for lamps that lit together, and the printed pairings are black on white with
every table whole. Screenshots (and the printed PDFs) go to ``test-artifacts/pages/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from store.db import connect
from store.tournaments import Tournaments
from tests.webpanel import helpers, i18n_checks
from tests.webpanel.test_pages_browser import ARTIFACTS, LAYOUT_PROBLEMS, SHOWN_TEXT, SIZES, TIMEOUT_MS, TOUCH
from webpanel.app import create_app

pytestmark = pytest.mark.browser

TV = (1920, 1080)
PAPER = {"A4": (210, 297), "Letter": (215.9, 279.4)}
"""Paper sizes in mm; the pages print with 12 mm margins (tournaments.css, @page)."""
MARGIN_MM = 12


def _form(staff: helpers.Api, url: str, data: dict[str, str] | None = None) -> Any:
    response = staff.client.post(url, data={"csrf_token": staff.token, **(data or {})})
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    return response


NAMES = [
    "Adélaïde",
    "Bartholomé",
    "Cunégonde",
    "Dieudonné",
    "Éléonore",
    "Fulbert",
    "Gwendoline",
    "Hippolyte",
    "Iphigénie",
]


def _tournament(staff: helpers.Api, database: Path, name: str, names: list[str], rounds: int) -> int:
    """A tournament with handicap, *rounds* rounds played (the last one left half entered) and, in
    round 2, a pawn that lit two lamps at once."""
    response = _form(
        staff, "/tournaments", {"name": name, "seed": "11", "handicap": "on", "handicap_step": "4"}
    )
    tid = int(response.headers["Location"].rstrip("/").split("/")[-1])
    _form(staff, f"/tournaments/{tid}/players", {"names": "\n".join(names)})
    store = Tournaments(connect(database))
    for number in range(1, rounds + 1):
        _form(staff, f"/tournaments/{tid}/rounds")
        pending = store.load(tid).pending_tables()
        last = number == rounds
        for table in pending[: 1 if last else None]:
            n = len(table.seats)
            if number == 2 and table.number == 1 and n >= 3:
                lightings = [{"seats": [1, 2], "by": 0}]  # seats 2 and 3 together, by seat 1
            else:
                lightings = [{"seats": [seat]} for seat in range(n - 1, 0, -1)][: n - 1]
            url = f"/api/tournaments/{tid}/rounds/{number}/tables/{table.number}/result"
            assert staff.post(url, {"lightings": lightings}).status_code == 201
    return tid


@pytest.fixture(scope="module")
def panel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[helpers.Served, dict[str, int]]]:
    settings = helpers.make_settings(tmp_path_factory.mktemp("tournament-pages"))
    app: Flask = create_app({"PANEL": settings, "TESTING": True})
    served = helpers.Served(app)
    try:
        staff = helpers.Api(app.test_client())
        assert staff.login().status_code == 200
        nine = _tournament(staff, settings.database, "Coupe de Lyon 2026", NAMES, rounds=3)
        forty = _tournament(
            staff, settings.database, "Grand tournoi", [f"Joueur {i:02d}" for i in range(1, 41)], rounds=2
        )
        yield served, {"nine": nine, "forty": forty}
    finally:
        served.close()


@pytest.fixture(scope="module", params=["fr", "en"])
def visitor(request: pytest.FixtureRequest, chromium: Any, panel: Any) -> Iterator[Any]:
    """A scorekeeper's tablet in one language (the browser asks for it), logged in."""
    served, tournaments = panel
    lang: str = request.param
    with helpers.staff_tablet(chromium, served.url, lang, timeout_ms=TIMEOUT_MS) as page:
        yield lang, page, served.url, tournaments


def _shoot(page: Any, lang: str, name: str, size: tuple[int, int], *, full_page: bool = True) -> None:
    folder = ARTIFACTS / lang
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}-{size[0]}x{size[1]}.png"), full_page=full_page)


def _settle(page: Any) -> None:
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


PAGES = {
    "index": "/tournaments",
    "standings": "/tournaments/{nine}",
    "pairings": "/tournaments/{nine}/rounds/3",
    "player": "/tournaments/{nine}/players/2",
    "entry": "/tournaments/{nine}/rounds/3/tables/2",
    "entry-done": "/tournaments/{nine}/rounds/2/tables/1",
    "audit": "/tournaments/{nine}/audit",
    "undo": "/tournaments/{nine}/undo",
    "wall": "/tournaments/{nine}?kiosk=1",
    "wall-40": "/tournaments/{forty}?kiosk=1",
}
WALLS = {"wall", "wall-40"}


def _check_layout(page: Any, lang: str, name: str, sizes: list[tuple[int, int]]) -> list[str]:
    problems = []
    for size in sizes:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        _settle(page)
        _shoot(page, lang, f"tournament-{name}", size, full_page=name not in WALLS)
        problems += [
            f"{name} {size[0]}×{size[1]}: {p}" for p in page.evaluate(LAYOUT_PROBLEMS, size in TOUCH)
        ]
    return problems


@pytest.mark.parametrize("name", list(PAGES))
def test_tournament_page_at_every_size(visitor: Any, name: str) -> None:
    lang, page, base, tournaments = visitor
    errors = helpers.watch_errors(page, [])
    page.goto(base + PAGES[name].format(**tournaments))
    assert page.get_attribute("html", "lang") == lang
    # The wall display is for screens in landscape: a TV, a laptop.
    sizes = [s for s in SIZES if s[0] > s[1]] if name in WALLS else SIZES
    problems = _check_layout(page, lang, name, sizes)
    if lang == "fr":
        english = i18n_checks.english_words_in(page.evaluate(SHOWN_TEXT))
        assert english == [], f"{name} in French shows English: {english}"
    assert problems == [], "\n".join(problems)
    assert errors == []


@pytest.mark.parametrize("name", list(PAGES))
def test_tournament_page_passes_axe(visitor: Any, name: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    lang, page, base, tournaments = visitor
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(base + PAGES[name].format(**tournaments))
    results = Axe().run(
        page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
    )
    assert results.violations_count == 0, results.generate_report()


FITS = """() => {
  const rows = Array.from(document.querySelectorAll(".wall-standings tbody tr"));
  const chart = document.querySelector(".wall-chart svg.chart-wide");
  const bottom = Math.max(...rows.map(r => r.getBoundingClientRect().bottom),
                          chart ? chart.getBoundingClientRect().bottom : 0);
  return { rows: rows.length, bottom, height: innerHeight,
           scrollHeight: document.documentElement.scrollHeight,
           chartHeight: chart ? chart.getBoundingClientRect().height : 0,
           next: document.getElementById("wall").dataset.next };
}"""


def test_the_wall_display_fits_a_tv_for_any_tournament_size(visitor: Any) -> None:
    """9 players on one screen with the chart; 40 players two pages of 24, each on the screen whole,
    the display going on to the next page when it refreshes and back to the first after the last."""
    lang, page, base, tournaments = visitor
    page.set_viewport_size({"width": TV[0], "height": TV[1]})
    seen = []
    for path in (
        f"/tournaments/{tournaments['nine']}?kiosk=1",
        f"/tournaments/{tournaments['forty']}?kiosk=1",
        f"/tournaments/{tournaments['forty']}?kiosk=1&page=2",
    ):
        page.goto(base + path)
        fit = page.evaluate(FITS)
        assert fit["bottom"] <= fit["height"] and fit["scrollHeight"] <= fit["height"], (path, fit)
        assert fit["chartHeight"] > 300, (path, fit)  # the chart is there, readable across the room
        seen.append(fit)
    assert [f["rows"] for f in seen] == [9, 24, 16]
    assert "page=" not in seen[0]["next"]  # one page: it refreshes itself
    assert seen[1]["next"].endswith("page=2") and seen[2]["next"].endswith("page=1")
    page.goto(base + f"/tournaments/{tournaments['forty']}?kiosk=1&page=2")
    _shoot(page, lang, "tournament-wall-40-page-2", TV, full_page=False)


def test_the_wall_display_turns_its_pages(visitor: Any) -> None:
    lang, page, base, tournaments = visitor
    page.set_viewport_size({"width": TV[0], "height": TV[1]})
    page.clock.install()
    page.goto(base + f"/tournaments/{tournaments['forty']}?kiosk=1")
    first = page.text_content("#wall .wall-standings tbody tr td.player-name")
    page.clock.run_for(21_000)
    page.wait_for_selector("#wall[data-next$='page=1']", state="attached")
    assert page.text_content("#wall .wall-standings tbody tr td.player-name") != first
    assert page.locator("#wall .wall-standings tbody tr").count() == 16
    page.clock.run_for(21_000)
    page.wait_for_selector("#wall[data-next$='page=2']", state="attached")
    assert page.text_content("#wall .wall-standings tbody tr td.player-name") == first


def test_the_result_form_asks_who_placed_the_pawn_only_for_lamps_lit_together(visitor: Any) -> None:
    lang, page, base, tournaments = visitor
    page.set_viewport_size({"width": 820, "height": 1180})
    page.goto(base + f"/tournaments/{tournaments['nine']}/rounds/3/tables/2")
    options = page.locator("select[name=lit0] option").all_text_contents()
    n = page.locator("select.lit-choice").count()
    first = "1re lampe allumée" if lang == "fr" else "1st lamp lit"
    never = "jamais allumée" if lang == "fr" else "never lit"
    assert options[0] == never and options[1] == first and len(options) == n  # never, then n - 1 lamps
    assert page.locator(".placer:visible").count() == 0
    page.select_option("select[name=lit0]", "1")
    page.select_option("select[name=lit1]", "2")
    assert page.locator(".placer:visible").count() == 0
    page.select_option("select[name=lit2]", "2")
    assert page.locator(".placer:visible").count() == 1 and page.is_visible("#placer-2")
    _shoot(page, lang, "tournament-entry-together", (820, 1180))
    assert page.evaluate(LAYOUT_PROBLEMS, True) == []
    # Sent without saying who placed it (no script needed: the server asks too).
    page.click("button[value=preview]")
    page.wait_for_selector(".msg.error")
    page.wait_for_load_state("load")
    assert page.is_visible("#placer-2") and page.locator(".placer:visible").count() == 1
    error = page.text_content(".msg.error") or ""
    assert ("qui a posé le pion" if lang == "fr" else "say who placed the pawn") in error
    page.select_option("select[name=by2]", "3")
    page.click("button[value=preview]")
    page.wait_for_selector("#preview")
    page.wait_for_load_state("load")  # the page's script runs once the page has loaded
    page.select_option("select[name=lit2]", "")
    assert page.locator(".placer:visible").count() == 0


PRINTED = """() => {
  const problems = [];
  const colour = (e, p) => getComputedStyle(e)[p];
  if (colour(document.body, "backgroundColor") !== "rgb(255, 255, 255)") {
    problems.push("the page is not white");
  }
  for (const e of document.querySelectorAll(".pairing, .pairing *")) {
    if (!e.getClientRects().length) { continue; }  // not printed
    if (colour(e, "color") !== "rgb(0, 0, 0)") {
      problems.push(e.tagName + " is not black: " + colour(e, "color"));
    }
  }
  if (document.querySelector("header.top").offsetParent !== null) { problems.push("the navigation prints"); }
  return problems;
}"""


@pytest.mark.parametrize("paper", list(PAPER))
def test_the_pairings_print_black_on_white_with_every_table_whole(visitor: Any, paper: str) -> None:
    lang, page, base, tournaments = visitor
    width_mm, height_mm = PAPER[paper]
    px = 96 / 25.4
    printable = (round((width_mm - 2 * MARGIN_MM) * px), round((height_mm - 2 * MARGIN_MM) * px))
    page.goto(base + f"/tournaments/{tournaments['forty']}/rounds/2")
    page.emulate_media(media="print")
    try:
        page.set_viewport_size({"width": printable[0], "height": printable[1]})
        _settle(page)
        _shoot(page, lang, f"tournament-pairings-print-{paper}", printable)
        assert page.evaluate(PRINTED) == []
        assert page.evaluate(LAYOUT_PROBLEMS, False) == []
        # A table is never split between two sheets: each asks not to be, and fits on one.
        tables = page.evaluate(
            "() => Array.from(document.querySelectorAll('.pairing'), e =>"
            " [getComputedStyle(e).breakInside, e.getBoundingClientRect().height])"
        )
        assert len(tables) == 10
        assert all(avoid == "avoid" and height < printable[1] for avoid, height in tables), tables
        page.pdf(path=str(ARTIFACTS / lang / f"tournament-pairings-{paper}.pdf"), format=paper)
    finally:
        page.emulate_media(media="screen")


STATUS_COLUMN = """() => Array.from(document.querySelectorAll("#wall table.standings"), table => ({
  heads: Array.from(table.querySelectorAll("thead th"), th => th.textContent.trim()),
  cells: Array.from(table.querySelectorAll("tbody tr"), tr => tr.cells.length),
  statuses: Array.from(table.querySelectorAll("tbody tr"),
                       tr => tr.cells.length > 3 ? tr.cells[3].textContent.trim() : null),
}))"""


def test_the_wall_shows_the_status_column_only_when_it_says_something(visitor: Any, panel: Any) -> None:
    """While every player is in contention the wall has no Status column (it would be empty for
    everyone); once a player withdraws, the column is there and says so."""
    lang, page, base, _tournaments = visitor
    served, _ = panel
    staff = helpers.Api(served.app.test_client())
    assert staff.login().status_code == 200
    tid = _tournament(staff, served.app.config["PANEL"].database, f"Statuts {lang}", NAMES[:6], rounds=1)
    page.set_viewport_size({"width": TV[0], "height": TV[1]})
    page.goto(base + f"/tournaments/{tid}?kiosk=1")
    status = "Statut" if lang == "fr" else "Status"
    tables = page.evaluate(STATUS_COLUMN)
    assert all(status not in t["heads"] and set(t["cells"]) == {3} for t in tables), tables
    _shoot(page, lang, "tournament-wall-no-status", TV, full_page=False)
    _form(staff, f"/tournaments/{tid}/players/2/withdraw")
    page.goto(base + f"/tournaments/{tid}?kiosk=1")
    tables = page.evaluate(STATUS_COLUMN)
    assert tables[0]["heads"][-1] == status and set(tables[0]["cells"]) == {4}, tables
    withdrawn = "retiré" if lang == "fr" else "withdrawn"
    assert [s for s in tables[0]["statuses"] if s] == [withdrawn], tables
    _shoot(page, lang, "tournament-wall-status", TV, full_page=False)
    assert page.evaluate(LAYOUT_PROBLEMS, False) == []


def test_the_tournaments_page_tells_a_visitor_how_staff_create_one(chromium: Any, panel: Any) -> None:
    """Logged out, the list says staff create tournaments and links to the staff login, which leads
    back to the list with its form."""
    served, _ = panel
    for lang in ("fr", "en"):
        context = chromium.new_context(locale="fr-FR" if lang == "fr" else "en-GB")
        try:
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            for size in SIZES:
                page.set_viewport_size({"width": size[0], "height": size[1]})
                page.goto(served.url + "/tournaments")
                assert page.locator("#create").count() == 0
                note = page.text_content("#staff-create") or ""
                assert ("personnel" if lang == "fr" else "staff") in note.lower(), note
                _shoot(page, lang, "tournament-index-visitor", size)
                assert page.evaluate(LAYOUT_PROBLEMS, size in TOUCH) == []
                if lang == "fr":
                    assert i18n_checks.english_words_in(page.evaluate(SHOWN_TEXT)) == []
            page.click("#staff-create a")
            page.wait_for_url(re.compile(r"/staff/login\?next=(/|%2F)tournaments$"))
            page.fill("#pin", helpers.PIN)
            page.click("#login-form button[type=submit]")
            page.wait_for_url(re.compile(r"/tournaments$"))
            page.wait_for_selector("#create")
        finally:
            context.close()


TIES = """() => Array.from(document.querySelectorAll("svg.chart"), svg => ({
  shown: svg.getBoundingClientRect().width > 0,
  tied: Array.from(svg.querySelectorAll(".place-label.tied"), g => g.dataset.places),
  single: svg.querySelectorAll(".place-label:not(.tied)").length,
}))"""


def test_the_chart_shows_tied_leaders_as_a_tie(visitor: Any, panel: Any) -> None:
    """Eight players after one round of two tables: two won their table (4 points each) and two came
    second (3): the chart's markers hold the tied places side by side, the key says tied."""
    lang, page, base, _tournaments = visitor
    served, _ = panel
    staff = helpers.Api(served.app.test_client())
    assert staff.login().status_code == 200
    database = served.app.config["PANEL"].database
    response = _form(staff, "/tournaments", {"name": f"Ex aequo {lang}", "seed": "5"})
    tid = int(response.headers["Location"].rstrip("/").split("/")[-1])
    _form(staff, f"/tournaments/{tid}/players", {"names": "\n".join(NAMES[:8])})
    _form(staff, f"/tournaments/{tid}/rounds")
    for table in Tournaments(connect(database)).load(tid).pending_tables():  # the same result at both
        lightings = [{"seats": [seat]} for seat in range(len(table.seats) - 1, 0, -1)]
        url = f"/api/tournaments/{tid}/rounds/1/tables/{table.number}/result"
        assert staff.post(url, {"lightings": lightings}).status_code == 201
    tied_word = "ex æquo" if lang == "fr" else "tied"
    for path, sizes in ((f"/tournaments/{tid}", [TV, (820, 1180), (390, 844)]),
                        (f"/tournaments/{tid}?kiosk=1", [TV])):
        for size in sizes:
            page.set_viewport_size({"width": size[0], "height": size[1]})
            page.goto(base + path)
            drawings = [d for d in page.evaluate(TIES) if d["shown"]]
            assert len(drawings) == 1, drawings
            assert drawings[0]["tied"] == ["1 2", "3 4"] and drawings[0]["single"] == 0, drawings
            assert tied_word in (page.text_content(".chart-key") or "")
            name = "tournament-chart-tie" + ("-wall" if "kiosk" in path else "")
            _shoot(page, lang, name, size, full_page="kiosk" not in path)
            assert page.evaluate(LAYOUT_PROBLEMS, size in TOUCH) == []
