"""``fivehundred hand``'s library: the hand and constraint parsers, the sampler, the DD numbers."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import fivehundred.tools.constraints as constraints_module
from fivehundred.pipelines.dd_deals import play_position
from fivehundred.sim import load_rules
from fivehundred.sim.dd import dd_tricks
from fivehundred.sim.engine import PASS, State
from fivehundred.sim.notation import action_name, bid_denomination
from fivehundred.sim.rng import NoRng, Rng
from fivehundred.sim.seeding import derive
from fivehundred.strategies import make
from fivehundred.tools.constraints import DealSampler, HandError, holder_name, parse_constraints
from fivehundred.tools.hand import (
    _HAND_KEY,
    BIDDERS,
    analyse_hand,
    parse_hand,
)

PAGAT = load_rules("pagat-au")
HAND = "JK JH JD AH KH QH TH 5C 5S 6D"


# ------------------------------------------------------------------------------------------ hands


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("JK JH JD AH KH QH TH 4C 5S 6D", "'4C' is not a card"),  # the black suits start at 5
        ("JK JH JD AH KH QH TH 5C 5S", "9 cards given, a hand of pagat-au has 10"),
        ("JK JH JD AH KH QH TH 5C 5S 6D 7D", "11 cards given"),
        ("JK JH JD AH KH QH TH 5C 5S JK", "JK is given twice"),
        ("JK JH JD AH KH QH TH 5C 5S 1D", "'1D' is not a card"),
        ("", "0 cards given"),
    ],
)
def test_bad_hands_are_refused(text: str, message: str) -> None:
    with pytest.raises(HandError, match=message):
        parse_hand(PAGAT, text)


def test_a_hand_is_read_in_any_case() -> None:
    assert parse_hand(PAGAT, HAND.lower()) == PAGAT.deck.mask(HAND)


def test_a_hand_of_another_table_has_its_size() -> None:
    three = load_rules("three-player")
    hand = "JK AS KS QS JS TS 9S 8S 7S AH"
    assert parse_hand(three, hand) == three.deck.mask(hand)
    with pytest.raises(HandError, match="'5S' is not a card"):
        parse_hand(three, "JK AS KS QS JS TS 9S 8S 7S 5S")


# ------------------------------------------------------------------------------------------ the language


def test_constraints_parse_to_conditions() -> None:
    conds = parse_constraints(PAGAT, 0, "partner: H>=3, no JK; kitty: S=0;; left: has AS; seat 3: D<2")
    got = [(c.holder, c.kind, c.suit, c.lo, c.hi, c.card) for c in conds]
    jk, as_ = PAGAT.deck.card("JK"), PAGAT.deck.card("AS")
    assert got == [
        (2, "length", 3, 3, 99, -1),
        (2, "no", -1, 0, 99, jk),
        (4, "length", 0, 0, 0, -1),
        (1, "has", -1, 0, 99, as_),
        (3, "length", 2, 0, 1, -1),
    ]
    assert [holder_name(PAGAT, 0, h) for h in (1, 2, 3, 4)] == ["left", "partner", "right", "kitty"]
    # every operator, case-insensitive words
    ops = parse_constraints(PAGAT, 1, "RIGHT: c>2, c<9, c<=8, c==5, c=5, c>=0; Kitty: No jk")
    assert [(c.lo, c.hi) for c in ops[:6]] == [(3, 99), (0, 8), (0, 8), (5, 5), (5, 5), (0, 99)]
    assert ops[0].holder == 0 and ops[6].holder == 4


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("partner H>=3", "expected 'holder: condition'"),
        ("north: H>=3", "'north' is not a holder"),
        ("seat 0: H>=3", "seat 0 is your own seat"),
        ("seat 9: H>=3", "no seat 9"),
        ("partner:", "no condition after ':'"),
        ("partner: H>=3,", "an empty condition"),
        ("partner: X>=3", "'X' is not a suit"),
        ("partner: NT>=3", "'NT' is not a suit"),
        ("partner: H>=many", "'many' is not a number"),
        ("partner: H>=-1", "'-1' is not a number"),
        ("partner: hearts", "is not a condition"),
        ("kitty: no 4C", "'4C' is not a card"),
        ("kitty: no JK AS", "takes one card"),
        ("kitty: has", "is not a condition"),
    ],
)
def test_bad_constraints_name_the_clause(text: str, message: str) -> None:
    with pytest.raises(HandError, match=message) as err:
        parse_constraints(PAGAT, 0, text)
    assert "constraints clause 1" in str(err.value)


def test_partner_needs_the_four_player_table() -> None:
    with pytest.raises(HandError, match="'partner' is for the 4-player table"):
        parse_constraints(load_rules("three-player"), 0, "partner: H>=1")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("partner: has AH", "AH is in your hand"),
        ("partner: has AS; left: has AS", "AS is placed with partner and left"),
        ("partner: has AS, no AS", "partner has AS and has not"),
        ("partner: no AS; left: no AS; right: no AS; kitty: no AS", "AS can be nowhere"),
        ("kitty: has AS, has KS, has QS, has JS", "4 cards placed with kitty, who holds 3"),
        ("kitty: S>=2, S<=1", "kitty cannot hold S both ways"),
        ("left: H>=7", "left needs 7 H, only 6 are out"),
        ("kitty: has AS, has KS, S<=1", "kitty has more S placed than allowed"),
        ("left: S>=5, C>=6", "left holds 10 cards, fewer than asked"),
        ("left: S=0, C=0, D=0", "left cannot be dealt 10 cards"),
        ("left: H>=3; right: H>=3; partner: H>=1", "more H asked for than the 6 out"),
        ("left: H<=1; right: H<=1; partner: H<=1; kitty: H<=2", "the 6 H out do not fit"),
    ],
)
def test_impossible_constraints_are_seen_before_dealing(text: str, message: str) -> None:
    conds = parse_constraints(PAGAT, 0, text)
    with pytest.raises(HandError, match=message):
        DealSampler(PAGAT, 0, PAGAT.deck.mask(HAND), conds)


def test_impossible_constraints_the_counts_miss_end_after_bounded_draws(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # AS may only be in the kitty, and the kitty holds no spade: no deal, but no count shows it
    monkeypatch.setattr(constraints_module, "MAX_ATTEMPTS", 300)
    conds = parse_constraints(PAGAT, 0, "partner: no AS; left: no AS; right: no AS; kitty: S=0")
    sampler = DealSampler(PAGAT, 0, PAGAT.deck.mask(HAND), conds)
    with pytest.raises(HandError, match="none of 300 random deals meets them"):
        sampler.sample(Rng(1))
    assert sampler.attempts == 300


# ------------------------------------------------------------------------------------------ sampling


def _holds(rules, hands, kitty, seat, cond) -> bool:  # type: ignore[no-untyped-def]
    """Whether one condition holds of a deal (written again here, from the rules' deck alone)."""
    cards = kitty if cond.holder == rules.players else hands[cond.holder]
    if cond.kind == "has":
        return bool(cards >> cond.card & 1)
    if cond.kind == "no":
        return not cards >> cond.card & 1
    n = sum(1 for c in range(rules.deck.size) if cards >> c & 1 and rules.deck.suit[c] == cond.suit)
    return cond.lo <= n <= cond.hi


@st.composite
def _deal_and_constraints(draw: st.DrawFn) -> tuple[int, list[int], int, str]:
    """A random deal, a seat, and constraints that this deal meets (so they can be met)."""
    rules = PAGAT
    order = draw(st.permutations(range(rules.deck.size)))
    hands = [sum(1 << c for c in order[10 * s : 10 * s + 10]) for s in range(4)]
    kitty = sum(1 << c for c in order[40:])
    seat = draw(st.integers(0, 3))
    words = {(seat + 1) % 4: "left", (seat + 2) % 4: "partner", (seat + 3) % 4: "right", 4: "kitty"}
    clauses = []
    for holder, word in words.items():
        cards = kitty if holder == 4 else hands[holder]
        conds = []
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["len", "has", "no"]))
            if kind == "len":
                s = draw(st.integers(0, 3))
                n = sum(1 for c in range(rules.deck.size) if cards >> c & 1 and rules.deck.suit[c] == s)
                op = draw(st.sampled_from([">=", "<=", "="]))
                conds.append(f"{'SCDH'[s]}{op}{n}")
            else:
                pool = [c for c in range(rules.deck.size) if (cards >> c & 1) == (kind == "has")]
                pool = [c for c in pool if not hands[seat] >> c & 1]
                if pool:
                    conds.append(f"{kind} {rules.deck.names[draw(st.sampled_from(pool))]}")
        if conds:
            clauses.append(f"{word}: {', '.join(conds)}")
    return seat, hands, kitty, "; ".join(clauses)


