"""Statistics of duplicate matches: Elo from scores, paired intervals, LOS, the GSPRT, Bradley–Terry.

Everything here is pure numerics (numpy and the standard library), independent of the game.

Conventions
-----------
- A *game score* is 1 for a win, 0.5 for a game without a winner (it hit the deal limit), 0 for a loss.
- A *game pair* is the same boards played twice with the partnerships swapping seats; its outcome is
  the sum of the two game scores, one of the five values 0, 0.5, 1, 1.5, 2.  ``counts`` below are
  *pentanomial counts*: how many pairs ended with each of these five outcomes, in that order.
- Elo differences use the logistic model: expected score ``s = 1 / (1 + 10 ** (-elo / 400))``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fivehundred.pipelines.analysis.distributions import NORMAL
from fivehundred.pipelines.analysis.intervals import t_value, wilson_bounds, z_value

#: The per-game score of each pentanomial outcome (pair points / 2).
PENTA_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: What an empty pentanomial cell counts as in the GSPRT (as fishtest does), so the MLE exists.
REGULARIZE = 1e-3


def score_from_elo(elo: float) -> float:
    """The expected score of an Elo difference under the logistic model."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    """The Elo difference of an expected score (0.75 → 190.85); ±inf at 1 and 0."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return 0.0 - 400.0 * math.log10(1.0 / score - 1.0)  # 0.0 - x: no "-0.0" at score 0.5


def penta_counts(pair_points: Sequence[float]) -> list[int]:
    """Pentanomial counts from pair outcomes (each 0, 0.5, 1, 1.5 or 2)."""
    counts = [0] * 5
    for p in pair_points:
        k = round(2 * p)
        if not (0 <= k <= 4 and abs(2 * p - k) < 1e-9):
            raise ValueError(f"pair outcome must be one of 0, 0.5, 1, 1.5, 2, got {p}")
        counts[k] += 1
    return counts


@dataclass(frozen=True)
class ScoreSummary:
    """Mean per-game score of a side over game pairs, with the interval and what follows from it."""

    pairs: int
    score: float  # mean per-game score, 0..1
    score_half: float  # half the width of its interval
    elo: float
    elo_low: float
    elo_high: float
    los: float  # likelihood of superiority, P(true score > 0.5)
    score_low: float = math.nan  # the interval of the score (asymmetric when it is Wilson's)
    score_high: float = math.nan


def penta_summary(counts: Sequence[int], confidence: float = 0.95) -> ScoreSummary:
    """Score, Elo difference with interval and LOS from pentanomial counts (pairs as the units).

    The interval of the score is Student's t over the per-pair scores (sample variance, ``n - 1``
    degrees of freedom), which accounts for the correlation of the two games of a pair and stays
    sound for a handful of pairs.  With one pair, or every pair alike (a one-sided match: the sample
    shows no spread), it is the Wilson interval of the mean over the pairs (:func:`wilson_bounds`),
    so a match won 5-0 gets a finite lower Elo bound and an upper one of ``+inf``.
    """
    c = np.asarray(counts, dtype=float)
    n = float(c.sum())
    if n == 0:
        return ScoreSummary(0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)
    a = np.asarray(PENTA_SCORES)
    p = c / n
    mean = float((p * a).sum())
    ss = float((c * (a - mean) ** 2).sum())
    if n >= 2 and ss > 0:
        se = math.sqrt(ss / (n - 1) / n)
        half = t_value(confidence, int(n)) * se
        low, high = max(0.0, mean - half), min(1.0, mean + half)
        los = NORMAL.cdf((mean - 0.5) / se)
    else:
        low, high = wilson_bounds(mean, int(n), confidence)
        los = 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    return ScoreSummary(
        pairs=int(n),
        score=mean,
        score_half=(high - low) / 2,
        elo=elo_from_score(mean),
        elo_low=elo_from_score(low),
        elo_high=elo_from_score(high),
        los=los,
        score_low=low,
        score_high=high,
    )


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds: accept H0 at or below the first, H1 at or above the second."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def mle_pdf(values: Sequence[float], probs: Sequence[float], s: float) -> np.ndarray:
    """The maximum-likelihood distribution on ``values`` with mean ``s`` given empirical ``probs``.

    It is ``p_i / (1 + x (a_i - s))`` where ``x`` solves ``Σ p_i (a_i - s) / (1 + x (a_i - s)) = 0``
    (a Lagrange multiplier; the function is decreasing in ``x``, so bisection finds it).
    ``values`` must be ascending, with ``values[0] < s < values[-1]`` and positive end probabilities.
    """
    a = np.asarray(values, dtype=float) - s
    p = np.asarray(probs, dtype=float)
    if not (a[0] < 0 < a[-1]):
        raise ValueError(f"mean {s} must lie strictly between {values[0]} and {values[-1]}")
    lo, hi = -1.0 / a[-1], -1.0 / a[0]

    def f(x: float) -> float:
        return float((p * a / (1 + x * a)).sum())

    # Shrink the open interval slightly; f → +inf at lo and -inf at hi when the end cells are positive.
    width = hi - lo
    lo, hi = lo + 1e-12 * width, hi - 1e-12 * width
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15 * max(1.0, abs(mid)):
            break
    x = (lo + hi) / 2
    q = p / (1 + x * a)
    return q / q.sum()


