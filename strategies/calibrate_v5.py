"""Calibration of ``heuristic.v5``: the leads in no-trump contracts, valued by rollouts.

- :func:`simulate_nt_leads` plays deals with ``heuristic.v3``'s partnership against ``heuristic.v1``'s
  (the seats alternate from deal to deal) and, at every lead of a ``heuristic.v3`` seat in a
  no-trump contract (not a misère) with two or more candidates
  (:func:`~strategies.heuristic5.nt_candidates`, and heuristic.v3's own lead when it is none of
  them), values each candidate on ``worlds`` placements of the cards the seat cannot see, each
  played out by ``heuristic.v3`` in every seat (:func:`strategies.calibrate_v3.candidate_values`,
  a generator seeded by the deal): the seat's side's points minus the other side's.  It records
  the candidates' features (:func:`~strategies.heuristic5.nt_lead_features`) with their values;
- the weights are fitted per role (:data:`strategies.heuristic5.ROLES`) by
  :func:`strategies.calibrate_v4.fit_leads`: ridge least squares of the values on the features, both
  relative to the decision's mean.

Deterministic: the same (rules, deals, master seed, worlds) give the same observations and weights.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fivehundred.sim.notation import NT
from fivehundred.sim.rng import Rng
from fivehundred.sim.rules import Rules
from fivehundred.strategies.calibrate_v4 import LeadRow, fit_leads, v3_decisions, valued_candidates
from fivehundred.strategies.heuristic3 import Heuristic3Strategy
from fivehundred.strategies.heuristic5 import ROLES, NtLeadContext, lead_role, nt_candidates, nt_lead_features
from fivehundred.strategies.montecarlo import rollout
from fivehundred.strategies.tables import card_info

__all__ = ["ROLES", "fit_leads", "simulate_nt_leads"]


def simulate_nt_leads(
    rules: Rules, deals: int, master_seed: int, worlds: int, progress: Callable[[int], None] | None = None
) -> list[LeadRow]:
    """The no-trump leads of ``deals`` deals, each candidate valued (see the module)."""
    v3 = Heuristic3Strategy()
    policy = rollout(v3.play, Rng(0))
    full = v3._rules_info(rules).full

    def value(view: Any, legal: Sequence[int], rng: Rng) -> LeadRow | None:
        contract = view.contract
        if contract is None or contract.trump != NT or view.led_suit >= 0:
            return None
        return _value_lead(view, list(legal), v3, policy, full, rng, worlds)

    return v3_decisions(rules, deals, master_seed, v3, value, progress, every=10_000)


def _value_lead(
    view: Any, legal: list[int], v3: Heuristic3Strategy, policy: Any, full: int, rng: Rng, worlds: int
) -> LeadRow | None:
    """One lead's row: each candidate (and heuristic.v3's lead) valued on ``worlds`` placements, or
    None with fewer than two candidates."""
    ci = card_info(view.tables)
    cands = nt_candidates(v3, ci, full & ~view.hand & ~view.played, legal, view.hand)
    valued = valued_candidates(view, legal, cands, v3, policy, rng, worlds)
    if valued is None:
        return None
    values = valued[1]
    nc = NtLeadContext(view, ci, full)
    role = ROLES[lead_role(view.seat, view.declarer, view.rules.teams)]
    return (role, [nt_lead_features(nc, a) for a in cands], values)
