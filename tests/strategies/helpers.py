"""Helpers for the strategy tests: decision points of real deals, hidden-card shuffles, hand-built
states."""

from __future__ import annotations

import random
from collections.abc import Iterator

from fivehundred.sim.engine import AUCTION, JOKER, KITTY, NAME_NONE, NAME_SUIT, PLAY, State
from fivehundred.sim.game import new_deal, play_game
from fivehundred.sim.notation import played_card
from fivehundred.sim.rng import Rng
from fivehundred.sim.rules import Rules, load_rules
from fivehundred.strategies.base import make
from tests.helpers import bot_choice, states_along

PUBLIC = (
    "seat", "phase", "dealer", "turn", "scores", "hand_no", "hand", "bids", "high_bid", "high_bidder",
    "passed", "contract", "declarer", "kitty", "discards", "jokers_named", "active", "trick",
    "led_suit", "led_suits", "plays", "played", "trick_winners", "tricks_won", "exposed",
)  # fmt: skip


def public_view(state: State, seat: int) -> tuple:
    """Everything a seat's view exposes, as a comparable tuple."""
    v = state.view(seat)
    return tuple(getattr(v, name) for name in PUBLIC)


def decision_points(rules: Rules, master_seed: int, deals: int, every: int = 1) -> Iterator[State]:
    """States at the decisions of heuristic self-play deals (a clone at every ``every``-th decision)."""
    bot = make("heuristic")
    k = 0
    for d in range(deals):
        state, seed = new_deal(rules, master_seed, d, d % 3)
        state.scores = tuple((d * 37 % 900) - 400 for _ in range(rules.teams))
        rng = random.Random(seed)
        for st in states_along(state, bot_choice(bot, rng)):
            if k % every == 0:
                yield st
            k += 1


def auction_states(variant: str, deals: int, seed: int = 5) -> Iterator[State]:
    """States at the auction decisions with a choice of heuristic self-play deals (varied scores)."""
    for state in decision_points(load_rules(variant), seed, deals):
        if state.phase == AUCTION and len(state.legal_actions()) > 1:
            yield state


def _cards(mask: int) -> list[int]:
    return [c for c in range(mask.bit_length()) if mask >> c & 1]


def shuffle_hidden(state: State, seat: int, rng: random.Random) -> State:
    """A state with the same view for ``seat`` but the cards it cannot see redistributed.

    Hidden cards are the other seats' current hands (except an exposed open-misère hand) and, for
    everyone but the declarer, the discards (before the auction ends: the kitty).  During play they
    are permuted only among cards of the same effective suit, so every holder keeps its suit counts
    and the public history stays legal; before play any permutation is used.  The history is then
    replayed on the new deal.
    """
    rules = state.rules
    n = rules.players
    played_by = [0] * n
    for s, a in zip(state.play_seats, state.plays, strict=True):
        c = played_card(rules.deck, a)
        played_by[s] |= 1 << c
    exposed = state.view(seat).exposed
    decl = state.declarer
    # Holders of hidden cards: seat numbers, or -1 for the kitty / discard pile.
    holders: dict[int, int] = {}
    for s in range(n):
        if s != seat and not (exposed and s == decl):
            holders[s] = state.hands[s]
    if state.phase >= PLAY and seat != decl:
        # A joker the declarer named is known to be the declarer's: it stays there.
        for j, c in enumerate(rules.deck.jokers):
            if state.jokers_named[j] >= 0 and decl in holders:
                holders[decl] &= ~(1 << c)
    if state.phase == AUCTION:
        holders[-1] = state.kitty
    elif seat != decl:
        holders[-1] = state.discards
    if state.phase >= PLAY:
        eff = state.tables.eff_suit
        groups = sorted({eff[c] for m in holders.values() for c in _cards(m)})
        key = eff
    else:
        groups = [0]
        key = [0] * rules.deck.size
    new = dict.fromkeys(holders, 0)
    for g in groups:
        slots = [(h, c) for h, m in holders.items() for c in _cards(m) if key[c] == g]
        cards = [c for _, c in slots]
        rng.shuffle(cards)
        for (h, _), c in zip(slots, cards, strict=True):
            new[h] |= 1 << c
    hands_now = list(state.hands)
    for h, m in new.items():
        if h >= 0:
            hands_now[h] = m
    if state.phase == AUCTION:
        dealt = hands_now
        kitty = new[-1]
        discards = 0
    else:
        discards = new[-1] if seat != decl else state.discards
        dealt = [hands_now[s] | played_by[s] for s in range(n)]
        if seat == decl:  # the declarer knows the kitty: keep it
            kitty = state.kitty_dealt
            dealt[decl] = (dealt[decl] | discards) & ~kitty
        else:
            kitty = discards
    new_state = State(rules, dealt, kitty, state.dealer)
    new_state.scores = state.scores
    new_state.hand_no = state.hand_no
    for a in state.bids:
        new_state.apply_checked(a)
    if not state.bids and state.contract is not None:  # a forced contract
        new_state.force_contract(state.contract.code, state.declarer)
    if state.phase > KITTY or (state.phase == KITTY and state.discard_order):
        order = state.discard_order if seat == decl else _cards(discards)[: len(state.discard_order)]
        for c in order:
            new_state.apply_checked(c)
    while new_state.phase == JOKER and not (
        state.phase == JOKER and new_state.naming_index == state.naming_index
    ):
        named = state.jokers_named[new_state.naming_index]
        new_state.apply_checked(NAME_SUIT + named if named >= 0 else NAME_NONE)
    for a in state.plays:
        new_state.apply_checked(a)
    return new_state


