"""RULES.md sections 1 (players and cards), 2 (dealing) and 3 (the auction), on hand-made positions."""

from __future__ import annotations

from collections import Counter

import pytest

from fivehundred.sim import (
    AUCTION,
    DONE,
    KITTY,
    IllegalAction,
    State,
    load_rules,
    parse_action,
    play_game,
    settle,
)
from fivehundred.sim.engine import compiled
from fivehundred.sim.game import new_deal
from fivehundred.sim.seeding import dealer_of, first_dealer, shuffled
from tests.sim.helpers import PAGAT, act, auction, cards, fill, legal

LADDER = "6S 6C 6D 6H 6NT 7S 7C 7D 7H 7NT MIS 8S 8C 8D 8H 8NT 9S 9C 9D 9H 9NT 10S 10C 10D OMIS 10H 10NT"


# ---------------------------------------------------------------- 1. Players and cards


def test_s1_four_players_partners_opposite() -> None:
    assert PAGAT.players == 4 and PAGAT.teams == 2
    assert [PAGAT.team_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_s1_deck_is_43_cards() -> None:
    deck = PAGAT.deck
    assert deck.size == 43
    expected = {f"{r}{s}" for s in "HD" for r in "AKQJT98765" + "4"}
    expected |= {f"{r}{s}" for s in "SC" for r in "AKQJT98765"}
    expected.add("JK")
    assert set(deck.names) == expected
    assert len(deck.jokers) == 1


# ---------------------------------------------------------------- 2. Dealing


def test_s2_first_dealer_uniform_and_dealer_rotates() -> None:
    counts = Counter(first_dealer(5, g, 4) for g in range(4000))
    assert set(counts) == {0, 1, 2, 3}
    assert all(900 < c < 1100 for c in counts.values())  # uniform within ~3.5 sigma
    for g in range(20):
        d0 = dealer_of(5, g, 0, 4)
        assert [dealer_of(5, g, j, 4) for j in range(6)] == [(d0 + j) % 4 for j in range(6)]


class AlwaysPass:
    """Passes in every auction: every deal is thrown in."""

    name = "pass.v0"

    def bid(self, view, legal, rng):
        return parse_action(view.rules, "P", AUCTION)

    def discard(self, view, legal, rng):
        raise AssertionError("no deal is ever played")

    name_joker = play = discard


def test_s2_dealer_passes_on_after_a_thrown_in_deal() -> None:
    rules = load_rules("pagat-au", overrides={"game.deal_limit": 6})
    recs = play_game(rules, [AlwaysPass()] * 4, master_seed=3, game_id=1)
    assert len(recs) == 6
    d0 = recs[0]["dealer"]
    assert [r["dealer"] for r in recs] == [(d0 + j) % 4 for j in range(6)]
    assert all(r["contract"] is None and r["score_delta"] == [0, 0] for r in recs)
    assert recs[-1]["end_reason"] == "deal_limit" and recs[-1]["winner"] is None


def test_s2_deal_pattern_3_1_4_1_3_1_from_left_of_dealer() -> None:
    seed, dealer = 12345, 2
    s = State.deal(PAGAT, seed, dealer)
    order = shuffled(seed, 43)
    names = PAGAT.deck.names
    # Positions in the shuffled deck: 3 to each (from the dealer's left), 1 kitty, 4 each, 1, 3 each, 1.
    expected: dict[int, list[int]] = {s_: [] for s_ in range(4)}
    kitty: list[int] = []
    pos = 0
    for count in (3, 4, 3):
        for off in (1, 2, 3, 4):
            expected[(dealer + off) % 4].extend(order[pos : pos + count])
            pos += count
        kitty.append(order[pos])
        pos += 1
    assert pos == 43
    for seat in range(4):
        assert cards(PAGAT, s.hands[seat]) == {names[c] for c in expected[seat]}
        assert s.hands[seat].bit_count() == 10
    assert cards(PAGAT, s.kitty) == {names[c] for c in kitty}
    assert s.turn == (dealer + 1) % 4


def test_s2_shuffle_is_a_seeded_permutation() -> None:
    assert sorted(shuffled(99, 43)) == list(range(43))
    assert shuffled(99, 43) == shuffled(99, 43)
    assert shuffled(99, 43) != shuffled(100, 43)
    # every card lands in every position: first position over many seeds covers the deck
    assert len({shuffled(s, 43)[0] for s in range(2000)}) == 43


def test_s2_kitty_unseen_until_auction_ends() -> None:
    s = auction(PAGAT, "7H P")
    assert all(s.view(seat).kitty is None for seat in range(4))
    act(s, "P P")
    assert s.phase == KITTY and s.declarer == 0
    assert s.view(0).kitty == s.kitty_dealt
    assert all(s.view(seat).kitty is None for seat in (1, 2, 3))


# ---------------------------------------------------------------- 3. The auction


def test_s3_left_of_dealer_speaks_first_then_clockwise() -> None:
    for dealer in range(4):
        s = fill(PAGAT, ["", "", "", ""], dealer=dealer)
        seen = []
        for call in ("6S", "6C", "6D", "6H"):
            seen.append(s.turn)
            act(s, call)
        assert seen == [(dealer + k) % 4 for k in (1, 2, 3, 4)]


def test_s3_bid_must_be_higher_and_pass_is_final() -> None:
    s = auction(PAGAT, "7D")  # seat 0 bids
    assert s.turn == 1
    assert "7D" not in legal(s) and "7C" not in legal(s) and "6NT" not in legal(s)
    assert {"P", "7H", "7NT", "10NT"} <= legal(s)
    with pytest.raises(IllegalAction):
        act(s, "7S")
    act(s, "P 8S")  # seat 1 passes, seat 2 bids
    assert s.turn == 3
    act(s, "8C")  # seat 3
    assert s.turn == 0
    act(s, "8D")  # seat 0; seat 1 has passed and is skipped
    assert s.turn == 2


def test_s3_auction_ends_when_all_but_one_passed_after_bid() -> None:
    s = auction(PAGAT, "6H P P")
    assert s.phase == AUCTION and s.turn == 3
    act(s, "P")
    assert s.phase == KITTY and s.contract.code == "6H" and s.declarer == 0
    assert s.turn == 0  # the declarer now takes the kitty; there was no further auction turn
    assert len(s.bids) == 4


def test_s3_declarer_gets_no_turn_after_the_others_passed() -> None:
    # seats 0, 1, 2 pass, the dealer bids: the auction ends at once with the dealer as declarer.
    s = auction(PAGAT, "P P P 6S")
    assert s.phase == KITTY and s.declarer == 3 and s.contract.code == "6S"
    # a later bidder outbid: the outbid seat has passed by the time the others are out
    s = auction(PAGAT, "6S 7S P P 8S P")  # 0:6S 1:7S 2:P 3:P 0:8S 1:P -> ends, seat 0
    assert s.phase == KITTY and s.declarer == 0 and s.contract.code == "8S"


def test_s3_all_pass_throws_the_deal_in() -> None:
    s = auction(PAGAT, "P P P P")
    assert s.phase == DONE and s.contract is None and s.declarer == -1
    assert s.score_delta == [0, 0] and not s.legal_actions()
    delta, new, over, winner, _ = settle(PAGAT, [120, -40], s)
    assert delta == [0, 0] and new == [120, -40] and not over and winner is None


def test_s3_bid_order_is_the_ladder() -> None:
    assert [b.code for b in PAGAT.ladder] == LADDER.split()
    ranks = [b.rank for b in PAGAT.ladder]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    # rank is not points: MIS (250) outranks 7NT (220) and is outranked by 8S (240)
    assert PAGAT.bid("7NT").rank < PAGAT.bid("MIS").rank < PAGAT.bid("8S").rank
    assert PAGAT.bid("8S").points < PAGAT.bid("MIS").points


def test_s3_opening_legal_bids_are_the_whole_ladder_but_mis() -> None:
    s = auction(PAGAT, "")
    assert legal(s) == set(LADDER.split()) - {"MIS"} | {"P"}


@pytest.mark.parametrize("high", ["6S", "6NT", "MIS"])
def test_s3_mis_not_over_a_non_seven_bid(high: str) -> None:
    calls = "7S MIS" if high == "MIS" else high
    s = auction(PAGAT, calls)
    assert "MIS" not in legal(s)


@pytest.mark.parametrize("high", ["7S", "7C", "7D", "7H", "7NT"])
def test_s3_mis_only_over_a_seven_bid(high: str) -> None:
    s = auction(PAGAT, high)
    assert "MIS" in legal(s)
    act(s, "MIS")
    assert s.high_bidder == 1
    assert "8S" in legal(s) and "7NT" not in legal(s) and "MIS" not in legal(s)


def test_s3_mis_not_after_an_eight_bid_and_not_opening() -> None:
    assert "MIS" not in legal(auction(PAGAT, ""))
    assert "MIS" not in legal(auction(PAGAT, "7NT 8S"))
    s = auction(PAGAT, "7H MIS P P P")
    assert s.contract.code == "MIS" and s.declarer == 1


def test_s3_omis_between_10d_and_10h() -> None:
    s = auction(PAGAT, "10C")
    assert {"10D", "OMIS", "10H", "10NT"} <= legal(s)
    act(s, "10D")
    assert "OMIS" in legal(s) and "10D" not in legal(s)
    act(s, "OMIS")
    assert legal(s) == {"P", "10H", "10NT"}
    act(s, "10H")
    assert legal(s) == {"P", "10NT"}


def test_s3_omis_as_opening_bid() -> None:
    s = auction(PAGAT, "OMIS P P P")
    assert s.contract.code == "OMIS" and s.declarer == 0
    assert "OMIS" not in legal(auction(PAGAT, "10H"))


def test_compiled_tables_match_ladder() -> None:
    comp = compiled(PAGAT)
    assert len(comp.bids_above) == len(PAGAT.ladder) + 1


def test_s2_new_deal_matches_state_deal() -> None:
    s, seed = new_deal(PAGAT, 7, 3, 5)
    t = State.deal(PAGAT, seed, dealer_of(7, 3, 5, 4))
    assert s.hands == t.hands and s.kitty == t.kitty and s.dealer == t.dealer and s.hand_no == 5
