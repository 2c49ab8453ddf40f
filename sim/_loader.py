"""Which engine core runs: the modules compiled by mypyc at install time, or the pure-Python source.

``setup.py`` compiles the modules of :data:`CORE` when it can and writes ``sim/_core.json`` with the
hash of each compiled source.  Importing :mod:`sim` calls :func:`choose_core` first: when
``FIVEHUNDRED_PURE`` is set, or when a source no longer matches what was compiled (an edited
checkout installed with ``pip install -e .``), an import hook makes the core modules load from
their ``.py`` files, so a stale compiled module never runs.  Both cores give identical results.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType

#: The modules setup.py compiles, and their sources relative to the folder that holds ``sim/``.
CORE = {
    "sim.rng": "sim/rng.py",
    "sim.cards": "sim/cards.py",
    "sim.seeding": "sim/seeding.py",
    "sim.engine": "sim/engine.py",
    "sim.game": "sim/game.py",
    "strategies.random_bot": "strategies/random_bot.py",
    "strategies.features": "strategies/features.py",
    "strategies.heuristic": "strategies/heuristic.py",
}
_ROOT = Path(__file__).resolve().parent.parent
_reason = ""


class _PureFinder(importlib.abc.MetaPathFinder):
    """Finds the core modules as source files, ahead of any compiled extension beside them."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        rel = CORE.get(fullname)
        if rel is None:
            return None
        return importlib.util.spec_from_file_location(fullname, _ROOT / rel)


def _stale() -> str:
    record = _ROOT / "sim" / "_core.json"
    try:
        compiled = json.loads(record.read_text())["compiled"]
    except (OSError, ValueError, KeyError, TypeError):
        return ""  # nothing was compiled: the sources are all there is
    for rel, digest in compiled.items():
        try:
            now = hashlib.sha256((_ROOT / rel).read_bytes()).hexdigest()
        except OSError:
            continue
        if now != digest:
            return rel
    return ""


def choose_core() -> None:
    """Load the core from source when asked to or when the compiled modules are stale."""
    global _reason
    if any(name in sys.modules for name in CORE):
        return  # already chosen (this runs once per process, before the first core import)
    if os.environ.get("FIVEHUNDRED_PURE", "") not in ("", "0"):
        _reason = "FIVEHUNDRED_PURE is set"
    else:
        stale = _stale()
        if stale:
            _reason = f"{stale} changed since it was compiled"
            warnings.warn(
                f"fivehundred: {_reason}; running the pure-Python core (slower, same results). "
                "Reinstall (pip install -e .) to recompile.",
                stacklevel=3,
            )
    if _reason:
        sys.meta_path.insert(0, _PureFinder())


def core() -> dict[str, str]:
    """``{"core": "compiled"|"pure", "reason": ...}``: what this process runs, and why pure if so."""
    engine = sys.modules.get("sim.engine")
    file = getattr(engine, "__file__", "") or ""
    compiled = not file.endswith(".py")
    reason = "" if compiled else (_reason or "not compiled at install")
    return {"core": "compiled" if compiled else "pure", "reason": reason}
