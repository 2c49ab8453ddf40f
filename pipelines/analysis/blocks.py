"""Shared table builders: the rate block (Wilson) and the points block (bootstrap) per group."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pipelines.analysis.intervals import bootstrap_table, wilson

RATE_COLUMNS = ("n", "made", "success_rate", "success_lo", "success_hi")
POINTS_COLUMNS = ("points_mean", "points_lo", "points_hi", "points_sd")


def rate_points(
    d: pl.DataFrame, keys: Sequence[str], table: str, made: str = "made", points: str = "dpoints"
) -> pl.DataFrame:
    """Per group of ``keys``: the rate block of the boolean column ``made`` and the points block of
    ``points``, sorted by the keys."""
    keys = list(keys)
    g = d.group_by(keys).agg(
        pl.len().cast(pl.Int64).alias("n"), pl.col(made).sum().cast(pl.Int64).alias("made")
    )
    g = g.with_columns(wilson(pl.col("made"), pl.col("n"), "success"))
    pts = bootstrap_table(d, keys, points, "points", table)
    return g.join(pts, on=keys, how="left", nulls_equal=True).sort(keys, nulls_last=True)


def empty_rate_points(keys: pl.DataFrame) -> pl.DataFrame:
    """Zero-count rate and points blocks for the given key rows (for rows nothing fell into)."""
    return keys.with_columns(
        pl.lit(0, dtype=pl.Int64).alias("n"),
        pl.lit(0, dtype=pl.Int64).alias("made"),
        *[pl.lit(None, dtype=pl.Float64).alias(c) for c in (*RATE_COLUMNS[2:], *POINTS_COLUMNS)],
    )
