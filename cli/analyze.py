"""``fivehundred analyze``: statistics tables from one or more run directories."""

from __future__ import annotations

from typing import Annotated

import typer

from fivehundred.cli.app import app, optional_values, sigterm_as_ctrl_c
from fivehundred.cli.options import PartialOption
from fivehundred.pipelines.rundir import join

#: ``--dd`` alone means ``--dd contract``; ``--dd par`` (cli.app.optional_values).
DD_VALUES = {"--dd": ("contract", ("contract", "par"))}


@app.command("analyze", cls=optional_values(DD_VALUES))
def analyze_cmd(
    run_dir: Annotated[str, typer.Argument(help="Run directory (a path or a URI such as s3://bucket/run).")],
    compare: Annotated[
        list[str] | None,
        typer.Option(
            "--compare",
            metavar="RUN_DIR",
            help="Another run with the same seed to pair with RUN_DIR (repeatable).",
        ),
    ] = None,
    out: Annotated[
        str | None, typer.Option("--out", help="Output directory or URI (default RUN_DIR/stats).")
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
    dd: Annotated[
        str | None,
        typer.Option(
            "--dd",
            metavar="[contract|par]",
            help="Double-dummy tables of the contracts as played (RUN_DIR/dd/); 'par': also every seat's "
            "DD tricks and the par contract (RUN_DIR/dd_par/).",
        ),
    ] = None,
    dd_sample: Annotated[
        int | None,
        typer.Option(
            "--dd-sample",
            help="--dd on a fixed sample of N deals per run (the same hands in every run of a seed).",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            help="Ray workers reading the runs' batches and replaying --what-if (default: in this "
            "process) and solving --dd (default: all cores); 0: everything in this process.",
        ),
    ] = None,
    address: Annotated[
        str | None,
        typer.Option("--address", help="Join an existing Ray cluster (host:port) for the batches and --dd."),
    ] = None,
    partial: PartialOption = False,
) -> None:
    """Bid success, misère viability, strategy and (with --compare) paired variant effects."""
    from fivehundred.cli.progress import StatusLine
    from fivehundred.pipelines.analysis import analyze

    runs = [run_dir, *(compare or [])]
    with StatusLine() as status, sigterm_as_ctrl_c():

        def dd_progress(run: str, done: int, total: int) -> None:
            status.update(f"dd: {run}: {done:,}/{total:,} parts solved", force=done == total)

        tables = analyze(
            runs,
            out,
            what_if=what_if,
            seat_strategy=seat_strategy,
            sample=sample,
            dd=dd if dd is not None else ("contract" if dd_sample is not None else None),
            dd_sample=dd_sample,
            workers=workers,
            address=address,
            progress=status,
            dd_progress=dd_progress,
            notice=status.log,
            partial=partial,
        )
    for name, df in tables.items():
        typer.echo(f"{name:26s} {df.height:6d} rows")
    typer.echo(f"{len(tables)} tables (Parquet + CSV) in {tables_location(run_dir, out)}")


def tables_location(run_dir: str, out: str | None) -> str:
    """Where ``analyze`` wrote the tables, as the user gave it (``--out``, else ``RUN_DIR/stats``)."""
    return out if out is not None else join(run_dir, "stats")