def _example_deal() -> tuple[int, list[int], int, str]:
    """Seat 0 holds HAND; the kitty gets the lowest unseen cards (spades), the partner the highest
    (the six unseen hearts among them): the issue's constraints hold."""
    deck = PAGAT.deck
    mine = deck.mask(HAND)
    rest = [c for c in range(deck.size) if not mine >> c & 1]
    kitty = sum(1 << c for c in rest[:3])
    hands = [mine, sum(1 << c for c in rest[3:13]), sum(1 << c for c in rest[-10:]), 0]
    hands[3] = deck.full_mask & ~(kitty | hands[0] | hands[1] | hands[2])
    return 0, hands, kitty, "partner: H>=1; kitty: no JK"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_deal_and_constraints(), st.integers(0, 2**32))
@example(_example_deal(), 7)  # the example constraints
@example((2, [0, 0, 0, 0], 0, ""), 1)  # no constraint at all (the hand: seat 2's dealt cards below)
def test_every_sampled_deal_meets_the_constraints(case: tuple[int, list[int], int, str], seed: int) -> None:
    seat, hands, _, text = case
    if not any(hands):  # an empty case: any hand will do
        hands = [0, 0, PAGAT.deck.mask(HAND), 0]
    conds = parse_constraints(PAGAT, seat, text)
    sampler = DealSampler(PAGAT, seat, hands[seat], conds)
    rng = Rng(seed)
    for _ in range(3):
        got, kit = sampler.sample(rng)
        assert got[seat] == hands[seat]
        assert [h.bit_count() for h in got] == [10] * 4 and kit.bit_count() == 3
        union = kit
        for h in got:
            assert not union & h
            union |= h
        assert union == PAGAT.deck.full_mask
        for c in conds:
            assert _holds(PAGAT, got, kit, seat, c), (text, c.text)


