"""Calibration of ``heuristic.v2``: simulate forced contracts, fit the table, write it.

``simulate_shape`` plays deals of one rule set with a contract forced on a seat (the engine's
``State.force_contract``, the what-if machinery of the analyses) and the ``heuristic.v2`` card play
in every seat, and returns one observation per forced contract:

- ``("suit3" .. "suit6" | "nt", estimate, tricks)``: the seat's own estimate (``heuristic.v1``'s
  reading of the hand before the kitty, partners' help included) for its best denomination at the
  6 level, and the tricks its side took (no-trumps is forced as well whenever the hand is fit for
  it); a suit's kind names its trump length (3 or fewer, 4, 5, 6 or more): the estimate is
  optimistic with short trumps and with very long ones;
- ``("mis" | "omis", risk, made)``: misère and open misère on the seat with the least misère risk
  and on the seat of the deal's number (chosen without looking at the cards: every risk occurs);
- ``("blind", 0, made)``: the closed misère of the latter, as a blind misère would be.

``simulate_games`` and ``fit_wins`` add the chance that a side wins the game from the scores
(self-play without blind misère), which a blind misère is weighed against.

``fit_shape`` turns observations into the table :class:`~strategies.heuristic2.Calibration`
reads: for every bucket of the estimate a kernel average (triangular, half-width
:data:`BANDWIDTH`, widened until it holds :data:`MIN_WEIGHT`) of "at least k tricks" for k = 6..10
and of the tricks, made monotone in the estimate (:func:`_monotone`); the same for the misère made
rates against the risk (monotone decreasing).  Both are deterministic functions of their input.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from fivehundred.sim.engine import State
from fivehundred.sim.game import new_deal, play_deal
from fivehundred.sim.rng import Rng
from fivehundred.sim.rules import Rules
from fivehundred.strategies import heuristic2
from fivehundred.strategies.heuristic2 import TRICK_KINDS, Heuristic2Strategy, table_shape, trick_kind

#: Buckets ``(lo, hi, step)``: lo, lo + step, ..., hi of the trick table's estimate and of the
#: misère table's risk.
TRICK_GRID: Final = (2.0, 11.0, 0.25)
MISERE_GRID: Final = (0.0, 10.0, 0.25)
#: Kernel half-width (in estimate or risk units) and the least total weight a bucket's average needs.
BANDWIDTH: Final = 0.5
MIN_WEIGHT: Final = 30.0
#: Variant files played for each table shape (any rule set of that shape would do).
SHAPE_VARIANTS: Final = {
    "p4j1": "pagat-au",
    "p3j1": "three-player",
    "p6j1": "six-player",
    "p4j2": "two-jokers",
}

#: Variant files whose games give a shape's game-win table when not the shape's own: it matters only
#: where blind misère may be bid, and the club rules (misère any time, a raise, the 490 cap) are the
#: shipped 4-player rules that have it.
WIN_VARIANTS: Final = {"p4j1": "club-004"}
#: Score cells of the game-win table, and one self-play game per this many forced deals.
WIN_LO: Final = -500
WIN_STEP: Final = 100
GAMES_PER: Final = 10

Observation = tuple[str, float, int]


def _bid_code(rules: Rules, tricks: int, trump: int) -> str | None:
    for b in rules.ladder:
        if not b.misere and b.tricks == tricks and b.trump == trump:
            return b.code
    return None


def _forced(rules: Rules, master_seed: int, deal: int, code: str, seat: int, bots: list[Any]) -> State:
    state, seed = new_deal(rules, master_seed, deal, 0)
    state.force_contract(code, seat)
    play_deal(state, bots, [Rng(seed + s) for s in range(rules.players)])
    return state


def simulate_shape(
    rules: Rules, deals: int, master_seed: int, progress: Callable[[int], None] | None = None
) -> list[Observation]:
    """Forced-contract observations of ``deals`` deals of ``rules`` (see the module docstring)."""
    n = rules.players
    bots: list[Any] = [Heuristic2Strategy() for _ in range(n)]
    probe = Heuristic2Strategy()
    info = probe._rules_info(rules)
    has_mis = "MIS" in rules.bid_index
    has_omis = "OMIS" in rules.bid_index
    out: list[Observation] = []
    for d in range(deals):
        state, _ = new_deal(rules, master_seed, d, 0)
        seat = d % n
        own = probe._hand_values(seat, state.hands[seat], info)
        best = max(range(5), key=lambda t: own[t])
        tries = [best] if best == 4 or own[4] < 0 else [best, 4]
        for t in tries:
            code = _bid_code(rules, 6, t)
            if code is None:
                continue
            st = _forced(rules, master_seed, d, code, seat, bots)
            kind = (
                "nt" if t == 4 else trick_kind(False, (state.hands[seat] & info.trump_masks[t]).bit_count())
            )
            out.append((kind, round(own[t], 4), int(st.declarer_tricks() or 0)))
        if has_mis:
            # The least risky seat (the hands misère is bid on) and the seat chosen blind (every
            # risk, for the table's upper end, and the made rate of a blind misère).
            risks = [probe._misere_risk(s, state.hands[s], info) for s in range(n)]
            low = min(range(n), key=lambda s: risks[s])
            for s in [low] if low == seat else [low, seat]:
                for code, kind in (("MIS", "mis"), ("OMIS", "omis")):
                    if code == "OMIS" and not has_omis:
                        continue
                    st = _forced(rules, master_seed, d, code, s, bots)
                    made = int(st.declarer_tricks() == 0)
                    out.append((kind, round(risks[s], 4), made))
                    if s == seat and code == "MIS":
                        out.append(("blind", 0.0, made))
        if progress is not None and (d + 1) % 500 == 0:
            progress(d + 1)
    return out


def _kernel_average(
    points: Sequence[tuple[float, Sequence[float]]], x: float, width: int
) -> tuple[list[float], bool] | None:
    """Triangular-kernel average of the value vectors at ``x``, widening the kernel until the
    weight reaches :data:`MIN_WEIGHT`; also whether the first kernel sufficed (the bucket is
    supported by data of its own).  None when there are no points at all."""
    if not points:
        return None
    h = BANDWIDTH
    while True:
        total = 0.0
        acc = [0.0] * width
        for px, vals in points:
            w = 1.0 - abs(px - x) / h
            if w > 0:
                total += w
                for i in range(width):
                    acc[i] += w * vals[i]
        if total >= MIN_WEIGHT or h > 20:
            return ([a / total for a in acc], h == BANDWIDTH) if total > 0 else None
        h *= 1.5


def _monotone(rows: list[list[float]], supported: list[bool], rising: bool) -> list[list[float]]:
    """Make every column rise (or fall) with the bucket.  From the first bucket with data of its
    own the columns are carried upward (running max, or min); below it, where the kernel had to
    reach up for data, no bucket may exceed it (fall short of it) either."""
    pick = max if rising else min
    other = min if rising else max
    start = supported.index(True) if True in supported else 0
    out = [list(r) for r in rows]
    for i in range(start + 1, len(out)):
        out[i] = [pick(a, b) for a, b in zip(out[i], out[i - 1], strict=True)]
    for i in range(start - 1, -1, -1):
        out[i] = [other(a, b) for a, b in zip(out[i], out[i + 1], strict=True)]
    return out


def _grid(lo: float, hi: float, step: float) -> list[float]:
    return [lo + i * step for i in range(round((hi - lo) / step) + 1)]


def fit_shape(observations: Sequence[Observation]) -> dict[str, Any]:
    """The calibration table of one table shape from its observations (deterministic)."""
    tricks: dict[str, Any] = {"lo": TRICK_GRID[0], "step": TRICK_GRID[2]}
    for kind in TRICK_KINDS:
        pts = tricks_points(observations, kind)
        if len(pts) < MIN_WEIGHT:  # too few of this kind: read it like every contract
            pts = [p for k in TRICK_KINDS for p in tricks_points(observations, k)]
        rows: list[list[float]] = []
        supported: list[bool] = []
        for x in _grid(*TRICK_GRID):
            got = _kernel_average(pts, x, 6)
            rows.append(got[0] if got else [0.0] * 6)
            supported.append(bool(got and got[1]))
        tricks[kind] = [[round(v, 4) for v in row] for row in _monotone(rows, supported, rising=True)]
    misere: dict[str, Any] = {"lo": MISERE_GRID[0], "step": MISERE_GRID[2]}
    for kind, name in (("mis", "closed"), ("omis", "open")):
        pts2 = [(x, [float(y)]) for c, x, y in observations if c == kind]
        rates: list[list[float]] = []
        held: list[bool] = []
        for x in _grid(*MISERE_GRID):
            got = _kernel_average(pts2, x, 1)
            rates.append(got[0] if got else [0.0])
            held.append(bool(got and got[1]))
        misere[name] = [round(r[0], 4) for r in _monotone(rates, held, rising=False)]
    blind = [y for c, _, y in observations if c == "blind"]
    return {
        "tricks": tricks,
        "misere": misere,
        "blind": round(sum(blind) / len(blind), 4) if blind else 0.0,
        "observations": {
            k: sum(1 for c, _, _ in observations if c == k) for k in (*TRICK_KINDS, "mis", "omis", "blind")
        },
    }


def tricks_points(observations: Sequence[Observation], kind: str) -> list[tuple[float, list[float]]]:
    """The (estimate, [at least 6..10 tricks, tricks]) points of one kind of observation."""
    return [(x, [float(y >= k) for k in range(6, 11)] + [float(y)]) for c, x, y in observations if c == kind]


def simulate_games(rules: Rules, games: int, master_seed: int) -> list[tuple[int, int, int]]:
    """``(own score, best other score, 1 if that side went on to win)`` before every deal of
    ``games`` whole games of ``heuristic.v2`` self-play without blind misère (the play a blind
    misère would be the alternative to), for each side."""
    from fivehundred.sim.game import play_game

    bots: list[Any] = [Heuristic2Strategy(blind_misere=False) for _ in range(rules.players)]
    out: list[tuple[int, int, int]] = []
    for g in range(games):
        records = play_game(rules, bots, master_seed + 1, g)
        winner = records[-1]["winner"]
        if winner is None:
            continue
        before = [0] * rules.teams
        for r in records:
            for t in range(rules.teams):
                out.append((before[t], max(x for u, x in enumerate(before) if u != t), int(winner == t)))
            before = r["score_after"]
    return out


def fit_wins(samples: Sequence[tuple[int, int, int]]) -> dict[str, Any]:
    """The chance that a side wins the game from its score and the best other score: the win rate
    per cell of :data:`WIN_STEP` points (clamped to :data:`WIN_LO` .. -:data:`WIN_LO`), with half a
    win in one game of prior (an empty cell reads 0.5), and the number of deals behind each cell."""
    cells = round(-2 * WIN_LO / WIN_STEP) + 1
    n = [[0] * cells for _ in range(cells)]
    w = [[0] * cells for _ in range(cells)]
    for ours, theirs, won in samples:
        i = min(max(round((ours - WIN_LO) / WIN_STEP), 0), cells - 1)
        j = min(max(round((theirs - WIN_LO) / WIN_STEP), 0), cells - 1)
        n[i][j] += 1
        w[i][j] += won
    rates = [[round((w[i][j] + 0.5) / (n[i][j] + 1), 4) for j in range(cells)] for i in range(cells)]
    return {"lo": WIN_LO, "step": WIN_STEP, "rates": rates, "counts": n, "samples": len(samples)}


def calibrate(
    shapes: dict[str, Rules],
    deals: dict[str, int],
    master_seed: int,
    log: Callable[[str], None] = print,
    win_rules: dict[str, Rules] | None = None,
) -> dict[str, Any]:
    """Simulate and fit every table shape; the whole table as written to the data file.

    ``win_rules`` gives the rule set whose games make a shape's game-win table (default: the
    shape's own, ``shapes[key]``)."""
    out: dict[str, Any] = {}
    for key, rules in shapes.items():
        if table_shape(rules) != key:
            raise ValueError(f"rule set {rules.name} has table shape {table_shape(rules)}, not {key}")
        t0 = time.process_time()
        obs = simulate_shape(rules, deals[key], master_seed, lambda k, key=key: log(f"  {key}: {k} deals"))
        out[key] = fit_shape(obs)
        out[key]["variant"] = rules.name
        out[key]["deals"] = deals[key]
        log(f"{key} ({rules.name}): {len(obs)} observations, {time.process_time() - t0:.1f} cpu-s")
    # The game-win table comes from whole games bid with the tables just fitted.
    heuristic2._LOADED["table"] = {"shapes": out}
    for key, rules in shapes.items():
        t0 = time.process_time()
        games = max(1, deals[key] // GAMES_PER)
        played = (win_rules or {}).get(key, rules)
        out[key]["win"] = fit_wins(simulate_games(played, games, master_seed))
        out[key]["win"]["variant"] = played.name
        log(f"{key} ({played.name}): {games} games, {time.process_time() - t0:.1f} cpu-s")
    heuristic2._LOADED.clear()
    return out
