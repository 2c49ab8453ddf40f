"""What a report is made from, decided at the top: the runs' manifests and their statistics tables.

:func:`load_statistics` reads a given statistics folder; otherwise it reuses the main run's ``stats/``
folder when that holds exactly the requested runs, or runs :func:`pipelines.analysis.analyze` into a
temporary folder (the runs are not touched).  :func:`make_report` hands the tables and manifests to
:func:`reports.build_report`, which reads nothing else.  Runs may be local paths or object-store URIs
(or opened :class:`~pipelines.rundir.RunLog` objects, e.g. on a configured pyarrow filesystem).
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import polars as pl

from fivehundred.pipelines.analysis import analyze
from fivehundred.pipelines.analysis.io import STATS_MARKER, read_store_tables
from fivehundred.pipelines.rundir import RunDir, RunLog, is_store, join, open_log
from fivehundred.reports import ReportResult, build_report
from fivehundred.reports.build import check_outputs
from fivehundred.reports.tables import ReportError, Tables, covers, read_statistics


def open_runs(run_dirs: Sequence[str | Path | RunLog], partial: bool = False) -> list[RunLog]:
    """Open every run (a missing or empty one is a one-line :class:`ReportError`, and so is one that
    is not finished unless ``partial``)."""
    if not run_dirs:
        raise ReportError("no run directory given")
    return [d if isinstance(d, RunLog) else open_log(d, error=ReportError, partial=partial) for d in run_dirs]


def require_complete(stats_dir: str | Path) -> None:
    """Refuse (one line) a statistics folder without the marker ``analyze`` writes last."""
    if Path(stats_dir).is_dir() and not (Path(stats_dir) / STATS_MARKER).is_file():
        raise ReportError(
            f"statistics folder {stats_dir} is incomplete (no {STATS_MARKER} marker: an analysis was "
            "interrupted or failed there); run fivehundred analyze again"
        )


def read_tables(stats_dir: str | Path) -> Tables:
    """The statistics tables of a finished analysis in a local folder or an object-store prefix."""
    if not is_store(stats_dir):
        require_complete(stats_dir)
        return read_statistics(Path(stats_dir))
    tables = read_store_tables(str(stats_dir))
    if tables is None:
        raise ReportError(
            f"statistics {stats_dir}: no complete set of tables (no {STATS_MARKER} marker); "
            "run fivehundred analyze first"
        )
    return tables


def load_statistics(
    runs: Sequence[RunLog], stats_dir: str | Path | None = None, what_if: bool = False
) -> Tables:
    """The statistics tables for ``runs`` (main run first): read, reused or made (module docstring)."""
    if stats_dir is not None:
        return read_tables(stats_dir)
    wanted = [r.manifest.run_id for r in runs]
    if all(isinstance(w, str) for w in wanted):
        if runs[0].dir.local:
            cached = Path(runs[0].path) / "stats"
            complete = (cached / STATS_MARKER).is_file()  # an interrupted analysis: analyse afresh
            tables = read_statistics(cached) if complete else None
        else:
            tables = read_store_tables(join(runs[0].source, "stats"))
        if tables is not None and covers(tables, wanted):
            return tables
    with tempfile.TemporaryDirectory(prefix="fivehundred-report-") as tmp:
        result = analyze(list(runs), Path(tmp), what_if="misere" if what_if else None, partial=True)
        return {k: v for k, v in result.items() if isinstance(v, pl.DataFrame)}


def tournament_tables(run: RunLog) -> Tables:
    """A tournament directory's own result tables (``tables/entries.parquet``, ``matches.parquet``)."""
    out: Tables = {}
    for name in ("entries", "matches"):
        try:
            data = run.dir.read(f"tables/{name}.parquet")
            if data is not None:
                out[f"tournament_{name}"] = pl.read_parquet(io.BytesIO(data))
        except (OSError, pl.exceptions.PolarsError):
            continue  # an unreadable optional table: the section simply does not show it
    return out


def make_report(
    run_dirs: Sequence[str | Path | RunLog],
    out_html: str | Path,
    pdf: str | Path | None = None,
    stats_dir: str | Path | None = None,
    tables: Tables | None = None,
    progress: Callable[[str], None] | None = None,
    partial: bool = False,
) -> ReportResult:
    """Open the runs, find their statistics (unless ``tables`` are given) and write the report.

    ``progress`` (optional) is told each phase in words; it never changes a file."""
    say = progress or (lambda _phase: None)
    runs = open_runs(run_dirs, partial)
    check_outputs(out_html, pdf)  # before the statistics are read or made
    if tables is None:
        say("reading the statistics (analysing the runs where they have none) ...")
        tables = {
            **tournament_tables(runs[0]),
            **load_statistics(runs, stats_dir or None),
        }
    paths, manifests = [r.path for r in runs], [r.manifest for r in runs]
    return build_report(paths, out_html, pdf, tables=tables, manifests=manifests, progress=say)


@contextmanager
def report_files(folder: str | Path, pdf: bool = True) -> Iterator[tuple[Path, Path | None]]:
    """Where to write ``FOLDER/report.html`` (and ``report.pdf``): the files themselves in a local
    folder; on an object store, files in a temporary folder uploaded there when the block ends."""
    if not is_store(folder):
        root = Path(folder)
        yield root / "report.html", root / "report.pdf" if pdf else None
        return
    with tempfile.TemporaryDirectory(prefix="fivehundred-report-") as tmp:
        html, pdf_path = Path(tmp) / "report.html", Path(tmp) / "report.pdf" if pdf else None
        yield html, pdf_path
        store = RunDir(str(folder))
        for f in (html, pdf_path):
            if f is not None and f.exists():
                store.write(f.name, f.read_bytes())
