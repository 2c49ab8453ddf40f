"""``fivehundred variants`` and ``fivehundred strategies``: what rule sets and bots exist."""

from __future__ import annotations

import typer

from fivehundred.cli.app import app


@app.command("variants")
def variants_cmd() -> None:
    """List the shipped rule variants."""
    from fivehundred.sim.rules import available_variants, load_rules

    for name in available_variants():
        rules = load_rules(name)
        desc = dict(rules.settings).get("description", "")
        typer.echo(f"{name:16s} {desc}")


@app.command("strategies")
def strategies_cmd() -> None:
    """List the registered strategies (built-in and from the fivehundred.strategies entry points)."""
    from fivehundred.strategies import available

    for name in available():
        typer.echo(name)


@app.command("rule-paths")
def rule_paths_cmd(
    run_dir: str = typer.Argument(..., help="a run directory with deals/*.parquet"),
    strict: bool = typer.Option(False, "--strict", help="exit 1 if a path never occurs (not deal_limit)"),
) -> None:
    """Count how often a deal log walks each rare rule path (joker leads, misère stops, slam floor...)."""
    from fivehundred.pipelines.rule_paths import rule_paths

    table = rule_paths(run_dir)
    width = max(len(p) for p in table["path"])
    missing = []
    for path, deals, meaning in table.iter_rows():
        typer.echo(f"{path:<{width}}  {deals:>8}  {meaning}")
        if deals == 0 and path != "deal_limit":
            missing.append(path)
    if strict and missing:
        typer.echo(f"never occurred: {', '.join(missing)}", err=True)
        raise typer.Exit(1)
