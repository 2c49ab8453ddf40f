"""Seeding: hand j of game g has the same cards and dealer whatever the strategies or rule switches."""

from __future__ import annotations

import random

from fivehundred.sim import load_rules, play_game
from fivehundred.sim.game import new_deal
from fivehundred.sim.seeding import bot_seed, deal_seed, dealer_of
from fivehundred.strategies import make


class FirstLegal:
    """Bids the highest legal call, then always the first legal action: unlike the random bot."""

    name = "first.v0"

    def bid(self, view, legal, rng):
        return legal[-1]  # bid the highest (ends auctions fast, many contracts fail)

    def discard(self, view, legal, rng):
        return legal[0]

    def name_joker(self, view, legal, rng):
        return legal[0]

    def play(self, view, legal, rng):
        return legal[0]


def _deal_columns(rec: dict) -> tuple:
    return rec["hand_no"], rec["seed"], rec["dealer"], rec["hands"], rec["kitty"]


def test_same_deals_whatever_the_strategies() -> None:
    rules = load_rules("pagat-au")
    for game in range(6):
        a = play_game(rules, [make("random")] * 4, master_seed=21, game_id=game)
        b = play_game(rules, [FirstLegal()] * 4, master_seed=21, game_id=game)
        c = play_game(rules, [make("random"), FirstLegal(), make("random"), FirstLegal()], 21, game)
        n = min(len(a), len(b), len(c))
        assert n >= 1
        for i in range(n):
            assert _deal_columns(a[i]) == _deal_columns(b[i]) == _deal_columns(c[i])


def test_same_deals_whatever_the_rule_switches() -> None:
    variants = [
        load_rules("pagat-au"),
        load_rules("north-american"),
        load_rules("nullo"),
        load_rules("club-004"),
        load_rules("pagat-au", overrides={"scoring.slam_floor": False, "joker.lead_only_last_trick": True}),
    ]
    for game in (0, 7, 123456):
        for hand in (0, 1, 5, 40):
            deals = [new_deal(r, 99, game, hand) for r in variants]
            first, seed = deals[0]
            assert seed == deal_seed(99, game, hand)
            assert first.dealer == dealer_of(99, game, hand, 4)
            for s, sd in deals[1:]:
                assert sd == seed and s.dealer == first.dealer
                assert s.hands == first.hands and s.kitty == first.kitty


def test_records_match_new_deal_hand_by_hand() -> None:
    rules = load_rules("club-004")
    recs = play_game(rules, [make("random")] * 4, master_seed=4, game_id=2)
    for rec in recs:
        s, seed = new_deal(rules, 4, 2, rec["hand_no"])
        assert rec["seed"] == seed and rec["dealer"] == s.dealer
        assert rec["hands"] == [rules.deck.names_of(h) for h in s.hands]
        assert rec["kitty"] == rules.deck.names_of(s.kitty)


def test_different_games_and_hands_differ() -> None:
    rules = load_rules("pagat-au")
    deals = {tuple(new_deal(rules, 1, g, j)[0].hands) for g in range(5) for j in range(5)}
    assert len(deals) == 25
    assert new_deal(rules, 1, 0, 0)[0].hands != new_deal(rules, 2, 0, 0)[0].hands


def test_bot_rngs_per_seat() -> None:
    seed = deal_seed(3, 0, 0)
    seeds = [bot_seed(seed, s) for s in range(4)]
    assert len(set(seeds)) == 4 and seeds == [bot_seed(seed, s) for s in range(4)]
    assert random.Random(seeds[0]).random() == random.Random(bot_seed(seed, 0)).random()


def test_same_seed_same_game() -> None:
    rules = load_rules("pagat-au")
    a = play_game(rules, [make("random")] * 4, master_seed=8, game_id=3)
    b = play_game(rules, [make("random")] * 4, master_seed=8, game_id=3)
    assert a == b