def test_the_pinned_example_is_what_it_says() -> None:
    seat, hands, kitty, text = _example_deal()
    conds = parse_constraints(PAGAT, seat, text)
    assert all(_holds(PAGAT, hands, kitty, seat, c) for c in conds)
    assert [h.bit_count() for h in hands] == [10] * 4 and kitty.bit_count() == 3


def _chi_square(counts: Counter, cells: int, total: int) -> float:
    expected = total / cells
    return sum((counts.get(k, 0) - expected) ** 2 / expected for k in range(cells))


def test_the_sampler_is_uniform_over_the_deals_that_meet_the_constraints() -> None:
    """All unseen cards but JK AS KS QS are placed by 'has'; one slot is left in each holder and
    the kitty may not hold JK: 18 deals meet that, each should come up 1/18 of the time."""
    deck = PAGAT.deck
    hand = "JH JD AH KH QH TH 5C 5S 6D 7D"  # without JK, so that 4 cards stay free
    mine = deck.mask(hand)
    others = [c for c in deck.names if not mine >> deck.card(c) & 1 and c not in ("JK", "AS", "KS", "QS")]
    sizes = {"left": 9, "partner": 9, "right": 9, "kitty": 2}
    clauses, k = [], 0
    for word, size in sizes.items():
        clauses.append(f"{word}: " + ", ".join(f"has {c}" for c in others[k : k + size]))
        k += size
    assert k == len(others)
    text = "; ".join(clauses) + "; kitty: no JK"
    sampler = DealSampler(PAGAT, 0, mine, parse_constraints(PAGAT, 0, text))
    rng = Rng(2024)
    where: Counter = Counter()
    total = 3600
    for _ in range(total):
        hands, kitty = sampler.sample(rng)
        holders = [*hands[1:], kitty]
        key = tuple(next(i for i, h in enumerate(holders) if h >> c & 1) for c in free_cards())
        where[key] += 1
    assert len(where) == 18
    assert all(key[0] != 3 for key in where)  # JK never in the kitty
    cells = {key: i for i, key in enumerate(sorted(where))}
    chi = _chi_square(Counter({cells[k]: v for k, v in where.items()}), 18, total)
    assert chi < 40.8  # chi-square with 17 degrees of freedom, p = 0.001
    assert sampler.attempts < total * 4 / 3 * 1.2  # a quarter of the draws put JK in the kitty


