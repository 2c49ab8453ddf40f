"""The report: one self-contained HTML file (figures embedded as PNG), and optionally a PDF.

:func:`build_report` takes the statistics tables (and what the runs' manifests say), draws every
figure of :data:`reports.figures.BUILDERS`, lays out the readable tables and the methods section, and
writes the files atomically.  A figure or table that has no data, or that fails, becomes a short
notice in its section; the report is always written.
"""

from __future__ import annotations

import base64
import html
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import polars as pl

from fivehundred.pipelines.outputs import check_output_file
from fivehundred.pipelines.rundir import Manifest
from fivehundred.reports.figures import BUILDERS, Chart, style_context, table_metric_label
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

#: Sections in order: (id, title, lead paragraph).
SECTIONS = (
    ("overview", "Overview", "What was simulated: deals, games, thrown-in deals and contracts per run."),
    (
        "contracts",
        "Contracts",
        "How often each contract is played and how often it is made, with 95% intervals.",
    ),
    (
        "trumps",
        "Trump holding",
        "Suit contracts by the declarer's dealt trumps (joker and bowers count as trumps).",
    ),
    (
        "misere",
        "Misère and open misère",
        "Misère bids as played, and (if analysed) forced misère on every kind of hand. Hand features of "
        "bid misères are the declarer's final 10 cards; of forced ones, the hand as dealt.",
    ),
    ("strategies", "Strategies", "Points per deal and games won, per strategy and per team line-up."),
    ("effects", "Variant effects", "Runs with the same seed compared deal by deal (run minus base)."),
    (
        "tables",
        "Comparing tables",
        "Runs on other tables (another number of players or teams, or another deck) deal different cards "
        "from the same seed, so they are compared unpaired: each run's rate or mean with its own 95% "
        "interval, and the difference (run − base) with an interval for independent samples.",
    ),
    ("games", "Games", "How long games last, how they end, and how the scores get there."),
    ("methods", "Methods", "Rules, strategies, seeds, counts and versions."),
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
"""


@dataclass
class ReportResult:
    """What was written: paths, and per section/figure whether it has content, no data or failed."""

    html: Path
    pdf: Path | None = None
    figures: dict[str, str] = field(default_factory=dict)  # key -> "ok" | "no data: ..." | "failed: ..."
    tables: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        """One line per file, then the sections that have no data or failed."""
        ok = sum(1 for v in self.figures.values() if v == "ok")
        lines = [f"report: {self.html} ({ok} of {len(self.figures)} figures)"]
        if self.pdf is not None:
            lines.append(f"pdf: {self.pdf}")
        notes = {**self.figures, **{k: v for k, v in self.tables.items() if k not in OPTIONAL_TABLES}}
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
        Col("run", "run_id"),
        Col("variant", "variant"),
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
        Col("run", "run_id"),
        Col("variant", "variant"),
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
    """``<run id> (<variant>)`` from the overview table."""
    ov = t.get("overview")
    if ov is not None and {"run_id", "variant"} <= set(ov.columns):
        v = ov.filter(pl.col("run_id") == run).get_column("variant").to_list()
        if v:
            return f"{run} ({v[0]})"
    return run


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
        Col("run", "run_id"),
        Col("variant", "variant"),
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
        Col("run", "run_id"),
        Col("variant", "variant"),
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
        Col("run", "run_id"),
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


def _bots(t: Tables, runs: Sequence[str]) -> str:
    """The banner of a section: which bots played the runs whose figures follow."""
    ov = t.get("overview")
    if ov is None or not {"run_id", "strategies"} <= set(ov.columns):
        return ""
    lines = dict(ov.select("run_id", "strategies").iter_rows())
    items = "; ".join(
        f"{html.escape(_name(t, r))}: <code>{html.escape(str(lines[r]))}</code>" for r in runs if r in lines
    )
    return (
        '<p class="bots" data-bots="1"><b>These figures describe the bots that played</b> '
        f"(strategies per seat) — {items}. Other bots bid and play other hands: the numbers are "
        "properties of these bots under these rules, not of the game itself.</p>"
    )


def _effects_table(t: Tables, runs: Sequence[str]) -> str:
    out = []
    for name in ("variant_effects", "strategy_duplicate"):
        if name not in t or t[name].height == 0:
            continue
        df = need(t, name, ["run_id", "metric", "paired_n", "diff_mean", "diff_lo", "diff_hi"])
        cols = [
            Col("run", "run_id"),
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
        Col("run", "run_id"),
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


#: Tables shown only when present (no "no data" notice when absent; the effects figure already says why).
OPTIONAL_TABLES = (
    "misere_whatif",
    "misere_whatif_by_feature",
    "tournament_entries",
    "tournament_matches",
    "effects",
    "success_comparison",
    "table_comparison",
)

#: Tables per section: (name, builder).
TABLES = {
    "overview": (("overview", _overview_table),),
    "contracts": (
        ("contracts", _contracts_table),
        ("success_by_level", _level_table),
        ("success_by_seat", _seat_table),
    ),
    "misere": (
        ("misere", _misere_table),
        ("misere_by_feature", _misere_feature_table("misere_by_feature", "misère as bid (final 10 cards)")),
        ("misere_whatif", _whatif_table),
        (
            "misere_whatif_by_feature",
            _misere_feature_table("misere_whatif_by_feature", "forced misère (dealt hand)"),
        ),
    ),
    "strategies": (
        ("strategies", _strategies_table),
        ("tournament_entries", _tournament_entries_table),
        ("tournament_matches", _tournament_matches_table),
    ),
    "effects": (("effects", _effects_table), ("success_comparison", _success_comparison_table)),
    "tables": (("table_comparison", _table_comparison_table),),
    "games": (("game_ends", _game_ends_table), ("score_trajectories", _trajectories_table)),
}


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


def build_report(
    run_dirs: Sequence[str | Path],
    out_html: str | Path,
    pdf: str | Path | None = None,
    *,
    tables: Tables,
    manifests: Sequence[Manifest | None] | None = None,
) -> ReportResult:
    """Write the HTML report (and the PDF when ``pdf`` is given) from statistics ``tables``.

    ``run_dirs`` name the runs (main run first) and ``manifests`` are what their manifests say (for
    the methods section; ``None``: not recorded).  The report reads nothing else: the caller finds
    the tables (``fivehundred report`` reads or makes them, see :mod:`cli.statistics`).
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
    result = ReportResult(html=Path(out_html), pdf=Path(pdf) if pdf else None)
    charts: list[Chart] = []
    drawn: list[Any] = []  # the builders that made a figure, to draw the PDF pages afresh
    body: dict[str, list[str]] = {sid: [] for sid, _, _ in SECTIONS}
    with style_context():
        for key, section, builder in BUILDERS:
            try:
                if not runs:
                    raise NoData("the statistics list no run (table 'overview' missing or empty)")
                chart = builder(tables, runs)
                png = chart.png()
                charts.append(chart)
                drawn.append(builder)
                body[section].append(_figure_html(chart, png))
                result.figures[key] = "ok"
            except NoData as exc:
                body[section].append(f'<div data-figure="{key}">{_notice("no data", str(exc))}</div>')
                result.figures[key] = f"no data: {exc}"
            except Exception as exc:  # a failed figure must not stop the report; say what failed
                msg = f"{type(exc).__name__}: {exc}"
                body[section].append(f'<div data-figure="{key}">{_notice("figure failed", msg)}</div>')
                result.figures[key] = f"failed: {msg}"
    for section, builders in TABLES.items():
        for name, fn in builders:
            try:
                if not runs:
                    raise NoData("the statistics list no run")
                body[section].append(fn(tables, runs))
                result.tables[name] = "ok"
            except NoData as exc:
                if name not in OPTIONAL_TABLES:  # optional tables are silent when absent
                    body[section].append(_notice("no data", str(exc)))
                result.tables[name] = f"no data: {exc}"
            except Exception as exc:  # a failed table must not stop the report either
                body[section].append(_notice("table failed", f"{type(exc).__name__}: {exc}"))
                result.tables[name] = f"failed: {type(exc).__name__}: {exc}"
    body["methods"].append(_methods(dirs, infos, tables, runs))
    title = "Five Hundred: " + ", ".join(html.escape(_dir_name(d)) for d in dirs)
    page = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title><style>{_CSS}</style></head><body>",
        f"<h1>{title}</h1>",
        "<p>Simulated Five Hundred: what the deals say about bidding, misère, strategies "
        "and rule variants.</p>",
        "<nav><ol>"
        + "".join(f'<li><a href="#{sid}">{html.escape(t)}</a></li>' for sid, t, _ in SECTIONS)
        + "</ol></nav>",
    ]
    bots = _bots(tables, runs)
    for sid, stitle, lead in SECTIONS:
        page.append(f'<section id="{sid}"><h2>{html.escape(stitle)}</h2><p>{html.escape(lead)}</p>')
        if sid != "methods":
            page.append(bots)
        page += body[sid]
        page.append("</section>")
    page.append("</body></html>")
    _atomic_write(result.html, ("\n".join(page) + "\n").encode("utf-8"))
    if result.pdf is not None:
        for chart in charts:
            chart.figure.clear()
        _write_pdf(result.pdf, drawn, list(zip(dirs, infos, strict=True)), tables, runs)
    for chart in charts:
        chart.figure.clear()
    return result


