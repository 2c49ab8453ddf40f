"""``simulate``: play a run's games in chunks (on Ray or in-process) and stream the deal log to Parquet.

:func:`run_simulation` is the library entry point; the CLI only parses flags and prints::

    from fivehundred.pipelines.runconfig import load_config
    from fivehundred.pipelines.simulate import run_simulation

    summary = run_simulation(load_config("configs/runs/quick.toml", seed=3), progress=print)

How a run is laid out (see :mod:`pipelines.rundir`): chunk ``k`` holds games ``k*G .. k*G+G-1``
(``G`` = ``chunk_size``) and becomes ``deals/part-<k>.parquet``.  Chunks are committed strictly in
order, so ``deal_id`` runs 0..N-1 in game-id order whatever finished first; results that arrive
early wait in Ray's object store.  On Ray a chunk is played as tasks of :func:`task_games` games (so
that every worker gets work), which changes no byte.  After each commit the manifest is rewritten
atomically with the chunk's game range, deal count and first deal id, so a run killed at any moment
resumes from its committed chunks (the rows being deterministic, a half-done chunk is simply played
again).  Ctrl-C does better: the games finished in the chunks in flight are kept under ``partial/``
(:class:`SimulationInterrupted` says how many), and the resumed run plays only the rest.

``deals=N`` plays the fewest whole games, in game-id order, whose deals reach N: the chunk in which
the N-th deal falls is cut after the game holding it, and nothing after it is played.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import pyarrow.fs as pafs

from fivehundred.pipelines.chunks import (
    DEALS_PER_GAME_GUESS,
    GameChunk,
    LocalParts,
    PartPlan,
    PartResult,
    local_parts,
)
from fivehundred.pipelines.live import LiveCounter, Unfinished
from fivehundred.pipelines.raypool import RayPool
from fivehundred.pipelines.runconfig import RunConfig, jsonable
from fivehundred.pipelines.rundir import (
    DEALS_DIR,
    DEALS_GLOB,
    MANIFEST,
    PARTIAL_DIR,
    SIMULATION,
    Manifest,
    RunDir,
    StorageError,
    encode_parquet,
    package_versions,
)
from fivehundred.pipelines.scheduler import PartStream, run_parts
from fivehundred.pipelines.schema import CHUNK_SCHEMA
from fivehundred.sim.errors import UserError

#: Seconds between manifest rewrites while a run is going (it is always written at the end).
MANIFEST_INTERVAL = 0.5


class RunDirConflict(UserError, FileExistsError):
    """The run directory holds a different run (or foreign files); ``--overwrite`` replaces it."""


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped :func:`run_simulation`: what the run directory keeps.

    ``deals`` and ``games`` are kept: the committed chunks' (``chunks``, in the deal log) plus the
    ``partial_games`` (holding ``partial_deals``) finished in ``partial_chunks`` chunks that were in
    flight, kept under ``partial/``; a resumed run plays only the games after them.  ``lost_games``
    were finished but not kept (a second Ctrl-C, or a worker that did not answer in time): a resumed
    run plays them again (identically).
    """

    def __init__(
        self,
        deals: int,
        games: int,
        chunks: int,
        lost_games: int,
        partial_deals: int = 0,
        partial_games: int = 0,
        partial_chunks: int = 0,
    ) -> None:
        super().__init__(f"kept {deals} deals in {games} games")
        self.deals, self.games, self.chunks, self.lost_games = deals, games, chunks, lost_games
        self.partial_deals, self.partial_games, self.partial_chunks = (
            partial_deals,
            partial_games,
            partial_chunks,
        )


