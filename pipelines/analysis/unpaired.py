"""Unpaired comparison of runs that cannot be paired deal by deal (``table_comparison``).

Runs on different tables (another number of players or teams, or another deck) deal different cards
from the same seed, so pairing them hand by hand removes nothing.  Each run is summarised on its own:
the contract mix (share of contracts by level and by trump kind: suit, NT, misère; contract codes are
shared by every table), success rates, thrown-in deals, how games end and comebacks (Wilson
intervals; differences with Newcombe's interval), and means (deals per game, the declarer's points;
bootstrap intervals, the difference from resampling each run on its own).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from fivehundred.pipelines.analysis.frame import Frame
from fivehundred.pipelines.analysis.intervals import (
    bootstrap_diff,
    bootstrap_mean,
    newcombe_diff,
    seed_of,
    wilson_interval,
)
from fivehundred.sim.game import END_REASONS
from fivehundred.sim.notation import LEVELS as TRICK_LEVELS
from fivehundred.sim.notation import NT_TEXT

LEVELS = tuple(str(n) for n in TRICK_LEVELS)
KINDS = ("suit", "NT", "misere")
COLUMNS = (
    "base_run", "run_id", "base_variant", "variant", "base_table", "table", "method", "note",
    "metric", "stat", "unit", "base_n", "base_k", "base_mean", "base_lo", "base_hi",
    "n", "k", "mean", "lo", "hi", "diff_mean", "diff_lo", "diff_hi",
)  # fmt: skip
SCHEMA: dict[str, Any] = {c: pl.Float64 for c in COLUMNS}
SCHEMA.update({c: pl.String for c in (*COLUMNS[:12], "unit")})
SCHEMA.update({c: pl.Int64 for c in ("base_n", "base_k", "n", "k")})


@dataclass
class Metric:
    """One summary of one run: a rate (``k`` of ``n``) or a mean (a value histogram)."""

    name: str
    unit: str
    k: int | None = None
    n: int = 0
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    counts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def stat(self) -> str:
        return "rate" if self.k is not None else "mean"

    def estimate(self, seed: int) -> tuple[float, float, float]:
        """The rate with its Wilson interval, or the mean with its bootstrap interval."""
        if self.k is not None:
            lo, hi = wilson_interval(self.k, self.n)
            return (self.k / self.n if self.n else math.nan), lo, hi
        mean, lo, hi, _ = bootstrap_mean(self.values, self.counts, seed)
        return mean, lo, hi


def table_shape(f: Frame) -> str:
    """``"4 players, 2 teams, 43 cards"``: what a run's table is (cards counted in its first deal)."""
    return f"{f.players} players, {f.teams} teams, {len(deck_of(f))} cards"


def deck_of(f: Frame) -> tuple[str, ...]:
    """Every card dealt in the run's first deal (hands and kitty): its deck, sorted."""
    row = f.run.scan.select("hands", "kitty").head(1).collect().row(0)
    hands, kitty = row
    return tuple(sorted([c for h in hands for c in h] + list(kitty)))


def _hist(df: pl.DataFrame, value: str, weight: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    count = pl.col(weight).sum() if weight else pl.len()
    h = df.filter(pl.col(value).is_not_null()).group_by(value).agg(count.alias("_c")).sort(value)
    return h[value].to_numpy(), h["_c"].to_numpy().astype(np.int64)


def summarise(f: Frame) -> list[Metric]:
    """Every metric of one run (see the module docstring)."""
    h = f.hist.with_columns(
        pl.when(pl.col("is_mis"))
        .then(pl.lit("misere"))
        .when(pl.col("trump") == NT_TEXT)
        .then(pl.lit(NT_TEXT))
        .otherwise(pl.lit("suit"))
        .alias("kind")
    )
    w = pl.col("_w")
    total = int(h.select(w.sum()).item() or 0)
    out = [Metric("thrown_in", "deal", f.count("thrown_in"), f.count("deals"))]
    groups: list[tuple[str, pl.Expr]] = [("all", pl.lit(True))]
    groups += [(lv, pl.col("level") == lv) for lv in LEVELS]
    groups += [(kd, pl.col("kind") == kd) for kd in KINDS]
    stats = h.select(
        *[w.filter(cond).sum().alias(f"n_{name}") for name, cond in groups],
        *[w.filter(cond & pl.col("made")).sum().alias(f"k_{name}") for name, cond in groups],
    ).row(0, named=True)
    for name, _ in groups[1:]:
        out.append(Metric(f"contracts_{name}", "contract", int(stats[f"n_{name}"] or 0), total))
    for name, _ in groups:
        n = int(stats[f"n_{name}"] or 0)
        out.append(Metric(f"success_{name}", f"{name} contract", int(stats[f"k_{name}"] or 0), n))
    out.append(Metric("declarer_points", "contract", None, total, *_hist(h, "dpoints", "_w")))
    games = f.count("finished")
    out.append(
        Metric("deals_per_game", "game", None, games, *_hist(f.stats["game_length"], "deals", "games"))
    )
    ends = dict(zip(f.stats["ends"]["end_reason"].to_list(), f.stats["ends"]["games"].to_list(), strict=True))
    for r in END_REASONS:
        out.append(Metric(f"end_{r}", "game", int(ends.get(r, 0)), games))
    out.append(Metric("comeback", "game", int(f.stats["ends"]["comebacks"].sum() or 0), games))
    return out


def compare_unpaired(base: Frame, other: Frame, reason: str) -> list[dict[str, Any]]:
    """Rows of ``table_comparison`` for ``other`` against ``base`` (``reason``: why not paired)."""
    rows = []
    bm = {m.name: m for m in summarise(base)}
    key = (base.run.run_id, other.run.run_id)
    shapes = table_shape(base), table_shape(other)
    for m in summarise(other):
        b = bm[m.name]
        seed = seed_of("table_comparison", *key, m.name)
        bmean, blo, bhi = b.estimate(seed_of("table_comparison", key[0], m.name))
        mean, lo, hi = m.estimate(seed_of("table_comparison", key[1], m.name))
        if m.k is not None and b.k is not None:
            d, dlo, dhi = newcombe_diff(b.k, b.n, m.k, m.n)
        else:
            d, dlo, dhi = bootstrap_diff((b.values, b.counts), (m.values, m.counts), seed)
        rows.append(
            {
                "base_run": base.run.run_id,
                "run_id": other.run.run_id,
                "base_variant": base.run.variant,
                "variant": other.run.variant,
                "base_table": shapes[0],
                "table": shapes[1],
                "method": "unpaired",
                "note": f"unpaired: {reason}, so the runs deal different cards and are compared as "
                "independent samples",
                "metric": m.name,
                "stat": m.stat,
                "unit": m.unit,
                "base_n": b.n,
                "base_k": b.k,
                "base_mean": bmean,
                "base_lo": blo,
                "base_hi": bhi,
                "n": m.n,
                "k": m.k,
                "mean": mean,
                "lo": lo,
                "hi": hi,
                "diff_mean": d,
                "diff_lo": dlo,
                "diff_hi": dhi,
            }
        )
    return rows


def table(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """``table_comparison`` from its rows (nan as null)."""
    df = pl.DataFrame(rows, schema=SCHEMA) if rows else pl.DataFrame(schema=SCHEMA)
    return df.select(COLUMNS).fill_nan(None)
