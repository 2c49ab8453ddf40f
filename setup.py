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

from setuptools import Extension, setup
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
    "sim/phases.py",
    "sim/contract.py",
    "sim/view.py",
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
#: Plain C extensions built beside the mypyc core, each optional on its own (source -> import name; the
#: same table as ``sim/_loader.py``'s ``C_EXTENSIONS``, which reads the record): the DD search.
C_SOURCES = {"sim/_ddc.c": "fivehundred.sim._ddc"}


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


def _drop_c_builds() -> None:
    """Remove C extensions an earlier editable install left in this checkout."""
    for source in C_SOURCES:
        path = ROOT / source
        for old in (*path.parent.glob(path.stem + ".*.so"), *path.parent.glob(path.stem + ".*.pyd")):
            old.unlink(missing_ok=True)


def _c_extensions() -> list:
    return [
        Extension(name, [source], extra_compile_args=["-O3"], optional=True)
        for source, name in C_SOURCES.items()
    ]


def _extensions() -> list:
    if os.environ.get("FIVEHUNDRED_PURE", "") not in ("", "0"):
        _pure("FIVEHUNDRED_PURE is set")
        _drop_c_builds()
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _pure("mypyc is not available")
        return _c_extensions()
    try:
        return mypycify(_stage(), opt_level="3", debug_level="0", group_name=GROUP) + _c_extensions()
    except (Exception, SystemExit) as exc:  # a mypy error in the core is a bug; never block an install
        _pure(f"mypyc failed ({exc})")
        return _c_extensions()


def _digest(path: str) -> str:
    return hashlib.sha256((ROOT / path).read_bytes()).hexdigest()


class OptionalBuildExt(build_ext):
    """Build the compiled core, or nothing at all (never half of it), and record what was built."""

    def run(self) -> None:
        if not self.extensions:
            return
        everything = list(self.extensions)
        compiler = self.compiler  # run() replaces the option (a name) by the compiler it made
        names = set(C_SOURCES.values())
        core = [e for e in everything if e.name not in names]
        record: dict[str, dict[str, str]] = {}
        if core:
            self.extensions = core
            self.compiler = compiler
            try:
                super().run()
            except Exception as exc:  # no compiler, missing headers: fall back to pure Python
                for out in super().get_outputs():
                    Path(out).unlink(missing_ok=True)
                _pure(f"compiling the core failed ({exc})")
            else:
                record["compiled"] = {path: _digest(path) for path in CORE}
        built: dict[str, str] = {}
        for source, name in C_SOURCES.items():
            self.extensions = [e for e in everything if e.name == name]
            self.compiler = compiler
            try:
                super().run()
            except Exception as exc:  # the pure search runs instead (same answers)
                for out in super().get_outputs():
                    Path(out).unlink(missing_ok=True)
                _say(f"compiling {source} failed ({exc}): the pure-Python search runs")
            else:  # an optional extension that failed is only a warning: check that it is there
                if all(Path(out).exists() for out in super().get_outputs()):
                    built[source] = _digest(source)
        if built:
            record["c_extensions"] = built
        self.extensions = everything
        target = (ROOT if self.inplace else Path(self.build_lib) / "fivehundred") / RECORD
        if not record:
            target.unlink(missing_ok=True)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")

    def get_outputs(self) -> list[str]:
        outputs = super().get_outputs()
        if self.extensions and not self.inplace:
            outputs.append(str(Path(self.build_lib) / "fivehundred" / RECORD))
        return outputs


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
