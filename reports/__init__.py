"""Figures from the statistics tables and the HTML/PDF report (see :mod:`reports.build`)."""

from fivehundred.reports.build import ReportResult, build_report
from fivehundred.reports.tables import NoData, ReportError, read_statistics

__all__ = ["NoData", "ReportError", "ReportResult", "build_report", "read_statistics"]
