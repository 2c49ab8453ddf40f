"""``heuristic.v3``: ``heuristic.v2`` with the worth of a hand read by small fitted models.

``heuristic.v2`` values each contract it may bid from one number, ``heuristic.v1``'s trick estimate
(and the trump length), through a calibration table.  ``heuristic.v3`` values it from a dozen
features of the hand (the estimate, trump length, which top trumps it holds, side aces and kings,
voids and singletons, ...; for misère the danger, high cards with few cards under them, low cards,
short suits) through logistic models fitted on forced contracts played by its own card play
(:mod:`strategies.calibrate_v3`; ``strategies/data/heuristic_v3.json``, regenerated and checked by
``scripts/fit_heuristic_v3.py``).  Everything else (the auction's reading, the gate, competing, the
declarer raise, the discard, the naming, the card play) is ``heuristic.v2``'s, but for two things:
over an opponent's contract a misère competes like a suit bid (it is bid when worth more than
passing, ``misere_competes``; v2 asks it to be worth more than nothing), and a denomination whose
estimate falls up to ``reach`` tricks short of v2's gate may be valued too (0 by default).  At a table
shape without fitted models it bids as ``heuristic.v2``.

The models are a few dozen numbers evaluated by compiled Python (no dependency at play time); the
fit uses numpy, which the project depends on already.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar, Final

from fivehundred.sim._mypyc import mypyc_attr
from fivehundred.sim.engine import JOKER_LEAD
from fivehundred.sim.rng import Rng
from fivehundred.strategies.base import boolean, number, register
from fivehundred.strategies.estimates import suit_estimates
from fivehundred.strategies.heuristic2 import V2_PARAMETERS, Calibration, Heuristic2Strategy, table_shape
from fivehundred.strategies.sampling import distinct_actions
from fivehundred.strategies.tables import card_info

if TYPE_CHECKING:
    import random

    from fivehundred.sim.engine import SeatView
    from fivehundred.sim.rules import Bid, Rules
    from fivehundred.strategies.tables import CardInfo, RulesInfo

#: The shipped models (inside the ``fivehundred.strategies`` package).
DATA_FILE: Final = "data/heuristic_v3.json"
_NT: Final = 4

#: The model kinds: suit contracts, no-trumps, misère, open misère.
KINDS: Final = ("suit", "nt", "mis", "omis")
#: Feature names per kind (the order of the vectors of the feature functions).
FEATURES: Final[dict[str, tuple[str, ...]]] = {
    "suit": (
        "estimate",
        "trumps",
        "trumps6",
        "top1",
        "top2",
        "top3",
        "top4",
        "top5",
        "top6",
        "side_aces",
        "side_kings",
        "voids",
        "singletons",
        "long_side",
    ),
    "nt": ("estimate", "jokers", "aces", "kings", "queens", "stoppers", "longest", "voids", "short"),
    "mis": ("risk", "jokers", "high", "bare_high", "low", "voids", "singletons", "longest"),
    "omis": ("risk", "jokers", "high", "bare_high", "low", "voids", "singletons", "longest"),
}
#: The trick thresholds of a suit or no-trump contract's model: at least 6 .. 10 tricks.
THRESHOLDS: Final = (6, 7, 8, 9, 10)


class FeatureMasks:
    """Per rule set, the card masks the feature functions read (built once, kept on the rules)."""

    def __init__(self, info: RulesInfo) -> None:
        #: Per trump suit ``t``: its six top trumps, then per side suit its mask, ace and king.
        self.tops: list[list[int]] = []
        self.sides: list[list[tuple[int, int, int]]] = []
        for t in range(4):
            order = info.trump_order[t]
            self.tops.append([order[i] if i < len(order) else -1 for i in range(6)])
            side = info.side_order[t]
            self.sides.append(
                [
                    (sum(1 << c for c in side[s]), side[s][0], side[s][1] if len(side[s]) > 1 else -1)
                    for s in range(4)
                    if s != t and side[s]
                ]
            )
        nat = info.side_order[4]
        #: Per natural suit (no trump): (mask, ace, king, queen, top-three mask, bottom-three mask).
        self.natural: list[tuple[int, int, int, int, int, int]] = []
        for s in range(4):
            cards = nat[s]
            top3 = sum(1 << c for c in cards[:3])
            low3 = sum(1 << c for c in cards[-3:])
            self.natural.append((sum(1 << c for c in cards), cards[0], cards[1], cards[2], top3, low3))
        #: Per card: the cards of its natural suit under it.
        self.under: dict[int, int] = {}
        for s in range(4):
            cards = nat[s]
            for i, c in enumerate(cards):
                self.under[c] = sum(1 << d for d in cards[i + 1 :])
        #: The suit masks alone: the side suits per trump suit, the natural suits (for the shape).
        self.side_masks: list[list[int]] = [[side[0] for side in sides] for sides in self.sides]
        self.natural_masks: list[int] = [suit[0] for suit in self.natural]
        self.joker_mask = info.joker_mask
        self.trump_masks = info.trump_masks


def feature_masks(info: RulesInfo) -> FeatureMasks:
    """The :class:`FeatureMasks` of a rule set (built once per rules object)."""
    return info.rules.derived("_v3_features", lambda _rules: FeatureMasks(info))


def shape_counts(hand: int, masks: list[int]) -> tuple[int, int, int]:
    """The hand's voids, singletons and longest length over the suits of ``masks``."""
    voids = singles = longest = 0
    for mask in masks:
        n = (hand & mask).bit_count()
        if n == 0:
            voids += 1
        elif n == 1:
            singles += 1
        if n > longest:
            longest = n
    return voids, singles, longest


