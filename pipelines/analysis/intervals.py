"""95% intervals: Wilson score intervals for rates (Polars expressions), Newcombe's interval for a
difference of two independent rates, a seeded percentile bootstrap for means of large samples and
Student's t for small ones (fewer than :data:`SMALL_N` observations), a cluster-robust interval for
a mean over observations that come in correlated clusters (:func:`cluster_mean`), and independent
estimates of one quantity pooled by inverse variance (:func:`inverse_variance_pool`).

The bootstrap works on a value histogram: resampling ``n`` observations with replacement is a
multinomial draw over the distinct values, so its cost depends on the number of distinct values (a few
dozen point totals), not on ``n``.  Each group's generator is seeded from the table name and the
group's key, so results are deterministic and independent of the other groups.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from fivehundred.pipelines.analysis.distributions import NORMAL, t_quantile

Z95 = 1.959963984540054
BOOTSTRAP_RESAMPLES = 2000
#: Means of fewer observations get Student's t interval instead of the percentile bootstrap, which is
#: too narrow on small samples (it is about ``mean ± 1.96 sd / sqrt(n)`` with no allowance for the
#: estimated ``sd``); docs/statistics.md.
SMALL_N = 100


def z_value(confidence: float) -> float:
    """The two-sided normal quantile of ``confidence`` (0.95 → 1.95996...)."""
    return NORMAL.inv_cdf(0.5 + confidence / 2)


def t_value(confidence: float, n: int) -> float:
    """The two-sided Student-t quantile of ``confidence`` for a mean of ``n`` units (``n - 1`` df)."""
    return t_quantile(0.5 + confidence / 2, n - 1)


def wilson_bounds(mean: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a mean in [0, 1] over ``n`` units (a fractional ``mean`` allowed).

    For a variable in [0, 1] the variance is at most ``mean (1 - mean)``, so this is the interval to
    fall back on when the sample says nothing about the spread (one unit, or every unit alike: a
    one-sided match).  The bounds are 0 or 1 exactly when the mean is.
    """
    return _wilson(mean, n, z_value(confidence))


def _wilson(p: float, n: int, z: float) -> tuple[float, float]:
    """The Wilson score interval of a rate ``p`` over ``n`` trials for the normal quantile ``z``."""
    if n <= 0:
        return math.nan, math.nan
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if p <= 0.0 else max(0.0, centre - half)
    high = 1.0 if p >= 1.0 else min(1.0, centre + half)
    return low, high


def ratio_ci(
    numerators: Sequence[int], denominators: Sequence[int], confidence: float = 0.95
) -> tuple[float, float]:
    """A ratio of sums ``Σx / Σn`` over independent units and its half-width: :func:`cluster_mean`'s
    clustered interval (each unit a cluster of ``n`` observations summing to ``x``; integers).

    Used for points per deal: ``x`` is a game pair's point difference, ``n`` its number of deals.
    """
    mean, lo, hi, _se, _g = cluster_mean(numerators, denominators, confidence)
    return mean, (hi - lo) / 2