def free_cards() -> tuple[int, ...]:
    """JK AS KS QS, as card ints."""
    return tuple(PAGAT.deck.card(c) for c in ("JK", "AS", "KS", "QS"))


def test_one_unconstrained_card_lands_uniformly() -> None:
    """With no constraint, AS is in each other hand 10/33 of the time and in the kitty 3/33."""
    mine = PAGAT.deck.mask(HAND)
    sampler = DealSampler(PAGAT, 0, mine, ())
    rng = Rng(5)
    counts: Counter = Counter()
    total = 3300
    a = PAGAT.deck.card("AS")
    for _ in range(total):
        hands, kitty = sampler.sample(rng)
        counts[next(i for i, h in enumerate([*hands[1:], kitty]) if h >> a & 1)] += 1
    expected = [1000, 1000, 1000, 300]
    chi = sum((counts[i] - e) ** 2 / e for i, e in enumerate(expected))
    assert chi < 16.3  # 3 degrees of freedom, p = 0.001
    assert sampler.attempts == total


# ------------------------------------------------------------------------------------------ the analysis


@pytest.fixture(scope="module")
def small() -> object:
    return analyse_hand(HAND, seat=1, dealer=2, constraints="partner: H>=1; kitty: no JK", deals=3, seed=11)


def test_the_dd_numbers_are_dd_tricks_of_the_sampled_deals(small) -> None:  # type: ignore[no-untyped-def]
    """The same deals dealt again, the contract forced through the engine, the discard bot's kitty
    and joker choices, then dd_tricks directly."""
    mask = PAGAT.deck.mask(HAND)
    sampler = DealSampler(PAGAT, 1, mask, parse_constraints(PAGAT, 1, "partner: H>=1; kitty: no JK"))
    rng = Rng(derive(11, _HAND_KEY))
    want: dict[str, list[int]] = {d: [] for d in ("S", "C", "D", "H", "NT", "MIS")}
    for _ in range(3):
        hands, kitty = sampler.sample(rng)
        assert kitty >> PAGAT.deck.card("JK") & 1 == 0
        for name in want:
            code = "MIS" if name == "MIS" else f"6{name}"
            want[name].append(dd_tricks(play_position(PAGAT, hands, kitty, 2, 1, code)))
    got = {d.name: list(d.tricks) for d in small.denominations}
    assert got == want
    # the bids: chance of making and the mean score, from those tricks and the rules' values
    for b in PAGAT.ladder:
        t = want["MIS" if b.misere else b.code.lstrip("0123456789")]
        assert bid_denomination(b.code) == ("MIS" if b.misere else b.code.lstrip("0123456789"))
        value = small.bid(b.code)
        assert value.make == sum(1 for x in t if (x == 0 if b.misere else x >= b.tricks)) / 3
        assert value.expected_points == sum(PAGAT.declarer_points(b, x) for x in t) / 3


def test_each_chance_of_making_has_its_wilson_interval(small) -> None:  # type: ignore[no-untyped-def]
    """The JSON form gives each level's chance of making with its 95% Wilson interval over the deals
    (the intervals module's), around the chance; the bids too."""
    from fivehundred.pipelines.analysis.intervals import wilson_interval

    data = small.to_dict()
    for name, d in data["denominations"].items():
        assert d["make"].keys() == d["make_interval"].keys()
        for level, p in d["make"].items():
            made = sum(1 for t in d["tricks"] if (t == 0 if name == "MIS" else t >= int(level)))
            assert p == made / 3
            lo, hi = d["make_interval"][level]
            assert [lo, hi] == list(wilson_interval(made, 3)) and lo <= p <= hi
    for b in data["bids"]:
        assert b["make_interval"] == list(wilson_interval(round(b["make"] * 3), 3))
    assert data["denominations"]["H"]["make_interval"]["6"][1] == pytest.approx(1.0)