def suit_features(info: RulesInfo, hand: int, t: int, estimate: float) -> list[float]:
    """The features of ``hand`` for a contract in trump suit ``t`` (``estimate``: the bidder's
    trick estimate for it, partners and kitty included): :data:`FEATURES` ``["suit"]``."""
    fm = feature_masks(info)
    trumps = (hand & fm.trump_masks[t]).bit_count()
    voids, singles, longest = shape_counts(hand, fm.side_masks[t])
    aces = kings = 0
    for mask, ace, king in fm.sides[t]:
        aces += hand >> ace & 1
        if king >= 0 and (hand & mask).bit_count() >= 2:
            kings += hand >> king & 1
    tops = [float(hand >> c & 1) if c >= 0 else 0.0 for c in fm.tops[t]]
    return [
        estimate,
        float(trumps),
        float(max(0, trumps - 5)),
        *tops,
        float(aces),
        float(kings),
        float(voids),
        float(singles),
        float(longest),
    ]


def nt_features(info: RulesInfo, hand: int, estimate: float, stoppers: int) -> list[float]:
    """The features of ``hand`` for a no-trump contract: :data:`FEATURES` ``["nt"]``."""
    fm = feature_masks(info)
    voids, short, longest = shape_counts(hand, fm.natural_masks)
    aces = kings = queens = 0
    for _, ace, king, queen, _, _ in fm.natural:
        aces += hand >> ace & 1
        kings += hand >> king & 1
        queens += hand >> queen & 1
    jokers = (hand & fm.joker_mask).bit_count()
    return [
        estimate,
        float(jokers),
        float(aces),
        float(kings),
        float(queens),
        float(stoppers),
        float(longest),
        float(voids),
        float(short),
    ]


def misere_features(info: RulesInfo, hand: int, risk: float) -> list[float]:
    """The features of ``hand`` for a misère (``risk``: ``heuristic.v1``'s misère risk):
    :data:`FEATURES` ``["mis"]``.  High cards are the top three of a suit; a bare one has fewer
    than two of the hand's cards of its suit under it; low cards are the bottom three of a suit."""
    fm = feature_masks(info)
    under = fm.under
    voids, singles, longest = shape_counts(hand, fm.natural_masks)
    high = bare = low = 0
    for _, _, _, _, top3, low3 in fm.natural:
        tops = hand & top3
        while tops:
            c = (tops & -tops).bit_length() - 1
            tops &= tops - 1
            high += 1
            if (hand & under[c]).bit_count() < 2:
                bare += 1
        low += (hand & low3).bit_count()
    jokers = (hand & fm.joker_mask).bit_count()
    return [
        risk,
        float(jokers),
        float(high),
        float(bare),
        float(low),
        float(voids),
        float(singles),
        float(longest),
    ]


