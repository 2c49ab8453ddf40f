"""``fivehundred tournament CONFIG.toml``: duplicate matches, a round robin or a gauntlet between bots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fivehundred.cli.app import app, sigterm_as_ctrl_c
from fivehundred.cli.progress import StatusLine

if TYPE_CHECKING:
    import polars as pl

    from fivehundred.pipelines.tournament.live import MatchStatus


class _LiveLine:
    """Each match's status as the command's :class:`~cli.progress.StatusLine`: rewritten in place
    on a terminal (cut to its width, erased at the end so that the result is printed once), else a
    plain line every 30 seconds."""

    def __init__(self) -> None:
        self.status = StatusLine()

    def __call__(self, status: MatchStatus) -> None:
        self.status.update(status.line())

    def close(self) -> None:
        self.status.close()


def standings(entries: pl.DataFrame) -> list[str]:
    """The entries table in a few columns (rank, entry, games, score, rating with its interval)."""
    from fivehundred.pipelines.tournament.live import fmt_num, fmt_signed

    lines = [f"{'rank':>4}  {'entry':<20} {'games':>7} {'score':>6}  rating"]
    for row in entries.iter_rows(named=True):
        score = fmt_num(100 * row["score"], 1) + "%"
        rating = f"{fmt_signed(row['rating'], 0)} [{fmt_signed(row['rating_low'], 0)}, "
        rating += f"{fmt_signed(row['rating_high'], 0)}]"
        lines.append(f"{row['rank']:>4}  {row['entry']:<20} {row['games']:>7,} {score:>6}  {rating}")
    return lines


@app.command("tournament")
def tournament_cmd(
    config: Annotated[Path, typer.Argument(help="Tournament config (configs/tournaments/*.toml).")],
    out: Annotated[
        str | None,
        typer.Option("--out", help="Output directory or URI (default: runs/tournaments/<name>)."),
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
    out_dir = out or str(Path("runs") / "tournaments" / cfg.name)
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
    for line in standings(result.entries):
        typer.echo(line)
    where = result.out_dir
    typer.echo(f"full tables: {where}/tables/tournament.md (matches, entries also as Parquet)")
    typer.echo(f"deal log: {where}/deals/")
