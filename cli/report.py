"""``fivehundred report RUN_DIR [--compare RUN_DIR ...] -o report.html [--pdf report.pdf]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fivehundred.cli.app import app
from fivehundred.cli.options import PartialOption


@app.command("report")
def report_cmd(
    run_dir: Annotated[str, typer.Argument(help="The main run directory (a path or a URI).")],
    out: Annotated[Path, typer.Option("-o", "--out", help="The HTML file to write.")] = Path("report.html"),
    compare: Annotated[
        list[str] | None,
        typer.Option("--compare", metavar="RUN_DIR", help="Another run with the same seed (repeatable)."),
    ] = None,
    pdf: Annotated[Path | None, typer.Option("--pdf", help="Also write this PDF.")] = None,
    stats: Annotated[
        str | None,
        typer.Option(
            "--stats", help="Read the statistics tables from this folder or URI (default: analyse the runs)."
        ),
    ] = None,
    partial: PartialOption = False,
) -> None:
    """Write one self-contained HTML report (figures embedded) and optionally a PDF."""
    from fivehundred.cli.progress import StatusLine
    from fivehundred.cli.statistics import make_report

    with StatusLine() as status:
        result = make_report(
            [run_dir, *(compare or [])], out, pdf=pdf, stats_dir=stats, progress=status, partial=partial
        )
    typer.echo(result.summary())