class Model:
    """One kind's fitted model, evaluated in pure Python (a dot product per output).

    The first feature of a suit or no-trump model is the trick estimate, which the auction moves;
    the others are the hand's own.  :meth:`partial` sums the hand's part once (a bot keeps it for
    the deal) and :meth:`row_at` adds the estimate's."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.mean: list[float] = [float(v) for v in spec["mean"]]
        self.scale: list[float] = [float(v) for v in spec["scale"]]
        self.made: list[float] = [float(v) for v in spec.get("made", ())]
        self.at_least: list[list[float]] = [[float(v) for v in w] for w in spec.get("at_least", ())]
        self.tricks: list[float] = [float(v) for v in spec.get("tricks", ())]
        self.outputs: list[list[float]] = [*self.at_least, self.tricks] if self.at_least else [self.made]

    def partial(self, features: Sequence[float]) -> list[float]:
        """Per output, the intercept plus every feature's term but the first's."""
        z = [(f - m) / s for f, m, s in zip(features, self.mean, self.scale, strict=True)]
        out = []
        for w in self.outputs:
            total = w[-1]
            for i in range(1, len(z)):
                total += w[i] * z[i]
            out.append(total)
        return out

    def _logits(self, partial: Sequence[float], first: float) -> list[float]:
        z0 = (first - self.mean[0]) / self.scale[0]
        return [p + w[0] * z0 for p, w in zip(partial, self.outputs, strict=True)]

    def row_at(self, partial: Sequence[float], estimate: float) -> list[float]:
        """P(at least 6 .. 10 tricks) (made non-increasing) and the mean tricks, as
        ``heuristic.v2``'s calibration rows, from :meth:`partial` and the trick estimate."""
        logits = self._logits(partial, estimate)
        out: list[float] = []
        prev = 1.0
        for x in logits[:-1]:
            prev = min(prev, 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x)))))
            out.append(prev)
        out.append(logits[-1])
        return out

    def row(self, features: Sequence[float]) -> list[float]:
        """:meth:`row_at` of a whole feature vector (the estimate first)."""
        return self.row_at(self.partial(features), features[0])

    def made_rate(self, features: Sequence[float]) -> float:
        """The chance that the misère is made."""
        x = self._logits(self.partial(features), features[0])[0]
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))


class Models:
    """A table shape's models by kind (``suit``, ``nt``, ``mis``, ``omis``; a kind may be missing) and
    the misère declarer's first-lead model (``misere_lead``, or None)."""

    def __init__(self, shape: dict[str, Any]) -> None:
        self.by_kind: dict[str, Model] = {k: Model(v) for k, v in shape.items() if k in KINDS}
        lead = shape.get("misere_lead")
        self.misere_lead: LeadModel | None = LeadModel(lead) if lead else None

    def get(self, kind: str) -> Model | None:
        """The model of a kind, or None when it was not fitted."""
        return self.by_kind.get(kind)


#: The features of a candidate card of a lead (:func:`lead_features`).
LEAD_FEATURES: Final = (
    "above",
    "below",
    "own_below",
    "own_above",
    "length",
    "singleton",
    "doubleton",
    "lowest",
    "top",
)


def lead_features(info: RulesInfo, ci: CardInfo, hand: int, unseen: int, card: int) -> list[float]:
    """The features of leading ``card`` (not a joker lead) from ``hand`` with ``unseen`` the cards the
    leader has not seen (:data:`LEAD_FEATURES`): the unseen cards of its suit above and below it, the
    hand's own cards of the suit below and above it, the suit's length in the hand (and whether one
    or two), whether it is the hand's lowest of the suit, whether no unseen card beats it."""
    s = ci.eff[card]
    sm = ci.suit_mask[s]
    above = (ci.higher[card] & unseen & sm).bit_count()
    below = (ci.lower[card] & unseen).bit_count()
    own_below = (ci.lower[card] & hand).bit_count()
    own_above = (ci.higher[card] & hand & sm).bit_count()
    length = (hand & sm).bit_count()
    return [
        float(above),
        float(below),
        float(own_below),
        float(own_above),
        float(length),
        1.0 if length == 1 else 0.0,
        1.0 if length == 2 else 0.0,
        1.0 if own_below == 0 else 0.0,
        1.0 if not ci.higher[card] & unseen else 0.0,
    ]


