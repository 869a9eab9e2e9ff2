"""The checks behind the panel's language tests: strings left outside the catalogue in a template
or a script, and English words on a French page. Each takes text and returns what it found, so the
tests can also show that each check catches what it is meant to catch."""

from __future__ import annotations

import re
import warnings
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from babel.messages.jslexer import tokenize, unquote_string

from tools import catalogs

REPO = catalogs.ROOT

NOT_YET_TRANSLATED: tuple[str, ...] = ()
"""Areas whose pages are still English only: the checks skip them. An area that is translated
leaves this list (docs/webpanel.md, "Languages")."""

PROPER_NAMES = {"Haute-Tension", "Hypnosia", "|Hop>"}
"""Text that is the same in every language."""

READABLE_ATTRIBUTES = {
    "title", "alt", "placeholder", "aria-label", "aria-description", "aria-roledescription", "label"
}
VOID_ELEMENTS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                 "track", "wbr"}
LETTERS = re.compile(r"[^\W\d_]{2,}")


def translated_files(pattern: str) -> list[Path]:
    """The panel's files matching *pattern* (a glob under webpanel/) outside the untranslated areas."""
    found = sorted((REPO / "webpanel").glob(pattern))
    return [p for p in found if not str(p.relative_to(REPO)).startswith(NOT_YET_TRANSLATED)]


def is_readable(text: str) -> bool:
    for name in PROPER_NAMES:
        text = text.replace(name, "")
    return bool(LETTERS.search(text))


# -- templates -------------------------------------------------------------------------------------

_JINJA = re.compile(
    r"{%-?\s*trans\b.*?{%-?\s*endtrans\s*-?%}"  # a {% trans %} block is in the catalogue
    r"|{%-?\s*block\s+body_class\s*-?%}.*?{%-?\s*endblock\s*-?%}"  # CSS classes
    r"|{{.*?}}|{%.*?%}|{#.*?#}",
    re.S,
)


class _TemplateText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._raw = 0  # inside <script> or <style>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._raw += 1
        values = dict(attrs)
        for name, value in attrs:
            readable_value = name == "value" and tag == "input" and values.get("type") in ("submit", "button")
            if value and (name in READABLE_ATTRIBUTES or readable_value) and is_readable(value):
                self.found.append((self.getpos()[0], f"{name}={value!r}"))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._raw -= 1

    def handle_data(self, data: str) -> None:
        if not self._raw and is_readable(data):
            self.found.append((self.getpos()[0], data.strip()))


def unmarked_template_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every person-readable text or attribute of a Jinja template that is not
    marked for translation."""
    # Jinja's own syntax goes (keeping line numbers); what is left is the HTML a person reads.
    html = _JINJA.sub(lambda m: "\n" * m.group(0).count("\n") + " ", source)
    parser = _TemplateText()
    parser.feed(html)
    parser.close()
    return parser.found


# -- scripts ---------------------------------------------------------------------------------------

GETTEXT = {"_", "gettext", "ngettext", "pgettext", "npgettext"}
CODE_STRINGS = {"Accept", "Content-Type", "X-CSRF-Token", "Enter", "Escape", "Tab", "ArrowLeft", "ArrowRight",
                "ArrowUp", "ArrowDown", "Backspace", "Delete", "Home", "End", "PageUp", "PageDown"}
"""Strings of scripts that look like words but are code: HTTP header and key names."""
_SENTENCE = re.compile(r"[^\W\d_]{2,}[ \u00a0’'][^\W\d_]{2,}")
_WORD = re.compile(r"[A-Z][a-z]{2,}[.:!?…]?|[^\W\d_]{2,}.*[.!?…]")


def _looks_readable(text: str) -> bool:
    text = re.sub(r"%\(\w+\)[sd]", "", text).strip()
    if text in CODE_STRINGS or not is_readable(text):
        return False
    if any(c in text for c in "#=<>{}[]/\\_$") or re.search(r"\w\.\w", text):
        return False  # a selector, a path, markup, an expression
    return bool(_SENTENCE.search(text) or _WORD.fullmatch(text))


CODE_ATTRIBUTES = {"class", "className", "id", "role", "type", "name", "rel", "href", "src"}
"""Attributes whose value is code, however many words it has ("class": "seat out")."""


SELECTOR_TAKERS = ("querySelector", "querySelectorAll", "closest", "matches")
"""Functions whose string argument is a CSS selector ("thead th")."""


def _is_code_attribute(tokens: list[Any], index: int) -> bool:
    """Whether the string at *index* is code however many words it has: the value of a code
    attribute (``"class": "…"`` in an object, ``setAttribute("class", "…")``) or a selector."""
    if index < 2 or tokens[index - 1].type != "operator" or tokens[index - 1].value not in (":", ",", "("):
        return False
    if tokens[index - 1].value == "(":
        return tokens[index - 2].type == "name" and tokens[index - 2].value.endswith(SELECTOR_TAKERS)
    key = tokens[index - 2]
    name = key.value if key.type == "name" else unquote_string(key.value) if key.type == "string" else None
    return name in CODE_ATTRIBUTES


def unmarked_script_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal of a script that reads like words for a person and is
    not the argument of _(), ngettext() or pgettext()."""
    found = []
    with warnings.catch_warnings():
        # Babel's JavaScript lexer (the one its extractor uses) is public but marked as internal.
        warnings.simplefilter("ignore", DeprecationWarning)
        tokens = [t for t in tokenize(source, jsx=False) if t.type not in ("linecomment", "multilinecomment")]
        frames: list[bool] = []  # per open parenthesis: is it a gettext call's?
        for index, token in enumerate(tokens):
            previous = tokens[index - 1] if index else None
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if token.type == "operator" and token.value == "(":
                frames.append(previous is not None and previous.type == "name" and previous.value in GETTEXT)
            elif token.type == "operator" and token.value == ")":
                if frames:
                    frames.pop()
            elif token.type in ("string", "template_string") and not (frames and frames[-1]):
                if following is not None and following.type == "operator" and following.value == ":":
                    continue  # an object's key
                if _is_code_attribute(tokens, index):
                    continue
                text = unquote_string(token.value) if token.type == "string" else token.value.strip("`")
                if _looks_readable(text):
                    found.append((token.lineno, text))
    return found


