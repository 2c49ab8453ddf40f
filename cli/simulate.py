"""``fivehundred simulate``: play games on Ray (or in-process) and write the deal log as Parquet."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fivehundred.cli.app import app, sigterm_as_ctrl_c
from fivehundred.cli.options import AddressOption, WorkersOption
from fivehundred.cli.progress import StatusLine, format_duration

if TYPE_CHECKING:
    from fivehundred.pipelines.simulate import Progress, RunSummary


class SimulationBar:
    """The run's progress as the command's :class:`~cli.progress.StatusLine`: deals done (finished
    games, committed or in a chunk in flight), the rate since the first chunk started, the ETA."""

    def __init__(self, status: StatusLine | None = None) -> None:
        self.status = status or StatusLine()

    def __call__(self, p: Progress) -> None:
        width = 20
        filled = int(p.fraction * width)
        target = (
            f"/{p.target_deals:,} deals"
            if p.target_deals
            else f" deals, {p.games_done:,}/{p.target_games:,} games"
        )
        rate = f"{p.deals_per_second:,.0f} deals/s" if p.playing > 0.5 else "starting"
        self.status.update(
            f"[{'#' * filled}{'.' * (width - filled)}] {p.fraction * 100:5.1f}% "
            f"{p.deals_done:,}{target}  {rate}  ETA {format_duration(p.eta)}"
        )

    def close(self) -> None:
        self.status.close()


def interrupted_text(exc: BaseException) -> str:
    """What Ctrl-C kept: the committed chunks' deals and games, and the games finished in chunks
    that were in flight (a resumed run plays only the rest)."""
    kept = getattr(exc, "games", None)
    if kept is None:
        return "interrupted: run the same command again to resume from the finished chunks"
    chunks = exc.chunks  # type: ignore[attr-defined]
    where = f"{chunks:,} whole {_plural(chunks, 'chunk')}"
    partial = getattr(exc, "partial_games", 0)
    if partial:
        open_chunks = exc.partial_chunks  # type: ignore[attr-defined]
        where += f" and {partial:,} {_plural(partial, 'game')} of {open_chunks:,} unfinished "
        where += _plural(open_chunks, "chunk")
    lost = getattr(exc, "lost_games", 0)
    redo = f"; {lost:,} games finished in chunks still in flight will be played again" if lost else ""
    deals = exc.deals  # type: ignore[attr-defined]
    return (
        f"interrupted: kept {deals:,} {_plural(deals, 'deal')} in {kept:,} {_plural(kept, 'game')} "
        f"({where}){redo}; run the same command again to resume after them"
    )


def _resumed_text(summary: RunSummary) -> str:
    """`` (3 chunks and 120 games of unfinished chunks were already done)``, or nothing."""
    done, games = summary.resumed_chunks, summary.resumed_partial_games
    kept = [f"{done:,} {_plural(done, 'chunk')}"] if done else []
    if games:
        kept.append(f"{games:,} {_plural(games, 'game')} of unfinished chunks")
    if not kept:
        return ""
    return f" ({' and '.join(kept)} {'was' if kept == ['1 chunk'] else 'were'} already done)"


def _plural(n: int, word: str) -> str:
    return word if n == 1 else word + "s"


@contextmanager
def simulation_bar() -> Iterator[SimulationBar]:
    """The simulations' live line for a command; Ctrl-C or SIGTERM meanwhile ends the command with
    what was kept (:func:`interrupted_text`) and exit status 130; the line is erased either way."""
    bar = SimulationBar()
    try:
        with sigterm_as_ctrl_c():
            yield bar
    except KeyboardInterrupt as exc:
        bar.close()
        typer.echo(interrupted_text(exc), err=True)
        raise typer.Exit(130) from None
    finally:
        bar.close()


@app.command("simulate")
def simulate_cmd(
    games: Annotated[int | None, typer.Option("--games", help="Play games 0..N-1.")] = None,
    deals: Annotated[
        int | None, typer.Option("--deals", help="Play the fewest whole games whose deals reach N.")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Master seed (0 to 2^64 - 1).")] = None,
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
    from fivehundred.pipelines.storelock import lock_note

    note = lock_note(cfg.out)
    if note:
        typer.echo(f"warning: {note}", err=True)
    with simulation_bar() as bar:
        summary = run_simulation(cfg, progress=bar, overwrite=overwrite)
    resumed = _resumed_text(summary)
    if summary.session_deals == 0:
        typer.echo(f"run already complete: {summary.deals:,} deals in {summary.games:,} games{resumed}")
        typer.echo(f"deal log: {summary.deals_glob}")
        return
    if cfg.deals is not None:
        typer.echo(f"asked for at least {cfg.deals:,} deals: played {summary.deals:,} (whole games)")
    typer.echo(
        f"{summary.deals:,} deals in {summary.games:,} games, {summary.chunks:,} "
        f"{_plural(summary.chunks, 'part file')}{resumed}\n"
        f"this session: {summary.session_deals:,} deals in {summary.elapsed:.1f} s "
        f"({summary.deals_per_second:,.0f} deals/s, {summary.workers}, {summary.tasks:,} "
        f"{_plural(summary.tasks, 'task')})\n"
        f"deal log: {summary.deals_glob}"
    )
