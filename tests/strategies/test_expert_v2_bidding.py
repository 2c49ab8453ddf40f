"""expert.v2's bidding: a suit or NT contract valued by double-dummy solves of the bidding deals
(``bid_dd_worlds``), read ``bid_dd_shift`` tricks lower and mixed with v1's rollouts by ``bid_dd_mix``;
misère valued by the rollouts as in v1; with ``bid_dd_worlds=0``, v1's calls."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as hs

from fivehundred.sim import load_rules
from fivehundred.sim.dd import Position, dd_tricks
from fivehundred.sim.engine import BID, JOKER, KITTY, PASS, PLAY, State
from fivehundred.sim.rng import Rng
from fivehundred.strategies import expert_bidding
from fivehundred.strategies.base import StrategyConfigError, make
from fivehundred.strategies.expert import Expert2Strategy, side_points
from fivehundred.strategies.expert_bidding import bid_value, contract_dd_tricks, contract_tricks
from tests.strategies.helpers import auction_states


def test_the_parameters_are_v2s_and_validated() -> None:
    bot = make("expert.v2(bid_dd_worlds=30, bid_dd_shift=0.25, bid_dd_mix=0.5)")
    assert (bot.bid_dd_worlds, bot.bid_dd_shift, bot.bid_dd_mix) == (30, 0.25, 0.5)
    with pytest.raises(StrategyConfigError, match="bid_dd_mix"):
        make("expert.v2(bid_dd_mix=1.5)")
    with pytest.raises(StrategyConfigError, match="bid_dd_worlds"):
        make("expert.v1(bid_dd_worlds=5)")  # v1 has no such parameter


@pytest.mark.parametrize("variant", ["pagat-au", "three-player", "nullo"])
def test_dd_tricks_are_the_solve_of_the_deal_after_v2s_discard_and_naming(variant: str) -> None:
    """On a deal, a contract's DD tricks are the solver's value at the opening lead of the engine's own
    deal with the contract forced and heuristic.v2's discard and joker naming (misère: 0 or 1)."""
    rules = load_rules(variant)
    v2 = make("heuristic.v2")
    checked = 0
    for state in auction_states(variant, 3):
        view = state.view(state.turn)
        for b in rules.ladder[:: max(1, len(rules.ladder) // 6)]:
            got = contract_dd_tricks(view, list(state.hands), state.kitty, b.code, view.seat, v2)
            st = State(rules, list(state.hands), state.kitty, state.dealer)
            st.scores, st.hand_no = state.scores, state.hand_no
            st.force_contract(b.code, view.seat)
            while st.phase in (KITTY, JOKER):
                seat = st.turn
                pick = v2.discard if st.phase == KITTY else v2.name_joker
                st.apply(pick(st.view(seat), st.legal_actions(), Rng(seat)))
            assert st.phase == PLAY
            assert got == dd_tricks(Position.from_state(st))
            assert 0 <= got <= (1 if b.misere else rules.hand_size)
            checked += 1
    assert checked > 10


class _Fixed:
    """A stand-in for the bidding deals: every deal's rollout takes ``rolled`` tricks and its DD
    solve ``solved``; the deals asked are recorded."""

    def __init__(self, rolled: int, solved: int) -> None:
        self.rolled, self.solved = rolled, solved
        self.asked: list[tuple[str, int]] = []

    def tricks(self, view, i, code, declarer, bot, roller):  # type: ignore[no-untyped-def]
        self.asked.append(("rollout", i))
        return self.rolled

    def dd_tricks(self, view, i, code, declarer, bot):  # type: ignore[no-untyped-def]
        self.asked.append(("dd", i))
        return self.solved


@given(
    rolled=hs.integers(0, 10),
    solved=hs.integers(0, 10),
    mix=hs.sampled_from([0.0, 0.25, 0.5, 1.0]),
    shift=hs.sampled_from([0.0, 0.5, 1.0]),
    code=hs.sampled_from(["6S", "7H", "8NT", "10C", "MIS", "OMIS"]),
)
# Read half a trick lower: half at 7 (made, 200 - 30) and half at 6 (failed, -200 - 40): -35.
@example(rolled=10, solved=7, mix=1.0, shift=0.5, code="7H")
# The rollout's share read half a trick higher (bid_shift -0.5): 10 tricks, the slam floor 250 - 0.
@example(rolled=10, solved=7, mix=0.5, shift=0.0, code="7H")
# Misère: the rollout only, whatever the mix (0 tricks: made, 250).
@example(rolled=0, solved=1, mix=1.0, shift=0.0, code="MIS")
@settings(max_examples=150, deadline=None)
def test_a_contracts_worth_mixes_the_dd_value_and_the_rollouts(
    rolled: int, solved: int, mix: float, shift: float, code: str
) -> None:
    rules = load_rules("pagat-au")
    view = next(auction_states("pagat-au", 1)).view(0)
    contract = rules.bid(code)
    bot = Expert2Strategy(bid_dd_worlds=2, bid_dd_mix=mix, bid_dd_shift=shift)
    chosen = [(1.0, 0), (3.0, 1), (2.0, 2)]
    worlds = _Fixed(rolled, solved)
    got = bot.contract_value(view, worlds, chosen, contract, 0, code)  # type: ignore[arg-type]
    rollout_v = bid_value(rules, contract, [(w, rolled) for w, _ in chosen], bot.bid_shift, side_points)
    dd_v = bid_value(rules, contract, [(w, solved) for w, _ in chosen[:2]], shift, side_points)
    share = 0.0 if contract.misere else mix
    assert got == pytest.approx((1.0 - share) * rollout_v + share * dd_v)
    assert ("dd", 2) not in worlds.asked  # DD on the bid_dd_worlds likeliest only
    assert (("rollout", 0) in worlds.asked) == (share < 1.0)
    assert (("dd", 0) in worlds.asked) == (share > 0.0)
    pins = {
        (10, 7, 1.0, 0.5, "7H"): -35.0,
        (10, 7, 0.5, 0.0, "7H"): 0.5 * 250 + 0.5 * (200 - 30),
        (0, 1, 1.0, 0.0, "MIS"): 250.0,
    }
    key = (rolled, solved, mix, shift, code)
    if key in pins:
        assert got == pytest.approx(pins[key])


def test_the_bid_is_the_best_call_by_dd_on_the_true_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Given one world (the true deal) and the DD valuation alone, the bid is the candidate call of
    best points by the deal's DD solve (misère by heuristic.v2's rollout), or PASS when none beats
    passing (``pass_value`` 0 with no bid held, else the held contract's worth, valued alike)."""
    rules = load_rules("pagat-au")
    v2 = make("heuristic.v2")
    checked = bids = 0
    for k, state in enumerate(auction_states("pagat-au", 14)):
        if k % 2:
            continue
        bot = Expert2Strategy(
            bid_worlds=1, bid_reach=5.0, bid_margin=0.0, infer=False, bid_dd_worlds=1, bid_dd_shift=0.0
        )
        view = state.view(state.turn)
        legal = state.legal_actions()
        monkeypatch.setattr(expert_bidding, "sample_deal", lambda v, r, st=state: (list(st.hands), st.kitty))
        got = bot.bid(view, legal, Rng(k))

        def tricks(code: str, declarer: int, view=view, st=state) -> int:  # type: ignore[no-untyped-def]
            hands = list(st.hands)
            if rules.bid(code).misere:
                return contract_tricks(view, hands, st.kitty, code, declarer, v2, v2)
            return contract_dd_tricks(view, hands, st.kitty, code, declarer, v2)

        held = view.high_bid
        if held is None:
            pass_v = 0.0
        else:
            pass_v = side_points(rules, held, tricks(held.code, view.high_bidder))
            pass_v = pass_v if view.high_bidder % 2 == view.seat % 2 else -pass_v
        values = {}
        for group in bot.bid_candidates(view, legal, v2.bid(view, legal, Rng(0))):
            first = rules.ladder[group[0] - BID]
            for a in group:  # a denomination's bids share the solve of its cheapest candidate
                b = rules.ladder[a - BID]
                values[a] = side_points(rules, b, tricks(b.code if b.misere else first.code, view.seat))
        best = max(values.values(), default=pass_v)
        if got == PASS:
            assert best <= pass_v + 1e-9
        else:
            bids += 1
            assert values[got] == pytest.approx(best) and best > pass_v
        checked += 1
    assert checked > 5 and bids > 0


def test_the_default_values_suit_contracts_by_dd_on_fifty_deals_and_misere_by_rollouts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``expert.v2`` as it comes: a suit or NT contract is valued by DD solves on the 50 likeliest
    of its 100 bidding deals and never rolled out; a misère bid by rollouts on the 100."""
    rules = load_rules("pagat-au")
    asked: list[tuple[str, str]] = []
    real_dd, real_roll = expert_bidding.contract_dd_tricks, expert_bidding.contract_tricks

    def dd(view, hands, kitty, code, declarer, bot):  # type: ignore[no-untyped-def]
        asked.append(("dd", code))
        return real_dd(view, hands, kitty, code, declarer, bot)

    def roll(view, hands, kitty, code, declarer, bot, roller):  # type: ignore[no-untyped-def]
        asked.append(("rollout", code))
        return real_roll(view, hands, kitty, code, declarer, bot, roller)

    monkeypatch.setattr(expert_bidding, "contract_dd_tricks", dd)
    monkeypatch.setattr(expert_bidding, "contract_tricks", roll)
    kinds: set[tuple[str, bool]] = set()
    for k, state in enumerate(auction_states("pagat-au", 4)):
        view = state.view(state.turn)
        if view.high_bidder is not None and view.high_bidder == view.seat:
            continue
        asked.clear()
        make("expert.v2").bid(view, state.legal_actions(), Rng(k))
        counts: dict[tuple[str, str], int] = {}
        for key in asked:
            counts[key] = counts.get(key, 0) + 1
        for (how, code), n in counts.items():
            misere = rules.bid(code).misere
            assert (how, n) == (("rollout", 100) if misere else ("dd", 50)), (how, code, n)
            kinds.add((how, misere))
    assert kinds == {("dd", False), ("rollout", True)}, "a kind of contract was never valued"


def test_with_bid_dd_worlds_0_it_solves_nothing_and_calls_as_v1(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a DD solve in the bidding with bid_dd_worlds=0")

    monkeypatch.setattr(expert_bidding, "contract_dd_tricks", refuse)
    small = "bid_worlds=6, bid_pool=2, bid_reach=5.0"
    checked = 0
    for k, st in enumerate(auction_states("pagat-au", 6)):
        view, legal = st.view(st.turn), st.legal_actions()
        got = make(f"expert.v2(bid_dd_worlds=0, {small})").bid(view, legal, Rng(k))
        assert got == make(f"expert.v1({small})").bid(view, legal, Rng(k))
        checked += 1
    assert checked > 10
