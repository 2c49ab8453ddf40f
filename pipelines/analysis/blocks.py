"""Shared table builders: the rate block (Wilson) and the points block (bootstrap) per group."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import polars as pl

from fivehundred.pipelines.analysis.intervals import bootstrap_table, wilson

if TYPE_CHECKING:
    from fivehundred.pipelines.analysis.frame import Frame

RATE_COLUMNS = ("n", "made", "success_rate", "success_lo", "success_hi")
POINTS_COLUMNS = ("points_mean", "points_lo", "points_hi", "points_sd")


def rate_points(
    d: pl.DataFrame,
    keys: Sequence[str],
    table: str,
    made: str = "made",
    points: str = "dpoints",
    weight: str | None = None,
) -> pl.DataFrame:
    """Per group of ``keys``: the rate block of the boolean column ``made`` and the points block of
    ``points``, sorted by the keys.  ``weight`` names a count column when ``d`` is a histogram."""
    keys = list(keys)
    hist = histogram(d, keys, made, points, weight)
    g = hist.group_by(keys).agg(
        pl.col("_w").sum().cast(pl.Int64).alias("n"),
        pl.col("_w").filter(pl.col(made)).sum().cast(pl.Int64).alias("made"),
    )
    g = g.with_columns(wilson(pl.col("made"), pl.col("n"), "success"))
    pts = bootstrap_table(hist, keys, points, "points", table, weight="_w")
    return g.join(pts, on=keys, how="left", nulls_equal=True).sort(keys, nulls_last=True)


def histogram(
    d: pl.DataFrame,
    keys: Sequence[str],
    made: str = "made",
    points: str = "dpoints",
    weight: str | None = None,
) -> pl.DataFrame:
    """Counts ``_w`` per (keys, made, points): everything the rate and points blocks need."""
    count = pl.col(weight).sum() if weight else pl.len()
    return d.group_by([*keys, made, points]).agg(count.cast(pl.Int64).alias("_w"))


def run_blocks(frames: Sequence[Frame], stat: str, keys: Sequence[str], table: str) -> Iterator[pl.DataFrame]:
    """Per run: the rate and points blocks per group of ``keys`` of its merged histogram ``stat``
    (counts ``_w``; the bootstrap seeded from ``<table>/<run_id>``), tagged with ``run_id``, ``variant``."""
    for f in frames:
        t = rate_points(f.stats[stat], keys, f"{table}/{f.run.run_id}", weight="_w")
        yield t.with_columns(*f.run_columns())
