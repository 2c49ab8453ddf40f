"""Strategy comparison within runs: per strategy id and per team line-up.

The two partners of a team share one score, and the deals of one game share its score path, so the
observations of these tables come in correlated clusters.  Every mean here (team points, defensive
tricks) is a ratio over **games** with a cluster-robust interval (:func:`intervals.cluster_mean`):
games are the independent units of a run (each has its own seed), and a game's cluster holds both
partners' seat-deals and all its deals.  Win rates count **games**, not seat-games: a game in which a
strategy sits on several teams credits it the share of its seats on the winning team.  A rate forced by
the seating (a strategy on every team alike, e.g. self-play) gets no interval, and strategies that
always sit as partners are flagged: their team figures are one number that cannot be split between
them (``strategy_duplicate`` compares strategies on the same deals instead).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import polars as pl

from fivehundred.pipelines.analysis.blocks import POINTS_COLUMNS, RATE_COLUMNS
from fivehundred.pipelines.analysis.frame import Frame
from fivehundred.pipelines.analysis.intervals import cluster_sums, t_interval, wilson_interval


def _team_points(teams: int, team: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The team's points and tricks on the deal, for a per-row team index."""
    pts = pl.coalesce([pl.when(team == t).then(pl.col(f"points_t{t}")) for t in range(teams)])
    tricks = pl.coalesce([pl.when(team == t).then(pl.col(f"tricks_t{t}")) for t in range(teams)])
    return pts, tricks


#: The statistics columns shared by the per-strategy and per-line-up tables, after their keys.
_STAT_COLUMNS = (
    *POINTS_COLUMNS,
    *RATE_COLUMNS,
    "def_tricks_mean", "def_tricks_lo", "def_tricks_hi",
    "clusters", "games", "wins", "win_rate", "win_lo", "win_hi",
)  # fmt: skip

FORCED_NOTE = "win rate forced by the seating ({who} sits on every team alike in every game): no interval"
PARTNER_NOTE = (
    "always the partner of {who}: points, defensive tricks and wins are the team's and cannot be "
    "split between them; compare them on the same deals with a duplicate run (strategy_duplicate)"
)


def _rows(d: pl.DataFrame, teams: int, key: pl.Expr, team: int, declared: pl.Expr) -> pl.LazyFrame:
    """One row per deal for ``team`` (seat or team line-up ``key``): the team's points, whether the
    row declared and made, the team's tricks when it defended, and, on a game's last deal, whether it won."""
    pts, tricks = _team_points(teams, pl.lit(team))
    defended = pl.col("contract").is_not_null() & (pl.col("dteam") != team)
    return d.lazy().select(
        key.alias("key"),
        pl.col("game_id"),
        pl.lit(team, dtype=pl.Int16).alias("team"),
        pts.cast(pl.Int64).alias("points"),
        declared.fill_null(False).alias("declared"),
        pl.col("made").fill_null(False),
        pl.when(defended).then(tricks).cast(pl.Int64).alias("def_tricks"),
        pl.col("game_over").alias("final"),
        (pl.col("winner") == team).fill_null(False).alias("won"),
    )


def _per_game(rows: list[pl.LazyFrame]) -> pl.LazyFrame:
    """Per (key, game): the sums every statistic needs (integers, so the order of rows is immaterial)."""
    lf = pl.concat(rows)
    dt = pl.col("def_tricks")
    by_game = lf.group_by("key", "game_id").agg(
        pl.len().cast(pl.Int64).alias("m"),
        pl.col("points").sum().cast(pl.Int64).alias("y"),
        (pl.col("points") * pl.col("points")).sum().cast(pl.Int64).alias("y2"),
        dt.is_not_null().sum().cast(pl.Int64).alias("m_def"),
        dt.sum().cast(pl.Int64).alias("y_def"),
        pl.col("declared").sum().cast(pl.Int64).alias("n"),
        (pl.col("declared") & pl.col("made")).sum().cast(pl.Int64).alias("made"),
        pl.col("final").sum().cast(pl.Int64).alias("k"),
        (pl.col("final") & pl.col("won")).sum().cast(pl.Int64).alias("w"),
    )
    # The seating of each game's last deal: how many of the key's rows sit on each team.
    teams = (
        lf.filter(pl.col("final"))
        .group_by("key", "game_id", "team")
        .agg(pl.len().alias("c"))
        .group_by("key", "game_id")
        .agg(
            pl.len().cast(pl.Int64).alias("teams_present"),
            (pl.col("c").min() == pl.col("c").max()).alias("even"),
        )
    )
    return by_game.join(teams, on=["key", "game_id"], how="left")


