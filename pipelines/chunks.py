"""Chunks of whole games played in-process or on Ray, returned as Arrow tables in submission order.

This is the reusable core of ``simulate`` and of the tournament runner::

    from fivehundred.pipelines.chunks import GameChunk, RayPool, run_chunks

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

import contextlib
import gc
import itertools
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pyarrow as pa

from fivehundred.pipelines.runconfig import SeatSpec
from fivehundred.pipelines.rundir import encode_parquet
from fivehundred.pipelines.schema import records_to_chunk_table, with_run_columns
from fivehundred.sim.errors import UserError
from fivehundred.sim.game import play_game
from fivehundred.sim.rules import Rules

#: Ray's switch for multi-machine clusters (off: the node's IP is 127.0.0.1); set for the embedded instance.
_LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"

#: Object store of the embedded Ray instance (bytes): results stream through it, so it stays modest.
EMBEDDED_OBJECT_STORE = 256 * 1024**2


class ChunkFailed(UserError, RuntimeError):
    """A chunk could not be played after all retries (workers or nodes kept dying)."""


class ResultLost(RuntimeError):
    """A finished chunk's result was lost with its node; the chunk is played again."""


class ClusterError(UserError, RuntimeError):
    """Ray could not be started or the cluster at ``--address`` could not be joined."""


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


class LiveCounter:
    """Games and deals finished by the workers, counted as they finish, and the run's halt flag.

    In-process it is called directly; on Ray it runs as a small actor (no CPU reserved) to which
    every chunk pushes its finished games every :data:`LIVE_INTERVAL` seconds (and once when it
    starts); the answer says whether the run is being halted (Ctrl-C), and then the chunk returns
    the games it has finished.
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


class _Pusher:
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


def play_chunk(chunk: GameChunk) -> pa.Table:
    """Play the games of a chunk (in its order; those already played are taken as they are) with
    freshly built bots; the rows as a table.  A halted run (see :class:`LiveCounter`) ends it early:
    the table then holds the games finished from the chunk's start on.

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
    push = _Pusher(chunk.counter) if chunk.counter is not None else None
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