@dataclass(frozen=True, kw_only=True)
class Progress:
    """Where a run stands: reported after every committed chunk and, while chunks play, every
    quarter second with the games the workers have finished (``played_*``; on Ray through a small
    counter actor, in-process per game)."""

    deals: int
    """Deals committed (in the deal log's part files)."""
    games: int
    """Games committed."""
    session_deals: int
    """Deals this session added to the deal log (kept games of an earlier session not counted)."""
    elapsed: float
    """Seconds since :func:`run_simulation` was called."""
    target_deals: int | None
    """The run's ``deals`` target (``None`` in ``games`` mode)."""
    target_games: int | None
    """The run's ``games`` target (``None`` in ``deals`` mode)."""
    played_deals: int = 0
    """Deals finished in this session, committed or still in a chunk in flight."""
    played_games: int = 0
    """Games finished in this session, committed or still in a chunk in flight."""
    playing: float = 0.0
    """Seconds since the first chunk was started (Ray's start-up excluded): the rate's clock."""
    resumed_deals: int = 0
    """Deals kept before this session (a resumed run): committed, and of unfinished chunks."""
    resumed_games: int = 0
    """Games kept before this session."""

    @property
    def deals_done(self) -> int:
        """Deals finished so far (committed, or played in a chunk in flight), at most the target."""
        done = max(self.deals, self.resumed_deals + self.played_deals)
        return min(done, self.target_deals) if self.target_deals else done

    @property
    def games_done(self) -> int:
        """Games finished so far (committed, or played in a chunk in flight), at most the target."""
        done = max(self.games, self.resumed_games + self.played_games)
        return min(done, self.target_games) if self.target_games else done

    @property
    def fraction(self) -> float:
        """Done, between 0 and 1."""
        if self.target_games:
            return min(1.0, self.games_done / self.target_games)
        if self.target_deals:
            return min(1.0, self.deals_done / self.target_deals)
        return 0.0

    @property
    def deals_per_second(self) -> float:
        """Deals finished in this session per second since the first chunk started (not Ray's start)."""
        played = max(self.played_deals, self.session_deals)
        clock = self.playing if self.playing > 0 else self.elapsed
        return played / clock if clock > 0 else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at this session's pace (games left are valued at the run's deals per game)."""
        rate = self.deals_per_second
        if rate <= 0:
            return None
        done, games = self.deals_done, self.games_done
        if self.target_deals:
            left = max(0, self.target_deals - done)
        elif self.target_games and games:
            left = (self.target_games - games) * done / games
        else:
            return None
        return left / rate


@dataclass(frozen=True)
class RunSummary:
    """What a finished :func:`run_simulation` reports."""

    run_dir: str
    run_id: str
    deals: int
    games: int
    chunks: int
    session_deals: int
    resumed_chunks: int
    elapsed: float
    workers: str
    #: Games of unfinished chunks an interrupted session had kept (not played again).
    resumed_partial_games: int = 0
    #: Play tasks this session started (pieces of chunks; retries after a lost result included).
    tasks: int = 0

    @property
    def deals_per_second(self) -> float:
        """This session's throughput (Ray start included)."""
        return self.session_deals / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def deals_glob(self) -> str:
        """The glob to scan the deal log with (``pl.scan_parquet``)."""
        return f"{self.run_dir}/{DEALS_GLOB}"


def new_manifest(config: RunConfig) -> Manifest:
    """The manifest of a run that has not committed any chunk yet."""
    return Manifest(
        kind=SIMULATION,
        run_id=config.run_id,
        identity=config.identity(),
        config=config.as_dict(),
        variant=config.rules.name,
        rules=jsonable(config.rules.as_dict()),
        strategies=[dict(seat=i, **s.describe()) for i, s in enumerate(config.seats)],
        master_seed=config.seed,
        versions=package_versions(),
    )


