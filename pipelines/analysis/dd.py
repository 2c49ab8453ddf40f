"""Double-dummy (DD) results of the contracts as played (``analyze --dd``), docs/dd.md.

For every deal with a contract, :func:`opening_fields` builds the position at the opening lead from the facts
the engine logged (the declarer's hand as dealt plus the kitty minus its ``discards``, the sitting-out
partners' hands empty, the first seat of ``play_seats`` to lead, ``joker_suit`` as the declarer named it) and
:func:`sim.dd.dd_tricks` solves it.  The results are a per-deal sidecar of the run,
``RUN/dd/part-NNNNN.parquet``: the deals with a contract in :func:`sample_order` (a hash of each deal's seed,
so that a sample of ``N`` deals is the first ``N`` of that order and the same hands in every run of one master
seed), :data:`CHUNK_DEALS` per part, each part solved by one task (on Ray with the shared scheduler of
:mod:`pipelines.chunks`, or in this process) and written atomically as it comes back, so an interrupted
analysis resumes where it stopped.  A part whose deal ids, seeds and :data:`DD_VERSION` match the log is
reused; the bytes depend only on the log (never on the number of workers).

:func:`dd_tables` turns the sidecars into the ``dd_`` statistics tables: one pass over the sampled
deals (:func:`row_batches`: a sample's rows, or every deal in batches of whole games), each chunk
reduced to partial aggregates (:func:`dd_partials`, :data:`DD_AGGREGATES`) that are merged, so that
no per-deal frame of the run is held.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from fivehundred.pipelines.analysis.batches import Partial, Spec, finish, merge, plan_batches
from fivehundred.pipelines.analysis.frame import LEVEL_ORDER, Frame, deal_exprs
from fivehundred.pipelines.analysis.intervals import cluster_sums, wilson
from fivehundred.pipelines.analysis.io import AnalysisError
from fivehundred.pipelines.analysis.variants import _joint, unpairable
from fivehundred.pipelines.rundir import StorageError, encode_parquet
from fivehundred.sim.dd import Position, dd_tricks
from fivehundred.sim.rules import Rules
from fivehundred.sim.seeding import derive

#: The sidecar's version: what a DD value means and how the position is built from the log.  The
#: solver is exact, so a faster solver keeps it; a change of definition bumps it (and re-solves).
DD_VERSION = "dd.v1"
#: Deals solved per task and per part file (fixed: the parts, and their bytes, do not depend on workers).
CHUNK_DEALS = 64
DD_DIR = "dd"
#: The sample order's own stream: a deal's place is ``derive(deal seed, SAMPLE_KEY)``.
SAMPLE_KEY = 0x44445341  # "DDSA"
#: Log columns the positions are built from.
LOG_COLUMNS = (
    "deal_id",
    "seed",
    "contract",
    "declarer",
    "hands",
    "kitty",
    "discards",
    "joker_suit",
    "play_seats",
    "sitting_out",
)
SIDECAR_SCHEMA = pa.schema(
    [
        ("deal_id", pa.int64()),
        ("seed", pa.uint64()),
        ("contract", pa.string()),
        ("declarer", pa.int8()),
        ("leader", pa.int8()),
        ("dd_tricks", pa.int8()),
        ("dd_version", pa.string()),
    ]
)


def check_sample(value: object, low: int = 1, error: type[Exception] = AnalysisError) -> None:
    """Refuse a ``--dd-sample`` that is not an integer of at least ``low`` (None passes) with ``error``."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
        bound = "at least 1" if low == 1 else f"{low} or more"
        raise error(f"--dd-sample must be {bound}, got {value!r}")


def sample_key(deal_seed: int) -> int:
    """A deal's place in the sample order: a hash of its seed (which the master seed, the game and the
    hand fix, so hand ``j`` of game ``g`` has the same place in every run of one sweep)."""
    return derive(deal_seed, SAMPLE_KEY)


def sample_order(log: pl.DataFrame, cut: int | None = None) -> pl.DataFrame:
    """The deals of ``log`` (columns ``deal_id``, ``seed``, ...) in sample order (:func:`sample_key`,
    ties by ``deal_id``) with the key, column ``sample_key``; those whose key is at most ``cut`` (all
    when ``None``)."""
    keys = pl.Series("sample_key", [sample_key(s) for s in log["seed"].to_list()], dtype=pl.UInt64)
    ordered = log.with_columns(keys).sort("sample_key", "deal_id")
    return ordered if cut is None else ordered.filter(pl.col("sample_key") <= cut)


def part_name(index: int, folder: str = DD_DIR) -> str:
    """The sidecar part file of chunk ``index``, relative to the run."""
    return f"{folder}/part-{index:05d}.parquet"


def opening_fields(row: dict[str, Any]) -> dict[str, Any]:
    """The position fields (as ``fivehundred dd`` reads them) of a logged deal at its opening lead."""
    declarer = row["declarer"]
    out = set(row["sitting_out"] or ())
    hands: list[list[str]] = []
    for s, hand in enumerate(row["hands"]):
        if s in out:
            hands.append([])
        elif s == declarer:
            gone = set(row["discards"])
            hands.append([c for c in [*hand, *row["kitty"]] if c not in gone])
        else:
            hands.append(list(hand))
    return {
        "contract": row["contract"],
        "declarer": declarer,
        "leader": row["play_seats"][0],
        "hands": hands,
        "joker_suit": row["joker_suit"],
    }


