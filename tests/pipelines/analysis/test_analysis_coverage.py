"""Coverage of the intervals, by simulation with fixed seeds: each interval the tables use covers the
true value about 95% of the time in the setting it is used for, and the alternatives it replaced do not."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fivehundred.pipelines.analysis.distributions import t_quantile
from fivehundred.pipelines.analysis.intervals import (
    SMALL_N,
    bootstrap_diff,
    bootstrap_mean,
    cluster_mean,
    t_interval,
    welch_interval,
    wilson_interval,
)

#: Declarer's points on a deal: mostly small made/failed contracts, a few big swings (skewed).
VALUES = np.array([-500, -100, 100, 140, 250, 520])
PROBS = np.array([0.05, 0.15, 0.35, 0.25, 0.15, 0.05])
MU = float(VALUES @ PROBS)


def _percentile_bootstrap(v: np.ndarray, c: np.ndarray, seed: int) -> tuple[float, float]:
    n = int(c.sum())
    draws = np.random.default_rng(seed).multinomial(n, c / n, size=2000) @ v / n
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return float(lo), float(hi)


def test_small_samples_get_t_and_it_covers_where_the_percentile_bootstrap_does_not() -> None:
    """n = 24 (below SMALL_N): the t interval covers ~95%, the percentile bootstrap ~91%."""
    n, sims = 24, 1500
    assert n < SMALL_N
    rng = np.random.default_rng(2)
    cov_t = cov_b = 0
    for i in range(sims):
        x = rng.choice(VALUES, size=n, p=PROBS)
        v, c = np.unique(x, return_counts=True)
        mean, lo, hi, sd = bootstrap_mean(v, c, seed=i)
        assert (lo, hi) == pytest.approx(t_interval(mean, sd, n))
        cov_t += lo <= MU <= hi
        blo, bhi = _percentile_bootstrap(v, c, i)
        cov_b += blo <= MU <= bhi
    assert 0.93 <= cov_t / sims <= 0.965
    assert cov_b / sims < cov_t / sims - 0.015


def test_large_samples_keep_the_seeded_bootstrap() -> None:
    rng = np.random.default_rng(3)
    x = rng.choice(VALUES, size=SMALL_N, p=PROBS)
    v, c = np.unique(x, return_counts=True)
    mean, lo, hi, _ = bootstrap_mean(v, c, seed=11)
    assert (lo, hi) == pytest.approx(_percentile_bootstrap(v, c, 11))
    assert bootstrap_mean(v, c, seed=11) == (mean, lo, hi, _)


def test_one_observation_has_no_interval() -> None:
    mean, lo, hi, sd = bootstrap_mean(np.array([250]), np.array([1]), seed=0)
    assert mean == 250.0 and all(math.isnan(x) for x in (lo, hi, sd))


def test_wilson_covers_rare_rates() -> None:
    rng = np.random.default_rng(4)
    p, n, sims = 0.08, 40, 4000
    k = rng.binomial(n, p, size=sims)
    cover = sum(lo <= p <= hi for lo, hi in (wilson_interval(int(x), n) for x in k))
    assert 0.93 <= cover / sims <= 0.975


def _games(rng: np.random.Generator, games: int) -> tuple[list[int], list[int], np.ndarray]:
    """Per game: the sum and count of a strategy's seat-deals, where both partners carry the team's
    points of each deal and each game has its own level (a shared score path)."""
    ys, ms, flat = [], [], []
    for _ in range(games):
        deals = int(rng.integers(3, 12))
        level = rng.normal(0.0, 30.0)
        pts = np.round(rng.normal(20.0 + level, 60.0, size=deals)).astype(int)
        ys.append(int(2 * pts.sum()))
        ms.append(2 * deals)
        flat += [*pts, *pts]
    return ys, ms, np.array(flat, dtype=float)


def test_cluster_interval_covers_and_the_seat_deal_interval_does_not() -> None:
    """Partners share the team's score and deals share a game: clustering by game covers ~95%; treating
    every seat-deal as independent (the old table) covers far less."""
    rng = np.random.default_rng(1)
    sims = 600
    cov_c = cov_naive = 0
    for _ in range(sims):
        ys, ms, flat = _games(rng, 40)
        mean, lo, hi, _se, clusters = cluster_mean(ys, ms)
        assert clusters == 40 and mean == pytest.approx(flat.mean())
        cov_c += lo <= 20.0 <= hi
        nlo, nhi = t_interval(float(flat.mean()), float(flat.std(ddof=1)), len(flat))
        cov_naive += nlo <= 20.0 <= nhi
    assert 0.92 <= cov_c / sims <= 0.97
    assert cov_naive / sims < 0.8


def test_cluster_mean_by_hand() -> None:
    """Three games: sums 10, 0, 20 over 2, 2, 4 seat-deals.  Mean 30 / 8; residuals y - r m are
    2.5, -7.5, 5; sum of squares 87.5; var = 3/2 * 87.5 / 64."""
    mean, lo, hi, se, g = cluster_mean([10, 0, 20], [2, 2, 4])
    assert (mean, g) == (3.75, 3)
    assert se == pytest.approx(math.sqrt(1.5 * 87.5 / 64))
    assert (lo, hi) == pytest.approx((3.75 - t_quantile(0.975, 2) * se, 3.75 + t_quantile(0.975, 2) * se))
    # Order of the games does not matter, to the last bit (exact integer sums).
    assert cluster_mean([20, 10, 0], [4, 2, 2]) == (mean, lo, hi, se, g)
    # One game: a mean, no interval; nothing observed: nothing at all.
    assert math.isnan(cluster_mean([5], [2])[1]) and math.isnan(cluster_mean([], [])[0])


def test_welch_for_small_unpaired_samples() -> None:
    a = (np.array([1.0, 2.0, 3.0]), np.array([1, 1, 1]))
    b = (np.array([4.0, 6.0]), np.array([2, 2]))
    d, lo, hi = bootstrap_diff(a, b, seed=0)
    assert d == pytest.approx(3.0)
    assert (lo, hi) == pytest.approx(welch_interval(*a, *b))
    # By hand: se² = 1/3 + (4/3)/4 = 2/3; df = (2/3)² / ((1/3)²/2 + (1/3)²/3) = 4.8.
    half = t_quantile(0.975, 4.8) * math.sqrt(2 / 3)
    assert (lo, hi) == pytest.approx((3.0 - half, 3.0 + half))
