"""Entry point of the ``fivehundred`` command: the app with every command module registered.

A :class:`~sim.errors.UserError` (bad config, unknown name, missing file) is printed as one line
on stderr with exit status 2, never as a traceback.
"""

from __future__ import annotations

import sys

import typer

from fivehundred.cli.app import app
from fivehundred.sim.errors import UserError

# Each module registers its commands on `app` when imported.
for _module in (
    "fivehundred.cli.info",
    "fivehundred.cli.simulate",
    "fivehundred.cli.analyze",
    "fivehundred.cli.report",
    "fivehundred.cli.replay",
    "fivehundred.cli.tournament",
    "fivehundred.cli.run",
):
    try:
        __import__(_module)
    except ModuleNotFoundError as _exc:  # a command module not written yet
        if _exc.name != _module:
            raise


def main() -> None:
    """Run the CLI, turning user mistakes into one-line errors (usage errors are Typer's own)."""
    try:
        app()
    except UserError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
