"""sim.rng.Rng: the xoshiro128** generator behind every shuffle and every bot's seat stream."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fivehundred.sim.rng import NoRng, Rng
from fivehundred.sim.seeding import bot_rng, bot_seed, derive, shuffled


def _with_state(words: tuple[int, int, int, int]) -> Rng:
    rng = Rng(0)
    rng._s0, rng._s1, rng._s2, rng._s3 = words
    return rng


def test_next32_is_the_reference_xoshiro128starstar() -> None:
    # Outputs 995..999 of the authors' C code (prng.di.unimi.it/xoshiro128starstar.c) from state 1,2,3,4.
    rng = _with_state((1, 2, 3, 4))
    out = [rng.next32() for _ in range(1000)]
    assert out[995:] == [1000949149, 1931492353, 2587688754, 3733893835, 3170714187]
    assert all(0 <= x < 2**32 for x in out)


def test_same_seed_same_stream_and_nearby_seeds_unrelated() -> None:
    a, b = Rng(12345), Rng(12345)
    assert [a.next32() for _ in range(50)] == [b.next32() for _ in range(50)]
    firsts = {Rng(s).next32() for s in range(2000)}
    assert len(firsts) == 2000  # consecutive seeds do not share streams (the seed is hashed)
    # The two seat seeds of one deal that differ in one bit give streams with no visible relation.
    x, y = bot_rng(99, 0), bot_rng(99, 1)
    agree = sum(bin(x.next32() ^ y.next32()).count("1") for _ in range(1000))
    assert 15_000 < agree < 17_000  # about 16 of 32 bits differ, as for independent words


def test_seeds_of_any_size_and_zero_but_not_negative() -> None:
    assert Rng(0).next32() != Rng(1).next32()
    big = (1 << 200) + 5
    assert Rng(big).next32() != Rng(5).next32()
    with pytest.raises(ValueError):
        Rng(-1)


def test_random_is_in_unit_interval_with_53_bits() -> None:
    rng = Rng(7)
    xs = [rng.random() for _ in range(20000)]
    assert all(0.0 <= x < 1.0 for x in xs)
    assert abs(sum(xs) / len(xs) - 0.5) < 0.01
    assert any((x * 2**53) % 2 == 1 for x in xs)  # the lowest of the 53 bits is used


def test_below_is_exactly_uniform_in_distribution() -> None:
    rng = Rng(3)
    n, draws = 7, 70_000
    counts = Counter(rng.below(n) for _ in range(draws))
    assert set(counts) == set(range(n))
    expected = draws / n
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 22.5  # 6 degrees of freedom, p = 0.001


def test_below_rejection_path_and_large_bounds() -> None:
    rng = Rng(11)
    n = 3 * 2**30  # rejects about a quarter of the draws
    assert all(0 <= rng.below(n) < n for _ in range(2000))
    huge = 10**30
    assert all(0 <= rng.below(huge) < huge for _ in range(200))
    with pytest.raises(ValueError):
        rng.below(0)


def test_random_module_api_subset_means_the_same() -> None:
    rng = Rng(5)
    for _ in range(500):
        assert 3 <= rng.randrange(3, 10) < 10
        assert rng.randrange(10) < 10
        assert rng.randrange(10, 0, -3) in range(10, 0, -3)
        assert rng.randrange(0, 20, 5) in range(0, 20, 5)
        assert 1 <= rng.randint(1, 6) <= 6
        assert rng.choice("abc") in "abc"
        assert 2.0 <= rng.uniform(2.0, 3.0) <= 3.0
        assert 0 <= rng.getrandbits(70) < 2**70
    assert rng.getrandbits(0) == 0
    for bad in [(5, 5), (0, 10, 0), (10, 0, 1)]:
        with pytest.raises(ValueError):
            rng.randrange(*bad)
    with pytest.raises(IndexError):
        rng.choice([])
    pick = rng.sample(range(10), 4)
    assert len(set(pick)) == 4 and all(p in range(10) for p in pick)
    with pytest.raises(ValueError):
        rng.sample([1, 2], 3)
    items = list(range(20))
    rng.shuffle(items)
    assert sorted(items) == list(range(20))


def test_permutation_is_shuffle_of_range() -> None:
    for seed in range(20):
        a = list(range(43))
        Rng(seed).shuffle(a)
        assert Rng(seed).permutation(43) == a


@given(seed=st.integers(min_value=0, max_value=2**80), n=st.integers(min_value=0, max_value=70))
@example(seed=0, n=0)
@example(seed=0, n=1)
def test_permutation_is_a_permutation(seed: int, n: int) -> None:
    assert sorted(Rng(seed).permutation(n)) == list(range(n))


def test_every_card_lands_in_every_position_evenly() -> None:
    first = Counter(shuffled(s, 43)[0] for s in range(43_000))
    assert set(first) == set(range(43))
    assert max(first.values()) < 1_300 and min(first.values()) > 700  # about 1,000 each


def test_seed_derivation_is_unambiguous() -> None:
    assert derive(1, 2) != derive(258)
    assert derive(1, 2) != derive(2, 1)
    assert derive(0) != derive(0, 0)
    assert 0 <= derive(7, 8, 9) < 2**64
    assert bot_seed(5, 1, 3) != bot_seed(5, 1, 0)


def test_no_rng_refuses() -> None:
    with pytest.raises(RuntimeError, match="uses_rng = False"):
        NoRng().random()
    with pytest.raises(RuntimeError):
        NoRng().choice([1, 2])
    with pytest.raises(RuntimeError):
        NoRng().permutation(5)
    with pytest.raises(RuntimeError):
        NoRng().uniform(0.0, 1.0)


def test_bots_may_still_build_a_mersenne_twister_from_the_stream() -> None:
    mt = random.Random(Rng(9).getrandbits(64))
    assert mt.random() == random.Random(Rng(9).getrandbits(64)).random()
