"""``expert.v1``'s bidding: candidate contracts valued by rollouts over sampled deals and kitties.

At a bidding decision the seat draws deals of the cards it cannot see (:func:`sampling.sample_deal`:
the other hands and the kitty), once per deal, and weighs them by the auction so far (the
``expert.v1`` inference: every call of another seat that ``heuristic.v2`` would not have made with
its sampled hand multiplies the weight by ``mismatch``).  For a contract and a declarer the deal is
played out: the declarer takes the kitty, discards and names the joker as ``heuristic.v2`` does,
and ``heuristic.v2`` plays every seat from the opening lead (:func:`contract_tricks`).
:class:`BidWorlds` keeps a seat's sampled deals and every rollout for the deal, so the seat's later
calls re-weigh the same deals and play out only what is new.

``expert.v2`` values a suit or NT contract by a double-dummy solve of each deal after the same
discard and naming instead (:func:`contract_dd_tricks`, :meth:`BidWorlds.dd_tricks`).

:func:`bid_value` turns tricks into the points the declaring side scores minus the defenders'
(:func:`strategies.expert.side_points`, the rules' own ``declarer_points``), read ``shift`` tricks
lower (negative: higher, since the expert declares better than the ``heuristic.v2`` of the
rollouts; docs/strategies.md, expert.v1).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from fivehundred.sim.dd import Position, dd_tricks
from fivehundred.sim.engine import JOKER, KITTY, PLAY, State
from fivehundred.sim.game import play_out
from fivehundred.sim.rng import Rng
from fivehundred.strategies.montecarlo import rollout
from fivehundred.strategies.sampling import sample_deal

if TYPE_CHECKING:
    from collections.abc import Callable

    from fivehundred.sim.rules import Bid, Rules
    from fivehundred.sim.view import SeatView


def deal_state(view: SeatView, hands: list[int], kitty: int) -> State:
    """A state before any call of the view's deal with these hands and kitty (its scores, number)."""
    st = State(view.rules, hands, kitty, view.dealer)
    st.scores = view.scores
    st.hand_no = view.hand_no
    return st


def declared_state(view: SeatView, hands: list[int], kitty: int, code: str, declarer: int, bot: Any) -> State:
    """This deal at its opening lead when ``declarer`` plays ``code``: it has taken the kitty, and
    ``bot`` (a bot drawing nothing, such as ``heuristic.v2``) has discarded and named the joker for
    it."""
    st = deal_state(view, hands, kitty)
    st.force_contract(code, declarer)
    quiet = Rng(0)  # heuristic.v2 draws nothing
    while st.phase == KITTY:
        st.apply(bot.discard(st.view(declarer), st.legal_actions(), quiet))
    while st.phase == JOKER:
        st.apply(bot.name_joker(st.view(declarer), st.legal_actions(), quiet))
    assert st.phase == PLAY
    return st


def contract_tricks(
    view: SeatView, hands: list[int], kitty: int, code: str, declarer: int, bot: Any, roller: Any
) -> int:
    """The declaring side's tricks (misère: 0 made, 1 failed) when ``declarer`` plays ``code`` on
    this deal: it takes the kitty, ``bot`` discards and names the joker for it
    (:func:`declared_state`), and the deal is played out from the opening lead by ``roller`` (a bot
    drawing nothing, such as ``heuristic.v2``) in every seat."""
    st = declared_state(view, hands, kitty, code, declarer, bot)
    play_out(st, rollout(roller.play, Rng(0)))
    won = st.declarer_tricks()
    assert won is not None and st.contract is not None
    return min(won, 1) if st.contract.misere else won


def contract_dd_tricks(
    view: SeatView, hands: list[int], kitty: int, code: str, declarer: int, bot: Any
) -> int:
    """The declaring side's double-dummy tricks (misère: 0 made, 1 failed) when ``declarer`` plays
    ``code`` on this deal, solved from the opening lead after ``bot``'s discard and joker naming
    (:func:`declared_state`)."""
    return dd_tricks(Position.from_state(declared_state(view, hands, kitty, code, declarer, bot)))


def bid_value(
    rules: Rules, contract: Bid, tricks: list[tuple[float, int]], shift: float, points: Callable[..., float]
) -> float:
    """The weighted mean over worlds of ``points(rules, contract, tricks)`` (the declaring side's
    points minus the defenders'), a suit or NT contract read ``shift`` tricks lower: ``k`` =
    ``floor(shift)`` lower, and one more in a ``shift - k`` share of each world, never under 0 (a
    negative ``shift`` reads higher, never over the hand size).  ``tricks``: (weight, tricks) per
    world, the weights summing to more than 0."""
    whole = math.floor(shift)
    part = shift - whole
    top = rules.hand_size
    total = weight = 0.0
    for w, t in tricks:
        if contract.misere:
            v = points(rules, contract, t)
        else:
            v = points(rules, contract, min(max(t - whole, 0), top))
            if part > 0.0:
                v = (1.0 - part) * v + part * points(rules, contract, min(max(t - whole - 1, 0), top))
        total += w * v
        weight += w
    return total / weight


class BidWorlds:
    """One seat's sampled deals for the bidding of one deal, with their rollouts' tricks.

    ``key`` identifies the deal from the seat's view (a new deal starts a new sample); the deals are
    drawn from the seat's rng at its first call, ``count`` of them.
    """

    def __init__(self, view: SeatView, rng: Rng, count: int) -> None:
        self.key = deal_key(view)
        self.deals = [sample_deal(view, rng) for _ in range(count)]
        self.solved: dict[tuple[int, str, int], int] = {}
        self.dd_solved: dict[tuple[int, str, int], int] = {}

    def tricks(self, view: SeatView, i: int, code: str, declarer: int, bot: Any, roller: Any) -> int:
        """:func:`contract_tricks` of deal ``i`` (found once per deal, contract code and declarer)."""
        key = (i, code, declarer)
        hit = self.solved.get(key)
        if hit is None:
            hands, kitty = self.deals[i]
            hit = self.solved[key] = contract_tricks(view, hands, kitty, code, declarer, bot, roller)
        return hit

    def dd_tricks(self, view: SeatView, i: int, code: str, declarer: int, bot: Any) -> int:
        """:func:`contract_dd_tricks` of deal ``i`` (solved once per deal, contract code and
        declarer)."""
        key = (i, code, declarer)
        hit = self.dd_solved.get(key)
        if hit is None:
            hands, kitty = self.deals[i]
            hit = self.dd_solved[key] = contract_dd_tricks(view, hands, kitty, code, declarer, bot)
        return hit


def deal_key(view: SeatView) -> tuple[Any, ...]:
    """What identifies a deal and the seat's hand in its views of the auction."""
    return (view.seat, view.dealer, view.hand_no, view.scores, view.hand, view.rules.name)
