"""Helpers for the report tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fivehundred.reports.build import sections
from fivehundred.reports.section import Context


def figure_keys() -> list[str]:
    """Every figure key of the report, in order (the sections of a context with no data)."""
    return [f.key for sec in sections(Context({}, ())) for f in sec.figures]


@dataclass(frozen=True)
class FreshRun:
    """What a fresh ``fivehundred run`` wrote (``out``) and printed (``output``)."""

    out: Path
    output: str

    @property
    def html(self) -> str:
        """The report's HTML text."""
        return (self.out / "report.html").read_text()

    @property
    def pdf(self) -> bytes:
        """The report's PDF bytes."""
        return (self.out / "report.pdf").read_bytes()
