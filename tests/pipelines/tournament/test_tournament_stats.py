"""Tournament statistics against values worked out by hand (Elo, LLR, intervals, LOS, Bradley–Terry)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fivehundred.pipelines.analysis.intervals import ratio_ci, wilson_bounds
from fivehundred.pipelines.tournament.stats import (
    PENTA_SCORES,
    Sprt,
    bradley_terry,
    bt_bootstrap,
    bt_fisher_cov,
    bt_ratings,
    elo_from_score,
    gsprt_llr,
    llr_pdf,
    mle_pdf,
    penta_counts,
    penta_summary,
    score_from_elo,
    sprt_bounds,
)

Z95 = 1.959963984540054


def test_elo_from_win_rate_known_values() -> None:
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.005)  # 400 log10(3)
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.25) == pytest.approx(-190.85, abs=0.005)
    assert elo_from_score(10 / 11) == pytest.approx(400.0)  # odds 10:1
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    for elo in (-300.0, -35.5, 0.0, 12.0, 250.0):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)


def test_sprt_bounds_are_walds() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))
    lower, upper = sprt_bounds(0.05, 0.10)
    assert lower == pytest.approx(math.log(0.10 / 0.95)) and upper == pytest.approx(math.log(0.90 / 0.05))


def test_llr_two_point_distribution_by_hand() -> None:
    # With two outcomes the mean fixes the distribution: P(1.0) = (s - 0.5) / 0.5.
    # s0 = 0.6 -> (0.8, 0.2); s1 = 0.7 -> (0.6, 0.4); 6 pairs at 0.5 and 4 at 1.0:
    # LLR = 6 ln(0.6/0.8) + 4 ln(0.4/0.2) = 1.046496...
    assert llr_pdf([0.5, 1.0], [6, 4], 0.6, 0.7) == pytest.approx(6 * math.log(0.75) + 4 * math.log(2.0))
    q = mle_pdf([0.5, 1.0], [0.6, 0.4], 0.6)
    assert q == pytest.approx([0.8, 0.2])


def test_gsprt_mle_is_the_constrained_maximum() -> None:
    counts = np.array([3, 7, 20, 9, 5], dtype=float)
    p = counts / counts.sum()
    a = np.array(PENTA_SCORES)
    rng = np.random.default_rng(1)
    for s in (0.45, 0.5, 0.55, 0.6):
        q = mle_pdf(PENTA_SCORES, p, s)
        assert q.sum() == pytest.approx(1.0) and (q * a).sum() == pytest.approx(s)
        best = (counts * np.log(q)).sum()
        # Any feasible move (keeping sum 1 and mean s) lowers the likelihood.
        basis = np.array([[1, -2, 1, 0, 0], [0, 1, -2, 1, 0], [0, 0, 1, -2, 1]], dtype=float)
        for _ in range(50):
            step = rng.normal(size=3) @ basis * 1e-3
            moved = q + step
            if (moved > 0).all():
                assert (counts * np.log(moved)).sum() <= best + 1e-12


def test_gsprt_matches_normal_approximation_for_many_pairs() -> None:
    counts = [400, 1600, 4000, 1800, 440]
    s0, s1 = score_from_elo(0.0), score_from_elo(10.0)
    # The normal approximation: N (s1 - s0) (2 mean - s0 - s1) / (2 var), mean and var of the pair scores.
    c, a = np.asarray(counts, dtype=float), np.asarray(PENTA_SCORES)
    n = c.sum()
    mean = (c * a).sum() / n
    var = (c * (a - mean) ** 2).sum() / n
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    exact = gsprt_llr(counts, s0, s1)
    assert exact == pytest.approx(approx, rel=0.02)
    assert gsprt_llr([0, 0, 0, 0, 0], s0, s1) == 0.0


def test_sprt_decisions() -> None:
    sprt = Sprt.from_elo(0.0, 50.0, 0.05, 0.05)
    assert sprt.decide(3.0) == "H1" and sprt.decide(-3.0) == "H0" and sprt.decide(0.0) is None
    assert sprt.decide(sprt.llr([0, 0, 0, 0, 30])) == "H1"  # thirty clean pair wins
    assert sprt.decide(sprt.llr([0, 0, 300, 0, 0])) == "H0"  # every pair split


def test_ratio_interval_reduces_to_the_mean_with_equal_denominators() -> None:
    x = [10.0, -20.0, 35.0, 5.0]
    ratio, half = ratio_ci(x, [2, 2, 2, 2])
    halves = np.asarray(x) / 2  # the mean of x / 2 and its Student-t half-width (3 df: 3.1824463053)
    assert ratio == pytest.approx(halves.mean())
    assert half == pytest.approx(3.1824463053 * halves.std(ddof=1) / math.sqrt(4))
    assert ratio_ci([3.0, 9.0], [1, 3])[0] == pytest.approx(3.0)


def test_penta_summary_score_interval_and_los_by_hand() -> None:
    s = penta_summary([1, 2, 3, 2, 2])
    se = math.sqrt(0.975 / 9 / 10)  # the sample variance of the 10 pair scores
    assert s.score == pytest.approx(0.55)
    assert s.score_half == pytest.approx(2.2621571627 * se)  # Student t, 9 df
    assert (s.score_low, s.score_high) == pytest.approx((0.55 - s.score_half, 0.55 + s.score_half))
    assert s.los == pytest.approx(0.5 * (1 + math.erf(0.05 / se / math.sqrt(2))))  # 0.6937
    assert s.elo == pytest.approx(elo_from_score(0.55))
    assert s.elo_low < s.elo < s.elo_high
    assert penta_summary([0, 0, 5, 0, 0]).los == 0.5


def test_small_and_one_sided_matches_get_finite_sound_intervals() -> None:
    # Five pairs all won: no spread in the sample, so Wilson over the 5 pairs (not a zero-width interval).
    s = penta_summary([0, 0, 0, 0, 5])
    assert s.score == 1.0 and s.score_high == 1.0
    assert s.score_low == pytest.approx(wilson_bounds(1.0, 5)[0])
    assert 0.5 < s.score_low < 0.7  # 5/5: Wilson's 0.566
    assert math.isfinite(s.elo_low) and s.elo_low > 0 and s.elo_high == math.inf
    # All pairs split: the mean is 0.5, yet the data do not make the interval zero-width.
    d = penta_summary([0, 0, 4, 0, 0])
    assert d.score_low < 0.5 < d.score_high
    # One pair: Wilson as well (no sample variance).
    one = penta_summary([0, 0, 0, 1, 0])
    assert 0 < one.score_low < 0.75 < one.score_high < 1
    # The t interval is wider than the normal one at small n and close to it at large n.
    few, many = penta_summary([1, 1, 1, 1, 1]), penta_summary([100, 100, 100, 100, 100])
    z_half = Z95 * math.sqrt(0.125 / 5)
    assert few.score_half > 1.2 * z_half
    assert many.score_half == pytest.approx(Z95 * math.sqrt(0.125 / 500), rel=5e-3)


def test_wilson_bounds_match_the_rate_interval() -> None:
    from fivehundred.pipelines.analysis.intervals import wilson_interval

    assert wilson_bounds(3 / 10, 10) == pytest.approx(wilson_interval(3, 10))
    assert wilson_bounds(0.0, 4)[0] == 0.0 and wilson_bounds(1.0, 4)[1] == 1.0


def test_penta_counts() -> None:
    assert penta_counts([0, 0.5, 1, 1, 1.5, 2, 2, 2]) == [1, 1, 2, 1, 3]
    with pytest.raises(ValueError):
        penta_counts([0.3])


def test_bradley_terry_two_players_matches_elo_of_win_rate() -> None:
    score = np.array([[0.0, 30.0], [10.0, 0.0]])
    games = np.array([[0.0, 40.0], [40.0, 0.0]])
    theta, _ = bradley_terry(score, games, prior=0.0)
    assert theta[0] - theta[1] == pytest.approx(math.log(3.0))
    r = bt_ratings(score, games, prior=0.0)
    assert r.elo[0] - r.elo[1] == pytest.approx(elo_from_score(0.75), abs=1e-6)
    # var(θ0 - θ1) = 1 / (n p (1 - p)) = 1 / 7.5; θ0 = (θ0 - θ1) / 2 in the mean-0 parametrisation.
    cov = bt_fisher_cov(theta, games, prior=0.0)
    assert math.sqrt(cov[0, 0]) == pytest.approx(math.sqrt(1 / 30))


def test_bradley_terry_three_players_solves_the_likelihood_equations() -> None:
    score = np.array([[0, 30, 35], [10, 0, 25], [5, 15, 0]], dtype=float)
    games = np.array([[0, 40, 40], [40, 0, 40], [40, 40, 0]], dtype=float)
    theta, _ = bradley_terry(score, games, prior=0.0)
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    np.testing.assert_allclose((games * p).sum(axis=1), score.sum(axis=1), rtol=1e-9)
    assert theta.sum() == pytest.approx(0.0, abs=1e-12)
    # A clean sweep stays finite with the prior.
    sweep = np.array([[0, 40], [0, 0]], dtype=float)
    theta2, _ = bradley_terry(sweep, games[:2, :2], prior=1.0)
    assert np.isfinite(theta2).all() and theta2[0] > theta2[1]


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    rng = np.random.default_rng(5)
    units = [(0, 1, float(rng.choice([0, 1, 1, 2, 2])), 2.0) for _ in range(40)]
    units += [(1, 2, float(rng.choice([0, 1, 1, 2])), 2.0) for _ in range(40)]
    a = bt_bootstrap(units, 3, samples=100, seed=9)
    b = bt_bootstrap(units, 3, samples=100, seed=9)
    np.testing.assert_array_equal(a.low, b.low)
    assert (a.low <= a.elo + 1e-9).all() and (a.elo <= a.high + 1e-9).all()
    assert a.elo[0] > a.elo[2]


def test_small_match_score_interval_covers_about_95_percent() -> None:
    """4,000 simulated 6-pair matches: the t interval (Wilson without spread) covers ~95%, the normal
    one with the population variance only ~87% (docs/statistics.md)."""
    rng = np.random.default_rng(1)
    p = [0.05, 0.1, 0.5, 0.2, 0.15]
    mu = float(np.dot(p, PENTA_SCORES))
    hits = 0
    for _ in range(4000):
        s = penta_summary(rng.multinomial(6, p).tolist())
        hits += s.score_low <= mu <= s.score_high
    assert 0.93 <= hits / 4000 <= 0.985, hits / 4000
