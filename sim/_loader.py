"""Which engine core runs: the modules compiled by mypyc at install time, or the pure-Python source.

``setup.py`` (the build) owns the list of compiled modules; it compiles them when it can and writes
``sim/_core.json``, the record of each compiled source and its hash, which this module reads.
Importing :mod:`fivehundred.sim` calls :func:`choose_core` first: when ``FIVEHUNDRED_PURE`` is set,
or when a source no longer matches what was compiled (an edited checkout installed with
``pip install -e .``), an import hook makes the compiled modules load from their ``.py`` files, so
a stale compiled module never runs.  Both cores give identical results.
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

_ROOT = Path(__file__).resolve().parent.parent  # the folder that holds sim/ (fivehundred/ when installed)
#: The build's record of what it compiled: ``{"compiled": {source path relative to _ROOT: sha256}}``.
RECORD = "sim/_core.json"
_reason = ""


def module_name(source: str) -> str:
    """The import name of a source path of the record (``sim/engine.py`` -> ``fivehundred.sim.engine``)."""
    return "fivehundred." + source.removesuffix(".py").replace("/", ".")


def compiled_sources() -> dict[str, str]:
    """What the build compiled: source path -> sha256 of the source it compiled (empty if nothing)."""
    try:
        compiled = json.loads((_ROOT / RECORD).read_text())["compiled"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return dict(compiled) if isinstance(compiled, dict) else {}


class _PureFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules as source files, ahead of the compiled extensions beside them."""

    def __init__(self, sources: dict[str, str]) -> None:
        self.sources = sources  # import name -> source path relative to _ROOT

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        rel = self.sources.get(fullname)
        if rel is None:
            return None
        return importlib.util.spec_from_file_location(fullname, _ROOT / rel)


def _stale() -> str:
    for rel, digest in compiled_sources().items():
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
    sources = {module_name(rel): rel for rel in compiled_sources()}
    if any(name in sys.modules for name in sources):
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
        sys.meta_path.insert(0, _PureFinder(sources))


def core() -> dict[str, str]:
    """``{"core": "compiled"|"pure", "reason": ...}``: what this process runs, and why pure if so."""
    engine = sys.modules.get("fivehundred.sim.engine")
    file = getattr(engine, "__file__", "") or ""
    compiled = not file.endswith(".py")
    reason = "" if compiled else (_reason or "not compiled at install")
    return {"core": "compiled" if compiled else "pure", "reason": reason}


#: The C extensions the build compiled beside the core: source path -> import name (setup.py records them
#: under ``"c_extensions"``).
C_EXTENSIONS = {"sim/_ddc.c": "fivehundred.sim._ddc"}
_c_reason: dict[str, str] = {}


def c_extension(source: str) -> ModuleType | None:
    """The compiled C extension of ``source`` (a key of :data:`C_EXTENSIONS`), or None when it is not
    built or the source changed since it was built (a stale build never runs); then
    :func:`c_extension_reason` says why.  ``FIVEHUNDRED_PURE`` at run time concerns the mypyc core
    only: a C extension has no pure twin."""
    name = C_EXTENSIONS[source]
    try:
        built = json.loads((_ROOT / RECORD).read_text()).get("c_extensions", {})
    except (OSError, ValueError, AttributeError):
        built = {}
    digest = built.get(source) if isinstance(built, dict) else None
    if digest is None:
        _c_reason[source] = "not compiled at install (FIVEHUNDRED_PURE=1 installs no compiled code)"
        return None
    try:
        now = hashlib.sha256((_ROOT / source).read_bytes()).hexdigest()
    except OSError:
        now = digest  # an installed wheel holds the extension, not its source
    if now != digest:
        _c_reason[source] = f"{source} changed since it was compiled (reinstall: pip install -e .)"
        return None
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        _c_reason[source] = f"cannot import {name} ({exc})"
        return None


def c_extension_reason(source: str) -> str:
    """Why :func:`c_extension` gave None for ``source`` ("" when it did not, or was not asked)."""
    return _c_reason.get(source, "")
