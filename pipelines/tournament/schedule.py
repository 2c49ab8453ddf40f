"""Duplicate scheduling: which boards each match plays, in which seats, and playing a chunk of pairs.

A *board* is the deal sequence of one game: hand ``j`` of board ``b`` is ``sim.game.new_deal(rules,
seed, b, j)``, so it depends only on (master seed, board, hand).  Pair ``p`` of every match plays board
``p`` twice: in the first game (side 0) entry ``a`` of the match holds the even seats (team 0) and
``b`` the odd ones; in the second (side 1) they swap, so each partnership holds the other's cards.
Every match of a round robin plays the same boards.

Each game gets a unique ``game_id`` in the log, ``2 * (pair * n_matches + match) + side``, and its
records are rewritten to carry it; the board is ``game_id // 2 // n_matches`` (also written in the
extra ``board`` column), and each record's ``seed`` column still regenerates its cards exactly.

Entries that use randomness get their own streams: the RNG of a seat on a deal is seeded from the
deal, the seat and the entry's key (a hash of its name), so an entry's choices never depend on its
opponent's draws.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from fivehundred.pipelines.tournament.config import Entry, TournamentConfig
from fivehundred.sim.game import play_game
from fivehundred.sim.rules import Rules


@dataclass(frozen=True, order=True)
class Chunk:
    """A work unit: game pairs ``first .. first + count - 1`` of match ``match``."""

    match: int
    first: int
    count: int

    @property
    def key(self) -> str:
        """The chunk's file stem under ``deals/`` and ``pairs/``."""
        return f"m{self.match:03d}-p{self.first:07d}-{self.first + self.count - 1:07d}"


def game_id(n_matches: int, match: int, pair: int, side: int) -> int:
    """The log's ``game_id`` of one game of a pair."""
    return 2 * (pair * n_matches + match) + side


def entry_key(name: str) -> int:
    """A stable 63-bit key of an entry name, mixed into its bots' RNG seeds."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big") >> 1


def chunk_order(n_matches: int, pairs: int, chunk_pairs: int) -> Iterator[Chunk]:
    """All chunks of ``pairs`` pairs per match, interleaving the matches chunk by chunk.

    This is the order in which results are consumed (and deal ids assigned), whatever the workers.
    """
    for first in range(0, pairs, chunk_pairs):
        count = min(chunk_pairs, pairs - first)
        for m in range(n_matches):
            yield Chunk(m, first, count)


@dataclass
class PairResult:
    """The outcome of one game pair, from the point of view of the match's first entry ``a``."""

    match: int
    pair: int
    score_a: tuple[float, float]  # a's game score (1, 0.5, 0) in side 0 and side 1
    points_a: int  # a's points minus b's over both games
    deals: tuple[int, int]
    ends: tuple[str, str]

    @property
    def points(self) -> float:
        """The pair's outcome for ``a``: 0, 0.5, 1, 1.5 or 2."""
        return self.score_a[0] + self.score_a[1]

    def as_row(self) -> dict[str, Any]:
        """A row of the ``pairs`` table."""
        return {
            "match": self.match,
            "pair": self.pair,
            "score_a_0": self.score_a[0],
            "score_a_1": self.score_a[1],
            "points_a": self.points_a,
            "deals_0": self.deals[0],
            "deals_1": self.deals[1],
            "end_0": self.ends[0],
            "end_1": self.ends[1],
        }

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> PairResult:
        """The inverse of :meth:`as_row`."""
        return cls(
            row["match"],
            row["pair"],
            (row["score_a_0"], row["score_a_1"]),
            row["points_a"],
            (row["deals_0"], row["deals_1"]),
            (row["end_0"], row["end_1"]),
        )


@dataclass(frozen=True)
class Seating:
    """How a :class:`PairPlayer` builds an entry's bot and plays a game: by default the registry
    (isolated in its own process where the config says so) and :func:`sim.game.play_game`.  A
    benchmark may pass its own (a reference bot the registry must not offer, a game loop that shows
    it more: ``benchmarks/oracle.py``); its functions must be picklable for a Ray executor."""

    build: Callable[[TournamentConfig, Entry, Rules], Any] | None = None
    play: Callable[..., list[dict[str, Any]]] = play_game


def build_entry(config: TournamentConfig, entry: Entry, rules: Rules) -> Any:
    """The registry's bot of ``entry``, in its own process when ``config.isolated(entry)``."""
    from fivehundred.strategies.base import make
    from fivehundred.strategies.isolation import IsolatedStrategy

    if config.isolated(entry):  # its own process per seat, reused for every game of this player
        timeout = config.isolate_timeout
        return IsolatedStrategy(entry.strategy, dict(entry.params), rules, entry.label, timeout)
    return make(entry.strategy, entry.params)


class PairPlayer:
    """Plays game pairs of a tournament (one per process: it caches the rules and the bots)."""

    def __init__(self, config: TournamentConfig, seating: Seating | None = None) -> None:
        self.config = config
        self.rules: Rules = config.rules()
        n = self.rules.players
        seating = seating or Seating()
        build = seating.build or build_entry
        self.play_game = seating.play
        # One bot object per seat and entry: a partnership's two seats never share an object.
        self.bots = [[build(config, e, self.rules) for _ in range(n)] for e in config.entries]
        self.keys = [entry_key(e.name) for e in config.entries]

    def seating(self, match: int, side: int) -> list[int]:
        """The entry index of every seat in one game of a pair."""
        a, b = self.config.matches[match]
        even, odd = (a, b) if side == 0 else (b, a)
        return [even if s % 2 == 0 else odd for s in range(self.rules.players)]

    def play_pair(self, match: int, pair: int) -> tuple[PairResult, list[dict[str, Any]]]:
        """Play pair ``pair`` of match ``match``: its result and the deal records of both games."""
        cfg = self.config
        n_matches = len(cfg.matches)
        records: list[dict[str, Any]] = []
        scores: list[float] = []
        points = 0
        deals: list[int] = []
        ends: list[str] = []
        for side in (0, 1):
            seats = self.seating(match, side)
            team_a = side  # a holds the even seats (team 0) in side 0, the odd ones in side 1
            recs = self.play_game(
                self.rules,
                [self.bots[e][s] for s, e in enumerate(seats)],
                cfg.seed,
                pair,  # the board: both sides (and every match) play the same deals
                labels=[cfg.entries[e].label for e in seats],
                rng_keys=[self.keys[e] for e in seats],
            )
            gid = game_id(n_matches, match, pair, side)
            entries = [cfg.entries[e].name for e in seats]
            for r in recs:
                r["game_id"] = gid
                r["board"] = pair
                r["match_id"] = match
                r["entries"] = entries
                points += r["score_delta"][team_a] - r["score_delta"][1 - team_a]
            last = recs[-1]
            winner = last["winner"]
            scores.append(0.5 if winner is None else 1.0 if winner == team_a else 0.0)
            deals.append(len(recs))
            ends.append(last["end_reason"] or "")
            records.extend(recs)
        result = PairResult(
            match, pair, (scores[0], scores[1]), points, (deals[0], deals[1]), (ends[0], ends[1])
        )
        return result, records

    def play_chunk(self, chunk: Chunk) -> tuple[list[PairResult], list[dict[str, Any]]]:
        """Play every pair of a chunk, in order."""
        results: list[PairResult] = []
        records: list[dict[str, Any]] = []
        for p in range(chunk.first, chunk.first + chunk.count):
            res, recs = self.play_pair(chunk.match, p)
            results.append(res)
            records.extend(recs)
        return results, records
