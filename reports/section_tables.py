"""The HTML tables and notes of each report section, and the methods text: each builder takes the
statistics tables and the run order (main run first) and returns HTML, or raises
:class:`~reports.tables.NoData` saying in words why it has nothing to show.

A table that shows one run names it in its caption; a table of several runs has a run column.
Rates are shown in %, differences of rates in percentage points.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from fivehundred.pipelines.rundir import Manifest
from fivehundred.reports import figures
from fivehundred.reports.figures import table_metric_label
from fivehundred.reports.page import package_version
from fivehundred.reports.section import run_names
from fivehundred.reports.tables import Col, NoData, Tables, html_table, need, num, pct, signed
from fivehundred.sim.notation import is_misere


def overview_table(t: Tables, runs: Sequence[str]) -> str:
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


def game_ends_table(t: Tables, runs: Sequence[str]) -> str:
    df = _in_order(need(t, "game_ends", ["run_id", "variant", "end_reason", "games", "rate"]), runs)
    cols = [
        Col("run", "run_id", lambda r: _name(t, r)),
        Col("game ended", "end_reason", figures.end_text),
        Col("games", "games", num),
        Col("share of games", "rate", pct, "rate_lo", "rate_hi"),
        Col("won from 100 or more behind", "comeback_rate", pct, "comeback_lo", "comeback_hi"),
    ]
    cols = [c for c in cols if c.value in df.columns]
    return html_table(df, "game_ends", cols, caption="How games end")


#: Deals shown in the score-trajectory table (those that some games reach).
TRAJECTORY_DEALS = (1, 2, 3, 5, 8, 12, 20)


def trajectories_table(t: Tables, runs: Sequence[str]) -> str:
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


def contracts_table(t: Tables, runs: Sequence[str]) -> str:
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
        if "slam_rate" in sub.columns:  # all tricks taken: no meaning for a misère (shown blank)
            slam = ("slam_rate", "slam_lo", "slam_hi")
            misere = pl.col("contract").map_elements(is_misere, return_dtype=pl.Boolean)
            sub = sub.with_columns(pl.when(~misere).then(pl.col(c)).alias(c) for c in slam)
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


def level_table(t: Tables, runs: Sequence[str]) -> str:
    return _success_table(t, runs, "success_by_level", Col("level", "level"), "order", "by level")


def seat_table(t: Tables, runs: Sequence[str]) -> str:
    key = Col("declarer's seat (1 = left of dealer, 0 = dealer)", "seat_rel")
    return _success_table(t, runs, "success_by_seat", key, "seat_rel", "by the declarer's seat")


def misere_table(t: Tables, runs: Sequence[str]) -> str:
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


def whatif_table(t: Tables, runs: Sequence[str]) -> str:
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


def misere_feature_table(name: str, what: str) -> Any:
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


def strategies_table(t: Tables, runs: Sequence[str]) -> str:
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


def disagreement_note(t: Tables, runs: Sequence[str]) -> str:
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
        what = "The paired comparison: the same deals with the strategies swapped (run − base, 95% CI)"
        out += paired_tables(t, keep, "strategy_duplicate", what, counts=False)
    else:
        out.append(
            '<p class="disagree">No paired comparison here: simulate the same seed with the strategies '
            "in swapped seats and give that run to <code>fivehundred report --compare</code> (a "
            "duplicate run).</p>"
        )
    return "\n".join(out)


def trumps_table(t: Tables, runs: Sequence[str]) -> str:
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


#: How a paired difference of each kind of metric is shown: the means, then the difference.
_PAIRED_FORMATS: dict[str, tuple[str, Any, Any]] = {
    "points": ("points per deal", lambda x: signed(x, 1), lambda x: signed(x, 1)),
    "rate": ("shares, in %", lambda x: pct(x, 1), lambda x: signed(100 * x, 1) + " pp"),
    "deals": ("deals per game", lambda x: num(x, 2), lambda x: signed(x, 2)),
}


def paired_tables(t: Tables, df: pl.DataFrame, name: str, what: str, counts: bool = True) -> list[str]:
    """A table of paired differences (``variant_effects``, ``strategy_duplicate``) as one table per
    kind of metric (points per deal, shares in %, deals per game), each metric by its name in words."""
    out = []
    kinds = df.with_columns(
        pl.col("metric").map_elements(figures.metric_kind, return_dtype=pl.String).alias("_kind")
    )
    for kind, (unit, mean, diff) in _PAIRED_FORMATS.items():
        part = kinds.filter(pl.col("_kind") == kind).drop("_kind")
        if part.height == 0:
            continue
        cols = [
            Col("run", "run_id", lambda r: _name(t, r)),
            Col("metric", "metric", figures.metric_label),
            Col("pairs", "paired_n", num),
            *([Col("base: all", "base_n", num), Col("run: all", "run_n", num)] if counts else []),
            Col("base (pairs)", "paired_base_mean", mean),
            Col("run (pairs)", "paired_mean", mean),
            Col("run − base", "diff_mean", diff, "diff_lo", "diff_hi"),
            Col("Holm p", "p_holm", p_value),
        ]
        cols = [c for c in cols if c.value in part.columns]
        out.append(html_table(part, name, cols, caption=f"{what}: {unit}"))
    return out


def effects_table(t: Tables, runs: Sequence[str]) -> str:
    out = []
    for name in ("variant_effects", "strategy_duplicate"):
        if name not in t or t[name].height == 0:
            continue
        df = need(t, name, ["run_id", "metric", "paired_n", "diff_mean", "diff_lo", "diff_hi"])
        what = "Variant effects" if name == "variant_effects" else "Duplicate strategy comparison"
        if "holm_significant" in df.columns:
            sig = int(df.select(pl.col("holm_significant").sum()).item() or 0)
            raw = int(df.select(((pl.col("diff_lo") > 0) | (pl.col("diff_hi") < 0)).sum()).item() or 0)
            out.append(
                f"<p data-headline='{html.escape(name)}'><b>{sig} of {df.height}</b> paired differences are "
                f"distinguishable from zero after Holm's adjustment for the {df.height} metrics of a "
                f"comparison (adjusted p &lt; 0.05); {raw} of the unadjusted 95% intervals exclude zero. "
                "The tables give each run − base over the deals (or games) both runs played ('pairs'), "
                "beside each run's own count; both means are over the pairs (95% intervals).</p>"
            )
        out += paired_tables(t, df, name, f"{what} (run − base)")
    if not out:
        raise NoData("there is no run with the same seed and table to compare with")
    return "\n".join(out)


def p_value(x: Any) -> str:
    """A p-value: three decimals, ``<0.001`` below."""
    if not isinstance(x, int | float) or x != x:
        return "—"
    return "<0.001" if x < 0.001 else f"{x:.3f}"


def success_comparison_table(t: Tables, runs: Sequence[str]) -> str:
    df = need(t, "success_comparison", ["run_id", "metric", "base_rate", "rate", "diff_mean", "note"])
    cols = [
        Col("run", "run_id", lambda r: _name(t, r)),
        Col("metric", "metric"),
        Col("base: contracts", "base_n", num),
        Col("base made", "base_rate", pct, "base_lo", "base_hi"),
        Col("run: contracts", "n", num),
        Col("run made", "rate", pct, "lo", "hi"),
        Col("run − base", "diff_mean", lambda x: signed(100 * x, 1) + " pp", "diff_lo", "diff_hi"),
        Col("Holm p", "p_holm", p_value),
    ]
    cols = [c for c in cols if c.value in df.columns]
    note = df["note"][0]
    caption = (
        "Success rates compared, NOT paired: each run's contracts made over the contracts it played. "
        f"{note[0].upper()}{note[1:]}."
    )
    return html_table(df, "success_comparison", cols, caption=caption)


def table_comparison_table(t: Tables, runs: Sequence[str]) -> str:
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


def tournament_entries_table(t: Tables, runs: Sequence[str]) -> str:
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
    df = df.with_columns(_one_sided("score", "rating_low", "rating_high").alias("_rating"))
    cols = [
        Col("rank", "rank"),
        Col("entry", "entry"),
        Col("strategy", "strategy"),
        Col("games", "games", num),
        Col("score", "score", pct),
        Col("points per deal vs the field", "ppd_diff", lambda x: signed(x, 1)),
        Col("rating", "rating", lambda x: signed(x, 0), "rating_low", "rating_high", shown="_rating"),
    ]
    return html_table(df, "tournament_entries", cols, caption="Tournament entries (duplicate games)")


def _one_sided(score: str, low: str, high: str) -> pl.Expr:
    """A perfect score's rating (every game won or lost) as the one-sided bound it is (``> +139``,
    ``< -139``): its point estimate is only the prior's; null (shown as usual) for any other score."""

    def bound(col: str) -> pl.Expr:
        return pl.col(col).map_elements(lambda v: signed(v, 0), return_dtype=pl.String)

    return (
        pl.when(pl.col(score) >= 1.0)
        .then(pl.format("> {} (one-sided: all won)", bound(low)))
        .when(pl.col(score) <= 0.0)
        .then(pl.format("< {} (one-sided: all lost)", bound(high)))
        .otherwise(None)
    )


