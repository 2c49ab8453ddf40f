"""The finished batches of an analysis kept in the first run's folder, so that a killed ``analyze``
run again with the same command reuses them.

Each batch's partial aggregates (:func:`~pipelines.analysis.batches.batch_stats`: one
:data:`~pipelines.analysis.batches.Partial` per run, and the pairing sums of each run with the
first) are written, as they come back in batch order, to ``RUN/analysis_batches/<analysis>/`` as one
file per batch (atomically: a file is whole or absent).  Every name is a key:

* ``<analysis>`` is the hash of :data:`BATCHES_VERSION`, the source of the modules that make the
  partials, the package versions, and each run's path, run id, variant and seed, which runs are
  paired, and the batch size;
* a file ``batch-<index>-<hash>.parquet`` hashes the analysis key, the batch's game-id range and,
  per run, its part files there with their deal ids (lowest, highest, how many: the spans found when
  the log was checked), whether the rows are filtered to the range, and the table's shape.

So a file is reused only by the same analysis of the same logs (a run that grew, another batch size,
another set of runs, another code: other names, never read); merging reused and computed partials
in batch order gives the same bytes as an uninterrupted analysis.  The folder is removed once the
analysis has written its tables.  A run folder that cannot be written caches nothing (silently: the
analysis is then only not resumable).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from fivehundred.pipelines.runconfig import identity_hash
from fivehundred.pipelines.rundir import TMP_DIR, package_versions

if TYPE_CHECKING:
    from fivehundred.pipelines.analysis.batches import Batch, Partial, Result
    from fivehundred.pipelines.analysis.io import Run

#: What a cached batch holds and how it is keyed; a change of either bumps it.
BATCHES_VERSION = "batches.v1"
#: The folder, in the first run's directory, of every analysis's cached batches.
CACHE_DIR = "analysis_batches"
#: The modules whose code makes the partial aggregates (their source is part of the analysis key).
SOURCE_MODULES = ("batches", "bids", "features", "frame", "games", "misere", "strategies", "variants")
#: The Parquet metadata key holding a file's batch key (checked again when it is read).
KEY_META = b"fivehundred.batch"

_SCHEMA = pa.schema([("run", pa.int32()), ("kind", pa.string()), ("name", pa.string()), ("ipc", pa.binary())])
_KINDS = ("stats", "pair")


def _source_digest() -> str:
    """A hash of the source of :data:`SOURCE_MODULES` (a code change never reuses old partials)."""
    here = Path(__file__).resolve().parent
    blob = {name: (here / f"{name}.py").read_text() for name in SOURCE_MODULES}
    return identity_hash(blob)


def analysis_key(runs: Sequence[Run], paired: Sequence[bool], rows: int) -> str:
    """The key of one analysis's batches (the module docstring)."""
    return identity_hash(
        {
            "version": BATCHES_VERSION,
            "source": _source_digest(),
            "packages": package_versions(),
            "runs": [[r.path, r.run_id, r.variant, r.master_seed] for r in runs],
            "paired": list(paired),
            "rows": rows,
        }
    )


def batch_key(analysis: str, batch: Batch) -> str | None:
    """The key of one batch of the analysis ``analysis``; ``None`` when a part file's deal ids are not
    known (a run opened without them): such a batch is never cached."""
    sources: list[Any] = []
    for src in batch.sources:
        if src is None:
            sources.append(None)
            continue
        spans = {s.file: [s.lo, s.hi, s.rows] for s in src.run.spans}
        if any(f not in spans for f in src.files):
            return None
        files = [[f, *spans[f]] for f in src.files]
        sources.append({"files": files, "filtered": src.filtered, "shape": [src.players, src.teams]})
    return identity_hash({"analysis": analysis, "lo": batch.lo, "hi": batch.hi, "sources": sources})


