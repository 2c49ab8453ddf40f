"""Interruption and live counting: the games finished as they finish, the run's halt flag, and what a
halted run leaves unfinished.

A chunk playing (:func:`~pipelines.chunks.play_chunk`) pushes its finished games to a
:class:`LiveCounter` (in-process, or a small Ray actor of :class:`~pipelines.raypool.RayPool`); the
answer says whether the run is being halted (Ctrl-C), and then the chunk returns the games it has
finished.  Those games come back to the caller as :class:`Unfinished` (to be kept and not played again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa


class LiveCounter:
    """Games and deals finished by the workers, counted as they finish, and the run's halt flag.

    In-process it is called directly; on Ray it runs as a small actor (no CPU reserved) to which
    every chunk pushes its finished games every :data:`~pipelines.chunks.LIVE_INTERVAL` seconds (and
    once when it starts); the answer says whether the run is being halted (Ctrl-C), and then the
    chunk returns the games it has finished.
    """

    def __init__(self) -> None:
        self.games = 0
        self.deals = 0
        self.halted = False

    def add(self, games: int, deals: int) -> bool:
        """Count ``games`` more finished games holding ``deals`` deals; whether to stop playing."""
        self.games += games
        self.deals += deals
        return self.halted

    def halt(self) -> None:
        """Ask every chunk to stop after its current game (a signal handler may call this)."""
        self.halted = True

    def read(self) -> tuple[int, int]:
        """(games, deals) finished so far."""
        return self.games, self.deals


class Pusher:
    """A chunk's pushes to its counter.  In-process the answer (halted?) comes at once; to a Ray
    actor each push is sent without waiting, and the answer to the previous one is read if it has
    arrived (so a slow or starting actor never holds a chunk up)."""

    def __init__(self, counter: Any) -> None:
        self.counter = counter
        self.remote = getattr(counter.add, "remote", None)
        self.pending: Any = None

    def __call__(self, games: int, deals: int) -> bool:
        """Count finished games; whether the run is halted (as far as is known now)."""
        if self.remote is None:
            return bool(self.counter.add(games, deals))
        import ray

        halted = False
        try:
            if self.pending is not None:
                ready, _ = ray.wait([self.pending], timeout=0)
                halted = bool(ray.get(ready[0])) if ready else False
            self.pending = self.remote(games, deals)
        except ray.exceptions.RayError:  # progress and halting are never worth failing a chunk for
            self.pending = None
        return halted


@dataclass(frozen=True)
class Unfinished:
    """What a halted run had played of a chunk it could not commit: a run of consecutive games from
    ``first_game`` on, the deals of each, and their rows (:data:`~pipelines.schema.CHUNK_SCHEMA`)."""

    chunk: Any
    first_game: int
    counts: list[int]
    table: pa.Table


#: Seconds a halted run waits for its chunks in flight to hand back the games they finished.
HALT_TIMEOUT = 10.0
