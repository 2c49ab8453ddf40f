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
from typing import Any

import polars as pl

from fivehundred.pipelines.analysis.blocks import POINTS_COLUMNS, RATE_COLUMNS
from fivehundred.pipelines.analysis.frame import Frame
from fivehundred.pipelines.analysis.intervals import cluster_mean, t_interval, wilson_interval


def _team_points(f: Frame, team: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The team's points and tricks on the deal, for a per-row team index."""
    pts = pl.coalesce([pl.when(team == t).then(pl.col(f"points_t{t}")) for t in range(f.teams)])
    tricks = pl.coalesce([pl.when(team == t).then(pl.col(f"tricks_t{t}")) for t in range(f.teams)])
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


def _rows(f: Frame, key: pl.Expr, team: int, declared: pl.Expr) -> pl.LazyFrame:
    """One row per deal for ``team`` (seat or team line-up ``key``): the team's points, whether the
    row declared and made, the team's tricks when it defended, and, on a game's last deal, whether it won."""
    pts, tricks = _team_points(f, pl.lit(team))
    defended = pl.col("contract").is_not_null() & (pl.col("dteam") != team)
    return f.df.lazy().select(
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


def _per_game(rows: list[pl.LazyFrame]) -> pl.DataFrame:
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
    return by_game.join(teams, on=["key", "game_id"], how="left").collect().sort("key", "game_id")


def _blocks(g: pl.DataFrame, n_teams: int) -> list[dict[str, Any]]:
    """The points, declarer, defence and win blocks per key, from the per-game sums."""
    out = []
    for (key,), part in g.partition_by("key", maintain_order=True, as_dict=True).items():
        y, m = part["y"].to_list(), part["m"].to_list()
        mean, lo, hi, _, clusters = cluster_mean(y, m)
        seat_deals = sum(m)
        sq, total = sum(part["y2"].to_list()), sum(y)
        # Exact integer numerator: n·Σx² − (Σx)² = n(n−1)·sd².
        spread = seat_deals * sq - total * total
        sd = math.sqrt(spread / (seat_deals * (seat_deals - 1))) if seat_deals > 1 else math.nan
        dmean, dlo, dhi, _, _ = cluster_mean(part["y_def"].fill_null(0).to_list(), part["m_def"].to_list())
        n, made = int(part["n"].sum()), int(part["made"].sum())
        slo, shi = wilson_interval(made, n)
        fin = part.filter(pl.col("k") > 0)
        games = fin.height
        credits = [w / k for w, k in zip(fin["w"].to_list(), fin["k"].to_list(), strict=True)]
        wins = math.fsum(credits)
        forced = games > 0 and bool(((fin["teams_present"] == n_teams) & fin["even"].fill_null(False)).all())
        if games == 0:
            wlo = whi = math.nan
        elif forced:
            wlo = whi = math.nan
        elif bool((fin["teams_present"] == 1).all()):
            wlo, whi = wilson_interval(round(wins), games)
        else:
            wmean = wins / games
            wsd = (
                math.sqrt(math.fsum((c - wmean) ** 2 for c in credits) / (games - 1))
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
    lineups = f.df.select(pl.col("strategies").unique()).to_series().to_list()
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


def strategies_table(frames: Sequence[Frame]) -> pl.DataFrame:
    """Per run and strategy id: points per seat-deal, success as declarer, defensive tricks, wins."""
    out = []
    for f in frames:
        rows = [
            _rows(f, pl.col("strategies").list.get(s), s % f.teams, pl.col("declarer") == s)
            for s in range(f.players)
        ]
        t = _frame(_blocks(_per_game(rows), f.teams))
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


def lineup(f: Frame, team: int) -> pl.Expr:
    """The strategies of a team's seats, in seat order, joined with ``+``."""
    seats = [s for s in range(f.players) if s % f.teams == team]
    return pl.concat_str([pl.col("strategies").list.get(s) for s in seats], separator="+")


def strategy_pairings(frames: Sequence[Frame]) -> pl.DataFrame:
    """Per run and team line-up against its opponents: the same blocks per team-deal."""
    out = []
    for f in frames:
        rows = []
        for t in range(f.teams):
            others = pl.concat_str([lineup(f, o) for o in range(f.teams) if o != t], separator=" / ")
            key = pl.concat_str([lineup(f, t), others], separator="\x1f")
            rows.append(_rows(f, key, t, pl.col("dteam") == t))
        t = _frame(_blocks(_per_game(rows), f.teams))
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
