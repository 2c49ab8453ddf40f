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

from fivehundred.sim.dd import Position, dd_tricks
from fivehundred.sim.engine import DONE
from fivehundred.sim.rng import Rng
from fivehundred.strategies.montecarlo import play_out
from fivehundred.strategies.sampling import distinct_actions

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from fivehundred.sim.engine import SeatView, State
    from fivehundred.sim.rules import Bid, Rules
    from fivehundred.strategies.expert import ExpertStrategy


def side_margin(delta: Sequence[int], declaring_team: int) -> float:
    """The declaring team's score change minus the mean of the other teams' (``delta`` per team)."""
    others = [d for t, d in enumerate(delta) if t != declaring_team]
    return delta[declaring_team] - sum(others) / len(others)


def play_out_dd(
    base: State,
    action: int,
    policy: Callable[[SeatView, list[int], Rng], int],
    rng: Rng,
    leaf: int,
    value: Callable[[int], float],
) -> float:
    """The declaring side's margin when ``action`` is played in a copy of ``base``, ``policy`` plays
    on until a trick ends with at most ``leaf`` tricks left, and the rest is solved double-dummy:
    ``value`` (the declaring side's points minus the others' for its total tricks) of
    :func:`~sim.dd.dd_tricks` there, or :func:`side_margin` of the engine's score when the deal ends
    first (a misère lost early).  ``base`` is left as it was."""
    st = base.clone()
    st.apply(action)
    stop = st.rules.hand_size - leaf
    while st.phase != DONE:
        if st.tricks_played >= stop and not st.trick:
            return value(dd_tricks(Position.from_state(st)))
        lg = st.legal_actions()
        st.apply(lg[0] if len(lg) == 1 else policy(st.view(st.turn), lg, rng))
    delta = st.score_delta
    assert delta is not None  # set when the deal ends
    return side_margin(delta, st.declarer % st.rules.teams)


def rollout_play(
    bot: ExpertStrategy,
    view: SeatView,
    legal: Sequence[int],
    rng: Rng,
    default: int,
    points: Callable[[Rules, Bid, int], float],
) -> int:
    """The candidate of best weighted mean rollout result over ``bot.rollout_worlds`` of its worlds
    (see the module); ``default`` (``heuristic.v2``'s card) when no candidate beats it or no world
    could be drawn.  ``bot.roller`` plays the rollouts; ``rng`` draws the worlds, then seeds the
    rollouts' own stream.  With ``bot.rollout_dd`` a rollout stops where the expert's DD search
    takes over (``bot.dd_tricks`` tricks left) and the rest is solved double-dummy
    (:func:`play_out_dd`), its tricks valued by ``points`` (``expert.side_points``)."""
    rules = view.rules
    teams = rules.teams
    declarer_team = view.declarer % teams
    declaring = view.seat % teams == declarer_team
    sign = 1.0 if declaring else -1.0
    worlds = bot.sample_worlds(view, rng, bot.rollout_worlds)
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
    contract = view.contract
    assert contract is not None
    leaf = bot.dd_tricks if bot.rollout_dd else 0

    def value(tricks: int) -> float:
        return points(rules, contract, tricks)

    totals = {}
    for a in cands:
        total = 0.0
        for w, st in worlds:
            if w <= 0.0:
                continue
            if leaf:
                total += w * sign * play_out_dd(st, a, policy, roll_rng, leaf, value)
            else:
                total += w * sign * side_margin(play_out(st, a, policy, roll_rng), declarer_team)
        totals[a] = total
    best = default
    best_v = totals[default]
    for a in cands:  # the first candidate that beats heuristic.v2's card by more than rounding
        if totals[a] > best_v + 1e-9 * weight:
            best, best_v = a, totals[a]
    return best