def _first_difference(old: Any, new: Any, path: str = "") -> str:
    """A short description of where two identities differ."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                return _first_difference(old.get(key), new.get(key), f"{path}.{key}" if path else key)
    return f"{path or 'config'}: {old!r} in the run, {new!r} now"


def _open_run(store: RunDir, config: RunConfig, overwrite: bool) -> Manifest:
    """The manifest to continue (resume), or a fresh one; refuses a different run unless ``overwrite``."""
    try:
        manifest = store.read_manifest()
    except StorageError:
        if not overwrite:
            raise
        manifest = None
    if overwrite:
        store.clear()
        manifest = None
    elif manifest is not None and _nothing_committed(store, manifest):
        manifest = None  # a run that never committed a chunk holds nothing to keep: start afresh
    elif manifest is not None:
        if not manifest.native or manifest.kind != SIMULATION:
            what = f"a {manifest.kind} run" if manifest.native else "not a fivehundred run"
            raise RunDirConflict(f"{store.display}: manifest.json is {what}; use --overwrite")
        if manifest.identity != config.identity():
            diff = _first_difference(manifest.identity, config.identity())
            raise RunDirConflict(
                f"{store.display} holds a run with a different config ({diff}); "
                "use --overwrite to replace it or another --out"
            )
    elif store.has_foreign_parts():
        raise RunDirConflict(f"{store.display}/deals holds part files but no manifest; use --overwrite")
    if manifest is None:
        manifest = new_manifest(config)
    manifest.config = config.as_dict()
    manifest.versions = package_versions()
    _check_committed(store, manifest, config.chunk_size)
    store.write_manifest(manifest)
    return manifest


def _nothing_committed(store: RunDir, manifest: Manifest) -> bool:
    """Whether ``manifest`` is one of our simulation runs that lists no chunk (whole or partial),
    with no part file beside it."""
    return (
        manifest.native
        and manifest.kind == SIMULATION
        and not manifest.chunks
        and not manifest.partial
        and not store.has_foreign_parts()
    )


def _check_committed(store: RunDir, manifest: Manifest, chunk_size: int) -> None:
    """Keep the committed chunks whose files are intact, and the intact partial chunks after them;
    drop the rest and any stray part or partial file."""
    keep: list[dict[str, Any]] = []
    for entry in manifest.chunks:
        if entry.get("status") != "done" or store.part_rows(entry["file"]) != entry["deals"]:
            break
        keep.append(entry)
    manifest.chunks = keep
    if len(keep) != manifest.totals.get("chunks"):
        manifest.status = "running"
    manifest.totals = {
        "deals": sum(e["deals"] for e in keep),
        "games": keep[-1]["games"][1] if keep else 0,
        "chunks": len(keep),
    }
    manifest.partial = _disjoint(
        [p for p in manifest.partial if _partial_intact(store, p, len(keep), chunk_size)]
    )
    wanted = {e["file"] for e in [*keep, *manifest.partial]}
    for rel in [*store.part_files(), *store.partial_files()]:
        if rel not in wanted:
            store.delete(rel)
    store.clean_tmp()


def _partial_intact(store: RunDir, record: dict[str, Any], committed: int, chunk_size: int) -> bool:
    """Whether a partial record fits the run (games inside a chunk after the committed ones) and its
    file holds the recorded rows."""
    try:
        index, (first, stop), deals, rel = record["index"], record["games"], record["deals"], record["file"]
        fits = index >= committed and index * chunk_size <= first < stop <= (index + 1) * chunk_size
    except (KeyError, TypeError, ValueError):
        return False
    return bool(fits) and store.part_rows(rel) == deals


def _disjoint(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records in game order, without any that overlaps an earlier one."""
    out: list[dict[str, Any]] = []
    for rec in sorted(records, key=lambda p: p["games"][0]):
        if not out or rec["games"][0] >= out[-1]["games"][1]:
            out.append(rec)
    return out


def _chunks(
    config: RunConfig, first: int, store: RunDir, partial: list[dict[str, Any]]
) -> Iterator[GameChunk]:
    """The run's chunks from index ``first`` on (endless in ``deals`` mode); a chunk that an
    interrupted session partly played carries those games' rows (read when its turn comes)."""
    g = config.chunk_size
    k = first
    while config.games is None or k * g < config.games:
        stop = (k + 1) * g if config.games is None else min((k + 1) * g, config.games)
        chunk = GameChunk(k, config.rules, config.seats, config.seed, range(k * g, stop))
        played = tuple(
            (a - k * g, b - a, store.read_table(p["file"]).cast(CHUNK_SCHEMA))
            for p in partial
            if p["index"] == k
            for a, b in [p["games"]]
        )
        yield replace(chunk, played=played) if played else chunk
        k += 1


#: Play tasks a simulation on Ray aims to give each worker, so that one large chunk still keeps
#: every worker busy (chunks are split into pieces; the part files do not change).
TASKS_PER_WORKER = 4
#: Fewest games in one task (Ray's cost per task, about 6 ms, stays small next to the games').
MIN_TASK_GAMES = 50


