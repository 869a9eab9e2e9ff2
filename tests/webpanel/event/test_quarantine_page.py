"""Staff see the messages the server refused from boards on the event page: board, topic, reason, when,
the first bytes (escaped), in French and English; on a TV, a tablet and a phone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from store.dialect import Connection
from store.event.intake import Intake
from store.event.quarantine import Refusal
from store.event.settings import EventSettings
from tests.webpanel import helpers, i18n_checks
from tests.webpanel.event.test_online_browser import SIZES, TOUCH, logged_in
from tests.webpanel.helpers import Api
from tests.webpanel.test_pages_browser import LAYOUT_PROBLEMS, SHOWN_TEXT
from webpanel.app import close_app, create_app

ARTIFACTS = i18n_checks.REPO / "test-artifacts" / "pages" / "quarantine"
HOSTILE = b'<script>alert("x")</script>\x00\xff' + b"{" * 400


def refuse(intake: Intake, one: str = "board-2", other: str = "board-3") -> None:
    deep = "an outbox row nests arrays and objects more than 16 deep"
    intake.receive(
        [
            (one, Refusal("outbox", deep, HOSTILE)),
            (one, Refusal("outbox", "an outbox row's body is an object", b'{"seq":4}', "h1", 4, 1)),
            (other, Refusal("live", "a live view is 1050105 bytes, more than 32768", b"x" * 1_050_105)),
        ]
    )


def test_staff_see_what_was_refused_escaped_in_both_languages(staff: Api, intake: Intake) -> None:
    english = staff.get("/event?lang=en").get_data(as_text=True)
    assert "Messages refused from boards" not in english  # nothing refused: no section
    refuse(intake)
    english = staff.get("/event?lang=en").get_data(as_text=True)
    assert "Messages refused from boards" in english and "board-2: 2 refused" in english
    assert "an outbox row nests arrays and objects more than 16 deep" in english
    assert "(row 4)" in english and "(1050105 bytes in all)" in english
    assert "<script>" not in english
    assert "&lt;script&gt;alert(&#34;x &#34;)&lt;/script&gt;\\x00\\ xff{{" in english  # in groups of 16
    french = staff.get("/event?lang=fr").get_data(as_text=True)
    assert "Messages refusés venant des plateaux" in french and "board-3\u00a0: 1 refusé" in french
    assert "(ligne 4)" in french and "Premiers octets" in french


@pytest.fixture
def served(tmp_path: Path) -> Iterator[helpers.Served]:
    app: Flask = create_app(
        {
            "PANEL": helpers.make_settings(tmp_path),
            "TESTING": True,
            "EVENT": EventSettings(event="paris-2026", database=tmp_path / "central.db"),
        }
    )
    conn: Connection = app.extensions["db_pool"].get()
    refuse(Intake(conn, confirm_timeout=60), "plateau-7", "plateau-12")  # ids as French organisers name them
    serving = helpers.Served(app)
    yield serving
    serving.close()
    close_app(app)


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_refused_messages_on_a_tv_a_tablet_and_a_phone(
    served: helpers.Served, browser: Any, lang: str
) -> None:
    page = logged_in(browser, served.url, lang)
    errors = helpers.watch_errors(page, [])
    problems: list[str] = []
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(f"{served.url}/event")
        page.wait_for_selector("#quarantine li")
        assert page.locator("#quarantine li").count() == 3
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        (ARTIFACTS / lang).mkdir(parents=True, exist_ok=True)
        shot = ARTIFACTS / lang / f"quarantine-{size[0]}x{size[1]}.png"
        page.locator("#quarantine").screenshot(path=str(shot))
        found = set(page.evaluate(LAYOUT_PROBLEMS, size in TOUCH))
        if lang == "fr":
            english = i18n_checks.english_words_in(page.evaluate(SHOWN_TEXT))
            assert english == [], f"the event page in French shows English: {english}"
        # What the section itself adds (the rest of the page is checked by its own tests).
        page.evaluate("() => document.querySelector('#quarantine').remove()")
        added = found - set(page.evaluate(LAYOUT_PROBLEMS, size in TOUCH))
        problems += [f"{size[0]}×{size[1]}: {p}" for p in sorted(added)]
    assert problems == [], "\n".join(problems)
    assert errors == []
