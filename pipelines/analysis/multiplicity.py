"""Multiple comparisons: Holm's step-down adjustment (family-wise error) and Benjamini–Hochberg
q-values (false discovery rate), plus the p-values they adjust.

A comparison of two runs prints some 30 effects and a feature table some 2,000 rates, each at 95%: without
an adjustment about one in twenty true nulls "excludes zero".  ``variant_effects`` and
``strategy_duplicate`` carry Holm-adjusted p-values per compared run; the feature tables carry
Benjamini–Hochberg q-values per run.  Both functions keep missing p-values missing and return the
adjusted values in the input order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from fivehundred.pipelines.analysis.distributions import normal_two_sided_p, t_two_sided_p

#: The level the headline counts use: an effect "is distinguishable from zero" when its adjusted p < ALPHA.
ALPHA = 0.05


def _present(p: Sequence[float | None]) -> list[tuple[int, float]]:
    return [(i, float(v)) for i, v in enumerate(p) if v is not None and not math.isnan(v)]


def holm(p: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values: sort the ``m`` present p-values ascending, multiply the
    ``k``-th smallest (1-based) by ``m - k + 1``, take the running maximum and cap at 1."""
    present = sorted(_present(p), key=lambda t: (t[1], t[0]))
    m = len(present)
    out: list[float | None] = [None] * len(p)
    running = 0.0
    for k, (i, v) in enumerate(present):
        running = max(running, min(1.0, (m - k) * v))
        out[i] = running
    return out


def bh(p: Sequence[float | None]) -> list[float | None]:
    """Benjamini–Hochberg q-values: sort the ``m`` present p-values ascending; the ``k``-th (1-based)
    gets ``min over j >= k of m * p_(j) / j``, capped at 1."""
    present = sorted(_present(p), key=lambda t: (t[1], t[0]))
    m = len(present)
    out: list[float | None] = [None] * len(p)
    running = 1.0
    for k in range(m - 1, -1, -1):
        i, v = present[k]
        running = min(running, m * v / (k + 1))
        out[i] = running
    return out


def p_from_se(diff: float | None, se: float | None, df: float | None = None) -> float | None:
    """Two-sided p-value of ``diff`` against zero with standard error ``se``: Student's t with ``df``
    degrees of freedom when given, else normal.  None when undefined; 1 when ``diff`` is 0 and ``se``
    is 0 (nothing varied); 0 when only ``se`` is 0."""
    if diff is None or se is None or math.isnan(diff) or math.isnan(se):
        return None
    if se == 0:
        return 1.0 if diff == 0 else 0.0
    z = diff / se
    return t_two_sided_p(z, df) if df is not None else normal_two_sided_p(z)


def two_proportion_p(k1: int, n1: int, k2: int, n2: int) -> float | None:
    """Two-sided p-value of the pooled two-proportion z-test of ``k1/n1`` against ``k2/n2`` (None
    when either sample is empty; 1 when the pooled rate is 0 or 1)."""
    if n1 <= 0 or n2 <= 0:
        return None
    pooled = (k1 + k2) / (n1 + n2)
    var = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
    if var <= 0:
        return 1.0
    return normal_two_sided_p((k2 / n2 - k1 / n1) / math.sqrt(var))


def with_adjusted(
    df: pl.DataFrame, p: str, out: str, method: str, by: Sequence[str], alias_excl: str | None = None
) -> pl.DataFrame:
    """``df`` with column ``out``: the ``method`` (``holm`` or ``bh``) adjustment of column ``p`` within
    each group of ``by`` (row order kept).  ``alias_excl`` adds a boolean column: adjusted value < ALPHA."""
    adjust = {"holm": holm, "bh": bh}[method]
    values: list[float | None] = [None] * df.height
    idx = df.with_row_index("_i")
    groups = idx.partition_by(list(by), maintain_order=True) if by else [idx]
    for g in groups:
        for i, v in zip(g["_i"].to_list(), adjust(g[p].to_list()), strict=True):
            values[i] = v
    res = df.with_columns(pl.Series(out, values, dtype=pl.Float64))
    if alias_excl:
        res = res.with_columns((pl.col(out) < ALPHA).alias(alias_excl))
    return res


def versus_rest(df: pl.DataFrame, by: Sequence[str], run: str = "run_id") -> pl.DataFrame:
    """A feature table with ``rest_rate`` (the success rate of the other values of the same feature in
    the same group), ``p_value`` (two-proportion test of this value against the rest) and ``q_value``
    (Benjamini–Hochberg over every row of the run).  ``by`` names a group (e.g. run, contract group,
    feature); rows keep their order."""
    by = list(by)
    tot = df.group_by(by).agg(pl.col("n").sum().alias("_N"), pl.col("made").sum().alias("_K"))
    t = df.join(tot, on=by, how="left", maintain_order="left", nulls_equal=True)
    rest_n, rest_k = (t["_N"] - t["n"]).to_list(), (t["_K"] - t["made"]).to_list()
    p = [
        two_proportion_p(int(rk), int(rn), int(k), int(n))
        for k, n, rk, rn in zip(t["made"].to_list(), t["n"].to_list(), rest_k, rest_n, strict=True)
    ]
    t = t.with_columns(
        pl.Series("rest_rate", [rk / rn if rn else None for rk, rn in zip(rest_k, rest_n, strict=True)]),
        pl.Series("p_value", p, dtype=pl.Float64),
    ).drop("_N", "_K")
    return with_adjusted(t, "p_value", "q_value", "bh", [run])
