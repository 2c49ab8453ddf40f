"""``montecarlo.v1`` and ``montecarlo.v2``: determinized Monte Carlo play on top of a heuristic player.

At each play decision with a real choice, the bot samples ``samples`` placements of the cards it
cannot see, consistent with everything its seat knows (cards played, voids shown, its own discards
as declarer, a joker named by the declarer, the exposed open-misère hand), rebuilds a full engine
state for each (:func:`strategies.sampling.rebuild_state`), and plays every candidate action out to
the end of the deal on every sample with the rollout policy (``heuristic`` by default).  It picks
the candidate with the best mean score difference for its team.  Touching cards (no unseen card
between them) are the same candidate.  Bidding, the discard and joker naming are the heuristic's.

``montecarlo.v1`` sits on ``heuristic.v1`` (its bidding, discard, naming, its card on ties and in the
last tricks, its rollouts); ``montecarlo.v2`` is the same search on ``heuristic.v2`` (class attributes
:attr:`MonteCarloStrategy.BASE` and the ``rollout`` default), with the auction inference refitted to
v2's declarers and drawn by resampling (:meth:`MonteCarlo2Strategy.draw`).

It reads only its :class:`~sim.engine.SeatView` and draws every random number from its ``rng``,
so a decision is a function of (view, rng seed): runs are reproducible.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from fivehundred.sim.engine import JOKER_LEAD
from fivehundred.sim.game import play_out as sim_play_out
from fivehundred.sim.rng import Rng
from fivehundred.strategies.base import (
    AuctionOf,
    StrategyConfigError,
    available,
    boolean,
    make,
    register,
    whole,
)
from fivehundred.strategies.heuristic import HeuristicStrategy
from fivehundred.strategies.heuristic2 import Heuristic2Strategy
from fivehundred.strategies.sampling import distinct_actions, played_by, rebuild_state, sample_hidden
from fivehundred.strategies.tables import card_info

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from fivehundred.sim.engine import State
from fivehundred.sim.view import SeatView


def play_out(
    base: State, action: int, policy: Callable[[SeatView, Sequence[int], Rng], int], rng: Rng
) -> list[int]:
    """The deal's score change per team (``score_delta``) when ``action`` is played in a copy of
    ``base`` and ``policy`` (a bot's ``play``, drawing from ``rng``) plays every later choice to the
    end of the deal (:func:`rollout`).  ``base`` is left as it was."""
    st = base.clone()
    st.apply(action)
    sim_play_out(st, rollout(policy, rng))
    delta = st.score_delta
    assert delta is not None  # set when the deal ends
    return delta


def rollout(policy: Callable[[SeatView, Sequence[int], Rng], int], rng: Rng) -> Callable[[State], int]:
    """A ``choose`` for :func:`sim.game.play_out` that lets ``policy`` (a bot's method, drawing from
    ``rng``) make every choice with more than one legal action, for the seat to act, and takes a
    forced action without asking."""

    def choose(st: State) -> int:
        lg = st.legal_actions()
        return lg[0] if len(lg) == 1 else policy(st.view(st.turn), lg, rng)

    return choose


def _policy(value: Any) -> str | None:
    if not isinstance(value, str):
        return "must be a strategy name such as 'heuristic' or 'random'"
    name = value.split("(", 1)[0].strip()
    if name.startswith("montecarlo"):
        return "a Monte Carlo rollout policy cannot itself be Monte Carlo"
    names = available()
    if name not in names and not any(n.rsplit(".", 1)[0] == name for n in names):
        return f"unknown rollout policy (available: {', '.join(n for n in names if 'montecarlo' not in n)})"
    return None


_policy.allowed = "any registered bot but a Monte Carlo one"  # type: ignore[attr-defined]


@register("montecarlo.v1")
class MonteCarloStrategy(AuctionOf):
    """Determinized Monte Carlo player.  See the module docstring; parameters in :attr:`PARAMS`."""

    #: One line on what it is (``fivehundred strategies``).
    summary: ClassVar[str] = "deals the unseen cards many times, plays each card out with heuristic.v1"

    PARAMS: ClassVar[dict[str, Any]] = {
        "samples": whole(1, 10_000),
        "rollout": _policy,
        "min_tricks_left": whole(1, 20),
        "infer": boolean,
    }

    #: What each parameter does (``fivehundred strategies --describe``; docs/strategies.md).
    PARAM_HELP: ClassVar[dict[str, str]] = {
        "samples": "sampled deals per decision",
        "rollout": "policy that plays the rollouts",
        "min_tricks_left": "with fewer tricks left, play the base heuristic's card directly",
        "infer": "use the auction: sampled deals that give a suit declarer few trumps are rarely accepted",
    }

    #: Acceptance probability of a sampled deal by the declarer's trump count (suit contracts):
    #: declarers rarely hold fewer than four trumps after the kitty exchange.
    TRUMP_LIKELIHOOD: ClassVar[tuple[float, ...]] = (0.02, 0.02, 0.05, 0.2, 0.6)
    #: The heuristic whose bidding, discard, naming and fallback card this bot uses.
    BASE: ClassVar[type] = HeuristicStrategy

    def __init__(
        self, samples: int = 20, rollout: str = "heuristic", min_tricks_left: int = 2, infer: bool = True
    ) -> None:
        self.samples = int(samples)
        self.rollout = rollout
        self.min_tricks_left = int(min_tricks_left)
        self.infer = bool(infer)
        self.base = self.BASE()
        try:
            self.policy = make(rollout)
        except StrategyConfigError as exc:
            raise ValueError(f"rollout policy: {exc}") from None

    # ---------------------------------------------------------------- play

    def candidates(self, view: SeatView, legal: list[int]) -> list[int]:
        """The legal actions with touching cards merged (the weakest of each run is kept)."""
        return distinct_actions(view, legal)

    def draw(
        self, view: SeatView, rng: Rng, trump_mask: int, decl_played: int
    ) -> tuple[list[int], int] | None:
        """One sampled placement of the hidden cards (:func:`sample_hidden`).  With ``trump_mask`` (the
        trumps of a suit contract, when this seat defends and infers), a placement giving the
        declarer ``n`` trumps (``decl_played`` counted) is kept with probability
        ``TRUMP_LIKELIHOOD[n]`` (1 from its end on), else redrawn, at most 4 draws in all."""
        like = self.TRUMP_LIKELIHOOD
        decl = view.declarer
        for attempt in range(4):
            sample = sample_hidden(view, rng)
            if sample is None or not trump_mask or attempt == 3:
                break
            n = ((sample[0][decl] | decl_played) & trump_mask).bit_count()
            if n >= len(like) or rng.random() < like[n]:
                break
        return sample

    def play(self, view: SeatView, legal: list[int], rng: Rng) -> int:
        """The candidate with the best mean rollout result over sampled deals."""
        if len(legal) == 1:
            return legal[0]
        default = self.base.play(view, legal, rng)
        cands = self.candidates(view, legal)
        if len(cands) == 1:
            return default if default in legal else cands[0]
        rules = view.rules
        if rules.hand_size - len(view.trick_winners) < self.min_tricks_left:
            return default
        # Put the heuristic's choice (or the candidate standing for it) first: it wins ties.
        ci = card_info(view.tables)
        rep = default
        if default not in cands:
            for c in cands:
                if c < JOKER_LEAD and ci.eff[c] == ci.eff[default] and ci.strength[c] <= ci.strength[default]:
                    rep = c
        if rep in cands:
            cands.remove(rep)
            cands.insert(0, rep)
        states: list[State] = []
        decl = view.declarer
        trump_mask = decl_played = 0
        if self.infer and view.seat != decl and view.contract.trump < 4 and not view.contract.misere:
            trump_mask = ci.suit_mask[view.contract.trump]
            decl_played = played_by(view)[decl]
        for _ in range(self.samples):
            sample = self.draw(view, rng, trump_mask, decl_played)
            if sample is not None:
                states.append(rebuild_state(view, sample[0], sample[1]))
        if not states:
            return default
        seat = view.seat
        teams = rules.teams
        team = seat % teams
        roll_rng = Rng(rng.getrandbits(64))
        policy = self.policy.play
        best = cands[0]
        best_v = None
        for a in cands:
            total = 0.0
            for base in states:
                delta = play_out(base, a, policy, roll_rng)
                mine = delta[team]
                other = max(delta[t] for t in range(teams) if t != team)
                total += mine - other
            if best_v is None or total > best_v:
                best, best_v = a, total
        if best == rep:
            return default
        return best


@register("montecarlo.v2")
class MonteCarlo2Strategy(MonteCarloStrategy):
    """``montecarlo.v1``'s search on ``heuristic.v2``: v2's bidding, discard, joker naming and fallback
    card, rollouts played by ``heuristic.v2`` by default, and the auction inference as resampling
    (:meth:`draw`) with weights fitted to v2's declarers (``benchmarks/mc_inference.py``)."""

    summary: ClassVar[str] = "montecarlo.v1's search on heuristic.v2 (its auction, rollouts, inference)"
    BASE: ClassVar[type] = Heuristic2Strategy

    PARAMS: ClassVar[dict[str, Any]] = {**MonteCarloStrategy.PARAMS, "draws": whole(1, 100)}
    PARAM_HELP: ClassVar[dict[str, str]] = {
        **MonteCarloStrategy.PARAM_HELP,
        "infer": "use the auction: sampled deals are resampled by the suit declarer's trump count (draws)",
        "draws": "with infer: placements drawn per sample, one kept with odds by the declarer's trumps",
    }

    #: The auction's likelihood of a suit declarer holding ``n`` trumps after the exchange (the joker
    #: and bowers counted; the last entry for ``n`` and more), relative: the ratio of the real
    #: count's frequency to the sampler's at the defenders' first play decision in heuristic.v2
    #: self-play (``python benchmarks/mc_inference.py --deals 5000``, pagat-au; docs/experiments/bots.md).
    TRUMP_LIKELIHOOD: ClassVar[tuple[float, ...]] = (0.02, 0.02, 0.02, 0.04, 0.33, 2.2, 8.5, 26.0, 43.0)

    def __init__(
        self,
        samples: int = 20,
        rollout: str = "heuristic.v2",
        min_tricks_left: int = 2,
        infer: bool = True,
        draws: int = 8,
    ) -> None:
        super().__init__(samples, rollout, min_tricks_left, infer)
        self.draws = int(draws)

    def draw(
        self, view: SeatView, rng: Rng, trump_mask: int, decl_played: int
    ) -> tuple[list[int], int] | None:
        """One sampled placement of the hidden cards.  With ``trump_mask`` (see the base class),
        ``draws`` placements are drawn and one is kept with odds ``TRUMP_LIKELIHOOD[n]`` for the
        declarer's ``n`` trumps (sampling-importance-resampling: the kept placement follows the
        sampler's law reweighted by the auction's likelihood, whatever its scale)."""
        first = sample_hidden(view, rng)
        if first is None or not trump_mask or self.draws == 1:
            return first
        like = self.TRUMP_LIKELIHOOD
        top = len(like) - 1
        decl = view.declarer
        pool = [first]
        weights = []
        for _ in range(self.draws - 1):
            sample = sample_hidden(view, rng)
            if sample is not None:
                pool.append(sample)
        for hands, _discards in pool:
            weights.append(like[min(top, ((hands[decl] | decl_played) & trump_mask).bit_count())])
        r = rng.random() * sum(weights)
        for sample, w in zip(pool, weights, strict=True):
            r -= w
            if r < 0:
                return sample
        return pool[-1]