@dataclass(frozen=True)
class DDChunk:
    """One part's deals: ``key`` is the part's index; ``rows`` the log rows (:data:`LOG_COLUMNS`)."""

    key: int
    rules: Rules
    rows: tuple[dict[str, Any], ...]


def solve_chunk(chunk: DDChunk) -> bytes:
    """The part file's bytes of a chunk: each deal's DD tricks at the opening lead (a Ray task)."""
    cols: dict[str, list[Any]] = {f.name: [] for f in SIDECAR_SCHEMA}
    for row in chunk.rows:
        f = opening_fields(row)
        try:
            pos = Position.from_fields(chunk.rules, **f)
        except ValueError as exc:
            raise AnalysisError(f"deal {row['deal_id']}: no DD position from the log ({exc})") from None
        cols["deal_id"].append(row["deal_id"])
        cols["seed"].append(row["seed"])
        cols["contract"].append(row["contract"])
        cols["declarer"].append(row["declarer"])
        cols["leader"].append(f["leader"])
        cols["dd_tricks"].append(dd_tricks(pos))
        cols["dd_version"].append(DD_VERSION)
    return encode_parquet(pa.table(cols, schema=SIDECAR_SCHEMA))


def _read_part(data: bytes | None, ids: list[int], seeds: list[int], version: str) -> pa.Table | None:
    """A part's table when its deal ids, seeds and version are the ones wanted, else None (missing,
    torn or stale)."""
    if data is None:
        return None
    try:
        t = pq.read_table(io.BytesIO(data))
    except (pa.ArrowInvalid, OSError):
        return None
    if not {"deal_id", "seed", "dd_version"} <= set(t.column_names):
        return None
    if (
        t.column("deal_id").to_pylist() == ids
        and t.column("seed").to_pylist() == seeds
        and set(t.column("dd_version").to_pylist()) == {version}
    ):
        return t
    return None


#: The per-deal frame's columns (:func:`~pipelines.analysis.frame.deal_exprs`) the DD sidecars and
#: tables read of the sampled deals.
ROW_COLUMNS = (
    "deal_id",
    "game_id",
    "hand_no",
    "seed",
    "dealer",
    "strategies",
    "contract",
    "declarer",
    "dtricks",
    "is_mis",
    "crank",
    "level",
    "level_n",
    "made",
    "dteam",
    "dstrategy",
)


def row_exprs(frame: Frame) -> list[pl.Expr]:
    """The expressions of :data:`ROW_COLUMNS` over the run's deal log."""
    return [
        e for e in deal_exprs(frame.run, frame.players, frame.teams) if e.meta.output_name() in ROW_COLUMNS
    ]


def dd_rows(
    frame: Frame, cut: int | None = None, sample: int | None = None, ids: pl.Series | None = None
) -> pl.DataFrame:
    """The per-deal rows (:data:`ROW_COLUMNS` and ``sample_key``) of the run's sampled deals in sample
    order: with ``sample``, the first ``sample`` deals (and any deal tied with the last one's key);
    else those whose :func:`sample_key` is at most ``cut`` (every deal when ``None``); only the deals
    ``ids`` when given.  Read chunk by chunk (:func:`~pipelines.analysis.frame.chunks`): what is held
    at once is one chunk and the sampled rows (for a sample; every deal's otherwise: the analysis
    itself reads every deal's rows in batches, :func:`row_batches`)."""
    from fivehundred.pipelines.analysis import frame as framemod

    exprs = row_exprs(frame)
    kept: list[pl.DataFrame] = []
    for lf in framemod.chunks(frame.run, framemod.CHUNK_ROWS):
        if ids is not None:
            lf = lf.filter(pl.col("deal_id").is_in(ids.implode()))
        d = sample_order(lf.select(exprs).collect(engine="streaming"), cut)
        if sample is not None:  # the first `sample` so far, ties with the last included
            d = pl.concat([*kept, d]).sort("sample_key", "deal_id")
            if d.height > sample:
                d = d.filter(pl.col("sample_key") <= d["sample_key"][sample - 1])
            kept = [d]
        else:
            kept.append(d)
    assert kept, "a run has part files (open_run refuses an empty log)"
    return pl.concat(kept).sort("sample_key", "deal_id")


def sampled_ids(frame: Frame, cut: int | None = None, rows: pl.DataFrame | None = None) -> pl.DataFrame:
    """``deal_id``, ``seed``, ``contract`` and ``sample_key`` of the run's sampled deals (those whose
    :func:`sample_key` is at most ``cut``; all deals when ``None``), in sample order, with or without
    a contract (of ``rows``, :func:`dd_rows`, when given; else read chunk by chunk, these four
    columns only: about 25 bytes a deal are held)."""
    from fivehundred.pipelines.analysis import frame as framemod

    if rows is None:
        parts = [
            sample_order(lf.select("deal_id", "seed", "contract").collect(engine="streaming"), cut)
            for lf in framemod.chunks(frame.run, framemod.CHUNK_ROWS)
        ]
        rows = pl.concat(parts).sort("sample_key", "deal_id")
    return rows.select("deal_id", "seed", "contract", "sample_key")


