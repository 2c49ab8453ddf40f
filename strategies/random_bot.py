"""``random.v1``: uniform over the legal actions, bids included.

Two optional parameters tame the auction (uniform bidding makes nearly every contract a high one
that fails, so whole games last about one deal and some rule paths never occur):
``pass_probability`` passes with that probability at each call, and ``max_raise`` picks uniformly
among only the ``max_raise`` lowest legal bids.  Without them every call is uniform over ``legal``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from fivehundred.sim._mypyc import mypyc_attr
from fivehundred.sim.engine import PASS
from fivehundred.sim.rng import Rng
from fivehundred.sim.view import SeatView
from fivehundred.strategies.base import number, register, whole


# Compiled with mypyc, yet other packages may subclass it; registered below rather than by a class
# decorator (mypyc gives up native subclassing for classes with other decorators).
@mypyc_attr(allow_interpreted_subclasses=True)
class RandomStrategy:
    """Chooses uniformly among the legal actions at every decision."""

    name: ClassVar[str] = "random.v1"
    #: One line on what it is (``fivehundred strategies``).
    summary: ClassVar[str] = "uniform over the legal actions, bids included: a baseline"
    #: It never reads the view: the runner hands it a blank one (a subclass that reads it sets True).
    uses_view: ClassVar[bool] = False

    PARAMS: ClassVar[dict[str, Any]] = {"pass_probability": number(0, 1), "max_raise": whole(1)}
    #: What each parameter does (``fivehundred strategies --describe``); unset, every call is uniform.
    PARAM_HELP: ClassVar[dict[str, str]] = {
        "pass_probability": "pass with this probability at each call (unset: uniform over the legal calls)",
        "max_raise": "bid only among this many lowest legal bids (unset: any)",
    }

    def __init__(self, pass_probability: float | None = None, max_raise: int | None = None) -> None:
        self.pass_probability = pass_probability
        self.max_raise = max_raise

    def bid(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """A random call: uniform over ``legal`` unless the auction parameters are set."""
        if self.pass_probability is None and self.max_raise is None:
            return legal[int(rng.random() * len(legal))]
        if self.pass_probability is not None and rng.random() < self.pass_probability:
            return PASS
        bids = [a for a in legal if a != PASS]
        if not bids:
            return PASS
        if self.max_raise is not None:
            bids = bids[: self.max_raise]
        return bids[int(rng.random() * len(bids))]

    def discard(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """A uniformly random card to throw."""
        return legal[int(rng.random() * len(legal))]

    def name_joker(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """A uniformly random suit (or none)."""
        return legal[int(rng.random() * len(legal))]

    def play(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """A uniformly random legal card."""
        return legal[int(rng.random() * len(legal))]


register(RandomStrategy.name)(RandomStrategy)
