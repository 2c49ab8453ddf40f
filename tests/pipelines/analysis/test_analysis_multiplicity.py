"""Holm and Benjamini–Hochberg: hand-worked known answers, the published BH example, invariants, and
the adjusted columns of the analysis tables."""

from __future__ import annotations

import itertools

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fivehundred.pipelines.analysis.multiplicity import (
    bh,
    holm,
    p_from_se,
    two_proportion_p,
    versus_rest,
    with_adjusted,
)

#: Benjamini & Hochberg (1995), section 4.1: 15 p-values of a clinical trial.
BH_1995 = [
    0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459,
    0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000,
]  # fmt: skip


def test_holm_by_hand() -> None:
    # Sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04 -> running max 0.06).
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # capped at 1


def test_bh_by_hand() -> None:
    # Sorted: m p / k = 0.02, 0.02, 0.04, 0.04; running minimum from the largest down.
    assert bh([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    # Ties share a q-value; a p of 1 stays 1.
    assert bh([0.02, 0.02, 1.0]) == pytest.approx([0.03, 0.03, 1.0])


def test_published_example() -> None:
    """BH (1995) reject the 4 smallest at FDR 0.05; Holm (FWER 0.05) rejects 3 (0.0095 > 0.05 / 12)."""
    assert sum(q < 0.05 for q in bh(BH_1995)) == 4
    assert sum(p < 0.05 for p in holm(BH_1995)) == 3


def test_missing_values_stay_missing_and_do_not_count() -> None:
    assert holm([None, 0.01, float("nan"), 0.02]) == [None, pytest.approx(0.02), None, pytest.approx(0.02)]
    assert bh([None, 0.01, 0.02]) == [None, pytest.approx(0.02), pytest.approx(0.02)]
    assert holm([]) == [] and bh([]) == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40))
def test_adjusted_invariants(p: list[float]) -> None:
    h, q = holm(p), bh(p)
    for pi, hi, qi in zip(p, h, q, strict=True):
        assert pi <= qi + 1e-15 and qi <= hi + 1e-15 and hi <= 1.0  # BH is less strict than Holm
    order = sorted(range(len(p)), key=lambda i: p[i])
    for a, b in itertools.pairwise(order):  # adjustment keeps the order of the p-values
        assert h[a] <= h[b] + 1e-15 and q[a] <= q[b] + 1e-15
    assert holm([p[0]]) == [p[0]] and bh([p[0]]) == [p[0]]  # one test: nothing to adjust


def test_p_values() -> None:
    # Two-proportion z-test by hand: 10/100 vs 20/100, pooled 0.15, se = sqrt(0.15 * 0.85 * 0.02).
    assert two_proportion_p(10, 100, 20, 100) == pytest.approx(0.04771, abs=1e-4)
    assert two_proportion_p(0, 10, 0, 10) == 1.0 and two_proportion_p(1, 0, 1, 1) is None
    assert p_from_se(1.96, 1.0) == pytest.approx(0.05, abs=1e-4)
    assert p_from_se(2.2281, 1.0, 10) == pytest.approx(0.05, abs=1e-4)
    assert p_from_se(0.0, 0.0) == 1.0 and p_from_se(None, 1.0) is None


def test_with_adjusted_groups_and_keeps_order() -> None:
    df = pl.DataFrame({"g": ["a", "b", "a", "b"], "p": [0.04, 0.01, 0.01, None]})
    out = with_adjusted(df, "p", "q", "holm", ["g"], "sig")
    assert out["q"].to_list() == pytest.approx([0.04, 0.01, 0.02, None], nan_ok=True)
    assert out["sig"].to_list() == [True, True, True, None]
    assert out["g"].to_list() == df["g"].to_list()


def test_versus_rest_by_hand() -> None:
    df = pl.DataFrame(
        {
            "run_id": ["r"] * 3,
            "feature": ["x", "x", "y"],
            "n": [100, 100, 50],
            "made": [10, 20, 5],
        }
    )
    out = versus_rest(df, ["run_id", "feature"])
    # Row 0 against row 1 (its rest) and back; "y" has no other value: no test.
    assert out["rest_rate"].to_list() == [0.2, 0.1, None]
    p = two_proportion_p(20, 100, 10, 100)
    assert out["p_value"].to_list() == pytest.approx([p, p, None], nan_ok=True)
    assert out["q_value"].to_list() == pytest.approx(bh([p, p, None]), nan_ok=True)
