"""Statistics from deal logs with Polars (docs/statistics.md lists every table and column).

:func:`analyze` opens each run directory (a lazy scan of ``RUN_DIR/deals/*.parquet``), reads the runs in
bounded batches of whole games and merges their partial aggregates into one frame per run
(:mod:`~pipelines.analysis.batches`, in this process or on Ray), builds the tables of bid success
(:mod:`~pipelines.analysis.bids`), misère viability (:mod:`~pipelines.analysis.misere`), strategy
comparison (:mod:`~pipelines.analysis.strategies`) and, for two or more runs, the paired variant and
duplicate comparisons (:mod:`~pipelines.analysis.variants`), and writes each as Parquet and CSV.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl

from fivehundred.pipelines.analysis import bids, games, misere, strategies, tidy, variants
from fivehundred.pipelines.analysis.batch_cache import BatchCache
from fivehundred.pipelines.analysis.batches import deal_frames, with_pairing
from fivehundred.pipelines.analysis.dd_sample import check_sample
from fivehundred.pipelines.analysis.frame import Frame
from fivehundred.pipelines.analysis.io import AnalysisError, Run, open_run, write_tables
from fivehundred.pipelines.outputs import check_output_dir
from fivehundred.pipelines.rundir import RunLog, is_store, join
from fivehundred.sim.errors import UserError
from fivehundred.strategies.base import StrategyConfigError, check_spec

#: ``analyze --dd`` analyses: the contract as played; ``par`` adds every seat's DD tricks in every
#: denomination and the par contract (docs/dd.md).
DD_CONTRACT = "contract"
DD_PAR = "par"
#: The contract sidecar's columns the ``dd_`` tables read (held for every solved deal: 9 bytes a deal).
DD_KEPT = ("deal_id", "dd_tricks")

__all__ = [
    "AnalysisError",
    "Frame",
    "Run",
    "analyze",
    "build_tables",
    "dd_analysis",
    "open_run",
    "write_tables",
]


def build_tables(frames: Sequence[Frame]) -> dict[str, pl.DataFrame]:
    """Every statistics table of the given runs' frames (no I/O)."""
    tables: dict[str, pl.DataFrame] = {
        "overview": bids.overview(frames),
        "game_length": bids.game_length(frames),
        "game_ends": bids.game_ends(frames),
        "score_trajectories": games.score_trajectories(frames),
        "contracts": bids.contracts(frames),
        "success_by_level": bids.success_by_level(frames),
        "success_by_trump": bids.success_by_trump(frames),
        "success_by_seat": bids.success_by_seat(frames),
        "success_by_strategy": bids.success_by_strategy(frames),
        "success_by_variant": bids.success_by_variant(frames),
        "success_by_feature": bids.success_by_feature(frames),
        "success_by_trumps_joker": bids.success_by_trumps_joker(frames),
        "misere": misere.misere(frames),
        "misere_by_feature": misere.misere_by_feature(frames),
        "strategies": strategies.strategies_table(frames),
        "strategy_pairings": strategies.strategy_pairings(frames),
    }
    if len(frames) > 1:
        tables.update(variants.compare(with_pairing(frames)))
    return tidy.finish(tables, frames)


