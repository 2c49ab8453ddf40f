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
from collections.abc import Callable, Sequence
from pathlib import Path

import polars as pl

from fivehundred.pipelines.analysis import analyze
from fivehundred.pipelines.analysis.io import STATS_MARKER
from fivehundred.pipelines.rundir import RunLog, open_log
from fivehundred.reports import ReportResult, build_report
from fivehundred.reports.build import check_outputs
from fivehundred.reports.tables import ReportError, Tables, covers, read_statistics


def open_runs(run_dirs: Sequence[str | Path | RunLog]) -> list[RunLog]:
    """Open every run (a missing or empty one is a one-line :class:`ReportError`)."""
    if not run_dirs:
        raise ReportError("no run directory given")
    return [d if isinstance(d, RunLog) else open_log(d, error=ReportError) for d in run_dirs]


def require_complete(stats_dir: Path) -> None:
    """Refuse (one line) a statistics folder without the marker ``analyze`` writes last."""
    if Path(stats_dir).is_dir() and not (Path(stats_dir) / STATS_MARKER).is_file():
        raise ReportError(
            f"statistics folder {stats_dir} is incomplete (no {STATS_MARKER} marker: an analysis was "
            "interrupted or failed there); run fivehundred analyze again"
        )


def load_statistics(runs: Sequence[RunLog], stats_dir: Path | None = None, what_if: bool = False) -> Tables:
    """The statistics tables for ``runs`` (main run first): read, reused or made (module docstring)."""
    if stats_dir is not None:
        require_complete(Path(stats_dir))
        return read_statistics(Path(stats_dir))
    wanted = [r.manifest.run_id for r in runs]
    cached = Path(runs[0].path) / "stats"
    complete = (cached / STATS_MARKER).is_file()  # an interrupted analysis left no marker: analyse afresh
    if runs[0].dir.local and all(isinstance(w, str) for w in wanted) and complete:
        tables = read_statistics(cached)
        if covers(tables, wanted):
            return tables
    with tempfile.TemporaryDirectory(prefix="fivehundred-report-") as tmp:
        result = analyze(list(runs), Path(tmp), what_if="misere" if what_if else None)
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
) -> ReportResult:
    """Open the runs, find their statistics (unless ``tables`` are given) and write the report.

    ``progress`` (optional) is told each phase in words; it never changes a file."""
    say = progress or (lambda _phase: None)
    runs = open_runs(run_dirs)
    check_outputs(out_html, pdf)  # before the statistics are read or made
    if tables is None:
        say("reading the statistics (analysing the runs where they have none) ...")
        tables = {
            **tournament_tables(runs[0]),
            **load_statistics(runs, Path(stats_dir) if stats_dir else None),
        }
    paths, manifests = [r.path for r in runs], [r.manifest for r in runs]
    return build_report(paths, out_html, pdf, tables=tables, manifests=manifests, progress=say)
