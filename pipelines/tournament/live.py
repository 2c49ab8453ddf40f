"""The state of each match while a tournament runs, and the fastchess-like live line."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fivehundred.pipelines.analysis.intervals import ratio_ci
from fivehundred.pipelines.tournament.config import TournamentConfig
from fivehundred.pipelines.tournament.schedule import PairResult
from fivehundred.pipelines.tournament.stats import penta_counts, penta_summary


@dataclass
class MatchState:
    """What is known of one match so far."""

    index: int
    a: str
    b: str
    pairs: list[PairResult] = field(default_factory=list)
    decision: str | None = None  # "H0" / "H1" once the SPRT accepted one

    def add(self, res: PairResult) -> None:
        """Record one more pair."""
        self.pairs.append(res)

    def counts(self) -> list[int]:
        """Pentanomial counts of ``a``'s pair outcomes."""
        return penta_counts([p.points for p in self.pairs])


@dataclass(frozen=True)
class MatchStatus:
    """A snapshot of one match, as the live line and the matches table show it."""

    match: int
    a: str
    b: str
    pairs: int
    games: int
    deals: int
    wins: int
    draws: int
    losses: int
    penta: tuple[int, ...]
    ppd: float  # a's points minus b's, per deal
    ppd_half: float
    score: float
    score_half: float
    score_low: float
    score_high: float
    elo: float
    elo_low: float
    elo_high: float
    los: float
    llr: float | None
    llr_lower: float | None
    llr_upper: float | None
    elo0: float | None
    elo1: float | None
    decision: str  # H0 | H1 | inconclusive | running | fixed

    def elo_text(self) -> str:
        """``Elo +35.2 ± 20.1``; a bound at infinity (a one-sided result) reads ``Elo > +338 (one-sided)``."""
        low, high = self.elo_low, self.elo_high
        if math.isnan(self.elo):
            return "Elo nan"
        if math.isinf(high) and math.isinf(low):
            return "Elo " + ("> +999 (one-sided)" if self.elo > 0 else "< -999 (one-sided)")
        if math.isinf(high):
            return f"Elo > {fmt_signed(low, 0)} (one-sided)"
        if math.isinf(low):
            return f"Elo < {fmt_signed(high, 0)} (one-sided)"
        return f"Elo {fmt_signed(self.elo, 1)} ± {fmt_num((high - low) / 2, 1)}"

    def score_text(self) -> str:
        """``score 55.0% ± 6.1%``, or the bounds in brackets when the interval is not symmetric."""
        low, high = self.score - self.score_low, self.score_high - self.score
        if math.isnan(low) or math.isnan(high) or abs(low - high) < 1e-9:
            return f"score {fmt_num(100 * self.score, 1)}% ± {fmt_num(100 * self.score_half, 1)}%"
        return (
            f"score {fmt_num(100 * self.score, 1)}% "
            f"[{fmt_num(100 * self.score_low, 1)}%, {fmt_num(100 * self.score_high, 1)}%]"
        )

    def llr_text(self) -> str | None:
        """``LLR 1.23 (-2.94, 2.94) [0, 20]`` with the decision once there is one; ``None`` without SPRT."""
        if self.llr is None:
            return None
        decided = f" {self.decision}" if self.decision in ("H0", "H1") else ""
        return (
            f"LLR {self.llr:.2f} ({self.llr_lower:.2f}, {self.llr_upper:.2f}) "
            f"[{self.elo0:g}, {self.elo1:g}]{decided}"
        )

    def line(self) -> str:
        """The fastchess-like status line: the LLR and its bounds first, then Elo, score, points per
        deal, counts (the CLI cuts it to the terminal's width)."""
        return " | ".join(self.parts())

    def parts(self) -> list[str]:
        """The pieces of :meth:`line`, in order (the CLI wraps them to the terminal's width)."""
        parts = [
            self.llr_text(),
            f"{self.a} vs {self.b}",
            self.elo_text(),
            f"LOS {fmt_num(100 * self.los, 1)}%",
            self.score_text(),
            f"pts/deal {fmt_signed(self.ppd, 1)} ± {fmt_num(self.ppd_half, 1)}",
            f"games {self.games:,} ({self.pairs:,} pairs) W/L/D {self.wins}/{self.losses}/{self.draws}",
            f"deals {self.deals:,}",
            f"Ptnml(0-2) {list(self.penta)}",
        ]
        return [p for p in parts if p is not None]


def fmt_num(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals; ``nan``, ``inf``, ``-inf`` spelled out."""
    if x is None or math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}f}"


def fmt_signed(x: float, digits: int) -> str:
    """``x`` with its sign and ``digits`` decimals; ``nan``, ``+inf``, ``-inf`` spelled out."""
    if x is None or math.isnan(x):
        return "nan"
    return f"{x:+.{digits}f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def match_status(config: TournamentConfig, state: MatchState, final: bool = False) -> MatchStatus:
    """The statistics of a match from its pairs so far."""
    pairs = state.pairs
    games_scores = [s for p in pairs for s in p.score_a]
    wins = sum(1 for s in games_scores if s == 1.0)
    losses = sum(1 for s in games_scores if s == 0.0)
    counts = state.counts()
    summ = penta_summary(counts, config.confidence)
    ppd, ppd_half = ratio_ci([p.points_a for p in pairs], [sum(p.deals) for p in pairs], config.confidence)
    sprt = config.stop.sprt
    if sprt is not None:
        llr = sprt.llr(counts)
        lower, upper = sprt.bounds
        decision = state.decision or ("inconclusive" if final else "running")
        elo0, elo1 = config.stop.elo0, config.stop.elo1
    else:
        llr = lower = upper = elo0 = elo1 = None
        decision = "fixed"
    return MatchStatus(
        match=state.index,
        a=state.a,
        b=state.b,
        pairs=len(pairs),
        games=len(games_scores),
        deals=sum(sum(p.deals) for p in pairs),
        wins=wins,
        draws=len(games_scores) - wins - losses,
        losses=losses,
        penta=tuple(counts),
        ppd=ppd,
        ppd_half=ppd_half,
        score=summ.score,
        score_half=summ.score_half,
        score_low=summ.score_low,
        score_high=summ.score_high,
        elo=summ.elo,
        elo_low=summ.elo_low,
        elo_high=summ.elo_high,
        los=summ.los,
        llr=llr,
        llr_lower=lower,
        llr_upper=upper,
        elo0=elo0,
        elo1=elo1,
        decision=decision,
    )
