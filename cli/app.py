"""The Typer application object shared by the command modules."""

import typer

app = typer.Typer(
    name="fivehundred",
    help="Five Hundred (500) simulation, statistics and reports.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