def task_games(config: RunConfig, cpus: int) -> int:
    """Games per Ray task: about :data:`TASKS_PER_WORKER` tasks per CPU over the whole run, at
    least :data:`MIN_TASK_GAMES` and at most a chunk.  Scheduling only: the files never change."""
    games = config.games if config.games is not None else -(-(config.deals or 0) // DEALS_PER_GAME_GUESS)
    per_task = -(-games // (TASKS_PER_WORKER * max(1, cpus)))
    return min(config.chunk_size, max(MIN_TASK_GAMES, per_task))


class _Planner:
    """Places chunks in the run, in chunk order: first deal id, and where the deals target cuts.

    In ``deals`` mode the chunk that holds the N-th deal is kept through the end of that deal's
    game (runs are whole games); later chunks are not needed (``None``).
    """

    def __init__(self, config: RunConfig, deals: int) -> None:
        self.config = config
        self.deals = deals

    def wanted(self) -> int | None:
        """Deals the run still needs (``None`` in ``games`` mode: every game is played)."""
        target = self.config.deals
        return None if target is None else max(0, target - self.deals)

    def __call__(self, chunk: GameChunk, counts: list[int]) -> PartPlan | None:
        target = self.config.deals
        if target is not None and self.deals >= target:
            return None
        keep, last = sum(counts), len(counts) - 1
        if target is not None and self.deals + keep >= target:
            need, running = target - self.deals, 0
            for i, c in enumerate(counts):
                running += c
                if running >= need:
                    keep, last = running, i
                    break
        where = PartPlan(self.deals, keep, chunk.game_ids[last])
        self.deals += keep
        return where


class _Reporting:
    """The in-process live counter: counts finished games, reports them (throttled), and passes on
    the run's halt flag (:class:`~pipelines.live.LiveCounter`)."""

    def __init__(self, live: LiveCounter, report: Callable[[], None]) -> None:
        self.live, self.report = live, report
        self.last: float | None = None  # when it last reported: never yet (the clock's origin is arbitrary)

    def add(self, games: int, deals: int) -> bool:
        """Count finished games; report at most every quarter second; whether to stop."""
        halted = self.live.add(games, deals)
        now = time.perf_counter()
        # not at a chunk's start (0 games): it would hide the next
        if games and (self.last is None or now - self.last >= 0.25):
            self.last = now
            self.report()
        return halted


def _done(config: RunConfig, totals: dict[str, int]) -> bool:
    if config.games is not None:
        return totals["games"] >= config.games
    assert config.deals is not None
    return totals["deals"] >= config.deals


class _Committer:
    """Writes finished chunks in order: the part file first, then (throttled) the manifest.

    A part file not yet listed in the manifest is not committed: a resumed run deletes it and
    plays its chunk again, identically.  The manifest is rewritten at most every
    :data:`MANIFEST_INTERVAL` seconds while running, and always when the run completes or stops;
    a committed chunk's partial file (an earlier session's games of it) is deleted once the
    manifest no longer lists it.
    """

    def __init__(self, store: RunDir, manifest: Manifest, config: RunConfig) -> None:
        self.store, self.manifest, self.config = store, manifest, config
        self.totals = manifest.totals
        self.dirty = False
        self.last_write = time.monotonic()
        self.obsolete: list[str] = []

    def __call__(self, part: PartResult) -> int:
        """Commit one finished chunk; returns the deals it added."""
        totals, chunk, where = self.totals, part.chunk, part.plan
        assert where.first_deal_id == totals["deals"], "parts must come in order"
        rel = self.store.write_part(chunk.key, part.data)
        self.manifest.chunks.append(
            {
                "index": chunk.key,
                "games": [chunk.game_ids[0], where.last_game + 1],
                "deals": where.keep,
                "first_deal_id": where.first_deal_id,
                "file": rel,
                "status": "done",
            }
        )
        totals["deals"] += where.keep
        totals["games"] = where.last_game + 1
        totals["chunks"] += 1
        self.forget_partial(lambda p: p["index"] == chunk.key)
        self.dirty = True
        if _done(self.config, totals):
            self.manifest.status = "complete"
            self.forget_partial(lambda p: True)  # chunks after a --deals cut are never needed
        if self.manifest.complete or time.monotonic() - self.last_write >= MANIFEST_INTERVAL:
            self.flush()
        return where.keep

    def forget_partial(self, which: Callable[[dict[str, Any]], bool]) -> None:
        """Drop the partial records ``which`` selects (their files go after the next flush)."""
        self.obsolete += [p["file"] for p in self.manifest.partial if which(p)]
        self.manifest.partial = [p for p in self.manifest.partial if not which(p)]

    def keep_unfinished(self, left: list[Unfinished]) -> None:
        """Write each run of games a halt left in an unfinished chunk (each file atomically; the
        manifest lists them at the next flush), replacing the older partial records it covers."""
        for u in left:
            stop = u.first_game + len(u.counts)
            rel = self.store.write_partial(u.chunk.key, u.first_game, stop, encode_parquet(u.table))
            key = u.chunk.key
            self.forget_partial(
                lambda p, k=key, a=u.first_game, b=stop: p["index"] == k and a <= p["games"][0] < b
            )
            record = {"index": key, "games": [u.first_game, stop], "deals": sum(u.counts), "file": rel}
            self.manifest.partial.append(record)
            self.obsolete = [f for f in self.obsolete if f != rel]
            self.dirty = True
        self.manifest.partial = _disjoint(self.manifest.partial)
        self.manifest.partial.sort(key=lambda p: (p["index"], p["games"][0]))

    def flush(self) -> None:
        """Rewrite the manifest now (then delete the partial files it no longer lists)."""
        self.store.write_manifest(self.manifest)
        self.dirty = False
        self.last_write = time.monotonic()
        for rel in self.obsolete:
            self.store.delete(rel)
        self.obsolete = []


def _partial_totals(manifest: Manifest) -> tuple[int, int]:
    """(deals, games) kept in the run's partial chunks."""
    recs = manifest.partial
    return sum(p["deals"] for p in recs), sum(p["games"][1] - p["games"][0] for p in recs)


class _Interrupts:
    """Ctrl-C while chunks play: the first one halts the run (the games finished are kept), a second
    one raises :class:`KeyboardInterrupt` at once.  Active only in the main thread and where Ctrl-C
    has Python's default handler (it is left alone when ignored or handled by the caller); a caller
    that maps SIGTERM to Ctrl-C by calling the SIGINT handler (the CLI does) gets the same."""

    def __init__(self, on_first: Callable[[], None]) -> None:
        self.on_first = on_first
        self.requested = False
        self._previous: Any = None

    def _handle(self, signum: int, frame: object) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        self.on_first()

    def __enter__(self) -> _Interrupts:
        main = threading.current_thread() is threading.main_thread()
        if main and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None


def run_simulation(
    config: RunConfig,
    progress: Callable[[Progress], None] | None = None,
    overwrite: bool = False,
    filesystem: pafs.FileSystem | None = None,
) -> RunSummary:
    """Run (or resume) a simulation and return its summary.

    ``progress`` is called after every committed chunk and on each live count.  ``overwrite``
    replaces a run directory that holds a different run; otherwise the same config resumes and a
    different one is refused.  ``config.workers == 0`` plays in this process without Ray (same
    files, byte for byte).  ``filesystem`` (optional) is a configured pyarrow filesystem in which
    ``config.out`` is a path.  Ctrl-C keeps the committed chunks and the games finished in the
    chunks in flight, and raises :class:`SimulationInterrupted`.
    """
    t0 = time.perf_counter()
    store = RunDir(config.out, filesystem)
    new_dir = store.local and not os.path.isdir(store.root)
    store.lock()
    manifest: Manifest | None = None
    started = False  # this call wrote the run's first manifest (nothing of an earlier run is there)
    try:
        started = not store.exists(MANIFEST) and not store.has_foreign_parts()
        manifest = _open_run(store, config, overwrite)
        totals = manifest.totals
        resumed = totals["chunks"]
        staged_deals, staged_games = _partial_totals(manifest)
        resumed_deals, resumed_games = totals["deals"] + staged_deals, totals["games"] + staged_games
        session = 0
        live = LiveCounter()
        playing: list[float] = []  # when the first chunk started
        last_live = [0.0]

        def report() -> None:
            if progress is not None:
                now = time.perf_counter()
                progress(
                    Progress(
                        deals=totals["deals"],
                        games=totals["games"],
                        target_deals=config.deals,
                        target_games=config.games,
                        session_deals=session,
                        elapsed=now - t0,
                        played_deals=live.deals,
                        played_games=live.games,
                        playing=now - playing[0] if playing else 0.0,
                        resumed_deals=resumed_deals,
                        resumed_games=resumed_games,
                    )
                )

        def poll() -> None:  # on Ray, every wait: halt on Ctrl-C; the workers' games every 0.25 s
            if interrupts.requested:
                stream.halt()
            now = time.perf_counter()
            if pool is None or progress is None or now - last_live[0] < 0.25:
                return
            last_live[0] = now
            got = pool.live_totals()
            if got is not None:
                live.games, live.deals = got
                report()

        def interrupted() -> SimulationInterrupted:
            p_deals, p_games = _partial_totals(manifest)
            kept = totals["games"] + p_games
            lost = max(0, resumed_games + live.games - kept)
            return SimulationInterrupted(
                totals["deals"] + p_deals,
                kept,
                totals["chunks"],
                lost,
                p_deals,
                p_games,
                len({p["index"] for p in manifest.partial}),
            )

        report()
        tasks = 0
        if config.workers == 0:
            pool: RayPool | None = None
            where = "in-process"
        else:
            pool = RayPool(workers=config.workers, address=config.address, max_retries=config.max_retries)
            where = f"ray {'cluster ' + config.address if config.address else 'local'}"
        if not _done(config, totals):
            with pool if pool is not None else contextlib.nullcontext():
                chunks = _chunks(config, totals["chunks"], store, manifest.partial)
                planner = _Planner(config, totals["deals"])
                stream: PartStream | LocalParts
                if pool is not None:
                    where += f", {pool.cpus} {'worker' if pool.cpus == 1 else 'workers'}"
                    pool.live_counter()
                    pool.on_wait = poll
                    stream = run_parts(chunks, pool, config.run_id, planner, task_games(config, pool.cpus))
                else:
                    chunks = (replace(c, counter=_Reporting(live, report)) for c in chunks)
                    stream = local_parts(
                        chunks, config.run_id, planner, halted=lambda: live.halted, wanted=planner.wanted
                    )
                playing.append(time.perf_counter())
                commit = _Committer(store, manifest, config)
                interrupts = _Interrupts(live.halt)  # in-process the chunk reads it; on Ray, poll()
                try:
                    with interrupts:
                        for result in stream:
                            commit(result)
                            session = max(0, totals["deals"] - resumed_deals)  # kept games not counted
                            report()
                            if manifest.complete:
                                break
                        if interrupts.requested and not manifest.complete:
                            commit.keep_unfinished(stream.unfinished())
                            commit.flush()
                            raise interrupted()
                except SimulationInterrupted:
                    raise
                except KeyboardInterrupt:  # a second Ctrl-C, or one outside the run's loop
                    if pool is not None:
                        poll_now = pool.live_totals()
                        if poll_now is not None:
                            live.games, live.deals = poll_now
                    raise interrupted() from None
                finally:
                    tasks = stream.tasks
                    stream.close()
                    if commit.dirty:  # record what is committed before stopping (Ctrl-C, errors)
                        with contextlib.suppress(Exception):
                            commit.flush()
        if not manifest.complete and _done(config, totals):
            manifest.status = "complete"
            store.write_manifest(manifest)
        if not manifest.complete:
            raise RuntimeError(f"run stopped before its end ({totals})")  # a bug, not a user error
        with contextlib.suppress(OSError):
            store.prune(PARTIAL_DIR)
        return RunSummary(
            run_dir=store.display,
            run_id=config.run_id,
            deals=totals["deals"],
            games=totals["games"],
            chunks=totals["chunks"],
            session_deals=session,
            resumed_chunks=resumed,
            resumed_partial_games=staged_games,
            elapsed=time.perf_counter() - t0,
            workers=where,
            tasks=tasks,
        )
    except BaseException:
        if started and (manifest is None or not (manifest.totals.get("chunks") or manifest.partial)):
            # It failed before committing a chunk (a cluster that cannot be reached, a bot that
            # fails at once): leave no manifest behind that would refuse a retry with another config.
            with contextlib.suppress(OSError):
                store.clear()
        raise
    finally:
        with contextlib.suppress(OSError):
            store.clean_tmp()
        store.unlock()
        if new_dir:  # made by this call and left empty: remove it (and an empty deals/)
            for folder in (DEALS_DIR, PARTIAL_DIR):
                with contextlib.suppress(OSError):
                    os.rmdir(store.path(folder))
            with contextlib.suppress(OSError):
                os.rmdir(store.root)
