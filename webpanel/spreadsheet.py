"""Cells of the CSV exports (a tournament's standings and games, the general ranking).

A spreadsheet runs a cell that starts like a formula: a name typed as
``=HYPERLINK(…)`` would run on the organiser's computer when the export is
opened. Every cell of text that came from outside goes through :func:`safe_cell`.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula."""


def safe_cell(text: str) -> str:
    """A cell a spreadsheet will not run as a formula."""
    return "'" + text if text[:1] in FORMULA_STARTS else text
