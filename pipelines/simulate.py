"""``simulate``: play a run's games in chunks (on Ray or in-process) and stream the deal log to Parquet.

:func:`run_simulation` is the library entry point; the CLI only parses flags and prints::

    from fivehundred.pipelines.runconfig import load_config
    from fivehundred.pipelines.simulate import run_simulation

    summary = run_simulation(load_config("configs/runs/quick.toml", seed=3), progress=print)

How a run is laid out (see :mod:`pipelines.rundir`): chunk ``k`` holds games ``k*G .. k*G+G-1``
(``G`` = ``chunk_size``) and becomes ``deals/part-<k>.parquet``.  Chunks are committed strictly in
order, so ``deal_id`` runs 0..N-1 in game-id order whatever finished first; results that arrive
early wait in Ray's object store.  After each commit the manifest is rewritten atomically with the
chunk's game range, deal count and first deal id, so a run killed at any moment resumes from its
committed chunks (the rows being deterministic, a half-done chunk is simply played again).

``deals=N`` plays the fewest whole games, in game-id order, whose deals reach N: the chunk in which
the N-th deal falls is cut after the game holding it, and nothing after it is played.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import pyarrow.fs as pafs

from fivehundred.pipelines.chunks import (
    GameChunk,
    LiveCounter,
    PartPlan,
    PartResult,
    RayPool,
    local_parts,
    run_parts,
)
from fivehundred.pipelines.runconfig import RunConfig, jsonable
from fivehundred.pipelines.rundir import (
    DEALS_DIR,
    DEALS_GLOB,
    MANIFEST,
    SIMULATION,
    Manifest,
    RunDir,
    StorageError,
    package_versions,
)
from fivehundred.sim.errors import UserError

#: Seconds between manifest rewrites while a run is going (it is always written at the end).
MANIFEST_INTERVAL = 0.5


class RunDirConflict(UserError, FileExistsError):
    """The run directory holds a different run (or foreign files); ``--overwrite`` replaces it."""


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped :func:`run_simulation`: what the run directory keeps.

    ``deals`` and ``games`` are committed (a resumed run starts after them); ``lost_games`` are the
    games finished in chunks still in flight, which a resumed run plays again (identically).
    """

    def __init__(self, deals: int, games: int, chunks: int, lost_games: int) -> None:
        super().__init__(f"kept {deals} deals in {games} games")
        self.deals, self.games, self.chunks, self.lost_games = deals, games, chunks, lost_games


@dataclass(frozen=True)
class Progress:
    """Where a run stands: reported after every committed chunk and, while chunks play, every
    quarter second with the games the workers have finished (``played_*``; on Ray through a small
    counter actor, in-process per game)."""

    deals: int
    games: int
    target_deals: int | None
    target_games: int | None
    session_deals: int
    elapsed: float
    #: Deals and games finished in this session, committed or still in a chunk in flight.
    played_deals: int = 0
    played_games: int = 0
    #: Seconds since the first chunk was started (Ray's start-up excluded); the rate's clock.
    playing: float = 0.0
    #: Deals and games committed before this session (a resumed run).
    resumed_deals: int = 0
    resumed_games: int = 0

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
    _check_committed(store, manifest)
    store.write_manifest(manifest)
    return manifest


def _nothing_committed(store: RunDir, manifest: Manifest) -> bool:
    """Whether ``manifest`` is one of our simulation runs that lists no chunk, with no part file beside it."""
    return (
        manifest.native
        and manifest.kind == SIMULATION
        and not manifest.chunks
        and not store.has_foreign_parts()
    )


def _check_committed(store: RunDir, manifest: Manifest) -> None:
    """Keep the committed chunks whose files are intact; drop the rest and any stray part files."""
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
    wanted = {e["file"] for e in keep}
    for rel in store.part_files():
        if rel not in wanted:
            store.delete(rel)
    store.clean_tmp()


def _chunks(config: RunConfig, first: int) -> Iterator[GameChunk]:
    """The run's chunks from index ``first`` on (endless in ``deals`` mode)."""
    g = config.chunk_size
    k = first
    while config.games is None or k * g < config.games:
        stop = (k + 1) * g if config.games is None else min((k + 1) * g, config.games)
        yield GameChunk(k, config.rules, config.seats, config.seed, range(k * g, stop))
        k += 1


class _Planner:
    """Places chunks in the run, in chunk order: first deal id, and where the deals target cuts.

    In ``deals`` mode the chunk that holds the N-th deal is kept through the end of that deal's
    game (runs are whole games); later chunks are not needed (``None``).
    """

    def __init__(self, config: RunConfig, deals: int) -> None:
        self.config = config
        self.deals = deals

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
    """The in-process live counter: counts finished games and reports them (throttled)."""

    def __init__(self, live: LiveCounter, report: Callable[[], None]) -> None:
        self.live, self.report, self.last = live, report, 0.0

    def add(self, games: int, deals: int) -> None:
        """Count finished games; report at most every quarter second."""
        self.live.add(games, deals)
        now = time.perf_counter()
        if now - self.last >= 0.25:
            self.last = now
            self.report()