class RayPool:
    """Ray for playing chunks: an embedded local instance (default) or an existing cluster.

    ``workers`` bounds parallelism (embedded: the instance's CPUs, default all cores; cluster: the
    number of chunks in flight, default twice the cluster's CPUs).  ``task`` is the function run on
    each chunk (default :func:`play_chunk`; a module-level function, one CPU per call).  Use it as a
    context manager; it shuts down only a Ray instance it started itself.
    """

    def __init__(
        self,
        workers: int | None = None,
        address: str | None = None,
        max_retries: int = 3,
        object_store_memory: int = EMBEDDED_OBJECT_STORE,
        task: Callable[[Any], Any] = play_chunk,
    ) -> None:
        self.task = task
        self.workers = workers
        self.address = address
        self.max_retries = max_retries
        self.object_store_memory = object_store_memory
        self.window = 2
        #: CPUs the chunks run on (the instance's, or ``workers`` on a cluster); set on entry.
        self.cpus = 1
        self._started = False
        self._env_restore: dict[str, str | None] = {}
        self._sigterm: Any = None
        self._remote: Any = None
        self._counted: Any = None
        self._encode: Any = None
        self._live: Any = None
        #: Called by the scheduler after every wait for results (at least every 0.25 s).
        self.on_wait: Callable[[], None] | None = None

    def live_counter(self) -> None:
        """Count finished games as the workers finish them (:meth:`live_totals`), for progress."""
        import ray

        if self._live is None:
            self._live = ray.remote(num_cpus=0)(LiveCounter).remote()

    def halt(self) -> None:
        """Ask the chunks playing to stop after their current game and return what they finished
        (they read the live counter's flag every :data:`LIVE_INTERVAL` s); a no-op without one."""
        import ray

        if self._live is not None:
            with contextlib.suppress(ray.exceptions.RayError):
                ray.get(self._live.halt.remote(), timeout=2.0)

    def live_totals(self) -> tuple[int, int] | None:
        """(games, deals) the workers have finished so far (chunks played again count twice), or
        ``None`` without a live counter or when it does not answer at once."""
        import ray

        if self._live is None:
            return None
        try:
            return tuple(ray.get(self._live.read.remote(), timeout=1.0))  # type: ignore[return-value]
        except (ray.exceptions.RayError, TimeoutError):  # progress is never worth failing a run for
            return None

    def __enter__(self) -> RayPool:
        import ray

        # ray.init installs its own SIGTERM handler (exit status 15 and a dump, or a node shutdown);
        # the caller's handler (the CLI stops like Ctrl-C: manifest flushed, Ray shut down) is put back.
        if threading.current_thread() is threading.main_thread():
            self._sigterm = signal.getsignal(signal.SIGTERM)
        try:
            self._init(ray)
        finally:
            self._keep_sigterm()
        if self.address and self.workers:
            self.window = self.cpus = self.workers
        else:
            self.cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
            self.window = max(2, 2 * self.cpus)
        self._remote = self._task_remote(self.task)
        return self

    def _keep_sigterm(self) -> None:
        """Put back the SIGTERM handler that was there before Ray started (a Python one only)."""
        if callable(self._sigterm) and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._sigterm)

    def _init(self, ray: Any) -> None:
        quiet = {"configure_logging": True, "logging_level": logging.ERROR, "log_to_driver": False}
        if ray.is_initialized():
            # The caller's own Ray session (e.g. a job that started one): it must be the one asked for.
            current = ray.get_runtime_context().gcs_address
            if self.address and self.address.rsplit(":", 1)[-1] != str(current).rsplit(":", 1)[-1]:
                raise ClusterError(
                    f"address '{self.address}': this process is already connected to Ray at {current}"
                )
        elif self.address:
            _probe(self.address)
            with _CapturedStderr() as log:  # Ray's C++ client logs every failed attempt there
                try:
                    ray.init(address=self.address, **quiet)
                except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError...
                    raise cluster_error(self.address, exc, log.read()) from None
            self._started = True
        else:
            # Only this embedded instance runs without token auth, so every socket of it listens on
            # loopback alone: Ray binds its servers to 127.0.0.1 only when that is the node's IP, and on
            # Linux it turns 127.0.0.1 into the machine's address unless "clusters" are off (its
            # Windows/macOS mode: one machine, loopback) -- in this process (the constant, read at
            # import) and in the processes it starts (the variable).  tests/pipelines/test_ray_security.py
            # checks the listening sockets of every process of the instance.
            keys = ("RAY_AUTH_MODE", "RAY_USAGE_STATS_ENABLED", _LOOPBACK_ENV)
            self._env_restore = {k: os.environ.get(k) for k in keys}
            os.environ["RAY_AUTH_MODE"] = "disabled"
            os.environ[_LOOPBACK_ENV] = "0"
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            constants = ray._private.ray_constants
            clusters = constants.ENABLE_RAY_CLUSTER
            constants.ENABLE_RAY_CLUSTER = False
            try:
                ray.init(
                    address="local",
                    _node_ip_address="127.0.0.1",
                    num_cpus=self.workers or _cores(),
                    include_dashboard=False,
                    object_store_memory=self.object_store_memory,
                    **quiet,
                )
            except Exception as exc:
                self._restore_env()
                raise ClusterError(f"cannot start embedded Ray ({exc})") from None
            finally:
                constants.ENABLE_RAY_CLUSTER = clusters
            self._started = True

    def _task_remote(self, fn: Callable[..., Any], **options: Any) -> Any:
        import ray

        return ray.remote(fn).options(
            num_cpus=1,
            max_retries=self.max_retries,
            retry_exceptions=False,
            name=f"fivehundred.{getattr(fn, '__name__', 'task')}",
            **options,
        )

    def submit_counted(self, chunk: GameChunk) -> tuple[Any, Any]:
        """Start :func:`play_chunk_counted` on a chunk; returns (counts ref, table ref)."""
        if self._counted is None:
            self._counted = self._task_remote(play_chunk_counted, num_returns=2)
        if self._live is not None:
            chunk = replace(chunk, counter=self._live)
        counts, table = self._counted.remote(chunk)
        return counts, table

    def submit_encode(self, tables: Sequence[Any], run_id: str, first_deal_id: int, keep: int) -> Any:
        """Start :func:`encode_part` on a chunk's tables in the object store; returns the bytes' ref."""
        if self._encode is None:
            self._encode = self._task_remote(encode_part)
        return self._encode.remote(run_id, first_deal_id, keep, *tables)

    def _restore_env(self) -> None:
        for key, value in self._env_restore.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        self._env_restore = {}

    def __exit__(self, *exc: object) -> None:
        import ray

        if self._live is not None:  # the progress actor's process ends with the pool, not later
            with contextlib.suppress(Exception):
                ray.kill(self._live, no_restart=True)
            self._live = None
        if self._started:
            ray.shutdown()
            self._started = False
        self._restore_env()
        if self._sigterm is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._sigterm)  # not Ray's handler, now that Ray is gone
            self._sigterm = None

    def submit(self, chunk: GameChunk) -> Any:
        """Start a chunk; returns its object ref."""
        return self._remote.remote(chunk)

    def get(self, ref: Any, chunk: Any) -> Any:
        """The result of a finished chunk; user errors come back as themselves.

        Raises :class:`ResultLost` when the result was lost with its node (the caller resubmits),
        :class:`ChunkFailed` when the task itself failed after its retries.
        """
        import ray

        key = getattr(chunk, "key", "?")
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, UserError):
                raise cause from None
            raise ChunkFailed(f"chunk {key} failed: {_one_line(exc)}") from exc
        except (ray.exceptions.ObjectLostError, ray.exceptions.NodeDiedError) as exc:
            raise ResultLost(f"chunk {key}: {_one_line(exc)}") from exc
        except ray.exceptions.RayError as exc:
            tries = self.max_retries
            raise ChunkFailed(f"chunk {key} failed after {tries} retries: {_one_line(exc)}") from exc

    def wait(self, refs: list[Any], timeout: float) -> list[Any]:
        """The refs among ``refs`` that have finished (at least one unless ``timeout`` passes)."""
        import ray

        ready, _ = ray.wait(refs, num_returns=1, timeout=timeout, fetch_local=False)
        return ready


