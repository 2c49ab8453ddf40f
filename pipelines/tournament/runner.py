"""Running a tournament: chunks of game pairs consumed in order, stopping rules, the final tables.

Results are consumed chunk by chunk in a fixed order (:func:`~pipelines.tournament.schedule.chunk_order`),
whatever executes them (:mod:`~pipelines.tournament.executors`); a match stops at the first pair where
its SPRT accepts a hypothesis, and the later pairs of that match are dropped.  Deal ids are assigned in
that order, so the same config and seed give byte-identical files (:mod:`~pipelines.tournament.files`)
for any number of workers, and an interrupted run resumes where the manifest says it stopped.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow.fs as pafs

from fivehundred.pipelines.outputs import check_output_dir
from fivehundred.pipelines.rundir import RunDir
from fivehundred.pipelines.tournament.config import TournamentConfig
from fivehundred.pipelines.tournament.executors import Executor, InProcessExecutor
from fivehundred.pipelines.tournament.files import (
    commit_chunk,
    done_pairs,
    open_tournament,
    run_id_of,
    write_tables,
)
from fivehundred.pipelines.tournament.live import MatchState, MatchStatus, match_status
from fivehundred.pipelines.tournament.markdown import markdown_report
from fivehundred.pipelines.tournament.schedule import Chunk, PairResult, chunk_order
from fivehundred.pipelines.tournament.tables import entries_table, matches_table


@dataclass
class TournamentResult:
    """What a finished tournament returns: its tables and where they are."""

    out_dir: str
    run_id: str
    matches: pl.DataFrame
    entries: pl.DataFrame
    statuses: list[MatchStatus]
    markdown: str


def run_tournament(
    config: TournamentConfig,
    out_dir: str | Path,
    executor: Executor | None = None,
    on_progress: Callable[[MatchStatus], None] | None = None,
    filesystem: pafs.FileSystem | None = None,
) -> TournamentResult:
    """Play (or resume) a tournament into ``out_dir`` and write its tables.

    ``out_dir`` is a local path or a URI pyarrow understands (or a path in ``filesystem``).
    ``executor`` plays the chunks (default: in this process).  ``on_progress`` is called with the
    match's status after every chunk consumed.  The folder is locked meanwhile as a simulation's run
    directory is (:meth:`~pipelines.rundir.RunDir.lock`: ``flock`` locally, a lease object on S3):
    a second driver writing into it is refused in one line
    (:class:`~pipelines.rundir.StorageError` or :class:`~pipelines.storelock.LockHeld`).
    """
    run = RunDir(out_dir, filesystem)
    if run.local:
        check_output_dir(run.root, "--out")  # before anything is played
    new_dir = run.local and not os.path.isdir(run.root)
    run.lock()  # as simulate's: a second driver on this folder is refused in one line
    try:
        return _run_locked(config, run, executor or InProcessExecutor(), on_progress)
    finally:
        run.unlock()
        if new_dir:  # made by the lock and left empty (nothing played): removed
            with contextlib.suppress(OSError):
                os.rmdir(run.root)


def _run_locked(
    config: TournamentConfig,
    run: RunDir,
    executor: Executor,
    on_progress: Callable[[MatchStatus], None] | None,
) -> TournamentResult:
    """:func:`run_tournament` once the output folder is locked."""
    manifest = open_tournament(run, config)
    states = [
        MatchState(m, config.entries[a].name, config.entries[b].name)
        for m, (a, b) in enumerate(config.matches)
    ]
    sprt = config.stop.sprt

    def consume(results: Iterable[PairResult], state: MatchState) -> int:
        """Add pairs until the SPRT decides; the number of pairs kept."""
        kept = 0
        for res in results:
            if state.decision is not None:
                break
            state.add(res)
            kept += 1
            if sprt is not None:
                state.decision = sprt.decide(sprt.llr(state.counts()))
        return kept

    done = set()
    for entry in manifest.chunks:
        done.add(entry["key"])
        results = done_pairs(run, entry)
        if results:
            consume(results, states[results[0].match])

    def pending() -> Iterator[Chunk]:
        for chunk in chunk_order(len(config.matches), config.stop.pairs, config.chunk_pairs):
            if chunk.key in done or states[chunk.match].decision is not None:
                continue
            yield chunk

    for chunk, results, records in executor.run(config, pending()):
        state = states[chunk.match]
        if state.decision is not None:
            continue  # played ahead by a parallel executor, after the match was decided
        kept = consume(results, state)
        kept_pairs = {r.pair for r in results[:kept]}
        commit_chunk(
            run, manifest, chunk.key, results[:kept], [r for r in records if r["board"] in kept_pairs]
        )
        done.add(chunk.key)
        if on_progress is not None:
            on_progress(match_status(config, state))

    statuses = [match_status(config, s, final=True) for s in states]
    matches_df = matches_table(config, statuses)
    entries_df = entries_table(config, states)
    run_id = run_id_of(config)
    md = markdown_report(config, run_id, manifest.totals, matches_df, entries_df)
    write_tables(run, {"matches": matches_df, "entries": entries_df}, md)
    manifest.status = "complete"
    run.write_manifest(manifest)
    return TournamentResult(run.display, run_id, matches_df, entries_df, statuses, md)