def _done(config: RunConfig, totals: dict[str, int]) -> bool:
    if config.games is not None:
        return totals["games"] >= config.games
    assert config.deals is not None
    return totals["deals"] >= config.deals


class _Committer:
    """Writes finished chunks in order: the part file first, then (throttled) the manifest.

    A part file not yet listed in the manifest is not committed: a resumed run deletes it and
    plays its chunk again, identically.  The manifest is rewritten at most every
    :data:`MANIFEST_INTERVAL` seconds while running, and always when the run completes or stops.
    """

    def __init__(self, store: RunDir, manifest: Manifest, config: RunConfig) -> None:
        self.store, self.manifest, self.config = store, manifest, config
        self.totals = manifest.totals
        self.dirty = False
        self.last_write = time.monotonic()

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
        self.dirty = True
        if _done(self.config, totals):
            self.manifest.status = "complete"
        if self.manifest.complete or time.monotonic() - self.last_write >= MANIFEST_INTERVAL:
            self.flush()
        return where.keep

    def flush(self) -> None:
        """Rewrite the manifest now."""
        self.store.write_manifest(self.manifest)
        self.dirty = False
        self.last_write = time.monotonic()


def run_simulation(
    config: RunConfig,
    progress: Callable[[Progress], None] | None = None,
    overwrite: bool = False,
    filesystem: pafs.FileSystem | None = None,
) -> RunSummary:
    """Run (or resume) a simulation and return its summary.

    ``progress`` is called after every committed chunk.  ``overwrite`` replaces a run directory
    that holds a different run; otherwise the same config resumes and a different one is refused.
    ``config.workers == 0`` plays in this process without Ray (same files, byte for byte).
    ``filesystem`` (optional) is a configured pyarrow filesystem in which ``config.out`` is a path.
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
        resumed_deals, resumed_games = totals["deals"], totals["games"]
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

        def poll() -> None:  # the workers' finished games, at most every quarter second
            now = time.perf_counter()
            if pool is None or now - last_live[0] < 0.25:
                return
            last_live[0] = now
            got = pool.live_totals()
            if got is not None:
                live.games, live.deals = got
                report()

        report()
        if config.workers == 0:
            pool: RayPool | None = None
            where = "in-process"
        else:
            pool = RayPool(workers=config.workers, address=config.address, max_retries=config.max_retries)
            where = f"ray {'cluster ' + config.address if config.address else 'local'}"
        if not _done(config, totals):
            with pool if pool is not None else contextlib.nullcontext():
                if pool is not None:
                    where += f", {pool.window} chunks in flight"
                    if progress is not None:
                        pool.live_counter()
                        pool.on_wait = poll
                chunks, planner = _chunks(config, totals["chunks"]), _Planner(config, totals["deals"])
                if pool is None and progress is not None:
                    chunks = (replace(c, counter=_Reporting(live, report)) for c in chunks)
                playing.append(time.perf_counter())
                stream = (
                    run_parts(chunks, pool, config.run_id, planner)
                    if pool is not None
                    else local_parts(chunks, config.run_id, planner)
                )
                commit = _Committer(store, manifest, config)
                try:
                    with contextlib.closing(stream):
                        for result in stream:
                            session += commit(result)
                            report()
                            if manifest.complete:
                                break
                except KeyboardInterrupt:
                    if pool is not None:
                        poll_now = pool.live_totals()
                        if poll_now is not None:
                            live.games, live.deals = poll_now
                    lost = max(0, resumed_games + live.games - totals["games"]) if progress else 0
                    raise SimulationInterrupted(
                        totals["deals"], totals["games"], totals["chunks"], lost
                    ) from None
                finally:
                    if commit.dirty:  # record what is committed before stopping (Ctrl-C, errors)
                        with contextlib.suppress(Exception):
                            commit.flush()
        if not manifest.complete and _done(config, totals):
            manifest.status = "complete"
            store.write_manifest(manifest)
        if not manifest.complete:
            raise RuntimeError(f"run stopped before its end ({totals})")  # a bug, not a user error
        return RunSummary(
            run_dir=store.display,
            run_id=config.run_id,
            deals=totals["deals"],
            games=totals["games"],
            chunks=totals["chunks"],
            session_deals=session,
            resumed_chunks=resumed,
            elapsed=time.perf_counter() - t0,
            workers=where,
        )
    except BaseException:
        if started and (manifest is None or not manifest.totals.get("chunks")):
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
            with contextlib.suppress(OSError):
                os.rmdir(store.path(DEALS_DIR))
            with contextlib.suppress(OSError):
                os.rmdir(store.root)
