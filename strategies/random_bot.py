"""``random.v1``: uniform over the legal actions, bids included."""

from __future__ import annotations

import random
from typing import ClassVar

from sim.engine import SeatView
from strategies.base import register


@register("random.v1")
class RandomStrategy:
    """Chooses uniformly among the legal actions at every decision."""

    PARAMS: ClassVar[dict] = {}

    def bid(self, view: SeatView, legal: list[int], rng: random.Random) -> int:
        """A uniformly random call."""
        return legal[int(rng.random() * len(legal))]

    def discard(self, view: SeatView, legal: list[int], rng: random.Random) -> int:
        """A uniformly random card to throw."""
        return legal[int(rng.random() * len(legal))]

    def name_joker(self, view: SeatView, legal: list[int], rng: random.Random) -> int:
        """A uniformly random suit (or none)."""
        return legal[int(rng.random() * len(legal))]

    def play(self, view: SeatView, legal: list[int], rng: random.Random) -> int:
        """A uniformly random legal card."""
        return legal[int(rng.random() * len(legal))]