def t_interval(mean: float, sd: float, n: int) -> tuple[float, float]:
    """``mean ± t(0.975, n - 1) · sd / sqrt(n)`` (``nan``s when ``n < 2``)."""
    if n < 2 or math.isnan(sd):
        return math.nan, math.nan
    half = t_quantile(0.975, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half


def wilson(k: pl.Expr, n: pl.Expr, prefix: str, rate_name: str | None = None) -> list[pl.Expr]:
    """Expressions for ``{rate_name}``, ``{prefix}_lo``, ``{prefix}_hi``: the rate ``k/n`` and its 95%
    Wilson score interval (all null when ``n`` is 0)."""
    z2 = Z95 * Z95
    kf = k.cast(pl.Float64)
    nf = n.cast(pl.Float64)
    p = kf / nf
    centre = (p + z2 / (2 * nf)) / (1 + z2 / nf)
    half = Z95 * (p * (1 - p) / nf + z2 / (4 * nf * nf)).sqrt() / (1 + z2 / nf)
    ok = n > 0
    name = rate_name or f"{prefix}_rate"
    return [
        pl.when(ok).then(p).otherwise(None).alias(name),
        pl.when(~ok)
        .then(None)
        .when(k == 0)
        .then(0.0)
        .otherwise((centre - half).clip(0.0, 1.0))
        .alias(f"{prefix}_lo"),
        pl.when(~ok)
        .then(None)
        .when(k == n)
        .then(1.0)
        .otherwise((centre + half).clip(0.0, 1.0))
        .alias(f"{prefix}_hi"),
    ]


def wilson_interval(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of ``k`` successes in ``n`` trials (``nan``s when ``n`` is 0)."""
    return _wilson(k / n if n > 0 else 0.0, n, Z95)


def newcombe_diff(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """``p2 - p1`` and its 95% Newcombe (hybrid Wilson score) interval for independent samples."""
    if n1 <= 0 or n2 <= 0:
        return math.nan, math.nan, math.nan
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1)
    l2, u2 = wilson_interval(k2, n2)
    d = p2 - p1
    return d, d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2), d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)


def seed_of(*parts: Any) -> int:
    """A stable 32-bit seed from a table name and a group key."""
    return zlib.crc32(repr(parts).encode())


def resampled_means(draws: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """The mean of each resample (rows of multinomial ``draws`` over ``values``).  Integer values (points,
    counts, 0/1 flags: every metric here) are summed in exact integer arithmetic, so the result does not
    depend on how a float matrix product splits its sums (BLAS threads)."""
    if np.all(values == np.round(values)) and float(np.abs(values).max(initial=0.0)) * n < 2**62:
        return (draws.astype(np.int64) @ values.astype(np.int64)) / n
    return np.array([math.fsum(row) for row in (draws * values).tolist()]) / n


def bootstrap_mean(
    values: np.ndarray, counts: np.ndarray, seed: int, resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[float, float, float, float]:
    """``(mean, lo, hi, sd)`` of a sample given as distinct ``values`` with ``counts``: the 95%
    percentile bootstrap interval of the mean from ``resamples`` seeded multinomial resamples, or, for
    fewer than :data:`SMALL_N` observations, Student's t interval (no interval from one observation)."""
    n = int(counts.sum())
    if n == 0:
        return math.nan, math.nan, math.nan, math.nan
    values = values.astype(np.float64)
    mean = math.fsum((values * counts).tolist()) / n
    sd = (
        math.sqrt(max(0.0, math.fsum((counts * (values - mean) ** 2).tolist()) / (n - 1)))
        if n > 1
        else math.nan
    )
    if n < SMALL_N:
        return (mean, *t_interval(mean, sd, n), sd)
    if len(values) == 1:
        return mean, mean, mean, sd
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, counts / n, size=resamples)
    means = resampled_means(draws, values, n)
    lo, hi = np.quantile(means, [0.025, 0.975])
    return mean, float(lo), float(hi), sd


def bootstrap_table(
    df: pl.DataFrame | pl.LazyFrame,
    keys: Sequence[str],
    value: str,
    prefix: str,
    table: str,
    weight: str | None = None,
) -> pl.DataFrame:
    """Per group of ``keys``: ``{prefix}_mean``, ``{prefix}_lo``, ``{prefix}_hi``, ``{prefix}_sd`` of the
    (non-null) column ``value``, with seeded bootstrap intervals.  One row per group with a value.
    ``weight`` names a column of row counts when ``df`` is already a histogram."""
    keys = list(keys)
    count = pl.col(weight).sum() if weight else pl.len()
    hist = (
        df.lazy()
        .filter(pl.col(value).is_not_null())
        .group_by([*keys, value])
        .agg(count.cast(pl.Int64).alias("_c"))
        .sort([*keys, value], nulls_last=True)
        .collect()
    )
    out: dict[str, list[Any]] = {k: [] for k in keys}
    stats: list[tuple[float, float, float, float]] = []
    if keys:
        groups = hist.partition_by(keys, maintain_order=True, as_dict=True)
    else:
        groups = {(): hist} if hist.height else {}
    for key, g in groups.items():
        for k, v in zip(keys, key, strict=True):
            out[k].append(v)
        stats.append(
            bootstrap_mean(g[value].to_numpy(), g["_c"].to_numpy().astype(np.int64), seed_of(table, *key))
        )
    cols = {
        f"{prefix}_{s}": [None if math.isnan(t[i]) else t[i] for t in stats]
        for i, s in enumerate(("mean", "lo", "hi", "sd"))
    }
    schema = {k: hist.schema[k] for k in keys}
    res = pl.DataFrame(out, schema=schema)
    return res.with_columns(pl.Series(c, v, dtype=pl.Float64) for c, v in cols.items())


def bootstrap_diff(
    a: tuple[np.ndarray, np.ndarray],
    b: tuple[np.ndarray, np.ndarray],
    seed: int,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float, float]:
    """``mean(b) - mean(a)`` of two independent samples, each given as (distinct values, counts), and
    the 95% percentile bootstrap interval from resampling each sample on its own (``nan``s if empty);
    Welch's t interval when either sample has fewer than :data:`SMALL_N` observations."""
    (va, ca), (vb, cb) = a, b
    na, nb = int(ca.sum()), int(cb.sum())
    if na == 0 or nb == 0:
        return math.nan, math.nan, math.nan
    va, vb = va.astype(np.float64), vb.astype(np.float64)
    ma_, mb_ = math.fsum((va * ca).tolist()) / na, math.fsum((vb * cb).tolist()) / nb
    diff = mb_ - ma_
    if min(na, nb) < SMALL_N:
        return (diff, *welch_interval(va, ca, vb, cb))
    rng = np.random.default_rng(seed)
    ma = resampled_means(rng.multinomial(na, ca / na, size=resamples), va, na)
    mb = resampled_means(rng.multinomial(nb, cb / nb, size=resamples), vb, nb)
    lo, hi = np.quantile(mb - ma, [0.025, 0.975])
    return diff, float(lo), float(hi)


def welch_interval(va: np.ndarray, ca: np.ndarray, vb: np.ndarray, cb: np.ndarray) -> tuple[float, float]:
    """Welch's 95% t interval of ``mean(b) - mean(a)`` for two independent samples given as (distinct
    values, counts), with Welch–Satterthwaite degrees of freedom (``nan``s when either has < 2)."""
    na, nb = int(ca.sum()), int(cb.sum())
    if na < 2 or nb < 2:
        return math.nan, math.nan
    ma, mb = math.fsum((va * ca).tolist()) / na, math.fsum((vb * cb).tolist()) / nb
    sa = math.fsum((ca * (va - ma) ** 2).tolist()) / (na - 1) / na
    sb = math.fsum((cb * (vb - mb) ** 2).tolist()) / (nb - 1) / nb
    se2 = sa + sb
    if se2 == 0:
        return mb - ma, mb - ma
    df = se2 * se2 / (sa * sa / (na - 1) + sb * sb / (nb - 1))
    half = t_quantile(0.975, df) * math.sqrt(se2)
    return mb - ma - half, mb - ma + half


def inverse_variance_pool(
    estimates: Sequence[tuple[float, float]], confidence: float = 0.95
) -> tuple[float, float, float, float]:
    """``(mean, lo, hi, se)`` of independent estimates ``(mean, se)`` of one quantity pooled with
    weights ``1 / se²`` (the fixed-effect pool: each set of deals measured the same effect), with the
    normal interval ``mean ± z · se`` where ``se = 1 / sqrt(sum(1 / se²))``.  ``nan`` when there is no
    estimate or any standard error is not a positive finite number."""
    if not estimates or any(not (math.isfinite(se) and se > 0.0) for _, se in estimates):
        return math.nan, math.nan, math.nan, math.nan
    weights = [1.0 / (se * se) for _, se in estimates]
    total = sum(weights)
    mean = sum(w * m for w, (m, _) in zip(weights, estimates, strict=True)) / total
    se = 1.0 / math.sqrt(total)
    z = z_value(confidence)
    return mean, mean - z * se, mean + z * se, se


def cluster_mean(
    y: Sequence[int], m: Sequence[int], confidence: float = 0.95
) -> tuple[float, float, float, float, int]:
    """``(mean, lo, hi, se, clusters)`` of a mean over observations grouped in independent clusters:
    cluster ``g`` holds ``m[g]`` observations summing to ``y[g]`` (integers).

    The mean is ``sum(y) / sum(m)``; its variance is the linearised (ratio-estimator, "sandwich")
    ``G / (G - 1) · sum((y_g - mean · m_g)²) / sum(m)²`` and the interval is ``mean ± t(0.975, G - 1) ·
    se`` (at 95% ``confidence``).  Observations of one cluster (the two partners of a team on one deal,
    the deals of one game) may be correlated in any way; clusters must be independent.  The sums are
    exact integer arithmetic, so the result does not depend on the order of the clusters.  ``nan``
    interval with fewer than two clusters."""
    syy = sum(int(v) * int(v) for v in y)
    sym = sum(int(v) * int(w) for v, w in zip(y, m, strict=True))
    smm = sum(int(w) * int(w) for w in m)
    return cluster_sums(len(y), sum(int(v) for v in y), sum(int(v) for v in m), syy, sym, smm, confidence)


def cluster_sums(
    g: int, a: int, b: int, syy: int, sym: int, smm: int, confidence: float = 0.95
) -> tuple[float, float, float, float, int]:
    """:func:`cluster_mean` from the sums over ``g`` clusters: ``a = Σy``, ``b = Σm``, ``syy = Σy²``,
    ``sym = Σy·m``, ``smm = Σm²`` (integers, mergeable across batches of clusters)."""
    if b == 0:
        return math.nan, math.nan, math.nan, math.nan, g
    mean = a / b
    if g < 2:
        return mean, math.nan, math.nan, math.nan, g
    # sum((y - (a/b) m)^2) * b^2, exactly, in integers.
    num = b * b * syy - 2 * a * b * sym + a * a * smm
    var = g / (g - 1) * (num / (b**4))
    se = math.sqrt(max(var, 0.0))
    half = t_value(confidence, g) * se
    return mean, mean - half, mean + half, se, g
