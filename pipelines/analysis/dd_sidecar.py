"""The per-deal DD sidecars of a run (docs/dd.md): ``RUN/dd/`` (the contract as played) and ``RUN/dd_par/``.

For every deal with a contract, :func:`opening_fields` builds the position at the opening lead from the
facts the engine logged (the declarer's hand as dealt plus the kitty minus its ``discards``, the
sitting-out partners' hands empty, the first seat of ``play_seats`` to lead, ``joker_suit`` as the
declarer named it) and :func:`sim.dd.dd_tricks` solves it (:func:`solve_chunk`).  The deals, in the
sample order of :mod:`~pipelines.analysis.dd_sample`, are cut into parts of :data:`CHUNK_DEALS`; each
part is one task (on Ray with the shared scheduler of :mod:`pipelines.scheduler`, or in this process) and
is written atomically as it comes back (:func:`sidecar_parts`), so an interrupted analysis resumes
where it stopped.  A part whose deal ids, seeds and version match the log is reused; the bytes depend
only on the log, never on the number of workers.  :func:`dd_sidecar` reads a run's sidecar part by
part, keeping only the columns asked for, and reads the log rows of the parts to solve a window at
a time (bounded memory).  Another sidecar (the par's) is a :class:`SidecarKind`.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from fivehundred.pipelines.analysis.dd_sample import (
    sample_order_ids,
    sampled_ids,
)
from fivehundred.pipelines.analysis.frame import Frame
from fivehundred.pipelines.analysis.io import AnalysisError
from fivehundred.pipelines.rundir import StorageError, encode_parquet
from fivehundred.sim.dd import Position, dd_tricks
from fivehundred.sim.rules import Rules

#: The sidecar's version: what a DD value means and how the position is built from the log.  The
#: solver is exact, so a faster solver keeps it; a change of definition bumps it (and re-solves).
DD_VERSION = "dd.v1"


#: Deals solved per task and per part file (fixed: the parts, and their bytes, do not depend on workers).
CHUNK_DEALS = 64


DD_DIR = "dd"


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


#: Deals whose log rows (hands, kitty, ...) are read at once to build the tasks of the parts to solve
#: (:func:`window_deals`): the driver's memory follows the window (about 3.4 KB a deal of it), not the
#: run (docs/dd.md), and each window is one filtered scan of the whole log (about 0.05 s per 100,000
#: deals of log), so on a very large log the window grows to keep the scans few.
SOLVE_WINDOW_DEALS = 4_096
#: The most scans of the log one sidecar's windows make (unless the window is already the largest).
SOLVE_WINDOW_SCANS = 100
#: The largest window (about 170 MB of rows in the driver).
SOLVE_WINDOW_MAX = 50_000


def window_deals(log_deals: int) -> int:
    """Deals read per window on a log of ``log_deals`` deals: :data:`SOLVE_WINDOW_DEALS`, or enough
    that the windows make at most :data:`SOLVE_WINDOW_SCANS` scans of the log, up to
    :data:`SOLVE_WINDOW_MAX` (a million deals: 10,000; ten million: 50,000)."""
    return min(SOLVE_WINDOW_MAX, max(SOLVE_WINDOW_DEALS, -(-log_deals // SOLVE_WINDOW_SCANS)))


#: Parts whose kept columns are gathered into one table at a time (the rest are already joined): a
#: part's table read back costs about 27 KB of buffers and metadata whatever its 16-64 rows, so few
#: are held at once (1,024 held 27 MB on a 100,000-deal par run).
_COMPACT_PARTS = 128


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
        :func:`window_deals` deals at a time.  ``workers`` 0: in this process; otherwise on Ray
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
        step = max(1, window_deals(frame.count("deals")) // size)
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
    from fivehundred.pipelines.raypool import RayPool
    from fivehundred.pipelines.scheduler import run_chunks

    if workers == 0 and address is None:
        for done in run_chunks(todo, None, task=task):
            yield done.chunk.key, done.table
        return
    with RayPool(workers=workers, address=address, task=task) as pool:
        with closing(run_chunks(todo, pool, task=task)) as stream:
            for done in stream:
                yield done.chunk.key, done.table
