"""``fivehundred analyze``: statistics tables from one or more run directories."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fivehundred.cli.app import app


@app.command("analyze")
def analyze_cmd(
    run_dir: Annotated[Path, typer.Argument(help="Run directory (holds deals/*.parquet).")],
    compare: Annotated[
        list[Path] | None,
        typer.Option("--compare", help="Another run with the same seed to pair with RUN_DIR (repeatable)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Output directory (default RUN_DIR/stats).")
    ] = None,
    what_if: Annotated[
        str | None,
        typer.Option("--what-if", help="Replay analysis: 'misere' (forced MIS/OMIS left of dealer)."),
    ] = None,
    seat_strategy: Annotated[
        str | None,
        typer.Option(
            "--seat-strategy", help="Strategy for the what-if replays (default heuristic, else random)."
        ),
    ] = None,
    sample: Annotated[int, typer.Option("--sample", help="Deals replayed per run by --what-if.")] = 1000,
) -> None:
    """Bid success, misère viability, strategy and (with --compare) paired variant effects."""
    from fivehundred.cli.progress import StatusLine
    from fivehundred.pipelines.analysis import analyze

    runs = [run_dir, *(compare or [])]
    out_dir = out if out is not None else run_dir / "stats"
    with StatusLine() as status:
        tables = analyze(
            runs, out_dir, what_if=what_if, seat_strategy=seat_strategy, sample=sample, progress=status
        )
    for name, df in tables.items():
        typer.echo(f"{name:26s} {df.height:6d} rows")
    typer.echo(f"{len(tables)} tables (Parquet + CSV) in {out_dir}")
