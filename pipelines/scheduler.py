"""Chunks of whole games played in-process or on Ray, returned as Arrow tables in submission order.

One in-order scheduler behind :func:`run_chunks` and :func:`run_parts`, the reusable core of
``simulate``, of the tournament runner and of the analysis::

    from fivehundred.pipelines.chunks import GameChunk
    from fivehundred.pipelines.raypool import RayPool
    from fivehundred.pipelines.scheduler import run_chunks

    chunks = (GameChunk(i, rules, seats, master_seed, range(i * 500, (i + 1) * 500)) for i in count())
    with RayPool(workers=2) as pool, closing(run_chunks(chunks, pool)) as stream:  # pool=None: no Ray
        for done in stream:                     # in submission order, whatever finished first
            use(done.table)                     # deal-log columns without schema_version/run_id/deal_id
            if enough:
                break                           # closing() lets go of the chunks in flight

A chunk is a list of game ids plus (rules, one :class:`~pipelines.runconfig.SeatSpec` per seat,
master seed).  Its rows depend only on those, never on the worker, node or pool size, because every
deal is seeded from (master seed, game, hand) and bots are built fresh for every chunk.  Chunks are
pulled lazily from the iterable, so it may be endless; at most ``pool.window`` chunks are in flight
or buffered at once (results that finish early are fetched at once and wait in the driver's memory
for their predecessors, so a node dying later cannot take them along).

Ray tasks are retried ``max_retries`` times when a worker process or a node dies, and a result lost
with its node is resubmitted; a strategy's own error (:class:`~sim.errors.UserError`) is not retried
and is re-raised as itself in the driver.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from fivehundred.pipelines.chunks import PartPlan, PartResult, Plan, play_chunk
from fivehundred.pipelines.live import HALT_TIMEOUT, Unfinished
from fivehundred.pipelines.raypool import ChunkFailed, RayPool, ResultLost
from fivehundred.sim.errors import UserError


@dataclass(frozen=True)
class ChunkResult:
    """A finished chunk and what its task returned.

    With the default task (:func:`play_chunk`) ``table`` holds the rows as an Arrow table with
    :data:`~pipelines.schema.CHUNK_SCHEMA`, in game-id order; a custom ``task`` may return anything picklable.
    """

    chunk: Any
    table: Any

    @property
    def num_deals(self) -> int:
        """Rows (deals) in the chunk."""
        return self.table.num_rows


@dataclass(frozen=True)
class _Failed:
    """A chunk's error, raised when the chunk's turn comes (after every earlier chunk)."""

    error: Exception


@dataclass
class _Piece:
    """One task of a chunk: all of it (:func:`run_chunks`), or a piece of its games (:func:`run_parts`)."""

    entry: _Entry
    chunk: Any
    counts: list[int] | None = None
    table: Any = None  # the ref of the played table (it stays in the object store)
    started: bool = False
    lost: int = 0


@dataclass
class _Entry:
    """One chunk in the scheduler's window: its pieces and what has come back for it so far."""

    chunk: Any
    pieces: list[_Piece] = field(default_factory=list)
    plan: PartPlan | None = None
    result: Any = None
    done: bool = False
    failed: _Failed | None = None
    lost: int = 0

    def counts(self) -> list[int] | None:
        """The deals of every game once each piece has been played in full, else ``None``."""
        if any(p.counts is None for p in self.pieces):
            return None
        counts = [c for p in self.pieces for c in p.counts or ()]
        return counts if len(counts) == len(self.chunk.game_ids) else None

    def finished(self) -> list[tuple[int, list[int], list[Any]]]:
        """The runs of consecutive finished games: (first game, deals of each, the tables)."""
        runs: list[tuple[int, list[int], list[Any]]] = []
        open_run = False  # whether the next piece may extend the last run
        for piece in self.pieces:
            if piece.counts is None:
                open_run = False
                continue
            if piece.counts:
                if open_run:
                    runs[-1][1].extend(piece.counts)
                    runs[-1][2].append(piece.table)
                else:
                    runs.append((piece.chunk.game_ids[0], list(piece.counts), [piece.table]))
            open_run = len(piece.counts) == len(piece.chunk.game_ids)  # else halted in this piece
        return runs


def run_chunks(
    chunks: Iterable[Any], pool: RayPool | None = None, task: Callable[[Any], Any] = play_chunk
) -> Iterator[ChunkResult]:
    """Play chunks (on ``pool``, or in this process with ``task`` when it is ``None``), in order.

    Results are yielded in the order of ``chunks`` whatever finished first; a chunk's error is raised
    in its turn, after every earlier chunk was yielded (so callers commit as much as possible).
    Closing the iterator early (``break`` inside ``contextlib.closing``, or ``.close()``) lets go
    of the chunks in flight: they are not waited for and end with the pool (never ``ray.cancel``,
    see :meth:`_Scheduler._forget`).
    """
    if pool is None:
        for chunk in chunks:
            yield ChunkResult(chunk, task(chunk))
        return
    scheduler = _Scheduler(chunks, pool)
    try:
        for entry in scheduler.run():
            yield ChunkResult(entry.chunk, entry.result)
    finally:
        scheduler.close()


