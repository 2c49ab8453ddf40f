"""Score trajectories: how the eventual winner's and runner-up's scores move deal by deal.

Each finished game has a *winner side*: the ``winner`` team, or, for a game with no winner (the deal
limit), the team ahead at the end (ties: the lowest team number).  The *runner-up* is the best of the
other teams after each deal (the loser in a two-team game; the highest of the two others in the
three-player game).  Every deal of a finished game contributes one row per ``deal`` (1-based: the
scores after that deal), grouped by how the game ended and pooled (``all``).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from fivehundred.pipelines.analysis.frame import Frame
from fivehundred.pipelines.analysis.intervals import bootstrap_table, wilson
from fivehundred.sim.game import END_REASONS

#: A game is a comeback when its eventual winner trailed by at least this many points after some deal.
COMEBACK_POINTS = 100
QUANTILES = (("q10", 0.10), ("q25", 0.25), ("median", 0.50), ("q75", 0.75), ("q90", 0.90))
TRAJECTORY_COLUMNS = (
    "run_id",
    "variant",
    "end_reason",
    "deal",
    "games",
    *[f"winner_{s}" for s in ("mean", "lo", "hi")],
    *[f"winner_{q}" for q, _ in QUANTILES],
    *[f"runner_up_{s}" for s in ("mean", "lo", "hi")],
    *[f"runner_up_{q}" for q, _ in QUANTILES],
    "lead_mean",
    "lead_lo",
    "lead_hi",
    "behind",
    "behind_rate",
    "behind_lo",
    "behind_hi",
)


def _reasons(present: Sequence[str]) -> list[str]:
    return ["all", *END_REASONS, *sorted(set(present) - set(END_REASONS) - {"all"})]


def side_scores(f: Frame) -> pl.LazyFrame:
    """Per deal of every finished game: ``end_reason``, ``deal``, the winner side's score (``w``), the
    runner-up's (``r``), and ``lead`` = ``w - r`` (a lazy query)."""
    lf = f.df.lazy()
    after = [pl.col(f"after_t{t}") for t in range(f.teams)]
    final = lf.filter(pl.col("game_over")).select(
        "game_id",
        pl.col("end_reason").fill_null("unknown"),
        pl.coalesce(
            pl.col("winner").cast(pl.Int64), pl.concat_list(after).list.arg_max().cast(pl.Int64)
        ).alias("side"),
    )
    side = pl.col("side")
    w = pl.coalesce([pl.when(side == t).then(pl.col(f"after_t{t}")) for t in range(f.teams)])
    r = pl.max_horizontal([pl.when(side != t).then(pl.col(f"after_t{t}")) for t in range(f.teams)])
    return (
        lf.select("game_id", "hand_no", *after)
        .join(final, on="game_id", how="inner")
        .select(
            "game_id",
            "end_reason",
            (pl.col("hand_no") + 1).cast(pl.Int16).alias("deal"),
            w.cast(pl.Int64).alias("w"),
            r.cast(pl.Int64).alias("r"),
        )
        .with_columns((pl.col("w") - pl.col("r")).alias("lead"))
    )


def score_trajectories(frames: Sequence[Frame]) -> pl.DataFrame:
    """Per run × end reason (and ``all``) × deal: the winner's and runner-up's score after the deal
    (mean with bootstrap interval, quantiles), the lead, and how often the winner was behind."""
    out = []
    for f in frames:
        s = side_scores(f).collect()
        both = pl.concat([s.with_columns(pl.lit("all").alias("end_reason")), s])
        keys = ["end_reason", "deal"]
        agg = (
            both.lazy()
            .group_by(keys)
            .agg(
                pl.len().cast(pl.Int64).alias("games"),
                *[
                    pl.col(c).quantile(q, interpolation="nearest").cast(pl.Float64).alias(f"{name}_{qn}")
                    for c, name in (("w", "winner"), ("r", "runner_up"))
                    for qn, q in QUANTILES
                ],
                (pl.col("lead") < 0).sum().cast(pl.Int64).alias("behind"),
            )
            .with_columns(*wilson(pl.col("behind"), pl.col("games"), "behind"))
            .collect()
        )
        tag = f"score_trajectories/{f.run.run_id}"
        for col, prefix in (("w", "winner"), ("r", "runner_up"), ("lead", "lead")):
            agg = agg.join(bootstrap_table(both, keys, col, prefix, f"{tag}/{prefix}"), on=keys, how="left")
        order = {r: i for i, r in enumerate(_reasons(agg["end_reason"].unique().to_list()))}
        out.append(
            agg.with_columns(
                *f.run_columns(),
                pl.col("end_reason").replace_strict(order, return_dtype=pl.Int16).alias("_o"),
            )
            .sort("_o", "deal")
            .select(TRAJECTORY_COLUMNS)
        )
    if not out:
        return pl.DataFrame()
    return pl.concat(out)


def comebacks(f: Frame) -> pl.DataFrame:
    """Per end reason: games whose eventual winner (or final leader) trailed by at least
    :data:`COMEBACK_POINTS` after some deal (``comebacks``)."""
    return (
        side_scores(f)
        .group_by("game_id", "end_reason")
        .agg((pl.col("lead").min() <= -COMEBACK_POINTS).alias("_c"))
        .group_by("end_reason")
        .agg(pl.col("_c").sum().cast(pl.Int64).alias("comebacks"))
        .collect()
    )
