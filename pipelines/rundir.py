"""The run directory: its layout, its typed manifest, and reading and writing it anywhere.

A run directory lives on a local disk, a shared path or an object store (any URI pyarrow understands,
or a configured :class:`pyarrow.fs.FileSystem`).  Simulation and tournament runs share the layout::

    RUN_DIR/manifest.json            the run's :class:`Manifest` (atomic writes; the commit point)
    RUN_DIR/deals/<part>.parquet     the deal log, one file per finished chunk (never partially visible)
    RUN_DIR/partial/<part>.parquet   games of chunks an interrupted simulation kept (not in the deal log)
    RUN_DIR/.tmp/                    files being written; renamed into place, then removed

(a tournament adds ``pairs/`` and ``tables/``).  On a local or shared POSIX filesystem a file is
written under ``.tmp/``, flushed and renamed (``os.replace`` is atomic on one filesystem).  On object
stores (S3, GCS, Azure) an object only becomes visible when its upload completes, so it is written to
its final key directly.

Writers (``simulate``, ``tournament``) use :class:`RunDir`; readers (``analyze``, ``verify``,
``replay``, ``report``, ``rule-paths``) use :func:`open_log`, which validates the directory and gives
a :class:`RunLog`: the part files, a lazy scan of them (the glob of part files, never the folder) and
the manifest.  This module is the only reader and writer of ``manifest.json``.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from fivehundred.pipelines.schema import SCHEMA_VERSION
from fivehundred.sim.engine import ENGINE_VERSION
from fivehundred.sim.errors import UserError

DEALS_DIR = "deals"
#: Games finished in chunks that an interrupted run could not commit (not part of the deal log).
PARTIAL_DIR = "partial"
TMP_DIR = ".tmp"
MANIFEST = "manifest.json"
LOCK = ".lock"
#: The glob of the deal log's part files, relative to the run directory.
DEALS_GLOB = f"{DEALS_DIR}/*.parquet"

MANIFEST_FORMAT = "fivehundred.run"
#: 2: one format for simulation and tournament runs (``kind``); 1: simulation runs only.
MANIFEST_FORMAT_VERSION = 2
SIMULATION = "simulation"
#: Statuses of a run a writer has not finished (it is running, or was interrupted and can be resumed);
#: a session ended on purpose (``play``'s ``stopped``) is not one of them.
UNFINISHED = ("running", "interrupted")
TOURNAMENT = "tournament"

#: pyarrow filesystem types where an object appears only once its upload completes (no rename).
OBJECT_STORES = ("s3", "gcs", "abfs")


def is_store(location: str | Path) -> bool:
    """Whether a run location is an object-store (or other non-local) URI such as ``s3://bucket/run``."""
    text = str(location)
    return "://" in text and not text.startswith("file://")


def join(location: str | Path, *parts: str) -> str:
    """``location`` with ``parts`` appended: a local path, or a URI whose query (``?endpoint_override=``)
    stays at the end (``s3://b/sweep?x=1`` + ``stats`` is ``s3://b/sweep/stats?x=1``)."""
    if not is_store(location):
        return str(Path(location, *parts))
    base, sep, query = str(location).partition("?")
    return "/".join([base.rstrip("/"), *parts]) + sep + query


def store_name(location: str | Path) -> str:
    """The last path component of a location (a local path or a URI without its query)."""
    return str(location).partition("?")[0].rstrip("/").rsplit("/", 1)[-1]


class StorageError(UserError, OSError):
    """The run directory cannot be used (bad URI, no permission, foreign content)."""


class RunDirError(UserError, ValueError):
    """A run directory to read is missing, empty or unreadable."""


def part_name(index: int) -> str:
    """The file name of chunk ``index``'s rows in a simulation run."""
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


def parquet_bytes(write: Any) -> bytes:
    """The bytes ``write(sink)`` produces (a Parquet writer given an in-memory sink)."""
    sink = pa.BufferOutputStream()
    write(sink)
    return sink.getvalue().to_pybytes()