class PartStream:
    """The chunks of :func:`run_parts` as they are committed, and what a halt leaves unfinished.

    Iterate it for the :class:`PartResult` of each chunk, in order; :meth:`halt` asks the chunks in
    flight to stop after their current game, and the iteration ends once each has handed back its
    games (at most :data:`HALT_TIMEOUT` s; complete chunks that can be placed are still yielded);
    :meth:`unfinished` then fetches what was played of the chunks not yielded.  ``close()`` lets go
    of whatever still runs (it ends with the pool).
    """

    def __init__(self, scheduler: _Scheduler) -> None:
        self.scheduler = scheduler

    @property
    def tasks(self) -> int:
        """Play tasks started so far (pieces of chunks, retries after a lost result included)."""
        return self.scheduler.tasks

    def __iter__(self) -> Iterator[PartResult]:
        for entry in self.scheduler.run():
            assert entry.plan is not None
            yield PartResult(entry.chunk, entry.plan, entry.result)

    def halt(self) -> None:
        """Stop starting chunks and ask those playing to return the games they finished."""
        self.scheduler.halt()

    def unfinished(self) -> list[Unfinished]:
        """For each chunk not yielded, in order, its runs of finished games (fetched now)."""
        return self.scheduler.unfinished()

    def close(self) -> None:
        """Let go of what is still in flight (it ends with the pool)."""
        self.scheduler.close()


def run_parts(
    chunks: Iterable[Any], pool: RayPool, run_id: str, plan: Plan, piece_games: int | None = None
) -> PartStream:
    """Play chunks and encode each as Parquet bytes, both on Ray workers; yield them in order.

    A chunk runs as tasks of :func:`play_chunk_counted`, one per piece of at most ``piece_games``
    games (default: the whole chunk; :meth:`GameChunk.split`), so that a few large chunks still
    keep every worker busy; the driver fetches only the deals per game (the tables stay in the
    object store).  Once every piece is played, ``plan`` places the chunk and :func:`encode_part`
    turns its pieces' tables into one part file's bytes on a worker.  ``plan(chunk,
    deals_per_game)`` is called exactly once per chunk, in chunk order, so it may keep a running
    count (the first deal id of the next chunk); it returns ``None`` when the chunk is not needed,
    and then the stream ends after the chunks already placed.  So the driver only writes bytes, and
    the encoding runs on the workers' CPUs.  Faults are handled as in :func:`run_chunks` (the same
    scheduler): a result lost with its node (the counts, the bytes, or a table before it was
    encoded) plays that piece (or the chunk) again; errors are raised in their turn.
    """
    return PartStream(_Scheduler(chunks, pool, (run_id, plan), piece_games))


