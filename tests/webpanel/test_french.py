"""French typography the catalogue cannot say by itself: « de » elided before a name (« les pions
d’Ana », « de Ben »), a no-break space before « : ; ? ! », no doubled or nested wording of a seat."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask

from tools import catalogs
from webpanel import french

NAMES = [
    # (name, elided): a vowel, an accented vowel, a capital accented vowel, a mute h, a consonant, y
    ("Ana", True),
    ("Eve", True),
    ("éloïse", True),
    ("Éloïse", True),
    ("Hugo", True),
    ("Hélène", True),
    ("Ben", False),
    ("Cleo", False),
    ("Yann", True),
    ("Ordinateur (moyen)", True),
    ("X", False),
    ("Hr", False),
]


@pytest.mark.parametrize("name, elided", NAMES)
def test_de_before_a_name(name: str, elided: bool) -> None:
    assert french.de(name) == (f"d’{name}" if elided else f"de {name}")
    assert french.fill("Dévoiler les pions de %(name)s", {"name": name}) == (
        f"Dévoiler les pions d’{name}" if elided else f"Dévoiler les pions de {name}"
    )
    assert french.fill("De %(name)s : rien", {"name": name}).startswith("D’" if elided else "De ")


def test_fill_elides_only_a_de_that_is_a_word() -> None:
    assert french.fill("Garde %(name)s", {"name": "Ana"}) == "Garde Ana"
    assert french.fill("à %(name)s de jouer", {"name": "Ana"}) == "à Ana de jouer"
    assert french.fill("%(num)d coups de %(name)s", {"num": 3, "name": "Eve"}) == "3 coups d’Eve"
    assert french.fill("de %(other)s", {"name": "Ana"}) == "de %(other)s"


def test_the_tournament_words_elide_in_french_only(app: Flask) -> None:
    from flask_babel import force_locale

    from webpanel.tournament_words import _

    with app.test_request_context("/"):
        with force_locale("fr"):
            assert _("Registered %(name)s", name="Ana") == "Inscription d’Ana"
            assert _("Registered %(name)s", name="Ben") == "Inscription de Ben"
        with force_locale("en"):
            assert _("Registered %(name)s", name="Ana") == "Registered Ana"


SCRIPT_FILL = """async ([message, name]) => (await import("/static/panel.js"))._(message, { name: name })"""


@pytest.mark.browser
def test_the_pages_scripts_elide_as_the_helper_does(browser: Any, served: Any) -> None:
    page = browser.new_context(locale="fr-FR").new_page()
    page.goto(served.url + "/board")
    for name, elided in NAMES:
        shown = page.evaluate(SCRIPT_FILL, ["Reveal the pawns of %(name)s", name])
        assert shown == f"Dévoiler les pions {french.de(name)}", shown
        assert shown.endswith(f"d’{name}") == elided
    timed = page.evaluate(SCRIPT_FILL, ["Time of %(name)s: %(num)d s", "Eve"])
    assert timed == "Temps d’Eve\u00a0: %(num)d s", timed
    english = browser.new_context(locale="en-GB").new_page()
    english.goto(served.url + "/board")
    assert english.evaluate(SCRIPT_FILL, ["Reveal the pawns of %(name)s", "Ana"]) == "Reveal the pawns of Ana"


def test_french_puts_a_no_break_space_before_two_part_punctuation() -> None:
    """« terminée : » with a no-break space: a line never starts with the colon, nor does one go missing."""
    problems = []
    for message in catalogs.read("fr"):
        if not message.id:
            continue  # the header
        texts = message.string if isinstance(message.string, tuple | list) else [message.string]
        for text in texts:
            for found in re.finditer(r"([^\"])([:;?!])(\s|$)", text or ""):  # not JSON's "key": value
                if found.group(1) not in "\u00a0\u202f":
                    problems.append(text)
    assert problems == []


@pytest.mark.browser
def test_a_computer_seat_is_named_once(browser: Any, served: Any) -> None:
    """« Ordinateur (moyen) », not « Ordinateur (moyen) (ordinateur, moyen) »."""
    page = browser.new_context(locale="fr-FR").new_page()
    page.goto(served.url + "/games")
    created = page.evaluate(
        """body => import("/static/panel.js").then(panel => panel.api("POST", "/api/games", body))""",
        {"game": "qttt", "seats": [{"kind": "human", "name": "Ana"}, {"kind": "ai", "level": "heuristic"}]},
    )
    page.goto(f"{served.url}/games/{created['id']}")
    page.wait_for_selector(".lobby-seat[data-seat='1']")
    shown = page.inner_text(".lobby-seat[data-seat='1']").strip()
    assert shown.startswith("Ordinateur (") and shown.count("(") == 1, shown
