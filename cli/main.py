"""Entry point of the ``fivehundred`` command: the app with every command module registered.

A :class:`~sim.errors.UserError` (bad config, unknown name, missing file) and every usage error are
printed as one line ``error: ...`` on stderr with exit status 2, never as a traceback: the app's
group does it (:mod:`cli.app`), so tests through ``CliRunner`` see what the command prints.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import typer

from fivehundred.cli.app import app

# Each module registers its commands on `app` when imported.
for _module in (
    "fivehundred.cli.info",
    "fivehundred.cli.simulate",
    "fivehundred.cli.analyze",
    "fivehundred.cli.report",
    "fivehundred.cli.replay",
    "fivehundred.cli.tournament",
    "fivehundred.cli.run",
    "fivehundred.cli.play",
    "fivehundred.cli.sweep",
    "fivehundred.cli.dd",
    "fivehundred.cli.hand",
):
    try:
        __import__(_module)
    except ModuleNotFoundError as _exc:  # a command module not written yet
        if _exc.name != _module:
            raise


@lru_cache(maxsize=1)
def command() -> Any:
    """The app's Click command, built once (Typer builds it anew at each call of the app, about 40 ms
    for this many commands)."""
    return typer.main.get_command(app)


def main() -> None:
    """Run the CLI: exits 0, or 2 after one ``error: ...`` line for a user mistake (see :mod:`cli.app`)."""
    command()()


if __name__ == "__main__":
    main()