class _Scheduler:
    """The one in-order scheduler: keep ``pool.window`` chunks (and tasks) in flight, yield in order.

    Without ``parts`` each chunk is one task (``pool.submit``) whose result is the chunk's.  With
    ``parts = (run_id, plan)`` each chunk is played in pieces (:func:`play_chunk_counted`), placed
    by ``plan`` in chunk order, then encoded (:func:`encode_part`); the bytes are its result.  A
    result lost with its node plays it again (at most ``pool.max_retries`` times); a failure is
    raised in the chunk's turn; :meth:`close` lets go of what is still in flight.
    """

    def __init__(
        self,
        chunks: Iterable[Any],
        pool: RayPool,
        parts: tuple[str, Plan] | None = None,
        piece_games: int | None = None,
    ) -> None:
        self.source = iter(chunks)
        self.pool, self.parts, self.piece_games = pool, parts, piece_games
        self.order: deque[_Entry] = deque()
        self.inflight: dict[Any, tuple[_Piece | _Entry, str]] = {}
        self.exhausted = self.stopped = False
        self.halted_at: float | None = None
        self.tasks = 0

    # submitting --------------------------------------------------------------------------------
    def _playing(self) -> int:
        return sum(1 for _, kind in self.inflight.values() if kind != "bytes")

    def _fill(self) -> None:
        """Take chunks from the source (up to the window) and start their pieces in order."""
        if self.halted_at is not None or self.stopped:
            return
        while not (self.exhausted or self.stopped) and len(self.order) < self.pool.window:
            chunk = next(self.source, None)
            if chunk is None:
                self.exhausted = True
                break
            entry = _Entry(chunk)
            split = self.parts is not None and self.piece_games
            entry.pieces = [_Piece(entry, c) for c in (chunk.split(self.piece_games) if split else [chunk])]
            self.order.append(entry)
        playing = self._playing()
        for entry in self.order:
            for piece in entry.pieces:
                if playing >= self.pool.window:
                    return
                if not piece.started:
                    self._start(piece)
                    playing += 1

    def _start(self, piece: _Piece) -> None:
        piece.started, piece.counts = True, None
        self.tasks += 1
        if self.parts is None:
            self.inflight[self.pool.submit(piece.chunk)] = (piece, "result")
            return
        counts, table = self.pool.submit_counted(piece.chunk)
        piece.table = table
        self.inflight[counts] = (piece, "counts")

    def _encode(self, entry: _Entry) -> None:
        assert entry.plan is not None and self.parts is not None
        tables = [p.table for p in entry.pieces]
        ref = self.pool.submit_encode(tables, self.parts[0], entry.plan.first_deal_id, entry.plan.keep)
        self.inflight[ref] = (entry, "bytes")

    # receiving ---------------------------------------------------------------------------------
    def _receive(self, ref: Any) -> None:
        item, kind = self.inflight.pop(ref)
        entry = item.entry if isinstance(item, _Piece) else item
        try:
            # Fetch at once: a result left on a node that dies later would be lost.
            result = self.pool.get(ref, entry.chunk)
        except ResultLost as exc:
            item.lost += 1
            if item.lost > self.pool.max_retries:
                entry.failed = _Failed(ChunkFailed(f"{exc} (lost {item.lost} times)"))
            elif isinstance(item, _Piece):
                self._start(item)
            else:  # the bytes, or a table they were made of: play every piece again, same plan
                for piece in entry.pieces:
                    self._start(piece)
            return
        except (ChunkFailed, UserError) as exc:
            entry.failed = _Failed(exc)
            return
        if kind == "bytes" or self.parts is None:
            entry.result, entry.done = result, True
            for piece in entry.pieces:
                piece.table = None
            return
        assert isinstance(item, _Piece)
        item.counts = result
        if entry.plan is not None and entry.counts() is not None and not self._encoding(entry):
            self._encode(entry)  # played again after a loss: same rows, same plan

    def _encoding(self, entry: _Entry) -> bool:
        return any(e is entry and kind == "bytes" for e, kind in self.inflight.values())

    def _place(self) -> None:
        """Place the played chunks in order (``plan`` is stateful), up to the first not played."""
        assert self.parts is not None
        for entry in self.order:
            if entry.plan is not None:
                continue
            counts = entry.counts()
            if entry.failed is not None or self.stopped or counts is None:
                break
            where = self.parts[1](entry.chunk, counts)
            if where is None:
                self.stopped = True
                break
            entry.plan = where
            self._encode(entry)

    # the loop ----------------------------------------------------------------------------------
    def run(self) -> Iterator[_Entry]:
        """Yield the chunks' entries in order (see the class docstring)."""
        pool = self.pool
        while True:
            self._fill()
            while self.order and (self.order[0].done or self.order[0].failed is not None):
                head = self.order.popleft()
                if head.failed is not None:  # raised in order: every earlier chunk was yielded
                    raise head.failed.error
                yield head
            if self.stopped:  # the chunks not placed are not needed: the run is complete without them
                while self.order and self.order[-1].plan is None:
                    self.order.pop()
                unwanted = [ref for ref, (item, _) in self.inflight.items() if _entry(item).plan is None]
                if unwanted:
                    self.pool.halt()  # they return after their current game; their results are dropped
                self._forget(unwanted)
            if not self.order:
                if self.exhausted or self.stopped or self.halted_at is not None:
                    return
                continue  # everything so far was yielded: submit more
            if self.halted_at is not None and (
                not self.inflight or time.monotonic() - self.halted_at > HALT_TIMEOUT
            ):
                return  # every chunk in flight handed back its games (or took too long)
            on_wait = getattr(pool, "on_wait", None)
            ready = pool.wait(list(self.inflight), timeout=1.0 if on_wait is None else 0.25)
            if on_wait is not None:
                on_wait()
            for ref in ready:
                self._receive(ref)
            if self.parts is not None:
                self._place()

    def halt(self) -> None:
        """Start nothing more; the pieces playing stop after their current game (their counter)."""
        if self.halted_at is None:
            self.halted_at = time.monotonic()
            self.pool.halt()

    def unfinished(self) -> list[Unfinished]:
        """The runs of finished games of each chunk not yielded, fetched from the workers."""
        import ray

        left: list[Unfinished] = []
        for entry in self.order:
            if entry.failed is not None:
                continue
            for first, counts, tables in entry.finished():
                try:
                    fetched = ray.get(tables, timeout=HALT_TIMEOUT)
                except (ray.exceptions.RayError, TimeoutError):  # lost with its node: played again later
                    continue
                table = fetched[0] if len(fetched) == 1 else pa.concat_tables(fetched)
                left.append(Unfinished(entry.chunk, first, counts, table))
        return left

    def _forget(self, refs: list[Any]) -> None:
        """Stop waiting for ``refs``.  Never ``ray.cancel``: a cancel that meets the task's reply on
        its way back aborts the driver inside Ray (``Tried to complete task that was not pending``,
        seen with Ray 2.60 under SIGTERM).  Tasks left running end with the pool (embedded Ray shuts
        down, a cluster ends the job's workers when the driver leaves)."""
        for ref in refs:
            del self.inflight[ref]

    def close(self) -> None:
        """Let go of whatever is still in flight (it ends with the pool)."""
        self._forget(list(self.inflight))


def _entry(item: _Piece | _Entry) -> _Entry:
    return item.entry if isinstance(item, _Piece) else item
