"""``expert.v1``'s declarer discard by double-dummy search over sampled deals of the opponents' hands.

At its first discard of a suit or no-trump contract the declarer (who holds the kitty and so knows
every card but the other hands) ranks its cards as ``heuristic.v2`` would throw them, and takes as
candidates ``heuristic.v2``'s own discards (thrown one by one, as it would) and every set of
``kitty_size`` cards among the ``kitty_size + reach`` it would throw first.  Each candidate is played
out double-dummy from the opening lead on the same sampled deals (:func:`expert_bidding.contract_tricks`
with the discards fixed; the joker named as ``heuristic.v2`` names it) and valued as the bidding is
(:func:`expert_bidding.bid_value`: the side's points minus the defenders', ``shift`` tricks lower).
The set of best mean value is thrown unless it beats ``heuristic.v2``'s by less than ``margin`` points.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from fivehundred.sim.cards import mask_of
from fivehundred.sim.engine import KITTY
from fivehundred.strategies.expert_bidding import bid_value, contract_tricks, deal_state

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from fivehundred.sim.engine import SeatView
    from fivehundred.sim.rng import Rng


class FixedDiscard:
    """A stand-in declarer for :func:`contract_tricks`: it throws the cards of ``cards`` (lowest
    first) and names the joker as ``model`` does."""

    def __init__(self, cards: int, model: Any) -> None:
        self.cards = cards
        self.model = model

    def discard(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The lowest card of the set still in the hand."""
        left = self.cards & view.hand
        return (left & -left).bit_length() - 1

    def name_joker(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The model's naming."""
        return int(self.model.name_joker(view, legal, rng))


def ranked_discards(base: Any, view: SeatView, legal: Sequence[int], count: int, rng: Rng) -> list[int]:
    """The first ``count`` cards ``base`` would throw from this view, in its order (asked with the
    cards already chosen left out of ``legal``)."""
    left = list(legal)
    out: list[int] = []
    while left and len(out) < count:
        c = int(base.discard(view, tuple(left), rng))
        out.append(c)
        left.remove(c)
    return out


def sequential_discards(model: Any, view: SeatView, hands: list[int], rng: Rng) -> int:
    """The cards ``model`` throws one by one from the view's kitty exchange (replayed on a deal with
    these other hands: the declarer's own views are the same on every such deal)."""
    st = deal_state(
        view,
        [h if s != view.seat else view.hand & ~(view.kitty or 0) for s, h in enumerate(hands)],
        view.kitty or 0,
    )
    for a in view.bids:
        st.apply(a)
    if not view.bids:
        contract = view.contract
        assert contract is not None
        st.force_contract(contract.code, view.declarer)
    thrown = 0
    while st.phase == KITTY:
        c = int(model.discard(st.view(view.seat), st.legal_actions(), rng))
        thrown |= 1 << c
        st.apply(c)
    return thrown


def discard_candidates(default: int, ranked: list[int], size: int) -> list[int]:
    """``default`` (a card mask) first, then every ``size``-card set of ``ranked``, each once."""
    out = [default]
    for combo in itertools.combinations(ranked, size):
        m = mask_of(combo)
        if m not in out:
            out.append(m)
    return out


def choose_discards(
    view: SeatView,
    worlds: list[tuple[float, list[int]]],
    candidates: list[int],
    model: Any,
    shift: float,
    margin: float,
    points: Callable[..., float],
) -> int:
    """The candidate discard set (card mask) of best weighted mean DD value over ``worlds`` (weight,
    the other hands), ``candidates[0]`` unless another beats it by ``margin`` points."""
    rules = view.rules
    contract = view.contract
    assert contract is not None
    seat = view.seat
    kitty = view.kitty or 0
    values: list[float] = []
    for cand in candidates:
        bot = FixedDiscard(cand, model)
        got = []
        for w, hands in worlds:
            dealt = [h if s != seat else view.hand & ~kitty for s, h in enumerate(hands)]
            got.append((w, contract_tricks(view, dealt, kitty, contract.code, seat, bot)))
        values.append(bid_value(rules, contract, got, shift, points))
    best = 0
    for i, v in enumerate(values):
        if v > values[best] + 1e-9:
            best = i
    if values[best] < values[0] + margin:
        return candidates[0]
    return candidates[best]