def analyze(
    run_dirs: Sequence[str | Path | RunLog],
    out_dir: str | Path | None = None,
    what_if: str | None = None,
    seat_strategy: str | None = None,
    sample: int = 1000,
    dd: str | None = None,
    dd_sample: int | None = None,
    workers: int | None = 0,
    address: str | None = None,
    progress: Callable[[str], None] | None = None,
    dd_progress: Callable[[str, int, int], None] | None = None,
    notice: Callable[[str], None] | None = None,
    partial: bool = False,
) -> dict[str, pl.DataFrame]:
    """Analyse one run (or compare several, the first being the base) and write the tables.

    ``out_dir`` defaults to ``<first run>/stats``.  ``what_if="misere"`` adds the forced-misère
    replay tables for ``sample`` deals of each run played by ``seat_strategy`` (default
    ``heuristic`` when registered, else ``random``), replayed where missing into each run's sidecar
    ``RUN/whatif_misere/`` (on Ray as the batches, below).  ``dd="contract"`` adds the double-dummy tables
    (each run's DD sidecar ``RUN/dd/`` computed where missing, on ``workers`` Ray workers, 0: in this
    process; ``dd_progress(run, parts done, parts)`` after each part; ``dd="par"`` also the par
    tables, docs/dd.md); ``dd_sample`` solves only the first ``dd_sample`` deals of the first run in
    the sample order and the same hands of the others (docs/dd.md), None: every deal.  ``progress``
    (optional) is told each phase in words (``reading 2 runs``); it never changes a table.  A run folder
    that cannot be written (read-only) still gets its what-if and DD tables: the replays and solves
    are kept in memory, not cached, and ``notice`` (a line that must be shown) says so once per
    sidecar.  A run that is not finished is refused unless ``partial`` (then what is there is
    analysed).  A killed analysis run again with the same arguments reuses the batches it had
    finished (kept in the first run's ``analysis_batches/`` until the tables are written,
    :mod:`~pipelines.analysis.batch_cache`) and its DD and what-if parts.  Returns the tables by name.
    """
    say = progress or (lambda _phase: None)
    if not run_dirs:
        raise AnalysisError("no run directory given")
    if what_if not in (None, "misere"):
        raise AnalysisError(f"unknown --what-if analysis {what_if!r} (known: misere)")
    if dd not in (None, DD_CONTRACT, DD_PAR):
        raise AnalysisError(f"unknown --dd analysis {dd!r} (known: {DD_CONTRACT}, {DD_PAR})")
    check_sample(dd_sample)
    if dd_sample is not None and dd is None:
        raise AnalysisError("--dd-sample needs --dd")
    if workers is not None and workers < 0:
        raise AnalysisError(f"--workers {workers}: must be at least 0")
    if what_if is not None and sample < 1:
        raise AnalysisError(f"--sample {sample}: must be at least 1")
    if what_if is not None and seat_strategy is not None:
        try:
            check_spec(seat_strategy)
        except StrategyConfigError as exc:
            raise AnalysisError(f"--seat-strategy: {exc}") from None
    runs = [open_run(p, partial) for p in run_dirs]
    paths = [r.path for r in runs]  # local paths are resolved; URIs as given
    if len(set(paths)) != len(paths):
        twice = next(p for p in paths if paths.count(p) > 1)
        raise AnalysisError(f"run directory {twice} was given twice")
    out = stats_location(runs[0], out_dir)
    check_output_dir(out, "--out", runs=[r.path for r in runs])  # before any table is computed
    seen: set[str] = set()
    for i, r in enumerate(runs):  # copies of one run keep apart in the tables: "<run_id> (<folder>)"
        if r.run_id in seen:
            runs[i] = replace(r, run_id=f"{r.run_id} ({r.log.dir.name})")
        seen.add(runs[i].run_id)
    cache = BatchCache(runs[0].log.dir)  # the finished batches, kept until the tables are written
    with shared_ray(workers, address), _dropped_on_error(cache):  # one Ray for every phase, if any
        tables = _tables(
            runs,
            what_if,
            seat_strategy,
            sample,
            dd,
            dd_sample,
            workers,
            address,
            say,
            dd_progress,
            notice,
            cache,
        )
    say(f"writing {len(tables)} tables to {out} ...")
    write_tables(tables, out)
    cache.clear()
    return tables


@contextmanager
def _dropped_on_error(cache: BatchCache) -> Iterator[None]:
    """The cached batches removed when the analysis stops on a user's error (bad input leaves nothing
    behind; running it again gives the same error); kept when it is killed or interrupted."""
    try:
        yield
    except UserError:
        cache.clear()
        raise


def stats_location(run: Run, out_dir: str | Path | None) -> str | Path:
    """Where the tables go: ``out_dir``, else the first run's ``stats/`` (a folder or a store prefix)."""
    if out_dir is not None:
        return out_dir if is_store(out_dir) else Path(out_dir)
    source = run.log.source
    if is_store(source):
        return join(source, "stats")
    if not run.log.dir.local:  # a path inside a pyarrow filesystem given by the caller
        raise AnalysisError(f"{run.path}: a run on a configured filesystem needs an output folder (--out)")
    return Path(run.path) / "stats"


