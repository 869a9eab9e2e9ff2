"""What a page flashes when an action it posted is refused, in the page's language.

An API error (:class:`~webpanel.errors.ApiError`) says its code's text (:mod:`webpanel.error_texts`),
a tournament's or the event store's error its code's words (:func:`webpanel.tournament_words.error_text`);
an error no page has words for is shown as its English sentence, marked as English (``lang="en"``),
never passed off as the page's language.
"""

from __future__ import annotations

from markupsafe import Markup

from webpanel.error_texts import TEXTS
from webpanel.errors import ApiError
from webpanel.tournament_words import error_text


def refusal_text(exc: BaseException) -> str | Markup:
    if isinstance(exc, ApiError) and exc.code in TEXTS:
        try:
            return str(TEXTS[exc.code]) % dict(exc.params)
        except (KeyError, TypeError, ValueError):  # a text quoting a value this error lacks
            return error_text(exc)
    return error_text(exc)
