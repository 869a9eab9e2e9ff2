"""The demo game of ``make run`` skips the lamps' check (nobody is at the simulated board to hold its
test button): its journal, its record and its replay say the demo skipped it, not staff. In a real
browser, in French and English, at a TV (1920×1080), a tablet (820×1180) and a phone (390×844), on
the real board service (in-process, simulated board). Screenshots go to ``test-artifacts/pages/``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games.hautetension.record import read_record
from hautetension.commands.run import DEMO_GAME
from store.commands import CommandKind
from store.journal import JournalKind
from tests.hardware.helpers import Rig
from tests.webpanel import helpers, i18n_checks
from tests.webpanel.test_pages_browser import ARTIFACTS, LAYOUT_PROBLEMS, SHOWN_TEXT, TIMEOUT_MS, TOUCH
from tests.webpanel.test_replay import ANA, BEN, BLUFF
from webpanel.app import close_app, create_app

pytestmark = pytest.mark.browser

SIZES = [(1920, 1080), (820, 1180), (390, 844)]
SAID = {"fr": ("démonstration", "équipe"), "en": ("the demo", "staff")}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Rig]]:
    """The demo game as ``make run`` starts it, played to its end (Ana lights her own lamp)."""
    folder = tmp_path_factory.mktemp("demo-replay")
    settings = helpers.make_settings(folder)
    rig = Rig(folder, database=settings.database)
    app = create_app({"PANEL": settings, "TESTING": True})
    served = helpers.Served(app)
    try:
        rig.command(CommandKind.NEW_GAME, DEMO_GAME)
        for i, slot in enumerate(ANA):
            rig.place(slot)
            if i < len(BEN):
                rig.place(BEN[i], BLUFF[i])
        assert rig.state["game"]["status"] == "over"
        yield served.url, rig
    finally:
        served.close()
        close_app(app)
        rig.close()


def test_the_journal_and_the_record_say_the_demo_skipped_the_check(demo: tuple[str, Rig]) -> None:
    import urllib.request

    base, rig = demo
    checks = [e.public for e in rig.journal.tail(0, limit=10_000) if e.kind is JournalKind.PREGAME_CHECK]
    assert [(c["result"], c["by"]) for c in checks] == [("skipped", "demo")]
    with urllib.request.urlopen(base + "/replay/board/1/record.htn") as response:
        text = response.read().decode()
    assert '[Check "skipped"]' in text and '[CheckBy "demo"]' in text
    record = read_record(text)
    assert record.check is not None and record.check.by == "demo"


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_replay_says_the_demo_skipped_the_check(
    chromium: Any, demo: tuple[str, Rig], lang: str, tmp_path: Path
) -> None:
    base, _rig = demo
    said, not_said = SAID[lang]
    context = chromium.new_context(locale="fr-FR" if lang == "fr" else "en-GB")
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        errors = helpers.watch_errors(page)
        for size in SIZES:
            page.set_viewport_size({"width": size[0], "height": size[1]})
            page.goto(base + "/replay/board/1")
            page.wait_for_selector("#timeline li")
            line = page.text_content("#replay-check") or ""
            assert said in line and not_said not in line, line
            folder = ARTIFACTS / lang
            folder.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(folder / f"replay-demo-{size[0]}x{size[1]}.png"), full_page=True)
            assert page.evaluate(LAYOUT_PROBLEMS, size in TOUCH) == []
            if lang == "fr":
                assert i18n_checks.english_words_in(page.evaluate(SHOWN_TEXT)) == []
        assert errors == []
    finally:
        context.close()
