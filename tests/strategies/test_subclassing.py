"""Built-in bots are compiled (mypyc) but stay ordinary classes to other packages: subclass them."""

from __future__ import annotations

from typing import Any

from fivehundred.sim import load_rules, play_game
from fivehundred.strategies import make
from fivehundred.strategies.heuristic import HeuristicStrategy
from fivehundred.strategies.random_bot import RandomStrategy


class CountingHeuristic(HeuristicStrategy):
    """A third-party tweak: the heuristic, counting its plays."""

    name = "countingheuristic.v1"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.plays = 0

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        self.plays += 1
        return super().play(view, legal, rng)


class FirstLegal(RandomStrategy):
    """Overrides one method, inherits the others (compiled) from ``random.v1``."""

    name = "firstlegal.v1"
    uses_rng = False

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        return legal[0]

    def bid(self, view, legal, rng):  # type: ignore[no-untyped-def]
        return legal[0]


def test_a_subclass_of_the_compiled_heuristic_plays_like_it() -> None:
    rules = load_rules("pagat-au")
    mine = CountingHeuristic()
    theirs = make("heuristic")
    for g in range(3):
        ours, reference = play_game(rules, [mine] * 4, 5, g), play_game(rules, [theirs] * 4, 5, g)
        for a, b in zip(ours, reference, strict=True):
            assert {**a, "strategies": None} == {**b, "strategies": None}
    assert mine.plays > 30
    assert isinstance(mine, HeuristicStrategy) and mine.name == "countingheuristic.v1"


def test_a_subclass_of_the_compiled_random_bot_overrides_and_inherits() -> None:
    rules = load_rules("pagat-au")
    records = play_game(rules, [FirstLegal()] * 4, 5, 0)
    assert records and all(r["bids"][0] != "P" or r["contract"] is None for r in records)
    assert FirstLegal.discard is RandomStrategy.discard  # inherited from the compiled class