def script_messages(source: str) -> list[tuple[int, str | None, str]]:
    """(line, context, message) of every _(), ngettext() and pgettext() call of a script whose
    message is a string: what Babel's extractor should find. It finds none of the calls made inside
    another call's arguments (``_("… %(n)s", {n: ngettext(…)})``), which the tests catch by
    comparing the two."""
    found = []
    with warnings.catch_warnings():
        # Babel's JavaScript lexer (the one its extractor uses) is public but marked as internal.
        warnings.simplefilter("ignore", DeprecationWarning)
        tokens = [t for t in tokenize(source, jsx=False) if t.type not in ("linecomment", "multilinecomment")]
        for index, token in enumerate(tokens[:-2]):
            if token.type != "name" or token.value not in GETTEXT or tokens[index + 1].value != "(":
                continue
            if token.value in ("pgettext", "npgettext"):
                context, message = tokens[index + 2], tokens[index + 4] if index + 4 < len(tokens) else None
                if context.type == "string" and message is not None and message.type == "string":
                    found.append((token.lineno, unquote_string(context.value), unquote_string(message.value)))
            elif tokens[index + 2].type == "string":
                found.append((token.lineno, None, unquote_string(tokens[index + 2].value)))
    return found


# -- pages in French -------------------------------------------------------------------------------

ENGLISH_WORDS = frozenset(
    re.findall(
        r"\S+",
        """
    the and of to is are was not no yes with without for from your you this that these those it its
    game games player players board boards lamp lamps slot slots pawn pawns left turn play plays
    wins winner winners tie running start started log login logout staff health fault faults
    flicker waiting connecting live attack defense defence hand seat seats colour color name names
    first draw over paused kind kinds more load show hide none all off out round rounds standings
    tournament tournaments settings back next save cancel delete new join leave move moves results
    result error wrong try again please click hold button sound mute run check checks empty
    occupied presence conducts reading readings time when who which what where open close closed
    download entries entry every only abandoned yet here there
""",
    )
)
"""Common English words that are not French words (homographs such as « test », « journal »,
« points », « score », « lit », « stop », « conduction » are left out)."""


class _PageText(HTMLParser):
    """The text a person reads on a page, without what is marked lang="en" (another language's text,
    which the page says it is) nor scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []
        self.texts: list[str] = []
        self.html_lang: str | None = None

    def _english(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "html":
            self.html_lang = values.get("lang")
        lang = values.get("lang")
        english = (lang or "").startswith("en") if lang is not None else self._english()
        raw = tag in ("script", "style", "template") or (bool(self.stack) and self.stack[-1][0] == "raw")
        if not english:
            shown_value = tag == "input" and values.get("type", "text") in ("text", "submit", "button")
            for name, value in attrs:
                if value and (name in READABLE_ATTRIBUTES or (name == "value" and shown_value)):
                    self.texts.append(value)
        if tag not in VOID_ELEMENTS:
            self.stack.append(("raw" if raw else tag, english))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID_ELEMENTS:
            return
        while self.stack:
            if self.stack.pop()[0] in (tag, "raw") and (not self.stack or self.stack[-1][0] != "raw"):
                break

    def handle_data(self, data: str) -> None:
        if self.stack and (self.stack[-1][0] == "raw" or self._english()):
            return
        if data.strip():
            self.texts.append(data)


def english_words(html: str) -> list[str]:
    """The common English words a page shows outside its parts marked lang="en"."""
    parser = _PageText()
    parser.feed(html)
    parser.close()
    return english_words_in(" ".join(parser.texts))


def english_words_in(text: str) -> list[str]:
    words = re.findall(r"[^\W\d_]+", text)
    return sorted({w for w in words if w.lower() in ENGLISH_WORDS})


def page_language(html: str) -> str | None:
    parser = _PageText()
    parser.feed(html)
    return parser.html_lang
