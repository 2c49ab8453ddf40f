"""``fivehundred variants`` and ``fivehundred strategies``: what rule sets and bots exist."""

from __future__ import annotations

import typer

from cli.app import app


@app.command("variants")
def variants_cmd() -> None:
    """List the shipped rule variants."""
    from sim.rules import available_variants, load_rules

    for name in available_variants():
        rules = load_rules(name)
        desc = dict(rules.settings).get("description", "")
        typer.echo(f"{name:16s} {desc}")


@app.command("strategies")
def strategies_cmd() -> None:
    """List the registered strategies (built-in and from the fivehundred.strategies entry points)."""
    from strategies import available

    for name in available():
        typer.echo(name)