def sample_order_ids(frame: Frame, cut: int | None = None, contracts_only: bool = False) -> pl.DataFrame:
    """``deal_id`` and ``seed`` of the run's deals (those with a contract when ``contracts_only``)
    whose :func:`sample_key` is at most ``cut`` (all when None), in sample order (ties by
    ``deal_id``), as :func:`sampled_ids` gives them: read chunk by chunk, three columns, and sorted
    as arrays (24 bytes a deal, 32 while sorting; 16 returned)."""
    from fivehundred.pipelines.analysis import frame as framemod

    ids, seeds, keys = [], [], []
    for lf in framemod.chunks(frame.run, framemod.CHUNK_ROWS):
        d = lf.select("deal_id", "seed", "contract").collect(engine="streaming")
        if contracts_only:
            d = d.filter(pl.col("contract").is_not_null())
        k = np.fromiter((sample_key(v) for v in d["seed"].to_list()), dtype=np.uint64, count=d.height)
        keep = slice(None) if cut is None else k <= cut
        keys.append(k[keep])
        ids.append(d["deal_id"].to_numpy()[keep])
        seeds.append(d["seed"].to_numpy()[keep])
    key = np.concatenate(keys)
    del keys
    all_ids = np.concatenate(ids)
    del ids
    idx = np.lexsort((all_ids, key))
    del key
    deal_ids = all_ids[idx]
    del all_ids
    ordered_seeds = np.concatenate(seeds)[idx]
    del seeds, idx
    schema = {"deal_id": pl.Int64, "seed": pl.UInt64}
    return pl.DataFrame({"deal_id": deal_ids, "seed": ordered_seeds}, schema=schema)


def sample_cut(frame: Frame, sample: int, rows: pl.DataFrame | None = None) -> int:
    """The key of the ``sample``-th deal of ``frame`` in sample order (its last deal's when the run
    is shorter): the first run's sample size becomes the key every run samples up to (of ``rows``,
    :func:`dd_rows` with this ``sample``, when given)."""
    keys = (dd_rows(frame, sample=sample) if rows is None else rows)["sample_key"]
    return int(keys[min(sample, keys.len()) - 1]) if keys.len() else 0


@dataclass(frozen=True)
class SidecarKind:
    """What a per-deal sidecar of the run holds: its folder, version (the ``dd_version`` column),
    schema, the log columns its tasks read, whether only deals with a contract are solved, the task
    (a module-level function: chunk -> the part's bytes) and the deals per part."""

    folder: str
    version: str
    schema: pa.Schema
    log_columns: tuple[str, ...]
    contracts_only: bool
    task: Callable[[DDChunk], bytes]
    chunk_deals: int


def log_rows(run: Any, ids: pl.Series, columns: Sequence[str]) -> pl.DataFrame:
    """The log's ``columns`` of the deals ``ids`` (one filtered scan of the run's log)."""
    return run.scan.filter(pl.col("deal_id").is_in(ids.implode())).select(columns).collect(engine="streaming")


#: Deals whose log rows (hands, kitty, ...) are read at once to build the tasks of the parts to solve.
SOLVE_WINDOW_DEALS = 50_000
#: Parts whose kept columns are gathered into one table at a time (the rest are already joined).
_COMPACT_PARTS = 1024


class _Kept:
    """The kept columns of a sidecar's parts, gathered as they come (in any order) into few tables."""

    def __init__(self, columns: Sequence[str] | None) -> None:
        self.columns = None if columns is None else list(columns)
        self.pending: list[pa.Table] = []
        self.joined: list[pa.Table] = []

    def add(self, table: pa.Table) -> None:
        self.pending.append(table if self.columns is None else table.select(self.columns))
        if len(self.pending) >= _COMPACT_PARTS:
            self.joined.append(pa.concat_tables(self.pending).combine_chunks())
            self.pending = []

    def frame(self, schema: pa.Schema) -> pl.DataFrame:
        tables = [*self.joined, *self.pending]
        if not tables:
            empty = schema.empty_table()
            tables = [empty if self.columns is None else empty.select(self.columns)]
        df = pl.from_arrow(pa.concat_tables(tables))
        assert isinstance(df, pl.DataFrame)
        return df.sort("deal_id")