def package_versions() -> dict[str, str]:
    """Versions of this package, the engine, the schema and the libraries that shape the files."""
    versions = {"engine": ENGINE_VERSION, "schema": str(SCHEMA_VERSION), "python": platform.python_version()}
    for dist in ("fivehundred", "pyarrow", "ray"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = "unknown"
    return versions


# ------------------------------------------------------------------------------------------ manifest


def _lookup(data: dict[str, Any], key: str, want: type | tuple[type, ...]) -> Any:
    """``data[key]`` of type ``want``, at the top level or one level down (first found; no bools)."""
    v = data.get(key)
    if isinstance(v, want) and not isinstance(v, bool):
        return v
    for sub in data.values():
        if isinstance(sub, dict):
            v = sub.get(key)
            if isinstance(v, want) and not isinstance(v, bool):
                return v
    return None


@dataclass
class Manifest:
    """What ``manifest.json`` says about a run (one format for simulation and tournament runs).

    ``identity`` is what must match for a writer to resume the run; ``chunks`` lists the committed
    chunks in commit order (each with at least ``file`` and ``deals``); ``totals`` counts ``deals``,
    ``games`` and ``chunks`` (a tournament adds ``pairs``).  A simulation run deals hand ``j`` of game
    ``g`` from (``master_seed``, g, j); a tournament deals hand ``j`` of board ``b`` from
    (``board_seed``, b, j) and has no master seed.  ``extra`` holds what only one kind has (a
    tournament's matches).  Manifests of other tools are read leniently (:meth:`from_json`): only the
    fields found are set.
    """

    kind: str
    run_id: str | None = None
    status: str = "running"
    identity: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    variant: str | None = None
    rules: dict[str, Any] | None = None
    strategies: list[Any] = field(default_factory=list)
    master_seed: int | None = None
    board_seed: int | None = None
    versions: dict[str, str] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=lambda: {"deals": 0, "games": 0, "chunks": 0})
    chunks: list[dict[str, Any]] = field(default_factory=list)
    #: Chunks an interrupted simulation had partly played: per chunk its ``index``, the ``games``
    #: ``[first, stop)`` finished from its start, their ``deals`` and the ``file`` under ``partial/``
    #: holding their rows; a resumed run plays only the rest of each.  Written only when not empty.
    partial: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    #: Whether it was written in this project's format (else read from another tool's JSON).
    native: bool = True

    @property
    def complete(self) -> bool:
        """Whether every chunk of the run is committed."""
        return self.status == "complete"

    def to_json(self) -> str:
        """The manifest as JSON text: sorted keys, one line per committed chunk (deterministic)."""
        data = {
            "format": MANIFEST_FORMAT,
            "format_version": MANIFEST_FORMAT_VERSION,
            "kind": self.kind,
            "run_id": self.run_id,
            "status": self.status,
            "identity": self.identity,
            "config": self.config,
            "variant": self.variant,
            "rules": self.rules,
            "strategies": self.strategies,
            "master_seed": self.master_seed,
            "board_seed": self.board_seed,
            "versions": self.versions,
            "deals_glob": DEALS_GLOB,
            "totals": self.totals,
            **({"partial": self.partial} if self.partial else {}),
            **self.extra,
        }
        body = json.dumps(data, indent=1, sort_keys=True)
        chunks = ",\n  ".join(json.dumps(c, sort_keys=True) for c in self.chunks)
        tail = ',\n "chunks": [\n  ' + chunks + "\n ]\n}\n" if chunks else ',\n "chunks": []\n}\n'
        return body[:-2] + tail

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        """Parse a manifest: this project's format (version 1 or 2), or any JSON object leniently."""
        known = {f for f in cls.__dataclass_fields__ if f not in ("extra", "native")}
        if data.get("format") == MANIFEST_FORMAT:
            values = {k: data[k] for k in known if k in data and data[k] is not None}
            values.setdefault("kind", SIMULATION)  # format version 1 knew simulation runs only
            skip = {*known, "format", "format_version", "deals_glob"}
            extra = {k: v for k, v in data.items() if k not in skip}
            return cls(**values, extra=extra)
        seed = _lookup(data, "master_seed", int)
        rules = _lookup(data, "rules", dict)
        totals = _lookup(data, "totals", dict) or _lookup(data, "counts", dict)  # counts: old tournaments
        complete = data.get("status") == "complete" or data.get("complete") is True
        config = dict(data["config"]) if isinstance(data.get("config"), dict) else {}
        listed = (data.get("strategies"), config.get("strategies"))
        strategies = next((v for v in listed if isinstance(v, list)), [])
        versions = dict(data["versions"]) if isinstance(data.get("versions"), dict) else {}
        for key, name in (("fivehundred", "package_version"), ("engine", "engine_version")):  # old tournament
            if isinstance(data.get(name), str):
                versions.setdefault(key, data[name])
        chunks = [  # an old tournament listed its chunks by key
            {"key": c, "file": f"{DEALS_DIR}/{c}.parquet"} if isinstance(c, str) else c
            for c in (data["chunks"] if isinstance(data.get("chunks"), list) else [])
        ]
        return cls(
            kind=str(data.get("kind") or SIMULATION),
            run_id=_lookup(data, "run_id", str),
            status="complete" if complete else "running",
            variant=_lookup(data, "variant", str),
            rules=rules,
            master_seed=seed if seed is not None else _lookup(data, "seed", int),
            board_seed=_lookup(data, "board_seed", int),
            versions=versions,
            totals=dict(totals) if isinstance(totals, dict) else {},
            chunks=[c for c in chunks if isinstance(c, dict)],
            config=config,
            strategies=strategies,
            native=False,
        )

    def seat_labels(self) -> list[str]:
        """The strategy label of each seat (or entry), in order; ``[]`` when not recorded."""
        return [
            s if isinstance(s, str) else str(s.get("label") or s.get("name") or s) for s in self.strategies
        ]


