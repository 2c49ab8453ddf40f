"""``fivehundred replay RUN_DIR DEAL_ID`` (or ``--game G``) and ``fivehundred verify RUN_DIR``."""

from __future__ import annotations

from typing import Annotated

import typer

from fivehundred.cli.app import app
from fivehundred.cli.options import PartialOption


@app.command("replay")
def replay_cmd(
    run_dir: Annotated[str, typer.Argument(help="Run directory (a path or a URI such as s3://bucket/run).")],
    deal_id: Annotated[
        int | None, typer.Argument(help="The deal's id in the log (deal_id, as --game and verify show it).")
    ] = None,
    game: Annotated[
        int | None,
        typer.Option(
            "--game", min=1, help="Show game N (counted from 1, as play numbers them) deal by deal."
        ),
    ] = None,
    partial: PartialOption = False,
) -> None:
    """Show one deal as a player reads it (hands, kitty, auction, contract, discards, tricks, score),
    or with --game a whole game deal by deal, as play shows it."""
    from fivehundred.pipelines.verify import RunError, replay_deal, replay_game
    from fivehundred.sim.notation import game_id_of

    if game is not None:
        if deal_id is not None:
            raise RunError("replay: give a deal id or --game, not both")
        from fivehundred.cli.display import game_replay_text

        typer.echo(game_replay_text(replay_game(run_dir, game_id_of(game), partial=partial)))
        return
    if deal_id is None:
        raise RunError("replay: give a deal id (replay RUN_DIR DEAL_ID) or --game G")
    typer.echo(replay_deal(run_dir, deal_id, partial=partial).to_text())


@app.command("verify")
def verify_cmd(
    run_dir: Annotated[str, typer.Argument(help="Run directory (a path or a URI such as s3://bucket/run).")],
    max_findings: Annotated[
        int,
        typer.Option("--max-findings", min=0, help="Stop after this many findings (0: check every deal)."),
    ] = 0,
    rules_only: Annotated[
        bool,
        typer.Option(
            "--rules-only",
            help="Check every rule of a log another program wrote (no seed, schema or manifest check).",
        ),
    ] = False,
    variant: Annotated[
        str | None,
        typer.Option(
            "--variant", help="The rules (name or TOML file), instead of the manifest or variant column."
        ),
    ] = None,
    partial: PartialOption = False,
) -> None:
    """Replay every deal through the engine; print each finding with its deal id; exit 1 on any."""
    from fivehundred.cli.progress import StatusLine
    from fivehundred.pipelines.verify import verify_run

    status = StatusLine()
    try:
        result = verify_run(
            run_dir,
            max_findings=max_findings or None,
            rules_only=rules_only,
            variant=variant,
            progress=lambda done, total: status.update(f"verified {done:,}/{total:,} deals"),
            partial=partial,
        )
    finally:
        status.close()
    for finding in result.findings:
        typer.echo(str(finding))
    typer.echo(result.summary())
    if not result.ok:
        raise typer.Exit(1)
