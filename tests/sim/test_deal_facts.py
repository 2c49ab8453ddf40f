"""The engine's facts in the deal log (schema version 2): each column checked against an independent
reading of the rules (card names, the auction's turn order, RULES.md's trumps and bowers)."""

from __future__ import annotations

import pytest

from fivehundred.sim import available_variants, load_rules, play_game
from fivehundred.sim.engine import AUCTION, JOKER, PLAY, State, parse_action
from fivehundred.sim.game import deal_facts
from fivehundred.sim.notation import SUITS, is_joker, split_card
from fivehundred.sim.rules import Rules
from fivehundred.strategies import make
from tests.sim.helpers import SAME_COLOUR, is_trump

FACTS = (
    "bid_seats", "play_seats", "declarer_team", "made", "team_tricks", "sitting_out", "slam",
    "trumps_dealt", "bowers_dealt", "trumps_kitty", "trumps_kept", "suit_lengths",
)  # fmt: skip


def _records(rules: Rules, games: int, bot: str = "random") -> list[dict]:
    out = []
    for g in range(games):
        out += play_game(rules, [make(bot)] * rules.players, master_seed=11, game_id=g)
    return out


def _check(rules: Rules, r: dict) -> None:
    n, teams = rules.players, rules.teams
    # Calls: the first call is left of the dealer; a player who passed never speaks again.
    seats = r["bid_seats"]
    assert len(seats) == len(r["bids"]) and seats[0] == (r["dealer"] + 1) % n
    passed: set[int] = set()
    for seat, call in zip(seats, r["bids"], strict=True):
        assert seat not in passed or rules.declarer_raise
        if call == "P":
            passed.add(seat)
    # Plays: each trick's leader is the previous trick's winner (the declarer leads the first).
    plays, pseats = r["plays"], r["play_seats"]
    assert len(pseats) == len(plays)
    contract = r["contract"]
    if contract is None:
        assert r["made"] is None and r["declarer_team"] is None and r["slam"] is None
        assert pseats == [] and r["team_tricks"] == [0] * teams and r["sitting_out"] == []
        assert r["suit_lengths"] is None and r["trumps_dealt"] is None
        return
    d = r["declarer"]
    assert r["declarer_team"] == d % teams
    bid = rules.bid(contract)
    mates = [s for s in range(n) if s != d and s % teams == d % teams]
    assert r["sitting_out"] == (mates if bid.misere else [])
    per = n - len(r["sitting_out"])
    leaders = [pseats[k] for k in range(0, len(pseats), per)]
    assert leaders == [d, *r["trick_winners"][:-1]][: len(leaders)]
    assert not set(pseats) & set(r["sitting_out"])
    # Tricks per team, made, slam.
    tricks = [sum(1 for w in r["trick_winners"] if w % teams == t) for t in range(teams)]
    assert r["team_tricks"] == tricks
    assert r["made"] == (r["score_delta"][d % teams] > 0)
    if bid.misere:
        assert r["made"] == (r["declarer_tricks"] == 0) and r["slam"] is None
    else:
        assert r["made"] == (r["declarer_tricks"] >= bid.tricks)
        assert r["slam"] == (r["declarer_tricks"] == rules.hand_size)
    # Trumps by name: the suit, the jack of the same colour, the jokers (RULES.md section 6).
    dealt = r["hands"][d]
    if 0 <= bid.trump < 4:
        t = SUITS[bid.trump]
        kept = [c for c in dealt + r["kitty"] if c not in r["discards"]]
        assert r["trumps_dealt"] == sum(is_trump(c, t) for c in dealt)
        assert r["bowers_dealt"] == sum(c in (f"J{t}", f"J{SAME_COLOUR[t]}") for c in dealt)
        assert r["trumps_kitty"] == sum(is_trump(c, t) for c in r["kitty"])
        assert r["trumps_kept"] == sum(is_trump(c, t) for c in kept)

        def eff(c: str) -> str | None:
            return t if is_trump(c, t) else SUITS[split_card(c)[1]]
    else:
        assert r["trumps_dealt"] is r["bowers_dealt"] is r["trumps_kitty"] is r["trumps_kept"] is None

        def eff(c: str) -> str | None:
            return None if is_joker(c) else SUITS[split_card(c)[1]]

    assert r["suit_lengths"] == [sum(eff(c) == s for c in dealt) for s in SUITS]


@pytest.mark.parametrize("variant", available_variants())
def test_logged_facts_agree_with_the_rules(variant: str) -> None:
    rules = load_rules(variant)
    recs = _records(rules, 12, "random(pass_probability=0.7,max_raise=3)")
    assert any(r["contract"] is None for r in recs) and any(r["contract"] for r in recs)
    for r in recs:
        assert set(FACTS) <= r.keys()
        _check(rules, r)


def test_facts_cover_misere_and_slams_with_heuristic_bots() -> None:
    rules = load_rules("pagat-au")
    recs = _records(rules, 25, "heuristic")
    for r in recs:
        _check(rules, r)
    assert any(r["sitting_out"] for r in recs), "no misère in the sample: pick other games"
    assert any(r["slam"] for r in recs), "no slam in the sample: pick other games"
    assert any(r["trumps_dealt"] for r in recs)


def test_deal_facts_of_a_replayed_deal_equal_the_logged_ones() -> None:
    rules = load_rules("two-jokers")
    for r in _records(rules, 4):
        masks = [rules.deck.mask(h) for h in r["hands"]]
        st = State(rules, masks, rules.deck.mask(r["kitty"]), r["dealer"])
        for call in r["bids"]:
            st.apply_checked(parse_action(rules, call, AUCTION))
        for c in r["discards"] or ():
            st.apply_checked(rules.deck.card(c))
        named = (r["joker_suit"] or "").split(",")
        while st.phase == JOKER:
            st.apply_checked(parse_action(rules, named.pop(0) if named and named[0] else "-", JOKER))
        for p in r["plays"]:
            st.apply_checked(parse_action(rules, p, PLAY))
        facts = deal_facts(st, rules)
        assert {k: r[k] for k in FACTS} == facts
