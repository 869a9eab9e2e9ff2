"""French typography the catalogue cannot say by itself: « de » before a name.

A translation reads « les pions de %(name)s »; with « Ana » it must read « les
pions d’Ana » (élision before a vowel, an accented one, or a mute h), with
« Ben » « les pions de Ben ». :func:`fill` puts the values into a translated
text and elides each « de » that a value starting that way follows;
``fill`` in ``static/panel.js`` does the same for the pages' scripts (the same
rule, the same test names: ``tests/webpanel/test_french.py``).

Every name is taken to start with a mute h (« d’Hélène », « d’Hugo »): names
with an aspirated h are rare, and the page cannot tell them apart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

VOWELS = "aeiouyàâäéèêëîïôöùûüœæ"
PLACEHOLDER = re.compile(r"(?P<de>\b[Dd]e )?%\((?P<name>\w+)\)(?P<kind>[sd])")


def elides(word: str) -> bool:
    """Whether « de » before *word* becomes « d’ »: a vowel (accented or not) or a mute h before one."""
    lower = word.lstrip("«“\"' ").lower()
    if not lower:
        return False
    if lower[0] in VOWELS:
        return True
    return lower[0] == "h" and len(lower) > 1 and lower[1] in VOWELS


def de(word: str, *, capital: bool = False) -> str:
    """« de Ben », « d’Ana »: the preposition and *word*, elided as French writes it."""
    if elides(word):
        return ("D’" if capital else "d’") + word
    return ("De " if capital else "de ") + word


def fill(text: str, values: Mapping[str, object]) -> str:
    """*text* with its ``%(name)s`` / ``%(num)d`` placeholders replaced by *values*, each « de » before a
    value elided where French elides it. An unknown placeholder stays as it is."""

    def put(match: re.Match[str]) -> str:
        key = match.group("name")
        if key not in values:
            return match.group(0)
        value = values[key]
        shown = str(value)
        if match.group("kind") == "d" and isinstance(value, int | float):
            shown = str(int(value))
        before = match.group("de")
        if before is None:
            return shown
        return de(shown, capital=before[0] == "D")

    return PLACEHOLDER.sub(put, text)
