"""``fivehundred hand "JK JH ..."``: what a hand makes double dummy, and what to bid (docs/hand.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from fivehundred.cli.app import app


@app.command("hand")
def hand_cmd(
    hand: Annotated[
        str,
        typer.Argument(help='The hand: card names, as in "JK JH JD AH KH QH TH 5C 5S 6D" (or 10H, 10♥).'),
    ],
    variant: Annotated[str, typer.Option("--variant", help="Variant name or .toml file.")] = "pagat-au",
    seat: Annotated[int, typer.Option("--seat", help="The hand's seat.")] = 0,
    dealer: Annotated[
        int | None, typer.Option("--dealer", help="The dealer (default: the seat on your right).")
    ] = None,
    constraints: Annotated[
        str,
        typer.Option(
            "--constraints", help='What is known of the unseen cards ("partner: H>=3; kitty: no JK").'
        ),
    ] = "",
    deals: Annotated[int, typer.Option("--deals", help="Deals of the unseen cards to solve.")] = 200,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the deals.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole result as JSON.")] = False,
    plot: Annotated[Path | None, typer.Option("--plot", help="Draw the trick distributions (a PNG).")] = None,
) -> None:
    """Deal the unseen cards many times and solve each denomination double dummy."""
    from fivehundred.reports.hand import hand_text, plot_hand
    from fivehundred.tools.hand import HandError, analyse_hand

    if plot is not None:
        if plot.suffix.lower() != ".png":
            raise HandError(f"--plot {plot}: give a .png file")
        if not plot.parent.is_dir():
            raise HandError(f"--plot {plot}: no folder {plot.parent}")
        if plot.is_dir():
            raise HandError(f"--plot {plot}: is a folder")
    result = analyse_hand(hand, variant, seat, dealer, constraints, deals, seed)
    data = result.to_dict()
    if plot is not None:
        plot_hand(data, plot)
    typer.echo(json.dumps(data, indent=1) if as_json else hand_text(data))
    if plot is not None:  # beside JSON on stdout, the note goes to stderr
        typer.echo(f"trick distributions drawn to {plot}", err=as_json)
