"""The staff pages in French with the real board service: what the service says it is doing and what
the self-test found are said in French, not left in the service's English (marked or not)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.webpanel import i18n_checks
from tests.webpanel.helpers import PIN, Api, start_game, wait_for, watch_errors
from tests.webpanel.test_end_to_end import board_service  # noqa: F401  (the real service, a fixture)

pytestmark = pytest.mark.browser

TIMEOUT_MS = 15_000


def _staff_page(browser: Any, served: Any, path: str, size: tuple[int, int]) -> tuple[Any, list[str]]:
    page = browser.new_context(locale="fr-FR", viewport={"width": size[0], "height": size[1]}).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = watch_errors(page)
    page.goto(f"{served.url}/staff/login?next={path}")
    page.fill("#pin", PIN)
    page.click("#login-form button[type=submit]")
    return page, errors


def _no_english(html: str) -> list[str]:
    """English words, even where the page marks them as English (the check of the other pages lets
    lang="en" through: the service's own words were shown that way)."""
    return i18n_checks.english_words(html.replace(' lang="en"', ""))


@pytest.mark.parametrize("size", [(1920, 1080), (820, 1180), (390, 844)], ids=["tv", "tablet", "phone"])
def test_the_service_state_and_the_self_test_speak_french(
    browser: Any, served: Any, board_service: Any, size: tuple[int, int], tmp_path: Path,  # noqa: F811
) -> None:
    staff = Api(served.app.test_client())
    assert staff.login().status_code == 200
    start_game(staff)
    assert staff.post("/api/staff/game/abandon").status_code == 200
    wait_for(lambda: staff.get("/api/staff/health").get_json()["health"]["service"].get("game_status")
             == "abandoned", 15)
    page, errors = _staff_page(browser, served, "/staff", size)
    status = page.locator("#health-summary dd").nth(2)
    page.wait_for_function("() => document.querySelectorAll('#health-summary dd').length > 2")
    assert status.text_content() == "partie 1 abandonnée", status.text_content()
    assert status.get_attribute("lang") is None
    assert _no_english(page.inner_html("#health-summary")) == []
    page.screenshot(path=str(tmp_path / f"health-fr-{size[0]}.png"), full_page=True)

    page.goto(f"{served.url}/staff/tests")
    page.click("#self-test")
    page.wait_for_selector("#self-test-report:not([hidden]) #self-test-checks tbody tr")
    details = page.locator("#self-test-checks tbody td:nth-child(3)")
    assert details.count() >= 2
    assert [d for d in details.all() if d.get_attribute("lang")] == []
    assert _no_english(page.inner_html("#self-test-checks")) == [], page.inner_text("#self-test-checks")
    page.screenshot(path=str(tmp_path / f"self-test-fr-{size[0]}.png"), full_page=True)
    assert errors == []


def test_a_game_in_its_lamps_check_leaves_no_separator_dangling(
    browser: Any, served: Any, board_service: Any,  # noqa: F811
) -> None:
    staff = Api(served.app.test_client())
    assert staff.login().status_code == 200
    start_game(staff, check="ask")  # nobody is to play before the check: nothing to say after "0 coup"
    page, errors = _staff_page(browser, served, "/staff/game", (820, 1180))
    summary = page.locator("#running-summary")
    page.wait_for_url("**/staff/game")
    summary.wait_for()
    page.wait_for_function(
        "() => document.getElementById('running-summary').textContent.startsWith('Partie')"
    )
    assert summary.text_content() == "Partie 1 · 0 coup", summary.text_content()
    assert errors == []
