"""``fivehundred dd``: double-dummy results of positions given as JSON lines (docs/dd.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fivehundred.cli.app import app


@app.command("dd")
def dd_cmd(
    positions: Annotated[Path, typer.Argument(help="Positions, one JSON object per line (docs/dd.md).")],
    out: Annotated[
        str,
        typer.Option(
            "--out",
            metavar="PATH",
            help="Output JSON lines, each object with dd_tricks added ('-': standard output).",
        ),
    ],
) -> None:
    """The declaring side's tricks under double-dummy play (misère: 0 = the declarer avoids every trick)."""
    from fivehundred.cli.progress import StatusLine
    from fivehundred.pipelines.dd import json_line, solve_positions

    to_stdout = out == "-"
    with StatusLine() as status:

        def progress(done: int, total: int) -> None:
            status.update(f"dd: {done:,}/{total:,} positions solved")

        results = solve_positions(positions, None if to_stdout else out, progress=progress)
    if to_stdout:
        for obj in results:
            typer.echo(json_line(obj))
        typer.echo(f"{len(results)} positions solved", err=True)
    else:
        typer.echo(f"{len(results)} positions solved, written to {out}")
