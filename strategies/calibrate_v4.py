"""Calibration of ``heuristic.v4``: card-play decisions in trump contracts, valued by rollouts.

- :func:`simulate_leads` plays deals with ``heuristic.v3``'s partnership against ``heuristic.v1``'s
  (the seats alternate from deal to deal) and, at every decision of a ``heuristic.v3`` seat of the
  asked roles (:data:`ROLES`: the declarer's, its partner's or a defender's leads and follows) in a
  trump contract with two or more distinct candidates, values each candidate on ``worlds``
  placements of the cards the seat cannot see (:func:`strategies.sampling.sample_hidden`, drawn from
  a generator seeded by the deal), each played out by ``heuristic.v3`` in every seat: the seat's
  side's points minus the other side's.  It records the candidates' features
  (:func:`~strategies.heuristic4.lead_features` or :func:`~strategies.heuristic4.follow_features`,
  heuristic.v3's own card marked) with their values;
- :func:`fit_leads` fits, per role, ridge least squares of the values on the features, both taken
  relative to the decision's mean (only the differences between the candidates count).

Deterministic: the same (rules, deals, master seed, worlds, roles) give the same observations and
weights.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from fivehundred.sim.engine import JOKER_LEAD
from fivehundred.sim.game import decide, new_deal
from fivehundred.sim.phases import DONE, PLAY
from fivehundred.sim.rng import Rng
from fivehundred.sim.rules import Rules
from fivehundred.strategies.calibrate_v3 import candidate_values
from fivehundred.strategies.heuristic import HeuristicStrategy
from fivehundred.strategies.heuristic3 import Heuristic3Strategy
from fivehundred.strategies.heuristic4 import ROLES as HEURISTIC4_ROLES
from fivehundred.strategies.heuristic4 import (
    FollowContext,
    LeadContext,
    follow_features,
    lead_features,
    role_index,
)
from fivehundred.strategies.montecarlo import rollout
from fivehundred.strategies.sampling import distinct_actions
from fivehundred.strategies.tables import card_info

#: The ridge penalty of the fit (on the raw features; values in points).
RIDGE: Final = 10.0
#: The roles: the declarer's, its partner's and a defender's leads, then their follows (the order of
#: :data:`strategies.heuristic4.ROLES`).
ROLES: Final = HEURISTIC4_ROLES
#: The roles whose weights are shipped (the others measured no gain: docs/experiments/bots.md).
SHIPPED_ROLES: Final = (
    "partner",
    "partner_follow1",
    "partner_follow2",
    "partner_follow3",
    "defender_follow1",
    "defender_follow2",
    "defender_follow3",
)

#: One lead decision: its role, per distinct candidate its features, and its mean value.
LeadRow = tuple[str, list[list[float]], list[float]]


def v3_decisions(
    rules: Rules,
    deals: int,
    master_seed: int,
    v3: Heuristic3Strategy,
    value: Callable[[Any, Sequence[int], Rng], LeadRow | None],
    progress: Callable[[int], None] | None = None,
    every: int = 1000,
) -> list[LeadRow]:
    """The rows of ``deals`` deals of ``v3``'s partnership against ``heuristic.v1``'s (the seats
    alternate from deal to deal): at every play decision of a ``v3`` seat with two or more legal
    cards, ``value(view, legal, rng)`` (``rng``: the deal's generator, for the placements) gives its
    row or None.  ``progress`` is called every ``every`` deals."""
    v1 = HeuristicStrategy()
    quiet = Rng(0)
    out: list[LeadRow] = []
    for d in range(deals):
        state, seed = new_deal(rules, master_seed, d, d % rules.players)
        ours = d % 2
        bots = [v3 if s % 2 == ours else v1 for s in range(rules.players)]
        rng = Rng(seed)
        while state.phase != DONE:
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply(legal[0])
                continue
            seat = state.turn
            bot = bots[seat]
            if state.phase == PLAY and bot is v3:
                row = value(state.view(seat), legal, rng)
                if row is not None:
                    out.append(row)
            state.apply(decide(bot, state, quiet))
        if progress is not None and (d + 1) % every == 0:
            progress(d + 1)
    return out


def simulate_leads(
    rules: Rules,
    deals: int,
    master_seed: int,
    worlds: int,
    progress: Callable[[int], None] | None = None,
    roles: Sequence[str] = ROLES,
    rollout_bot: Any = None,
) -> list[LeadRow]:
    """The decisions of ``deals`` deals in the given ``roles`` (:data:`ROLES`), each candidate valued
    (see the module) by rollouts of ``rollout_bot`` (default: heuristic.v3)."""
    v3 = Heuristic3Strategy()
    policy = rollout((rollout_bot or v3).play, Rng(0))
    full = v3._rules_info(rules).full

    def value(view: Any, legal: Sequence[int], rng: Rng) -> LeadRow | None:
        contract = view.contract
        if contract is None or contract.no_trump or _role(view) not in roles:
            return None
        return _value_lead(view, legal, v3, policy, full, rng, worlds)

    return v3_decisions(rules, deals, master_seed, v3, value, progress)


def valued_candidates(
    view: Any,
    legal: Sequence[int],
    cands: list[int],
    v3: Heuristic3Strategy,
    policy: Any,
    rng: Rng,
    worlds: int,
) -> tuple[int, list[float]] | None:
    """heuristic.v3's card (added to ``cands`` when it is not among them) and the rollout value of each
    candidate on ``worlds`` placements; None with fewer than two candidates or no placement (the
    step the v4 and v5 calibrations share)."""
    if len(cands) < 2:
        return None
    default = v3.play(view, legal, Rng(0))
    if default not in cands:
        cands.append(default)
    values = candidate_values(view, cands, policy, rng, worlds)
    if values is None:
        return None
    return default, values


def _value_lead(
    view: Any, legal: Sequence[int], v3: Heuristic3Strategy, policy: Any, full: int, rng: Rng, worlds: int
) -> LeadRow | None:
    """One decision's row: each distinct candidate (and heuristic.v3's lead) valued on ``worlds``
    placements, or None with fewer than two candidates."""
    cands = [a for a in distinct_actions(view, legal) if a < JOKER_LEAD]
    valued = valued_candidates(view, legal, cands, v3, policy, rng, worlds)
    if valued is None:
        return None
    default, values = valued
    tables = view.tables
    ctx = LeadContext(view, card_info(tables), full)
    if view.led_suit < 0:
        feats = [lead_features(ctx, a, default) for a in cands]
    else:
        fc = FollowContext(ctx, view, legal)
        feats = [follow_features(ctx, fc, a, default) for a in cands]
    return (_role(view), feats, values)


def _role(view: Any) -> str:
    """The role of a play decision in a suit contract: one of :data:`ROLES`."""
    return ROLES[role_index(view.seat, view.declarer, view.rules.teams, len(view.trick))]


def fit_leads(rows: Sequence[LeadRow], ridge: float = RIDGE, roles: Sequence[str] = ROLES) -> dict[str, Any]:
    """Per role of ``roles`` with 50 decisions or more, the lead weights (see the module), rounded to
    6 decimals (heuristic.v5's no-trump leads are fitted by the same function)."""
    import numpy as np

    out: dict[str, Any] = {}
    for role in roles:
        xs, ys = [], []
        for r, feats, values in rows:
            if r != role:
                continue
            f = np.array(feats, dtype=float)
            v = np.array(values, dtype=float)
            xs.append(f - f.mean(axis=0))
            ys.append(v - v.mean())
        if len(xs) < 50:
            continue
        x = np.vstack(xs)
        y = np.concatenate(ys)
        w = np.linalg.solve(x.T @ x + ridge * np.eye(x.shape[1]), x.T @ y)
        out[role] = {"weights": [round(float(v), 6) for v in w], "decisions": len(xs)}
    return out
