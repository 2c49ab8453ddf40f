"""Strategy comparison within runs: per strategy id and per team line-up."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from fivehundred.pipelines.analysis.blocks import POINTS_COLUMNS, RATE_COLUMNS
from fivehundred.pipelines.analysis.frame import Frame
from fivehundred.pipelines.analysis.intervals import bootstrap_table, wilson


def _team_points(f: Frame, team: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The team's points and tricks on the deal, for a per-row team index."""
    pts = pl.coalesce([pl.when(team == t).then(pl.col(f"points_t{t}")) for t in range(f.teams)])
    tricks = pl.coalesce([pl.when(team == t).then(pl.col(f"tricks_t{t}")) for t in range(f.teams)])
    return pts, tricks


HIST_COLUMNS = ("points", "declared", "made", "def_tricks", "final", "won")
#: The statistics columns shared by the per-strategy and per-line-up tables, after their keys.
_STAT_COLUMNS = (
    *POINTS_COLUMNS,
    *RATE_COLUMNS,
    "def_tricks_mean", "def_tricks_lo", "def_tricks_hi",
    "games", "wins", "win_rate", "win_lo", "win_hi",
)  # fmt: skip


def _hist(rows: pl.LazyFrame | pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Counts ``_w`` per (keys, points, declared, made, def_tricks, final, won)."""
    return rows.lazy().group_by([*keys, *HIST_COLUMNS]).agg(pl.len().cast(pl.Int64).alias("_w")).collect()


def _blocks(hist: pl.DataFrame, keys: list[str], table: str) -> pl.DataFrame:
    """Points, declarer success, defensive tricks and game wins per group of ``keys``, from counts."""
    w = pl.col("_w")
    g = hist.group_by(keys).agg(
        w.sum().cast(pl.Int64).alias("deals"),
        w.filter(pl.col("declared")).sum().cast(pl.Int64).alias("n"),
        w.filter(pl.col("declared") & pl.col("made")).sum().cast(pl.Int64).alias("made"),
        w.filter(pl.col("final")).sum().cast(pl.Int64).alias("games"),
        w.filter(pl.col("final") & pl.col("won")).sum().cast(pl.Int64).alias("wins"),
    )
    g = g.with_columns(
        *wilson(pl.col("made"), pl.col("n"), "success"), *wilson(pl.col("wins"), pl.col("games"), "win")
    )
    pts = bootstrap_table(hist, keys, "points", "points", table, weight="_w")
    dt = bootstrap_table(hist, keys, "def_tricks", "def_tricks", table + "/def", weight="_w").drop(
        "def_tricks_sd"
    )
    return (
        g.join(pts, on=keys, how="left", nulls_equal=True)
        .join(dt, on=keys, how="left", nulls_equal=True)
        .sort(keys)
    )


def _seat_rows(f: Frame) -> pl.DataFrame:
    parts = []
    for s in range(f.players):
        team = pl.lit(s % f.teams)
        pts, tricks = _team_points(f, team)
        defended = pl.col("contract").is_not_null() & (pl.col("dteam") != s % f.teams)
        rows = f.df.lazy().select(
            pl.col("strategies").list.get(s).alias("strategy"),
            pts.alias("points"),
            (pl.col("declarer") == s).fill_null(False).alias("declared"),
            pl.col("made").fill_null(False),
            pl.when(defended).then(tricks).alias("def_tricks"),
            pl.col("game_over").alias("final"),
            (pl.col("winner") == s % f.teams).fill_null(False).alias("won"),
        )
        parts.append(_hist(rows, ["strategy"]))
    return pl.concat(parts)


def strategies_table(frames: Sequence[Frame]) -> pl.DataFrame:
    """Per run and strategy id: points per seat-deal, success as declarer, defensive tricks, wins."""
    out = []
    for f in frames:
        t = _blocks(_seat_rows(f), ["strategy"], f"strategies/{f.run.run_id}")
        out.append(
            t.with_columns(*f.run_columns())
            .rename({"deals": "seat_deals"})
            .select(
                "run_id",
                "variant",
                "strategy",
                "seat_deals",
                *_STAT_COLUMNS,
            )
        )
    return pl.concat(out)


def lineup(f: Frame, team: int) -> pl.Expr:
    """The strategies of a team's seats, in seat order, joined with ``+``."""
    seats = [s for s in range(f.players) if s % f.teams == team]
    return pl.concat_str([pl.col("strategies").list.get(s) for s in seats], separator="+")


def strategy_pairings(frames: Sequence[Frame]) -> pl.DataFrame:
    """Per run and team line-up against its opponents: the same blocks per team-deal."""
    out = []
    for f in frames:
        parts = []
        for t in range(f.teams):
            others = [lineup(f, o) for o in range(f.teams) if o != t]
            pts, tricks = _team_points(f, pl.lit(t))
            defended = pl.col("contract").is_not_null() & (pl.col("dteam") != t)
            parts.append(
                f.df.lazy().select(
                    lineup(f, t).alias("team_strategies"),
                    pl.concat_str(others, separator=" / ").alias("opponents"),
                    pts.alias("points"),
                    (pl.col("dteam") == t).fill_null(False).alias("declared"),
                    pl.col("made").fill_null(False),
                    pl.when(defended).then(tricks).alias("def_tricks"),
                    pl.col("game_over").alias("final"),
                    (pl.col("winner") == t).fill_null(False).alias("won"),
                )
            )
        keys = ["team_strategies", "opponents"]
        t = _blocks(pl.concat([_hist(p, keys) for p in parts]), keys, f"strategy_pairings/{f.run.run_id}")
        out.append(
            t.with_columns(*f.run_columns())
            .rename({"deals": "team_deals"})
            .select(
                "run_id",
                "variant",
                "team_strategies",
                "opponents",
                "team_deals",
                *_STAT_COLUMNS,
            )
        )
    return pl.concat(out)