def tournament_matches_table(t: Tables, runs: Sequence[str]) -> str:
    cols_needed = ["entry_a", "entry_b", "pairs", "score_a", "elo", "elo_low", "elo_high", "los", "decision"]
    df = need(t, "tournament_matches", cols_needed)
    df = df.with_columns(_one_sided("score_a", "elo_low", "elo_high").alias("_elo"))
    cols = [
        Col("entry A", "entry_a"),
        Col("entry B", "entry_b"),
        Col("game pairs", "pairs", num),
        Col("score of A", "score_a", pct),
        Col("Elo of A", "elo", lambda x: signed(x, 0), "elo_low", "elo_high", shown="_elo"),
        Col("points per deal A − B", "ppd_diff", lambda x: signed(x, 1)),
        Col("LOS", "los", pct),
        Col("SPRT", "decision"),
    ]
    cols = [c for c in cols if c.value in df.columns]
    return html_table(df, "tournament_matches", cols, caption="Tournament matches")


# ----------------------------------------------------------------------------------------- methods


def strategies_of(m: Manifest | None) -> str:
    labels = m.seat_labels() if m is not None else []
    return ", ".join(labels) if labels else "not recorded"


def dir_name(run: str | Path) -> str:
    """A run directory's last path component (of a local path or a URI)."""
    return str(run).rstrip("/").rsplit("/", 1)[-1]


def methods(
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
            ("strategies (seat order)", strategies_of(m)),
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
                f"<caption>Rule settings of {html.escape(dir_name(d))} ({html.escape(str(variant or '?'))})"
                "</caption><thead><tr><th>switch</th><th>value</th></tr></thead>"
                f"<tbody>{cells}</tbody></table></details>"
            )
    out.append(f"<p>Report written by fivehundred {html.escape(package_version())} (Matplotlib, Polars).</p>")
    return "\n".join(out)
