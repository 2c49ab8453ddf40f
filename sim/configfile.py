"""Reading a TOML config file (variant, run, tournament) with one-line errors for every failure."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from fivehundred.sim.errors import UserError


def read_toml(path: Path, what: str, error: type[UserError]) -> dict[str, Any]:
    """The table of a TOML config file; every way it cannot be read raises ``error`` (one line).

    ``what`` names the kind of file (``variant``, ``run config``...) in the messages.  Shared by the
    variant, run and tournament loaders, so that a missing file, a directory, unreadable bytes, text
    that is not UTF-8 and invalid TOML read alike everywhere.
    """
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise error(f"{path}: no such {what} file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, expected a {what} .toml file") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start}); a {what} file is TOML") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML ({' '.join(str(exc).split())})") from None
    except OSError as exc:
        raise error(f"{path}: cannot read the {what} file ({exc.strerror or exc})") from None
