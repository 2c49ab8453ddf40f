"""A bot cannot see hidden cards: its choices do not change when those cards are redistributed."""

from __future__ import annotations

import random

import pytest

from fivehundred.sim import available_variants, load_rules
from fivehundred.sim.engine import PLAY, State
from fivehundred.sim.game import decide, play_out
from fivehundred.sim.rng import Rng
from fivehundred.strategies.base import make
from tests.strategies.helpers import decision_points, public_view, shuffle_hidden

BOTS = [
    "random",
    "heuristic",
    "heuristic.v2",
    "heuristic.v3",
    "heuristic.v4",
    "heuristic.v5",
    "montecarlo(samples=4)",
    "montecarlo.v2(samples=4)",
    "expert(worlds=3, pool=2, search_tricks=4)",
]


@pytest.mark.parametrize("variant", available_variants())
def test_shuffle_keeps_the_view(variant: str) -> None:
    """The helper really changes hidden cards and really keeps the seat's view (self-check)."""
    rules = load_rules(variant)
    rng = random.Random(1)
    changed = 0
    for state in decision_points(rules, 3, deals=6, every=3):
        seat = state.turn
        other = shuffle_hidden(state, seat, rng)
        assert public_view(other, seat) == public_view(state, seat)
        assert other.legal_actions() == state.legal_actions()
        changed += other.hands != state.hands
    assert changed > 10


VARIANTS = ["pagat-au", "north-american", "club-004"] + [
    v for v in ("three-player", "six-player", "two-jokers") if v in available_variants()
]


@pytest.mark.parametrize("spec", BOTS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_choices_ignore_hidden_cards(spec: str, variant: str) -> None:
    rules = load_rules(variant)
    bot = make(spec)
    rng = random.Random(7)
    deals = 3 if spec.startswith(("montecarlo", "expert")) else 12
    checked = 0
    for k, state in enumerate(decision_points(rules, 21, deals=deals, every=2)):
        seat = state.turn
        legal = state.legal_actions()
        if len(legal) < 2:
            continue
        method = ("bid", "discard", "name_joker", "play")[state.phase]
        answers = set()
        for _ in range(3):
            other = shuffle_hidden(state, seat, rng)
            fn = getattr(bot, method)
            answers.add(fn(other.view(seat), legal, Rng(k)))
        assert len(answers) == 1, f"{spec} changed its {method} with the hidden cards"
        checked += 1
    assert checked > 10


def test_hidden_misere_hands() -> None:
    """Misère deals (an inactive partner's hand is hidden too) under a forced contract."""
    rules = load_rules("pagat-au")
    bots = [make("heuristic"), make("montecarlo(samples=4)"), make("expert(worlds=3, search_tricks=4)")]
    rng = random.Random(3)
    from fivehundred.sim.game import new_deal

    checked = 0
    for d in range(6):
        state, _ = new_deal(rules, 9, d, 0)
        state.force_contract("OMIS" if d % 2 else "MIS", d % 4)

        def choose(s: State, d: int = d) -> int:
            nonlocal checked
            seat, legal = s.turn, s.legal_actions()
            if s.phase == PLAY and len(legal) > 1:
                for bot in bots:
                    answers = {
                        bot.play(shuffle_hidden(s, seat, rng).view(seat), legal, Rng(d)) for _ in range(3)
                    }
                    assert len(answers) == 1
                    checked += 1
            return decide(bots[0], s, rng)

        play_out(state, choose)
    assert checked > 4


class _PeekingBot:
    """Plays the lowest card when the next seat holds the joker: it reads hidden state.

    The view holds no path to the state any more (tests/strategies/test_hostile.py), so the test
    hands this bot the state behind each view by a side channel, as a cheat in-process could find it.
    """

    name = "peek.v1"

    def __init__(self) -> None:
        self.states: dict[int, object] = {}

    def bid(self, view, legal, rng):  # type: ignore[no-untyped-def]
        return legal[0]

    discard = name_joker = bid

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        nxt = self.states[id(view)].hands[(view.seat + 1) % view.rules.players]  # type: ignore[attr-defined]
        return legal[0] if nxt & view.rules.deck.joker_mask else legal[-1]


def test_the_check_catches_a_peeking_bot() -> None:
    rules = load_rules("pagat-au")
    bot = _PeekingBot()
    rng = random.Random(5)
    caught = 0
    for k, state in enumerate(decision_points(rules, 4, deals=8)):
        legal = state.legal_actions()
        if state.phase != 3 or len(legal) < 2:
            continue
        seat = state.turn
        states = [shuffle_hidden(state, seat, rng) for _ in range(4)]
        views = [s.view(seat) for s in states]
        bot.states = {id(v): s for v, s in zip(views, states, strict=True)}
        answers = {bot.play(v, legal, Rng(k)) for v in views}
        caught += len(answers) > 1
    assert caught > 0
