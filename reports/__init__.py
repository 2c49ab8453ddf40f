"""Figures from the statistics tables and the HTML/PDF report (see :mod:`reports.build`).

The names below load their module on first use, so that a command that needs only a light part of
the package (``fivehundred hand``'s text) does not import the report builder and Matplotlib.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_OWNERS = {
    "ReportResult": "fivehundred.reports.build",
    "build_report": "fivehundred.reports.build",
    "NoData": "fivehundred.reports.tables",
    "ReportError": "fivehundred.reports.tables",
    "read_statistics": "fivehundred.reports.tables",
}

__all__ = ["NoData", "ReportError", "ReportResult", "build_report", "read_statistics"]


def __getattr__(name: str) -> Any:
    owner = _OWNERS.get(name)
    if owner is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(owner), name)
