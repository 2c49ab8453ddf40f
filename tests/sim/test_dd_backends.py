"""The C search (sim/_ddc.c) and the pure-Python search of sim/dd.py give identical answers."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fivehundred.sim import dd, load_rules
from fivehundred.sim.dd import Position, dd_tricks, move_values
from tests.sim.test_dd import ending

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.stem for p in (ROOT / "configs" / "variants").glob("*.toml"))
CONTRACTS = ("6S", "7C", "8D", "9H", "7NT", "8NT", "MIS", "OMIS", "BMIS")

needs_c = pytest.mark.skipif(
    bool(dd.backend_reason()), reason=f"the C DD search is not available: {dd.backend_reason()}"
)


def _both(pos: Position) -> tuple[tuple[int, dict[int, int]], tuple[int, dict[int, int]]]:
    previous = dd.use_backend("pure")
    try:
        pure = (dd_tricks(pos), move_values(pos))
        dd.use_backend("c")
        c = (dd_tricks(pos), move_values(pos))
    finally:
        dd.use_backend(previous)
    return pure, c


@needs_c
@pytest.mark.parametrize("variant", SHIPPED)
def test_backends_agree_on_random_endings(variant: str) -> None:
    """Every shipped variant and contract kind, at trick boundaries and mid-trick, with and without a
    named joker: the same dd_tricks and the same value for every legal move."""
    rules = load_rules(variant)
    rng = random.Random(variant)
    checked = 0
    for contract in CONTRACTS:
        if contract not in rules.bid_index:
            continue
        for i in range(6):
            left = rng.randrange(2, 6 if rules.players < 6 else 4)
            pagat_nt = rules.joker_no_trump == "pagat" and "NT" in contract
            naming = rng.choice((-1, -1, 0, 2)) if pagat_nt else -1
            state = ending(variant, contract, rng.getrandbits(32), left, naming, mid=i % 2 == 1)
            if state.done:
                continue
            pos = Position.from_state(state)
            pure, c = _both(pos)
            assert pure == c, (variant, contract, i, pos)
            checked += 1
    assert checked >= 12


@needs_c
@pytest.mark.parametrize("variant", ["pagat-au", "two-jokers", "three-player", "north-american"])
def test_backends_agree_from_the_opening_lead(variant: str) -> None:
    """Full deals from the opening lead (the benchmark's positions: suit, NT, misère) and the position
    after the opening lead and a card or two: the same values."""
    import sys

    sys.path.insert(0, str(ROOT))
    from benchmarks.dd import opening_positions

    rules = load_rules(variant)
    for pos in opening_positions(rules, 6, 11):
        pure, c = _both(pos)
        assert pure == c, (variant, pos)


@needs_c
def test_c_lead_nodes_count_the_c_search_only() -> None:
    """The C search's node counter grows with each C solve and not with a pure one."""
    state = ending("pagat-au", "8D", 5, 5, -1, mid=False)
    pos = Position.from_state(state)
    before = dd.c_lead_nodes()
    dd_tricks(pos)
    after_c = dd.c_lead_nodes()
    assert after_c > before
    previous = dd.use_backend("pure")
    try:
        dd_tricks(pos)
    finally:
        dd.use_backend(previous)
    assert dd.c_lead_nodes() == after_c


def test_use_backend_refuses_unknown_names() -> None:
    with pytest.raises(ValueError, match="unknown DD backend"):
        dd.use_backend("fortran")
    assert dd.backend() in ("c", "pure")


def test_pure_env_forces_the_pure_search() -> None:
    """FIVEHUNDRED_PURE=1 runs the pure search (the C extension is not even imported)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, FIVEHUNDRED_PURE="1")
    out = subprocess.run(
        [sys.executable, "-c", "from fivehundred.sim import dd; print(dd.backend(), dd.backend_reason())"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout.strip()  # fmt: skip
    assert out == "pure FIVEHUNDRED_PURE is set"


_VARIANTS = ("pagat-au", "club-004", "north-american", "nullo", "two-jokers", "three-player", "six-player")


@needs_c
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(_VARIANTS),
    contract=st.sampled_from(CONTRACTS),
    seed=st.integers(0, 2**32 - 1),
    left=st.integers(2, 7),
    naming=st.sampled_from((-1, 0, 3)),
    mid=st.booleans(),
)
@example(variant="pagat-au", contract="8NT", seed=7, left=7, naming=-1, mid=False)  # 7 tricks left: 7
@example(variant="two-jokers", contract="9H", seed=3, left=6, naming=-1, mid=True)
def test_backends_agree_property(
    variant: str, contract: str, seed: int, left: int, naming: int, mid: bool
) -> None:
    """Random positions of up to 7 tricks (where the C search's partition transposition table shares
    entries between positions that differ in low cards only): C and pure give the same dd_tricks and
    move values."""
    rules = load_rules(variant)
    if contract not in rules.bid_index:
        return
    if rules.players == 6:
        left = min(left, 3)
    if not (rules.joker_no_trump == "pagat" and "NT" in contract):
        naming = -1
    state = ending(variant, contract, seed, left, naming, mid)
    if state.done:
        return
    pos = Position.from_state(state)
    pure, c = _both(pos)
    assert pure == c, pos
    if (variant, contract, seed, left, mid) == ("pagat-au", "8NT", 7, 7, False):
        assert pure[0] == 7