def hand_built_state(rules: Rules, hands: dict[int, str], dealer: int = 0, kitty: str = "") -> State:
    """A dealt state whose listed seats hold the given cards (``"JK AS KS 4H"``), and the kitty too
    if given; the rest of the deck goes, lowest card first, to the other seats and then the kitty."""
    deck = rules.deck
    given: dict[int, int] = {}
    for seat, text in hands.items():
        given[seat] = sum(1 << deck.card(name) for name in text.split())
    kitty_mask = sum(1 << deck.card(name) for name in kitty.split())
    used = kitty_mask
    for m in given.values():
        assert not used & m, "a card given twice"
        used |= m
    rest = [c for c in range(deck.size) if not used >> c & 1]
    out = []
    for seat in range(rules.players):
        m = given.get(seat, 0)
        while m.bit_count() < rules.hand_size:
            m |= 1 << rest.pop(0)
        assert m.bit_count() == rules.hand_size, f"seat {seat} holds {m.bit_count()} cards"
        out.append(m)
    while kitty_mask.bit_count() < rules.kitty_size:
        kitty_mask |= 1 << rest.pop(0)
    assert not rest and kitty_mask.bit_count() == rules.kitty_size
    return State(rules, out, kitty_mask, dealer)


def v2_deal_states(variant: str, deals: int, seed: int = 41):  # type: ignore[no-untyped-def]
    """Play decisions (states) of heuristic.v2 self-play deals, with the deal's real start."""
    rules = load_rules(variant)
    bot = make("heuristic.v2")
    rng = Rng(0)
    for d in range(deals):
        state, _ = new_deal(rules, seed, d, d % rules.players)
        yield from states_along(state, bot_choice(bot, rng), lambda s: s.phase == PLAY)


def assert_plays_whole_games_reproducibly(variant: str, spec: str) -> None:
    """``spec`` on team 0 against ``heuristic`` plays a whole game legally, twice the same."""
    rules = load_rules(variant)

    def game() -> list[dict]:
        bots = [make(spec) if s % rules.teams == 0 else make("heuristic") for s in range(rules.players)]
        return play_game(rules, bots, 9, 0)

    first = game()  # raises StrategyError on any illegal action
    assert first and all(r["plays"] or r["contract"] is None for r in first)
    assert game() == first
