"""The C solver (sim/_ddc.c, the one second copy of the trick's rules) against the plain reference
search over the engine's own State (tests/sim/dd_reference.py), on every shipped variant: trick
boundaries and mid-trick, suit, no trumps with and without a named joker, misère; its bounds never
claim more than DD play gives; every set of techniques gives the same values."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fivehundred.sim import available_variants, dd, load_rules
from fivehundred.sim.dd import Position, dd_tricks, dd_tricks_many, move_values
from tests.sim.dd_reference import ending, reference_tricks, require_solver

SHIPPED = tuple(sorted(available_variants()))
CONTRACTS = ("6S", "7C", "8D", "9H", "7NT", "8NT", "MIS", "OMIS", "BMIS")


@pytest.fixture(autouse=True)
def _solver() -> None:
    require_solver()


def _position(variant: str, contract: str, seed: int, left: int, naming: int, mid: bool):  # type: ignore[no-untyped-def]
    """The ending's state and position, or None when the contract is not in the variant or the deal
    ended early; no trumps naming only where the declarer names a joker; 6 players: 2 tricks."""
    rules = load_rules(variant)
    if contract not in rules.bid_index:
        return None
    if rules.players == 6:
        left = min(left, 2)
    if not (rules.joker_no_trump == "pagat" and "NT" in contract):
        naming = -1
    state = ending(variant, contract, seed, left, naming, mid)
    if state.done:
        return None
    return state, Position.from_state(state)


def _agrees(variant: str, contract: str, seed: int, left: int, naming: int, mid: bool) -> int | None:
    """dd_tricks and every move value equal the reference's; the value (None: nothing to check)."""
    made = _position(variant, contract, seed, left, naming, mid)
    if made is None:
        return None
    state, pos = made
    want = reference_tricks(state)
    assert dd_tricks(pos) == want, (variant, contract, seed, left, naming, mid)
    values = move_values(pos)
    assert set(values) == set(state.legal_actions())
    for action, value in values.items():
        child = state.clone()
        child.apply(action)
        assert value == reference_tricks(child), (variant, contract, seed, action)
    return want


@pytest.mark.parametrize("variant", SHIPPED)
def test_every_variant_and_kind_agrees_with_the_reference(variant: str) -> None:
    """Each shipped variant, each kind of contract it has: a trick boundary and a mid-trick ending of
    three tricks (two at six players), the named joker where the declarer names one."""
    checked = 0
    for i, contract in enumerate(CONTRACTS):
        for mid in (False, True):
            naming = (0, 2)[i % 2] if mid else -1
            if _agrees(variant, contract, 17 + i, 3, naming, mid) is not None:
                checked += 1
    assert checked >= 8


_HYP = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_HYP
@given(
    variant=st.sampled_from(SHIPPED),
    contract=st.sampled_from(CONTRACTS),
    seed=st.integers(0, 2**32 - 1),
    left=st.integers(2, 3),
    naming=st.sampled_from((-1, 0, 3)),
    mid=st.booleans(),
)
@example(variant="pagat-au", contract="8NT", seed=7, left=3, naming=-1, mid=False)  # value 6, below
@example(variant="two-jokers", contract="9H", seed=3, left=3, naming=-1, mid=True)
@example(variant="pagat-au", contract="6NT", seed=11, left=3, naming=0, mid=True)  # a named joker
def test_solver_matches_the_reference(
    variant: str, contract: str, seed: int, left: int, naming: int, mid: bool
) -> None:
    """Random endings of every shipped variant: the same DD value and move values as the reference."""
    value = _agrees(variant, contract, seed, left, naming, mid)
    if (variant, contract, seed, left, mid) == ("pagat-au", "8NT", 7, 3, False):
        assert value == 6


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(SHIPPED),
    contract=st.sampled_from(CONTRACTS),
    seed=st.integers(0, 2**32 - 1),
    left=st.just(4),
    naming=st.sampled_from((-1, 0, 3)),
    mid=st.booleans(),
)
def test_solver_matches_the_reference_on_longer_endings(
    variant: str, contract: str, seed: int, left: int, naming: int, mid: bool
) -> None:
    """The same on endings of four tricks (a second or more each for the reference)."""
    _agrees(variant, contract, seed, left, naming, mid)


