"""Build script: compiles the engine's hot modules with mypyc when it can (pyproject.toml has the rest).

The compiled modules are the same Python source, so they give the same results as the pure ones,
only faster.  Set ``FIVEHUNDRED_PURE=1`` to install pure Python; when no C compiler works the build
falls back to pure Python by itself.  ``sim/_core.json`` records which sources were compiled (and
their hashes), so ``import fivehundred.sim`` can tell a stale compiled module from a fresh one.

The checkout keeps its top-level folders (``sim/``, ``strategies/``, ...); they install as the
packages of one namespace, ``fivehundred.sim``, ``fivehundred.strategies``, ... (pyproject.toml maps
them).  mypyc names a module by its path, so the compiled sources are staged under
``build/mypyc-src/fivehundred/`` first.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


#: The modules compiled with mypyc (source paths in this checkout; installed as ``fivehundred.<path>``).
#: This list belongs to the build: the engine reads what was compiled from the record below.
CORE = (
    "sim/rng.py",
    "sim/notation.py",
    "sim/cards.py",
    "sim/seeding.py",
    "sim/engine.py",
    "sim/game.py",
    "sim/dd.py",
    "strategies/random_bot.py",
    "strategies/tables.py",
    "strategies/estimates.py",
    "strategies/sampling.py",
    "strategies/heuristic.py",
    "strategies/heuristic2.py",
)
#: The packages whose sources mypy reads while compiling (copied into the staging tree).
STAGED = ("sim", "strategies")
RECORD = "sim/_core.json"
GROUP = "_fivehundred_core"  # the shared library: ``_fivehundred_core__mypyc`` (a private top-level name)
STAGE = ROOT / "build" / "mypyc-src"


def _say(message: str) -> None:
    print(f"fivehundred build: {message}", file=sys.stderr)


def _pure(message: str) -> None:
    """Install pure Python: say why, and remove compiled modules an earlier editable install left in
    this checkout (they would shadow the sources; ``sim/_loader.py`` would only warn about them)."""
    _say(f"{message}: installing pure Python")
    stale = [ROOT / RECORD, *ROOT.glob("fivehundred_core__mypyc*"), *ROOT.glob(GROUP + "__mypyc*")]
    for path in CORE:
        module = ROOT / path
        stale += [*module.parent.glob(module.stem + ".*.so"), *module.parent.glob(module.stem + ".*.pyd")]
    for old in stale:
        old.unlink(missing_ok=True)


def _stage() -> list[str]:
    """Copy the sources under ``build/mypyc-src/fivehundred/`` so that mypyc names the modules as they
    are installed (``fivehundred.sim.engine``) while the checkout keeps its top-level folders."""
    import shutil

    shutil.rmtree(STAGE, ignore_errors=True)
    (STAGE / "fivehundred").mkdir(parents=True)
    (STAGE / "fivehundred" / "__init__.py").write_text("")
    for package in STAGED:
        shutil.copytree(
            ROOT / package,
            STAGE / "fivehundred" / package,
            ignore=shutil.ignore_patterns("*.so", "*.json", "__pycache__"),
        )
    return [str((STAGE / "fivehundred" / path).relative_to(ROOT)) for path in CORE]


def _extensions() -> list:
    if os.environ.get("FIVEHUNDRED_PURE", "") not in ("", "0"):
        _pure("FIVEHUNDRED_PURE is set")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _pure("mypyc is not available")
        return []
    try:
        return mypycify(_stage(), opt_level="3", debug_level="0", group_name=GROUP)
    except (Exception, SystemExit) as exc:  # a mypy error in the core is a bug; never block an install
        _pure(f"mypyc failed ({exc})")
        return []


class OptionalBuildExt(build_ext):
    """Build the compiled core, or nothing at all (never half of it), and record what was built."""

    def run(self) -> None:
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as exc:  # no compiler, missing headers: fall back to pure Python
            for out in self.get_outputs():
                Path(out).unlink(missing_ok=True)
            _pure(f"compiling the core failed ({exc})")
            return
        hashes = {path: hashlib.sha256((ROOT / path).read_bytes()).hexdigest() for path in CORE}
        target = (ROOT if self.inplace else Path(self.build_lib) / "fivehundred") / RECORD
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"compiled": hashes}, indent=1, sort_keys=True) + "\n")

    def get_outputs(self) -> list[str]:
        outputs = super().get_outputs()
        if self.extensions and not self.inplace:
            outputs.append(str(Path(self.build_lib) / "fivehundred" / RECORD))
        return outputs


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
