"""What does a hand make?  The library function behind ``fivehundred hand`` (docs/hand.md).

:func:`analyse_hand` deals the cards the seat does not see many times (uniformly over the deals
that meet the constraints: :class:`tools.constraints.DealSampler`), and for each deal and each
denomination (the four suits, no trumps, and misère when the rules have it) makes the seat the
declarer through the engine (:meth:`State.force_contract`), lets the ``heuristic.v1`` bot take the
kitty, discard and name the joker for that contract (the documented discard rule), and solves the
position at the opening lead with the double-dummy solver (:func:`sim.dd.dd_tricks`): the tricks
of the seat's side (the declarer's own in misère, 0 or 1).  From those it reports the distribution
of tricks, the chance of making each level with its 95% Wilson interval, each bid's expected score
for the declaring side (by :meth:`Rules.declarer_points`), and what ``heuristic.v1`` and
``heuristic.v2`` would call as the seat's first call of the auction.  Each denomination's search
starts from its value on the deal before (the same values, less work).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from fivehundred.pipelines.analysis.intervals import wilson_interval
from fivehundred.pipelines.dd_deals import DISCARD_BOT, play_position
from fivehundred.pipelines.runconfig import MAX_SEED
from fivehundred.sim.dd import dd_tricks
from fivehundred.sim.engine import AUCTION, State
from fivehundred.sim.notation import (
    BID,
    MISERE,
    NT_TEXT,
    PASS,
    SUITS,
    action_name,
    bid_denomination,
    card_name,
    parse_cards,
)
from fivehundred.sim.rng import NoRng, Rng
from fivehundred.sim.rules import Rules, load_rules
from fivehundred.sim.seeding import derive
from fivehundred.strategies import make
from fivehundred.tools.constraints import Condition, DealSampler, HandError, parse_constraints

#: Deals analysed when none is given (1,200 solves on pagat-au: about a second of CPU).
DEFAULT_DEALS: Final = 200
MAX_DEALS: Final = 100_000
#: The bot whose kitty discard and joker naming the analysis uses, and the bots asked to bid.
BIDDERS: Final = ("heuristic.v1", "heuristic.v2")
_HAND_KEY: Final = 0x48414E44  # "HAND": the analysis's own seed stream


@dataclass(frozen=True)
class Denomination:
    """One denomination's double-dummy tricks over the deals: ``tricks[i]`` for deal ``i``."""

    name: str  # S C D H NT MIS
    contract: str  # the contract played for it (6S, 6NT, MIS): its tricks do not depend on the level
    tricks: tuple[int, ...]

    def distribution(self, most: int) -> list[int]:
        """How many deals gave 0, 1, ... ``most`` tricks."""
        out = [0] * (most + 1)
        for t in self.tricks:
            out[t] += 1
        return out

    @property
    def mean(self) -> float:
        """Mean tricks."""
        return sum(self.tricks) / len(self.tricks)


@dataclass(frozen=True)
class BidValue:
    """One bid of the ladder: how often it is made, its mean score, whether the seat may open it."""

    code: str
    make: float
    expected_points: float
    opening: bool


@dataclass(frozen=True)
class HandAnalysis:
    """The result of :func:`analyse_hand` (see :meth:`to_dict` for its JSON form)."""

    variant: str
    seat: int
    dealer: int
    hand: tuple[str, ...]
    constraints: str
    deals: int
    seed: int
    attempts: int
    hand_size: int
    denominations: tuple[Denomination, ...]
    bids: tuple[BidValue, ...]
    bots: tuple[tuple[str, str], ...]  # (strategy, call)
    passes_before: int  # seats that speak before the seat (and pass, for the bots' call)
    recommended_bid: str

    def bid(self, code: str) -> BidValue:
        """The :class:`BidValue` of a bid code."""
        return next(b for b in self.bids if b.code == code)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the inputs, per denomination the tricks of each deal, their
        distribution and the chance of making each level, every bid, the bots' calls and
        ``recommended_bid``."""
        dens = {}
        for d in self.denominations:
            most = 1 if d.name == MISERE else self.hand_size
            dist = d.distribution(most)
            if d.name == MISERE:
                made = {MISERE: dist[0]}
            else:
                made = {str(k): sum(dist[k:]) for k in range(6, min(10, most) + 1)}
            dens[d.name] = {
                "contract": d.contract,
                "mean_tricks": d.mean,
                "distribution": dist,
                "make": {k: m / self.deals for k, m in made.items()},
                "make_interval": {k: list(wilson_interval(m, self.deals)) for k, m in made.items()},
                "tricks": list(d.tricks),
            }
        return {
            "variant": self.variant,
            "seat": self.seat,
            "dealer": self.dealer,
            "hand": list(self.hand),
            "constraints": self.constraints,
            "deals": self.deals,
            "seed": self.seed,
            "attempts": self.attempts,
            "discard_rule": f"{DISCARD_BOT} discard and joker naming for the contract",
            "denominations": dens,
            "bids": [
                {
                    "bid": b.code,
                    "make": b.make,
                    "make_interval": list(wilson_interval(round(b.make * self.deals), self.deals)),
                    "expected_points": b.expected_points,
                    "opening": b.opening,
                }
                for b in self.bids
            ],
            "bots": {name: call for name, call in self.bots},
            "bots_note": (
                "each bot's first call from the seat's view at the start of the auction"
                + (f", the {self.passes_before} seat(s) before it passing" if self.passes_before else "")
            ),
            "recommended_bid": self.recommended_bid,
        }


def _opening_state(rules: Rules, hands: list[int], kitty: int, dealer: int, seat: int) -> tuple[State, int]:
    """The auction at the seat's first turn, every seat before it passing; and how many passed."""
    state = State(rules, hands, kitty, dealer)
    passes = 0
    while state.turn != seat:
        state.apply(PASS)
        passes += 1
    assert state.phase == AUCTION
    return state, passes


