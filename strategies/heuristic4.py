"""``heuristic.v4``: ``heuristic.v3`` whose declarer's partner (leading and following) and defenders
(following) choose their cards in a trump contract by fitted linear scores.

Where ``heuristic.v3``'s card play loses most against a rollout search is the play of trump
contracts.  ``heuristic.v4`` scores each distinct candidate card of a role with weights, leading
(:func:`lead_features`: whether it is a trump and a sure winner, how many trumps the opponents may
still hold, how many higher and lower cards of its suit are unseen, the hand's length in the suit,
whether an opponent or the partner has shown out of it, whether the contract is made) or following
(:func:`follow_features`: whether it beats the trick's winner, is the cheapest card that does, is
sure to hold, overtakes the partner, ruffs, can be overruffed, what a discard throws), each feature
set with whether it is the card ``heuristic.v3`` would play, and plays the best score.  The weights
are fitted by ridge least squares on the candidates' values over sampled placements of the unseen
cards, each played out by ``heuristic.v3`` (:mod:`strategies.calibrate_v4`;
``strategies/data/heuristic_v4.json``, written and checked by ``scripts/fit_heuristic_v4.py``).  The
shipped roles are the declarer's partner's leads and follows and the defenders' follows; the
declarer's own cards and the defenders' leads measured no gain from such weights and stay
``heuristic.v3``'s, as does everything else (bidding, discard, naming, misère and no-trump play).  At
a table shape without weights it plays as ``heuristic.v3``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final

from fivehundred.sim._mypyc import mypyc_attr
from fivehundred.sim.engine import JOKER_LEAD, trick_winner
from fivehundred.sim.rng import Rng
from fivehundred.strategies.base import register
from fivehundred.strategies.heuristic import _shown_out
from fivehundred.strategies.heuristic3 import V3_PARAMETERS, Heuristic3Strategy, ShippedModels
from fivehundred.strategies.sampling import distinct_cards, shown_voids
from fivehundred.strategies.tables import card_info

if TYPE_CHECKING:
    import random

    from fivehundred.sim.engine import SeatView
    from fivehundred.sim.rules import Rules
    from fivehundred.strategies.tables import CardInfo

#: The shipped lead models (inside the ``fivehundred.strategies`` package).
DATA_FILE: Final = "data/heuristic_v4.json"

#: The features of a candidate lead of the declaring side in a trump contract (:func:`lead_features`).
LEAD_FEATURES: Final = (
    "default",
    "trump",
    "trump_top",
    "trump_top_out",
    "trump_low_out",
    "trumps_out",
    "trump_top_none_out",
    "side_top",
    "side_top_out",
    "side_top_ruff",
    "side_higher",
    "side_lower",
    "side_length",
    "side_singleton",
    "side_doubleton",
    "side_lowest",
    "side_partner_void",
    "side_opp_void",
    "side_none_out",
    "side_own_above",
    "made",
)


class LeadContext:
    """What a lead's features read that does not depend on the candidate (computed once)."""

    def __init__(self, view: SeatView, ci: CardInfo, full: int, lead: bool = True) -> None:
        hand = view.hand
        self.view = view
        self.hand = hand
        self.ci = ci
        self.unseen = full & ~hand & ~(view.discards or 0) & ~view.played
        t = ci.trump
        self.trump = t
        rules = view.rules
        n = rules.players
        teams = rules.teams
        self.teams = teams
        seat = view.seat
        side = seat % teams
        opp_voids = 0
        partner_voids = 0
        #: Whether the opponents may still hold trumps (not all of them have shown out of trumps),
        #: and the unseen trumps while they may (0 when not); a follow works them out only when a
        #: feature asks (:meth:`trumps_out`).
        self._opp_trumps = -1
        self._trumps_out = -1
        if lead:
            voids = shown_voids(view)
            opp_all = -1
            for s in range(n):
                if s == seat:
                    continue
                if s % teams == side:
                    partner_voids |= voids[s]
                else:
                    opp_voids |= voids[s]
                    opp_all &= voids[s]
            self._set_trumps(not (opp_all >> t & 1))
        self.opp_voids = opp_voids
        self.partner_voids = partner_voids
        declarer = view.declarer
        won = 0
        for w in view.trick_winners:
            if w % teams == declarer % teams:
                won += 1
        contract = view.contract
        self.made = contract is not None and won >= contract.tricks

    def _set_trumps(self, opp_trumps: bool) -> None:
        self._opp_trumps = 1 if opp_trumps else 0
        self._trumps_out = (self.unseen & self.ci.suit_mask[self.trump]).bit_count() if opp_trumps else 0

    def opp_trumps(self) -> bool:
        """Whether the opponents may still hold trumps (not all of them have shown out of trumps)."""
        if self._opp_trumps < 0:
            view, t = self.view, self.trump
            opp = True
            if view.led_suits >> t & 1:  # only a trump lead shows a seat out of trumps
                n = view.rules.players
                shown = _shown_out(view.plays, self.ci.eff, t, n)
                side = view.seat % self.teams
                opp = False
                for s in range(n):
                    if s % self.teams != side and not shown >> s & 1:
                        opp = True
            self._set_trumps(opp)
        return self._opp_trumps == 1

    def trumps_out(self) -> int:
        """The unseen trumps while the opponents may hold trumps, else 0."""
        if self._trumps_out < 0:
            self.opp_trumps()
        return self._trumps_out


