"""expert.v1's valued bidding: the sampled deals agree with the view, a contract's value on a deal is
the engine's own deal played by heuristic.v2, the bid is the best-valued call and depends on nothing
hidden, switched off it bids as heuristic.v2; the DD joker naming."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as hs

from fivehundred.sim import load_rules, play_game
from fivehundred.sim.dd import Position, dd_tricks
from fivehundred.sim.engine import BID, DONE, JOKER, KITTY, PASS, State
from fivehundred.sim.game import new_deal, play_deal
from fivehundred.sim.rng import Rng
from fivehundred.strategies.base import make
from fivehundred.strategies.expert import ExpertStrategy, side_points
from fivehundred.strategies.expert_bidding import bid_value, contract_tricks, deal_key
from fivehundred.strategies.sampling import sample_deal
from fivehundred.strategies.tables import rules_info
from tests.strategies.helpers import auction_states, shuffle_hidden

#: A small valued bidding for the tests: a dozen worlds, every denomination in reach.
BIDDER = "expert(bid_worlds=12, bid_pool=2, bid_reach=5.0, search_tricks=0, bid_shift=-0.5)"


@pytest.mark.parametrize("variant", ["pagat-au", "three-player", "six-player", "two-jokers"])
def test_sampled_deals_agree_with_the_view(variant: str) -> None:
    rules = load_rules(variant)
    full = rules_info(rules).full
    checked = 0
    for k, state in enumerate(auction_states(variant, 4)):
        view = state.view(state.turn)
        hands, kitty = sample_deal(view, Rng(k))
        assert hands[view.seat] == view.hand
        assert all(h.bit_count() == rules.hand_size for h in hands)
        assert kitty.bit_count() == rules.kitty_size
        union = kitty
        for h in hands:
            assert not union & h  # no card twice
            union |= h
        assert union == full
        checked += 1
    assert checked > 5


def test_deals_differ_between_draws_and_repeat_with_the_rng() -> None:
    view = next(auction_states("pagat-au", 1)).view(1)
    draws = {tuple(sample_deal(view, Rng(s))[0]) for s in range(20)}
    assert len(draws) == 20
    assert sample_deal(view, Rng(3)) == sample_deal(view, Rng(3))


@given(
    tricks=hs.lists(hs.tuples(hs.floats(0.1, 5.0), hs.integers(0, 10)), min_size=1, max_size=6),
    shift=hs.floats(0.0, 3.0),
    code=hs.sampled_from(["6S", "7H", "8NT", "10C", "MIS", "OMIS"]),
)
@example(tricks=[(1.0, 6), (1.0, 5)], shift=0.0, code="6S")  # made 40 - 40, failed -40 - 50: mean -45
@example(tricks=[(1.0, 10)], shift=1.0, code="7H")  # read one lower: 9 tricks, 200 - 10 = 190
@example(tricks=[(1.0, 10)], shift=1.5, code="7H")  # half at 9 (190), half at 8 (200 - 20): 185
@example(tricks=[(3.0, 1)], shift=2.5, code="6S")  # never under 0 tricks: -40 - 100
@settings(max_examples=200, deadline=None)
def test_bid_value_is_the_weighted_mean_of_the_points(
    tricks: list[tuple[float, int]], shift: float, code: str
) -> None:
    rules = load_rules("pagat-au")
    b = rules.bid(code)
    if b.misere:
        tricks = [(w, min(t, 1)) for w, t in tricks]
    got = bid_value(rules, b, tricks, shift, side_points)
    total = sum(w for w, _ in tricks)
    if b.misere:
        assert got == pytest.approx(sum(w * side_points(rules, b, t) for w, t in tricks) / total)
    else:
        k, part = int(shift), shift - int(shift)

        def mean(drop: int) -> float:
            return sum(w * side_points(rules, b, max(t - drop, 0)) for w, t in tricks) / total

        assert got == pytest.approx((1 - part) * mean(k) + part * mean(k + 1))
        assert got <= mean(0) + 1e-9  # reading lower never values a contract higher
    pinned = {
        ((1.0, 6), (1.0, 5), 0.0, "6S"): -45.0,
        ((1.0, 10), 1.0, "7H"): 190.0,
        ((1.0, 10), 1.5, "7H"): 185.0,
        ((3.0, 1), 2.5, "6S"): -140.0,
    }
    key = (*tricks, shift, code)
    if key in pinned:
        assert got == pytest.approx(pinned[key])


@pytest.mark.parametrize("variant", ["pagat-au", "three-player", "nullo"])
def test_rollout_tricks_are_the_engines_deal_with_heuristic_v2_everywhere(variant: str) -> None:
    """With a roller, a contract's tricks on a deal are those the engine's own deal loop gives with
    the contract forced on the declarer and heuristic.v2 in every seat (discard, naming and play);
    misère is 0 made, 1 failed."""
    rules = load_rules(variant)
    v2 = make("heuristic.v2")
    checked = 0
    for state in auction_states(variant, 3):
        view = state.view(state.turn)
        for b in rules.ladder[:: max(1, len(rules.ladder) // 6)]:
            got = contract_tricks(view, list(state.hands), state.kitty, b.code, view.seat, v2, v2)
            st = State(rules, list(state.hands), state.kitty, state.dealer)
            st.scores, st.hand_no = state.scores, state.hand_no
            st.force_contract(b.code, view.seat)
            play_deal(st, [v2] * rules.players, [Rng(s) for s in range(rules.players)])
            won = st.declarer_tricks()
            assert won is not None
            assert got == (min(won, 1) if b.misere else won)
            checked += 1
    assert checked > 10


@given(
    tricks=hs.lists(hs.tuples(hs.floats(0.1, 5.0), hs.integers(0, 10)), min_size=1, max_size=6),
    shift=hs.floats(-3.0, 0.0),
    code=hs.sampled_from(["6S", "7H", "8NT", "10C"]),
)
@example(tricks=[(1.0, 9)], shift=-1.0, code="7H")  # read one higher: 10 tricks, the slam floor 250
@example(tricks=[(1.0, 10)], shift=-1.0, code="7H")  # never over the hand size: still 250
@example(tricks=[(1.0, 6)], shift=-0.5, code="7H")  # half at 6 (-200 - 40), half at 7 (200 - 30): -35
@settings(max_examples=200, deadline=None)
def test_a_negative_shift_reads_the_tricks_higher(
    tricks: list[tuple[float, int]], shift: float, code: str
) -> None:
    rules = load_rules("pagat-au")
    b = rules.bid(code)
    got = bid_value(rules, b, tricks, shift, side_points)
    total = sum(w for w, _ in tricks)

    def mean(up: int) -> float:
        return sum(w * side_points(rules, b, min(t + up, rules.hand_size)) for w, t in tricks) / total

    k = math.ceil(-shift)
    part = k + shift  # the share read one trick less high than k
    assert got == pytest.approx((1 - part) * mean(k) + part * mean(k - 1))
    assert got >= mean(0) - 1e-9  # reading higher never values a contract lower
    pinned = {((1.0, 9), -1.0, "7H"): 250.0, ((1.0, 10), -1.0, "7H"): 250.0, ((1.0, 6), -0.5, "7H"): -35.0}
    key = (*tricks, shift, code)
    if key in pinned:
        assert got == pytest.approx(pinned[key])


@pytest.mark.parametrize(
    ("variant", "spec"),
    [
        ("pagat-au", BIDDER),
        ("pagat-au", "expert(bid_worlds=3, bid_pool=2, search_tricks=0)"),
        ("six-player", BIDDER),
        ("three-player", BIDDER),
    ],
)
def test_the_bid_ignores_hidden_cards(variant: str, spec: str) -> None:
    """Two deals that differ only in cards the seat cannot see give the same bid for the same rng (a
    fresh bot each time: no memory of the other deal), and the valued bid is not always heuristic.v2's."""
    rng = random.Random(2)
    checked = differs = 0
    for k, state in enumerate(auction_states(variant, 5 if variant != "six-player" else 3)):
        if k % 2:
            continue
        seat = state.turn
        legal = state.legal_actions()
        answers = set()
        for _ in range(2):
            other = shuffle_hidden(state, seat, rng)
            assert other.hands != state.hands or other.kitty != state.kitty
            answers.add(make(spec).bid(other.view(seat), legal, Rng(k)))
        answers.add(make(spec).bid(state.view(seat), legal, Rng(k)))
        assert len(answers) == 1
        differs += answers != {make("heuristic.v2").bid(state.view(seat), legal, Rng(k))}
        checked += 1
    assert checked > 5
    if variant == "pagat-au" and spec == BIDDER:
        assert differs > 0


