"""Strings marked for translation before the catalogs exist.

The event pages mark every person-readable string the way Flask-Babel
extracts them: ``_()`` and ``{% trans %}`` in templates, ``_()`` in Python.
Until Flask-Babel is installed on the app these marks pass the text through:
:func:`install` gives the templates Jinja's own i18n extension with null
translations (it leaves the app alone when Flask-Babel or another area has
already installed its gettext), and :func:`_` formats like Flask-Babel's
``gettext`` (``_("Table %(n)s", n=3)``), so replacing it with
``from flask_babel import gettext as _`` changes nothing else.
"""

from __future__ import annotations

from typing import Any

from flask import Flask


def _(text: str, **values: Any) -> str:
    return text % values if values else text


def install(app: Flask) -> None:
    if "gettext" in app.jinja_env.globals:
        return
    app.jinja_env.add_extension("jinja2.ext.i18n")
    app.jinja_env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]
