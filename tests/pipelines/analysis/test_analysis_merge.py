"""The mergeable pieces reproduce the whole-sample statistics exactly: quantiles from a histogram,
``math.fsum`` of repeated terms, paired means and variances from value histograms, and merged
partial aggregates independent of how the deals are cut into batches."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fivehundred.pipelines.analysis.batches import merge
from fivehundred.pipelines.analysis.games import quantile_nearest
from fivehundred.pipelines.analysis.intervals import cluster_mean, cluster_sums
from fivehundred.pipelines.analysis.strategies import _fsum_of
from fivehundred.pipelines.analysis.variants import _hist_mean_var

samples = st.lists(st.integers(-600, 600), min_size=1, max_size=80)


@given(samples, st.sampled_from([0.1, 0.25, 0.5, 0.75, 0.9]))
@example([0, 1, 2], 0.25)  # (n - 1)·q = 0.5: polars takes the higher neighbour
@settings(max_examples=300, deadline=None)
def test_quantile_from_histogram_is_polars_nearest(xs: list[int], q: float) -> None:
    want = pl.DataFrame({"x": xs}).select(pl.col("x").quantile(q, interpolation="nearest")).item()
    values, counts = np.unique(np.array(xs), return_counts=True)
    assert quantile_nearest(values, counts, q) == want
    if xs == [0, 1, 2]:
        assert want == 1


@given(st.lists(st.tuples(st.floats(-1e6, 1e6, allow_nan=False), st.integers(1, 50)), max_size=30))
@example([(0.1, 3), (1e-17, 1)])
@settings(max_examples=300, deadline=None)
def test_fsum_of_repeats_is_fsum(terms: list[tuple[float, int]]) -> None:
    assert _fsum_of(terms) == math.fsum(v for v, c in terms for _ in range(c))


@given(samples)
@example([5])
@example([3, 3, 3, 4])
@settings(max_examples=300, deadline=None)
def test_mean_var_from_histogram_is_fsum_of_the_sample(xs: list[int]) -> None:
    x = np.array(xs, dtype=np.float64)
    mean = math.fsum(x.tolist()) / len(x)
    var = math.fsum(((x - mean) ** 2).tolist()) / (len(x) - 1) if len(x) > 1 else math.nan
    values, counts = np.unique(np.array(xs), return_counts=True)
    got = _hist_mean_var(values, counts)
    assert got[0] == mean
    assert got[1] == var or (math.isnan(var) and math.isnan(got[1]))


@given(st.lists(st.tuples(st.integers(-3000, 3000), st.integers(1, 40)), min_size=1, max_size=40))
@example([(7, 1)])  # one cluster: no interval
@settings(max_examples=200, deadline=None)
def test_cluster_interval_from_sums_is_the_clusters_one(clusters: list[tuple[int, int]]) -> None:
    y, m = [c[0] for c in clusters], [c[1] for c in clusters]
    sums = (
        len(y),
        sum(y),
        sum(m),
        sum(v * v for v in y),
        sum(v * w for v, w in clusters),
        sum(w * w for w in m),
    )
    a, b = cluster_mean(y, m), cluster_sums(*sums)
    assert [x if x == x else None for x in a] == [x if x == x else None for x in b]
    if len(clusters) == 1:
        assert math.isnan(b[1])


@given(
    st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 3)), min_size=1, max_size=60),
    st.integers(1, 59),
)
@settings(max_examples=100, deadline=None)
def test_merged_counts_do_not_depend_on_the_cut(rows: list[tuple[str, int]], at: int) -> None:
    spec = {"h": (("k", "v"), {"_w": "sum"}), "c": ((), {"n": "sum", "top": "max"})}

    def part(rs: list[tuple[str, int]]) -> dict[str, pl.DataFrame]:
        d = pl.DataFrame(rs, schema={"k": pl.String, "v": pl.Int64}, orient="row")
        return {
            "h": d.group_by("k", "v").agg(pl.len().cast(pl.Int64).alias("_w")),
            "c": d.select(pl.len().cast(pl.Int64).alias("n"), pl.col("v").max().alias("top")),
        }

    whole = part(rows)
    cut = merge(part(rows[:at]), part(rows[at:]), spec) if 0 < at < len(rows) else whole
    assert cut is not None
    assert cut["h"].sort("k", "v").equals(whole["h"].sort("k", "v"))
    assert cut["c"].equals(whole["c"])
