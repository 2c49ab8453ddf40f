"""A run directory on a local disk, a shared path or an object store (any URI pyarrow understands).

Layout::

    RUN_DIR/manifest.json            the run's config, versions and per-chunk status (atomic writes)
    RUN_DIR/deals/part-00000.parquet one file per finished chunk (never partially visible)
    RUN_DIR/.tmp/                    files being written; renamed into place, then removed

On a local or shared POSIX filesystem a file is written under ``.tmp/``, flushed and renamed
(``os.replace`` is atomic on one filesystem).  On object stores (S3, GCS, Azure) an object only
becomes visible when its upload completes, so it is written to its final key directly.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from fivehundred.sim.errors import UserError

DEALS_DIR = "deals"
TMP_DIR = ".tmp"
MANIFEST = "manifest.json"
LOCK = ".lock"


class StorageError(UserError, OSError):
    """The run directory cannot be used (bad URI, no permission, foreign content)."""


def part_name(index: int) -> str:
    """The file name of chunk ``index``'s rows."""
    return f"part-{index:05d}.parquet"


def encode_parquet(table: pa.Table) -> bytes:
    """A table as zstd-compressed Parquet bytes (deterministic: same table, same bytes).

    Min/max statistics are written for the flat columns only (what readers can prune on): those of
    the nested list columns cost a fifth of the encoding time (the driver's main work per deal) and
    no reader can use them.
    """
    flat = [f.name for f in table.schema if not pa.types.is_list(f.type)]
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", write_statistics=flat)
    return sink.getvalue().to_pybytes()


#: pyarrow filesystem types where an object appears only once its upload completes (no rename).
OBJECT_STORES = ("s3", "gcs", "abfs")


