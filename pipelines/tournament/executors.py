"""Executors of a tournament: they play chunks of game pairs, in this process or on Ray.

Both run the chunks through the one in-order scheduler of :mod:`pipelines.scheduler`
(:func:`~pipelines.scheduler.run_chunks`; on Ray through :class:`~pipelines.raypool.RayPool`: embedded
local Ray or a cluster at ``address``, retries, a window of chunks in flight, in-flight chunks
cancelled when the consumer stops), with the tournament's own task (:func:`play_remote`).  Every
chunk gets freshly built bots, so both executors give the same rows.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from fivehundred.pipelines.raypool import RayPool
from fivehundred.pipelines.scheduler import run_chunks
from fivehundred.pipelines.tournament.config import TournamentConfig
from fivehundred.pipelines.tournament.schedule import Chunk, PairPlayer, PairResult, Seating

ChunkOutput = tuple[Chunk, list[PairResult], list[dict[str, Any]]]


class Executor(Protocol):
    """Plays chunks and yields their outputs in the order the chunks were given (``seating``: how
    the bots are built and played, :class:`~pipelines.tournament.schedule.Seating`)."""

    def run(
        self, config: TournamentConfig, chunks: Iterator[Chunk], seating: Seating | None = None
    ) -> Iterator[ChunkOutput]: ...


@dataclass(frozen=True)
class RemoteChunk:
    """What a task gets: the chunk and the config (``key`` names the chunk in error messages)."""

    key: str
    config: TournamentConfig
    chunk: Chunk
    seating: Seating | None = None


def play_remote(task: RemoteChunk) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The task: play one chunk with fresh bots; pair rows and deal records."""
    results, records = PairPlayer(task.config, task.seating).play_chunk(task.chunk)
    return [r.as_row() for r in results], records


def _outputs(
    config: TournamentConfig, chunks: Iterator[Chunk], pool: RayPool | None, seating: Seating | None
) -> Iterator[ChunkOutput]:
    """Chunks played by :func:`play_remote` through :func:`run_chunks`, in order."""
    tasks = (RemoteChunk(c.key, config, c, seating) for c in chunks)
    with contextlib.closing(run_chunks(tasks, pool, task=play_remote)) as stream:
        for done in stream:
            rows, records = done.table
            yield done.chunk.chunk, [PairResult.from_row(r) for r in rows], records


class InProcessExecutor:
    """Plays each chunk in this process, one after another (tests, ``--workers 0``)."""

    def run(
        self, config: TournamentConfig, chunks: Iterator[Chunk], seating: Seating | None = None
    ) -> Iterator[ChunkOutput]:
        """Yield ``(chunk, pair results, deal records)`` for each chunk, lazily."""
        yield from _outputs(config, chunks, None, seating)


class RayExecutor:
    """Plays chunks as Ray tasks (``workers``, ``address`` and ``max_retries`` as for ``simulate``)."""

    def __init__(self, workers: int | None = None, address: str | None = None, max_retries: int = 3) -> None:
        self.workers, self.address, self.max_retries = workers, address, max_retries
        self.window = 0

    def run(
        self, config: TournamentConfig, chunks: Iterator[Chunk], seating: Seating | None = None
    ) -> Iterator[ChunkOutput]:
        """Yield ``(chunk, pair results, deal records)`` in the order of ``chunks``."""
        with RayPool(self.workers, self.address, self.max_retries, task=play_remote) as pool:
            self.window = pool.window
            yield from _outputs(config, chunks, pool, seating)
