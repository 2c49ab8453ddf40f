"""``expert.v1``: determinized double-dummy search (PIMC) over worlds inferred from the auction and play.

At a play decision with a real choice the bot

1. samples ``worlds * pool`` placements of the cards it cannot see, consistent with everything its
   seat knows (:func:`strategies.sampling.sample_hidden`: cards seen and played, voids shown by the
   play, the declarer's own kitty and discards, a joker the declarer named, the exposed open-misère
   hand);
2. weighs each placement by how likely the auction was with it (``infer``): the auction is replayed
   on the sampled deal and at each call of another seat ``heuristic.v2`` is asked what it would have
   called with that seat's sampled hand; every call it would not have made multiplies the weight by
   ``mismatch``.  A non-declarer does not know the kitty, so the declarer's sampled hand at the
   auction is its hand after the exchange (the kitty is taken to be its discards);
3. keeps the ``worlds`` placements of highest weight (the first drawn on ties), and for each solves
   every legal action double-dummy (:func:`sim.dd.move_values`);
4. turns each action's DD tricks into the points its side would score minus the other side's (made
   or failed contract, overtricks, slam floor, the defenders' 10 a trick, misère) and plays the
   action of best weighted mean; ``heuristic.v2``'s own choice wins ties.

Speed: one decision costs ``worlds`` DD solves of the position, each over all legal actions.  The
pure-Python solver does about 10 full solves a second from the opening lead and is far faster later
in the deal, so ``search_tricks`` bounds the search: with more than ``search_tricks`` tricks left
the bot plays ``heuristic.v2``'s card.  The default (10: always search) is meant for the C solver
(``sim/_ddc.c``): with it, two ``expert.v1`` seats against two ``heuristic.v2`` play about 1.2
deals per CPU second (pagat-au); with the pure solver use e.g. ``expert(search_tricks=7)`` (about
6).  The budget is in tricks, not seconds, so that a decision never depends on the machine's speed
(same seed, same games).

Bidding, the discard and the joker naming are ``heuristic.v2``'s.  The bot reads only its
:class:`~sim.engine.SeatView` and draws every random number from its ``rng``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from fivehundred.sim.dd import Position, move_values
from fivehundred.sim.engine import AUCTION
from fivehundred.sim.rng import Rng
from fivehundred.strategies.base import AuctionOf, boolean, number, register, whole
from fivehundred.strategies.heuristic2 import Heuristic2Strategy
from fivehundred.strategies.sampling import distinct_actions, initial_state, replay_state, sample_hidden

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fivehundred.sim.engine import SeatView, State
    from fivehundred.sim.rules import Bid, Rules

#: Tricks after the first over which the number of worlds rises from ``early_worlds`` to ``worlds``.
RAMP_TRICKS = 3


def side_points(rules: Rules, contract: Bid, tricks: int) -> float:
    """Points of the declaring side minus the defenders' when it takes ``tricks`` (DD value).

    Misère: ``tricks`` is 0 (made) or 1 (failed) and the defenders score nothing.  At a table where
    every seat is its own team the defenders' tricks count half (each scores its own).
    """
    if contract.misere:
        return float(contract.points if tricks == 0 else -contract.points)
    if tricks >= contract.tricks:
        pts = contract.points + rules.overtrick_points * (tricks - contract.tricks)
        if tricks == rules.hand_size and pts < rules.slam_floor:
            pts = rules.slam_floor
    else:
        pts = -contract.points
    return pts - 10.0 * (rules.hand_size - tricks) / (rules.teams - 1)


@register("expert.v1")
class ExpertStrategy(AuctionOf):
    """Determinized double-dummy player.  See the module docstring; parameters in :attr:`PARAMS`."""

    PARAMS: ClassVar[dict[str, Any]] = {
        "worlds": whole(1, 1_000),
        "pool": whole(1, 100),
        "search_tricks": whole(0, 20),
        "infer": boolean,
        "mismatch": number(0.0, 1.0),
        "early_worlds": whole(1, 1_000),
    }
    PARAM_HELP: ClassVar[dict[str, str]] = {
        "worlds": "sampled deals solved double-dummy per play decision (the best-weighted of the pool)",
        "pool": "candidate deals drawn per kept world, before weighting by the auction",
        "search_tricks": "search only with at most this many tricks left; earlier, play heuristic.v2's card",
        "infer": "weight sampled deals by whether heuristic.v2 would have made the calls seen",
        "mismatch": "weight factor of each call heuristic.v2 would not have made in a sampled deal",
        "early_worlds": "worlds at the first trick (the dearest solves); more each trick, all from the "
        "fourth trick on",
    }

    def __init__(
        self,
        worlds: int = 20,
        pool: int = 4,
        search_tricks: int = 10,
        infer: bool = True,
        mismatch: float = 0.1,
        early_worlds: int = 6,
    ) -> None:
        self.worlds, self.pool, self.search_tricks = int(worlds), int(pool), int(search_tricks)
        self.infer, self.mismatch = bool(infer), float(mismatch)
        self.early_worlds = min(int(early_worlds), self.worlds)
        self.base = Heuristic2Strategy()
        #: The model of the other seats' calls (its own instance: no memory shared with ``base``).
        self.model = Heuristic2Strategy()

    # ---------------------------------------------------------------- inference

    def auction_weight(self, view: SeatView, deal: State) -> float:
        """How likely the auction of ``view`` was on the sampled ``deal`` (a state before any call):
        ``mismatch`` to the power of the other seats' calls ``heuristic.v2`` would not have made.

        The auction is applied to ``deal`` on the way (it ends after the last call of the view).
        """
        weight = 1.0
        model = self.model
        quiet = Rng(0)  # heuristic.v2 draws nothing; a fixed stream keeps the weight a pure function
        for a in view.bids:
            seat = deal.turn
            if deal.phase != AUCTION:
                break
            if seat != view.seat:
                legal = deal.legal_actions()
                if len(legal) > 1 and model.bid(deal.view(seat), legal, quiet) != a:
                    weight *= self.mismatch
            deal.apply(a)
        return weight

    def worlds_at(self, tricks_played: int) -> int:
        """Worlds solved at a decision: ``early_worlds`` in the first trick, where a solve costs most,
        rising evenly to ``worlds`` by the fourth trick (:data:`RAMP_TRICKS` after the first)."""
        extra = (self.worlds - self.early_worlds) * tricks_played // RAMP_TRICKS
        return min(self.worlds, self.early_worlds + extra)

    def sample_worlds(self, view: SeatView, rng: Rng) -> list[tuple[float, State]]:
        """Up to :meth:`worlds_at` (weight, state at this decision) pairs, the most likely of that
        number times ``pool``."""
        drawn: list[tuple[float, int, State]] = []
        worlds = self.worlds_at(len(view.trick_winners))
        count = worlds * (self.pool if self.infer and view.bids else 1)
        for k in range(count):
            sample = sample_hidden(view, rng)
            if sample is None:
                continue
            hands, discards = sample
            st = initial_state(view, hands, discards)
            w = self.auction_weight(view, st) if self.infer and view.bids else 1.0
            drawn.append((w, k, replay_state(view, st, discards)))
        drawn.sort(key=lambda x: (-x[0], x[1]))
        return [(w, st) for w, _, st in drawn[:worlds]]

    # ---------------------------------------------------------------- play

    def play(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The action of best weighted mean DD points over the sampled worlds (see the module)."""
        default = self.base.play(view, legal, rng)
        if len(legal) == 1:
            return legal[0]
        rules = view.rules
        if rules.hand_size - len(view.trick_winners) > self.search_tricks:
            return default
        if len(distinct_actions(view, legal)) == 1:
            return default  # touching cards only: every choice is the same
        contract = view.contract
        assert contract is not None
        teams = rules.teams
        declaring = view.seat % teams == view.declarer % teams
        if teams == rules.players and rules.players > 2:  # the 3-player game: defenders defend together
            declaring = view.seat == view.declarer
        sign = 1.0 if declaring else -1.0
        totals = dict.fromkeys(legal, 0.0)
        weight = 0.0
        for w, st in self.sample_worlds(view, rng):
            values = move_values(Position.from_state(st))
            for a in legal:
                totals[a] += w * sign * side_points(rules, contract, values[a])
            weight += w
        if weight <= 0.0:
            return default
        best = default
        best_v = totals[default]
        for a in legal:  # ascending: the lowest action among equals when the default is beaten
            if totals[a] > best_v + 1e-9 * weight:
                best, best_v = a, totals[a]
        return best