def _write_pdf(
    path: Path,
    builders: Sequence[Any],
    dirs: Sequence[tuple[str, Manifest | None]],
    tables: Tables,
    runs: Sequence[str],
) -> None:
    """Title and methods page, then one page per figure with its reading (deterministic metadata).

    Each page is a figure built afresh (not the one already drawn as PNG), so that the PDF's layout
    never depends on an earlier draw: the same tables give the same bytes.
    """
    from matplotlib.backends.backend_pdf import PdfPages
    from matplotlib.figure import Figure

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        meta = {"Creator": "fivehundred", "Producer": "fivehundred", "CreationDate": None}
        with style_context(), PdfPages(tmp, metadata=meta) as pdf:
            charts = [builder(tables, runs) for builder in builders]
            cover = Figure(figsize=(8.27, 11.69))
            lines = ["Five Hundred: simulation report", ""]
            ov = tables.get("overview")
            for d, m in dirs:
                seed = m.master_seed if m is not None else None
                variant = (m.variant if m is not None else None) or "?"
                lines.append(f"Run directory: {d}")
                lines.append(f"  rules {variant}, master seed {seed if seed is not None else '?'}")
                lines.append(f"  strategies: {_strategies_of(m)}")
            if ov is not None and {"run_id", "variant", "deals", "games"} <= set(ov.columns):
                for r in ov.iter_rows(named=True):
                    lines.append(
                        f"  {r['run_id']}  {r['variant']}: {r['deals']:,} deals, {r['games']:,} games"
                    )
            lines += ["", "Figures:"] + [f"  {i + 1}. {c.title}" for i, c in enumerate(charts)]
            lines += ["", f"fivehundred {_package_version()}; intervals are 95%."]
            cover.text(0.08, 0.92, "\n".join(lines), va="top", family="monospace", fontsize=9)
            pdf.savefig(cover)
            for c in charts:
                w, h = c.figure.get_size_inches()
                page = c.figure
                top = 1.0  # inches above the figure for its title and reading
                tall = h + top
                page.set_size_inches(w, tall)
                page.get_layout_engine().set(rect=(0, 0, 1, 1 - top / tall))
                page.text(0.02, 1 - 0.1 / tall, c.title, fontsize=11, fontweight="bold", va="top")
                page.text(0.02, 1 - 0.38 / tall, _wrap(c.reading, 140), fontsize=8, va="top")
                _freeze_layout(page)
                pdf.savefig(page)
                page.clear()
        _readable(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