@_HYP
@given(
    variant=st.sampled_from(SHIPPED),
    contract=st.sampled_from(CONTRACTS[:6]),
    seed=st.integers(0, 2**32 - 1),
    left=st.integers(2, 6),
    naming=st.sampled_from((-1, 1)),
)
@example(variant="pagat-au", contract="8D", seed=4, left=5, naming=-1)  # sure 2 and 1 of 5, value 4
def test_bounds_never_claim_more_than_dd_play(
    variant: str, contract: str, seed: int, left: int, naming: int
) -> None:
    """The sure tricks the search prunes with (power cards, quick tricks) are at most what each side
    takes under DD play; checked by the reference up to three tricks, by the solver beyond."""
    made = _position(variant, contract, seed, left, naming, False)
    if made is None:
        return
    state, pos = made
    sure = dd.bounds(pos)
    assert sure is not None
    ours = (reference_tricks(state) if pos.tricks_left <= 3 else dd_tricks(pos)) - pos.declarer_tricks
    assert sure[0] <= ours <= pos.tricks_left - sure[1], (sure, ours, pos)
    if (variant, contract, seed, left, naming) == ("pagat-au", "8D", 4, 5, -1):
        assert sure == (2, 1) and ours == 4


def test_every_technique_set_gives_the_same_values() -> None:
    """Switching techniques off (what the benchmark measures) changes the work, never a value."""
    cases = [("pagat-au", "8H", 1, 5), ("pagat-au", "7NT", 2, 5), ("two-jokers", "8NT", 3, 4)]
    cases += [("three-player", "9S", 4, 5), ("pagat-au", "MIS", 5, 5), ("six-player", "7NT", 6, 3)]
    positions = [p for c in cases if (p := _position(*c, -1, False)) is not None]
    every = dd.techniques()
    try:
        want = [dd_tricks(pos) for _, pos in positions]
        for name in every:
            dd.techniques([t for t in every if t != name])
            assert [dd_tricks(pos) for _, pos in positions] == want, name
        dd.techniques(["runs"])  # nearly a plain alpha-beta
        assert [dd_tricks(pos) for _, pos in positions] == want
    finally:
        dd.techniques(every)
    assert dd.techniques() == every
    with pytest.raises(ValueError, match="unknown DD technique"):
        dd.techniques(["magic"])
    for (_, pos), value in zip(positions, want, strict=True):  # where the search starts changes nothing
        assert {dd_tricks(pos, g) for g in (0, value, pos.tricks_played + pos.tricks_left, 99)} == {value}


def test_a_table_of_one_deal_shares_its_search() -> None:
    """dd_tricks_many gives each position's dd_tricks (the positions of three deals, every seat, three
    denominations), and it keeps the search's table between positions of one card order: the same
    cards counted for the other side are then read off the table (mirrored), not searched again."""
    from dataclasses import replace

    from fivehundred.pipelines.dd_deals import deal_table
    from fivehundred.sim import State

    rules = load_rules("pagat-au")
    flat = []
    for seed in (2024, 2025, 2026):
        state = State.deal(rules, seed, 0)
        table = deal_table(rules, list(state.hands), state.kitty, 0, ("6S", "6NT", "MIS"))
        flat += [pos for row in table for pos in row]
    assert dd_tricks_many(flat) == [dd_tricks(pos) for pos in flat]
    pos = flat[0]
    other = replace(pos, declarer=(pos.declarer + 1) % 4)  # the same cards, the defenders declaring
    n0 = dd.lead_nodes()
    ours = dd_tricks(pos)
    n1 = dd.lead_nodes()
    both = dd_tricks_many([pos, other])
    n2 = dd.lead_nodes()
    assert both == [ours, 10 - ours]
    assert n2 - n1 < (n1 - n0) * 1.01 + 1  # the second solve of the pair costs (next to) nothing