def dd_sidecar(
    frame: Frame,
    rules: Rules,
    workers: int | None = 0,
    address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    cut: int | None = None,
    kind: SidecarKind | None = None,
    rows: pl.DataFrame | None = None,
    columns: Sequence[str] | None = None,
    notice: Callable[[str], None] | None = None,
) -> pl.DataFrame:
    """The run's DD sidecar (computed where missing or stale, else read), one row per deal with a
        contract (of the sampled deals up to the key ``cut``, :func:`sampled_ids`; of every deal when
        ``None``), in ``deal_id`` order; another sidecar with ``kind`` (the par sidecar,
        :func:`pipelines.analysis.ddpar.par_kind`).  ``rows``: the sampled deals' :func:`dd_rows` (or
        :func:`sampled_ids`) when already read; ``columns``: the sidecar's columns to return (all when
        None; ``deal_id`` among them); ``notice``: told once when the sidecar cannot be written
    (:func:`sidecar_parts`).

        Parts hold the deals in sample order, :attr:`SidecarKind.chunk_deals` each; a part whose deal
        ids, seeds and version match is reused, parts beyond the request are removed.  Each part is read
        (or solved) and reduced to ``columns`` in turn, and the log rows of the parts to solve are read
        :data:`SOLVE_WINDOW_DEALS` deals at a time.  ``workers`` 0: in this process; otherwise on Ray
        (``None``: all cores, or ``address``'s cluster).  ``progress(parts done, parts)`` is called after
        each part.
    """
    if kind is None:
        kind = SidecarKind(DD_DIR, DD_VERSION, SIDECAR_SCHEMA, LOG_COLUMNS, True, solve_chunk, CHUNK_DEALS)
    run = frame.run
    if rows is None:
        order = sample_order_ids(frame, cut, kind.contracts_only)
    else:
        order = sampled_ids(frame, cut, rows)
        if kind.contracts_only:
            order = order.filter(pl.col("contract").is_not_null())
        order = order.select("deal_id", "seed")
    size = kind.chunk_deals

    def key_of(i: int) -> tuple[list[int], list[int]]:
        part = order.slice(i * size, size)
        return part["deal_id"].to_list(), part["seed"].to_list()

    def chunks_of(todo: Sequence[int]) -> Iterator[DDChunk]:
        step = max(1, SOLVE_WINDOW_DEALS // size)
        for w in range(0, len(todo), step):
            window = todo[w : w + step]
            want = pl.concat(
                order.slice(i * size, size).select("deal_id", pl.lit(i, dtype=pl.Int64).alias("_part"))
                for i in window
            )
            picked = want.join(
                log_rows(run, want["deal_id"], kind.log_columns),
                on="deal_id",
                how="left",
                maintain_order="left",
            )
            for (i,), rows_i in picked.partition_by("_part", as_dict=True, maintain_order=True).items():
                yield DDChunk(int(i), rules, tuple(rows_i.drop("_part").to_dicts()))

    kept = _Kept(columns)
    sidecar_parts(
        run.log.dir,
        kind.folder,
        -(-order.height // size),
        key_of,
        chunks_of,
        kind.version,
        kind.task,
        workers,
        address,
        progress,
        lambda _i, table: kept.add(table),
        notice,
    )
    return kept.frame(kind.schema)


def sidecar_parts(
    rundir: Any,
    folder: str,
    count: int,
    key_of: Callable[[int], tuple[list[int], list[int]]],
    chunks_of: Callable[[Sequence[int]], Iterable[Any]],
    version: str,
    task: Callable[[Any], bytes],
    workers: int | None,
    address: str | None,
    progress: Callable[[int, int], None] | None = None,
    keep: Callable[[int, pa.Table], None] | None = None,
    notice: Callable[[str], None] | None = None,
) -> list[pa.Table]:
    """Every part ``0 .. count-1`` of a per-deal sidecar ``RUN/<folder>/`` (:func:`part_name`), each
    computed where missing or stale, else read: part ``i`` must hold the ``deal_id`` and ``seed``
    lists ``key_of(i)`` and ``version`` in its ``dd_version`` column to be reused.  The parts to
    compute are the chunks ``chunks_of(indices)`` (built as they are taken; chunk ``i`` has ``key``
    ``i``), each ``task(chunk)`` giving the part's bytes (in this process when ``workers`` is 0 and
    ``address`` None, else a Ray task), written atomically when it comes back; parts beyond the last
    are removed; ``progress(parts done, parts)`` after each part computed.

    Each part's table goes to ``keep(index, table)`` as it is read or computed (reused parts in
    order, then the computed ones as they come) and nothing is returned; without ``keep`` the tables
    are returned in part order.  A folder that cannot be written (a read-only run, a full disk) caches
    nothing: the parts are kept in memory only, and ``notice`` is told once, in one line, why."""
    tables: list[pa.Table | None] = [None] * (0 if keep else count)
    todo: list[int] = []
    for i in range(count):
        t = _read_part(rundir.read(part_name(i, folder)), *key_of(i), version)
        if t is None:
            todo.append(i)
        elif keep is not None:
            keep(i, t)
        else:
            tables[i] = t
    wanted = {part_name(i, folder) for i in range(count)}
    unsaved: list[str] = []

    def unwritable(exc: OSError) -> None:
        if not unsaved and notice is not None:
            why = str(exc) if isinstance(exc, StorageError) else f"{rundir.display}/{folder}: {exc}"
            notice(f"{why}: nothing cached there, the results are kept in memory for this analysis only")
        unsaved.append(folder)

    for rel in rundir.files(folder):  # parts of an earlier, longer log or sample
        if rel not in wanted:
            try:
                rundir.delete(rel)
            except OSError as exc:
                unwritable(exc)
    done = count - len(todo)
    if todo:
        for key, data in _solve(chunks_of(todo), workers, address, task):
            if not unsaved:
                try:
                    rundir.write(part_name(key, folder), data)
                except OSError as exc:
                    unwritable(exc)
            t = pq.read_table(io.BytesIO(data))
            if keep is not None:
                keep(key, t)
            else:
                tables[key] = t
            done += 1
            if progress is not None:
                progress(done, count)
    assert keep is not None or all(t is not None for t in tables)
    return [t for t in tables if t is not None]


def _solve(
    todo: Iterable[Any], workers: int | None, address: str | None, task: Callable[[Any], bytes]
) -> Iterator[tuple[int, bytes]]:
    from fivehundred.pipelines.chunks import RayPool, run_chunks

    if workers == 0 and address is None:
        for done in run_chunks(todo, None, task=task):
            yield done.chunk.key, done.table
        return
    with RayPool(workers=workers, address=address, task=task) as pool:
        with closing(run_chunks(todo, pool, task=task)) as stream:
            for done in stream:
                yield done.chunk.key, done.table


# ------------------------------------------------------------------------------------------ tables

#: Columns of the rate tables (dd_success, dd_by_level, dd_misere).
RATE_COLUMNS = (
    "n",
    "made",
    "success_rate",
    "success_lo",
    "success_hi",
    "dd_made",
    "dd_rate",
    "dd_lo",
    "dd_hi",
    "made_not_dd",
    "dd_not_made",
)
_COUNTS = ("n", "made", "dd_made", "made_not_dd", "dd_not_made")
#: The sums over the clusters (games) of a cluster-robust mean (:func:`intervals.cluster_sums`).
CLUSTER_SUMS = ("G", "a", "b", "syy", "sym", "smm")
#: The DD tables' partial aggregates of a chunk of whole games (:func:`dd_partials`): each one's key
#: columns and how its value columns merge (:func:`~pipelines.analysis.batches.merge`).
DD_AGGREGATES: Spec = {
    "dd_rates": (("contract", "crank", "level", "is_mis"), dict.fromkeys(_COUNTS, "sum")),
    "dd_gain": (("role", "strategy"), dict.fromkeys((*CLUSTER_SUMS, "below", "above"), "sum")),
    "dd_counts": ((), {"sampled": "sum"}),
}
#: The pairing of a compared run with the base over a chunk: pairs per (metric, base value, run value).
DD_PAIR_AGGREGATES: Spec = {"dd_pair": (("metric", "a", "b"), {"_c": "sum"})}
#: Deals of one run (at most, plus one game) in a chunk of the DD tables' pass over every deal.
DD_BATCH_ROWS = 200_000


def id_slice(table: pl.DataFrame, rows: pl.DataFrame) -> pl.DataFrame:
    """The rows of ``table`` (sorted by ``deal_id``) within the deal-id range of ``rows``."""
    if rows.height == 0:
        return table.clear()
    ids = table["deal_id"]
    lo = ids.search_sorted(rows["deal_id"].min(), "left")
    hi = ids.search_sorted(rows["deal_id"].max(), "right")
    return table.slice(lo, hi - lo)


def row_batches(
    frames: Sequence[Frame], rows: Sequence[pl.DataFrame] | None = None
) -> Iterator[list[pl.DataFrame | None]]:
    """Each run's sampled deals (:data:`ROW_COLUMNS`) in chunks of whole games, the same game ids of
    every run in one chunk (None: the run has none there): a sample's ``rows`` (held) as one chunk;
    every deal (``rows`` None) read in ranges of game ids of at most about :data:`DD_BATCH_ROWS`
    deals of a run (:func:`~pipelines.analysis.batches.plan_batches`), one range at a time."""
    if rows is not None:
        yield list(rows)
        return
    shapes = [(f.players, f.teams) for f in frames]
    plan = plan_batches([f.run for f in frames], shapes, [False] * len(frames), DD_BATCH_ROWS)
    exprs = [row_exprs(f) for f in frames]
    for b in plan:
        out: list[pl.DataFrame | None] = []
        for src, ex in zip(b.sources, exprs, strict=True):
            if src is None:
                out.append(None)
                continue
            lf = src.run.log.scan(list(src.files))
            if src.filtered:
                lf = lf.filter((pl.col("game_id") >= b.lo) & (pl.col("game_id") < b.hi))
            out.append(lf.select(ex).collect(engine="streaming"))
        yield out


def _dd_ok() -> pl.Expr:
    return (
        pl.when(pl.col("is_mis"))
        .then(pl.col("dd_tricks") == 0)
        .otherwise(pl.col("dd_tricks") >= pl.col("level_n"))
    )


def dd_partials(rows: pl.DataFrame, sidecar: pl.DataFrame, teams: int) -> Partial:
    """The partial aggregates (:data:`DD_AGGREGATES`) of a chunk of a run's sampled deals (whole
    games) and its DD sidecar: per contract the deals played, made, DD-makeable and the discordant
    pairs; per role and strategy the trick gain's sums over the chunk's games; the deals sampled."""
    d = rows.filter(pl.col("contract").is_not_null()).join(
        id_slice(sidecar, rows).select("deal_id", "dd_tricks"), on="deal_id", how="inner"
    )
    made, dd = pl.col("made"), _dd_ok()
    i64 = pl.Int64
    rates = d.group_by("contract", "crank", "level", "is_mis").agg(
        pl.len().cast(i64).alias("n"),
        made.sum().cast(i64).alias("made"),
        dd.sum().cast(i64).alias("dd_made"),
        (made & ~dd).sum().cast(i64).alias("made_not_dd"),
        (~made & dd).sum().cast(i64).alias("dd_not_made"),
    )
    return {
        "dd_rates": rates,
        "dd_gain": _gain_sums(d.filter(~pl.col("is_mis")), teams),
        "dd_counts": pl.DataFrame({"sampled": [rows.height]}, schema={"sampled": i64}),
    }


def cluster_exprs(y: pl.Expr, m: pl.Expr) -> list[pl.Expr]:
    """The :data:`CLUSTER_SUMS` of per-cluster sums ``y`` over ``m`` observations (integer columns)."""
    y, m = y.cast(pl.Int64), m.cast(pl.Int64)
    return [
        pl.len().cast(pl.Int64).alias("G"),
        y.sum().alias("a"),
        m.sum().alias("b"),
        (y * y).sum().alias("syy"),
        (y * m).sum().alias("sym"),
        (m * m).sum().alias("smm"),
    ]


def _gain_sums(d: pl.DataFrame, teams: int) -> pl.DataFrame:
    """Per role and strategy, the trick gain's cluster sums over the games of ``d`` (suit and NT
    deals with their DD tricks; whole games) and its deals below and above DD play."""
    seats = (
        d.select("deal_id", "dteam", "strategies")
        .with_columns(pl.int_ranges(0, pl.col("strategies").list.len()).alias("seat"))
        .explode("strategies", "seat")
        .filter(pl.col("seat") % teams != pl.col("dteam"))
        .group_by("deal_id")
        .agg(pl.col("strategies").unique().sort().str.join("+").alias("defence"))
    )
    d = d.join(seats, on="deal_id", how="left")
    diff = pl.col("dtricks").cast(pl.Int64) - pl.col("dd_tricks").cast(pl.Int64)
    both = pl.concat(
        d.select(
            "game_id", pl.lit(role).alias("role"), pl.col(who).alias("strategy"), (sign * diff).alias("g")
        )
        for role, who, sign in (("declarer", "dstrategy", 1), ("defence", "defence", -1))
    )
    per_game = both.group_by("role", "strategy", "game_id").agg(
        pl.col("g").sum().alias("y"),
        pl.len().alias("m"),
        (pl.col("g") < 0).sum().alias("below"),
        (pl.col("g") > 0).sum().alias("above"),
    )
    return per_game.group_by("role", "strategy").agg(
        *cluster_exprs(pl.col("y"), pl.col("m")),
        pl.col("below").cast(pl.Int64).sum(),
        pl.col("above").cast(pl.Int64).sum(),
    )


def _pair_partials(base: pl.DataFrame, other: pl.DataFrame) -> tuple[Partial, int]:
    """The pairs of a chunk (:data:`DD_PAIR_AGGREGATES`) of two runs' :func:`dd_sampled_deals`, and
    how many pairs are not the same deal (seed or dealer differ)."""
    joined = base.join(other, on=["game_id", "hand_no"], how="inner", suffix="_o")
    bad = joined.filter((pl.col("seed") != pl.col("seed_o")) | (pl.col("dealer") != pl.col("dealer_o")))
    hist = pl.concat(
        [
            _joint(joined.filter(pl.col(m).is_not_null() & pl.col(f"{m}_o").is_not_null()), [m])
            for m, _ in DD_EFFECTS
        ]
    )
    return {"dd_pair": hist}, bad.height


def dd_pass(
    frames: Sequence[Frame], sidecars: Sequence[pl.DataFrame], rows: Sequence[pl.DataFrame] | None = None
) -> tuple[list[Partial], list[Partial | None]]:
    """Each run's merged :data:`DD_AGGREGATES` and, for a run after the first on its table, its
    merged pairing with the first (:data:`DD_PAIR_AGGREGATES`), over :func:`row_batches` (``rows``:
    a sample's deals, held; None: every deal, in batches).  One-line error when paired deals differ."""
    pairable = [False] + [unpairable(frames[0], f) is None for f in frames[1:]]
    merged: list[Partial | None] = [None] * len(frames)
    pairs: list[Partial | None] = [None] * len(frames)
    for chunk in row_batches(frames, rows):
        base = None
        if chunk[0] is not None and any(pairable):
            base = dd_sampled_deals(id_slice(sidecars[0], chunk[0]), chunk[0])
        for i, (f, r, side) in enumerate(zip(frames, chunk, sidecars, strict=True)):
            if r is None:
                continue
            merged[i] = merge(merged[i], dd_partials(r, side, f.teams), DD_AGGREGATES)
            if pairable[i] and base is not None:
                part, bad = _pair_partials(base, dd_sampled_deals(id_slice(side, r), r))
                if bad:
                    raise AnalysisError(
                        f"runs {frames[0].run.path} and {f.run.path}: the DD samples cannot be paired "
                        "(the deals differ: different master seeds?)"
                    )
                pairs[i] = merge(pairs[i], part, DD_PAIR_AGGREGATES)
    done = [finish(m, DD_AGGREGATES) for m in merged]
    assert all(m is not None for m in done), "every run has deals (open_run refuses an empty log)"
    return [m for m in done if m is not None], [finish(p, DD_PAIR_AGGREGATES) for p in pairs]


def _rates(frame: Frame, counts: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    g = counts.group_by(keys).agg(pl.col(c).sum() for c in _COUNTS)
    g = g.with_columns(
        *wilson(pl.col("made"), pl.col("n"), "success"),
        *wilson(pl.col("dd_made"), pl.col("n"), "dd"),
        *frame.run_columns(),
    )
    return g.select("run_id", "variant", *keys, *RATE_COLUMNS)


def _empty(keys: dict[str, pl.DataType]) -> pl.DataFrame:
    schema: dict[str, Any] = {"run_id": pl.String, "variant": pl.String, **keys}
    for c in RATE_COLUMNS:
        schema[c] = pl.Int64 if c in _COUNTS else pl.Float64
    return pl.DataFrame(schema=schema)


def dd_success(frames: Sequence[Frame], merged: Sequence[Partial]) -> pl.DataFrame:
    """Per suit and NT contract: success as played beside success under DD play (the same deals)."""
    keys = {"contract": pl.String, "crank": pl.Int16}
    out = [
        _rates(f, m["dd_rates"].filter(~pl.col("is_mis")), list(keys)).sort("crank")
        for f, m in zip(frames, merged, strict=True)
    ]
    return pl.concat([_empty(keys), *out], how="vertical_relaxed")


def dd_by_level(frames: Sequence[Frame], merged: Sequence[Partial]) -> pl.DataFrame:
    """Per bid level 6..10: how often the contract bid is DD-makeable (and was made as played)."""
    order = {v: i for i, v in enumerate(LEVEL_ORDER)}
    out = []
    for f, m in zip(frames, merged, strict=True):
        t = _rates(f, m["dd_rates"].filter(~pl.col("is_mis")), ["level"])
        t = t.with_columns(pl.col("level").replace_strict(order, return_dtype=pl.Int16).alias("order"))
        out.append(t.sort("order").drop("order"))
    return pl.concat([_empty({"level": pl.String}), *out], how="vertical_relaxed")


def dd_misere(frames: Sequence[Frame], merged: Sequence[Partial]) -> pl.DataFrame:
    """Per misère contract: made as played beside DD-viable (the declarer can avoid every trick)."""
    keys = {"contract": pl.String, "crank": pl.Int16}
    out = [
        _rates(f, m["dd_rates"].filter(pl.col("is_mis")), list(keys)).sort("crank")
        for f, m in zip(frames, merged, strict=True)
    ]
    return pl.concat([_empty(keys), *out], how="vertical_relaxed")


GAIN_SCHEMA: dict[str, Any] = {
    "run_id": pl.String,
    "variant": pl.String,
    "role": pl.String,
    "strategy": pl.String,
    "n": pl.Int64,
    "games": pl.Int64,
    "below_dd": pl.Int64,
    "above_dd": pl.Int64,
    "gain_mean": pl.Float64,
    "gain_lo": pl.Float64,
    "gain_hi": pl.Float64,
    "gain_se": pl.Float64,
}


def dd_trick_gain(frames: Sequence[Frame], merged: Sequence[Partial]) -> pl.DataFrame:
    """Tricks each strategy gains (+) or loses (-) against DD play, as declarer and as defence.

    Suit and NT deals.  As declarer: the declaring side's tricks minus its DD tricks; as defence: the
    DD tricks minus the declaring side's tricks, credited to the defenders' strategies (sorted, joined
    with ``+``).  Each deal's difference is the net of both sides' departures from DD play.  The mean's
    interval is cluster-robust by game (docs/statistics.md), from the merged sums over the games.
    """
    rows: dict[str, list[Any]] = {k: [] for k in GAIN_SCHEMA}
    for f, m in zip(frames, merged, strict=True):
        for r in sorted(m["dd_gain"].iter_rows(named=True), key=lambda r: (r["role"], r["strategy"])):
            mean, lo, hi, se, games = cluster_sums(*(int(r[c]) for c in CLUSTER_SUMS))
            for k, v in (
                ("run_id", f.run.run_id),
                ("variant", f.run.variant),
                ("role", r["role"]),
                ("strategy", r["strategy"]),
                ("n", int(r["b"])),
                ("games", games),
                ("below_dd", int(r["below"])),
                ("above_dd", int(r["above"])),
                ("gain_mean", mean),
                ("gain_lo", lo),
                ("gain_hi", hi),
                ("gain_se", se),
            ):
                rows[k].append(None if isinstance(v, float) and v != v else v)  # nan -> null
    return pl.DataFrame(rows, schema=GAIN_SCHEMA)


SAMPLE_SCHEMA: dict[str, Any] = {
    "run_id": pl.String,
    "variant": pl.String,
    **dict.fromkeys(("deals", "sample", "sampled", "solved"), pl.Int64),
}


def dd_sample_table(
    frames: Sequence[Frame],
    sidecars: Sequence[pl.DataFrame],
    sample: int | None,
    merged: Sequence[Partial],
) -> pl.DataFrame:
    """``dd_sample``: per run, its deals, the sample asked for (null: every deal), the deals sampled
    (up to the first run's ``sample``-th key) and the contracts among them solved (the ``n``
    every other ``dd_`` table is a part of); ``merged``: each run's :func:`dd_pass` aggregates."""
    out: dict[str, list[Any]] = {k: [] for k in SAMPLE_SCHEMA}
    for f, side, m in zip(frames, sidecars, merged, strict=True):
        for k, v in (
            ("run_id", f.run.run_id),
            ("variant", f.run.variant),
            ("deals", f.count("deals")),
            ("sample", sample),
            ("sampled", int(m["dd_counts"]["sampled"][0])),
            ("solved", side.height),
        ):
            out[k].append(v)
    return pl.DataFrame(out, schema=SAMPLE_SCHEMA)


def dd_tables(
    frames: Sequence[Frame],
    sidecars: Sequence[pl.DataFrame],
    rows: Sequence[pl.DataFrame] | None = None,
    sample: int | None = None,
) -> dict[str, pl.DataFrame]:
    """The ``dd_`` tables of the runs' frames and their DD sidecars (``deal_id`` and ``dd_tricks``
    at least), from one :func:`dd_pass` over the sampled deals: ``rows`` (:func:`dd_rows`) for a
    sample, every deal of the log in batches when None; ``sample`` is the ``--dd-sample`` the
    sidecars were solved for (``None``: every deal)."""
    merged, pairs = dd_pass(frames, sidecars, rows)
    out = {"dd_sample": dd_sample_table(frames, sidecars, sample, merged)}
    if len(frames) > 1:
        own = [int(m["dd_counts"]["sampled"][0]) for m in merged]
        out["dd_variant_effects"] = dd_variant_effects(frames, pairs, own)
    return out | {
        "dd_success": dd_success(frames, merged),
        "dd_by_level": dd_by_level(frames, merged),
        "dd_misere": dd_misere(frames, merged),
        "dd_trick_gain": dd_trick_gain(frames, merged),
    }


# ------------------------------------------------------------------------ paired effects (runs 2..)

#: The paired DD effects of a compared run, per deal of the sampled deals both runs played (1/0):
#: the metric and what it is in words.  ``dd_rate``/``dd_misere_rate`` are over the pairs where both
#: runs played a suit or NT contract (a misère) only.
DD_EFFECTS: tuple[tuple[str, str], ...] = (
    ("dd_makeable", "deals with a DD-makeable suit or NT contract"),
    ("dd_defeated", "deals with a suit or NT contract DD play defeats"),
    ("dd_rate", "DD-makeable share of the suit and NT contracts bid"),
    ("dd_misere_viable", "deals with a DD-viable misère"),
    ("dd_misere_doomed", "deals with a misère DD play defeats"),
    ("dd_misere_rate", "DD-viable share of the misères bid"),
)
_CONDITIONAL = {"dd_rate": "dd_suit", "dd_misere_rate": "dd_mis"}


def dd_sampled_deals(sidecar: pl.DataFrame, rows: pl.DataFrame) -> pl.DataFrame:
    """Per sampled deal (``rows``, :func:`dd_rows`; with or without a contract), keyed by (``game_id``,
    ``hand_no``): the 0/1 metrics of :data:`DD_EFFECTS` (null where a conditional one does not
    apply), ``seed`` and ``dealer`` (to check the pairing)."""
    d = rows.join(sidecar.select("deal_id", "dd_tricks"), on="deal_id", how="left")
    has = pl.col("contract").is_not_null()
    suit = has & ~pl.col("is_mis").fill_null(False)
    mis = has & pl.col("is_mis").fill_null(False)
    ok = pl.when(mis).then(pl.col("dd_tricks") == 0).otherwise(pl.col("dd_tricks") >= pl.col("level_n"))
    return d.select(
        "game_id",
        "hand_no",
        "seed",
        "dealer",
        (suit & ok).fill_null(False).cast(pl.Int8).alias("dd_makeable"),
        (suit & ~ok).fill_null(False).cast(pl.Int8).alias("dd_defeated"),
        pl.when(suit).then(ok.cast(pl.Int8)).alias("dd_rate"),
        (mis & ok).fill_null(False).cast(pl.Int8).alias("dd_misere_viable"),
        (mis & ~ok).fill_null(False).cast(pl.Int8).alias("dd_misere_doomed"),
        pl.when(mis).then(ok.cast(pl.Int8)).alias("dd_misere_rate"),
    ).sort("game_id", "hand_no")


def dd_variant_effects(
    frames: Sequence[Frame], pairs: Sequence[Partial | None], own: Sequence[int]
) -> pl.DataFrame:
    """``dd_variant_effects``: for runs 2.. on the first run's table, each :data:`DD_EFFECTS` metric's
    paired difference (run − base) over the sampled deals both runs played (the conditional rates:
    over the pairs where both played such a contract), with the columns and intervals of
    ``variant_effects`` and Holm's adjustment within each run; from the merged pairs of
    :func:`dd_pass` and each run's number of sampled deals ``own``."""
    from fivehundred.pipelines.analysis.multiplicity import with_adjusted
    from fivehundred.pipelines.analysis.variants import EFFECT_COLUMNS, _paired_rows

    base = frames[0]
    rows: list[dict[str, Any]] = []
    for other, pair, n_other in zip(frames[1:], pairs[1:], own[1:], strict=True):
        if unpairable(base, other) is not None or pair is None:
            continue
        key = (base.run.run_id, other.run.run_id, "dd")
        for m, _ in DD_EFFECTS:
            hist = pair["dd_pair"].filter(pl.col("metric") == m)
            if int(hist["_c"].sum()) == 0:
                continue
            for r in _paired_rows(hist, [m], "deal", "dd_effects", key, (own[0], n_other)):
                r.update(
                    base_run=base.run.run_id,
                    run_id=other.run.run_id,
                    base_variant=base.run.variant,
                    variant=other.run.variant,
                )
                rows.append(r)
    columns = [c for c in EFFECT_COLUMNS if c not in ("base_lineup", "lineup")]  # tidy.finish adds them
    schema: dict[str, Any] = {c: pl.Float64 for c in columns if c not in ("p_holm", "holm_significant")}
    schema.update({c: pl.String for c in columns[: columns.index("method") + 1]})
    schema.update({c: pl.Int64 for c in ("base_n", "run_n", "paired_n")})
    df = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
    df = with_adjusted(
        df.fill_nan(None), "p_value", "p_holm", "holm", ["base_run", "run_id"], "holm_significant"
    )
    return df.select(columns)
