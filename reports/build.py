"""The report: one self-contained HTML file (figures embedded as PNG), and optionally a PDF.

:func:`build_report` takes the statistics tables (and what the runs' manifests say), makes every
section of :data:`SECTION_BUILDERS` (one function per section, each returning a
:class:`~reports.section.Section`), renders each section's figures and tables, and writes the files
atomically.  A figure or table that has no data, or that fails, becomes a short notice in its section;
a section with nothing to show at all is one line in the contents; the report is always written.
"""

from __future__ import annotations

import base64
import html
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import polars as pl

from fivehundred.pipelines.outputs import check_output_file
from fivehundred.pipelines.rundir import UNFINISHED, Manifest, progress_text
from fivehundred.reports import figures
from fivehundred.reports.dd import dd_section
from fivehundred.reports.figures import Chart, style_context, table_metric_label
from fivehundred.reports.section import Context, FigureSlot, Section, TableSlot, run_names
from fivehundred.reports.tables import (
    Col,
    NoData,
    ReportError,
    Tables,
    html_table,
    need,
    num,
    pct,
    run_order,
    signed,
)

_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.7em;margin-bottom:.2em} h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
nav ol{columns:2} figure{margin:1.2em 0} figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.95em;color:#333;margin-top:.3em} figcaption b{color:#000}
table.stats{border-collapse:collapse;margin:1em 0;font-size:.88em}
table.stats th,table.stats td{border-bottom:1px solid #ddd;padding:.25em .7em;text-align:right}
table.stats th{background:#f4f4f4} table.stats td:first-child,table.stats th:first-child{text-align:left}
table.stats caption{caption-side:top;text-align:left;font-weight:600;padding:.3em 0}
span.ci{color:#777;font-size:.9em}
p.bots{background:#eef4ff;border-left:3px solid #36c;padding:.4em .8em}
.nodata{color:#8a5a00;background:#fff7e6;padding:.5em .8em;border-left:3px solid #e0a000}
.failed{color:#a00;background:#fff0f0;padding:.5em .8em;border-left:3px solid #c00}
dl.methods{display:grid;grid-template-columns:max-content auto;gap:.2em 1.2em} dl.methods dt{font-weight:600}
code{font-size:.9em}
tr.few td{color:#aaa} p.how{font-size:.9em;color:#444} nav li.empty{color:#888}
p.disagree{background:#f6f6f6;border-left:3px solid #888;padding:.4em .8em}
"""


@dataclass
class ReportResult:
    """What was written: paths, and per section/figure whether it has content, no data or failed."""

    html: Path
    pdf: Path | None = None
    figures: dict[str, str] = field(default_factory=dict)  # key -> "ok" | "no data: ..." | "failed: ..."
    tables: dict[str, str] = field(default_factory=dict)
    sections: dict[str, str] = field(default_factory=dict)  # id -> "shown" | "no data: ..." (hidden)
    optional: set[str] = field(default_factory=set)  # optional tables left out (no notice)

    def summary(self) -> str:
        """One line per file, then the sections that have no data or failed."""
        ok = sum(1 for v in self.figures.values() if v == "ok")
        lines = [f"report: {self.html} ({ok} of {len(self.figures)} figures)"]
        if self.pdf is not None:
            lines.append(f"pdf: {self.pdf}")
        notes = {**self.figures, **{k: v for k, v in self.tables.items() if k not in self.optional}}
        lines += [f"  {k}: {v}" for k, v in notes.items() if v != "ok"]
        return "\n".join(lines)


def _package_version() -> str:
    try:
        return version("fivehundred")
    except PackageNotFoundError:
        return "unknown"


def _readable(tmp: str) -> None:
    """Give a temporary file the permissions a plain ``open`` would (mkstemp makes it private)."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        _readable(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def page_start(title: str) -> list[str]:
    """The first lines of a report page: doctype, head with ``title`` and the style, ``<h1>``."""
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title><style>{_CSS}</style></head><body>",
        f"<h1>{title}</h1>",
    ]


def _notice(kind: str, text: str) -> str:
    cls = "nodata" if kind == "no data" else "failed"
    return f'<p class="{cls}">{html.escape(kind)}: {html.escape(text)}</p>'


def _figure_html(chart: Chart, png: bytes) -> str:
    b64 = base64.b64encode(png).decode("ascii")
    return (
        f'<figure id="fig-{chart.key}" data-figure="{chart.key}">'
        f'<img alt="{html.escape(chart.title)}" src="data:image/png;base64,{b64}">'
        f"<figcaption><b>{html.escape(chart.title)}.</b> {html.escape(chart.reading)}</figcaption></figure>"
    )


# ----------------------------------------------------------------------------------------- tables

_RATE = {"fmt": pct}


def _overview_table(t: Tables, runs: Sequence[str]) -> str:
    df = need(t, "overview", ["run_id", "variant", "deals", "games", "contracts", "thrown_in_rate"])
    df = _in_order(df, runs)
    cols = [
        Col("run", "run_id", lambda r: _name(t, r)),
        Col("deals", "deals", num),
        Col("games", "games", num),
        Col("deals per game", "deals_per_game", lambda x: num(x, 2)),
        Col("thrown in", "thrown_in_rate", pct, "thrown_in_lo", "thrown_in_hi"),
        Col("contracts played", "contracts", num),
        Col(
            "first dealer's team won",
            "first_dealer_win_rate",
            pct,
            "first_dealer_win_lo",
            "first_dealer_win_hi",
        ),
    ]
    cols = [c for c in cols if c.value in df.columns]
    return html_table(df, "overview", cols)


def _game_ends_table(t: Tables, runs: Sequence[str]) -> str:
    df = _in_order(need(t, "game_ends", ["run_id", "variant", "end_reason", "games", "rate"]), runs)
    cols = [
        Col("run", "run_id", lambda r: _name(t, r)),
        Col("game ended", "end_reason"),
        Col("games", "games", num),
        Col("share of games", "rate", pct, "rate_lo", "rate_hi"),
        Col("won from 100 or more behind", "comeback_rate", pct, "comeback_lo", "comeback_hi"),
    ]
    cols = [c for c in cols if c.value in df.columns]
    return html_table(df, "game_ends", cols, caption="How games end")


#: Deals shown in the score-trajectory table (those that some games reach).
TRAJECTORY_DEALS = (1, 2, 3, 5, 8, 12, 20)


def _trajectories_table(t: Tables, runs: Sequence[str]) -> str:
    cols_needed = ["run_id", "end_reason", "deal", "games", "winner_mean", "runner_up_mean", "behind_rate"]
    df = need(t, "score_trajectories", cols_needed)
    sub = df.filter(
        (pl.col("run_id") == runs[0])
        & (pl.col("end_reason") == "all")
        & pl.col("deal").is_in(list(TRAJECTORY_DEALS))
    ).sort("deal")
    if sub.height == 0:
        raise NoData("no finished game")
    cols = [
        Col("games", "end_reason"),
        Col("after deal", "deal"),
        Col("games still running", "games", num),
        Col("eventual winner's score", "winner_mean", lambda x: signed(x, 0), "winner_lo", "winner_hi"),
        Col("runner-up's score", "runner_up_mean", lambda x: signed(x, 0), "runner_up_lo", "runner_up_hi"),
        Col("winner's lead", "lead_mean", lambda x: signed(x, 0), "lead_lo", "lead_hi"),
        Col("winner behind", "behind_rate", pct, "behind_lo", "behind_hi"),
    ]
    return html_table(
        sub,
        "score_trajectories",
        cols,
        caption=f"Run {_name(t, runs[0])}: scores after each deal (means, 95% intervals)",
        run=runs[0],
    )


def _in_order(df: pl.DataFrame, runs: Sequence[str]) -> pl.DataFrame:
    order = {r: i for i, r in enumerate(runs)}
    return (
        df.with_columns(pl.col("run_id").replace_strict(order, default=len(order)).alias("_o"))
        .sort("_o", maintain_order=True)
        .drop("_o")
    )


def _name(t: Tables, run: str) -> str:
    """The run's readable name (variant and line-up, see :func:`reports.section.run_names`)."""
    return run_names(t, [run])[run]


def _contracts_table(t: Tables, runs: Sequence[str]) -> str:
    cols_needed = ["run_id", "contract", "rank", "n", "declared_rate", "success_rate", "points_mean"]
    df = need(t, "contracts", cols_needed)
    out = []
    for run in runs:
        sub = df.filter((pl.col("run_id") == run) & (pl.col("n") > 0)).sort("rank")
        if sub.height == 0:
            continue
        cols = [
            Col("contract", "contract"),
            Col("played", "n", num),
            Col("share of deals", "declared_rate", pct, "declared_lo", "declared_hi"),
            Col("made", "success_rate", pct, "success_lo", "success_hi"),
            Col("expected points", "points_mean", lambda x: signed(x, 0), "points_lo", "points_hi"),
        ]
        if "slam_rate" in sub.columns:
            cols.append(Col("slams", "slam_rate", pct, "slam_lo", "slam_hi"))
        out.append(
            html_table(sub, "contracts", cols, caption=f"Run {_name(t, run)}: contracts played", run=run)
        )
    if not out:
        raise NoData("no contract was played")
    return "\n".join(out)


def _success_table(t: Tables, runs: Sequence[str], table: str, key: Col, order: str, caption: str) -> str:
    """Contracts played, made and expected points of the first run, one row per ``key`` value."""
    df = need(t, table, ["run_id", key.value, order, "n", "success_rate", "points_mean"])
    sub = df.filter((pl.col("run_id") == runs[0]) & (pl.col("n") > 0)).sort(order)
    if sub.height == 0:
        raise NoData("no contract was played")
    cols = [
        key,
        Col("played", "n", num),
        Col("made", "success_rate", pct, "success_lo", "success_hi"),
        Col("expected points", "points_mean", lambda x: signed(x, 0), "points_lo", "points_hi"),
    ]
    return html_table(sub, table, cols, caption=f"Run {_name(t, runs[0])}: {caption}", run=runs[0])


def _level_table(t: Tables, runs: Sequence[str]) -> str:
    return _success_table(t, runs, "success_by_level", Col("level", "level"), "order", "by level")


def _seat_table(t: Tables, runs: Sequence[str]) -> str:
    key = Col("declarer's seat (1 = left of dealer, 0 = dealer)", "seat_rel")
    return _success_table(t, runs, "success_by_seat", key, "seat_rel", "by the declarer's seat")


def _misere_table(t: Tables, runs: Sequence[str]) -> str:
    df = need(t, "misere", ["run_id", "contract", "n", "called_rate", "success_rate", "points_mean"])
    df = _in_order(df, runs)
    cols = [
        Col("run", "run_id", lambda r: _name(t, r)),
        Col("contract", "contract"),
        Col("bid (share of deals)", "called_rate", lambda x: pct(x, 2), "called_lo", "called_hi"),
        Col("played", "n", num),
        Col("made", "success_rate", pct, "success_lo", "success_hi"),
        Col("expected points", "points_mean", lambda x: signed(x, 0), "points_lo", "points_hi"),
    ]
    return html_table(df, "misere", cols, caption="Misère as bid")


def _whatif_table(t: Tables, runs: Sequence[str]) -> str:
    cols_needed = [
        "run_id",
        "contract",
        "strategy",
        "n",
        "success_rate",
        "points_mean",
        "actual_mean",
        "diff_mean",
    ]
    df = _in_order(need(t, "misere_whatif", cols_needed), runs)
    cols = [
        Col("run", "run_id", lambda r: _name(t, r)),
        Col("contract", "contract"),
        Col("played by", "strategy"),
        Col("deals", "n", num),
        Col("made", "success_rate", pct, "success_lo", "success_hi"),
        Col("expected points", "points_mean", lambda x: signed(x, 0), "points_lo", "points_hi"),
        Col("actually scored", "actual_mean", lambda x: signed(x, 1), "actual_lo", "actual_hi"),
        Col("forced − actual", "diff_mean", lambda x: signed(x, 1), "diff_lo", "diff_hi"),
    ]
    return html_table(
        df,
        "misere_whatif",
        cols,
        caption="What-if: misère forced on the seat left of the dealer, every deal of a sample",
    )


_MISERE_FEATURES = ("low_cards", "voids", "joker")


def _misere_feature_table(name: str, what: str) -> Any:
    def table(t: Tables, runs: Sequence[str]) -> str:
        cols_needed = ["run_id", "contract", "feature", "value", "order", "n", "success_rate", "points_mean"]
        df = need(t, name, cols_needed)
        sub = df.filter(
            (pl.col("run_id") == runs[0]) & pl.col("feature").is_in(_MISERE_FEATURES) & (pl.col("n") > 0)
        )
        if sub.height == 0:
            raise NoData("no misère contract by these features")
        order = {f: i for i, f in enumerate(_MISERE_FEATURES)}
        sub = sub.with_columns(pl.col("feature").replace_strict(order, default=9).alias("_f")).sort(
            "contract", "_f", "order"
        )
        cols = [
            Col("contract", "contract"),
            Col("feature", "feature"),
            Col("value", "value"),
            Col("contracts", "n", num),
            Col("made", "success_rate", pct, "success_lo", "success_hi"),
            Col("expected points", "points_mean", lambda x: signed(x, 0), "points_lo", "points_hi"),
        ]
        caption = f"Run {_name(t, runs[0])}: {what}, by hand feature"
        return html_table(sub, name, cols, caption=caption, run=runs[0])

    return table


def _strategies_table(t: Tables, runs: Sequence[str]) -> str:
    cols_needed = ["run_id", "strategy", "seat_deals", "points_mean", "success_rate", "win_rate"]
    df = _in_order(need(t, "strategies", cols_needed), runs)
    cols = [
        Col("run", "run_id", lambda r: _name(t, r)),
        Col("strategy", "strategy"),
        Col("seat-deals", "seat_deals", num),
        Col("games", "games", num),
        Col("team points per deal", "points_mean", lambda x: signed(x, 1), "points_lo", "points_hi"),
        Col("made as declarer", "success_rate", pct, "success_lo", "success_hi"),
        Col("defensive tricks", "def_tricks_mean", lambda x: num(x, 2), "def_tricks_lo", "def_tricks_hi"),
        Col("games won", "win_rate", pct, "win_lo", "win_hi"),
    ]
    cols = [c for c in cols if c.value in df.columns]
    caption = (
        "Per strategy (95% intervals clustered by game: partners share a score, deals share a game; "
        "games counted once)"
    )
    out = [html_table(df, "strategies", cols, caption=caption)]
    if "note" in df.columns:
        for run, strategy, note in (
            df.filter(pl.col("note").is_not_null()).select("run_id", "strategy", "note").iter_rows()
        ):
            out.append(
                f'<p class="nodata" data-note="strategies">{html.escape(strategy)} in run '
                f"{html.escape(_name(t, run))}: {html.escape(note)}.</p>"
            )
    return "\n".join(out)


def _disagreement_note(t: Tables, runs: Sequence[str]) -> str:
    """When points per deal and games won rank a run's strategies differently: say so, why, and show
    the paired comparison (``strategy_duplicate``) when the statistics have one."""
    df = need(t, "strategies", ["run_id", "strategy", "points_mean", "win_rate"])
    out = []
    for run in runs:
        sub = df.filter(
            (pl.col("run_id") == run) & pl.col("points_mean").is_not_null() & pl.col("win_rate").is_not_null()
        )
        if "inseparable_from" in sub.columns:  # partners drawn once: one row per team
            sub = sub.filter(
                pl.col("inseparable_from").is_null() | (pl.col("strategy") < pl.col("inseparable_from"))
            )
        if sub.height < 2:
            continue
        by_pts = sub.sort(["points_mean", "strategy"], descending=[True, False]).row(0, named=True)
        by_win = sub.sort(["win_rate", "strategy"], descending=[True, False]).row(0, named=True)
        if by_pts["strategy"] == by_win["strategy"]:
            continue
        out.append(
            f'<p class="disagree" data-note="disagreement"><b>Points and games disagree in '
            f"{html.escape(_name(t, run))}:</b> {html.escape(by_pts['strategy'])} scores most points "
            "per deal "
            f"({signed(by_pts['points_mean'])}) but {html.escape(by_win['strategy'])} wins most games "
            f"({pct(by_win['win_rate'])} against {pct(by_pts['win_rate'])}). Points per deal weigh every "
            "deal alike; a game is decided by reaching 500 (or falling to −500) first, so a few large swings "
            "(a slam, a failed 10-trick bid, a misère) can decide games while moving the average little. "
            "Neither number alone says which bot is better; the paired comparison does.</p>"
        )
    if not out:
        raise NoData("points per deal and games won agree")
    dup = t.get("strategy_duplicate")
    if dup is not None and dup.height and {"run_id", "metric", "diff_mean"} <= set(dup.columns):
        keep = dup.filter(pl.col("metric").str.contains(r"^points_team|_won$|^points_total$"))
        cols = [
            Col("run", "run_id", lambda r: _name(t, r)),
            Col("metric", "metric", figures.metric_label),
            Col("pairs", "paired_n", num),
            Col("base (pairs)", "paired_base_mean", lambda x: num(x, 3)),
            Col("run (pairs)", "paired_mean", lambda x: num(x, 3)),
            Col("difference", "diff_mean", lambda x: signed(x, 3), "diff_lo", "diff_hi"),
            Col("Holm p", "p_holm", _p),
        ]
        cols = [c for c in cols if c.value in keep.columns]
        caption = "The paired comparison: the same deals with the strategies swapped (run − base, 95% CI)"
        out.append(html_table(keep, "strategy_duplicate", cols, caption=caption))
    else:
        out.append(
            '<p class="disagree">No paired comparison in these statistics: simulate the same seed with the '
            "strategies in swapped seats and analyse it with <code>--compare</code> (a duplicate run, "
            "table <code>strategy_duplicate</code>).</p>"
        )
    return "\n".join(out)


def _trumps_table(t: Tables, runs: Sequence[str]) -> str:
    """The heatmap's cells with their counts and intervals: the most played suit contracts of the main
    run by trumps held and joker."""
    cols_needed = ["run_id", "contract", "trumps", "joker", "n", "success_rate", "success_lo", "success_hi"]
    df = need(t, "success_by_trumps_joker", cols_needed)
    main = df.filter((pl.col("run_id") == runs[0]) & (pl.col("n") > 0))
    top = (
        main.group_by("contract")
        .agg(pl.col("n").sum().alias("total"))
        .sort(["total", "contract"], descending=[True, False])
        .head(figures.TRUMP_CONTRACTS)
        .get_column("contract")
        .to_list()
    )
    if not top:
        raise NoData("no suit contract was played")
    order = {c: i for i, c in enumerate(top)}
    sub = (
        main.filter(pl.col("contract").is_in(top))
        .with_columns(pl.col("contract").replace_strict(order, default=len(order)).alias("_o"))
        .sort("_o", "joker", "trumps")
        .drop("_o")
    )
    cols = [
        Col("contract", "contract"),
        Col("jokers held", "joker", num),
        Col("trumps held", "trumps", num),
        Col("played", "n", num),
        Col("made", "success_rate", pct, "success_lo", "success_hi"),
    ]
    caption = (
        f"Run {_name(t, runs[0])}: the heatmap's cells with 95% Wilson intervals "
        f"(grey rows: fewer than {figures.FEW_N} contracts)"
    )
    return html_table(sub, "success_by_trumps_joker", cols, caption=caption, run=runs[0])


def _effects_table(t: Tables, runs: Sequence[str]) -> str:
    out = []
    for name in ("variant_effects", "strategy_duplicate"):
        if name not in t or t[name].height == 0:
            continue
        df = need(t, name, ["run_id", "metric", "paired_n", "diff_mean", "diff_lo", "diff_hi"])
        cols = [
            Col("run", "run_id", lambda r: _name(t, r)),
            Col("metric", "metric"),
            Col("pairs", "paired_n", num),
            Col("base: all", "base_n", num),
            Col("run: all", "run_n", num),
            Col("base (pairs)", "paired_base_mean", lambda x: num(x, 3)),
            Col("run (pairs)", "paired_mean", lambda x: num(x, 3)),
            Col("difference", "diff_mean", lambda x: signed(x, 3), "diff_lo", "diff_hi"),
            Col("Holm p", "p_holm", _p),
        ]
        cols = [c for c in cols if c.value in df.columns]
        what = "Variant effects" if name == "variant_effects" else "Duplicate strategy comparison"
        head = ""
        if "holm_significant" in df.columns:
            sig = int(df.select(pl.col("holm_significant").sum()).item() or 0)
            raw = int(df.select(((pl.col("diff_lo") > 0) | (pl.col("diff_hi") < 0)).sum()).item() or 0)
            head = (
                f"<p data-headline='{html.escape(name)}'><b>{sig} of {df.height}</b> paired differences are "
                f"distinguishable from zero after Holm's adjustment for the {df.height} metrics of a "
                f"comparison (adjusted p &lt; 0.05); {raw} of the unadjusted 95% intervals exclude zero.</p>"
            )
        caption = (
            f"{what} (run − base, 95% CI), over the deals (or games) both runs played: 'pairs' of them, "
            "beside each run's own count; both means are over the pairs"
        )
        out.append(head + html_table(df, name, cols, caption=caption))
    if not out:
        raise NoData("no compared runs (give --compare RUN_DIR with the same seed)")
    return "\n".join(out)


def _p(x: Any) -> str:
    """A p-value: three decimals, ``<0.001`` below."""
    if not isinstance(x, int | float) or x != x:
        return "—"
    return "<0.001" if x < 0.001 else f"{x:.3f}"


def _success_comparison_table(t: Tables, runs: Sequence[str]) -> str:
    df = need(t, "success_comparison", ["run_id", "metric", "base_rate", "rate", "diff_mean", "note"])
    cols = [
        Col("run", "run_id", lambda r: _name(t, r)),
        Col("metric", "metric"),
        Col("base: contracts", "base_n", num),
        Col("base made", "base_rate", pct, "base_lo", "base_hi"),
        Col("run: contracts", "n", num),
        Col("run made", "rate", pct, "lo", "hi"),
        Col("run − base", "diff_mean", lambda x: signed(100 * x, 1) + " pp", "diff_lo", "diff_hi"),
        Col("Holm p", "p_holm", _p),
    ]
    cols = [c for c in cols if c.value in df.columns]
    note = df["note"][0]
    caption = (
        "Success rates compared, NOT paired: each run's contracts made over the contracts it played. "
        f"{note[0].upper()}{note[1:]}."
    )
    return html_table(df, "success_comparison", cols, caption=caption)


def _table_comparison_table(t: Tables, runs: Sequence[str]) -> str:
    cols_needed = ["base_run", "run_id", "metric", "stat", "base_mean", "mean", "diff_mean", "note"]
    df = need(t, "table_comparison", cols_needed)
    out = []
    compared = df["run_id"].unique(maintain_order=True).to_list()
    for run in [r for r in runs if r in compared] + [r for r in compared if r not in runs]:
        sub = df.filter(pl.col("run_id") == run)
        first = sub.row(0, named=True)

        def fmt(x: Any, rate: bool = True) -> str:
            return pct(x) if rate else num(x, 2)

        rates, means = sub.filter(pl.col("stat") == "rate"), sub.filter(pl.col("stat") == "mean")
        base = _name(t, first["base_run"])
        for part, rate in ((rates, True), (means, False)):
            if part.height == 0:
                continue
            cols = [
                Col("metric", "metric", table_metric_label),
                Col("base: trials", "base_n", num),
                Col("base", "base_mean", lambda x, r=rate: fmt(x, r), "base_lo", "base_hi"),
                Col("run: trials", "n", num),
                Col("run", "mean", lambda x, r=rate: fmt(x, r), "lo", "hi"),
                Col(
                    "run − base",
                    "diff_mean",
                    (lambda x: signed(100 * x, 1) + " pp" if x is not None else "—")
                    if rate
                    else (lambda x: signed(x, 2)),
                    "diff_lo",
                    "diff_hi",
                ),
            ]
            what = "rates" if rate else "means"
            caption = (
                f"{_name(t, run)} ({first.get('table', '')}) against {base} ({first.get('base_table', '')}), "
                f"{what}. {first['note'][0].upper()}{first['note'][1:]}."
            )
            out.append(html_table(part, "table_comparison", cols, caption=caption, run=run))
    return "\n".join(out)


def _tournament_entries_table(t: Tables, runs: Sequence[str]) -> str:
    cols_needed = [
        "rank",
        "entry",
        "strategy",
        "games",
        "score",
        "ppd_diff",
        "rating",
        "rating_low",
        "rating_high",
    ]
    df = need(t, "tournament_entries", cols_needed).sort("rank")
    cols = [
        Col("rank", "rank"),
        Col("entry", "entry"),
        Col("strategy", "strategy"),
        Col("games", "games", num),
        Col("score", "score", pct),
        Col("points per deal vs the field", "ppd_diff", lambda x: signed(x, 1)),
        Col("rating", "rating", lambda x: signed(x, 0), "rating_low", "rating_high"),
    ]
    return html_table(df, "tournament_entries", cols, caption="Tournament entries (duplicate games)")


def _tournament_matches_table(t: Tables, runs: Sequence[str]) -> str:
    cols_needed = ["entry_a", "entry_b", "pairs", "score_a", "elo", "elo_low", "elo_high", "los", "decision"]
    df = need(t, "tournament_matches", cols_needed)
    cols = [
        Col("entry A", "entry_a"),
        Col("entry B", "entry_b"),
        Col("game pairs", "pairs", num),
        Col("score of A", "score_a", pct),
        Col("Elo of A", "elo", lambda x: signed(x, 0), "elo_low", "elo_high"),
        Col("points per deal A − B", "ppd_diff", lambda x: signed(x, 1)),
        Col("LOS", "los", pct),
        Col("SPRT", "decision"),
    ]
    cols = [c for c in cols if c.value in df.columns]
    return html_table(df, "tournament_matches", cols, caption="Tournament matches")


# ----------------------------------------------------------------------------------------- methods


def _strategies_of(m: Manifest | None) -> str:
    labels = m.seat_labels() if m is not None else []
    return ", ".join(labels) if labels else "not recorded"


def _dir_name(run: str | Path) -> str:
    """A run directory's last path component (of a local path or a URI)."""
    return str(run).rstrip("/").rsplit("/", 1)[-1]


def _methods(
    run_dirs: Sequence[str | Path], manifests: Sequence[Manifest | None], tables: Tables, runs: Sequence[str]
) -> str:
    ov = tables.get("overview")
    counts: dict[str, dict[str, Any]] = {}
    if ov is not None and "run_id" in ov.columns:
        counts = {r["run_id"]: r for r in ov.iter_rows(named=True)}
    out = [
        "<p>Each run deals hands from a master seed: the cards and dealer of hand <i>j</i> of game <i>g</i> "
        "depend only on (seed, <i>g</i>, <i>j</i>), so runs with the same seed see the same deals and can be "
        "compared deal by deal. Rates carry 95% Wilson intervals; means carry 95% percentile bootstrap "
        "intervals (2,000 resamples), or Student's t intervals under 100 observations (none from one); "
        "differences between paired runs are paired intervals of the same kind. Per-strategy figures are "
        "clustered by game (partners share a score). The effects of one comparison carry Holm-adjusted "
        "p-values and the feature tables Benjamini–Hochberg q-values; headline counts use them. "
        "Every number here comes from the statistics tables written by <code>fivehundred analyze</code> "
        "(see <code>docs/statistics.md</code>).</p>"
    ]
    for d, m in zip(run_dirs, manifests, strict=True):
        rid = m.run_id if m is not None else None
        c = counts.get(rid, {}) if isinstance(rid, str) else {}
        if not c and len(run_dirs) == 1 and len(counts) == 1:
            c = next(iter(counts.values()))
        seed = m.master_seed if m is not None else None
        if seed is None:
            seed = c.get("master_seed")
        rules = m.rules if m is not None else None
        versions = m.versions if m is not None else {}
        variant = m.variant if m is not None else None
        items = [
            ("run directory", str(d)),
            ("run id", rid or c.get("run_id") or "not recorded"),
            ("rules", variant or c.get("variant") or "not recorded"),
            ("strategies (seat order)", _strategies_of(m)),
            ("master seed", seed if seed is not None else "not recorded"),
            ("deals", num(c.get("deals")) if c else "—"),
            ("games", num(c.get("games")) if c else "—"),
            ("package version", versions.get("fivehundred") or "not recorded"),
            ("engine version", versions.get("engine") or "not recorded"),
        ]
        out.append(f"<h3>{html.escape(str(d))}</h3><dl class='methods'>")
        out += [f"<dt>{html.escape(k)}</dt><dd>{html.escape(str(v))}</dd>" for k, v in items]
        out.append("</dl>")
        if rules:
            shown = {k: v for k, v in sorted(rules.items()) if k not in ("name", "description", "base")}
            cells = "".join(
                f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(str(v))}</td></tr>"
                for k, v in shown.items()
            )
            desc = rules.get("description", "")
            out.append(
                f"<details><summary>Rule settings{': ' + html.escape(str(desc)) if desc else ''}</summary>"
                '<table class="stats" data-table="rules">'
                "<thead><tr><th>switch</th><th>value</th></tr></thead>"
                f"<tbody>{cells}</tbody></table></details>"
            )
    out.append(
        f"<p>Report written by fivehundred {html.escape(_package_version())} (Matplotlib, Polars).</p>"
    )
    return "\n".join(out)


# ----------------------------------------------------------------------------------------- build


def check_outputs(out_html: str | Path, pdf: str | Path | None = None) -> None:
    """Refuse a report file that cannot be written (a folder, an unwritable place) before any work."""
    check_output_file(out_html, "-o")
    if pdf is not None:
        check_output_file(pdf, "--pdf")
        if Path(pdf).resolve() == Path(out_html).resolve():
            raise ReportError(f"--pdf {pdf}: the same file as the HTML report")


# ----------------------------------------------------------------------------------------- sections
#
# One function per section: it returns a :class:`~reports.section.Section` (title, reading, methods
# text, figures, tables, the bots it describes).  A new section is one more function listed once in
# SECTION_BUILDERS.


def overview_section(ctx: Context) -> Section:
    """What was simulated, per run."""
    return Section(
        "overview",
        "Overview",
        "What was simulated: deals, games, thrown-in deals and contracts per run.",
        methods="Counts from the deal log; shares carry 95% Wilson intervals.",
        tables=(TableSlot("overview", _overview_table),),
        strategies=ctx.lineups(),
    )


def contracts_section(ctx: Context) -> Section:
    """How often each contract is played and made."""
    return Section(
        "contracts",
        "Contracts",
        "How often each contract is played and how often it is made, with 95% intervals.",
        methods="Success rates and shares of deals: Wilson intervals; expected points: bootstrap means.",
        figures=(FigureSlot("contracts", figures.contracts_chart),),
        tables=(
            TableSlot("contracts", _contracts_table),
            TableSlot("success_by_level", _level_table),
            TableSlot("success_by_seat", _seat_table),
        ),
        strategies=ctx.lineups(),
    )


def trumps_section(ctx: Context) -> Section:
    """Suit contracts by the declarer's dealt trumps."""
    return Section(
        "trumps",
        "Trump holding",
        "Suit contracts by the declarer's dealt trumps (joker and bowers count as trumps).",
        methods=(
            f"Heatmap cells show the share made and the number of contracts; cells under "
            f"{figures.MIN_N} contracts are blank and cells under {figures.FEW_N} are hatched (their "
            "Wilson interval is wider than ±15 points). Pooled panels: Wilson intervals."
        ),
        figures=(FigureSlot("trumps", figures.trumps_chart), FigureSlot("bowers", figures.bowers_chart)),
        tables=(TableSlot("success_by_trumps_joker", _trumps_table, optional=True),),
        strategies=ctx.lineups(),
    )


def misere_section(ctx: Context) -> Section:
    """Misère and open misère, as bid and forced."""
    return Section(
        "misere",
        "Misère and open misère",
        "Misère bids as played, and (if analysed) forced misère on every kind of hand. Hand features of "
        "bid misères are the declarer's final 10 cards; of forced ones, the hand as dealt.",
        methods=(
            "The what-if forces each misère contract on the seat left of the dealer for a sample of deals "
            "and plays it out with the same bots; rates carry Wilson intervals."
        ),
        figures=(FigureSlot("misere", figures.misere_chart),),
        tables=(
            TableSlot("misere", _misere_table),
            TableSlot(
                "misere_by_feature",
                _misere_feature_table("misere_by_feature", "misère as bid (final 10 cards)"),
            ),
            TableSlot("misere_whatif", _whatif_table, optional=True),
            TableSlot(
                "misere_whatif_by_feature",
                _misere_feature_table("misere_whatif_by_feature", "forced misère (dealt hand)"),
                optional=True,
            ),
        ),
        strategies=ctx.lineups(),
    )


def strategies_section(ctx: Context) -> Section:
    """Points per deal and games won, per strategy and team line-up."""
    return Section(
        "strategies",
        "Strategies",
        "Points per deal and games won, per strategy and per team line-up.",
        methods=(
            "Intervals clustered by game (partners share a score, deals share a game). Points per deal "
            "weigh every deal alike; games won count what the rules reward. The two can disagree: a bolder "
            "team can lose points on average through costly failed contracts and still win more games, "
            "because a game ends at 500 (or −500) and big swings decide it. The paired comparison "
            "(strategy_duplicate, the same deals with the seats swapped) is the clean test of which bot "
            "is better."
        ),
        figures=(FigureSlot("strategies", figures.strategies_chart),),
        tables=(
            TableSlot("strategies", _strategies_table),
            TableSlot("strategy_disagreement", _disagreement_note, optional=True),
            TableSlot("tournament_entries", _tournament_entries_table, optional=True),
            TableSlot("tournament_matches", _tournament_matches_table, optional=True),
        ),
        strategies=ctx.lineups(),
    )


def effects_section(ctx: Context) -> Section:
    """Paired differences between runs with the same seed."""
    return Section(
        "effects",
        "Variant effects",
        "Runs with the same seed compared deal by deal (run minus base).",
        methods=(
            "Paired differences over the deals both runs played; Holm-adjusted p-values over the metrics "
            "of one compared run. Success rates compared unpaired are kept apart."
        ),
        figures=(FigureSlot("effects", figures.effects_chart),),
        tables=(
            TableSlot("effects", _effects_table, optional=True),
            TableSlot("success_comparison", _success_comparison_table, optional=True),
        ),
        strategies=ctx.lineups(),
    )


def tables_section(ctx: Context) -> Section:
    """Runs on other tables, compared unpaired."""
    return Section(
        "tables",
        "Comparing tables",
        "Runs on other tables (another number of players or teams, or another deck) deal different cards "
        "from the same seed, so they are compared unpaired: each run's rate or mean with its own 95% "
        "interval, and the difference (run − base) with an interval for independent samples.",
        methods="Unpaired: Wilson intervals per run, Newcombe intervals for differences of rates.",
        figures=(FigureSlot("tables", figures.tables_chart),),
        tables=(TableSlot("table_comparison", _table_comparison_table, optional=True),),
        strategies=ctx.lineups(),
    )


def games_section(ctx: Context) -> Section:
    """Game length, game ends and score trajectories."""
    return Section(
        "games",
        "Games",
        "How long games last, how they end, and how the scores get there.",
        methods=(
            "Each game counted once; shares of games carry Wilson intervals, mean scores bootstrap "
            "intervals; late deals are drawn while at least max(10, 1%) of the games still run."
        ),
        figures=(
            FigureSlot("games", figures.games_chart),
            FigureSlot("trajectories", figures.trajectories_chart),
        ),
        tables=(
            TableSlot("game_ends", _game_ends_table),
            TableSlot("score_trajectories", _trajectories_table),
        ),
        strategies=ctx.lineups(),
    )


def methods_section(ctx: Context) -> Section:
    """Rules, strategies, seeds, counts and versions of every run."""
    text = _methods(ctx.dirs, ctx.manifests, ctx.tables, ctx.runs)
    return Section(
        "methods",
        "Methods",
        "Rules, strategies, seeds, counts and versions.",
        tables=(TableSlot("methods", lambda _t, _r: text),),
        depends_on_bots=False,
        always_shown=True,
    )


#: Every section in report order: one function per section, listed once.
SECTION_BUILDERS: tuple[Callable[[Context], Section], ...] = (
    overview_section,
    contracts_section,
    trumps_section,
    misere_section,
    strategies_section,
    effects_section,
    tables_section,
    games_section,
    dd_section,
    methods_section,
)


def sections(ctx: Context) -> list[Section]:
    """The report's sections for ``ctx``, in order."""
    return [build(ctx) for build in SECTION_BUILDERS]


def _banner(sec: Section) -> str:
    """The banner of a section: which bots played the runs whose figures follow."""
    if not sec.strategies:
        return ""
    items = "; ".join(
        f"{html.escape(name)}: <code>{html.escape(lineup)}</code>" for name, lineup in sec.strategies
    )
    if not sec.depends_on_bots:
        return f'<p class="bots" data-bots="0"><b>These figures do not depend on the bots</b> — {items}.</p>'
    return (
        '<p class="bots" data-bots="1"><b>These figures describe the bots that played</b> '
        f"(strategies per seat) — {items}. Other bots bid and play other hands: the numbers are "
        "properties of these bots under these rules, not of the game itself.</p>"
    )


@dataclass
class _Rendered:
    """A section drawn: its HTML blocks, whether anything has data, why not, and the charts drawn."""

    section: Section
    blocks: list[str] = field(default_factory=list)
    shown: bool = False
    why: str = ""
    drawn: list[FigureSlot] = field(default_factory=list)


def _render(sec: Section, ctx: Context, result: ReportResult) -> _Rendered:
    out = _Rendered(sec, shown=sec.always_shown)
    for slot in sec.figures:
        try:
            if not ctx.runs:
                raise NoData("the statistics list no run (table 'overview' missing or empty)")
            chart = slot.build(ctx.tables, list(ctx.runs))
            png = chart.png()
            chart.figure.clear()
            out.blocks.append(_figure_html(chart, png))
            out.drawn.append(slot)
            result.figures[slot.key] = "ok"
            out.shown = True
        except NoData as exc:
            out.blocks.append(f'<div data-figure="{slot.key}">{_notice("no data", str(exc))}</div>')
            result.figures[slot.key] = f"no data: {exc}"
            out.why = out.why or str(exc)
        except Exception as exc:  # a failed figure must not stop the report; say what failed
            msg = f"{type(exc).__name__}: {exc}"
            out.blocks.append(f'<div data-figure="{slot.key}">{_notice("figure failed", msg)}</div>')
            result.figures[slot.key] = f"failed: {msg}"
            out.shown = True
    for tslot in sec.tables:
        try:
            if not ctx.runs and not sec.always_shown:
                raise NoData("the statistics list no run")
            out.blocks.append(tslot.build(ctx.tables, list(ctx.runs)))
            result.tables[tslot.name] = "ok"
            out.shown = True
        except NoData as exc:
            if not tslot.optional:  # optional tables are silent when absent
                out.blocks.append(_notice("no data", str(exc)))
                out.why = out.why or str(exc)
            else:
                result.optional.add(tslot.name)
            result.tables[tslot.name] = f"no data: {exc}"
        except Exception as exc:  # a failed table must not stop the report either
            out.blocks.append(_notice("table failed", f"{type(exc).__name__}: {exc}"))
            result.tables[tslot.name] = f"failed: {type(exc).__name__}: {exc}"
            out.shown = True
    result.sections[sec.id] = "shown" if out.shown else f"no data: {out.why or 'nothing to show'}"
    return out


def _section_html(r: _Rendered) -> str:
    sec = r.section
    parts = [f'<section id="{sec.id}"><h2>{html.escape(sec.title)}</h2><p>{html.escape(sec.reading)}</p>']
    parts.append(_banner(sec))
    parts += list(sec.notes)
    parts += r.blocks
    if sec.methods:
        parts.append(f'<p class="how" data-methods="{sec.id}"><b>How:</b> {html.escape(sec.methods)}</p>')
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def _contents(rendered: Sequence[_Rendered]) -> str:
    items = []
    for r in rendered:
        title = html.escape(r.section.title)
        if r.shown:
            items.append(f'<li><a href="#{r.section.id}">{title}</a></li>')
        else:
            why = html.escape(r.why or "nothing to show")
            items.append(f'<li class="empty" data-empty="{r.section.id}">{title} — no data: {why}</li>')
    return "<nav><ol>" + "".join(items) + "</ol></nav>"


def build_report(
    run_dirs: Sequence[str | Path],
    out_html: str | Path,
    pdf: str | Path | None = None,
    *,
    tables: Tables,
    manifests: Sequence[Manifest | None] | None = None,
    progress: Callable[[str], None] | None = None,
) -> ReportResult:
    """Write the HTML report (and the PDF when ``pdf`` is given) from statistics ``tables``.

    ``run_dirs`` name the runs (main run first) and ``manifests`` are what their manifests say (for
    the methods section; ``None``: not recorded).  The report reads nothing else: the caller finds
    the tables (``fivehundred report`` reads or makes them, see :mod:`cli.statistics`).
    ``progress`` (optional) is told, in words, which section is being drawn.
    """
    if not run_dirs:
        raise ReportError("no run directory given")
    dirs = [str(d) for d in run_dirs]
    infos = list(manifests) if manifests is not None else [None] * len(dirs)
    if len(infos) != len(dirs):
        raise ValueError("one manifest (or None) per run directory")
    wanted = [m.run_id if m is not None else None for m in infos]
    check_outputs(out_html, pdf)
    runs = run_order(tables, wanted)
    ctx = Context(tables, tuple(runs), tuple(dirs), tuple(infos))
    result = ReportResult(html=Path(out_html), pdf=Path(pdf) if pdf else None)
    say = progress or (lambda _text: None)
    with style_context():
        todo = sections(ctx)
        rendered = []
        for i, sec in enumerate(todo, 1):
            say(f"drawing the report: {i}/{len(todo)} {sec.title} ...")
            rendered.append(_render(sec, ctx, result))
    if result.pdf is not None:
        say("writing the report and the PDF ...")
    title = "Five Hundred: " + ", ".join(html.escape(_dir_name(d)) for d in dirs)
    page = [
        *page_start(title),
        "<p>Simulated Five Hundred: what the deals say about bidding, misère, strategies "
        "and rule variants.</p>",
        *(f'<p class="unfinished"><b>{html.escape(note)}</b></p>' for note in unfinished_notes(ctx)),
        _contents(rendered),
    ]
    page += [_section_html(r) for r in rendered if r.shown]
    page.append("</body></html>")
    _atomic_write(result.html, ("\n".join(page) + "\n").encode("utf-8"))
    if result.pdf is not None:
        _write_pdf(result.pdf, rendered, ctx)
    return result


def unfinished_notes(ctx: Context) -> list[str]:
    """One line per run that was not finished when the report was made (``report --partial``)."""
    return [
        f"Not finished: {_dir_name(d)} holds {progress_text(m)} (still running or interrupted); "
        "every figure and table is of that part only."
        for d, m in zip(ctx.dirs, ctx.manifests, strict=True)
        if m is not None and m.native and m.status in UNFINISHED
    ]


#: Every PDF page: A4 landscape (inches).
PAGE = (11.69, 8.27)
_HEAD = 1.25  # inches above a figure for its title, reading and banner
_ROW = 0.19  # inches per table row on a PDF page
_FOOT = 0.5  # inches below, for the banner naming the bots


def _footer(page: Any, banner: str) -> None:
    """The section's bots banner at the foot of a PDF page."""
    page.text(0.02, 0.08 / PAGE[1], _wrap(banner, 200), fontsize=6.5, color="#2244aa", va="bottom")


class _TableText(HTMLParser):
    """The shown text of each ``<table class="stats">`` of an HTML block: caption, header, rows."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[str], list[tuple[bool, list[str]]]]] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._few = False
        self._caption: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and "stats" in (a.get("class") or ""):
            self.tables.append(("", [], []))
        elif not self.tables:
            return
        elif tag == "caption":
            self._caption = []
        elif tag == "tr":
            self._row, self._few = [], "few" in (a.get("class") or "")
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if not self.tables:
            return
        _, header, rows = self.tables[-1]
        if tag == "caption" and self._caption is not None:
            self.tables[-1] = ("".join(self._caption), header, rows)
            self._caption = None
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if header:
                rows.append((self._few, self._row))
            else:
                header.extend(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._caption is not None:
            self._caption.append(data)
        elif self._cell is not None:
            self._cell.append(data)


def _pdf_tables(blocks: Sequence[str]) -> list[tuple[str, list[str], list[tuple[bool, list[str]]]]]:
    parser = _TableText()
    for b in blocks:
        parser.feed(b)
    return [t for t in parser.tables if t[1]]


def _banner_text(sec: Section) -> str:
    if not sec.strategies:
        return ""
    runs = "; ".join(f"{name}: {lineup}" for name, lineup in sec.strategies)
    if not sec.depends_on_bots:
        return f"These figures do not depend on the bots. Runs: {runs}."
    return f"These figures describe the bots that played (strategies per seat): {runs}."


def _table_pages(sec: Section, blocks: Sequence[str]) -> list[Any]:
    """The section's tables drawn as text on pages of :data:`PAGE` size (long tables split)."""
    from matplotlib.figure import Figure

    w, h = PAGE
    pages: list[Any] = []
    page: Any = None
    y = 0.0  # inches from the top of the current page

    def new_page() -> None:
        nonlocal page, y
        page = Figure(figsize=PAGE)
        page.text(0.3 / w, 1 - 0.3 / h, f"{sec.title}: tables", fontsize=11, fontweight="bold", va="top")
        pages.append(page)
        y = 0.7

    for caption, header, rows in _pdf_tables(blocks):
        widths = [
            max(len(header[i]), *(len(r[i]) for _, r in rows if i < len(r))) for i in range(len(header))
        ]
        total = sum(widths) or 1
        size = min(7.0, 7.0 * 150 / total)
        start = 0
        while start < len(rows) or start == 0:
            if page is None or y + _ROW * 4 > h - _FOOT:
                new_page()
            fit = max(1, int((h - _FOOT - y - 0.45) / _ROW))
            chunk = rows[start : start + fit]
            more = " (continued)" if start else ""
            page.text(
                0.3 / w, 1 - y / h, _wrap(caption + more, 170), fontsize=7.5, fontweight="bold", va="top"
            )
            y += 0.3 + 0.13 * caption.count("\n")
            for line, (few, cells) in enumerate([(False, header), *chunk]):
                x = 0.3
                for i, cell in enumerate(cells):
                    colour = "#999999" if few else "#000000"
                    weight = "bold" if line == 0 else "normal"
                    page.text(
                        x / w, 1 - y / h, cell, fontsize=size, color=colour, fontweight=weight, va="top"
                    )
                    x += (widths[i] if i < len(widths) else 8) / total * (w - 0.6)
                y += _ROW
            y += 0.2
            start += len(chunk)
            if start >= len(rows):
                break
    return pages


@contextmanager
def pdf_pages(path: Path) -> Iterator[Any]:
    """A matplotlib ``PdfPages`` written to a temporary file beside ``path`` with fixed metadata (the
    same pages give the same bytes) and the report style, renamed onto ``path`` only when complete."""
    from matplotlib.backends.backend_pdf import PdfPages

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        meta = {"Creator": "fivehundred", "Producer": "fivehundred", "CreationDate": None}
        with style_context(), PdfPages(tmp, metadata=meta) as pdf:
            yield pdf
        _readable(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_pdf(path: Path, rendered: Sequence[_Rendered], ctx: Context) -> None:
    """A cover page, then per shown section one page per figure (title, reading, bots) and its tables;
    every page A4 landscape; deterministic metadata.

    Each figure page is a figure built afresh (not the one already drawn as PNG), so that the PDF's
    layout never depends on an earlier draw: the same tables give the same bytes.
    """
    from matplotlib.figure import Figure

    h = PAGE[1]
    with pdf_pages(path) as pdf:
        cover = Figure(figsize=PAGE)
        lines = ["Five Hundred: simulation report", ""]
        names = run_names(ctx.tables, ctx.runs)
        ov = ctx.tables.get("overview")
        for d, m in zip(ctx.dirs, ctx.manifests, strict=True):
            seed = m.master_seed if m is not None else None
            variant = (m.variant if m is not None else None) or "?"
            lines.append(f"Run directory: {d}")
            lines.append(f"  rules {variant}, master seed {seed if seed is not None else '?'}")
            lines.append(f"  strategies: {_strategies_of(m)}")
        if ov is not None and {"run_id", "variant", "deals", "games"} <= set(ov.columns):
            for r in ov.iter_rows(named=True):
                lines.append(
                    f"  {names.get(r['run_id'], r['run_id'])}: {r['deals']:,} deals, {r['games']:,} games"
                )
        lines += ["", *unfinished_notes(ctx)] if unfinished_notes(ctx) else []
        lines += ["", "Sections:"]
        for r in rendered:
            lines.append(f"  {r.section.title}" + ("" if r.shown else f" (no data: {r.why})"))
        lines += ["", f"fivehundred {_package_version()}; intervals are 95%."]
        cover.text(0.05, 0.93, "\n".join(lines), va="top", family="monospace", fontsize=8)
        pdf.savefig(cover)
        for r in rendered:
            if not r.shown:
                continue
            banner = _banner_text(r.section)
            for slot in r.drawn:
                c = slot.build(ctx.tables, list(ctx.runs))
                page = c.figure
                page.set_size_inches(*PAGE)  # every page one size: the figure fills it below the head
                page.get_layout_engine().set(rect=(0, 0, 1, 1 - _HEAD / h))
                page.text(
                    0.02,
                    1 - 0.12 / h,
                    c.title if c.title.startswith(r.section.title) else f"{r.section.title}: {c.title}",
                    fontsize=11,
                    fontweight="bold",
                    va="top",
                )
                page.text(0.02, 1 - 0.4 / h, _wrap(c.reading, 170), fontsize=8, va="top")
                if banner:
                    page.text(0.02, 1 - 0.78 / h, _wrap(banner, 200), fontsize=6.5, color="#2244aa", va="top")
                _freeze_layout(page)
                pdf.savefig(page)
                page.clear()
            for tpage in _table_pages(r.section, r.blocks):
                if banner:
                    _footer(tpage, banner)
                pdf.savefig(tpage)
                tpage.clear()


def _freeze_layout(fig: Any) -> None:
    """Run the constrained layout once, then fix every axes' position rounded to 1e-5.

    The layout solver's last bits depend on the process's hash seed; the PDF writes coordinates with
    six decimals, so without rounding the same figure could differ by one digit between runs.
    """
    fig.draw_without_rendering()
    fig.set_layout_engine("none")
    for ax in fig.axes:
        x0, y0, w, h = ax.get_position().bounds
        ax.set_position([round(v, 5) for v in (x0, y0, w, h)])


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width))
