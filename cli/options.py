"""Flags shared by several commands, declared once: the same name, type and help everywhere."""

from __future__ import annotations

from typing import Annotated

import typer

#: ``--workers``: how many Ray workers play (every command that plays on Ray).
WorkersOption = Annotated[
    int | None, typer.Option("--workers", help="Parallel workers (default: all cores; 0: in-process).")
]
#: ``--address``: an existing Ray cluster to join.
AddressOption = Annotated[
    str | None, typer.Option("--address", help="Join an existing Ray cluster (host:port).")
]
#: ``--partial``: read a run that is not finished as it is (the reading commands).
PartialOption = Annotated[
    bool,
    typer.Option("--partial", help="Use a run that is not finished (still running or interrupted) as it is."),
]