# ---------------------------------------------------------------------------------------- run dir


class RunDir:
    """One run directory, locally or through a pyarrow filesystem: atomic writes, reads, locking.

    ``out`` is a local path, ``file://`` URI or any URI pyarrow understands; or, with
    ``filesystem`` (a configured :class:`pyarrow.fs.FileSystem`, e.g. S3 with its own endpoint and
    credentials), a path inside that filesystem.
    """

    def __init__(self, out: str | Path, filesystem: pafs.FileSystem | None = None) -> None:
        out = str(out)
        self.out = out
        self._lock_fh: Any = None
        self._lease: Any = None  # a StoreLock on S3
        if filesystem is not None:
            self.fs, self.root, self.local = filesystem, out, isinstance(filesystem, pafs.LocalFileSystem)
        elif "://" in out and not out.startswith("file://"):
            try:
                self.fs, self.root = pafs.FileSystem.from_uri(out)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as exc:
                raise StorageError(f"run location '{out}': pyarrow cannot open this URI ({exc})") from None
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
        """A path inside the run directory (in its filesystem)."""
        return "/".join((self.root, *parts))

    @property
    def display(self) -> str:
        """The run directory as the user should see it."""
        return self.root if self.local else self.out

    @property
    def name(self) -> str:
        """The run directory's last path component."""
        return self.root.rsplit("/", 1)[-1]

    @property
    def deals_glob(self) -> str:
        """The glob of the deal log's part files (what readers scan)."""
        return join(self.display, DEALS_GLOB) if not self.local else f"{self.display}/{DEALS_GLOB}"

    # basic operations --------------------------------------------------------------------------
    def write(self, rel: str, data: bytes) -> None:
        """Write ``data`` to ``rel`` so that it appears complete or not at all."""
        final = self.path(rel)
        if self.local:
            tmp_dir = self.path(TMP_DIR)
            os.makedirs(tmp_dir, exist_ok=True)
            os.makedirs(os.path.dirname(final), exist_ok=True)
            tmp = f"{tmp_dir}/{os.path.basename(rel)}.{os.getpid()}.tmp"
            try:
                with open(tmp, "wb") as fh:
                    fh.write(data)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, final)
            except OSError as exc:  # a full disk, a read-only folder: nothing half-written is left
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise StorageError(f"{self.display}/{rel}: cannot write ({exc.strerror or exc})") from None
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

    def read(self, rel: str) -> bytes | None:
        """A file's bytes, or ``None`` when it does not exist."""
        try:
            with self.fs.open_input_stream(self.path(rel)) as fh:
                return fh.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            if "not found" in str(exc).lower() or "no such file" in str(exc).lower():
                return None
            raise StorageError(f"{self.display}/{rel}: cannot read ({exc})") from None

    def open(self, rel: str) -> Any:
        """A random-access file of the run (for :class:`pyarrow.parquet.ParquetFile`); close it after."""
        return self.fs.open_input_file(self.path(rel))

    def exists(self, rel: str = "") -> bool:
        """Whether a file (or, with no ``rel``, the run directory) exists."""
        info = self.fs.get_file_info(self.path(rel) if rel else self.root)
        return info.type != pafs.FileType.NotFound

    def is_dir(self, rel: str = "") -> bool:
        """Whether ``rel`` (default: the run directory itself) is a directory."""
        return self.fs.get_file_info(self.path(rel) if rel else self.root).type == pafs.FileType.Directory

    def is_empty(self) -> bool:
        """Whether the run directory is missing or holds nothing (but the lock of :meth:`lock`)."""
        if not self.is_dir():
            return not self.exists()
        return all(i.base_name == LOCK for i in self.fs.get_file_info(pafs.FileSelector(self.root)))

    def read_manifest(self) -> Manifest | None:
        """The manifest, or ``None`` when the directory holds none; unreadable JSON raises."""
        data = self.read(MANIFEST)
        if data is None:
            return None
        try:
            parsed = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise StorageError(
                f"{self.display}/{MANIFEST}: not valid JSON ({exc}); use --overwrite to replace the run"
            ) from None
        if not isinstance(parsed, dict):
            raise StorageError(f"{self.display}/{MANIFEST}: expected a JSON object")
        return Manifest.from_json(parsed)

    def write_manifest(self, manifest: Manifest) -> None:
        """Replace the manifest atomically (refused once this driver's lease was taken over)."""
        if self._lease is not None and self._lease.lost:
            raise StorageError(f"{self.display}: this driver lost the run's lock to another driver; stopped")
        self.write(MANIFEST, manifest.to_json().encode())

    def write_part(self, index: int, data: bytes) -> str:
        """Write chunk ``index``'s Parquet bytes atomically; returns its path relative to the run."""
        rel = f"{DEALS_DIR}/{part_name(index)}"
        self.write(rel, data)
        return rel

    def write_partial(self, index: int, first: int, stop: int, data: bytes) -> str:
        """Write the rows of chunk ``index``'s games ``first .. stop-1`` atomically (under
        ``partial/``, outside the deal log's glob); returns the path relative to the run."""
        rel = f"{PARTIAL_DIR}/{part_name(index).removesuffix('.parquet')}-games-{first}-{stop}.parquet"
        self.write(rel, data)
        return rel

    def partial_files(self) -> list[str]:
        """Relative paths of the files under ``partial/``."""
        return self.files(PARTIAL_DIR)

    def files(self, folder: str, suffix: str = ".parquet") -> list[str]:
        """Relative paths of the files ending in ``suffix`` under ``folder``, sorted."""
        sel = pafs.FileSelector(self.path(folder), allow_not_found=True)
        names = [info.base_name for info in self.fs.get_file_info(sel) if info.type == pafs.FileType.File]
        return sorted(f"{folder}/{n}" for n in names if n.endswith(suffix) and not n.startswith("."))

    def part_files(self) -> list[str]:
        """Relative paths of the part files present under ``deals/``."""
        return self.files(DEALS_DIR)

    def part_rows(self, rel: str) -> int | None:
        """The row count in a part file's footer, or ``None`` if it is missing or unreadable."""
        try:
            with self.open(rel) as fh:
                return pq.ParquetFile(fh).metadata.num_rows
        except (OSError, pa.ArrowInvalid):
            return None

    def delete(self, rel: str) -> None:
        """Remove one file if present."""
        with contextlib.suppress(FileNotFoundError):
            self.fs.delete_file(self.path(rel))

    def prune(self, folder: str) -> None:
        """Remove ``folder`` if it exists and holds nothing."""
        path = self.path(folder)
        if self.fs.get_file_info(path).type == pafs.FileType.Directory:
            if not self.fs.get_file_info(pafs.FileSelector(path)):
                self.fs.delete_dir(path)

    def clean_tmp(self) -> None:
        """Remove leftovers of interrupted writes."""
        if self.fs.get_file_info(self.path(TMP_DIR)).type == pafs.FileType.Directory:
            self.fs.delete_dir(self.path(TMP_DIR))

    def clear(self) -> None:
        """Remove this project's files from the run directory (manifest, parts, temp); nothing else."""
        for rel in [*self.part_files(), *self.partial_files()]:
            self.delete(rel)
        self.delete(MANIFEST)
        self.clean_tmp()

    def has_foreign_parts(self) -> bool:
        """Part files without a manifest: someone else's data, never silently mixed or deleted."""
        return bool(self.part_files())

    # reading Parquet -----------------------------------------------------------------------------
    def scan(self, files: list[str] | None = None) -> pl.LazyFrame:
        """A lazy frame over part files (default: the glob of every part file of the deal log)."""
        if self.local:
            return pl.scan_parquet(self.deals_glob if files is None else [self.path(f) for f in files])
        import pyarrow.dataset as ds

        rels = self.part_files() if files is None else files
        dataset = ds.dataset([self.path(f) for f in rels], filesystem=self.fs, format="parquet")
        return pl.scan_pyarrow_dataset(dataset)

    def read_table(self, rel: str) -> pa.Table:
        """One Parquet file of the run as an Arrow table."""
        with self.open(rel) as fh:
            return pq.read_table(fh)

    # locking -----------------------------------------------------------------------------------
    def lock(self) -> None:
        """Take an exclusive lock on the run directory: ``flock`` on a local folder (released when the
        process ends), a lease object taken by a conditional write on S3 (:mod:`pipelines.storelock`);
        another driver is refused in one line.  Other stores get no lock (:func:`storelock.lock_note`)."""
        if not self.local:
            from fivehundred.pipelines.storelock import StoreLock, Target, target

            t = target(self.out) if is_store(self.out) else None
            if isinstance(t, Target):
                lease = StoreLock(t, self.display)
                lease.acquire()
                self._lease = lease
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
        if self._lease is not None:
            self._lease.release()
            self._lease = None
        if self._lock_fh is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path(LOCK))
            self._lock_fh.close()
            self._lock_fh = None


