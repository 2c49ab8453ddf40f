"""Chunks of whole games: what a chunk is, playing it, and encoding its rows as a part file's bytes.

A chunk is a list of game ids plus (rules, one :class:`~pipelines.runconfig.SeatSpec` per seat,
master seed).  Its rows depend only on those, never on the worker, node or pool size, because every
deal is seeded from (master seed, game, hand) and bots are built fresh for every chunk.
:func:`play_chunk` plays one (on a Ray worker through :mod:`pipelines.raypool` and the in-order
scheduler of :mod:`pipelines.scheduler`, or in this process); :class:`LocalParts` is the scheduler's
``run_parts`` in this process, without Ray (the same bytes).
"""

from __future__ import annotations

import gc
import itertools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from fivehundred.pipelines.live import Pusher, Unfinished
from fivehundred.pipelines.runconfig import SeatSpec
from fivehundred.pipelines.rundir import encode_parquet
from fivehundred.pipelines.schema import records_to_chunk_table, with_run_columns
from fivehundred.sim.game import play_game
from fivehundred.sim.rules import Rules


@dataclass(frozen=True)
class GameChunk:
    """Whole games to play together: ``key`` identifies the chunk to the caller."""

    key: Any
    rules: Rules
    seats: tuple[SeatSpec, ...]
    master_seed: int
    game_ids: Sequence[int]
    #: Where finished games are counted while the chunk plays (a :class:`LiveCounter` or its Ray
    #: actor): it never changes a row, but when its ``add`` answers true (the run is being halted)
    #: the chunk stops after the game it finished and returns the games played so far.
    counter: Any = None
    #: Games an earlier session played (a run interrupted mid-chunk): ``(position, games, rows)``
    #: per run of consecutive games, ``position`` counted in ``game_ids``.  They are not played
    #: again; the rows returned hold theirs in place, exactly as if every game were played now.
    played: tuple[tuple[int, int, Any], ...] = ()

    def segments(self) -> list[tuple[Sequence[int], Any]]:
        """The chunk's games in order, as (game ids, their rows if already played else ``None``)."""
        out: list[tuple[Sequence[int], Any]] = []
        pos = 0
        for start, games, rows in sorted(self.played, key=lambda p: p[0]):
            if start > pos:
                out.append((self.game_ids[pos:start], None))
            out.append((self.game_ids[start : start + games], rows))
            pos = start + games
        if pos < len(self.game_ids):
            out.append((self.game_ids[pos:], None))
        return out

    def split(self, size: int) -> list[GameChunk]:
        """The chunk as consecutive pieces (one Ray task each): every run of games already played,
        and at most ``size`` games to play.  Rows depend only on the games, so playing the pieces
        and concatenating their tables gives the chunk's table."""
        pieces: list[GameChunk] = []
        for ids, rows in self.segments():
            if rows is not None:
                pieces.append(replace(self, game_ids=ids, played=((0, len(ids), rows),)))
                continue
            for a in range(0, len(ids), size):
                pieces.append(replace(self, game_ids=ids[a : a + size], played=()))
        return pieces


#: Seconds between two pushes of a worker's finished games to the live counter.
LIVE_INTERVAL = 0.2


def play_chunk(chunk: GameChunk) -> pa.Table:
    """Play the games of a chunk (in its order; those already played are taken as they are) with
    freshly built bots; the rows as a table.  A halted run (see :class:`~pipelines.live.LiveCounter`)
    ends it early: the table then holds the games finished from the chunk's start on.

    Python's cyclic garbage collector is paused meanwhile: the records are many small lists that
    hold no cycles, and the collector kept walking them all (a sixth of a random chunk's time).
    Reference counting still frees everything at once; cycles a bot may make wait until the end.
    """
    from fivehundred.strategies.isolation import close_all

    bots = [seat.build(chunk.rules) for seat in chunk.seats]
    labels = [seat.label for seat in chunk.seats]
    tables: list[pa.Table] = []
    collecting = gc.isenabled()
    gc.disable()
    last, games, deals = time.monotonic(), 0, 0
    push = Pusher(chunk.counter) if chunk.counter is not None else None
    try:
        halted = push is not None and push(0, 0)  # started after a halt: play nothing
        for ids, rows in chunk.segments():
            if rows is not None:
                tables.append(rows)
                continue
            if halted:
                break
            records: list[dict[str, Any]] = []
            for game_id in ids:
                played = play_game(chunk.rules, bots, chunk.master_seed, game_id, labels)
                records.extend(played)
                if push is None:
                    continue
                games, deals = games + 1, deals + len(played)
                if time.monotonic() - last >= LIVE_INTERVAL:
                    halted = push(games, deals)
                    games, deals, last = 0, 0, time.monotonic()
                    if halted:
                        break
            tables.append(records_to_chunk_table(records))
            if halted:  # the rows stay those of consecutive games from the chunk's start
                break
        if push is not None and games:
            push(games, deals)
        if len(tables) == 1:
            return tables[0]
        return pa.concat_tables(tables) if tables else records_to_chunk_table([])
    finally:
        close_all(bots)  # isolated seats: their processes end with the chunk
        if collecting:
            gc.enable()


