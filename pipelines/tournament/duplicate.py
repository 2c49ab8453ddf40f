"""Duplicate matches between two bots, measured by deal pairs, and bot speeds: the library of the
strength ladder and of the bot benchmarks (``benchmarks/ladder.py``, ``benchmarks/oracle.py``).

A match is a tournament of two entries (:func:`match_config`) played by the tournament's own pair
player (:class:`~pipelines.tournament.schedule.PairPlayer`) on any executor, in this process or on
Ray: board ``p`` is game ``p`` of the master seed, played once with bot A in the even seats and once
with A in the odd seats, so each partnership holds the other's cards.  What this module adds to the
tournament's per-game statistics is the finer per-deal one: a *deal pair* is hand ``j`` of board
``p`` when both games reached it, and its value is A's points minus B's in the first game plus the
same in the second (:attr:`PairDeals.values`; the match's figure is half their mean, the points A
gains a deal).  The 95% interval treats each board as one cluster (the deals of a game are
correlated through the score): :func:`~pipelines.analysis.intervals.cluster_mean`, the project's
one cluster-robust interval.  Games won get a Wilson interval.

:func:`kind_breakdown` and :func:`swap_breakdown` say where the points come from: by the kind of
contract of each seating (who declared it, made or not) and by what the same cards led to in the
two seatings.  Both add up to the match's mean.

A match stops at the first board that brings it to the asked number of deal pairs, whatever the
executor: boards are consumed in order, so the result depends only on (variant, bots, seed, pairs).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from fivehundred.pipelines.analysis.intervals import cluster_mean, inverse_variance_pool, wilson_interval
from fivehundred.pipelines.tournament.config import Entry, StopRule, TournamentConfig
from fivehundred.pipelines.tournament.executors import Executor, InProcessExecutor
from fivehundred.pipelines.tournament.schedule import Chunk, PairResult, Seating
from fivehundred.sim.game import play_game
from fivehundred.sim.rules import Rules, load_rules
from fivehundred.strategies.base import check_spec, make


def match_config(
    variant: str,
    spec_a: str,
    spec_b: str,
    seed: int,
    pairs: int = 1_000_000,
    chunk_pairs: int = 4,
    labels: tuple[str, str] | None = None,
) -> TournamentConfig:
    """The tournament of one match of ``spec_a`` against ``spec_b`` (fixed, at most ``pairs`` boards).

    The entries are named by their labels (``B`` gets `` (B)`` added when both are the same bot, so
    that a bot against itself is a match of two entries).  ``labels`` names bots the registry does
    not build (a benchmark's own, through a :class:`~pipelines.tournament.schedule.Seating`); else
    each spec is checked and labelled by the registry (:func:`strategies.base.check_spec`)."""
    if labels is None:
        la = check_spec(spec_a)[2]
        lb = check_spec(spec_b)[2]
    else:
        la, lb = labels
    names = (la, lb if lb != la else f"{lb} (B)")
    rules = load_rules(variant)
    if rules.teams != 2:
        raise ValueError(f"a duplicate match needs two partnerships ({variant}: {rules.players} players)")
    return TournamentConfig(
        name="match",
        variant=variant,
        seed=seed,
        format="match",
        entries=(Entry(names[0], spec_a, {}, la), Entry(names[1], spec_b, {}, lb)),
        matches=((0, 1),),
        stop=StopRule("fixed", pairs),
        chunk_pairs=chunk_pairs,
    )


def contract_kind(rules: Rules, code: str | None) -> str:
    """The kind of a contract for the breakdowns: thrown in, misère, open or blind misère, a suit
    contract by level (6, 7, 8+), no-trumps by level."""
    if code is None:
        return "thrown in"
    b = rules.bid(code)
    if b.misere:
        return "blind misère" if b.blind else "open misère" if b.open else "misère"
    level = f"{b.tricks}" if b.tricks < 8 else "8+"
    return f"{level}NT" if b.trump == 4 else f"{level} suit"


@dataclass
class PairDeals:
    """One board of a match, from A's point of view."""

    pair: int
    #: Per deal pair: A's points minus B's in the first game plus the same in the second.
    values: list[int]
    #: Per deal pair and game: (kind of contract, who declared it: "A", "B" or "-", made, A's points
    #: minus B's in that game).
    kinds: list[tuple[str, str, bool, int]]
    #: Per deal pair: what the two games' cards led to (:func:`swap_key`), and the pair's value.
    swaps: list[tuple[str, int]]
    #: A's game score in each game (1 won, 0.5 no winner, 0 lost).
    score_a: tuple[float, float]
    #: Deals played in the two games together.
    deals: int


def pair_deals(rules: Rules, result: PairResult, records: Sequence[dict[str, Any]]) -> PairDeals:
    """The deal pairs of one board from its two games' records (the first game's, then the
    second's, as :meth:`~pipelines.tournament.schedule.PairPlayer.play_pair` returns them)."""
    games: list[list[dict[str, Any]]] = [[], []]
    for r in records:
        games[r["game_id"] % 2].append(r)
    values: list[int] = []
    kinds: list[tuple[str, str, bool, int]] = []
    swaps: list[tuple[str, int]] = []
    for j in range(min(len(games[0]), len(games[1]))):
        total = 0
        for side in (0, 1):  # A holds team ``side``
            r = games[side][j]
            delta = r["score_delta"]
            margin = delta[side] - delta[1 - side]
            total += margin
            code = r["contract"]
            who = "-" if code is None else ("A" if r["declarer_team"] == side else "B")
            kinds.append((contract_kind(rules, code), who, bool(r["made"]), margin))
        values.append(total)
        swaps.append((swap_key(rules, games[0][j], games[1][j]), total))
    return PairDeals(result.pair, values, kinds, swaps, result.score_a, sum(len(g) for g in games))


def swap_key(rules: Rules, first: dict[str, Any], second: dict[str, Any]) -> str:
    """What the same cards led to in the two games of a deal pair (A in the even seats in ``first``,
    in the odd ones in ``second``): when the same cards declared in both, ``same hands: A's contract /
    B's contract``; otherwise each game's declarer (A or B) and contract."""

    def what(r: dict[str, Any]) -> str:
        if r["contract"] is None:
            return "thrown in"
        return f"{contract_kind(rules, r['contract'])} {'made' if r['made'] else 'failed'}"

    d0, d1 = first["declarer_team"], second["declarer_team"]
    if d0 is not None and d0 == d1:
        a_game, b_game = (first, second) if d0 == 0 else (second, first)
        return f"same hands: A {what(a_game)} / B {what(b_game)}"
    parts = []
    for r, side in ((first, 0), (second, 1)):
        d = r["declarer_team"]
        parts.append("thrown in" if d is None else f"{'A' if d == side else 'B'} {what(r)}")
    return "other hands: " + " / ".join(sorted(parts))


@dataclass
class DuplicateResult:
    """A finished match: its boards' deal pairs and the summary figures."""

    a: str
    b: str
    variant: str
    seed: int
    boards: list[PairDeals] = field(default_factory=list)
    #: Wall seconds the match took (all workers together).
    seconds: float = 0.0

    @property
    def deal_pairs(self) -> int:
        """Deal pairs played."""
        return sum(len(p.values) for p in self.boards)

    @property
    def games(self) -> int:
        """Games played (two a board)."""
        return 2 * len(self.boards)

    def points(self) -> tuple[float, float, float]:
        """A's points a deal over B (half a deal pair's value, averaged) and its 95% interval,
        clustered by board (``nan`` bounds with fewer than two boards)."""
        mean, lo, hi, _ = self._clustered()
        return mean, lo, hi

    def standard_error(self) -> float:
        """The standard error of :meth:`points`' mean (clustered by board; ``nan`` with fewer than
        two boards)."""
        return self._clustered()[3]

    def _clustered(self) -> tuple[float, float, float, float]:
        y = [sum(p.values) for p in self.boards if p.values]
        m = [2 * len(p.values) for p in self.boards if p.values]
        if not y:
            return math.nan, math.nan, math.nan, math.nan
        mean, lo, hi, se, _ = cluster_mean(y, m)
        return mean, lo, hi, se

    def wins(self) -> tuple[int, int]:
        """Games A won, and games with a winner."""
        scores = [s for p in self.boards for s in p.score_a]
        return sum(1 for s in scores if s == 1.0), sum(1 for s in scores if s != 0.5)


def play_duplicate(
    config: TournamentConfig,
    deal_pairs: int,
    executor: Executor | None = None,
    seating: Seating | None = None,
    on_board: Callable[[DuplicateResult], None] | None = None,
) -> DuplicateResult:
    """Play the boards of ``config``'s one match in order until at least ``deal_pairs`` deal pairs
    (at most ``config.stop.pairs`` boards) and summarise them.  ``executor`` plays the chunks (default:
    in this process); ``seating`` builds and plays the bots (default: the registry and
    :func:`sim.game.play_game`); ``on_board`` is called with the result so far after every board."""
    executor = executor or InProcessExecutor()
    rules = config.rules()
    a, b = config.entries
    out = DuplicateResult(a.label, b.label, config.variant, config.seed)
    t0 = time.perf_counter()

    def chunks() -> Iterator[Chunk]:
        step = config.chunk_pairs
        for first in range(0, config.stop.pairs, step):
            yield Chunk(0, first, min(step, config.stop.pairs - first))

    got = 0
    stream = executor.run(config, chunks(), seating)
    try:
        for _, results, records in stream:
            by_pair: dict[int, list[dict[str, Any]]] = {}
            for r in records:
                by_pair.setdefault(r["board"], []).append(r)
            for res in results:
                if got >= deal_pairs:
                    break
                board = pair_deals(rules, res, by_pair[res.pair])
                out.boards.append(board)
                got += len(board.values)
                if on_board is not None:
                    on_board(out)
            if got >= deal_pairs:
                break
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    out.seconds = time.perf_counter() - t0
    return out


def duplicate_match(
    variant: str,
    spec_a: str,
    spec_b: str,
    deal_pairs: int,
    seed: int,
    executor: Executor | None = None,
    chunk_pairs: int = 4,
) -> DuplicateResult:
    """:func:`play_duplicate` of :func:`match_config`: ``spec_a`` against ``spec_b`` (registry bots)."""
    config = match_config(variant, spec_a, spec_b, seed, deal_pairs, chunk_pairs)
    return play_duplicate(config, deal_pairs, executor)


@dataclass(frozen=True)
class KindRow:
    """One row of :func:`kind_breakdown`."""

    kind: str
    declarer: str  # "A", "B" or "-" (thrown in)
    made: bool
    seatings: int
    #: The row's share of A's points a deal (the rows add up to the match's mean).
    points: float


def kind_breakdown(result: DuplicateResult) -> list[KindRow]:
    """A's points a deal split by the kind of contract of each game of each deal pair, who declared
    it and whether it was made, most costly first; the points add up to the match's mean."""
    cells: dict[tuple[str, str, bool], list[int]] = {}
    for board in result.boards:
        for kind, who, made, margin in board.kinds:
            c = cells.setdefault((kind, who, made and who != "-"), [0, 0])
            c[0] += 1
            c[1] += margin
    n = 2 * result.deal_pairs or 1
    rows = [KindRow(k, w, m, c[0], c[1] / n) for (k, w, m), c in cells.items()]
    return sorted(rows, key=lambda r: (r.points, r.kind, r.declarer, r.made))


def swap_breakdown(result: DuplicateResult) -> list[tuple[str, int, float]]:
    """A's points a deal split by what the same cards led to in the two games of each deal pair
    (:func:`swap_key`): (key, deal pairs, share of the mean), most costly first."""
    cells: dict[str, list[int]] = {}
    for board in result.boards:
        for key, value in board.swaps:
            c = cells.setdefault(key, [0, 0])
            c[0] += 1
            c[1] += value
    n = 2 * result.deal_pairs or 1
    return sorted(((k, c[0], c[1] / n) for k, c in cells.items()), key=lambda r: (r[2], r[0]))


def match_line(result: DuplicateResult) -> str:
    """One line: the match from the stronger side's point of view (points a deal with the 95%
    interval, games won with the Wilson interval)."""
    a, b = result.a, result.b
    m, lo, hi = result.points()
    wins, decided = result.wins()
    if m < 0:
        a, b, m, lo, hi = b, a, -m, -hi, -lo
        wins = decided - wins
    wlo, whi = wilson_interval(wins, decided)
    rate = wins / decided if decided else math.nan
    return (
        f"{a} vs {b}: {result.deal_pairs} deal pairs, {result.games} games | "
        f"points/deal {m:+.1f} [95% CI {lo:+.1f}, {hi:+.1f}] | "
        f"games won {wins}/{decided} = {rate:.1%} [95% CI {wlo:.1%}, {whi:.1%}]"
    )


def pooled_line(results: Sequence[DuplicateResult]) -> str:
    """One line: the matches of one pair of bots on independent sets of deals (other master seeds)
    pooled by inverse variance (:func:`inverse_variance_pool`, each match's clustered standard
    error), from the stronger side's point of view as :func:`match_line`."""
    first = results[0]
    if any((r.a, r.b, r.variant) != (first.a, first.b, first.variant) for r in results):
        raise ValueError("pooled matches must be of the same two bots on the same variant")
    m, lo, hi, _ = inverse_variance_pool([(r.points()[0], r.standard_error()) for r in results])
    a, b = first.a, first.b
    if m < 0:
        a, b, m, lo, hi = b, a, -m, -hi, -lo
    seeds = ", ".join(str(r.seed) for r in results)
    pairs = sum(r.deal_pairs for r in results)
    return (
        f"{a} vs {b}: {len(results)} set{'s' if len(results) > 1 else ''} pooled by inverse variance "
        f"(master seeds {seeds}; "
        f"{pairs} deal pairs) | points/deal {m:+.1f} [95% CI {lo:+.1f}, {hi:+.1f}]"
    )


def breakdown_lines(result: DuplicateResult, top: int = 15) -> list[str]:
    """The two breakdowns as text: every kind row, then the ``top`` most costly and most gainful
    swap rows."""
    out = [f"where {result.a}'s points come from (A = {result.a}, B = {result.b}; share of points/deal):"]
    for r in kind_breakdown(result):
        who = {"A": "A declares", "B": "B declares", "-": ""}[r.declarer]
        res = "" if r.declarer == "-" else ("made" if r.made else "failed")
        out.append(f"  {r.kind:>12} {who:>10} {res:>6}: {r.seatings:6d} games, {r.points:+6.2f}")
    swaps = swap_breakdown(result)
    if swaps:
        out.append("by what the same cards led to in the two games (deal pairs, share of points/deal):")
        shown = swaps if len(swaps) <= 2 * top else [*swaps[:top], None, *swaps[-top:]]
        for row in shown:
            out.append("  ..." if row is None else f"  {row[0]}: {row[1]} pairs, {row[2]:+.2f}")
    return out


@dataclass
class SelfPlay:
    """What :func:`self_play` measured: deals a CPU second, and what was bid."""

    games: int
    deals: int
    cpu_seconds: float
    contracts: int
    #: Per misère contract code: (times it was the contract, times it was made).
    misere: dict[str, list[int]]
    #: No-trump contracts, and how many of them had the joker's suit named.
    nt: list[int]

    @property
    def deals_per_second(self) -> float:
        """Deals per CPU second of this process (one core)."""
        return self.deals / self.cpu_seconds if self.cpu_seconds > 0 else math.nan

    def add(self, other: SelfPlay) -> None:
        """Count ``other``'s games (of the same bots) in this one's."""
        self.games += other.games
        self.deals += other.deals
        self.cpu_seconds += other.cpu_seconds
        self.contracts += other.contracts
        for code, (k, made) in other.misere.items():
            row = self.misere.setdefault(code, [0, 0])
            row[0] += k
            row[1] += made
        self.nt[0] += other.nt[0]
        self.nt[1] += other.nt[1]


def self_play(
    variant: str,
    specs: Sequence[str],
    games: int,
    seed: int,
    max_seconds: float = math.inf,
    first_game: int = 10_000,
) -> SelfPlay:
    """Whole games from ``first_game`` on with ``specs[s % len(specs)]`` in seat ``s`` (one spec: it
    in every seat), up to ``games`` games or ``max_seconds`` of this process's CPU time (so the
    speed is per core and other load on the machine does not count against the bots)."""
    rules = load_rules(variant)
    bots = [make(specs[s % len(specs)]) for s in range(rules.players)]
    out = SelfPlay(0, 0, 0.0, 0, {}, [0, 0])
    t0 = time.process_time()
    for g in range(games):
        for r in play_game(rules, bots, seed, first_game + g):
            out.deals += 1
            code = r["contract"]
            if code is None:
                continue
            out.contracts += 1
            bid = rules.bid(code)
            if bid.no_trump and not bid.misere:
                out.nt[0] += 1
                out.nt[1] += r["joker_suit"] is not None
            if bid.misere:
                row = out.misere.setdefault(code, [0, 0])
                row[0] += 1
                row[1] += bool(r["made"])
        out.games += 1
        if time.process_time() - t0 > max_seconds:
            break
    out.cpu_seconds = time.process_time() - t0
    return out
