"""Reading a TOML config file (variant, run, tournament) with one-line errors for every failure."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from fivehundred.sim.errors import UserError


def read_text(path: Path, what: str, error: type[UserError], expected: str = "") -> str:
    """The UTF-8 text of an input file; every way it cannot be read raises ``error`` (one line).

    ``what`` names the kind of file (``variant``, ``positions``...) in the messages, ``expected``
    what a directory was taken for (default: a ``what`` file).  Shared by every input file, so that a
    missing file, a directory, unreadable bytes and text that is not UTF-8 read alike everywhere.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise error(f"{path}: no such {what} file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, expected {expected or f'a {what} file'}") from None
    except OSError as exc:
        raise error(f"{path}: cannot read the {what} file ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_toml(path: Path, what: str, error: type[UserError]) -> dict[str, Any]:
    """The table of a TOML config file; every way it cannot be read raises ``error`` (one line).

    ``what`` names the kind of file (``variant``, ``run config``...) in the messages.  Shared by the
    variant, run and tournament loaders (:func:`read_text`, then the TOML parser).
    """
    text = read_text(path, what, error, expected=f"a {what} .toml file")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML ({' '.join(str(exc).split())})") from None
