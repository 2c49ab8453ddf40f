"""``fivehundred run``: the main job - simulate a default config on embedded Ray, analyse, report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fivehundred.cli.app import app


@app.command("run")
def run_cmd(
    deals: Annotated[
        int | None, typer.Option("--deals", min=1, help="Deals of the main run (default: the config's).")
    ] = None,
    out: Annotated[
        str, typer.Option("--out", help="Folder (or object-store URI) for the runs, statistics and report.")
    ] = "runs/main",
    config: Annotated[
        Path | None, typer.Option("--config", help="Run config TOML (default: configs/runs/default.toml).")
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", min=0, help="Ray workers (default: all cores; 0: in-process).")
    ] = None,
    compare_variant: Annotated[
        str,
        typer.Option("--compare-variant", help="Variant of the paired comparison run ('' to skip)."),
    ] = "club-004",
    what_if_sample: Annotated[
        int, typer.Option("--what-if-sample", min=0, help="Deals for the forced-misère what-if (0: skip).")
    ] = 1000,
    dd_sample: Annotated[
        int | None,
        typer.Option(
            "--dd-sample",
            min=0,
            help="Deals of each run solved double dummy (default: the config's; 0: none).",
        ),
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace runs in OUT made with another config.")
    ] = False,
) -> None:
    """Simulate the default config (and a paired variant run), analyse both, write the report."""
    from fivehundred.cli.job import run_main_job
    from fivehundred.cli.simulate import simulation_bar

    with simulation_bar() as bar:
        result = run_main_job(
            out,
            deals=deals,
            config=config,
            workers=workers,
            compare_variant=compare_variant or None,
            what_if_sample=what_if_sample,
            dd_sample=dd_sample,
            overwrite=overwrite,
            progress=bar.status,
            simulate_progress=bar,
        )
    typer.echo(result.summary())
    typer.echo(f"open {result.html} in a browser")
