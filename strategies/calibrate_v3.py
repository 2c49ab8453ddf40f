"""Calibration of ``heuristic.v3``: hand features, forced-contract outcomes, logistic models.

``heuristic.v2`` reads what a hand is worth from one number (``heuristic.v1``'s trick estimate, and
the trump length) through a table.  ``heuristic.v3`` reads it from a few features of the hand
(:mod:`strategies.heuristic3`'s ``suit_features``, ``nt_features``, ``misere_features``) through
small logistic models fitted on simulated outcomes:

- :func:`simulate` deals random hands and, for one seat per deal, forces each contract the seat
  could sensibly declare (every suit and no-trumps its estimate nearly reaches, at the 6 level;
  misère and open misère when its misère risk allows) with ``heuristic.v3``'s own play in every
  seat (the engine's ``State.force_contract`` and :func:`sim.game.play_deal`), and records the
  features of the seat's hand as dealt (what a bidder knows) with the outcome: the tricks its side
  took, or whether the misère was made;
- :func:`fit` fits, per kind of contract (a trump suit, no-trumps, misère, open misère), one
  logistic regression per outcome threshold (at least 6 .. 10 tricks; misère made) on standardised
  features with a small ridge penalty (Newton's method, :func:`logistic`), and a least-squares line
  for the mean tricks.  Everything is numpy and deterministic: the same observations give the same
  coefficients, and the observations depend only on (rules, deals, master seed).

The fitted models are a few dozen numbers per table shape, shipped in
``strategies/data/heuristic_v3.json`` (``scripts/fit_heuristic_v3.py`` writes and checks it) and read
by :class:`strategies.heuristic3.Models` (compiled with the bots: a dot product per threshold).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from fivehundred.sim.game import new_deal, play_deal
from fivehundred.sim.rng import Rng
from fivehundred.sim.rules import Rules
from fivehundred.strategies.estimates import help_tricks, suit_estimates
from fivehundred.strategies.heuristic3 import (
    FEATURES,
    KINDS,
    THRESHOLDS,
    misere_features,
    nt_features,
    suit_features,
)
from fivehundred.strategies.tables import RulesInfo

if TYPE_CHECKING:
    from fivehundred.sim.view import SeatView

#: Suit or no-trump contracts forced in the simulation when the seat's estimate reaches this far
#: under 6 tricks (hands that could never bid them are left out).
REACH: Final = 1.5
#: Misère and open misère forced when the seat's misère risk is at most this.
MISERE_REACH: Final = 5.0
#: The ridge penalty of every regression (on standardised features).
RIDGE: Final = 1.0


Observation = tuple[str, list[float], int]


def _bid_code(rules: Rules, tricks: int, trump: int) -> str | None:
    for b in rules.ladder:
        if not b.misere and b.tricks == tricks and b.trump == trump:
            return b.code
    return None


def simulate(
    rules: Rules,
    deals: int,
    master_seed: int,
    bot_factory: Callable[[], Any],
    progress: Callable[[int], None] | None = None,
) -> list[Observation]:
    """Forced-contract observations of ``deals`` deals (see the module): ``(kind, features,
    outcome)`` with the outcome the tricks of the declaring side (suit, NT) or 1 for a made misère.
    ``bot_factory`` makes the players of every seat (and reads the hands: ``_hand_values``,
    ``_misere_risk`` of ``heuristic.v1``)."""
    n = rules.players
    bots = [bot_factory() for _ in range(n)]
    probe = bot_factory()
    info: RulesInfo = probe._rules_info(rules)
    codes = {t: _bid_code(rules, 6, t) for t in range(5)}
    misere = [(code, kind) for code, kind in (("MIS", "mis"), ("OMIS", "omis")) if code in rules.bid_index]
    out: list[Observation] = []
    for d in range(deals):
        state, seed = new_deal(rules, master_seed, d, d % n)
        seat = (d // n) % n
        hand = state.hands[seat]
        est = probe._hand_values(seat, hand, info)
        help_ = help_tricks(info, seat, probe.partner_tricks) + probe.kitty_tricks + probe.aggression
        _, nt_raw, stoppers = suit_estimates(info, hand)
        forced: list[tuple[str, str, list[float]]] = []
        for t in range(4):
            if est[t] >= 6 - REACH and codes[t] is not None:
                forced.append(("suit", codes[t] or "", suit_features(info, hand, t, est[t])))
        nt_est = nt_raw + help_
        if nt_est >= 6 - REACH and codes[4] is not None:
            forced.append(("nt", codes[4] or "", nt_features(info, hand, nt_est, stoppers)))
        risk = probe._misere_risk(seat, hand, info)
        if risk <= MISERE_REACH:
            for code, kind in misere:
                forced.append((kind, code, misere_features(info, hand, risk)))
        for kind, code, feats in forced:
            st = state.clone()
            st.force_contract(code, seat)
            play_deal(st, bots, [Rng(seed + s) for s in range(n)])
            won = st.declarer_tricks() or 0
            out.append((kind, feats, int(won == 0) if kind in ("mis", "omis") else int(won)))
        if progress is not None and (d + 1) % 10_000 == 0:
            progress(d + 1)
    return out


def logistic(x: Any, y: Any, ridge: float = RIDGE, iterations: int = 50) -> Any:
    """Ridge-penalised logistic regression by Newton's method: weights ``w`` (the last one the
    intercept, not penalised) with P(y = 1) = sigmoid(x @ w[:-1] + w[-1]).  ``x`` (n, k) and ``y``
    (n,) are numpy arrays; deterministic."""
    import numpy as np

    n, k = x.shape
    xa = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(k + 1)
    pen = np.full(k + 1, ridge)
    pen[-1] = 0.0
    for _ in range(iterations):
        z = np.clip(xa @ w, -30, 30)
        p = 1.0 / (1.0 + np.exp(-z))
        grad = xa.T @ (p - y) + pen * w
        hess = (xa * (p * (1 - p))[:, None]).T @ xa + np.diag(pen)
        step = np.linalg.solve(hess, grad)
        w = w - step
        if float(np.abs(step).max()) < 1e-10:
            break
    return w


def linear(x: Any, y: Any, ridge: float = RIDGE) -> Any:
    """Ridge least squares with an unpenalised intercept (the last weight)."""
    import numpy as np

    n, k = x.shape
    xa = np.hstack([x, np.ones((n, 1))])
    pen = np.full(k + 1, ridge)
    pen[-1] = 0.0
    return np.linalg.solve(xa.T @ xa + np.diag(pen), xa.T @ y)


def fit(observations: Sequence[Observation]) -> dict[str, Any]:
    """The models of one table shape from its observations (see the module): per kind, the
    features' means and scales, and the weights of each threshold's logistic regression (and of the
    mean tricks), rounded to 6 decimals."""
    import numpy as np

    out: dict[str, Any] = {}
    for kind in KINDS:
        rows = [(f, y) for k, f, y in observations if k == kind]
        if len(rows) < 50:
            continue
        x = np.array([f for f, _ in rows], dtype=float)
        y = np.array([v for _, v in rows], dtype=float)
        mean = x.mean(axis=0)
        scale = x.std(axis=0)
        scale[scale == 0] = 1.0
        z = (x - mean) / scale
        model: dict[str, Any] = {
            "features": list(FEATURES[kind]),
            "mean": [round(float(v), 6) for v in mean],
            "scale": [round(float(v), 6) for v in scale],
            "observations": len(rows),
        }
        if kind in ("mis", "omis"):
            model["made"] = [round(float(v), 6) for v in logistic(z, y)]
            model["rate"] = round(float(y.mean()), 6)
        else:
            model["at_least"] = [
                [round(float(v), 6) for v in logistic(z, (y >= k).astype(float))] for k in THRESHOLDS
            ]
            model["tricks"] = [round(float(v), 6) for v in linear(z, y)]
        out[kind] = model
    return out


#: One lead decision: per distinct candidate card, its :func:`~strategies.heuristic3.lead_features`
#: and its mean value over the sampled worlds (the declaring side's points minus the others'), and
#: the index of the default card (heuristic.v3's without the lead model).
LeadRow = tuple[list[list[float]], list[float], int]


def simulate_misere_leads(
    rules: Rules,
    deals: int,
    master_seed: int,
    bot_factory: Callable[[], Any],
    worlds: int,
    progress: Callable[[int], None] | None = None,
) -> list[LeadRow]:
    """The misère declarer's first leads: on each deal, misère and open misère forced (alternately)
    on the seat of least misère risk, the kitty exchanged by the bot; each distinct candidate card of
    the first lead valued by ``bot_factory``'s play from there on every seat, on ``worlds`` placements
    of the cards the declarer cannot see (:func:`strategies.sampling.sample_hidden`, drawn from a
    generator seeded by the deal)."""
    from fivehundred.sim.engine import JOKER_LEAD, KITTY, PLAY
    from fivehundred.strategies.heuristic2 import Heuristic2Strategy
    from fivehundred.strategies.heuristic3 import lead_features
    from fivehundred.strategies.montecarlo import rollout
    from fivehundred.strategies.sampling import distinct_actions
    from fivehundred.strategies.tables import card_info

    probe = bot_factory()
    default_bot = Heuristic2Strategy()  # the first lead without the model: heuristic.v1's misère lead
    info: RulesInfo = probe._rules_info(rules)
    codes = [c for c in ("MIS", "OMIS") if c in rules.bid_index]
    quiet = Rng(0)
    policy = rollout(probe.play, quiet)
    out: list[LeadRow] = []
    for d in range(deals):
        state, seed = new_deal(rules, master_seed, d, d % rules.players)
        seat = min(range(rules.players), key=lambda s: probe._misere_risk(s, state.hands[s], info))
        state.force_contract(codes[d % len(codes)], seat)
        while state.phase == KITTY:
            state.apply(probe.discard(state.view(seat), state.legal_actions(), quiet))
        if state.phase != PLAY:
            continue
        view = state.view(seat)
        legal = state.legal_actions()
        cands = [a for a in distinct_actions(view, legal) if a < JOKER_LEAD]
        default = default_bot.play(view, legal, quiet)
        if default not in cands:
            continue
        if len(cands) < 2:
            continue
        tables = view.tables
        assert tables is not None
        ci = card_info(tables)
        unseen = info.full & ~view.hand & ~(view.discards or 0) & ~view.played
        values = candidate_values(view, cands, policy, Rng(seed), worlds)
        if values is None:
            continue
        feats = [lead_features(info, ci, view.hand, unseen, a) for a in cands]
        out.append((feats, values, cands.index(default)))
        if progress is not None and (d + 1) % 1000 == 0:
            progress(d + 1)
    return out


def candidate_values(
    view: SeatView, cands: Sequence[int], policy: Any, rng: Rng, worlds: int
) -> list[float] | None:
    """Each candidate action's mean value for the seat's side (its deal score minus the best other
    side's) over ``worlds`` placements of the cards the seat cannot see (drawn with ``rng``; the same
    placements for every candidate), each played out from the candidate by ``policy``; None when no
    placement could be drawn.  The fitting scripts' rollout valuation (heuristic.v3's misère lead,
    heuristic.v4's leads and follows)."""
    from fivehundred.sim.game import play_out
    from fivehundred.strategies.sampling import rebuild_state, sample_hidden

    placed = []
    for _ in range(worlds):
        sample = sample_hidden(view, rng)
        if sample is not None:
            placed.append(rebuild_state(view, sample[0], sample[1]))
    if not placed:
        return None
    team = view.seat % view.rules.teams
    values = []
    for a in cands:
        total = 0.0
        for w in placed:
            st = w.clone()
            st.apply(a)
            play_out(st, policy)
            delta = st.score_delta
            assert delta is not None
            total += delta[team] - max(x for t, x in enumerate(delta) if t != team)
        values.append(total / len(placed))
    return values


def fit_lead(rows: Sequence[LeadRow], margin: float = 0.0) -> dict[str, Any]:
    """The weights of a lead model: ridge least squares of each candidate's value on its features,
    both taken relative to the decision's mean (only the differences between candidates count)."""
    import numpy as np

    xs, ys = [], []
    for feats, values, _ in rows:
        f = np.array(feats, dtype=float)
        v = np.array(values, dtype=float)
        xs.append(f - f.mean(axis=0))
        ys.append(v - v.mean())
    x = np.vstack(xs)
    y = np.concatenate(ys)
    w = np.linalg.solve(x.T @ x + RIDGE * 10 * np.eye(x.shape[1]), x.T @ y)
    return {"weights": [round(float(v), 6) for v in w], "margin": margin, "decisions": len(rows)}
