"""Reading runs in bounded batches of whole games and merging their partial aggregates.

The analysis never holds a whole run: :func:`plan_batches` cuts the game ids of all runs into ranges
``[lo, hi)`` of at most about :data:`BATCH_ROWS` deals of any run (a game never straddles two
ranges, whatever the part files: a range reads the part files whose games overlap it, filtered to
the range when a file reaches outside it).  One task per range (:func:`batch_stats`, in this process
or as a Ray task on the shared scheduler of :mod:`pipelines.scheduler`) reads the range of every run,
builds its per-deal frame (:func:`~pipelines.analysis.frame.collect_deals`) and returns only
*partial aggregates*: counts and integer sums per group (:data:`AGGREGATES`), and for a run on the
base run's table the sums of the deal-by-deal pairing with it (:data:`variants.PAIR_AGGREGATES`;
both runs' rows of one game id sit in the same range).  The driver merges the partials in range order
(:func:`merge`: sums, maxima) and sorts them, so the tables are the same bytes for any number of
workers and any batch size; every table is then built from the merged aggregates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import polars as pl

from fivehundred.pipelines.analysis import bids, games, misere, strategies, variants
from fivehundred.pipelines.analysis.frame import Frame, collect_deals, ladder_of, run_shape
from fivehundred.pipelines.analysis.io import Run

if TYPE_CHECKING:
    from fivehundred.pipelines.analysis.batch_cache import BatchCache

#: Deals of one run (at most, plus one game) in a batch: the per-deal frame of a batch is what the
#: analysis holds at once (with the base run's batch beside it when pairing).
BATCH_ROWS = 200_000

#: Each aggregate: its key columns and how each value column merges (``sum`` or ``max``).
Spec = Mapping[str, tuple[tuple[str, ...], Mapping[str, str]]]
AGGREGATES: Spec = {
    **bids.AGGREGATES,
    **games.AGGREGATES,
    **misere.AGGREGATES,
    **strategies.AGGREGATES,
    **variants.AGGREGATES,
}
Partial = dict[str, pl.DataFrame]
#: A batch's result (:func:`batch_stats`): each run's partial, and each run's pairing sums with run 0.
Result = tuple[list[Partial | None], list[Partial | None]]


@dataclass(frozen=True)
class Source:
    """One run's rows of a batch: the part files holding games of the range, and whether the rows
    must be filtered to the range (a file reaches outside it)."""

    run: Run
    players: int
    teams: int
    files: tuple[str, ...]
    filtered: bool


@dataclass(frozen=True)
class Batch:
    """The games ``lo <= game_id < hi`` of every run (``None``: the run has none there); ``paired[i]``:
    run ``i`` is paired deal by deal with run 0.  ``key`` is the batch's index."""

    key: int
    lo: int
    hi: int
    sources: tuple[Source | None, ...]
    paired: tuple[bool, ...]


def run_partials(d: pl.DataFrame, players: int, teams: int) -> Partial:
    """Every partial aggregate of one run's per-deal frame ``d`` (whole games)."""
    return {
        **bids.partials(d, teams),
        **games.partials(d, teams),
        **misere.partials(d),
        **strategies.partials(d, players, teams),
        **variants.partials(d, teams),
    }


def batch_stats(batch: Batch) -> Result:
    """The partial aggregates of each run in a batch, and the pairing sums of each paired run with
    run 0 (a Ray task: only these small tables go back to the driver)."""
    out: list[Partial | None] = []
    pairs: list[Partial | None] = []
    base: tuple[pl.DataFrame, pl.DataFrame] | None = None
    for i, src in enumerate(batch.sources):
        if src is None:
            out.append(None)
            pairs.append(None)
            continue
        lf = src.run.log.scan(list(src.files))
        if src.filtered:
            lf = lf.filter((pl.col("game_id") >= batch.lo) & (pl.col("game_id") < batch.hi))
        d = collect_deals(src.run, lf, src.players, src.teams)
        out.append(run_partials(d, src.players, src.teams))
        metrics = None
        if (i == 0 and any(batch.paired)) or batch.paired[i]:
            metrics = (variants.deal_metrics(d, src.teams), variants.game_metrics(d, src.teams))
        if i == 0:
            base = metrics
        pairs.append(variants.pair_partials(base, metrics) if batch.paired[i] and base and metrics else None)
        del d
    return out, pairs


def merge(a: Partial | None, b: Partial | None, spec: Spec) -> Partial | None:
    """Two partials merged: the value columns summed (or their maximum) per key."""
    if a is None:
        return b
    if b is None:
        return a
    out: Partial = {}
    for name, (keys, ops) in spec.items():
        both = pl.concat([a[name], b[name]])
        aggs = [getattr(pl.col(c), op)().alias(c) for c, op in ops.items()]
        out[name] = both.group_by(list(keys)).agg(aggs) if keys else both.select(aggs)
    return out


def finish(p: Partial | None, spec: Spec) -> Partial | None:
    """A merged partial with every aggregate sorted by its keys (the same rows in the same order)."""
    if p is None:
        return None
    return {n: p[n].sort(list(k), nulls_last=True) if k else p[n] for n, (k, _) in spec.items()}


def _game_counts(run: Run) -> tuple[pl.DataFrame, list[tuple[str, int, int]]]:
    """Deals per game of a run, and each part file's lowest and highest game id (empty files left out)."""
    per_file = []
    ranges = []
    for rel in run.log.files:
        c = run.log.scan([rel]).group_by("game_id").agg(pl.len().cast(pl.Int64).alias("n")).collect()
        if c.height:
            per_file.append(c)
            ranges.append((rel, int(c["game_id"].min()), int(c["game_id"].max())))  # type: ignore[arg-type]
    counts = pl.concat(per_file).group_by("game_id").agg(pl.col("n").sum())
    return counts, ranges


