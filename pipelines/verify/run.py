"""Opening a run for replay and verify: its part files, its manifest, and the rules it was played with."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from fivehundred.pipelines.rundir import RunLog, open_log
from fivehundred.sim.errors import UserError
from fivehundred.sim.rules import Rules, RulesError, load_rules, rules_from_flat

#: Rows per record batch read by :func:`batches` (bounds memory on big logs).
BATCH_ROWS = 20_000


class RunError(UserError, ValueError):
    """A run directory is missing, empty or unreadable, or a deal id is not in it."""


def open_run(run_dir: str | Path | RunLog, partial: bool = False) -> RunLog:
    """Find a run's part files and manifest (:func:`pipelines.rundir.open_log`; a path, a URI or an
    opened :class:`RunLog`); a missing or empty run raises :class:`RunError`."""
    if isinstance(run_dir, RunLog):
        return run_dir
    return open_log(run_dir, error=RunError, partial=partial)


@contextlib.contextmanager
def reading(run: RunLog) -> Iterator[None]:
    """Turn a Parquet reading failure into a :class:`RunError` that names the bad part file."""
    try:
        yield
    except (pl.exceptions.PolarsError, pa.ArrowException, OSError) as exc:
        for f in run.files:
            try:
                with run.open(f) as fh:
                    pq.read_metadata(fh)
            except (pa.ArrowException, OSError) as bad:
                raise RunError(f"{run.path}/{f}: not a readable Parquet part file ({bad})") from None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RunError(f"{run.path}: the deal log cannot be read ({first})") from None


def rules_of_run(run: RunLog, variant: str | None) -> Rules:
    """The rules a run was played with.

    The manifest's full settings (``rules`` as flat ``section.key`` values, as written by
    :meth:`Rules.as_dict`, at the top level or one level down) win; otherwise its ``variant`` name or
    path; otherwise the log's ``variant`` column as a shipped variant name.
    """
    where = f"{run.path}/manifest.json"
    flat = run.manifest.rules
    if isinstance(flat, dict) and "table.players" in flat:
        return rules_from_flat(dict(flat), where)
    name = run.manifest.variant
    if name is not None:
        try:
            return load_rules(name)
        except RulesError:
            pass
    if variant is None:
        raise RunError(f"{run.path}: cannot tell the rule set (no manifest rules, no variant column)")
    try:
        return load_rules(variant)
    except RulesError as exc:
        raise RunError(f"{run.path}: the log's variant {variant!r} is not a known rule set ({exc})") from None


def batches(run: RunLog, columns: list[str]) -> Iterator[pl.DataFrame]:
    """The run's rows in record batches of :data:`BATCH_ROWS`, with those of ``columns`` each file has."""
    for f in run.files:
        with run.open(f) as fh:
            pf = pq.ParquetFile(fh)
            cols = [c for c in columns if c in pf.schema_arrow.names]
            for batch in pf.iter_batches(batch_size=BATCH_ROWS, columns=cols):
                yield pl.from_arrow(batch)
