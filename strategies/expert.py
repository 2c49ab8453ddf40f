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

With more than ``dd_tricks`` tricks left, steps 3-4 are replaced by ``heuristic.v2`` rollouts of each
card on ``rollout_worlds`` of those worlds (:mod:`strategies.expert_rollout`).

Speed: one decision costs ``worlds`` DD solves of the position, each over all legal actions
(the C solver ``sim/_ddc.c``; docs/strategies.md has the measured deals per second).
``search_tricks`` bounds the search: with more than ``search_tricks`` tricks left the bot plays
``heuristic.v2``'s card (default 10: always search).  The budget is in tricks and worlds, not
seconds, so that a decision never depends on the machine's speed (same seed, same games).

In the bidding (:meth:`ExpertStrategy.dd_bid`, :mod:`strategies.expert_bidding`) the seat draws
``bid_worlds * bid_pool`` deals of the cards it cannot see (other hands and kitty) at its first call
of the deal, keeps the ``bid_worlds`` the auction so far makes most likely (the same inference), and
values each candidate contract (the denominations its estimate nearly reaches, misère when the hand
suits it) on each: the declarer takes the kitty and discards as ``heuristic.v2`` does, then the deal
is played out from the opening lead by ``heuristic.v2`` in every seat, and its tricks are read
``bid_shift`` tricks lower (-0.5: half a trick higher, since the expert declares better than v2).
Passing is worth the held contract's value (a partner's: for the side; an opponent's: against it)
or ``pass_value`` when nobody has bid.  The values are kept for the deal, so a later call re-weighs
the same deals.  ``bid_worlds=0`` bids as ``heuristic.v2`` (with ``bid_boost``); so does a table
with more than ``bid_cards`` cards in the hands.

The joker naming (:meth:`ExpertStrategy.name_joker`) is valued by DD, each legal naming solved on
``name_worlds`` deals.  The discard is ``heuristic.v2``'s.

The seat's own calls are ``heuristic.v2``'s with its trick estimates raised by ``bid_boost`` (0.5:
the expert makes contracts v2's table, fitted on v2's play, counts as failing; the value was chosen
by duplicate matches, docs/experiments/bots.md), and a partner's calls are read with the same model.
The bot reads only its :class:`~sim.engine.SeatView` and draws every random number from its ``rng``.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from fivehundred.sim.cards import bits, mask_of
from fivehundred.sim.dd import Position, dd_tricks, move_values
from fivehundred.sim.engine import AUCTION, BID, NAME_NONE, NAME_SUIT, PASS
from fivehundred.sim.notation import NT, played_card
from fivehundred.sim.rng import Rng
from fivehundred.strategies.base import AuctionOf, boolean, number, register, whole
from fivehundred.strategies.estimates import live_fraction, misere_danger
from fivehundred.strategies.expert_bidding import BidWorlds, bid_value, contract_tricks, deal_key, deal_state
from fivehundred.strategies.expert_rollout import rollout_play
from fivehundred.strategies.heuristic2 import Heuristic2Strategy
from fivehundred.strategies.sampling import (
    distinct_actions,
    initial_state,
    replay_to_play,
    sample_deal,
    sample_hidden,
)
from fivehundred.strategies.tables import rules_info

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fivehundred.sim.engine import State
    from fivehundred.sim.rules import Bid, Rules
    from fivehundred.sim.view import SeatView

#: The misère risk (``heuristic``'s) up to which the bidding values a legal misère bid.
MISERE_REACH = 3.0
#: How many denominations the bidding values at most (those whose estimate reaches their cheapest
#: legal bid best), besides ``heuristic.v2``'s own choice.
BID_DENOMINATIONS = 2
#: Tricks after the first over which the number of worlds rises from ``early_worlds`` to ``worlds``.
RAMP_TRICKS = 3

_T = TypeVar("_T")


def likeliest(drawn: Sequence[tuple[float, _T]], count: int) -> list[tuple[float, _T]]:
    """The ``count`` (weight, item) pairs of highest weight of ``drawn`` (in the order drawn), the
    first drawn on ties: how every search of the expert keeps its most likely worlds of a pool."""
    return sorted(drawn, key=lambda x: -x[0])[:count]


