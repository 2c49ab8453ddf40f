"""``fivehundred dd``: double-dummy results of positions given as JSON lines (docs/dd.md)."""

from __future__ import annotations

import sys
import time
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
    from fivehundred.pipelines.dd import solve_positions

    last = [time.monotonic(), 0.0]  # the last line's time; whether one was printed

    def progress(done: int, total: int) -> None:  # a line every 2 s, and the last if any was printed
        now = time.monotonic()
        if now - last[0] >= 2.0 or (done == total and last[1]):
            last[0], last[1] = now, 1.0
            print(f"dd: {done}/{total} positions solved", file=sys.stderr, flush=True)

    results = solve_positions(positions, out, progress=progress)
    typer.echo(f"{len(results)} positions solved, written to {out}")
