"""Score trajectories: how the eventual winner's and runner-up's scores move deal by deal.

Each finished game has a *winner side*: the ``winner`` team, or, for a game with no winner (the deal
limit), the team ahead at the end (ties: the lowest team number).  The *runner-up* is the best of the
other teams after each deal (the loser in a two-team game; the highest of the two others in the
three-player game).  Every deal of a finished game contributes one row per ``deal`` (1-based: the
scores after that deal), grouped by how the game ended and pooled (``all``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
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


#: The partial aggregates of this module (:mod:`~pipelines.analysis.batches`): keys, and how values merge.
AGGREGATES = {
    "ends": (("end_reason",), {"games": "sum", "comebacks": "sum"}),
    **{f"trajectory_{c}": (("end_reason", "deal", c), {"_c": "sum"}) for c in ("w", "r", "lead")},
}


def side_scores(d: pl.DataFrame | pl.LazyFrame, teams: int) -> pl.LazyFrame:
    """Per deal of every finished game of ``d``: ``end_reason``, ``deal``, the winner side's score
    (``w``), the runner-up's (``r``), and ``lead`` = ``w - r`` (a lazy query)."""
    lf = d.lazy()
    after = [pl.col(f"after_t{t}") for t in range(teams)]
    final = lf.filter(pl.col("game_over")).select(
        "game_id",
        pl.col("end_reason").fill_null("unknown"),
        pl.coalesce(
            pl.col("winner").cast(pl.Int64), pl.concat_list(after).list.arg_max().cast(pl.Int64)
        ).alias("side"),
    )
    side = pl.col("side")
    w = pl.coalesce([pl.when(side == t).then(pl.col(f"after_t{t}")) for t in range(teams)])
    r = pl.max_horizontal([pl.when(side != t).then(pl.col(f"after_t{t}")) for t in range(teams)])
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


def partials(d: pl.DataFrame, teams: int) -> dict[str, pl.DataFrame]:
    """This module's partial aggregates of a batch of whole games: games and comebacks per end reason,
    and the histograms of the winner's, the runner-up's score and the lead per (end reason, deal)."""
    s = side_scores(d, teams).collect()
    ended = d.lazy().filter(pl.col("game_over")).select(pl.col("end_reason").fill_null("unknown"))
    counts = ended.group_by("end_reason").agg(pl.len().cast(pl.Int64).alias("games"))
    back = (
        s.lazy()
        .group_by("game_id", "end_reason")
        .agg((pl.col("lead").min() <= -COMEBACK_POINTS).alias("_c"))
        .group_by("end_reason")
        .agg(pl.col("_c").sum().cast(pl.Int64).alias("comebacks"))
    )
    ends = counts.join(back, on="end_reason", how="left").with_columns(pl.col("comebacks").fill_null(0))
    out = {"ends": ends.collect()}
    for c in ("w", "r", "lead"):
        out[f"trajectory_{c}"] = s.group_by("end_reason", "deal", c).agg(pl.len().cast(pl.Int64).alias("_c"))
    return out


def quantile_nearest(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """Polars' ``quantile(q, interpolation="nearest")`` of a sample given as sorted distinct ``values``
    with ``counts``: the value at sorted position ``floor((n - 1)·q + 0.5)``."""
    n = int(counts.sum())
    at = math.floor((n - 1) * q + 0.5)
    return float(values[int(np.searchsorted(np.cumsum(counts), at, side="right"))])


def score_trajectories(frames: Sequence[Frame]) -> pl.DataFrame:
    """Per run × end reason (and ``all``) × deal: the winner's and runner-up's score after the deal
    (mean with bootstrap interval, quantiles), the lead, and how often the winner was behind."""
    out = []
    keys = ["end_reason", "deal"]
    for f in frames:
        hists = {}
        for c in ("w", "r", "lead"):
            h = f.stats[f"trajectory_{c}"]
            pooled = (
                h.group_by("deal", c).agg(pl.col("_c").sum()).with_columns(pl.lit("all").alias("end_reason"))
            )
            hists[c] = pl.concat([pooled.select(h.columns), h]).sort(*keys, c)
        lead = hists["lead"]
        agg = lead.group_by(keys).agg(
            pl.col("_c").sum().cast(pl.Int64).alias("games"),
            pl.col("_c").filter(pl.col("lead") < 0).sum().cast(pl.Int64).alias("behind"),
        )
        quant: dict[str, list[Any]] = {k: [] for k in keys}
        for c, name in (("w", "winner"), ("r", "runner_up")):
            cols: dict[str, list[float]] = {f"{name}_{qn}": [] for qn, _ in QUANTILES}
            groups = hists[c].partition_by(keys, maintain_order=True, as_dict=True)
            for key, g in groups.items():
                if name == "winner":
                    for k, v in zip(keys, key, strict=True):
                        quant[k].append(v)
                vals, cnts = g[c].to_numpy(), g["_c"].to_numpy()
                for qn, q in QUANTILES:
                    cols[f"{name}_{qn}"].append(quantile_nearest(vals, cnts, q))
            quant.update(cols)
        qt = pl.DataFrame(quant, schema_overrides={"end_reason": pl.String, "deal": pl.Int16})
        agg = agg.join(qt, on=keys, how="left").with_columns(
            *wilson(pl.col("behind"), pl.col("games"), "behind")
        )
        tag = f"score_trajectories/{f.run.run_id}"
        for col, prefix in (("w", "winner"), ("r", "runner_up"), ("lead", "lead")):
            boot = bootstrap_table(hists[col], keys, col, prefix, f"{tag}/{prefix}", weight="_c")
            agg = agg.join(boot, on=keys, how="left")
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