def plan_batches(
    runs: Sequence[Run], shapes: Sequence[tuple[int, int]], paired: Sequence[bool], rows: int = BATCH_ROWS
) -> list[Batch]:
    """The batches of game-id ranges over the runs (the module docstring): each holds whole games and
    at most about ``rows`` deals of any one run."""
    layouts = [_game_counts(r) for r in runs]
    heaviest = pl.concat([c for c, _ in layouts]).group_by("game_id").agg(pl.col("n").max()).sort("game_id")
    cut = ((heaviest["n"].cum_sum() - 1) // max(1, rows)).alias("batch")
    starts = heaviest.with_columns(cut).group_by("batch").agg(pl.col("game_id").min()).sort("batch")
    los = starts["game_id"].to_list()
    top = int(heaviest["game_id"].max()) + 1  # type: ignore[arg-type]
    out = []
    for k, lo in enumerate(los):
        hi = los[k + 1] if k + 1 < len(los) else top
        sources: list[Source | None] = []
        for run, (players, teams), (_, ranges) in zip(runs, shapes, layouts, strict=True):
            files = [(rel, a, b) for rel, a, b in ranges if a < hi and b >= lo]
            if not files:
                sources.append(None)
                continue
            filtered = any(a < lo or b >= hi for _, a, b in files)
            sources.append(Source(run, players, teams, tuple(f[0] for f in files), filtered))
        out.append(Batch(k, lo, hi, tuple(sources), tuple(paired)))
    return out


def deal_frames(
    runs: Sequence[Run],
    workers: int | None = 0,
    address: str | None = None,
    rows: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    cache: BatchCache | None = None,
) -> list[Frame]:
    """The runs' frames of merged aggregates, each run after the first paired with it when on its table.

    The batches run in this process when ``workers`` is 0 (or None) and no ``address`` is given, else
    as Ray tasks (``workers`` CPUs of an embedded instance, or the cluster at ``address``).
    ``rows`` bounds the deals of a batch (default :data:`BATCH_ROWS`); ``progress(batches done,
    batches)`` is called after each batch.  With a ``cache``
    (:class:`~pipelines.analysis.batch_cache.BatchCache`) each finished batch is kept as it comes
    back and the batches it already holds for this analysis are read instead of computed (the same
    frames: the partials are merged in batch order either way).
    """
    shapes = [run_shape(r) for r in runs]
    frames = [Frame(r, p, t, ladder_of(r), {}) for r, (p, t) in zip(runs, shapes, strict=True)]
    paired = [False] + [variants.unpairable(frames[0], f) is None for f in frames[1:]]
    size = BATCH_ROWS if rows is None else rows
    batches = plan_batches(runs, shapes, paired, size)
    if cache is not None:
        cache.open(runs, paired, size)
    merged: list[Partial | None] = [None] * len(runs)
    pairs: list[Partial | None] = [None] * len(runs)
    for done, (parts, pair_parts) in enumerate(_kept_or_computed(batches, workers, address, cache), start=1):
        for i, (p, q) in enumerate(zip(parts, pair_parts, strict=True)):
            merged[i] = merge(merged[i], p, AGGREGATES)
            pairs[i] = merge(pairs[i], q, variants.PAIR_AGGREGATES)
        if progress is not None:
            progress(done, len(batches))
    out = []
    for i, f in enumerate(frames):
        stats = finish(merged[i], AGGREGATES)
        assert stats is not None, "every run has deals (open_run refuses an empty log)"
        pair = finish(pairs[i], variants.PAIR_AGGREGATES)
        if paired[i] and pair is None:
            pair = variants.empty_pairing()
        out.append(replace(f, stats=stats, paired=pair))
    return out


def deal_frame(run: Run) -> Frame:
    """The frame of merged aggregates of one run (:func:`deal_frames`)."""
    return deal_frames([run])[0]


def with_pairing(frames: Sequence[Frame]) -> list[Frame]:
    """The frames, read again together when a run after the first lacks its pairing with the first
    (frames built one by one); as given otherwise."""
    if all(f.paired is not None or variants.unpairable(frames[0], f) for f in frames[1:]):
        return list(frames)
    return deal_frames([f.run for f in frames])


def _kept_or_computed(
    batches: Sequence[Batch], workers: int | None, address: str | None, cache: BatchCache | None
) -> Iterator[Result]:
    """Each batch's :func:`batch_stats`, in batch order: read from ``cache`` when it holds it, else
    computed (:func:`_results`) and kept there."""
    if cache is None:
        yield from _results(batches, workers, address)
        return
    present = cache.present()
    kept = {b.key for b in batches if cache.name(b) in present}
    todo = [b for b in batches if b.key not in kept]
    runs = len(batches[0].sources) if batches else 0
    with closing(_results(todo, workers, address) if todo else (r for r in ())) as computed:
        for batch in batches:
            if batch.key in kept:
                # A file listed but unreadable now (removed meanwhile, damaged): computed here.
                yield cache.read(batch, runs) or batch_stats(batch)
                continue
            result = next(computed)
            cache.write(batch, result)
            yield result


def _results(batches: Sequence[Batch], workers: int | None, address: str | None) -> Any:
    """Each batch's :func:`batch_stats`, in batch order (in this process, or on Ray)."""
    from fivehundred.pipelines.raypool import RayPool
    from fivehundred.pipelines.scheduler import run_chunks

    if not workers and address is None:
        for done in run_chunks(batches, None, task=batch_stats):
            yield done.table
        return
    with RayPool(workers=workers, address=address, task=batch_stats) as pool:
        with closing(run_chunks(batches, pool, task=batch_stats)) as stream:
            for done in stream:
                yield done.table
