"""``heuristic.v5``: ``heuristic.v4`` whose every seat chooses its leads in a no-trump contract by
fitted linear scores.

Leads in no-trumps are where a rollout search gains most per decision over ``heuristic.v4``'s card
(v4's weights cover trump contracts only).  ``heuristic.v5`` scores each distinct candidate lead
(:func:`nt_candidates`: the cards, and one joker lead naming the suit it is longest in) by its
features (:func:`nt_lead_features`: whether it is a sure winner and how many unseen cards of its suit
are higher or lower, the hand's length in the suit, whether a partner or an opponent has shown out of
it, whether the joker is still out, whether the side's sure winners cover the tricks it still needs,
the trick number) with weights per role (the declarer, its partner, a defender), and plays the best
score.  The weights are fitted like ``heuristic.v4``'s: ridge least squares of the candidates'
values over sampled placements of the unseen cards, each played out by ``heuristic.v3``
(:mod:`strategies.calibrate_v5`; ``strategies/data/heuristic_v5.json``, written and checked by
``scripts/fit_heuristic_v5.py``).  Everything else is ``heuristic.v4``'s; at a table shape without
weights it plays as ``heuristic.v4``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final

from fivehundred.sim._mypyc import mypyc_attr
from fivehundred.sim.engine import JOKER_LEAD
from fivehundred.sim.notation import NT
from fivehundred.sim.rng import Rng
from fivehundred.strategies.base import register
from fivehundred.strategies.heuristic import HeuristicStrategy
from fivehundred.strategies.heuristic3 import ShippedModels
from fivehundred.strategies.heuristic4 import V4_PARAMETERS, Heuristic4Strategy, dot, role_index
from fivehundred.strategies.sampling import distinct_cards, shown_voids
from fivehundred.strategies.tables import card_info

if TYPE_CHECKING:
    import random

    from fivehundred.sim.engine import SeatView
    from fivehundred.sim.rules import Rules
    from fivehundred.strategies.tables import CardInfo

#: The shipped weights (inside the ``fivehundred.strategies`` package).
DATA_FILE: Final = "data/heuristic_v5.json"


def sure_winners(ci: CardInfo, hand: int, unseen: int) -> int:
    """The cards of ``hand`` that no ``unseen`` card of their effective suit beats."""
    sure = 0
    h = hand
    while h:
        low = h & -h
        h ^= low
        c = low.bit_length() - 1
        if not ci.higher[c] & unseen & ci.suit_mask[ci.eff[c]]:
            sure += 1
    return sure


#: The features of a candidate lead in a no-trump contract (:func:`nt_lead_features`).
NT_LEAD_FEATURES: Final = (
    "joker",
    "top",
    "higher",
    "lower",
    "length",
    "singleton",
    "lowest",
    "own_above",
    "partner_void",
    "opp_void",
    "none_out",
    "made",
    "trick_no",
    "top_length",
    "suit_out",
    "suit_led",
    "top_joker_out",
    "enough",
    "top_enough",
    "top_made",
    "top_trick_no",
    "doubleton",
    "highest_of_long",
)


class NtLeadContext:
    """What a no-trump lead's features read that does not depend on the candidate."""

    def __init__(self, view: SeatView, ci: CardInfo, full: int, voids: list[int] | None = None) -> None:
        """``voids``: each seat's suits shown void (:func:`~strategies.sampling.shown_voids`, read
        from the view when None)."""
        hand = view.hand
        self.ci = ci
        self.hand = hand
        unseen = full & ~hand & ~(view.discards or 0) & ~view.played
        self.unseen = unseen
        tables = view.tables
        jokers = tables.suitless_jokers if tables is not None else 0
        self.jokers = jokers
        self.joker_out = 1.0 if unseen & jokers else 0.0
        rules = view.rules
        teams = rules.teams
        seat = view.seat
        side = seat % teams
        if voids is None:
            voids = shown_voids(view)
        pv = 0
        ov = 0
        for s in range(rules.players):
            if s == seat:
                continue
            if s % teams == side:
                pv |= voids[s]
            else:
                ov |= voids[s]
        self.partner_voids = pv
        self.opp_voids = ov
        declaring = view.declarer % teams
        won = 0
        for w in view.trick_winners:
            if w % teams == declaring:
                won += 1
        tricks = len(view.trick_winners)
        self.tricks = tricks
        contract = view.contract
        goal = contract.tricks if contract is not None else 0
        if side == declaring:
            need = goal - won
        else:
            need = rules.hand_size - goal + 1 - (tricks - won)
        if need < 0:
            need = 0
        sure = sure_winners(ci, hand & ~jokers, unseen)
        if hand & jokers:
            sure += 1
        self.enough = 1.0 if sure >= need else 0.0
        self.made = 1.0 if need == 0 else 0.0
        self.led_suits = view.led_suits


