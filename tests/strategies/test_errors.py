"""A bot that raises or answers an illegal action stops the game with one line: bot, seat, game, hand."""

from __future__ import annotations

import random

import pytest

from fivehundred.sim import load_rules, play_game
from fivehundred.sim.game import StrategyError
from fivehundred.strategies.base import make


class _Broken:
    """Plays like the heuristic until hand ``at_hand``, then fails in the play phase."""

    name = "broken.v1"

    def __init__(self, mode: str, at_hand: int) -> None:
        self.mode = mode
        self.at_hand = at_hand
        self.inner = make("heuristic")

    def bid(self, view, legal, rng):  # type: ignore[no-untyped-def]
        return self.inner.bid(view, legal, rng)

    def discard(self, view, legal, rng):  # type: ignore[no-untyped-def]
        return self.inner.discard(view, legal, rng)

    def name_joker(self, view, legal, rng):  # type: ignore[no-untyped-def]
        return self.inner.name_joker(view, legal, rng)

    def play(self, view, legal, rng: random.Random):  # type: ignore[no-untyped-def]
        if view.hand_no >= self.at_hand:
            if self.mode == "raise":
                raise KeyError("boom")
            return 10_000 if self.mode == "nonsense" else next(c for c in range(64) if c not in legal)
        return self.inner.play(view, legal, rng)


@pytest.mark.parametrize("mode", ["raise", "illegal", "nonsense"])
def test_bad_bot_stops_the_game(mode: str) -> None:
    rules = load_rules("pagat-au")
    h = make("heuristic")
    # A game that lasts at least three deals, so that the failure is in hand 2.
    game = next(g for g in range(100) if len(play_game(rules, [h] * 4, 40, g)) >= 3)
    bots = [h, h, _Broken(mode, at_hand=2), h]
    labels = ["heuristic.v1", "heuristic.v1", "broken.v1(x=1)", "heuristic.v1"]
    with pytest.raises(StrategyError) as exc:
        play_game(rules, bots, 40, game_id=game, labels=labels)
    msg = str(exc.value)
    assert "\n" not in msg
    assert "broken.v1(x=1)" in msg and "seat 2" in msg and f"game {game + 1}," in msg  # counted from 1
    assert msg.endswith("deal 3")  # hand_no 2, the game's third deal
    if mode == "raise":
        assert "KeyError" in msg and "boom" in msg
    else:
        assert "illegal" in msg
