"""``fivehundred simulate``: play games on Ray (or in-process) and write the deal log as Parquet."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fivehundred.cli.app import app, sigterm_as_ctrl_c

if TYPE_CHECKING:
    from fivehundred.pipelines.simulate import Progress


def fmt_time(seconds: float | None) -> str:
    """Seconds as ``mm:ss`` or ``h:mm:ss`` (``--:--`` when unknown)."""
    if seconds is None:
        return "--:--"
    seconds = int(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class _Bar:
    """A one-line progress bar on stderr (only when stderr is a terminal)."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.last = 0.0

    def __call__(self, p: Progress) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < 0.2 and p.fraction < 1.0:
            return
        self.last = now
        width = 28
        filled = int(p.fraction * width)
        target = (
            f"/{p.target_deals:,} deals"
            if p.target_deals
            else f" deals, {p.games:,}/{p.target_games:,} games"
        )
        line = (
            f"\r[{'#' * filled}{'.' * (width - filled)}] {p.fraction * 100:5.1f}% "
            f"{p.deals:,}{target}  {p.deals_per_second:,.0f} deals/s  ETA {fmt_time(p.eta)} "
        )
        sys.stderr.write(line)
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.last:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.last = 0.0


#: The ``--workers`` and ``--address`` flags of every command that plays on Ray.
WorkersOption = Annotated[
    int | None, typer.Option("--workers", help="Parallel workers (default: all cores; 0: in-process).")
]
AddressOption = Annotated[
    str | None, typer.Option("--address", help="Join an existing Ray cluster (host:port).")
]


@app.command("simulate")
def simulate_cmd(
    games: Annotated[int | None, typer.Option("--games", help="Play games 0..N-1.")] = None,
    deals: Annotated[
        int | None, typer.Option("--deals", help="Play the fewest whole games whose deals reach N.")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Master seed (0 <= S < 2**64).")] = None,
    out: Annotated[str | None, typer.Option("--out", help="Run directory (a path or a pyarrow URI).")] = None,
    strategies: Annotated[
        str | None,
        typer.Option("--strategies", help="Strategy per seat, a,b,c,d (one name = all seats)."),
    ] = None,
    variant: Annotated[str | None, typer.Option("--variant", help="Variant name or .toml file.")] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Run config TOML (configs/runs/); flags override it.")
    ] = None,
    workers: WorkersOption = None,
    address: AddressOption = None,
    chunk_size: Annotated[
        int | None, typer.Option("--chunk-size", help="Games per chunk (one part file each).")
    ] = None,
    max_retries: Annotated[
        int | None, typer.Option("--max-retries", help="Retries of a chunk after a worker or node dies.")
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace a run directory that holds a different run.")
    ] = False,
    isolate: Annotated[
        bool | None,
        typer.Option("--isolate", help="Run each seat's strategy in its own process (same results)."),
    ] = None,
) -> None:
    """Simulate games and stream the deal log to RUN_DIR/deals/*.parquet (resumable)."""
    from fivehundred.pipelines.runconfig import load_config
    from fivehundred.pipelines.simulate import run_simulation

    cfg = load_config(
        config,
        games=games,
        deals=deals,
        seed=seed,
        out=out,
        strategies=strategies,
        variant=variant,
        workers=workers,
        address=address,
        chunk_size=chunk_size,
        max_retries=max_retries,
        isolate=isolate,
    )
    bar = _Bar()
    try:
        with sigterm_as_ctrl_c():
            summary = run_simulation(cfg, progress=bar, overwrite=overwrite)
    except KeyboardInterrupt:
        bar.close()
        typer.echo("interrupted: run the same command again to resume from the finished chunks", err=True)
        raise typer.Exit(130) from None
    finally:
        bar.close()
    resumed = f" ({summary.resumed_chunks} chunks were already done)" if summary.resumed_chunks else ""
    if summary.session_deals == 0:
        typer.echo(f"run already complete: {summary.deals:,} deals in {summary.games:,} games{resumed}")
        typer.echo(f"deal log: {summary.deals_glob}")
        return
    typer.echo(
        f"{summary.deals:,} deals in {summary.games:,} games, {summary.chunks} chunks{resumed}\n"
        f"this session: {summary.session_deals:,} deals in {summary.elapsed:.1f} s "
        f"({summary.deals_per_second:,.0f} deals/s, {summary.workers})\n"
        f"deal log: {summary.deals_glob}"
    )