def llr_pdf(values: Sequence[float], counts: Sequence[float], s0: float, s1: float) -> float:
    """The generalized log-likelihood ratio of mean ``s1`` against ``s0`` for observed ``counts``.

    ``N Σ p_i ln(q1_i / q0_i)`` with ``p`` the empirical distribution and ``q0``, ``q1`` the MLE
    distributions with means ``s0`` and ``s1`` (:func:`mle_pdf`).
    """
    c = np.asarray(counts, dtype=float)
    n = float(c.sum())
    p = c / n
    q0 = mle_pdf(values, p, s0)
    q1 = mle_pdf(values, p, s1)
    mask = p > 0
    return float(n * (p[mask] * np.log(q1[mask] / q0[mask])).sum())


def gsprt_llr(counts: Sequence[int], s0: float, s1: float) -> float:
    """The GSPRT log-likelihood ratio of pentanomial ``counts`` (per-game scores ``s1`` vs ``s0``).

    Empty cells count as :data:`REGULARIZE` pairs so the MLE exists (fishtest's convention).
    Zero pairs give 0.
    """
    if sum(counts) == 0:
        return 0.0
    reg = [c if c > 0 else REGULARIZE for c in counts]
    return llr_pdf(PENTA_SCORES, reg, s0, s1)


@dataclass(frozen=True)
class Sprt:
    """A sequential test of per-game score ``s0`` (H0) against ``s1`` (H1) with error rates."""

    s0: float
    s1: float
    alpha: float
    beta: float

    @classmethod
    def from_elo(cls, elo0: float, elo1: float, alpha: float, beta: float) -> Sprt:
        """The test of Elo difference ``elo0`` against ``elo1``."""
        return cls(score_from_elo(elo0), score_from_elo(elo1), alpha, beta)

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) LLR bounds."""
        return sprt_bounds(self.alpha, self.beta)

    def llr(self, counts: Sequence[int]) -> float:
        """The LLR of pentanomial counts."""
        return gsprt_llr(counts, self.s0, self.s1)

    def decide(self, llr: float) -> str | None:
        """``"H0"``, ``"H1"`` or ``None`` (continue)."""
        lower, upper = self.bounds
        if llr <= lower:
            return "H0"
        if llr >= upper:
            return "H1"
        return None


# ---------------------------------------------------------------------------------------------------
# Bradley–Terry ratings


@dataclass(frozen=True)
class Ratings:
    """Bradley–Terry ratings on the Elo scale (mean 0) with interval half-widths."""

    elo: np.ndarray
    low: np.ndarray
    high: np.ndarray
    iterations: int


ELO_PER_NAT = 400.0 / math.log(10.0)


def bradley_terry(
    score: np.ndarray, games: np.ndarray, prior: float = 1.0, tol: float = 1e-12, max_iter: int = 100000
) -> tuple[np.ndarray, int]:
    """Log-strengths ``θ`` (mean 0) of the Bradley–Terry model fitted by Hunter's MM algorithm.

    ``score[i, j]`` is what ``i`` scored against ``j`` (wins plus half the draws), ``games[i, j]`` the
    games they played (symmetric).  ``prior`` virtual drawn games are added to every pair that met, so
    an entry that won or lost everything still gets a finite rating.  The comparison graph must be
    connected.
    """
    games = np.asarray(games, dtype=float)
    score = np.asarray(score, dtype=float)
    met = games > 0
    n_games = games + prior * met
    w = score + 0.5 * prior * met
    wins = w.sum(axis=1)
    k = games.shape[0]
    pi = np.ones(k)
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is returned
        denom = (n_games / (pi[:, None] + pi[None, :])).sum(axis=1)
        new = wins / denom
        new /= math.exp(float(np.log(new).mean()))
        done = float(np.abs(np.log(new) - np.log(pi)).max()) < tol
        pi = new
        if done:
            break
    theta = np.log(pi)
    return theta - theta.mean(), it


def bt_fisher_cov(theta: np.ndarray, games: np.ndarray, prior: float = 1.0) -> np.ndarray:
    """The covariance of ``θ`` (mean-0 parametrisation): the pseudo-inverse of the Fisher information."""
    games = np.asarray(games, dtype=float)
    n_games = games + prior * (games > 0)
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    w = n_games * p * (1 - p)
    info = np.diag(w.sum(axis=1)) - w
    return np.linalg.pinv(info)


def bt_ratings(score: np.ndarray, games: np.ndarray, confidence: float = 0.95, prior: float = 1.0) -> Ratings:
    """Bradley–Terry ratings in Elo with Fisher-information intervals."""
    theta, it = bradley_terry(score, games, prior)
    cov = bt_fisher_cov(theta, games, prior)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    half = z_value(confidence) * se
    return Ratings(ELO_PER_NAT * theta, ELO_PER_NAT * (theta - half), ELO_PER_NAT * (theta + half), it)


def bt_bootstrap(
    units: Sequence[tuple[int, int, float, float]],
    k: int,
    samples: int,
    seed: int,
    confidence: float = 0.95,
    prior: float = 1.0,
) -> Ratings:
    """Bradley–Terry ratings with percentile intervals from a seeded bootstrap over game pairs.

    ``units`` are game pairs ``(i, j, score_i, games)``; they are resampled within each match (the
    pair ``(i, j)``), so the match sizes stay fixed and the correlation inside a pair is kept.
    """
    rng = np.random.default_rng(seed)
    by_match: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for i, j, s, g in units:
        by_match.setdefault((i, j), []).append((s, g))

    def fit(draw: bool) -> np.ndarray:
        score = np.zeros((k, k))
        games = np.zeros((k, k))
        for (i, j), rows in by_match.items():
            arr = np.asarray(rows, dtype=float)
            if draw:
                arr = arr[rng.integers(0, len(arr), len(arr))]
            s, g = float(arr[:, 0].sum()), float(arr[:, 1].sum())
            score[i, j] += s
            score[j, i] += g - s
            games[i, j] += g
            games[j, i] += g
        return bradley_terry(score, games, prior)[0]

    theta = fit(False)
    boot = np.array([fit(True) for _ in range(samples)])
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(boot, [tail, 100 - tail], axis=0)
    return Ratings(ELO_PER_NAT * theta, ELO_PER_NAT * low, ELO_PER_NAT * high, samples)