# ---------------------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class RunLog:
    """A run directory opened for reading: its part files, a lazy scan and the manifest.

    ``manifest`` is the run's :class:`Manifest` (``native`` False and nothing set when the run has
    none); ``path`` is the run directory as the user should see it (a local path or a URI); ``dir``
    has the rest (``dir.local``, ``dir.name``, ``dir.deals_glob``).
    """

    dir: RunDir
    files: tuple[str, ...]
    manifest: Manifest

    @property
    def path(self) -> str:
        """The run directory as the user should see it."""
        return self.dir.display

    @property
    def source(self) -> str:
        """The location as it was given (a URI keeps its query): what sibling folders are joined to."""
        return self.dir.out

    def scan(self, files: list[str] | None = None) -> pl.LazyFrame:
        """A lazy frame over every part file (or the given ones)."""
        return self.dir.scan(files)

    def open(self, rel: str) -> Any:
        """A part file (or any file of the run) opened for random access."""
        return self.dir.open(rel)

    def exists(self, rel: str) -> bool:
        """Whether a file of the run exists."""
        return self.dir.exists(rel)


def runs_inside(folder: str | Path, depth: int = 2) -> list[str]:
    """The run directories (folders with a deal log) inside a local ``folder``, as paths relative to
    it, sorted, looking ``depth`` levels down (``runs/main`` holds ``main`` and ``compare-club-004``)."""
    root = Path(folder)
    found: list[str] = []
    level = [root]
    for _ in range(depth):
        below: list[Path] = []
        for d in level:
            try:
                children = sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith("."))
            except OSError:
                continue
            for child in children:
                if any((child / DEALS_DIR).glob("*.parquet")):
                    found.append(child.relative_to(root).as_posix())
                else:
                    below.append(child)
        level = below
    return sorted(found)


