"""Helpers for the report tests."""

from __future__ import annotations

from fivehundred.reports.build import sections
from fivehundred.reports.section import Context


def figure_keys() -> list[str]:
    """Every figure key of the report, in order (the sections of a context with no data)."""
    return [f.key for sec in sections(Context({}, ())) for f in sec.figures]