def test_the_bots_bid_from_the_seats_first_turn(small) -> None:  # type: ignore[no-untyped-def]
    """Seat 1 with dealer 2: seats 3 and 0 speak first and pass, then each bot makes its call."""
    mask = PAGAT.deck.mask(HAND)
    sampler = DealSampler(PAGAT, 1, mask, parse_constraints(PAGAT, 1, "partner: H>=1; kitty: no JK"))
    hands, kitty = sampler.sample(Rng(derive(11, _HAND_KEY)))
    state = State(PAGAT, hands, kitty, 2)
    state.apply(PASS)
    state.apply(PASS)
    assert state.turn == 1
    want = [
        (s, action_name(PAGAT, make(s).bid(state.view(1), state.legal_actions(), NoRng()))) for s in BIDDERS
    ]
    assert list(small.bots) == want
    assert small.passes_before == 2
    assert "the 2 seat(s) before it passing" in small.to_dict()["bots_note"]
    # MIS may not open (it needs a 7-level bid first); OMIS may
    assert not small.bid("MIS").opening and small.bid("OMIS").opening and small.bid("6S").opening


def test_the_recommended_bid_is_the_best_opening_bid(small) -> None:  # type: ignore[no-untyped-def]
    opening = [b for b in small.bids if b.opening]
    best = max(opening, key=lambda b: b.expected_points)
    assert small.recommended_bid == (best.code if best.expected_points > 0 else "P")


def test_the_json_form(small) -> None:  # type: ignore[no-untyped-def]
    data = small.to_dict()
    assert set(data) == {
        "variant", "seat", "dealer", "hand", "constraints", "deals", "seed", "attempts", "discard_rule",
        "denominations", "bids", "bots", "bots_note", "recommended_bid",
    }  # fmt: skip
    assert data["hand"] == HAND.split() and data["deals"] == 3 and data["seat"] == 1 and data["dealer"] == 2
    assert list(data["denominations"]) == ["S", "C", "D", "H", "NT", "MIS"]
    for name, d in data["denominations"].items():
        assert sum(d["distribution"]) == 3 and len(d["tricks"]) == 3
        assert math.isclose(d["mean_tricks"], sum(d["tricks"]) / 3)
        if name == "MIS":
            assert len(d["distribution"]) == 2 and d["make"] == {"MIS": d["distribution"][0] / 3}
        else:
            assert len(d["distribution"]) == 11
            assert d["make"] == {str(k): sum(1 for t in d["tricks"] if t >= k) / 3 for k in range(6, 11)}
    assert [b["bid"] for b in data["bids"]] == [b.code for b in PAGAT.ladder]
    assert set(data["bots"]) == set(BIDDERS)
    assert data["recommended_bid"] in {b.code for b in PAGAT.ladder} | {"P"}


def test_same_seed_same_result_and_another_seed_other_deals() -> None:
    a = analyse_hand(HAND, deals=2, seed=3).to_dict()
    assert analyse_hand(HAND, deals=2, seed=3).to_dict() == a
    b = analyse_hand(HAND, deals=2, seed=4).to_dict()
    assert a["denominations"] != b["denominations"]
    assert a["dealer"] == 3  # the default dealer: the seat on the right, so that the seat opens
    assert a["bots_note"].endswith("start of the auction")


def test_a_variant_without_misere_has_no_misere_row() -> None:
    data = analyse_hand(HAND, variant="north-american", deals=1, seed=2).to_dict()
    assert list(data["denominations"]) == ["S", "C", "D", "H", "NT"]
    assert not any(b["bid"] in ("MIS", "OMIS") for b in data["bids"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat": 4}, "seat 4: pagat-au has seats 0..3"),
        ({"seat": True}, "seat True"),
        ({"dealer": -1}, "dealer -1"),
        ({"deals": 0}, "deals 0: must be at least 1"),
        ({"seed": -1}, "seed -1"),
        ({"variant": "nosuch"}, "unknown variant 'nosuch'"),
    ],
)
def test_bad_options_are_refused_before_any_work(kwargs: dict, message: str) -> None:
    with pytest.raises(Exception, match=message) as err:
        analyse_hand(HAND, **kwargs)
    assert type(err.value).__name__ in ("HandError", "RulesError")
