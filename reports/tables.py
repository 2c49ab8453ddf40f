"""The statistics tables a report is built from, and how their numbers are shown.

The report reads only the tables of ``docs/statistics.md`` (written by ``fivehundred analyze``), never
the deal log's raw columns; :func:`read_statistics` reads a folder of them.  Which tables a report is
made from (a given folder, the main run's ``stats/``, or a fresh analysis) is the caller's decision
(``fivehundred report``: :mod:`cli.statistics`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from fivehundred.sim.errors import UserError

Tables = dict[str, pl.DataFrame]

#: Rates from fewer trials than this are dimmed in tables and hatched in heatmaps: their 95% Wilson
#: interval is wider than about ±15 percentage points (docs/statistics.md, "Small cells").
FEW_N = 40


class ReportError(UserError, ValueError):
    """A report cannot be made (missing run, unreadable statistics); the message is one line."""


class NoData(Exception):
    """A section or figure has nothing to show; the message says why, in words a reader follows."""


class MissingTable(NoData):
    """A statistics table (or its column) a figure needs is not there or empty: the message names the
    table for developers; the report says its section's own reason instead (:attr:`Section.absent`)."""


def need(tables: Tables, name: str, columns: Sequence[str] = ()) -> pl.DataFrame:
    """Table ``name`` with ``columns``, or :class:`MissingTable` saying what is missing."""
    df = tables.get(name)
    if df is None:
        raise MissingTable(f"the statistics have no table '{name}'")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise MissingTable(f"table '{name}' lacks column(s) {', '.join(missing)}")
    if df.height == 0:
        raise MissingTable(f"table '{name}' is empty")
    return df


def read_statistics(stats_dir: Path) -> Tables:
    """Every statistics table (``*.parquet``) in a folder written by ``fivehundred analyze``."""
    if not Path(stats_dir).is_dir():
        gone = "is not a folder" if Path(stats_dir).exists() else "does not exist"
        raise ReportError(f"statistics folder {stats_dir} {gone}")
    files = sorted(Path(stats_dir).glob("*.parquet"))
    if not files:
        raise ReportError(f"{stats_dir}: no statistics tables (*.parquet); run `fivehundred analyze` first")
    out: Tables = {}
    for f in files:
        try:
            out[f.stem] = pl.read_parquet(f)
        except (OSError, pl.exceptions.PolarsError) as exc:
            raise ReportError(f"{f}: not a readable Parquet table ({exc})") from None
    return out


def _run_ids(tables: Tables) -> list[str]:
    ov = tables.get("overview")
    if ov is None or "run_id" not in ov.columns:
        return []
    return ov.get_column("run_id").to_list()


def covers(tables: Tables, run_ids: Sequence[str | None]) -> bool:
    """Whether the tables' ``overview`` lists exactly the runs ``run_ids`` (all known)."""
    return all(isinstance(r, str) for r in run_ids) and sorted(_run_ids(tables)) == sorted(run_ids)


# ------------------------------------------------------------------------------------ formatting


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def pct(x: Any, digits: int = 1) -> str:
    """``0.6213`` -> ``62.1%``; missing -> ``—``."""
    return f"{100 * x:.{digits}f}%" if _finite(x) else "—"


def num(x: Any, digits: int = 1) -> str:
    """A number with ``digits`` decimals and thousands separators; missing -> ``—``."""
    if isinstance(x, int) and not isinstance(x, bool):
        return f"{x:,d}"
    return f"{x:,.{digits}f}" if _finite(x) else "—"


def signed(x: Any, digits: int = 1) -> str:
    """A number with its sign (``+∞``/``−∞`` for infinities)."""
    if isinstance(x, float) and math.isinf(x):
        return "+∞" if x > 0 else "−∞"
    return f"{x:+,.{digits}f}" if _finite(x) else "—"


@dataclass(frozen=True)
class Col:
    """One column of an HTML table: header, the value column, optional interval columns, format."""

    header: str
    value: str
    fmt: Callable[[Any], str] = str
    lo: str | None = None
    hi: str | None = None
    #: A column of ready text shown instead, where it is not null (the cell keeps its exact values).
    shown: str | None = None


def _attr(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, float):
        return repr(v)
    return html.escape(str(v), quote=True)


def html_table(
    df: pl.DataFrame,
    name: str,
    cols: Sequence[Col],
    caption: str = "",
    run: str | None = None,
    few: str | None = "n",
) -> str:
    """A readable HTML table.

    Each cell shows the formatted value (and ``[lo, hi]`` when the column has an interval) and carries
    the exact table values as ``data-value``/``data-lo``/``data-hi`` attributes, with the table name,
    the run (for one-run tables) and the source columns in ``data-table``/``data-run``/``data-col``/
    ``data-lo-col``/``data-hi-col`` - so tests can check them against the statistics.  A row whose
    count column ``few`` is below :data:`FEW_N` is dimmed (``class="few"``).
    """
    run_attr = f' data-run="{html.escape(run)}"' if run else ""
    out = [f'<table class="stats" data-table="{html.escape(name)}"{run_attr}>']
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{html.escape(c.header)}</th>" for c in cols) + "</tr></thead>")
    out.append("<tbody>")
    for row in df.iter_rows(named=True):
        cells = []
        for c in cols:
            v = row.get(c.value)
            text = c.fmt(v) if v is not None else "—"
            attrs = f' data-col="{html.escape(c.value)}" data-value="{_attr(v)}"'
            ready = row.get(c.shown) if c.shown else None
            if ready is not None:
                text = html.escape(str(ready)) if c.lo and c.hi else str(ready)  # (escaped below otherwise)
            if c.lo and c.hi:
                lo, hi = row.get(c.lo), row.get(c.hi)
                attrs += (
                    f' data-lo="{_attr(lo)}" data-hi="{_attr(hi)}" data-lo-col="{c.lo}" data-hi-col="{c.hi}"'
                )
                if lo is not None and hi is not None and ready is None:
                    text += f' <span class="ci">[{html.escape(c.fmt(lo))}, {html.escape(c.fmt(hi))}]</span>'
                cells.append(f"<td{attrs}>{text}</td>")
            else:
                cells.append(f"<td{attrs}>{html.escape(text)}</td>")
        count = row.get(few) if few else None
        rare = isinstance(count, int) and not isinstance(count, bool) and count < FEW_N
        out.append(('<tr class="few">' if rare else "<tr>") + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def run_order(tables: Tables, run_ids: Sequence[str | None] = ()) -> list[str]:
    """Run ids in report order: the requested order first (main run first), then any others."""
    present = _run_ids(tables)
    order = [r for r in run_ids if isinstance(r, str) and r in present]
    return order + [r for r in present if r not in order]
