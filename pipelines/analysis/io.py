"""Opening run directories (lazy scans of ``RUN_DIR/deals/*.parquet``, validated) and writing tables."""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from fivehundred.pipelines.idspans import Span
from fivehundred.pipelines.rundir import Manifest, RunDir, RunLog, StorageError, is_store, open_log
from fivehundred.pipelines.schema import CORE_COLUMNS, SCHEMA_VERSION, DealLogError, check_part_files
from fivehundred.sim.errors import UserError


class AnalysisError(UserError, ValueError):
    """A run directory, log or request that cannot be analysed; the message says which and why."""


#: Every table ``analyze`` can write (docs/statistics.md).
TABLE_NAMES = frozenset(
    {
        "overview", "game_length", "game_ends", "score_trajectories", "table_comparison",
        "contracts", "success_by_level", "success_by_trump",
        "success_by_seat",
        "success_by_strategy", "success_by_variant", "success_by_feature", "success_by_trumps_joker",
        "misere", "misere_by_feature", "misere_whatif", "misere_whatif_by_feature", "pairing",
        "variant_effects", "strategy_duplicate", "success_comparison", "strategies", "strategy_pairings",
        "sweep_variants", "sweep_effects",
        "dd_success", "dd_by_level", "dd_misere", "dd_trick_gain",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Run:
    """One run directory: its lazy deal log and what the manifest (if any) says about it."""

    path: str  # as the user should see it (a local path or a URI)
    scan: pl.LazyFrame
    run_id: str
    variant: str
    master_seed: int | None
    manifest: Manifest  # nothing set when the run has none
    columns: tuple[str, ...]
    log: RunLog
    #: Each non-empty part file's deal ids (lowest, highest, how many), found when the log was checked.
    spans: tuple[Span, ...] = ()


def open_run(path: str | Path | RunLog, partial: bool = False) -> Run:
    """Validate ``path`` (a run directory's path or URI, or an opened :class:`RunLog`) and return its
    lazy deal log.

    Raises :class:`AnalysisError` (one line) for a missing directory, a directory without
    ``deals/*.parquet``, part files that are not a deal log, or another schema version.
    """
    log = path if isinstance(path, RunLog) else open_log(path, error=AnalysisError, partial=partial)
    deals = f"{log.path}/deals"
    try:  # every file readable, a deal log's columns, no deal id twice
        spans: list[Span] = []
        check_part_files(log.files, log.open, log.path, spans_out=spans)
    except DealLogError as exc:
        raise AnalysisError(str(exc)) from None
    scan = log.scan()
    try:
        schema = scan.collect_schema()
    except (pl.exceptions.PolarsError, pa.ArrowException, OSError) as exc:
        raise AnalysisError(f"{deals}: unreadable Parquet ({str(exc).splitlines()[0]})") from exc
    missing = [c for c in CORE_COLUMNS if c not in schema]
    if missing:
        raise AnalysisError(
            f"{deals} is not a fivehundred deal log: missing column(s) {', '.join(missing[:5])}"
        )
    try:
        head = scan.select(pl.col("schema_version").unique().sort().alias("v")).collect()["v"].to_list()
        first = scan.select("run_id", "variant").head(1).collect()
    except (pl.exceptions.PolarsError, pa.ArrowException) as exc:
        raise AnalysisError(f"{deals}: unreadable deal log ({str(exc).splitlines()[0]})") from exc
    if head != [SCHEMA_VERSION]:
        shown = ", ".join(str(v) for v in head) or "none"
        raise AnalysisError(
            f"{deals}: deal-log schema_version {shown}, this analysis reads version {SCHEMA_VERSION}"
        )
    if first.height == 0:
        raise AnalysisError(f"{deals}: the deal log is empty")
    run_id = log.manifest.run_id or first["run_id"][0]
    variant = first["variant"][0]
    seed = log.manifest.master_seed
    return Run(
        log.path, scan, str(run_id), str(variant), seed, log.manifest, tuple(schema.names()), log, spans
    )


def _atomic_write(path: Path, write: Any) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


#: Written last into a statistics folder: the table set there is complete (``report --stats`` checks it).
STATS_MARKER = "COMPLETE"


def _table_files() -> set[str]:
    return {f"{n}{suffix}" for n in TABLE_NAMES for suffix in (".parquet", ".csv")} | {STATS_MARKER}


def write_tables(tables: dict[str, pl.DataFrame], out_dir: str | Path) -> list[Path]:
    """Write each table as ``<name>.parquet`` and ``<name>.csv`` in ``out_dir``, as one set.

    The set is written into a temporary folder beside ``out_dir`` with the :data:`STATS_MARKER` file
    last, and renamed into place (the previous set, if any, is moved aside first and removed after):
    a killed or failed analysis (a full disk) leaves the old folder or none, never a partial one that
    looks complete.  A folder that holds other files than tables (a user's folder) is written file by
    file instead, its marker removed first and written last.  An error names the path, in one line.
    """
    if is_store(out_dir):
        _write_store(tables, str(out_dir))
        return [Path(f"{n}{suffix}") for n in tables for suffix in (".parquet", ".csv")]
    out = Path(out_dir)
    try:
        if out.is_dir() and not {p.name for p in out.iterdir()} <= _table_files():
            return _write_in_place(tables, out)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    except OSError as exc:
        raise AnalysisError(f"cannot write statistics to {out}: {exc.strerror or exc}") from exc
    try:
        written = [out / p.name for p in _write_set(tables, tmp)]
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
            os.replace(out, old / out.name)
        os.replace(tmp, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        where = exc.filename or out
        raise AnalysisError(f"cannot write statistics to {where}: {exc.strerror or exc}") from exc
    except pl.exceptions.PolarsError as exc:  # polars reports a failed write (a full disk) its own way
        shutil.rmtree(tmp, ignore_errors=True)
        raise AnalysisError(f"cannot write statistics to {out}: {str(exc).splitlines()[0]}") from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return written


def _write_set(tables: dict[str, pl.DataFrame], out: Path) -> list[Path]:
    """Every table (Parquet + CSV, each atomically), then the marker."""
    written: list[Path] = []
    for name, df in tables.items():
        pq = out / f"{name}.parquet"
        csv = out / f"{name}.csv"
        _atomic_write(pq, lambda p, df=df: df.write_parquet(p, statistics=False))
        _atomic_write(csv, lambda p, df=df: df.write_csv(p, float_precision=6))
        written += [pq, csv]
    # A table this analysis did not produce (no --compare or --what-if this time) must not linger from
    # an earlier analysis into the same folder.
    for name in TABLE_NAMES - set(tables):
        for suffix in (".parquet", ".csv"):
            (out / f"{name}{suffix}").unlink(missing_ok=True)
    marker = out / STATS_MARKER
    _atomic_write(marker, lambda p: Path(p).write_text(json.dumps(sorted(tables)) + "\n"))
    return [*written, marker]


def _write_in_place(tables: dict[str, pl.DataFrame], out: Path) -> list[Path]:
    try:
        (out / STATS_MARKER).unlink(missing_ok=True)
        return _write_set(tables, out)
    except OSError as exc:
        where = exc.filename or out
        raise AnalysisError(f"cannot write statistics to {where}: {exc.strerror or exc}") from exc


def table_bytes(df: pl.DataFrame) -> tuple[bytes, bytes]:
    """A table as the Parquet and CSV bytes :func:`write_tables` writes (the same on every store)."""
    pq, csv = io.BytesIO(), io.BytesIO()
    df.write_parquet(pq, statistics=False)
    df.write_csv(csv, float_precision=6)
    return pq.getvalue(), csv.getvalue()


def _write_store(tables: dict[str, pl.DataFrame], location: str) -> None:
    """The set of tables on an object store: each object appears whole when its upload completes
    (there is no folder to rename), so the marker is removed first and written last; tables of an
    earlier analysis that this one did not make are removed."""
    out = RunDir(location)
    try:
        out.delete(STATS_MARKER)
        for name, df in tables.items():
            pq, csv = table_bytes(df)
            out.write(f"{name}.parquet", pq)
            out.write(f"{name}.csv", csv)
        for name in TABLE_NAMES - set(tables):
            for suffix in (".parquet", ".csv"):
                out.delete(f"{name}{suffix}")
        out.write(STATS_MARKER, (json.dumps(sorted(tables)) + "\n").encode())
    except (StorageError, OSError) as exc:
        raise AnalysisError(f"cannot write statistics to {location}: {exc}") from None


def read_store_tables(location: str) -> dict[str, pl.DataFrame] | None:
    """The statistics tables on an object store (``None`` when the folder holds no complete set:
    no :data:`STATS_MARKER`)."""
    folder = RunDir(location)
    if folder.read(STATS_MARKER) is None:
        return None
    out: dict[str, pl.DataFrame] = {}
    for rel in _top_files(folder):
        data = folder.read(rel)
        if data is not None:
            out[rel.removesuffix(".parquet")] = pl.read_parquet(io.BytesIO(data))
    return out


def _top_files(folder: RunDir) -> list[str]:
    """The ``*.parquet`` files at the top of a store folder, sorted."""
    import pyarrow.fs as pafs

    sel = pafs.FileSelector(folder.root, allow_not_found=True)
    infos = folder.fs.get_file_info(sel)
    return sorted(
        i.base_name for i in infos if i.type == pafs.FileType.File and i.base_name.endswith(".parquet")
    )