def lead_features(ctx: LeadContext, card: int, default: int) -> list[float]:
    """The features of leading ``card`` (:data:`LEAD_FEATURES`; ``default``: heuristic.v3's lead)."""
    ci = ctx.ci
    hand, unseen = ctx.hand, ctx.unseen
    s = ci.eff[card]
    sm = ci.suit_mask[s]
    higher = (ci.higher[card] & unseen & sm).bit_count()
    top = higher == 0
    is_trump = s == ctx.trump
    f = [0.0] * 21
    f[0] = 1.0 if card == default else 0.0
    out = 1.0 if ctx.opp_trumps() else 0.0
    if is_trump:
        f[1] = 1.0
        f[2] = 1.0 if top else 0.0
        f[3] = out if top else 0.0
        f[4] = 0.0 if top else out
        f[5] = float(ctx.trumps_out())
        f[6] = 1.0 if top and ctx.trumps_out() == 0 else 0.0
    else:
        bit = 1 << s
        lower = (ci.lower[card] & unseen).bit_count()
        length = (hand & sm).bit_count()
        f[7] = 1.0 if top else 0.0
        f[8] = out if top else 0.0
        f[9] = 1.0 if top and ctx.opp_voids & bit and ctx.opp_trumps() else 0.0
        f[10] = float(higher)
        f[11] = float(lower)
        f[12] = float(length)
        f[13] = 1.0 if length == 1 else 0.0
        f[14] = 1.0 if length == 2 else 0.0
        f[15] = 1.0 if not ci.lower[card] & hand else 0.0
        f[16] = 1.0 if ctx.partner_voids & bit else 0.0
        f[17] = 1.0 if ctx.opp_voids & bit else 0.0
        f[18] = 1.0 if not unseen & sm else 0.0
        f[19] = float((ci.higher[card] & hand & sm).bit_count())
    f[20] = (1.0 if ctx.made else 0.0) * f[1]
    return f


#: The features of a candidate card of the declaring side following to a trick in a trump contract
#: (:func:`follow_features`).
FOLLOW_FEATURES: Final = (
    "default",
    "beats",
    "cheapest_winner",
    "sure_winner",
    "overtakes",
    "last",
    "ruff",
    "ruff_overruffable",
    "loser_higher",
    "discard_top",
    "discard_length",
    "discard_singleton",
    "lower",
    "trump",
    "own_below",
    "second_beats",
    "third_beats",
    "overtakes_sure",
    "made_beats",
    "ruff_trumps_out",
)


class FollowContext:
    """What a follow's features read that does not depend on the candidate (computed once)."""

    def __init__(
        self,
        ctx: LeadContext,
        view: SeatView,
        legal: Sequence[int],
        trick: tuple[tuple[int, int], ...] | None = None,
    ) -> None:
        ci = ctx.ci
        if trick is None:
            trick = view.trick
        led = view.led_suit
        self.led = led
        win_seat, win_card = trick[trick_winner(ci.tables, [c for _, c in trick], led)]
        self.win_card = win_card
        teams = view.rules.teams
        self.partner_winning = win_seat % teams == view.seat % teams
        self.to_play = view.rules.players - len(trick) - 1
        self.position = len(trick)
        higher = ci.higher
        # The cheapest card that beats the winner: a card of the suit led before a trump, then the
        # weakest.
        cheapest = -1
        best = 1 << 30
        for a in legal:
            if a < JOKER_LEAD and higher[win_card] >> a & 1:
                key = (1 << 20 if ci.power[a] else 0) + ci.strength[a]
                if key < best:
                    cheapest, best = a, key
        self.cheapest = cheapest
        #: Whether the partner's winning card can still be beaten by a seat yet to play.
        self.partner_sure = self.partner_winning and not (higher[win_card] & ctx.unseen and self.to_play)


