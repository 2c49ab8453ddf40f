"""Independent estimates of one quantity pooled by inverse variance
(pipelines.analysis.intervals.inverse_variance_pool): the weights, the interval, the edge cases, and the
pool the docs give for expert.v2 against expert.v1 over eight sets of deals."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fivehundred.pipelines.analysis.intervals import Z95, inverse_variance_pool

means = st.floats(-500.0, 500.0)
ses = st.floats(0.01, 100.0)


@given(st.lists(st.tuples(means, ses), min_size=1, max_size=12))
@example([(10.0, 5.0)]).via("one estimate: itself, with the normal interval")
@example([(0.0, 1.0), (30.0, 1.0)]).via("equal weights: the plain mean")
def test_the_pool_lies_among_the_estimates_and_is_surer_than_each(
    estimates: list[tuple[float, float]],
) -> None:
    mean, lo, hi, se = inverse_variance_pool(estimates)
    assert min(m for m, _ in estimates) - 1e-9 <= mean <= max(m for m, _ in estimates) + 1e-9
    assert se <= min(s for _, s in estimates) + 1e-12
    assert lo == pytest.approx(mean - Z95 * se) and hi == pytest.approx(mean + Z95 * se)
    if len(estimates) == 1:
        assert (mean, se) == pytest.approx(estimates[0])
    if len({s for _, s in estimates}) == 1:  # equal standard errors: the plain mean, se / sqrt(k)
        assert mean == pytest.approx(sum(m for m, _ in estimates) / len(estimates))
        assert se == pytest.approx(estimates[0][1] / math.sqrt(len(estimates)))


def test_a_surer_estimate_weighs_more() -> None:
    mean, _, _, se = inverse_variance_pool([(0.0, 1.0), (10.0, 2.0)])  # weights 1 and 1/4
    assert mean == pytest.approx(2.0) and se == pytest.approx(1.0 / math.sqrt(1.25))


@pytest.mark.parametrize("estimates", [[], [(1.0, 0.0)], [(1.0, math.nan)], [(1.0, 2.0), (3.0, -1.0)]])
def test_no_estimate_or_a_bad_standard_error_gives_nan(estimates: list[tuple[float, float]]) -> None:
    assert all(math.isnan(v) for v in inverse_variance_pool(estimates))


def test_the_docs_eight_sets_of_expert_v2_against_expert_v1() -> None:
    """docs/experiments/ladder.md: the eight 1,000-pair matches' intervals (each standard error the
    half-width / 1.96) pool to +18.8 [+15.4, +22.1]."""
    intervals = {
        17: (22.4, 13.0, 31.7),
        19: (17.1, 8.0, 26.2),
        500: (18.3, 9.2, 27.3),
        23: (18.8, 9.6, 28.1),
        29: (10.2, 0.1, 20.2),
        31: (14.5, 4.5, 24.6),
        37: (21.5, 12.0, 31.0),
        41: (25.9, 16.5, 35.2),
    }
    mean, lo, hi, _ = inverse_variance_pool([(m, (h - l) / 2 / Z95) for m, l, h in intervals.values()])
    assert (round(mean, 1), round(lo, 1), round(hi, 1)) == (18.8, 15.4, 22.1)