def game_counts(table: pa.Table) -> list[int]:
    """The deals of each game of a chunk table, in order (a game's deals are consecutive rows)."""
    return [len(list(run)) for _, run in itertools.groupby(table.column("game_id").to_pylist())]


def play_chunk_counted(chunk: GameChunk) -> tuple[list[int], pa.Table]:
    """:func:`play_chunk`, plus the number of deals of each game finished (two Ray objects: the
    driver fetches only the counts, and the table goes from the object store to :func:`encode_part`).
    Fewer counts than games: the run was halted and the chunk returned early."""
    table = play_chunk(chunk)
    return game_counts(table), table


def encode_part(run_id: str, first_deal_id: int, keep: int, *tables: pa.Table) -> bytes:
    """The Parquet bytes of the first ``keep`` rows of a chunk's tables (its pieces, in order) with
    the run columns (on a worker).  The same rows give the same bytes however they were split."""
    table = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
    return encode_parquet(with_run_columns(table.slice(0, keep), run_id, first_deal_id))


@dataclass(frozen=True)
class PartPlan:
    """Where a chunk's rows go in the run: its first deal id, the rows kept, the last game kept."""

    first_deal_id: int
    keep: int
    last_game: int


@dataclass(frozen=True)
class PartResult:
    """A chunk encoded as a Parquet part file's bytes, with the plan it was encoded under."""

    chunk: Any
    plan: PartPlan
    data: bytes


Plan = Callable[[Any, list[int]], PartPlan | None]


#: Fewest games in one piece of a chunk played in this process while a deals target is near.
LOCAL_PIECE_GAMES = 8
#: Deals per game assumed to size Ray tasks and in-process pieces when a run asks for deals
#: (heuristic bots play 7-9, random about 1; too high only makes them smaller).
DEALS_PER_GAME_GUESS = 8


class LocalParts:
    """:func:`run_parts` in this process, without Ray (the same bytes); ``halted()`` says when to
    stop starting chunks (the chunk playing then returns early through its counter).

    ``wanted()`` says how many more deals the run needs (``None``: every game of every chunk).
    A chunk that may hold the last of them is played in pieces (:meth:`GameChunk.split`, which
    changes no row), and no piece is started once the chunk holds enough deals: a run of 30 deals
    plays a few games, not a whole chunk of thousands.
    """

    def __init__(
        self,
        chunks: Iterable[Any],
        run_id: str,
        plan: Plan,
        halted: Callable[[], bool] = lambda: False,
        wanted: Callable[[], int | None] = lambda: None,
    ) -> None:
        self.chunks, self.run_id, self.plan, self.halted, self.wanted = chunks, run_id, plan, halted, wanted
        self.tasks = 0
        self._left: list[Unfinished] = []

    @staticmethod
    def _pieces(chunk: GameChunk, want: int | None) -> list[GameChunk]:
        if want is None:
            return [chunk]
        return chunk.split(max(LOCAL_PIECE_GAMES, -(-want // DEALS_PER_GAME_GUESS)))

    def __iter__(self) -> Iterator[PartResult]:
        for chunk in self.chunks:
            if self.halted():
                return
            self.tasks += 1
            want = self.wanted()
            counts: list[int] = []
            tables: list[pa.Table] = []
            for piece in self._pieces(chunk, want):
                got, table = play_chunk_counted(piece)
                counts += got
                tables.append(table)
                if len(got) < len(piece.game_ids):  # halted midway
                    if counts:
                        whole = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
                        self._left.append(Unfinished(chunk, chunk.game_ids[0], counts, whole))
                    return
                if want is not None and sum(counts) >= want:
                    break
            where = self.plan(chunk, counts)
            if where is None:
                return
            yield PartResult(chunk, where, encode_part(self.run_id, where.first_deal_id, where.keep, *tables))

    def unfinished(self) -> list[Unfinished]:
        """The games from the start of the chunk a halt stopped midway (if it finished any)."""
        return self._left

    def halt(self) -> None:
        """Nothing to do here: the chunk playing reads the halt through its counter."""

    def close(self) -> None:
        """Nothing runs in the background."""


def local_parts(
    chunks: Iterable[Any],
    run_id: str,
    plan: Plan,
    halted: Callable[[], bool] = lambda: False,
    wanted: Callable[[], int | None] = lambda: None,
) -> LocalParts:
    """:func:`run_parts` in this process, without Ray (the same bytes); see :class:`LocalParts`."""
    return LocalParts(chunks, run_id, plan, halted, wanted)
