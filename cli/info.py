"""``fivehundred variants`` and ``fivehundred strategies``: what rule sets and bots exist."""

from __future__ import annotations

from typing import Annotated

import typer

from fivehundred.cli.app import app


@app.command("variants")
def variants_cmd(
    action: Annotated[str | None, typer.Argument(help="'show' to describe one variant.")] = None,
    name: Annotated[str | None, typer.Argument(help="The variant to show (name or .toml file).")] = None,
) -> None:
    """List the shipped rule variants; 'variants show NAME' prints one's rules in words."""
    from fivehundred.sim.errors import UserError
    from fivehundred.sim.rules import available_variants, describe_variant, load_rules

    if action is None:
        for variant in available_variants():
            desc = dict(load_rules(variant).settings).get("description", "")
            typer.echo(f"{variant:16s} {desc}")
        return
    if action != "show":
        hint = f" (to describe it: fivehundred variants show {action})" if name is None else ""
        raise UserError(f"fivehundred variants: unknown action '{action}': the action is 'show'{hint}")
    if name is None:
        raise UserError("fivehundred variants show: missing NAME (see fivehundred variants)")
    info = describe_variant(name)
    typer.echo(f"{info.name}: {info.description}" if info.description else info.name)
    typer.echo("")
    typer.echo("Rules:")
    for _key, _value, words in info.rules:
        typer.echo(f"  - {words}")
    typer.echo("")
    if info.name == info.base:
        typer.echo(f"{info.name} is the base rule set.")
    elif not info.differences:
        typer.echo(f"The same rules as {info.base}.")
    else:
        typer.echo(f"Differences from {info.base}:")
        for key, _base, _value, words in info.differences:
            typer.echo(f"  - {words} [{key}]")


@app.command("strategies")
def strategies_cmd(
    describe: Annotated[
        bool, typer.Option("--describe", help="List each bot's parameters: default, allowed values, meaning.")
    ] = False,
) -> None:
    """List the registered strategies (built-in and from the fivehundred.strategies entry points), one
    line each; any class in a file or module plays too (path/to/bot.py:Class, docs/writing-a-bot.md)."""
    from fivehundred.strategies import available
    from fivehundred.strategies.base import describe_params, summary

    names = available()
    width = max(len(n) for n in names) + 2
    for name in names:
        typer.echo(f"{name:<{width}}{summary(name)}".rstrip())
        if not describe:
            continue
        params = describe_params(name)
        if not params:
            typer.echo("  (no parameters)")
        for p in params:
            typer.echo(f"  {p.name} = {p.default_text}  ({p.allowed}): {p.meaning}")


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