def _probe(address: str) -> None:
    """Fail fast, in one line, when nothing listens at a cluster address (Ray would retry for minutes)."""
    target = address.split("://", 1)[-1]
    if target in ("auto", "local") or ":" not in target:
        return
    host, _, port_text = target.rpartition(":")
    try:
        port = int(port_text)
    except ValueError:
        raise ClusterError(f"address '{address}': expected HOST:PORT of the Ray head") from None
    try:
        with socket.create_connection((host, port), timeout=5):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ClusterError(f"address '{address}': cannot reach a Ray head there ({reason})") from None


_AUTH_FAILED = ("InvalidAuthToken", "UNAUTHENTICATED", "Unauthenticated")


def _token_configured() -> bool:
    """Whether this process would present a token (``RAY_AUTH_TOKEN``, its path, ``~/.ray/auth_token``)."""
    if os.environ.get("RAY_AUTH_TOKEN"):
        return True
    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or os.path.expanduser("~/.ray/auth_token")
    return os.path.isfile(path)


def cluster_error(address: str, exc: BaseException, log: str = "") -> ClusterError:
    """One line for a failed join of the cluster at ``address``, saying when the token is at fault.

    ``log`` is what Ray wrote on stderr meanwhile (its C++ client reports refused tokens only there).
    """
    text = f"{exc}\n{log}"
    if any(mark in text for mark in _AUTH_FAILED) or "no token" in text.lower():
        if not _token_configured() or "no token" in text.lower():
            return ClusterError(
                f"address '{address}': the cluster requires token authentication and no authentication "
                "token is set (export RAY_AUTH_MODE=token and the cluster's RAY_AUTH_TOKEN; docs/simulate.md)"
            )
        return ClusterError(
            f"address '{address}': the cluster refused the authentication token "
            "(RAY_AUTH_TOKEN / RAY_AUTH_TOKEN_PATH is not the cluster's token)"
        )
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ClusterError(f"address '{address}': cannot join the Ray cluster ({first})")


class _CapturedStderr:
    """File descriptor 2 redirected to a temporary file; replayed on success, kept for the error."""

    def __enter__(self) -> _CapturedStderr:
        import tempfile

        self.file = tempfile.TemporaryFile(mode="w+b")
        sys.stderr.flush()
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def read(self) -> str:
        self.file.flush()
        self.file.seek(0)
        return self.file.read().decode("utf-8", "replace")

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        if kind is None:  # joined: Ray's warnings are shown as usual
            sys.stderr.write(self.read())
        self.file.close()


def _cores() -> int:
    """CPUs this process may use (the affinity mask, not the machine's count, where known)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}"


@dataclass(frozen=True)
class _Failed:
    """A chunk's error, raised when the chunk's turn comes (after every earlier chunk)."""

    error: Exception


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


Plan = Callable[[Any, list[int]], PartPlan | None]


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


#: Fewest games in one piece of a chunk played in this process while a deals target is near.
LOCAL_PIECE_GAMES = 8
#: Deals per game assumed when sizing those pieces (too high only makes pieces smaller).
LOCAL_DEALS_PER_GAME = 8


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

    def _pieces(self, chunk: GameChunk) -> list[GameChunk]:
        want = self.wanted()
        if want is None:
            return [chunk]
        return chunk.split(max(LOCAL_PIECE_GAMES, -(-want // LOCAL_DEALS_PER_GAME)))

    def __iter__(self) -> Iterator[PartResult]:
        for chunk in self.chunks:
            if self.halted():
                return
            self.tasks += 1
            want = self.wanted()
            counts: list[int] = []
            tables: list[pa.Table] = []
            for piece in self._pieces(chunk):
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


def local_parts(
    chunks: Iterable[Any],
    run_id: str,
    plan: Plan,
    halted: Callable[[], bool] = lambda: False,
    wanted: Callable[[], int | None] = lambda: None,
) -> LocalParts:
    """:func:`run_parts` in this process, without Ray (the same bytes); see :class:`LocalParts`."""
    return LocalParts(chunks, run_id, plan, halted, wanted)


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