def test_a_seat_solves_its_deals_once_per_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A later call of the seat in the same deal re-weighs the same sampled deals and solves nothing
    twice; a new deal draws new ones."""
    import fivehundred.strategies.expert_bidding as eb

    solves: list[tuple[int, str, int]] = []
    real = eb.contract_tricks

    def counting(view, hands, kitty, code, declarer, bot, roller):  # type: ignore[no-untyped-def]
        solves.append((hands[0], code, declarer))
        return real(view, hands, kitty, code, declarer, bot, roller)

    monkeypatch.setattr(eb, "contract_tricks", counting)
    bot = make(BIDDER)
    state = next(auction_states("pagat-au", 1))
    view = state.view(state.turn)
    legal = state.legal_actions()
    bot.bid(view, legal, Rng(1))
    first = len(solves)
    assert first > 0 and len(set(solves)) == first
    bot.bid(view, legal, Rng(2))  # the same decision again: everything is cached
    assert len(solves) == first
    assert bot._bidding[view.seat].key == deal_key(view)


def test_the_default_bidding_values_rollouts_of_a_hundred_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """``expert`` as it comes: each candidate contract is valued by a heuristic.v2 rollout on the 100
    most likely of its deals, misère bids too, and it also chooses the denomination (not only v2's)."""
    import fivehundred.strategies.expert_bidding as eb

    asked: list[tuple[str, int, object]] = []
    real = eb.contract_tricks

    def counting(view, hands, kitty, code, declarer, bot, roller):  # type: ignore[no-untyped-def]
        asked.append((code, declarer, roller))
        return real(view, hands, kitty, code, declarer, bot, roller)

    monkeypatch.setattr(eb, "contract_tricks", counting)
    rules = load_rules("pagat-au")
    denominations = set()
    miseres: set[str] = set()
    for state in auction_states("pagat-au", 4):
        bot = make("expert")
        view = state.view(state.turn)
        legal = state.legal_actions()
        if len(legal) < 2 or (view.high_bidder is not None and view.high_bidder == view.seat):
            continue
        asked.clear()
        bot.bid(view, legal, Rng(3))
        by_code: dict[str, int] = {}
        for code, declarer, roller in asked:
            assert roller is bot.roller
            by_code[code] = by_code.get(code, 0) + 1
            if rules.bid(code).misere and declarer == view.seat:
                miseres.add(code)
        assert all(n == 100 for n in by_code.values())
        denominations |= {rules.bid(c).trump for c in by_code if not rules.bid(c).misere}
    assert len(denominations) > 1
    assert miseres, "no misère bid of the seat's own was rolled out: the test proved nothing of it"


def test_without_the_valued_bidding_every_call_is_heuristic_v2s() -> None:
    """``bid_worlds=0`` (and a table over ``bid_cards``) turns the valued bidding off: every call is
    v2's (the play search is unchanged)."""
    checked = 0
    for variant, spec in (
        ("pagat-au", "expert(bid_worlds=0, bid_boost=0)"),
        ("two-jokers", "expert(bid_worlds=5, bid_cards=39, bid_boost=0)"),
    ):
        bot, v2 = make(spec), make("heuristic.v2")
        for k, state in enumerate(auction_states(variant, 12)):
            view = state.view(state.turn)
            legal = state.legal_actions()
            assert bot.bid(view, legal, Rng(k)) == v2.bid(view, legal, Rng(k))
            checked += 1
    assert checked > 40


def test_the_bid_is_the_best_valued_call_on_the_true_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Given one world (the true deal), the bid is the candidate call of best points by heuristic.v2's
    rollout, or PASS when none beats passing (``pass_value`` 0 with no bid held, else the held
    contract's worth); a misère bid is made when its rollout gives the declarer no trick."""
    rules = load_rules("pagat-au")
    v2 = make("heuristic.v2")
    checked = bids = miseres = 0
    for k, state in enumerate(auction_states("pagat-au", 40)):
        if k % 2:
            continue
        bot = ExpertStrategy(
            bid_worlds=1,
            bid_reach=5.0,
            bid_shift=0.0,
            bid_margin=0.0,
            infer=False,
        )
        view = state.view(state.turn)
        legal = state.legal_actions()
        monkeypatch.setattr(
            "fivehundred.strategies.expert_bidding.sample_deal",
            lambda v, r, st=state: (list(st.hands), st.kitty),
        )
        got = bot.bid(view, legal, Rng(k))

        solved: dict[tuple[int, int], int] = {}  # (declarer, denomination or -1 misère) -> tricks

        def points(code: str, declarer: int, view=view, st=state, solved=solved) -> float:  # type: ignore[no-untyped-def]
            b = rules.bid(code)
            key = (declarer, b.code if b.misere else b.trump)
            if key not in solved:
                solved[key] = contract_tricks(view, list(st.hands), st.kitty, code, declarer, v2, v2)
            return side_points(rules, b, solved[key])

        if view.high_bid is None:
            pass_v = 0.0
        else:
            pass_v = points(view.high_bid.code, view.high_bidder)
            pass_v = pass_v if view.high_bidder % 2 == view.seat % 2 else -pass_v
        values = {
            a: points(rules.ladder[a - BID].code, view.seat)
            for group in bot.bid_candidates(view, legal, v2.bid(view, legal, Rng(0)))
            for a in group
        }
        best = max(values.values(), default=pass_v)
        if got == PASS:
            assert best <= pass_v + 1e-9
        else:
            bids += 1
            assert values[got] == best > pass_v
        checked += 1
        miseres += any(rules.ladder[a - BID].misere for a in values)
    assert checked > 5 and bids > 0
    assert miseres > 0, "no misère was valued: the test proved nothing of it"


@pytest.mark.parametrize("variant", ["pagat-au", "three-player", "six-player", "two-jokers", "nullo"])
def test_the_valued_bidding_plays_whole_games_reproducibly(variant: str) -> None:
    rules = load_rules(variant)
    spec = "expert(worlds=2, pool=2, search_tricks=3, bid_worlds=2, bid_pool=2)"

    def game() -> list[dict]:
        bots = [make(spec) if s % rules.teams == 0 else make("heuristic") for s in range(rules.players)]
        return play_game(rules, bots, 9, 0)

    first = game()
    assert first and (first[-1]["winner"] is not None or len(first) >= rules.deal_limit)
    assert all(r["contract"] is None or r["plays"] for r in first)
    assert game() == first


def test_state_phases_are_untouched_by_the_bidding() -> None:
    """Valuing contracts builds its own states: the view's deal goes on as before."""
    state = next(auction_states("pagat-au", 1))
    before = state.clone()
    bot = make(BIDDER)
    bot.bid(state.view(state.turn), state.legal_actions(), Rng(0))
    assert state.hands == before.hands and state.bids == before.bids and state.phase != DONE


def _naming_states(variant: str, deals: int):  # type: ignore[no-untyped-def]
    """JOKER-phase states: NT or misère forced on the seat dealt the joker, v2's discards made."""
    rules = load_rules(variant)
    v2 = make("heuristic.v2")
    joker = rules.deck.jokers[0]
    for d in range(deals):
        state, _ = new_deal(rules, 13, d, d % rules.players)
        holder = next((s for s in range(rules.players) if state.hands[s] >> joker & 1), None)
        if holder is None:
            continue  # the joker is in the kitty
        state.force_contract(("6NT", "7NT", "MIS")[d % 3], holder)
        while state.phase == KITTY:
            state.apply(v2.discard(state.view(holder), state.legal_actions(), Rng(0)))
        if state.phase == JOKER and len(state.legal_actions()) > 1:
            yield state


def test_sampled_deals_after_the_exchange_leave_out_the_known_discards() -> None:
    rules = load_rules("pagat-au")
    full = rules_info(rules).full
    checked = 0
    for k, state in enumerate(_naming_states("pagat-au", 12)):
        view = state.view(state.declarer)
        hands, kitty = sample_deal(view, Rng(k))
        assert kitty == 0 and hands[view.seat] == view.hand
        assert all(h.bit_count() == rules.hand_size for h in hands)
        union = 0
        for h in hands:
            assert not union & h
            union |= h
        assert union | view.discards == full and not union & view.discards
        checked += 1
    assert checked > 3


def test_joker_naming_ignores_hidden_cards_and_is_the_best_dd_naming_on_the_true_deal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rules = load_rules("pagat-au")
    rng = random.Random(4)
    checked = 0
    for k, state in enumerate(_naming_states("pagat-au", 24)):
        seat = state.declarer
        legal = state.legal_actions()
        spec = "expert(name_worlds=3, bid_pool=2)"
        answers = {
            make(spec).name_joker(shuffle_hidden(state, seat, rng).view(seat), legal, Rng(k))
            for _ in range(2)
        }
        answers.add(make(spec).name_joker(state.view(seat), legal, Rng(k)))
        assert len(answers) == 1
        # One world, the true deal: the naming of best DD points (v2's on ties).
        with monkeypatch.context() as m:
            m.setattr("fivehundred.strategies.expert.sample_deal", lambda v, r, st=state: (list(st.hands), 0))
            got = ExpertStrategy(name_worlds=1, infer=False).name_joker(state.view(seat), legal, Rng(k))
        values = {}
        for a in legal:
            st = state.clone()
            st.apply(a)
            values[a] = side_points(rules, st.contract, dd_tricks(Position.from_state(st)))
        assert values[got] == max(values.values())
        v2 = make("heuristic.v2").name_joker(state.view(seat), legal, Rng(0))
        assert got == v2 or values[got] > values[v2]
        checked += 1
    assert checked > 3
