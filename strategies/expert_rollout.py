"""``expert.v1``'s rollout evaluation: the early tricks' play, valued by ``heuristic.v2`` rollouts.

Double-dummy values assume that every seat plays perfectly with every hand in view (strategy fusion),
so early in a deal they misjudge the cards whose worth depends on what the others cannot see.  With
more than ``dd_tricks`` tricks left, :func:`rollout_play` values each candidate instead by playing it
out to the end of the deal with ``heuristic.v2`` in every seat (:func:`strategies.montecarlo.play_out`)
on ``rollout_worlds`` of the expert's own weighted worlds (:meth:`ExpertStrategy.sample_worlds`: the
auction inference, the play inference when on).  Every candidate is rolled out on the same worlds
(common random numbers; ``heuristic.v2`` draws nothing, so a rollout is a function of its world).
Touching cards are one candidate (:func:`strategies.sampling.distinct_actions`); ``heuristic.v2``'s
own card is always one and wins ties.

A world's result is the engine's score of the deal, taken as the declaring side's points minus the
mean of the other sides' (what :func:`strategies.expert.side_points` values by DD), with the sign of
the seat's side (in the 3-player game the defenders defend together).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fivehundred.sim.rng import Rng
from fivehundred.strategies.montecarlo import play_out
from fivehundred.strategies.sampling import distinct_actions

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fivehundred.sim.view import SeatView
    from fivehundred.strategies.expert import ExpertStrategy


def side_margin(delta: Sequence[int], declaring_team: int) -> float:
    """The declaring team's score change minus the mean of the other teams' (``delta`` per team)."""
    others = [d for t, d in enumerate(delta) if t != declaring_team]
    return delta[declaring_team] - sum(others) / len(others)


def rollout_play(
    bot: ExpertStrategy,
    view: SeatView,
    legal: Sequence[int],
    rng: Rng,
    default: int,
) -> int:
    """The candidate of best weighted mean rollout result, less ``bot.rollout_handicap`` of it, over
    ``bot.rollout_worlds_at(view)`` of its worlds (see the module); ``default`` (``heuristic.v2``'s
    card) when no candidate beats it or no world could be drawn.  ``bot.roller`` plays the rollouts;
    ``rng`` draws the worlds, then seeds the rollouts' own stream."""
    rules = view.rules
    teams = rules.teams
    declarer_team = view.declarer % teams
    declaring = view.seat % teams == declarer_team
    sign = 1.0 if declaring else -1.0
    worlds = bot.sample_worlds(view, rng, bot.rollout_worlds_at(view))
    if not worlds:
        return default
    cands = distinct_actions(view, legal)
    if default not in cands:
        cands.insert(0, default)
    weight = sum(w for w, _ in worlds)
    if weight <= 0.0:
        return default
    roll_rng = Rng(rng.getrandbits(64))
    policy = bot.roller.play
    totals = {}
    for a in cands:
        total = 0.0
        for w, st in worlds:
            if w <= 0.0:
                continue
            total += w * sign * side_margin(play_out(st, a, policy, roll_rng), declarer_team)
        totals[a] = total - bot.rollout_handicap(view, a) * weight
    best = default
    best_v = totals[default]
    for a in cands:  # the first candidate that beats heuristic.v2's card by more than rounding
        if totals[a] > best_v + 1e-9 * weight:
            best, best_v = a, totals[a]
    return best