#: Per key: sums over its games (``G`` games; ``m``, ``y`` its seat-deals and points; ``*_def`` the
#: same on the deals it defended; ``yy``, ``ym``, ``mm`` the sums of the per-game products).
SUM_COLUMNS = (
    "G", "m", "y", "yy", "ym", "mm", "y2", "m_def", "y_def", "dyy", "dym", "dmm",
    "n", "made", "games", "forced_games", "single_games",
)  # fmt: skip
#: The partial aggregates of this module (:mod:`~pipelines.analysis.batches`): keys, and how values merge.
AGGREGATES = {
    **{f"{t}_sums": (("key",), {c: "sum" for c in SUM_COLUMNS}) for t in ("strategy", "lineup")},
    **{f"{t}_credits": (("key", "w", "k"), {"c": "sum"}) for t in ("strategy", "lineup")},
    "lineups": (("strategies",), {"deals": "sum"}),
}


def _key_sums(per_game: pl.LazyFrame, n_teams: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per key: the sums over its games (:data:`SUM_COLUMNS`); per (key, w, k): finished games whose
    last deal had ``k`` of the key's rows, ``w`` of them on the winning team."""
    y, m = pl.col("y"), pl.col("m")
    yd, md = pl.col("y_def").fill_null(0), pl.col("m_def")
    fin = pl.col("k") > 0
    i64 = pl.Int64
    g = per_game.collect()
    sums = g.group_by("key").agg(
        pl.len().cast(i64).alias("G"),
        m.sum(),
        y.sum(),
        (y * y).sum().alias("yy"),
        (y * m).sum().alias("ym"),
        (m * m).sum().alias("mm"),
        pl.col("y2").sum(),
        md.sum(),
        yd.sum().alias("y_def"),
        (yd * yd).sum().alias("dyy"),
        (yd * md).sum().alias("dym"),
        (md * md).sum().alias("dmm"),
        pl.col("n").sum(),
        pl.col("made").sum(),
        fin.sum().cast(i64).alias("games"),
        (fin & (pl.col("teams_present") == n_teams) & pl.col("even").fill_null(False))
        .sum()
        .cast(i64)
        .alias("forced_games"),
        (fin & (pl.col("teams_present") == 1)).sum().cast(i64).alias("single_games"),
    )
    credits = g.filter(fin).group_by("key", "w", "k").agg(pl.len().cast(i64).alias("c"))
    return sums, credits


def partials(d: pl.DataFrame, players: int, teams: int) -> dict[str, pl.DataFrame]:
    """This module's partial aggregates of a batch of whole games: per strategy and per team line-up."""
    seat_rows = [
        _rows(d, teams, pl.col("strategies").list.get(s), s % teams, pl.col("declarer") == s)
        for s in range(players)
    ]
    team_rows = []
    for t in range(teams):
        others = pl.concat_str([lineup(players, teams, o) for o in range(teams) if o != t], separator=" / ")
        key = pl.concat_str([lineup(players, teams, t), others], separator="\x1f")
        team_rows.append(_rows(d, teams, key, t, pl.col("dteam") == t))
    out = {}
    for name, rows in (("strategy", seat_rows), ("lineup", team_rows)):
        out[f"{name}_sums"], out[f"{name}_credits"] = _key_sums(_per_game(rows), teams)
    out["lineups"] = d.group_by("strategies").agg(pl.len().cast(pl.Int64).alias("deals"))
    return out


def _fsum_of(terms: Sequence[tuple[float, int]]) -> float:
    """``math.fsum`` of each float repeated its count of times (the exact sum, rounded once)."""
    return float(sum((Fraction(v) * c for v, c in terms), Fraction(0)))


def _blocks(sums: pl.DataFrame, credits: pl.DataFrame) -> list[dict[str, Any]]:
    """The points, declarer, defence and win blocks per key, from the per-key sums over games."""
    out = []
    by_key = credits.partition_by("key", maintain_order=True, as_dict=True)
    for r in sums.iter_rows(named=True):
        key = r["key"]
        mean, lo, hi, _, clusters = cluster_sums(r["G"], r["y"], r["m"], r["yy"], r["ym"], r["mm"])
        seat_deals = r["m"]
        # Exact integer numerator: n·Σx² − (Σx)² = n(n−1)·sd².
        spread = seat_deals * r["y2"] - r["y"] * r["y"]
        sd = math.sqrt(spread / (seat_deals * (seat_deals - 1))) if seat_deals > 1 else math.nan
        dmean, dlo, dhi, _, _ = cluster_sums(r["G"], r["y_def"], r["m_def"], r["dyy"], r["dym"], r["dmm"])
        n, made = r["n"], r["made"]
        slo, shi = wilson_interval(made, n)
        games = r["games"]
        part = by_key.get((key,))
        wk = (
            []
            if part is None
            else list(zip(part["w"].to_list(), part["k"].to_list(), part["c"].to_list(), strict=True))
        )
        wins = _fsum_of([(w / k, c) for w, k, c in wk])
        forced = games > 0 and r["forced_games"] == games
        if games == 0:
            wlo = whi = math.nan
        elif forced:
            wlo = whi = math.nan
        elif r["single_games"] == games:
            wlo, whi = wilson_interval(round(wins), games)
        else:
            wmean = wins / games
            wsd = (
                math.sqrt(_fsum_of([((w / k - wmean) ** 2, c) for w, k, c in wk]) / (games - 1))
                if games > 1
                else math.nan
            )
            wlo, whi = t_interval(wmean, wsd, games)
        out.append(
            {
                "key": key,
                "deals": seat_deals,
                "points_mean": mean,
                "points_lo": lo,
                "points_hi": hi,
                "points_sd": sd,
                "n": n,
                "made": made,
                "success_rate": made / n if n else math.nan,
                "success_lo": slo,
                "success_hi": shi,
                "def_tricks_mean": dmean,
                "def_tricks_lo": dlo,
                "def_tricks_hi": dhi,
                "clusters": clusters,
                "games": games,
                "wins": wins,
                "win_rate": wins / games if games else math.nan,
                "win_lo": wlo,
                "win_hi": whi,
                "forced": forced,
            }
        )
    return out


_SCHEMA: dict[str, Any] = {c: pl.Float64 for c in _STAT_COLUMNS}
_SCHEMA.update({c: pl.Int64 for c in ("n", "made", "clusters", "games", "deals")})
_SCHEMA.update({"key": pl.String, "forced": pl.Boolean})


def _frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=_SCHEMA).fill_nan(None)