def follow_features(ctx: LeadContext, fc: FollowContext, card: int, default: int) -> list[float]:
    """The features of following with ``card`` (:data:`FOLLOW_FEATURES`)."""
    ci = ctx.ci
    hand, unseen = ctx.hand, ctx.unseen
    s = ci.eff[card]
    sm = ci.suit_mask[s]
    f = [0.0] * 20
    f[0] = 1.0 if card == default else 0.0
    beats = ci.higher[fc.win_card] >> card & 1 == 1
    sure = not ci.higher[card] & unseen or fc.to_play == 0
    is_trump = s == ctx.trump
    ruff = is_trump and fc.led != ctx.trump
    if beats:
        f[1] = 1.0
        f[2] = 1.0 if card == fc.cheapest else 0.0
        f[3] = 1.0 if sure else 0.0
        f[4] = 1.0 if fc.partner_winning else 0.0
        f[5] = 1.0 if fc.to_play == 0 else 0.0
        f[15] = 1.0 if fc.position == 1 else 0.0
        f[16] = 1.0 if fc.position == 2 else 0.0
        f[17] = 1.0 if fc.partner_sure else 0.0
        f[18] = 1.0 if ctx.made else 0.0
    if ruff:
        f[6] = 1.0
        f[7] = 1.0 if not sure else 0.0
        f[19] = float(ctx.trumps_out())
    if s == fc.led and not beats:
        f[8] = float((ci.higher[card] & unseen & sm).bit_count())
    if s != fc.led and not is_trump:
        length = (hand & sm).bit_count()
        f[9] = 1.0 if not ci.higher[card] & unseen & sm else 0.0
        f[10] = float(length)
        f[11] = 1.0 if length == 1 else 0.0
    f[12] = float((ci.lower[card] & unseen).bit_count())
    f[13] = 1.0 if is_trump else 0.0
    f[14] = float((ci.lower[card] & hand).bit_count())
    return f


def dot(w: list[float], f: list[float]) -> float:
    """The score of features ``f`` under weights ``w`` (the zero features skipped)."""
    total = 0.0
    for i in range(len(f)):
        x = f[i]
        if x != 0.0:
            total += w[i] * x
    return total


class LeadWeights:
    """A role's lead weights (per :data:`LEAD_FEATURES`)."""

    def __init__(self, weights: Sequence[float]) -> None:
        self.weights: list[float] = [float(v) for v in weights]

    def score(self, features: Sequence[float]) -> float:
        """The candidate's score (points, relative to the other candidates)."""
        total = 0.0
        w = self.weights
        for i in range(len(features)):
            total += w[i] * features[i]
        return total


#: The roles of the weights: the declarer's, its partner's and a defender's leads, then their follows
#: as the second, third and fourth card of the trick.
ROLES: Final = (
    "declarer",
    "partner",
    "defender",
    "declarer_follow1",
    "declarer_follow2",
    "declarer_follow3",
    "partner_follow1",
    "partner_follow2",
    "partner_follow3",
    "defender_follow1",
    "defender_follow2",
    "defender_follow3",
)


def role_index(seat: int, declarer: int, teams: int, cards_in_trick: int) -> int:
    """The index in :data:`ROLES` of a play decision of ``seat`` with ``cards_in_trick`` cards
    already in the trick (0: a lead; 1 to 3 at a 4-player table)."""
    who = 0 if seat == declarer else 1 if seat % teams == declarer % teams else 2
    if cards_in_trick == 0:
        return who
    return 3 + 3 * who + min(cards_in_trick, 3) - 1


class Weights:
    """A table shape's weights per role (:data:`ROLES`; None where a role has none)."""

    def __init__(self, shape: dict[str, Any]) -> None:
        self.by_role: list[LeadWeights | None] = [
            LeadWeights(shape[r]["weights"]) if r in shape else None for r in ROLES
        ]


_WEIGHTS: Final = ShippedModels(DATA_FILE, lambda shape: Weights(shape))


def load_models(text: str | None = None) -> dict[str, Any]:
    """The shipped weights as a dict (read once), or ``text`` parsed."""
    return _WEIGHTS.load(text)