class LeadModel:
    """A linear score of a lead's candidates (weights per :data:`LEAD_FEATURES`): the best-scored card
    is led unless it beats the default card by no more than ``margin``."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.weights: list[float] = [float(v) for v in spec["weights"]]
        self.margin: float = float(spec.get("margin", 0.0))

    def score(self, features: Sequence[float]) -> float:
        """The candidate's score (points, relative to the other candidates)."""
        total = 0.0
        for i in range(len(features)):
            total += self.weights[i] * features[i]
        return total


#: heuristic.v3's parameters: heuristic.v2's and ``reach``.
V3_PARAMETERS: Final[dict[str, tuple[Any, Any, str]]] = {
    **V2_PARAMETERS,
    "misere_competes": (
        True,
        boolean,
        "over an opponent's contract a misère is bid when it is worth more than passing (false: "
        "only when it is worth more than nothing, as heuristic.v2)",
    ),
    "reach": (
        0.0,
        number(0.0, 3.0),
        "tricks under heuristic.v2's gate at which a denomination is still valued by the models",
    ),
}


class ShippedModels:
    """A file of fitted numbers shipped in the package (``data_file``, inside ``fivehundred.strategies``):
    read once, each table shape's part built once by ``build`` (None where the shape has none), and
    replaceable by the fitting scripts (:meth:`use`).  heuristic.v3's models and heuristic.v4's
    weights are each one of these."""

    def __init__(self, data_file: str, build: Any) -> None:
        self.data_file = data_file
        self.build = build
        self.loaded: dict[str, Any] | None = None
        self.built: dict[str, Any] = {}

    def load(self, text: str | None = None) -> dict[str, Any]:
        """The shipped file as a dict (read once), or ``text`` parsed."""
        if text is not None:
            return json.loads(text)
        hit = self.loaded
        if hit is None:
            path = resources.files("fivehundred.strategies").joinpath(self.data_file)
            hit = self.loaded = json.loads(path.read_text()) if path.is_file() else {"shapes": {}}
        return hit

    def of(self, rules: Rules) -> Any:
        """The built part of a rule set's table shape, or None when the shape has none."""
        key = table_shape(rules)
        if key in self.built:
            return self.built[key]
        shape = self.load()["shapes"].get(key)
        built = self.built[key] = self.build(shape) if shape else None
        return built

    def use(self, data: dict[str, Any]) -> None:
        """Play with ``data`` (the layout of the shipped file) instead of the shipped file."""
        self.loaded = data
        self.built.clear()


_MODELS: Final = ShippedModels(DATA_FILE, lambda shape: Models(shape))


def load_models(text: str | None = None) -> dict[str, Any]:
    """The shipped models as a dict (read once), or ``text`` parsed."""
    return _MODELS.load(text)


def models(rules: Rules) -> Models | None:
    """The :class:`Models` of a rule set's table shape, or None when the shape has none (built once
    per shape)."""
    return _MODELS.of(rules)


def use_models(data: dict[str, Any]) -> None:
    """Play with ``data`` (the layout of the shipped file) instead of the shipped models: the fitting
    script's way to play forced contracts with the models fitted so far."""
    _MODELS.use(data)


