"""The view snapshot holds the state's public facts compactly; the runner skips forced actions on request.

Every decision of random games on every shipped variant: each public attribute and property of
``state.view(seat)`` equals the fact of the state it stands for (the compact ones -- ``passed``,
``active``, ``tricks_won``, ``jokers_named``, the current ``trick`` as the tail of ``plays`` -- included),
and the isolation mode's plain-data round trip (:func:`view_fields` -> :class:`PlainView`) gives the
same values.  A strategy declaring ``asked_when_forced = False`` is never asked for a forced action,
and its games are the same as when it is asked.
"""

from __future__ import annotations

import random
from functools import partialmethod
from typing import Any

import pytest

from fivehundred.sim import available_variants, load_rules, play_game
from fivehundred.sim.engine import PLAY, State
from fivehundred.sim.notation import JOKER_LEAD
from fivehundred.sim.view import PlainView, SeatView, view_fields
from fivehundred.strategies.heuristic import HeuristicStrategy
from tests.helpers import random_legal, states_along


def _expected(s: State, seat: int) -> dict[str, Any]:
    """What each public attribute and property of ``seat``'s view must be (all of them), read from
    the state directly."""
    declarer = s.declarer
    contract = s.contract
    open_shown = contract is not None and contract.open and s.phase == PLAY and s.tricks_played >= 1
    return {
        "seat": seat,
        "rules": s.rules,
        "phase": s.phase,
        "dealer": s.dealer,
        "turn": s.turn,
        "scores": s.scores,
        "hand_no": s.hand_no,
        "hand": s.hands[seat],
        "bids": tuple(s.bids),
        "bid_seats": tuple(s.bid_seats),
        "high_bid": s.rules.ladder[s.high] if s.high >= 0 else None,
        "high_bidder": s.high_bidder,
        "passed": tuple(s.passed),
        "contract": contract,
        "declarer": declarer,
        "kitty": s.kitty_dealt if seat == declarer else None,
        "discards": s.discards if seat == declarer else None,
        "jokers_named": tuple(s.jokers_named) if s.phase >= PLAY else (-1,) * len(s.rules.deck.jokers),
        "tables": s.tables,
        "active": tuple(s.active),
        "trick": tuple(zip(s.trick_seats, s.trick, strict=True)),
        "led_suit": s.led if s.trick else -1,
        "led_suits": s.led_suits,
        "plays": tuple(zip(s.play_seats, s.plays, strict=True)),
        "played": s.played,
        "trick_winners": tuple(s.trick_winners),
        "tricks_won": tuple(s.tricks_won),
        "exposed": s.hands[declarer] if open_shown else None,
    }


def _check(s: State, seat: int) -> SeatView:
    """``seat``'s view of ``s`` and its plain-data round trip hold exactly the state's public facts."""
    view = s.view(seat)
    want = _expected(s, seat)
    assert {name for name in dir(view) if not name.startswith("_")} == set(want)  # every public one
    assert {name: getattr(view, name) for name in want} == want
    assert view.scores is not s.scores  # a tuple of its own (nothing leads back to the state)
    plain = PlainView(s.rules, view_fields(view))
    assert {name: getattr(plain, name) for name in want} == want
    return view


def _random_deals(variant: str, deals: int, seed: int) -> Any:
    """Each state of ``deals`` deals played with random legal actions, before every action."""
    rules = load_rules(variant)
    rng = random.Random(seed)
    for deal in range(deals):
        s = State.deal(rules, seed + deal, deal % rules.players)
        s.hand_no, s.scores = deal, tuple(rng.randrange(-400, 480) for _ in range(rules.teams))
        yield from states_along(s, random_legal(rng))


@pytest.mark.parametrize("variant", available_variants())
def test_every_view_holds_the_states_public_facts(variant: str) -> None:
    views = 0
    for s in _random_deals(variant, 40, 1000):
        for seat in range(s.rules.players):
            _check(s, seat)
            views += 1
    assert views > 1000


def test_the_rare_views_hold_the_states_facts_too() -> None:
    """Partners sitting out, the open-misère hand exposed, jokers named, a suitless joker led."""
    seen = {"sitting_out": 0, "exposed": 0, "named": 0, "joker_lead_in_trick": 0}
    for s in _random_deals("pagat-au", 300, 5000):
        view = _check(s, (s.turn + 1) % 4)
        seen["sitting_out"] += not all(view.active)
        seen["exposed"] += view.exposed is not None
        seen["named"] += s.phase == PLAY and view.jokers_named != (-1,)
        seen["joker_lead_in_trick"] += any(a >= JOKER_LEAD for a in s.plays[len(s.plays) - len(s.trick) :])
    assert all(seen.values()), seen


class Counting:
    """heuristic.v1 behind a wrapper that counts the calls it gets and the forced ones among them."""

    name = "counting.v1"
    uses_rng = False

    def __init__(self, asked: bool) -> None:
        self.bot = HeuristicStrategy()
        self.asked_when_forced = asked
        self.calls = 0
        self.forced = 0

    def _ask(self, method: str, view: SeatView, legal: Any, rng: Any) -> int:
        self.calls += 1
        self.forced += len(legal) == 1
        return getattr(self.bot, method)(view, legal, rng)

    bid = partialmethod(_ask, "bid")
    discard = partialmethod(_ask, "discard")
    name_joker = partialmethod(_ask, "name_joker")
    play = partialmethod(_ask, "play")


@pytest.mark.parametrize("variant", ["pagat-au", "three-player", "six-player"])
def test_a_bot_not_asked_when_forced_plays_the_same_games(variant: str) -> None:
    rules = load_rules(variant)
    asked = [Counting(True) for _ in range(rules.players)]
    skipped = [Counting(False) for _ in range(rules.players)]
    for game in range(3):
        assert play_game(rules, skipped, 11, game) == play_game(rules, asked, 11, game)
    assert sum(b.forced for b in asked) > 20  # forced actions happen, and these bots were asked
    assert sum(b.forced for b in skipped) == 0  # never asked for one
    assert sum(b.calls for b in skipped) == sum(b.calls - b.forced for b in asked)
    assert HeuristicStrategy.asked_when_forced is False
