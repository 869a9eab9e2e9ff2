"""The panel's translation catalogues (webpanel/translations/): extract, update, compile, check.

    python tools/catalogs.py update    after marking strings: extract them (babel.cfg), add them to
                                       the French and English catalogues (English filled from the
                                       source text), compile; then translate the new French entries
    python tools/catalogs.py compile   .po → .mo, for the files that changed (make run, make test)
    python tools/catalogs.py check     list every message a catalogue lacks (exit status 1)

``make catalogs`` runs ``update``; ``make translations`` runs ``compile``. The tests
(tests/webpanel/test_i18n.py) use the same extraction.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
MAPPING = ROOT / "babel.cfg"
TRANSLATIONS = ROOT / "webpanel" / "translations"
LANGUAGES = ("fr", "en")
SOURCE_LANGUAGE = "en"
"""The message ids are the English text: its catalogue starts from them."""
DOMAIN = "messages"
KEYWORDS = {
    **DEFAULT_KEYWORDS,
    "lazy_gettext": None,
    "lazy_ngettext": (1, 2),
    "lazy_pgettext": ((1, "c"), 2),
}
COMMENT_TAGS = ["TRANSLATORS:"]
PROJECT = "Haute-Tension"
HEADER = """\
# {language} messages of the Haute-Tension panel.
# Made by tools/catalogs.py from the marked strings (babel.cfg); translate by
# the glossary, docs/glossary.md.
#"""
PLURAL_FORMS = {"fr": "nplurals=2; plural=(n > 1);", "en": "nplurals=2; plural=(n != 1);"}
"""gettext's classic forms, one and other: what the pages' ngettext() assumes (CLDR adds a French
"many" for millions, which the panel never counts)."""
LANGUAGE_NAMES = {"fr": "French", "en": "English"}


def po_path(lang: str) -> Path:
    return TRANSLATIONS / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str) -> Path:
    return po_path(lang).with_suffix(".mo")


def extract() -> Catalog:
    """Every marked string of the panel, with where it is, as a template catalogue."""
    with MAPPING.open() as handle:
        method_map, options_map = parse_mapping_cfg(handle, filename=str(MAPPING))
    template = Catalog(project=PROJECT, fuzzy=False)
    found = extract_from_dir(
        str(ROOT), method_map, options_map,
        keywords=KEYWORDS, comment_tags=COMMENT_TAGS, strip_comment_tags=True,
    )
    for filename, lineno, message, comments, context in found:
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return template


def read(lang: str) -> Catalog:
    path = po_path(lang)
    if path.exists():
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=lang)
    else:
        catalog = Catalog(locale=lang, project=PROJECT, fuzzy=False)
    catalog.header_comment = HEADER.format(language=LANGUAGE_NAMES[lang])
    headers = [(k, v) for k, v in catalog.mime_headers if k.lower() != "plural-forms"]
    catalog.mime_headers = [*headers, ("Plural-Forms", PLURAL_FORMS[lang])]
    return catalog


def write(catalog: Catalog, lang: str) -> None:
    path = po_path(lang)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, omit_header=False, include_previous=True)
    path.write_bytes(buffer.getvalue())


def fill_from_source(catalog: Catalog) -> None:
    """The source language's catalogue: an empty translation is the source text itself."""
    for message in catalog:
        if not message.id:
            continue
        if message.fuzzy:  # a guess from a similar message: the source text is the right one
            message.flags.discard("fuzzy")
            message.string = ("", "") if isinstance(message.id, tuple | list) else ""
            message.previous_id = []
        if isinstance(message.id, tuple | list):
            if not message.string or not all(message.string):
                message.string = (message.id[0], message.id[1])
        elif not message.string:
            message.string = message.id


def compiled(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def compile_all(*, force: bool = False) -> list[Path]:
    """Write each language's .mo whose .po is newer (all with *force*); the files written."""
    written = []
    for lang in LANGUAGES:
        po, mo = po_path(lang), mo_path(lang)
        if not force and mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        mo.write_bytes(compiled(read(lang)))
        written.append(mo)
    return written


def update() -> None:
    template = extract()
    for lang in LANGUAGES:
        catalog = read(lang)
        catalog.update(
            template, no_fuzzy_matching=False, update_header_comment=False, update_creation_date=False
        )
        catalog.obsolete.clear()  # git keeps the history; a dead entry only misleads translators
        if lang == SOURCE_LANGUAGE:
            fill_from_source(catalog)
        write(catalog, lang)
    compile_all(force=True)


def _key(message: Message) -> object:
    return (message.id, message.context)


def problems(template: Catalog | None = None) -> Iterator[str]:
    """What the catalogues lack: a marked string with no translation (or only a fuzzy one) in a
    language, a translation whose placeholders or plural forms are wrong."""
    template = extract() if template is None else template
    for lang in LANGUAGES:
        catalog = read(lang)
        for wanted in template:
            if not wanted.id:
                continue
            where = ", ".join(f"{f}:{n}" for f, n in wanted.locations[:2])
            found = catalog.get(wanted.id, context=wanted.context)
            text = wanted.id[0] if isinstance(wanted.id, tuple | list) else wanted.id
            if found is None:
                yield f"{lang}: {text!r} ({where}) is not in the catalogue: run make catalogs"
            elif found.fuzzy or not found.string or (
                isinstance(found.string, tuple | list) and not all(found.string)
            ):
                yield f"{lang}: {text!r} ({where}) has no translation"
        for message, errors in catalog.check():
            for error in errors:
                yield f"{lang}: {message.id!r}: {error}"


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else ""
    if command == "update":
        update()
        missing = list(problems())
        print("\n".join(missing) or "every message is translated")
        return 0
    if command == "compile":
        for path in compile_all(force="--force" in argv):
            print(f"compiled {path.relative_to(ROOT)}")
        return 0
    if command == "check":
        missing = list(problems())
        print("\n".join(missing) or "every message is translated")
        return 1 if missing else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