def progress_text(manifest: Manifest) -> str:
    """How much of a run is there: ``1,200 of 5,000 deals`` or ``310 deals in 30 of 100 games``."""
    deals, games = int(manifest.totals.get("deals") or 0), int(manifest.totals.get("games") or 0)
    want_deals, want_games = manifest.identity.get("deals"), manifest.identity.get("games")
    if isinstance(want_deals, int):
        return f"{deals:,} of {want_deals:,} deals"
    if isinstance(want_games, int):
        return f"{deals:,} deals in {games:,} of {want_games:,} games"
    return f"{deals:,} deals in {games:,} games so far"


def unfinished_text(display: str, manifest: Manifest) -> str:
    """One line refusing a run that is still being written or was interrupted, saying how to go on."""
    return (
        f"{display}: the run is not finished ({progress_text(manifest)} are there; it is still running "
        "or was interrupted): run the same command again to finish it, or give --partial to use what is there"
    )


def open_log(
    location: str | Path,
    filesystem: pafs.FileSystem | None = None,
    error: type[Exception] = RunDirError,
    partial: bool = True,
) -> RunLog:
    """Open a run directory (path or URI) for reading; a missing or empty one raises ``error``.

    ``error`` is the caller's one-line user error class (the message is the same for every caller).
    Unless ``partial``, a run whose manifest says it is not finished (running, or interrupted) is
    refused (:func:`unfinished_text`).  A folder a run is writing into that has no finished part yet
    says so.
    """
    try:
        run = RunDir(location, filesystem)
        if not run.exists():
            raise error(f"run directory {run.display} does not exist")
        if not run.is_dir():
            raise error(f"{run.display} is not a run directory")
        files = tuple(run.part_files())
        if not files:
            started = run.read_manifest() if run.exists(MANIFEST) else None
            if started is not None and started.native and started.status in UNFINISHED:
                raise error(
                    f"{run.display}: a run is being written here but has no finished part yet "
                    f"({progress_text(started)}); wait for its first part, or run the same command "
                    "again to resume it"
                )
            inside = runs_inside(run.root) if run.local else []
            if inside:
                shown = ", ".join(inside[:8]) + (f" and {len(inside) - 8} more" if len(inside) > 8 else "")
                raise error(
                    f"{run.display} is not a run directory but holds runs: {shown} "
                    f"(give one of them, e.g. {run.display.rstrip('/')}/{inside[0]})"
                )
            raise error(f"{run.display} is not a run directory: no deal log (no {DEALS_GLOB} files)")
        manifest = run.read_manifest()
    except StorageError as exc:
        raise error(str(exc)) from None
    if manifest is None:
        manifest = Manifest(kind=SIMULATION, totals={}, native=False)
    elif manifest.native and manifest.status in UNFINISHED and not partial:
        raise error(unfinished_text(run.display, manifest))
    return RunLog(run, files, manifest)


def read_manifest(location: str | Path) -> Manifest | None:
    """A run's manifest, or ``None`` when it has none or it cannot be read (reports say "not recorded")."""
    try:
        return RunDir(location).read_manifest()
    except (StorageError, OSError):
        return None