def ramp_worlds(early: int, top: int, tricks_played: int) -> int:
    """Worlds at a decision after ``tricks_played`` tricks: ``early`` (at most ``top``) in the first
    trick, rising evenly to ``top`` by the fourth (:data:`RAMP_TRICKS` after the first)."""
    return min(top, early + (top - early) * tricks_played // RAMP_TRICKS)


def side_points(rules: Rules, contract: Bid, tricks: int) -> float:
    """Points of the declaring side minus the defenders' when it takes ``tricks`` (DD value).

    Both scores are the rules' own, as the engine scores a deal: the declarer's
    (:meth:`~sim.rules.Rules.declarer_points`: made or failed, overtricks, slam floor, misère) and
    the defenders' (:meth:`~sim.rules.Rules.defender_points`: a suit or NT contract's tricks; nothing
    in misère, where ``tricks`` is 0 (made) or 1 (failed)).  At a table where every seat is its own
    team the defenders' points count half (each scores its own).
    """
    pts = float(rules.declarer_points(contract, tricks))
    if contract.misere:
        return pts
    return pts - rules.defender_points(rules.hand_size - tricks) / (rules.teams - 1)


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


@register("expert.v1")
class ExpertStrategy(AuctionOf):
    """Determinized double-dummy player.  See the module docstring; parameters in :attr:`PARAMS`."""

    #: One line on what it is (``fivehundred strategies``).
    summary: ClassVar[str] = "samples deals that fit the auction, solves them double dummy (strongest, slow)"

    #: Each parameter once: its validator, its default and what it does (``PARAMS``, ``PARAM_HELP``
    #: and the constructor's defaults are read from here).
    SETTINGS: ClassVar[dict[str, tuple[Any, Any, str]]] = {
        "worlds": (
            whole(1, 1_000),
            20,
            "sampled deals solved double-dummy per play decision (the best-weighted of the pool)",
        ),
        "pool": (whole(1, 100), 4, "candidate deals drawn per kept world, before weighting by the auction"),
        "search_tricks": (
            whole(0, 20),
            10,
            "search only with at most this many tricks left; earlier, play heuristic.v2's card",
        ),
        "infer": (
            boolean,
            True,
            "weight sampled deals by whether heuristic.v2 would have made the calls seen",
        ),
        "mismatch": (
            number(0.0, 1.0),
            0.1,
            "weight factor of each call heuristic.v2 would not have made in a sampled deal",
        ),
        "early_worlds": (
            whole(1, 1_000),
            6,
            "worlds at the first trick (the dearest solves); more each trick, all from the fourth trick on",
        ),
        "bid_worlds": (
            whole(0, 200),
            100,
            "sampled deals (hands and kitty) on which each candidate contract is valued in the bidding "
            "by a heuristic.v2 rollout (0: bid as heuristic.v2)",
        ),
        "bid_pool": (whole(1, 20), 3, "bidding deals drawn per kept one, before weighting by the auction"),
        "bid_reach": (
            number(0.0, 5.0),
            1.0,
            "a denomination is valued when heuristic's estimate is at most this many tricks under its "
            "cheapest legal bid",
        ),
        "bid_shift": (
            number(-3.0, 3.0),
            -0.5,
            "tricks under the rollout's count at which a bidding world is valued (negative: over it; "
            "heuristic.v2's rollouts take fewer tricks than the expert declares)",
        ),
        "bid_margin": (
            number(0.0, 500.0),
            20.0,
            "points by which a call must beat heuristic.v2's own call, both valued the same way, to be "
            "made instead",
        ),
        "name_worlds": (
            whole(0, 200),
            5,
            "sampled deals solved per legal joker naming in NT and misère (0: name as heuristic.v2)",
        ),
        "bid_cards": (
            whole(0, 200),
            40,
            "the valued bidding and the DD naming only with at most this many cards in the hands (a "
            "full-deal DD solve of the six-player table's 60 takes seconds)",
        ),
        "pass_value": (
            number(-500.0, 500.0),
            0.0,
            "points a pass is worth when no one holds a bid (a bid must beat it)",
        ),
        "dd_tricks": (
            whole(0, 20),
            6,
            "solve double-dummy only with at most this many tricks left; earlier, value each card by "
            "heuristic.v2 rollouts on rollout_worlds worlds (20: always DD)",
        ),
        "rollout_worlds": (
            whole(1, 1_000),
            20,
            "worlds (the best-weighted of the pool) on which each card is rolled out, before dd_tricks",
        ),
        "bid_boost": (
            number(-3.0, 3.0),
            0.5,
            "tricks added to heuristic.v2's estimates in the seat's own bidding (the expert plays its "
            "contracts better than the v2 the table was fitted on)",
        ),
    }
    PARAMS: ClassVar[dict[str, Any]] = {k: v[0] for k, v in SETTINGS.items()}
    PARAM_HELP: ClassVar[dict[str, str]] = {k: v[2] for k, v in SETTINGS.items()}

    worlds: int
    pool: int
    search_tricks: int
    infer: bool
    mismatch: float
    early_worlds: int
    bid_worlds: int
    bid_pool: int
    bid_reach: float
    bid_shift: float
    bid_margin: float
    name_worlds: int
    bid_cards: int
    pass_value: float
    bid_boost: float
    dd_tricks: int
    rollout_worlds: int

    def __init__(self, **params: Any) -> None:
        """The parameters of :attr:`SETTINGS` by name (the defaults for those not given)."""
        unknown = sorted(set(params) - set(self.SETTINGS))
        if unknown:
            raise TypeError(
                f"unknown parameter(s) {', '.join(unknown)} (parameters: {', '.join(self.SETTINGS)})"
            )
        for key, (_, default, _) in self.SETTINGS.items():
            setattr(self, key, type(default)(params.get(key, default)))
        self.early_worlds = min(self.early_worlds, self.worlds)
        self.base = Heuristic2Strategy()
        #: The seat's own calls: heuristic.v2 with its estimates raised by ``bid_boost``.
        self.bidder = Heuristic2Strategy(aggression=self.bid_boost) if self.bid_boost else self.base
        #: The model of the other seats' calls and of a sampled declarer's discards and joker naming
        #: (its own instance: no memory shared with ``base``).
        self.model = Heuristic2Strategy()
        #: The rollouts' player in every seat (:mod:`strategies.expert_rollout`).
        self.roller = Heuristic2Strategy()
        #: The model of a partner's calls: a partner is taken to bid as this seat does.
        self.partner_model = Heuristic2Strategy(aggression=self.bid_boost) if self.bid_boost else self.model
        #: Per seat: the bidding deals of its current deal and their solves.
        self._bidding: dict[int, BidWorlds] = {}

    # ---------------------------------------------------------------- inference

    def auction_weight(self, view: SeatView, deal: State) -> float:
        """How likely the auction of ``view`` was on the sampled ``deal`` (a state before any call):
        ``mismatch`` to the power of the other seats' calls ``heuristic.v2`` would not have made.

        The auction is applied to ``deal`` on the way (it ends after the last call of the view).
        """
        weight = 1.0
        me = view.seat
        teams = view.rules.teams
        partnered = teams < view.rules.players
        quiet = Rng(0)  # heuristic.v2 draws nothing; a fixed stream keeps the weight a pure function
        for a in view.bids:
            seat = deal.turn
            if deal.phase != AUCTION:
                break
            if seat != me:
                legal = deal.legal_actions()
                if len(legal) > 1:
                    partner = partnered and seat % teams == me % teams
                    model = self.partner_model if partner else self.model
                    if model.bid(deal.view(seat), legal, quiet) != a:
                        weight *= self.mismatch
            deal.apply(a)
        return weight

    def worlds_at(self, tricks_played: int) -> int:
        """Worlds solved at a decision: ``early_worlds`` in the first trick, where a solve costs most,
        rising evenly to ``worlds`` by the fourth trick (:data:`RAMP_TRICKS` after the first)."""
        return ramp_worlds(self.early_worlds, self.worlds, tricks_played)

    def sample_worlds(self, view: SeatView, rng: Rng, worlds: int = 0) -> list[tuple[float, State]]:
        """Up to ``worlds`` (default :meth:`worlds_at`) (weight, state at this decision) pairs, the
        most likely of that number times ``pool``."""
        drawn: list[tuple[float, State]] = []
        worlds = worlds or self.worlds_at(len(view.trick_winners))
        count = worlds * (self.pool if self.infer and view.bids else 1)
        for _ in range(count):
            sample = sample_hidden(view, rng)
            if sample is None:
                continue
            hands, discards = sample
            st = initial_state(view, hands, discards)
            w = self.auction_weight(view, st) if self.infer and view.bids else 1.0
            st = replay_to_play(view, st, discards)
            for _, a in view.plays:
                st.apply(a)
            drawn.append((w, st))
        return likeliest(drawn, worlds)

    def rollout_worlds_at(self, view: SeatView) -> int:
        """Worlds on which the seat rolls each card out (before the DD search): ``rollout_worlds``."""
        return self.rollout_worlds

    def dd_limit(self, view: SeatView, contract: Bid) -> int:
        """The tricks left from which the seat's play is searched double-dummy (earlier: rollouts):
        ``dd_tricks`` in every contract."""
        return self.dd_tricks

    # ---------------------------------------------------------------- bidding

    def bid(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The call of best expected points over the sampled deals (see :meth:`dd_bid`), or
        ``heuristic.v2``'s where the search has nothing to weigh."""
        default = int(self.bidder.bid(view, legal, rng))
        rules = view.rules
        if len(legal) == 1 or self.bid_worlds == 0 or view.high_bidder == view.seat:
            return default  # forced, switched off, or the declarer raise turn (v2's raise)
        if rules.players * rules.hand_size > self.bid_cards:
            return default  # a full-deal solve costs too much at this table
        if default != PASS and rules.ladder[default - BID].blind:
            return default  # blind misère is called from the scores, without the hand
        return self.dd_bid(view, legal, rng, default)

    def bid_worlds_of(self, view: SeatView, rng: Rng) -> tuple[BidWorlds, list[tuple[float, int]]]:
        """The seat's bidding deals of this deal (drawn at its first call) and the ``bid_worlds``
        most likely after the auction so far, as (weight, index) pairs (the first drawn on ties)."""
        worlds = self._bidding.get(view.seat)
        if worlds is None or worlds.key != deal_key(view):
            count = self.bid_worlds * (self.bid_pool if self.infer else 1)
            worlds = self._bidding[view.seat] = BidWorlds(view, rng, count)
        weighed: list[tuple[float, int]] = []
        for i, (hands, kitty) in enumerate(worlds.deals):
            w = self.auction_weight(view, deal_state(view, hands, kitty)) if self.infer and view.bids else 1.0
            weighed.append((w, i))
        weighed = likeliest(weighed, self.bid_worlds)
        if weighed and weighed[0][0] <= 0.0:  # mismatch 0 and no deal fits the auction: count them alike
            weighed = [(1.0, i) for _, i in weighed]
        return worlds, weighed

    def bid_candidates(self, view: SeatView, legal: Sequence[int], default: int) -> list[list[int]]:
        """The calls the bidding values, in groups that share one rollout per world: each
        candidate denomination's legal bids (cheapest first), then the legal misère bids.

        A denomination is a candidate when ``heuristic``'s estimate reaches its cheapest legal bid
        within ``bid_reach`` tricks (the :data:`BID_DENOMINATIONS` that reach it best), and
        ``default``'s always is; misère when the hand's risk is at most :data:`MISERE_REACH`.  Once
        the cheapest bid of a denomination would win the game it is the only one of its group
        (making it wins: no jump), and so while others may still speak where the rules give the
        declarer a raise (the raise turn jumps).
        """
        rules = view.rules
        ladder = rules.ladder
        base = self.base
        groups: list[list[int]] = [[] for _ in range(5)]
        miseres: list[int] = []
        for a in legal:
            if a == PASS:
                continue
            b = ladder[a - BID]
            if b.misere:
                if not b.blind:
                    miseres.append(a)
            else:
                groups[b.trump].append(a)
        est = base.estimates(view)
        cands = [
            t for t in range(5) if groups[t] and est[t] >= ladder[groups[t][0] - BID].tricks - self.bid_reach
        ]
        cands.sort(key=lambda t: (ladder[groups[t][0] - BID].tricks - est[t], t))  # the best reach first
        cands = cands[:BID_DENOMINATIONS]
        if default != PASS and not ladder[default - BID].misere and ladder[default - BID].trump not in cands:
            cands.append(ladder[default - BID].trump)
        scores = view.scores
        score = scores[view.seat % rules.teams] if scores else 0
        raise_later = rules.declarer_raise and sum(view.passed) < rules.players - 1
        out: list[list[int]] = []
        for t in cands:
            group = groups[t]
            if raise_later or score + ladder[group[0] - BID].points >= rules.win_score:
                group = group[:1]
            out.append(group)
        if (
            miseres
            and base.misere
            and base._misere_risk(view.seat, view.hand, rules_info(rules)) <= MISERE_REACH
        ):
            out.append(miseres)
        return out

    def dd_bid(self, view: SeatView, legal: Sequence[int], rng: Rng, default: int) -> int:
        """Value the :meth:`bid_candidates` over the bidding deals (:func:`bid_value` of each deal's
        ``heuristic.v2`` rollout, misère bids made when the declarer takes no trick), and passing by
        the contract held (a partner's: its worth to the side; an opponent's: minus its worth to
        them; none: ``pass_value``); call the best (a pass on ties), unless ``default``
        (``heuristic.v2``'s call) is valued within ``bid_margin`` of it."""
        rules = view.rules
        ladder = rules.ladder
        groups = self.bid_candidates(view, legal, default)
        if not groups:
            return default
        worlds, chosen = self.bid_worlds_of(view, rng)
        seat = view.seat
        teams = rules.teams
        held = view.high_bid
        holder = view.high_bidder
        if held is None:
            pass_v = self.pass_value
        else:
            v = self.contract_value(view, worlds, chosen, held, holder, held.code)
            pass_v = v if holder % teams == seat % teams and teams < rules.players else -v
        values: dict[int, float] = {PASS: pass_v}
        for group in groups:
            first = ladder[group[0] - BID]
            for a in group:  # a misère bid played out alone (made when the declarer takes no trick)
                b = ladder[a - BID]
                code = b.code if b.misere else first.code
                values[a] = self.contract_value(view, worlds, chosen, b, seat, code)
        best = next(iter(values))
        for a, v in values.items():
            if v > values[best] + 1e-9:
                best = a
        if default in values and values[best] < values[default] + self.bid_margin:
            return default  # v2's call, unless the rollouts value another clearly higher
        return best

    def contract_value(
        self,
        view: SeatView,
        worlds: BidWorlds,
        chosen: list[tuple[float, int]],
        contract: Bid,
        declarer: int,
        code: str,
    ) -> float:
        """``contract``'s worth to its declaring side on the bidding deals ``chosen`` (weight, index):
        :func:`bid_value` of each deal's rollout of ``code`` by ``declarer`` (a suit group's
        cheapest bid: the bids of one denomination share their rollouts)."""
        model, roller = self.model, self.roller
        got = [(w, worlds.tricks(view, i, code, declarer, model, roller)) for w, i in chosen]
        return bid_value(view.rules, contract, got, self.bid_shift, side_points)

    # ---------------------------------------------------------------- joker naming

    def name_joker(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The naming of best mean DD points over ``name_worlds`` sampled deals (the most likely of
        ``name_worlds * bid_pool`` after the auction), solved from the opening lead with each legal
        naming; ``heuristic.v2``'s naming wins ties.  With two jokers in the hand (or
        ``name_worlds=0``, or a table over ``bid_cards``) it is ``heuristic.v2``'s naming."""
        default = int(self.base.name_joker(view, legal, rng))
        rules = view.rules
        if len(legal) == 1 or self.name_worlds == 0 or rules.players * rules.hand_size > self.bid_cards:
            return default
        held = [j for j, c in enumerate(rules.deck.jokers) if view.hand >> c & 1]
        contract = view.contract
        if len(held) != 1 or contract is None:
            return default
        seat = view.seat
        discards = view.discards or 0
        drawn: list[tuple[float, list[int]]] = []
        for _ in range(self.name_worlds * (self.bid_pool if self.infer else 1)):
            hands, _ = sample_deal(view, rng)
            w = self.auction_weight(view, initial_state(view, hands, discards)) if self.infer else 1.0
            drawn.append((w, hands))
        team = seat % rules.teams
        active = [not contract.misere or s == seat or s % rules.teams != team for s in range(rules.players)]
        totals = dict.fromkeys(legal, 0.0)
        for w, hands in likeliest(drawn, self.name_worlds):
            shown = tuple(h if active[s] else 0 for s, h in enumerate(hands))
            for a in legal:
                named = list(view.jokers_named)
                named[held[0]] = a - NAME_SUIT if a != NAME_NONE else -1
                pos = Position(rules, contract, seat, seat, shown, tuple(named))
                totals[a] += (w or 1e-12) * side_points(rules, contract, dd_tricks(pos))
        best, best_v = default, totals[default]
        for a in legal:
            if totals[a] > best_v + 1e-9:
                best, best_v = a, totals[a]
        return best

    # ---------------------------------------------------------------- play

    def play(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The action of best weighted mean DD points over the sampled worlds (see the module)."""
        default = self.base.play(view, legal, rng)
        if len(legal) == 1:
            return legal[0]
        rules = view.rules
        left = rules.hand_size - len(view.trick_winners)
        if left > self.search_tricks:
            return default
        if len(distinct_actions(view, legal)) == 1:
            return default  # touching cards only: every choice is the same
        contract = view.contract
        assert contract is not None
        if left <= self.dd_limit(view, contract):
            return self.dd_play(view, legal, rng, default)
        early = self.early_dd_worlds(view, legal, left)
        if early:
            return self.dd_play(view, legal, rng, default, early)
        return rollout_play(self, view, legal, rng, default)

    def rollout_handicap(self, view: SeatView, action: int) -> float:
        """Points a rollout candidate's mean result is lowered by before the best is chosen (v1: 0)."""
        return 0.0

    def early_dd_worlds(self, view: SeatView, legal: Sequence[int], left: int) -> int:
        """Worlds of a double-dummy search of a decision with more than :meth:`dd_limit` tricks
        ``left`` (0: the cards are rolled out; v1 always)."""
        return 0

    def dd_play(self, view: SeatView, legal: Sequence[int], rng: Rng, default: int, worlds: int = 0) -> int:
        """The action of best weighted mean DD points over :meth:`sample_worlds` (``worlds`` of them
        when given; ``default``, ``heuristic.v2``'s card, wins ties)."""
        rules = view.rules
        contract = view.contract
        assert contract is not None
        teams = rules.teams
        declaring = view.seat % teams == view.declarer % teams
        if teams == rules.players and rules.players > 2:  # the 3-player game: defenders defend together
            declaring = view.seat == view.declarer
        sign = 1.0 if declaring else -1.0
        totals = dict.fromkeys(legal, 0.0)
        weight = 0.0
        for w, st in self.sample_worlds(view, rng, worlds):
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


@register("expert.v2")
class Expert2Strategy(ExpertStrategy):
    """``expert.v1`` with its misère play and its defence searched on more worlds, and the play of suit
    and NT contracts searched double-dummy from the first trick.

    Every double-dummy search of a misère's play is over ``misere_worlds`` (40) sampled worlds from
    the first trick (v1: 6 in the first trick, rising to 20), and every misère rollout over
    ``misere_rollout_worlds`` (60; v1: 20).  A defender of an open misère solves double-dummy from
    the first trick (``misere_dd_tricks``): once the hand is down its worlds differ only in its
    partner's cards.  A closed misère's defenders (``closed_dd_tricks``) and the declarer roll the
    early tricks out as v1 does (a DD declarer from the first trick made fewer misères).  A misère's
    DD solve is cheap, so this spends little of the speed v1 leaves over the target.  A defender of
    a suit or NT contract rolls out on ``defence_rollout_worlds`` (60) and solves DD on
    ``defence_early_worlds`` (12) rising to ``defence_worlds`` (40) (v1: 20, and 6 to 20).  Every
    seat of a suit or NT contract solves double-dummy from ``suit_dd_tricks`` (20: from the first
    trick) where v1 rolls the cards out until 6 tricks are left: with today's solver the DD search is
    as cheap as the rollouts, and on fixed contracts it makes more (the defence's rollout worlds then
    go unused).  A misère declarer chooses its discards by rollouts
    (:meth:`misere_discards`, ``misere_discard_worlds``).  In the bidding a suit or NT contract is
    valued by double-dummy solves (after ``heuristic.v2``'s discard) on the ``bid_dd_worlds`` (50)
    likeliest of v1's bidding deals, read ``bid_dd_shift`` (half a trick) lower, where v1 rolls it
    out with ``heuristic.v2`` on 100 (:meth:`contract_value`); a misère bid is valued by v1's
    rollouts.  The suit and NT discards and the naming are v1's.  ``joker_dd_tricks``
    (off by default) searches a joker decision (the joker and another card to play) of a suit or NT
    contract double-dummy on ``joker_worlds`` before ``dd_tricks`` (moot while ``suit_dd_tricks``
    searches from the first trick).  (Until 2026-12-05
    expert.v2 searched every misère decision, the declarer's too, DD from the first trick on v1's
    worlds.)
    """

    SETTINGS: ClassVar[dict[str, tuple[Any, Any, str]]] = {
        **ExpertStrategy.SETTINGS,
        "misere_dd_tricks": (
            whole(0, 20),
            20,
            "a defender of an open misère solves double-dummy with at most this many tricks left "
            "(earlier: rollouts)",
        ),
        "closed_dd_tricks": (
            whole(0, 20),
            6,
            "a defender of a closed (or blind) misère solves double-dummy with at most this many "
            "tricks left (earlier: rollouts)",
        ),
        "suit_dd_tricks": (
            whole(0, 20),
            20,
            "a suit or NT contract's play (every seat's) is solved double-dummy with at most this many "
            "tricks left, earlier rolled out (0: dd_tricks)",
        ),
        "misere_worlds": (
            whole(1, 1_000),
            40,
            "worlds of every double-dummy search of a misère's play (the declarer's and the defenders')",
        ),
        "defence_worlds": (
            whole(0, 1_000),
            40,
            "worlds of a suit or NT contract's defender's DD search from the fourth trick on (0: worlds)",
        ),
        "defence_early_worlds": (
            whole(0, 1_000),
            12,
            "the same in the first trick, rising to defence_worlds (0: early_worlds)",
        ),
        "defence_rollout_worlds": (
            whole(0, 1_000),
            60,
            "worlds on which a suit or NT contract's defender rolls each card out (0: rollout_worlds)",
        ),
        "misere_rollout_worlds": (
            whole(1, 1_000),
            60,
            "worlds on which each card of a misère is rolled out (the declarer's early tricks and a "
            "closed misère's defenders'), before the DD search",
        ),
        "joker_dd_tricks": (
            whole(0, 20),
            0,
            "a joker decision of a suit or NT contract (the joker and another card to play) is searched "
            "double-dummy with at most this many tricks left, before dd_tricks (0: rolled out as v1)",
        ),
        "joker_worlds": (
            whole(1, 1_000),
            20,
            "worlds of such an early joker search",
        ),
        "joker_margin": (
            number(0.0, 500.0),
            0.0,
            "points by which the joker's rollout value (suit and NT) must beat another card's to be played",
        ),
        "misere_discard_worlds": (
            whole(0, 1_000),
            40,
            "a misère declarer's discard: each candidate set rolled out on this many sampled deals of "
            "the other hands, the set made most often thrown (0: heuristic.v2's discard)",
        ),
        "misere_discard_reach": (
            whole(0, 10),
            3,
            "misère discard candidates: heuristic.v2's discards and every kitty-sized set of the kitty "
            "size + this many most dangerous cards (then the highest)",
        ),
        "bid_dd_worlds": (
            whole(0, 200),
            50,
            "the bidding values a suit or NT contract by double-dummy solves (after heuristic.v2's "
            "discard) on this many of its likeliest bidding deals (0: by the rollouts only)",
        ),
        "bid_dd_shift": (
            number(-3.0, 3.0),
            0.5,
            "tricks under the double-dummy count at which such a bidding deal is valued",
        ),
        "bid_dd_mix": (
            number(0.0, 1.0),
            1.0,
            "the double-dummy value's share of a suit or NT contract's worth (the rest: the rollouts')",
        ),
    }
    PARAMS: ClassVar[dict[str, Any]] = {k: v[0] for k, v in SETTINGS.items()}
    PARAM_HELP: ClassVar[dict[str, str]] = {k: v[2] for k, v in SETTINGS.items()}

    misere_dd_tricks: int
    closed_dd_tricks: int
    suit_dd_tricks: int
    misere_worlds: int
    misere_rollout_worlds: int
    defence_worlds: int
    defence_early_worlds: int
    defence_rollout_worlds: int
    joker_dd_tricks: int
    joker_worlds: int
    joker_margin: float
    misere_discard_worlds: int
    misere_discard_reach: int
    bid_dd_worlds: int
    bid_dd_shift: float
    bid_dd_mix: float

    def __init__(self, **params: Any) -> None:
        """The parameters of :attr:`SETTINGS` by name (the defaults for those not given)."""
        super().__init__(**params)
        #: Per seat: the deal's key and the misère discard set chosen at its first discard.
        self._discards: dict[int, tuple[tuple[Any, ...], int]] = {}

    def discard(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """In a misère with ``misere_discard_worlds``: one card of the set chosen at the first discard
        (:meth:`misere_discards`; ``heuristic.v2``'s card when it is in the set); else v2's discard."""
        default = int(self.base.discard(view, legal, rng))
        rules = view.rules
        contract = view.contract
        if (
            self.misere_discard_worlds == 0
            or contract is None
            or not contract.misere
            or view.kitty is None
            or rules.players * rules.hand_size > self.bid_cards
        ):
            return default
        key = (view.seat, view.dealer, view.hand_no, view.scores, view.bids, view.kitty, rules.name)
        plan = self._discards.get(view.seat)
        if plan is None or plan[0] != key:
            if view.discards:
                return default  # a plan is made at the first discard only
            plan = self._discards[view.seat] = (key, self.misere_discards(view, rng))
        left = plan[1] & view.hand
        if not left or left >> default & 1:
            return default
        card = (left & -left).bit_length() - 1
        return card if card in legal else default

    def misere_discards(self, view: SeatView, rng: Rng) -> int:
        """The misère declarer's discard set (a card mask; 0: ``heuristic.v2``'s own, thrown one by
        one): of v2's discards and every kitty-sized set of the ``kitty_size + misere_discard_reach``
        most dangerous cards (by :func:`misere_danger`, then the highest), the one made most often by
        rollouts (v2 in every seat) on the ``misere_discard_worlds`` most likely of that number times
        ``bid_pool`` deals of the other hands, the same deals for every set; v2's set wins ties."""
        count = self.misere_discard_worlds
        rules = view.rules
        contract = view.contract
        assert contract is not None
        info = rules_info(rules)
        seat = view.seat
        kitty = view.kitty or 0
        infer = self.infer and bool(view.bids)
        drawn: list[tuple[float, list[int]]] = []
        for _ in range(count * (self.bid_pool if infer else 1)):
            hands, _ = sample_deal(view, rng)
            dealt = [h if s != seat else view.hand & ~kitty for s, h in enumerate(hands)]
            w = self.auction_weight(view, deal_state(view, dealt, kitty)) if infer else 1.0
            drawn.append((w, dealt))
        worlds = [(w or 1e-12, dealt) for w, dealt in likeliest(drawn, count)]
        size = info.kitty_size
        reach = size + self.misere_discard_reach
        ranked = [c for _, c in misere_danger(info, view.hand, live_fraction(info, 2))]  # as v2's discard
        strength = info.suit_info[NT].strength
        ranked += sorted((c for c in bits(view.hand) if c not in ranked), key=lambda c: (-strength[c], c))
        candidates = [0, *(mask_of(combo) for combo in itertools.combinations(ranked[:reach], size))]
        model = self.model
        values: list[float] = []
        for cand in candidates:
            bot = FixedDiscard(cand, model) if cand else model
            got = [
                (w, contract_tricks(view, dealt, kitty, contract.code, seat, bot, self.roller))
                for w, dealt in worlds
            ]
            values.append(bid_value(rules, contract, got, self.bid_shift, side_points))
        best = 0
        for i, v in enumerate(values):
            if v > values[best] + 1e-9:
                best = i
        return candidates[best]

    def contract_value(
        self,
        view: SeatView,
        worlds: BidWorlds,
        chosen: list[tuple[float, int]],
        contract: Bid,
        declarer: int,
        code: str,
    ) -> float:
        """With ``bid_dd_worlds``, a suit or NT contract's worth is ``bid_dd_mix`` of its
        :func:`bid_value` over double-dummy solves on the ``bid_dd_worlds`` likeliest of ``chosen``
        (read ``bid_dd_shift`` tricks lower) and the rest v1's rollout value; otherwise v1's."""
        mix = self.bid_dd_mix if self.bid_dd_worlds and not contract.misere else 0.0
        value = 0.0
        if mix < 1.0:
            value += (1.0 - mix) * super().contract_value(view, worlds, chosen, contract, declarer, code)
        if mix > 0.0:
            model = self.model
            top = chosen[: self.bid_dd_worlds]
            got = [(w, worlds.dd_tricks(view, i, code, declarer, model)) for w, i in top]
            value += mix * bid_value(view.rules, contract, got, self.bid_dd_shift, side_points)
        return value

    @staticmethod
    def suit_defender(view: SeatView) -> bool:
        """Whether the seat defends a suit or NT contract (in the 3-player game: is not the declarer)."""
        contract = view.contract
        if contract is None or contract.misere:
            return False
        teams = view.rules.teams  # one seat a side in the 3-player game: seat % teams is the seat
        return view.seat % teams != view.declarer % teams

    def early_dd_worlds(self, view: SeatView, legal: Sequence[int], left: int) -> int:
        """``joker_worlds`` for a joker decision of a suit or NT contract (the joker and another card
        legal) with at most ``joker_dd_tricks`` tricks left; else 0 (rollouts)."""
        contract = view.contract
        if left > self.joker_dd_tricks or contract is None or contract.misere:
            return 0
        jokers = view.rules.deck.jokers
        if not any(view.hand >> c & 1 for c in jokers):
            return 0
        joker = [played_card(view.rules.deck, a) in jokers for a in legal]
        return self.joker_worlds if any(joker) and not all(joker) else 0

    def rollout_handicap(self, view: SeatView, action: int) -> float:
        """``joker_margin`` for a joker played in a suit or NT contract; else 0."""
        if not self.joker_margin:
            return 0.0
        contract = view.contract
        if contract is None or contract.misere:
            return 0.0
        return self.joker_margin if played_card(view.rules.deck, action) in view.rules.deck.jokers else 0.0

    def rollout_worlds_at(self, view: SeatView) -> int:
        """``misere_rollout_worlds`` in a misère, ``rollout_worlds`` otherwise."""
        contract = view.contract
        if contract is not None and contract.misere:
            return self.misere_rollout_worlds
        if self.defence_rollout_worlds and self.suit_defender(view):
            return self.defence_rollout_worlds
        return self.rollout_worlds

    @staticmethod
    def misere_defender(view: SeatView) -> bool:
        """Whether the seat defends a misère."""
        contract = view.contract
        return contract is not None and contract.misere and view.seat != view.declarer

    def dd_limit(self, view: SeatView, contract: Bid) -> int:
        """For a misère's defender ``misere_dd_tricks`` (open) or ``closed_dd_tricks``; in a suit or
        NT contract ``suit_dd_tricks`` when set; ``dd_tricks`` otherwise (a misère's declarer)."""
        if self.misere_defender(view):
            return self.misere_dd_tricks if contract.open else self.closed_dd_tricks
        if self.suit_dd_tricks and not contract.misere:
            return self.suit_dd_tricks
        return self.dd_tricks

    def sample_worlds(self, view: SeatView, rng: Rng, worlds: int = 0) -> list[tuple[float, State]]:
        """v1's worlds; a DD search (``worlds`` 0) draws ``misere_worlds`` in a misère, and a suit
        or NT contract's defender's ``defence_worlds`` (from ``defence_early_worlds``) when set."""
        contract = view.contract
        if worlds == 0 and contract is not None and contract.misere:
            worlds = self.misere_worlds
        elif worlds == 0 and self.defence_worlds and self.suit_defender(view):
            top = self.defence_worlds
            early = min(self.defence_early_worlds or self.early_worlds, top)
            worlds = ramp_worlds(early, top, len(view.trick_winners))
        return super().sample_worlds(view, rng, worlds)
