"""A finished tournament's tables: one row per match, one row per entry (with Bradley–Terry ratings)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from fivehundred.pipelines.tournament.config import TournamentConfig
from fivehundred.pipelines.tournament.live import MatchState, MatchStatus
from fivehundred.pipelines.tournament.stats import bt_bootstrap, bt_ratings


def matches_table(config: TournamentConfig, statuses: list[MatchStatus]) -> pl.DataFrame:
    """One row per match, from the first entry's (``a``) point of view."""
    rows = []
    for s in statuses:
        rows.append(
            {
                "match": s.match,
                "entry_a": s.a,
                "entry_b": s.b,
                "pairs": s.pairs,
                "games": s.games,
                "deals": s.deals,
                "wins_a": s.wins,
                "draws": s.draws,
                "losses_a": s.losses,
                **{f"penta_{k}": s.penta[k] for k in range(5)},
                "score_a": s.score,
                "score_half": s.score_half,
                "score_low": s.score_low,
                "score_high": s.score_high,
                "elo": s.elo,
                "elo_low": s.elo_low,
                "elo_high": s.elo_high,
                "los": s.los,
                "ppd_diff": s.ppd,
                "ppd_half": s.ppd_half,
                "llr": s.llr,
                "llr_lower": s.llr_lower,
                "llr_upper": s.llr_upper,
                "decision": s.decision,
            }
        )
    schema = {
        "match": pl.Int32,
        "entry_a": pl.String,
        "entry_b": pl.String,
        "pairs": pl.Int64,
        "games": pl.Int64,
        "deals": pl.Int64,
        "wins_a": pl.Int64,
        "draws": pl.Int64,
        "losses_a": pl.Int64,
        **{f"penta_{k}": pl.Int64 for k in range(5)},
        **{
            k: pl.Float64
            for k in (
                "score_a",
                "score_half",
                "score_low",
                "score_high",
                "elo",
                "elo_low",
                "elo_high",
                "los",
                "ppd_diff",
                "ppd_half",
                "llr",
                "llr_lower",
                "llr_upper",
            )
        },
        "decision": pl.String,
    }
    return pl.DataFrame(rows, schema=schema, orient="row")


def entries_table(config: TournamentConfig, states: list[MatchState]) -> pl.DataFrame:
    """One row per entry: games, score, points per deal against its opponents, Bradley–Terry rating."""
    k = len(config.entries)
    score = np.zeros((k, k))
    games = np.zeros((k, k))
    wins = np.zeros(k, dtype=np.int64)
    losses = np.zeros(k, dtype=np.int64)
    n_games = np.zeros(k, dtype=np.int64)
    points = np.zeros(k)
    deals = np.zeros(k, dtype=np.int64)
    units: list[tuple[int, int, float, float]] = []
    for (a, b), state in zip(config.matches, states, strict=True):
        for p in state.pairs:
            sa = p.score_a[0] + p.score_a[1]
            score[a, b] += sa
            score[b, a] += 2 - sa
            games[a, b] += 2
            games[b, a] += 2
            units.append((a, b, sa, 2.0))
            for s in p.score_a:
                wins[a] += s == 1.0
                losses[a] += s == 0.0
                wins[b] += s == 0.0
                losses[b] += s == 1.0
            n_games[a] += 2
            n_games[b] += 2
            points[a] += p.points_a
            points[b] -= p.points_a
            deals[a] += sum(p.deals)
            deals[b] += sum(p.deals)
    if games.sum() > 0 and _connected(games):
        if config.interval == "bootstrap":
            ratings = bt_bootstrap(units, k, config.bootstrap, config.seed, config.confidence, config.prior)
        else:
            ratings = bt_ratings(score, games, config.confidence, config.prior)
        elo, low, high = ratings.elo, ratings.low, ratings.high
    else:
        elo = low = high = np.full(k, math.nan)
    order = sorted(range(k), key=lambda i: (-elo[i] if not math.isnan(elo[i]) else 0.0, i))
    rank = {i: r + 1 for r, i in enumerate(order)}
    rows = []
    for i, e in enumerate(config.entries):
        g = int(n_games[i])
        rows.append(
            {
                "rank": rank[i],
                "entry": e.name,
                "strategy": e.label,
                "games": g,
                "wins": int(wins[i]),
                "draws": g - int(wins[i]) - int(losses[i]),
                "losses": int(losses[i]),
                "score": float(score[i].sum() / g) if g else math.nan,
                "deals": int(deals[i]),
                "ppd_diff": float(points[i] / deals[i]) if deals[i] else math.nan,
                "rating": float(elo[i]),
                "rating_low": float(low[i]),
                "rating_high": float(high[i]),
            }
        )
    schema = {
        "rank": pl.Int32,
        "entry": pl.String,
        "strategy": pl.String,
        "games": pl.Int64,
        "wins": pl.Int64,
        "draws": pl.Int64,
        "losses": pl.Int64,
        "score": pl.Float64,
        "deals": pl.Int64,
        "ppd_diff": pl.Float64,
        "rating": pl.Float64,
        "rating_low": pl.Float64,
        "rating_high": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema, orient="row").sort("rank")


def _connected(games: np.ndarray) -> bool:
    k = games.shape[0]
    seen = {0}
    todo = [0]
    while todo:
        i = todo.pop()
        for j in range(k):
            if games[i, j] > 0 and j not in seen:
                seen.add(j)
                todo.append(j)
    return len(seen) == k