def partners(f: Frame) -> dict[str, list[str]]:
    """Per strategy id: the other strategies that sit on its team in every deal it plays (and it on
    theirs): their team figures are the same numbers.  Only strategies with such partners are listed."""
    lineups = f.stats["lineups"]["strategies"].to_list()
    signature: dict[str, set[tuple[tuple[str, ...], int]]] = {}
    for lu in lineups:
        for s, name in enumerate(lu):
            signature.setdefault(name, set()).add((tuple(lu), s % f.teams))
    out: dict[str, list[str]] = {}
    for a in sorted(signature):
        same = [b for b in sorted(signature) if b != a and signature[b] == signature[a]]
        if same:
            out[a] = same
    return out


def _table(f: Frame, name: str) -> pl.DataFrame:
    return _frame(_blocks(f.stats[f"{name}_sums"], f.stats[f"{name}_credits"]))


def strategies_table(frames: Sequence[Frame]) -> pl.DataFrame:
    """Per run and strategy id: points per seat-deal, success as declarer, defensive tricks, wins."""
    out = []
    for f in frames:
        t = _table(f, "strategy")
        mates = partners(f)
        notes = []
        for key, forced in t.select("key", "forced").iter_rows():
            parts = []
            if forced:
                parts.append(FORCED_NOTE.format(who=key))
            if key in mates:
                parts.append(PARTNER_NOTE.format(who=", ".join(mates[key])))
            notes.append("; ".join(parts) or None)
        out.append(
            t.with_columns(
                *f.run_columns(),
                pl.Series("inseparable_from", [", ".join(mates.get(k, [])) or None for k in t["key"]]),
                pl.Series("note", notes, dtype=pl.String),
            )
            .rename({"key": "strategy", "deals": "seat_deals"})
            .select("run_id", "variant", "strategy", "seat_deals", *_STAT_COLUMNS, "inseparable_from", "note")
        )
    return pl.concat(out)


def lineup(players: int, teams: int, team: int) -> pl.Expr:
    """The strategies of a team's seats, in seat order, joined with ``+``."""
    seats = [s for s in range(players) if s % teams == team]
    return pl.concat_str([pl.col("strategies").list.get(s) for s in seats], separator="+")


def strategy_pairings(frames: Sequence[Frame]) -> pl.DataFrame:
    """Per run and team line-up against its opponents: the same blocks per team-deal."""
    out = []
    for f in frames:
        t = _table(f, "lineup")
        split = t["key"].str.split_exact("\x1f", 1)
        out.append(
            t.with_columns(
                *f.run_columns(),
                split.struct.field("field_0").alias("team_strategies"),
                split.struct.field("field_1").alias("opponents"),
                pl.when(pl.col("forced"))
                .then(pl.lit("win rate forced by the seating (the same line-up on every team): no interval"))
                .otherwise(None)
                .alias("note"),
            )
            .rename({"deals": "team_deals"})
            .sort("team_strategies", "opponents")
            .select("run_id", "variant", "team_strategies", "opponents", "team_deals", *_STAT_COLUMNS, "note")
        )
    return pl.concat(out)