def encode_result(key: str, result: Result) -> bytes:
    """A batch's result as the bytes of its cache file (each aggregate as Arrow IPC, exact dtypes)."""
    cols: dict[str, list[Any]] = {"run": [], "kind": [], "name": [], "ipc": []}
    for kind, partials in zip(_KINDS, result, strict=True):
        for i, partial in enumerate(partials):
            for name, df in (partial or {}).items():
                buf = io.BytesIO()
                df.write_ipc(buf, compression="uncompressed")
                cols["run"].append(i)
                cols["kind"].append(kind)
                cols["name"].append(name)
                cols["ipc"].append(buf.getvalue())
    table = pa.table(cols, schema=_SCHEMA).replace_schema_metadata({KEY_META: key.encode()})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def decode_result(data: bytes, key: str, runs: int) -> Result | None:
    """A cache file's result for ``runs`` runs, or ``None`` when it is unreadable or not ``key``'s."""
    try:
        table = pq.read_table(io.BytesIO(data))
        if (table.schema.metadata or {}).get(KEY_META) != key.encode():
            return None
        parts: list[Partial | None] = [None] * runs
        pairs: list[Partial | None] = [None] * runs
        for row in table.to_pylist():
            into = parts if row["kind"] == _KINDS[0] else pairs
            partial = into[row["run"]]
            if partial is None:
                partial = into[row["run"]] = {}
            partial[row["name"]] = pl.read_ipc(io.BytesIO(row["ipc"]))
    except (pa.ArrowException, pl.exceptions.PolarsError, OSError, KeyError, IndexError):
        return None
    return parts, pairs


class BatchCache:
    """The cached batches of one analysis, in the first run's directory (the module docstring).

    :meth:`open` keys it (called by :func:`~pipelines.analysis.batches.deal_frames` once the batches
    are planned); :meth:`clear` removes its folder once the tables are written.
    """

    def __init__(self, rundir: Any) -> None:
        self.rundir = rundir
        self.folder: str | None = None
        self.analysis = ""
        self.writable = True
        #: Whether the run's temporary folder (of atomic writes) was there before this cache wrote.
        self.had_tmp: bool | None = None

    def open(self, runs: Sequence[Run], paired: Sequence[bool], rows: int) -> None:
        """Key the cache for this analysis's batches."""
        self.analysis = analysis_key(runs, paired, rows)
        self.folder = f"{CACHE_DIR}/{self.analysis}"

    def _entry(self, batch: Batch) -> tuple[str, str] | None:
        """The file of ``batch`` (relative to the run) and its key, or ``None`` when it is never cached."""
        key = batch_key(self.analysis, batch)
        if self.folder is None or key is None:
            return None
        return f"{self.folder}/batch-{batch.key:05d}-{key}.parquet", key

    def name(self, batch: Batch) -> str | None:
        """The file of ``batch`` (relative to the run), or ``None`` when it is never cached."""
        entry = self._entry(batch)
        return None if entry is None else entry[0]

    def present(self) -> set[str]:
        """The files the folder holds now (none when it cannot be listed)."""
        if self.folder is None:
            return set()
        try:
            return set(self.rundir.files(self.folder))
        except OSError:
            return set()

    def read(self, batch: Batch, runs: int) -> Result | None:
        """The cached result of ``batch`` (``None``: absent, unreadable or not this batch's)."""
        entry = self._entry(batch)
        if entry is None:
            return None
        rel, key = entry
        try:
            data = self.rundir.read(rel)
        except OSError:
            return None
        return None if data is None else decode_result(data, key, runs)

    def write(self, batch: Batch, result: Result) -> None:
        """Keep a finished batch's result (nothing more is tried once a write fails)."""
        entry = self._entry(batch)
        if entry is None or not self.writable:
            return
        rel, key = entry
        try:
            if self.had_tmp is None:
                self.had_tmp = self.rundir.exists(TMP_DIR)
            self.rundir.write(rel, encode_result(key, result))
        except OSError:
            self.writable = False

    def clear(self) -> None:
        """Remove this analysis's cached batches, and the cache folder and the run's temporary
        folder when they are empty and this cache made them: the run folder is left as it was."""
        if self.folder is None:
            return
        try:
            for rel in self.rundir.files(self.folder):
                self.rundir.delete(rel)
            self.rundir.prune(self.folder)
            self.rundir.prune(CACHE_DIR)
            if self.had_tmp is False:
                self.rundir.prune(TMP_DIR)
        except OSError:
            pass
