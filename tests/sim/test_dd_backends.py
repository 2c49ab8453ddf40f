"""The C search (sim/_ddc.c) and the pure-Python search of sim/dd.py give identical answers."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

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