# Compiled with mypyc (a class decorator would make it a Python class): registered at the end.
@mypyc_attr(allow_interpreted_subclasses=True)
class Heuristic3Strategy(Heuristic2Strategy):
    """``heuristic.v2`` whose contracts are valued by fitted models of the hand (see the module)."""

    name: ClassVar[str] = "heuristic.v3"

    PARAMS: ClassVar[dict[str, Any]] = {k: v[1] for k, v in V3_PARAMETERS.items()}
    PARAM_HELP: ClassVar[dict[str, str]] = {k: v[2] for k, v in V3_PARAMETERS.items()}
    DEFAULTS: ClassVar[dict[str, Any]] = {k: v[0] for k, v in V3_PARAMETERS.items()}

    def _configure(self, p: dict[str, Any]) -> None:
        """heuristic.v2's parameters, then ``reach``."""
        super()._configure(p)
        self.reach = float(p["reach"])
        self.misere_competes = bool(p["misere_competes"])
        #: Per (hand, denomination): the models' sums of the hand's own features (not the estimate).
        self._partials: dict[tuple[int, int], list[float]] = {}
        #: Per (hand, misère kind, risk): the made rate.
        self._made: dict[tuple[int, int, float], float] = {}

    def play(self, view: SeatView, legal: Sequence[int], rng: Rng | random.Random) -> int:
        """heuristic.v2's card, but the misère declarer's lead to the first trick (its only lead: it
        never wins a trick) is the first-lead model's pick where one is fitted."""
        # No card played yet: the played mask is empty (reading ``view.plays`` would build the
        # whole history's tuple at every decision).
        if len(legal) > 1 and view.seat == view.declarer and view.played == 0:
            contract = view.contract
            if contract is not None and contract.misere:
                m = models(view.rules)
                if m is not None and m.misere_lead is not None:
                    return self._model_lead(view, legal, rng, m.misere_lead)
        return super().play(view, legal, rng)

    def _model_lead(
        self, view: SeatView, legal: Sequence[int], rng: Rng | random.Random, model: LeadModel
    ) -> int:
        """The candidate of best :class:`LeadModel` score, unless it beats heuristic.v2's card by no
        more than the model's margin; joker leads and touching cards as heuristic.v2 plays them."""
        default = super().play(view, legal, rng)
        if default >= JOKER_LEAD:
            return default
        info = self._rules_info(view.rules)
        tables = view.tables
        assert tables is not None
        ci = card_info(tables)
        unseen = info.full & ~view.hand & ~(view.discards or 0) & ~view.played
        best, best_score = default, model.score(lead_features(info, ci, view.hand, unseen, default))
        bar = best_score + model.margin
        for a in distinct_actions(view, legal):
            if a >= JOKER_LEAD or a == default:
                continue
            sc = model.score(lead_features(info, ci, view.hand, unseen, a))
            if sc > bar and sc > best_score:
                best, best_score = a, sc
        return best

    def _misere_floor(self, pass_value: float) -> float:
        """With ``misere_competes``: what passing is worth (a misère then competes like a suit
        bid); else heuristic.v2's: nothing."""
        return pass_value if self.misere_competes else 0.0

    def _suit_bids(
        self,
        view: SeatView,
        info: RulesInfo,
        est: list[float],
        cheapest: tuple[tuple[int, Bid] | None, ...],
        margin: float,
        lose_guard: bool,
    ) -> list[tuple[int, float, int, Bid]]:
        """heuristic.v2's denominations worth a bid, with the gate ``reach`` tricks lower (the
        models then say what each is worth)."""
        return super()._suit_bids(view, info, est, cheapest, margin - self.reach, lose_guard)

    def _row(
        self, seat: int, hand: int, info: RulesInfo, cal: Calibration, t: int, estimate: float
    ) -> list[float]:
        """The models' P(at least 6 .. 10 tricks) and mean tricks of ``hand`` in denomination ``t``
        (the table's row where the shape has no model).  The hand's part is kept per hand."""
        m = models(info.rules)
        model = m.get("nt" if t == _NT else "suit") if m is not None else None
        if model is None:
            return super()._row(seat, hand, info, cal, t, estimate)
        key = (hand, t)
        partial = self._partials.get(key)
        if partial is None:
            if t == _NT:
                stoppers = suit_estimates(info, hand)[2]
                partial = model.partial(nt_features(info, hand, estimate, stoppers))
            else:
                partial = model.partial(suit_features(info, hand, t, estimate))
            if len(self._partials) > 4096:
                self._partials.clear()
            self._partials[key] = partial
        return model.row_at(partial, estimate)

    def _misere_made(self, hand: int, info: RulesInfo, cal: Calibration, open_: bool, risk: float) -> float:
        """The models' chance that ``hand`` makes the (open) misère (the table's where the shape
        has no model); kept per hand and risk."""
        m = models(info.rules)
        model = m.get("omis" if open_ else "mis") if m is not None else None
        if model is None:
            return super()._misere_made(hand, info, cal, open_, risk)
        key = (hand, 5 + open_, risk)
        hit = self._made.get(key)
        if hit is None:
            hit = model.made_rate(misere_features(info, hand, risk))
            if len(self._made) > 4096:
                self._made.clear()
            self._made[key] = hit
        return hit


register(Heuristic3Strategy.name)(Heuristic3Strategy)

__all__ = ["Heuristic3Strategy", "ShippedModels", "load_models", "models", "use_models"]