def _tables(
    runs: list[Run],
    what_if: str | None,
    seat_strategy: str | None,
    sample: int,
    dd: str | None,
    dd_sample: int | None,
    workers: int | None,
    address: str | None,
    say: Callable[[str], None],
    dd_progress: Callable[[str, int, int], None] | None,
    notice: Callable[[str], None] | None,
    cache: BatchCache | None = None,
) -> dict[str, pl.DataFrame]:
    """Every table of :func:`analyze` (its arguments checked), computed; nothing written but the
    finished batches into ``cache``."""
    say(f"reading {len(runs)} run{'s' if len(runs) > 1 else ''} ...")
    frames = deal_frames(runs, workers, address, progress=progress_of(say), cache=cache)
    say(f"computing the tables ({sum(f.count('deals') for f in frames):,} deals) ...")
    tables = build_tables(frames)
    if what_if == "misere":
        from fivehundred.pipelines.analysis.whatif import misere_whatif

        say(f"replaying {sample:,} deals per run with a forced misère ...")

        def replayed(run: str, done: int, parts: int) -> None:
            say(f"replaying {run}: {done:,}/{parts:,} parts ...")

        whatif = misere_whatif(frames, seat_strategy, sample, workers, address, replayed, notice)
        tables.update(tidy.finish(whatif, frames))
    if dd is not None:
        some = "" if dd_sample is None else f" (a sample of {dd_sample:,} deals per run)"
        what = "the contracts as played" + (" and every seat's par" if dd == DD_PAR else "")
        say(f"double-dummy solving {what}{some} ...")
        dd_tables = dd_analysis(frames, workers, address, dd_progress, dd_sample, dd, notice)
        tables.update(tidy.finish(dd_tables, frames))
    return tables


def shared_ray(workers: int | None, address: str | None) -> AbstractContextManager[Any]:
    """One embedded Ray instance (``workers`` > 0) or one connection (``address``) for the whole
    analysis: each phase's pool (:class:`pipelines.raypool.RayPool`) finds Ray running and uses it,
    and only this one shuts it down; a no-op for an analysis in this process."""
    if not workers and address is None:
        return nullcontext()
    from fivehundred.pipelines.raypool import RayPool

    return RayPool(workers=workers, address=address)


def dd_analysis(
    frames: Sequence[Frame],
    workers: int | None,
    address: str | None,
    progress: Callable[[str, int, int], None] | None,
    sample: int | None = None,
    kind: str = DD_CONTRACT,
    notice: Callable[[str], None] | None = None,
) -> dict[str, pl.DataFrame]:
    """The ``dd_`` tables of the runs (each run's sidecar solved where missing, on ``workers``; with
    ``sample``, only the first ``sample`` deals of the first run in the sample order and every other
    run's deals up to the same key: the same hands); ``kind`` ``par`` adds the par sidecar
    ``RUN/dd_par/`` and its tables; ``progress(run, done, parts)`` (``run`` ends ``(par)`` for the
    par sidecar's parts); ``notice`` is told when a sidecar cannot be written (kept in memory)."""
    from fivehundred.pipelines.analysis.dd import dd_tables
    from fivehundred.pipelines.analysis.dd_sample import dd_rows, sample_cut
    from fivehundred.pipelines.analysis.dd_sidecar import dd_sidecar
    from fivehundred.pipelines.analysis.whatif import rules_of

    # A sample: each run's sampled deals, read chunk by chunk once (the first run's first `sample`
    # deals in the sample order, every other run's up to the same key: the same hands), held.  Every
    # deal: nothing held but each run's sidecar lookup; the tables read the log again in batches.
    rows = None
    cut = None
    if sample is not None:
        first = dd_rows(frames[0], sample=sample)
        cut = sample_cut(frames[0], sample, first)
        rows = [first, *(dd_rows(f, cut) for f in frames[1:])]
    sidecars = []
    for i, f in enumerate(frames):
        report = None if progress is None else (lambda done, total, p=f.run.path: progress(p, done, total))
        r = None if rows is None else rows[i]
        sidecars.append(
            dd_sidecar(f, rules_of(f), workers, address, report, cut, rows=r, columns=DD_KEPT, notice=notice)
        )
    tables = dd_tables(frames, sidecars, rows, sample)
    if kind == DD_PAR:
        from fivehundred.pipelines.analysis.ddpar import PAR_KEPT, par_kind, par_tables

        pars = []
        for i, f in enumerate(frames):
            report = None if progress is None else (lambda d, t, p=f"{f.run.path} (par)": progress(p, d, t))
            r = None if rows is None else rows[i]
            pars.append(
                dd_sidecar(f, rules_of(f), workers, address, report, cut, par_kind(), r, PAR_KEPT, notice)
            )
        tables.update(par_tables(frames, [rules_of(f) for f in frames], pars, rows))
    return tables


def progress_of(say: Callable[[str], None]) -> Callable[[int, int], None]:
    """A batch counter in words for ``say``."""
    return lambda done, total: say(f"reading the runs: {done:,}/{total:,} batches ...")