def parse_hand(rules: Rules, text: str) -> int:
    """The bitmask of a hand text (``"JK JH JD AH KH QH TH 4C 5S 6D"``, card names of the
    notation, any case); :class:`HandError` for an unknown or repeated card or the wrong count."""
    try:
        cards = parse_cards(rules.deck, text)
    except ValueError as exc:
        raise HandError(f"hand: {exc}") from None
    if len(cards) != rules.hand_size:
        raise HandError(f"hand: {len(cards)} cards given, a hand of {rules.name} has {rules.hand_size}")
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def analyse_hand(
    hand: str,
    variant: str = "pagat-au",
    seat: int = 0,
    dealer: int | None = None,
    constraints: str = "",
    deals: int = DEFAULT_DEALS,
    seed: int = 1,
) -> HandAnalysis:
    """What ``hand`` makes from ``seat`` (``dealer`` defaults to the seat on its right, so that it
    speaks first), over ``deals`` deals of the unseen cards that meet ``constraints``, dealt from
    ``seed``.  Every input is checked before any dealing; :class:`HandError` says what is wrong."""
    rules = load_rules(variant)
    n = rules.players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise HandError(f"seat {seat!r}: {rules.name} has seats 0..{n - 1}")
    if dealer is None:
        dealer = (seat - 1) % n
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
        raise HandError(f"dealer {dealer!r}: {rules.name} has seats 0..{n - 1}")
    if isinstance(deals, bool) or not isinstance(deals, int):
        raise HandError(f"deals {deals!r}: must be a whole number")
    if not 1 <= deals <= MAX_DEALS:
        raise HandError(f"deals {deals}: must be {'at least 1' if deals < 1 else f'at most {MAX_DEALS}'}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise HandError(f"seed {seed!r}: must be between 0 and {MAX_SEED}")
    mask = parse_hand(rules, hand)
    conditions: tuple[Condition, ...] = parse_constraints(rules, seat, constraints)
    sampler = DealSampler(rules, seat, mask, conditions)

    rng = Rng(derive(seed, _HAND_KEY))
    contracts = [(s, f"6{s}") for s in (*SUITS, NT_TEXT)]
    if MISERE in rules.bid_index:
        contracts.append((MISERE, MISERE))
    tricks: dict[str, list[int]] = {name: [] for name, _ in contracts}
    first: tuple[list[int], int] | None = None
    for _ in range(deals):
        hands, kitty = sampler.sample(rng)
        first = first or (hands, kitty)
        for name, code in contracts:
            got = tricks[name]  # the last deal's value starts the search (the same value, less work)
            pos = play_position(rules, hands, kitty, dealer, seat, code)
            got.append(dd_tricks(pos, got[-1] if got else None))
    assert first is not None
    dens = tuple(Denomination(name, code, tuple(tricks[name])) for name, code in contracts)

    state, passes = _opening_state(rules, first[0], first[1], dealer, seat)
    legal = state.legal_actions()
    bots = []
    for spec in BIDDERS:
        call = make(spec).bid(state.view(seat), legal, NoRng())
        bots.append((spec, action_name(rules, call)))
    bids = []
    for i, b in enumerate(rules.ladder):
        got = tricks[bid_denomination(b.code)]
        made = sum(1 for t in got if (t == 0 if b.misere else t >= b.tricks))
        points = sum(rules.declarer_points(b, t) for t in got)
        bids.append(BidValue(b.code, made / deals, points / deals, BID + i in legal))
    opening = [b for b in bids if b.opening]
    best = max(opening, key=lambda b: b.expected_points, default=None)
    recommended = best.code if best is not None and best.expected_points > 0 else action_name(rules, PASS)
    return HandAnalysis(
        variant=rules.name,
        seat=seat,
        dealer=dealer,
        hand=tuple(card_name(c) for c in hand.split()),
        constraints=constraints,
        deals=deals,
        seed=seed,
        attempts=sampler.attempts,
        hand_size=rules.hand_size,
        denominations=dens,
        bids=tuple(bids),
        bots=tuple(bots),
        passes_before=passes,
        recommended_bid=recommended,
    )


__all__ = [
    "BIDDERS",
    "DEFAULT_DEALS",
    "DISCARD_BOT",
    "BidValue",
    "Denomination",
    "HandAnalysis",
    "HandError",
    "analyse_hand",
    "parse_hand",
]
