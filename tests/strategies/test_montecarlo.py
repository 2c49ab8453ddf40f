"""The determinization: sampled deals agree with everything the seat knows."""

from __future__ import annotations

import random

import pytest

from fivehundred.sim import load_rules
from fivehundred.sim.engine import PLAY, State
from fivehundred.sim.game import decide, new_deal, play_out
from fivehundred.sim.notation import JOKER_LEAD
from fivehundred.strategies.base import make
from fivehundred.strategies.montecarlo import MonteCarloStrategy
from fivehundred.strategies.sampling import rebuild_state, sample_hidden, shown_voids
from tests.strategies.helpers import decision_points, public_view


@pytest.mark.parametrize("variant", ["pagat-au", "north-american", "club-004"])
def test_samples_rebuild_the_same_view(variant: str) -> None:
    rules = load_rules(variant)
    rng = random.Random(2)
    checked = 0
    differ = 0
    for state in decision_points(rules, 51, deals=10, every=2):
        if state.phase != PLAY:
            continue
        seat = state.turn
        view = state.view(seat)
        sample = sample_hidden(view, rng)
        assert sample is not None
        hands, discards = sample
        assert hands[seat] == state.hands[seat]
        # Every card is somewhere exactly once, and every hand has the right size.
        everything = discards | state.played
        for h in hands:
            assert not everything & h
            everything |= h
        assert everything == rules.deck.full_mask
        assert [h.bit_count() for h in hands] == [h.bit_count() for h in state.hands]
        # Voids shown are respected.
        for s, v in enumerate(shown_voids(view)):
            for suit in range(4):
                if v >> suit & 1 and s != seat:
                    assert not hands[s] & state.tables.suit_mask[suit]
        rebuilt = rebuild_state(view, hands, discards)
        assert public_view(rebuilt, seat) == public_view(state, seat)
        assert rebuilt.legal_actions() == state.legal_actions()
        differ += hands != state.hands
        checked += 1
    assert checked > 30 and differ > checked // 2


def test_open_misere_hand_and_named_joker_are_kept() -> None:
    rules = load_rules("pagat-au")
    h = make("heuristic")
    rng = random.Random(4)
    checked = 0
    for d in range(30):
        state, _ = new_deal(rules, 52, d, 0)
        state.force_contract("OMIS", d % 4)

        def choose(s: State) -> int:
            nonlocal checked
            if s.phase == PLAY and s.turn != s.declarer and s.tricks_played >= 1:
                hands, _ = sample_hidden(s.view(s.turn), rng)
                assert hands[s.declarer] == s.hands[s.declarer]
                checked += 1
            return decide(h, s, rng)

        play_out(state, choose)
    assert checked > 20


def test_touching_cards_are_one_candidate() -> None:
    rules = load_rules("pagat-au")
    mc = MonteCarloStrategy(samples=2)
    merged = 0
    for state in decision_points(rules, 53, deals=20, every=1):
        if state.phase != PLAY:
            continue
        legal = state.legal_actions()
        cands = mc.candidates(state.view(state.turn), legal)
        assert set(cands) <= set(legal)
        # Every legal card is represented by a candidate of the same effective suit.
        eff = state.tables.eff_suit
        assert {eff[c] for c in legal if c < JOKER_LEAD} == {eff[c] for c in cands if c < JOKER_LEAD}
        merged += len(cands) < len(legal)
    assert merged > 10


def test_montecarlo_differs_from_heuristic_sometimes() -> None:
    """The search changes some decisions (otherwise it would be the heuristic under another name)."""
    rules = load_rules("pagat-au")
    mc = make("montecarlo(samples=8)")
    h = make("heuristic")
    changed = 0
    for k, state in enumerate(decision_points(rules, 54, deals=12, every=3)):
        if state.phase != PLAY:
            continue
        legal = state.legal_actions()
        view = state.view(state.turn)
        changed += mc.play(view, legal, random.Random(k)) != h.play(view, legal, random.Random(k))
    assert changed > 0
