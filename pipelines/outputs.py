"""Where results go: output folders and files checked before any work is done.

Every command that writes (``analyze --out``, ``report -o/--pdf``, ``tournament --out``, ``run
--out``) calls :func:`check_output_dir` or :func:`check_output_file` first, so that a folder that
cannot be written fails in one line before a single deal is read or played, and the check itself
leaves nothing behind (it makes and removes one empty folder in the nearest existing parent).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from fivehundred.pipelines.rundir import is_store
from fivehundred.sim.errors import UserError


class OutputError(UserError, ValueError):
    """An output folder or file that cannot be written, or that would land in a run's deal log."""


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError as exc:  # a name too long, a loop of links...
        raise OutputError(f"{path}: not a usable path ({exc.strerror or exc})") from None


def check_output_dir(
    path: str | Path, what: str = "output folder", runs: Iterable[str | Path] = ()
) -> Path | str:
    """``path`` as a folder this process can create or write in; :class:`OutputError` otherwise.
    An object-store URI (``s3://bucket/stats``) is checked as far as a store allows and returned as given.

    ``runs``: run directories whose ``deals/`` folder ``path`` must not be in (tables written there
    would become part files of the deal log).
    """
    if is_store(path):
        return _check_store_dir(str(path), what, runs)
    p = Path(path)
    if _exists(p) and not p.is_dir():
        raise OutputError(f"{what} {p}: exists and is not a folder")
    where = p.resolve()
    for run in runs:
        if is_store(run):
            continue
        deals = (Path(run) / "deals").resolve()
        if where == deals or deals in where.parents:
            raise OutputError(f"{what} {p}: is inside the deal log {deals}; choose a folder outside it")
    anchor = p
    while not _exists(anchor):
        anchor = anchor.parent
    if not anchor.is_dir():
        raise OutputError(f"{what} {p}: {anchor} is a file, not a folder")
    try:  # the one sure test (permissions, read-only or special filesystems), as root too
        os.rmdir(tempfile.mkdtemp(prefix=".fivehundred-write-test-", dir=anchor))
    except OSError as exc:
        raise OutputError(f"{what} {p}: cannot write in {anchor} ({exc.strerror or exc})") from None
    return p


def _check_store_dir(location: str, what: str, runs: Iterable[str | Path]) -> str:
    """An object-store folder: a URI pyarrow opens, not a file, and outside every run's deal log."""
    from fivehundred.pipelines.rundir import RunDir, StorageError

    try:
        folder = RunDir(location)
        if folder.exists() and not folder.is_dir():
            raise OutputError(f"{what} {location}: exists and is not a folder")
    except StorageError as exc:
        raise OutputError(f"{what} {exc}") from None
    except OSError as exc:
        raise OutputError(f"{what} {location}: cannot reach the store ({exc})") from None
    for run in runs:
        if not is_store(run):
            continue
        deals = RunDir(run).path("deals")
        if folder.root == deals or folder.root.startswith(deals + "/"):
            raise OutputError(
                f"{what} {location}: is inside the deal log of {run}; choose a folder outside it"
            )
    return location


def check_output_file(path: str | Path, what: str = "output file") -> Path:
    """``path`` as a file this process can write (not a folder; its folder creatable)."""
    p = Path(path)
    if _exists(p) and p.is_dir():
        raise OutputError(f"{what} {p}: is a folder; give a file name")
    if not p.name:
        raise OutputError(f"{what} {p}: give a file name")
    check_output_dir(p.parent, f"{what} {p}: the folder")
    return p
