"""``fivehundred tournament CONFIG.toml``: duplicate matches, a round robin or a gauntlet between bots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fivehundred.cli.app import app, sigterm_as_ctrl_c
from fivehundred.cli.options import AddressOption
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


def standings(entries: pl.DataFrame, width: int = 100) -> list[str]:
    """The entries table in a few columns (rank, entry, games, score, rating with its interval; a
    perfect or a null score's rating as a one-sided bound, as the live line shows it), each row in
    ``width`` characters where it can be (a long row's rating goes on a line of its own)."""
    from fivehundred.pipelines.tournament.live import fmt_num, fmt_signed

    name = max([5, *(len(e) for e in entries["entry"])])
    lines = [f"{'rank':>4}  {'entry':<{name}} {'games':>7} {'score':>6}  rating"]
    for row in entries.iter_rows(named=True):
        score = fmt_num(100 * row["score"], 1) + "%"
        if row["score"] >= 1.0:
            rating = f"> {fmt_signed(row['rating_low'], 0)} (one-sided: all won)"
        elif row["score"] <= 0.0:
            rating = f"< {fmt_signed(row['rating_high'], 0)} (one-sided: all lost)"
        else:
            rating = f"{fmt_signed(row['rating'], 0)} [{fmt_signed(row['rating_low'], 0)}, "
            rating += f"{fmt_signed(row['rating_high'], 0)}]"
        head = f"{row['rank']:>4}  {row['entry']:<{name}} {row['games']:>7,} {score:>6}"
        if len(head) + 2 + len(rating) <= width:
            lines.append(f"{head}  {rating}")
        else:
            lines += [head.rstrip(), f"{'':>6}rating {rating}"]
    return lines


@app.command("tournament")
def tournament_cmd(
    config: Annotated[
        Path | None,
        typer.Argument(help="Tournament config (configs/tournaments/*.toml); or give --entry twice or more."),
    ] = None,
    entry: Annotated[
        list[str] | None,
        typer.Option(
            "--entry",
            help="A strategy spec as an entry, instead of a config: heuristic.v2, "
            "heuristic(aggression=1.0), package.module:Class or path/to/bot.py:Class.",
        ),
    ] = None,
    pairs: Annotated[
        int | None,
        typer.Option(
            "--pairs",
            min=1,
            help="Game pairs per match (a config's SPRT: its cap); default: the config's, 100 with --entry.",
        ),
    ] = None,
    variant: Annotated[str, typer.Option("--variant", help="Rule set of an --entry match.")] = "pagat-au",
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of an --entry match's boards.")] = 0,
    out: Annotated[
        str | None,
        typer.Option("--out", help="Output directory or URI (default: runs/tournaments/<name>)."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=0, help="Parallel Ray workers (default: all cores; 0: in-process)."),
    ] = None,
    address: AddressOption = None,
    isolate: Annotated[
        bool,
        typer.Option("--isolate", help="Run every entry's strategy in its own process (same results)."),
    ] = False,
) -> None:
    """Play a duplicate match, round robin or gauntlet; print results; write tables and the deal log."""
    import sys

    from fivehundred.cli.progress import terminal_width, wrap_parts
    from fivehundred.pipelines.tournament import InProcessExecutor, RayExecutor, load_config, run_tournament
    from fivehundred.pipelines.tournament.config import (
        TournamentConfigError,
        config_from_specs,
        with_pairs,
    )

    if config is not None and entry:
        raise TournamentConfigError("tournament: give a config file or --entry, not both")
    if config is None:
        if not entry or len(entry) < 2:
            raise TournamentConfigError(
                "tournament: give a config file, or --entry twice or more "
                "(tournament --entry path/to/bot.py:MyBot --entry heuristic.v2)"
            )
        cfg = config_from_specs(list(entry), variant=variant, seed=seed, pairs=pairs or 100)
    else:
        cfg = load_config(config)
        if pairs is not None:
            cfg = with_pairs(cfg, pairs)
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
    width = terminal_width(sys.stdout)
    for status in result.statuses:
        for line in wrap_parts(status.parts(), width):
            typer.echo(line)
    typer.echo("")
    for line in standings(result.entries, width):
        typer.echo(line)
    where = str(out_dir).rstrip("/")  # as the user named it (or the default, relative)
    typer.echo(f"full tables: {where}/tables/tournament.md (and as Parquet)")
    typer.echo(f"deal log: {where}/deals/")
