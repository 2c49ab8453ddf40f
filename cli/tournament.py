"""``fivehundred tournament CONFIG.toml``: duplicate matches, a round robin or a gauntlet between bots."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from fivehundred.cli.app import app, sigterm_as_ctrl_c


class _LiveLine:
    """Prints each match's status on stderr: rewritten in place on a terminal, else every few seconds."""

    def __init__(self, every: float = 2.0) -> None:
        self.tty = sys.stderr.isatty()
        self.every = every
        self.last = 0.0
        self.shown = ""

    def __call__(self, status: object) -> None:
        line = status.line()  # type: ignore[attr-defined]
        now = time.monotonic()
        if self.tty:
            typer.echo("\r\x1b[2K" + line, err=True, nl=False)
            self.shown = line
        elif now - self.last >= self.every or status.decision in ("H0", "H1"):  # type: ignore[attr-defined]
            typer.echo(line, err=True)
            self.last = now

    def close(self) -> None:
        if self.tty and self.shown:
            typer.echo("", err=True)


@app.command("tournament")
def tournament_cmd(
    config: Annotated[Path, typer.Argument(help="Tournament config (configs/tournaments/*.toml).")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Output directory (default: runs/tournaments/<name>).")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=0, help="Parallel Ray workers (default: all cores; 0: in-process)."),
    ] = None,
    address: Annotated[
        str | None, typer.Option("--address", help="Join an existing Ray cluster (host:port).")
    ] = None,
    isolate: Annotated[
        bool,
        typer.Option("--isolate", help="Run every entry's strategy in its own process (same results)."),
    ] = False,
) -> None:
    """Play a duplicate match, round robin or gauntlet; print results; write tables and the deal log."""
    from fivehundred.pipelines.tournament import InProcessExecutor, RayExecutor, load_config, run_tournament

    cfg = load_config(config)
    if isolate:
        from dataclasses import replace

        cfg = replace(cfg, isolate=True)
    out_dir = out or Path("runs") / "tournaments" / cfg.name
    executor = InProcessExecutor() if workers == 0 and not address else RayExecutor(workers or None, address)
    live = _LiveLine()
    try:
        with sigterm_as_ctrl_c():
            result = run_tournament(cfg, out_dir, executor=executor, on_progress=live)
    except KeyboardInterrupt:
        live.close()
        typer.echo("interrupted: run the same command again to resume from the finished chunks", err=True)
        raise typer.Exit(130) from None
    live.close()
    for status in result.statuses:
        typer.echo(status.line())
    typer.echo("")
    typer.echo(result.markdown)
    where = result.out_dir
    typer.echo(f"wrote {where}/tables/ (matches, entries, tournament.md) and {where}/deals/")
