"""The Typer application object shared by the command modules."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import typer

app = typer.Typer(
    name="fivehundred",
    help="Five Hundred (500) simulation, statistics and reports.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """SIGTERM (a scheduler, ``kill``) stops like Ctrl-C meanwhile: committed work recorded, Ray shut down.

    :class:`~pipelines.chunks.RayPool` puts this handler back after ``ray.init`` (which installs its own).
    """
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
