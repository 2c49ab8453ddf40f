"""``fivehundred dd``: double-dummy results of positions given as JSON lines (docs/dd.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fivehundred.cli.app import app


@app.command("dd")
def dd_cmd(
    positions: Annotated[Path, typer.Argument(help="Positions, one JSON object per line (docs/dd.md).")],
    out: Annotated[Path, typer.Option("--out", help="Output JSON lines: each object with dd_tricks added.")],
) -> None:
    """The declaring side's tricks under double-dummy play (misère: 0 = the declarer avoids every trick)."""
    from fivehundred.cli.progress import StatusLine
    from fivehundred.pipelines.dd import solve_positions

    with StatusLine() as status:

        def progress(done: int, total: int) -> None:
            status.update(f"dd: {done:,}/{total:,} positions solved")

        results = solve_positions(positions, out, progress=progress)
    typer.echo(f"{len(results)} positions solved, written to {out}")