def use_models(data: dict[str, Any]) -> None:
    """Play with ``data`` (the layout of the shipped file) instead of the shipped weights."""
    _WEIGHTS.use(data)


def weights(rules: Rules) -> Weights | None:
    """The :class:`Weights` of a rule set's table shape, or None (built once per shape)."""
    return _WEIGHTS.of(rules)


#: heuristic.v4's parameters: heuristic.v3's, with ``reach`` 0.5 by default (v3: 0): with the better
#: card play, denominations half a trick under v2's gate are worth valuing by the models.
V4_PARAMETERS: Final[dict[str, tuple[Any, Any, str]]] = {
    **V3_PARAMETERS,
    "reach": (0.5, V3_PARAMETERS["reach"][1], V3_PARAMETERS["reach"][2]),
}


@mypyc_attr(allow_interpreted_subclasses=True)
class Heuristic4Strategy(Heuristic3Strategy):
    """``heuristic.v3`` whose cards of the roles with weights are chosen by fitted scores (see the module)."""

    name: ClassVar[str] = "heuristic.v4"

    PARAMS: ClassVar[dict[str, Any]] = {k: v[1] for k, v in V4_PARAMETERS.items()}
    PARAM_HELP: ClassVar[dict[str, str]] = {k: v[2] for k, v in V4_PARAMETERS.items()}
    DEFAULTS: ClassVar[dict[str, Any]] = {k: v[0] for k, v in V4_PARAMETERS.items()}

    def _configure(self, p: dict[str, Any]) -> None:
        """heuristic.v3's parameters; the weights are looked up once per rule set."""
        super()._configure(p)
        self._w_rules: Rules | None = None
        self._w: Weights | None = None

    def play(self, view: SeatView, legal: Sequence[int], rng: Rng | random.Random) -> int:
        """heuristic.v3's card, but in a trump contract the best-scored card of a role with weights."""
        if len(legal) > 1:
            contract = view.contract
            if contract is not None and not contract.no_trump:
                rules = view.rules
                if rules is not self._w_rules:
                    self._w_rules = rules
                    self._w = weights(rules)
                m = self._w
                if m is not None:
                    follow = view.led_suit >= 0
                    trick = view.trick if follow else ()
                    w = m.by_role[role_index(view.seat, view.declarer, rules.teams, len(trick))]
                    if w is not None:
                        return self._scored(view, legal, rng, w, trick)
        return super().play(view, legal, rng)

    def _scored(
        self,
        view: SeatView,
        legal: Sequence[int],
        rng: Rng | random.Random,
        w: LeadWeights,
        trick: tuple[tuple[int, int], ...],
    ) -> int:
        """The distinct candidate of best score (the first in the order of
        :func:`distinct_cards` on ties); heuristic.v3's card when every legal card is the same
        choice.  heuristic.v3's own card is not asked for (the weights hardly mark it: its feature
        is read as 0 for every candidate)."""
        tables = view.tables
        assert tables is not None
        ci = card_info(tables)
        full = self._rules_info(view.rules).full
        for a in legal:
            if a >= JOKER_LEAD:
                return super().play(view, legal, rng)  # a joker lead (never in a trump contract)
        cands = distinct_cards(ci, full & ~view.hand & ~view.played, legal)
        if len(cands) < 2:
            return super().play(view, legal, rng)
        follow = len(trick) > 0
        ctx = LeadContext(view, ci, full, not follow)
        ws = w.weights
        best = cands[0]
        if follow:
            fc = FollowContext(ctx, view, legal, trick)
            best_score = dot(ws, follow_features(ctx, fc, best, -1))
            for i in range(1, len(cands)):
                a = cands[i]
                sc = dot(ws, follow_features(ctx, fc, a, -1))
                if sc > best_score:
                    best, best_score = a, sc
        else:
            best_score = dot(ws, lead_features(ctx, best, -1))
            for i in range(1, len(cands)):
                a = cands[i]
                sc = dot(ws, lead_features(ctx, a, -1))
                if sc > best_score:
                    best, best_score = a, sc
        return best


register(Heuristic4Strategy.name)(Heuristic4Strategy)

__all__ = [
    "FOLLOW_FEATURES",
    "LEAD_FEATURES",
    "ROLES",
    "FollowContext",
    "Heuristic4Strategy",
    "LeadContext",
    "dot",
    "follow_features",
    "lead_features",
    "role_index",
    "weights",
]