class RunStore:
    """Reads and writes one run directory, locally or through a pyarrow filesystem.

    ``out`` is a local path, ``file://`` URI or any URI pyarrow understands; or, with
    ``filesystem`` (a configured :class:`pyarrow.fs.FileSystem`, e.g. S3 with its own endpoint and
    credentials), a path inside that filesystem.
    """

    def __init__(self, out: str, filesystem: pafs.FileSystem | None = None) -> None:
        self.out = out
        self._lock_fh: Any = None
        if filesystem is not None:
            self.fs, self.root, self.local = filesystem, out, False
        elif "://" in out and not out.startswith("file://"):
            try:
                self.fs, self.root = pafs.FileSystem.from_uri(out)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as exc:
                raise StorageError(f"out '{out}': pyarrow cannot open this URI ({exc})") from None
            self.local = False
        else:
            path = out[len("file://") :] if out.startswith("file://") else out
            self.root = str(Path(path).expanduser().resolve())
            self.fs = pafs.LocalFileSystem()
            self.local = True
        self.root = self.root.rstrip("/")
        self.atomic_rename = self.local or self.fs.type_name not in OBJECT_STORES

    # paths -------------------------------------------------------------------------------------
    def path(self, *parts: str) -> str:
        """A path inside the run directory."""
        return "/".join((self.root, *parts))

    @property
    def display(self) -> str:
        """The run directory as the user should see it."""
        return self.root if self.local else self.out

    @property
    def deals_glob(self) -> str:
        """The glob of the deal log's part files (what readers scan)."""
        return f"{self.display}/{DEALS_DIR}/*.parquet"

    # basic operations --------------------------------------------------------------------------
    def _write(self, rel: str, data: bytes) -> None:
        """Write ``data`` to ``rel`` so that it appears complete or not at all."""
        final = self.path(rel)
        if self.local:
            tmp_dir = self.path(TMP_DIR)
            os.makedirs(tmp_dir, exist_ok=True)
            os.makedirs(os.path.dirname(final), exist_ok=True)
            tmp = f"{tmp_dir}/{os.path.basename(rel)}.{os.getpid()}.tmp"
            with open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, final)
            return
        if self.atomic_rename:
            tmp = self.path(TMP_DIR, f"{os.path.basename(rel)}.{os.getpid()}.tmp")
            self.fs.create_dir(self.path(TMP_DIR), recursive=True)
            self.fs.create_dir(os.path.dirname(final), recursive=True)
            with self.fs.open_output_stream(tmp) as fh:
                fh.write(data)
            self.fs.move(tmp, final)
        else:
            self.fs.create_dir(os.path.dirname(final), recursive=True)
            with self.fs.open_output_stream(final) as fh:
                fh.write(data)

    def exists(self, rel: str) -> bool:
        """Whether a file exists in the run directory."""
        info = self.fs.get_file_info(self.path(rel))
        return info.type != pafs.FileType.NotFound

    def read_manifest(self) -> dict[str, Any] | None:
        """The manifest, or ``None`` when the directory holds none."""
        try:
            with self.fs.open_input_stream(self.path(MANIFEST)) as fh:
                data = fh.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            if "not found" in str(exc).lower() or "no such file" in str(exc).lower():
                return None
            raise StorageError(f"{self.display}/{MANIFEST}: cannot read ({exc})") from None
        try:
            return json.loads(data)
        except json.JSONDecodeError as exc:
            raise StorageError(
                f"{self.display}/{MANIFEST}: not valid JSON ({exc}); use --overwrite to replace the run"
            ) from None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Replace the manifest atomically."""
        body = json.dumps({k: v for k, v in manifest.items() if k != "chunks"}, indent=1, sort_keys=True)
        chunks = ",\n  ".join(json.dumps(c, sort_keys=True) for c in manifest.get("chunks", []))
        text = body[:-2] + (
            ',\n "chunks": [\n  ' + chunks + "\n ]\n}\n" if chunks else ',\n "chunks": []\n}\n'
        )
        self._write(MANIFEST, text.encode())

    def write_part(self, index: int, data: bytes) -> str:
        """Write chunk ``index``'s Parquet bytes atomically; returns its path relative to the run."""
        rel = f"{DEALS_DIR}/{part_name(index)}"
        self._write(rel, data)
        return rel

    def part_files(self) -> list[str]:
        """Relative paths of the part files present under ``deals/``."""
        sel = pafs.FileSelector(self.path(DEALS_DIR), allow_not_found=True)
        names = [info.base_name for info in self.fs.get_file_info(sel) if info.type == pafs.FileType.File]
        return sorted(f"{DEALS_DIR}/{n}" for n in names if n.startswith("part-") and n.endswith(".parquet"))

    def part_rows(self, rel: str) -> int | None:
        """The row count in a part file's footer, or ``None`` if it is missing or unreadable."""
        try:
            with self.fs.open_input_file(self.path(rel)) as fh:
                return pq.ParquetFile(fh).metadata.num_rows
        except (OSError, pa.ArrowInvalid):
            return None

    def delete(self, rel: str) -> None:
        """Remove one file if present."""
        with contextlib.suppress(FileNotFoundError):
            self.fs.delete_file(self.path(rel))

    def clean_tmp(self) -> None:
        """Remove leftovers of interrupted writes."""
        if self.fs.get_file_info(self.path(TMP_DIR)).type == pafs.FileType.Directory:
            self.fs.delete_dir(self.path(TMP_DIR))

    def clear(self) -> None:
        """Remove this project's files from the run directory (manifest, parts, temp); nothing else."""
        for rel in self.part_files():
            self.delete(rel)
        self.delete(MANIFEST)
        self.clean_tmp()

    def has_foreign_parts(self) -> bool:
        """Part files without a manifest: someone else's data, never silently mixed or deleted."""
        return bool(self.part_files())

    # locking -----------------------------------------------------------------------------------
    def lock(self) -> None:
        """Take an exclusive lock on a local run directory (released when the process ends)."""
        if not self.local:
            return
        import fcntl

        try:
            os.makedirs(self.root, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"out '{self.out}': cannot create the run directory ({exc})") from None
        fh = open(self.path(LOCK), "a")  # held open for the run's lifetime
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            raise StorageError(f"{self.display}: another process is using this run directory") from None
        self._lock_fh = fh

    def unlock(self) -> None:
        """Release the lock taken by :meth:`lock` and remove the lock file."""
        if self._lock_fh is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path(LOCK))
            self._lock_fh.close()
            self._lock_fh = None