def nt_lead_features(nc: NtLeadContext, action: int) -> list[float]:
    """The features of leading ``action`` (a card, or a joker lead naming a suit) in a no-trump
    contract (:data:`NT_LEAD_FEATURES`)."""
    f = [0.0] * 23
    if action >= JOKER_LEAD or nc.jokers >> action & 1:
        f[0] = 1.0
        f[11] = nc.made
        f[12] = float(nc.tricks)
        f[17] = nc.enough
        return f
    ci = nc.ci
    hand, unseen = nc.hand, nc.unseen
    s = ci.eff[action]
    sm = ci.suit_mask[s]
    bit = 1 << s
    higher = (ci.higher[action] & unseen & sm).bit_count()
    length = (hand & sm).bit_count()
    top = higher == 0
    f[1] = 1.0 if top else 0.0
    f[2] = float(higher)
    f[3] = float((ci.lower[action] & unseen).bit_count())
    f[4] = float(length)
    f[5] = 1.0 if length == 1 else 0.0
    f[6] = 1.0 if not ci.lower[action] & hand else 0.0
    f[7] = float((ci.higher[action] & hand & sm).bit_count())
    f[8] = 1.0 if nc.partner_voids & bit else 0.0
    f[9] = 1.0 if nc.opp_voids & bit else 0.0
    f[10] = 1.0 if not unseen & sm else 0.0
    f[14] = float((unseen & sm).bit_count())
    f[15] = 1.0 if nc.led_suits & bit else 0.0
    f[21] = 1.0 if length == 2 else 0.0
    f[22] = 1.0 if length > 1 and not hand & sm & ci.higher[action] else 0.0
    if top:
        f[13] = float(length)
        f[16] = nc.joker_out
        f[18] = nc.enough
        f[19] = nc.made
        f[20] = float(nc.tricks)
    return f


#: The roles of v5's weights: the leads in a no-trump contract of the declarer, its partner and a
#: defender.
ROLES: Final = ("nt_declarer", "nt_partner", "nt_defender")


class Weights:
    """A table shape's weights per role (:data:`ROLES`; None where a role has none)."""

    def __init__(self, shape: dict[str, Any]) -> None:
        self.by_role: list[list[float] | None] = [
            [float(v) for v in shape[r]["weights"]] if r in shape else None for r in ROLES
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


def lead_role(seat: int, declarer: int, teams: int) -> int:
    """The index in :data:`ROLES` of a no-trump lead of ``seat``: the declarer's, a partner's or a
    defender's (the same as heuristic.v4's roles of a lead)."""
    return role_index(seat, declarer, teams, 0)


def nt_candidates(
    bot: HeuristicStrategy, ci: CardInfo, unseen: int, legal: Sequence[int], hand: int
) -> list[int]:
    """The distinct candidate leads in a no-trump contract: the cards in :func:`distinct_cards`'
    order, then the one joker lead that names the suit heuristic.v1 would name (the longest)."""
    cards = [a for a in legal if a < JOKER_LEAD]
    cands = distinct_cards(ci, unseen, cards) if cards else []
    if len(cards) < len(legal):
        cands.append(bot._joker_lead(ci, legal, hand))
    return cands


@mypyc_attr(allow_interpreted_subclasses=True)
class Heuristic5Strategy(Heuristic4Strategy):
    """``heuristic.v4`` whose leads in a no-trump contract are chosen by fitted scores (see the module)."""

    name: ClassVar[str] = "heuristic.v5"

    PARAMS: ClassVar[dict[str, Any]] = {k: v[1] for k, v in V4_PARAMETERS.items()}
    PARAM_HELP: ClassVar[dict[str, str]] = {k: v[2] for k, v in V4_PARAMETERS.items()}
    DEFAULTS: ClassVar[dict[str, Any]] = {k: v[0] for k, v in V4_PARAMETERS.items()}

    def _configure(self, p: dict[str, Any]) -> None:
        """heuristic.v4's parameters; v5's weights are looked up once per rule set."""
        super()._configure(p)
        self._w5_rules: Rules | None = None
        self._w5: Weights | None = None

    def play(self, view: SeatView, legal: Sequence[int], rng: Rng | random.Random) -> int:
        """heuristic.v4's card, but in a no-trump contract the best-scored lead."""
        if len(legal) > 1 and view.led_suit < 0:
            contract = view.contract
            if contract is not None and contract.trump == NT:
                rules = view.rules
                if rules is not self._w5_rules:
                    self._w5_rules = rules
                    self._w5 = weights(rules)
                m = self._w5
                if m is not None:
                    w = m.by_role[lead_role(view.seat, view.declarer, rules.teams)]
                    if w is not None:
                        pick = self._scored_lead(view, legal, w)
                        if pick >= 0:
                            return pick
        return super().play(view, legal, rng)

    def _scored_lead(self, view: SeatView, legal: Sequence[int], w: list[float]) -> int:
        """The candidate lead of best score (the first of :func:`nt_candidates` on ties), or -1 when
        fewer than two candidates differ."""
        tables = view.tables
        assert tables is not None
        ci = card_info(tables)
        full = self._rules_info(view.rules).full
        cands = nt_candidates(self, ci, full & ~view.hand & ~view.played, legal, view.hand)
        if len(cands) < 2:
            return -1
        nc = NtLeadContext(view, ci, full, self._voids(view))
        best = cands[0]
        best_score = dot(w, nt_lead_features(nc, best))
        for i in range(1, len(cands)):
            a = cands[i]
            sc = dot(w, nt_lead_features(nc, a))
            if sc > best_score:
                best, best_score = a, sc
        return best


register(Heuristic5Strategy.name)(Heuristic5Strategy)

__all__ = [
    "NT_LEAD_FEATURES",
    "ROLES",
    "Heuristic5Strategy",
    "NtLeadContext",
    "lead_role",
    "load_models",
    "nt_candidates",
    "nt_lead_features",
    "sure_winners",
    "use_models",
    "weights",
]
