"""pipelines.analysis.distributions: normal and Student's t against published table values, and the
identities that tie the cdf and the quantile together."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fivehundred.pipelines.analysis.distributions import (
    beta_inc,
    normal_quantile,
    normal_two_sided_p,
    t_cdf,
    t_quantile,
    t_two_sided_p,
)

# t(0.975, df) from any printed table (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
T975 = {1: 12.7062, 2: 4.3027, 3: 3.1824, 5: 2.5706, 10: 2.2281, 23: 2.0687, 30: 2.0423, 100: 1.9840}


@pytest.mark.parametrize(("df", "want"), sorted(T975.items()))
def test_t_quantile_known_values(df: int, want: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(want, abs=5e-5)


def test_t_quantile_tends_to_the_normal_and_is_exact_for_one_and_two_df() -> None:
    assert t_quantile(0.975, 1e7) == pytest.approx(normal_quantile(0.975), abs=1e-6)
    # Closed forms: df 1 is Cauchy, df 2 has t = (2p - 1) / sqrt(2 p (1 - p)).
    for p in (0.6, 0.9, 0.975, 0.999):
        assert t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-10)
        assert t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-10)


def test_normal_known_values() -> None:
    assert normal_quantile(0.975) == pytest.approx(1.959963984540054, abs=1e-12)
    assert normal_two_sided_p(1.959963984540054) == pytest.approx(0.05, abs=1e-12)
    assert normal_two_sided_p(10.0) == pytest.approx(1.5239706e-23, rel=1e-6)  # precise in the far tail


def test_beta_inc_known_values() -> None:
    # I_x(a, 1) = x^a and I_x(1, b) = 1 - (1 - x)^b; I_0.5(2, 3) = 11/16 by hand.
    assert beta_inc(3.0, 1.0, 0.3) == pytest.approx(0.3**3, rel=1e-12)
    assert beta_inc(1.0, 4.0, 0.2) == pytest.approx(1 - 0.8**4, rel=1e-12)
    assert beta_inc(2.0, 3.0, 0.5) == pytest.approx(11 / 16, rel=1e-12)
    assert (beta_inc(2.0, 3.0, 0.0), beta_inc(2.0, 3.0, 1.0)) == (0.0, 1.0)


def test_t_p_values() -> None:
    assert t_two_sided_p(T975[10], 10) == pytest.approx(0.05, abs=1e-5)
    assert t_two_sided_p(0.0, 5) == pytest.approx(1.0)
    assert t_two_sided_p(math.inf, 5) == 0.0
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)
    with pytest.raises(ValueError):
        t_quantile(0.5, 0)


@settings(max_examples=150, deadline=None)
@given(p=st.floats(0.001, 0.999), df=st.floats(1, 500))  # df = n - 1 >= 1 wherever t is used
@example(p=0.5, df=1.0)  # the median of the widest t used
def test_t_cdf_inverts_the_quantile_and_is_symmetric(p: float, df: float) -> None:
    q = t_quantile(p, df)
    assert t_cdf(q, df) == pytest.approx(p, abs=1e-9)
    assert t_quantile(1 - p, df) == pytest.approx(-q, abs=1e-9 * max(1.0, abs(q)))
    assert t_cdf(q, df) + t_cdf(-q, df) == pytest.approx(1.0, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(df=st.floats(1, 200), a=st.floats(-20, 20), b=st.floats(-20, 20))
def test_t_cdf_is_monotone(df: float, a: float, b: float) -> None:
    lo, hi = min(a, b), max(a, b)
    assert t_cdf(lo, df) <= t_cdf(hi, df) + 1e-15
